"""``verify_path`` for what is not a report or a sweep: a trial run folder, a trial result file, a saved sample, an
assessment file (ours, PRME's, or a printed one with its second opinion)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from answerlens.errors import DatasetError, TrialError, VerificationError
from answerlens.records import MemoryBundle
from answerlens.trials.dataset import Dataset
from answerlens.trials.folder import RESULT_MAX_BYTES
from answerlens.trials.log import ResultKind, TrialSample
from answerlens.trials.result import TrialResult
from answerlens.verification.notes import Notes
from answerlens.verification.outcome import PathCheck, sample_notes, shard_notes, unresolved
from answerlens.verification.trial import CheckedTrial

TRIAL_RUN_KIND = "answerlens-trial-run"


def trial_or_assessment(path: Path, *, bundle: MemoryBundle | None, dataset: Dataset | None,
                        sample: dict[str, Any] | None = None) -> PathCheck:
    """``sample``: the JSON of the imported sample given as the bundle, whose import block the assessment's must be."""
    from answerlens.json_reader import read_json
    from answerlens.trials.reader import holds_trial_log

    run = _run_folder(path)
    if run is not None:
        if bundle is not None:
            raise VerificationError("--bundle applies to one assessment; a trial's samples have a bundle each: pass "
                                    "--dataset FILE")
        return _trial(path, run=run, data=None, dataset=dataset)
    if path.is_dir():
        if not (path / "result.json").is_file():
            raise VerificationError(f"{path}: a folder that is neither a trial run (run.json) nor a sweep")
        found = trial_or_assessment(path / "result.json", bundle=bundle, dataset=dataset, sample=sample)
        return replace(found, path=path)  # a result file kept in a folder of its own
    data = read_json(path, max_bytes=RESULT_MAX_BYTES)  # a trial's result.json may be as large as the reader allows
    if holds_trial_log(data):
        if isinstance(data.get("samples"), list):
            if bundle is not None:
                raise VerificationError("--bundle applies to one assessment; a trial's samples have a bundle each: "
                                        "pass --dataset FILE")
            return _trial(path, run=None, data=data, dataset=dataset)
        return _sample(path, data, bundle, dataset)
    _no_dataset(dataset)
    return _assessments(path, data, bundle, sample)


def _run_folder(path: Path) -> Path | None:
    """The trial run folder ``path`` is, or whose ``result.json`` it is; None otherwise."""
    folder = path if path.is_dir() else path.parent if path.name == "result.json" else None
    if folder is None:
        return None
    from answerlens.json_reader import read_json

    try:
        head = read_json(folder / "run.json")
    except (OSError, ValueError):
        return folder if path.is_dir() and (folder / "samples").is_dir() else None
    return folder if isinstance(head, dict) and head.get("kind") == TRIAL_RUN_KIND else None


def _no_dataset(dataset: Dataset | None) -> None:
    if dataset is not None:
        raise VerificationError("--dataset applies to a trial result or run folder (use --bundle for one assessment)")


def _trial(path: Path, *, run: Path | None, data: Any, dataset: Dataset | None) -> PathCheck:
    """A run folder (finished or not) or a result file: its checks, then against the dataset when given."""
    from answerlens.verification.folder import check_folder
    from answerlens.verification.trial import trial_problems

    found = Notes()
    if dataset is None and run is not None:
        dataset, found = _recorded_file(run)
    bundles = _bundles_of(path, run, data, dataset)
    if run is not None:
        checked: CheckedTrial = check_folder(run, bundles=bundles)
    elif data.get("kind") == ResultKind.UPSTREAM:
        checked = _upstream(path, data)
    else:
        checked = trial_problems(data, bundles=bundles)
    result = checked.result
    if result is None:
        return PathCheck(path, "trial run" if run is not None else "trial result", problems=checked.problems)
    problems = list(checked.problems)
    if dataset is not None:
        from answerlens.verification.trial import dataset_problems

        if result.kind == ResultKind.UPSTREAM:
            raise VerificationError("--dataset applies to an answerlens trial result or run folder, not to an "
                                    "upstream result")
        problems += dataset_problems(result, dataset, rederive=False)
    kind = {ResultKind.UPSTREAM: "upstream trial result", ResultKind.RUN: "trial run"}.get(result.kind, "trial result")
    assessed = sum(1 for sample in result.samples if sample.assessment is not None)
    return PathCheck(path, kind, assessed, tuple(problems), found + result_notes(result, dataset is not None),
                     checked.samples)


def result_notes(result: TrialResult, dataset_given: bool) -> Notes:
    """What verify says beside a trial result's verdict: gates off answerlens' defaults, the replay marks and
    provenance caveat of its samples, references taken as recorded (no dataset), and a shard's being one part."""
    from answerlens.verification.trial import gate_notes

    assessed = sum(1 for sample in result.samples if sample.assessment is not None)
    return gate_notes(result) + sample_notes(result.samples) + unresolved(assessed, dataset_given) + \
        shard_notes(result.shard.label if result.shard is not None else None)


def _recorded_file(run: Path) -> tuple[Dataset | None, Notes]:
    """The dataset a run folder's ``run.json`` names, when it is still there with the bytes the run hashed (the
    path as the runner was given it: absolute, or relative to where it ran — tried from here and from beside the
    folder); else None, and the note that labels and cases went unchecked."""
    from answerlens.trials.dataset import load_dataset
    from answerlens.trials.folder import read_manifest

    try:
        manifest = read_manifest(run / "run.json")
    except (DatasetError, TrialError, OSError, ValueError):
        return None, Notes()
    named = Path(manifest.dataset)
    tried = [named] if named.is_absolute() else [Path.cwd() / named, run.parent / named]
    for candidate in tried:
        if not candidate.is_file():
            continue
        try:
            dataset = load_dataset(candidate)
        except (DatasetError, OSError, ValueError):
            continue
        if dataset.sha256 == manifest.dataset_sha256:
            return dataset, Notes(caveats=(f"labels and cases checked against the dataset the run names, "
                                           f"{candidate} (its bytes unchanged since the run)",))
    return None, Notes(caveats=(f"labels and cases were not checked: the dataset the run names, {manifest.dataset}, "
                                "is not there with the bytes the run hashed — pass --dataset FILE",))


def verify_trial_data(data: Any, source: str) -> CheckedTrial:
    """A trial result already parsed from JSON (an uploaded file), ours or upstream's, checked as ``verify`` checks
    the file (``source`` names it)."""
    from answerlens.verification.trial import trial_problems

    if isinstance(data, dict) and data.get("kind") == ResultKind.UPSTREAM:
        return _upstream(Path(source), data)
    return trial_problems(data)


def _upstream(path: Path, data: Any) -> CheckedTrial:
    """An upstream BEAM result: read as published (its summary is compared, not required to match), every
    assessment verified."""
    from answerlens.trials.reader import parse_trial
    from answerlens.verification.trial import verify_samples

    try:
        result = parse_trial(data, str(path))
    except DatasetError as exc:
        return CheckedTrial(None, (str(exc),))
    return CheckedTrial(result, tuple(verify_samples(result.samples, {})))


def _bundles_of(path: Path, run: Path | None, data: Any, dataset: Dataset | None) -> dict[str, MemoryBundle]:
    """Each case's bundle, when the dataset is the run's (else the dataset's problem is reported, and nothing is
    re-derived over another dataset's bundles)."""
    if dataset is None:
        return {}
    recorded = _recorded_dataset(run, data)
    return dict(result_bundles_by_hash(dataset, recorded))


def _recorded_dataset(run: Path | None, data: Any) -> str | None:
    from answerlens.json_reader import read_json

    source = data if run is None else None
    if run is not None:
        try:
            source = read_json(run / "run.json")
        except (OSError, ValueError):
            return None
        return source.get("dataset_sha256") if isinstance(source, dict) else None
    dataset = source.get("dataset") if isinstance(source, dict) else None
    return dataset.get("sha256") if isinstance(dataset, dict) else None


def result_bundles_by_hash(dataset: Dataset, recorded: str | None) -> dict[str, MemoryBundle]:
    return {item.case.id: item.bundle for item in dataset.cases} if recorded == dataset.sha256 else {}


def _sample(path: Path, data: Any, bundle: MemoryBundle | None, dataset: Dataset | None) -> PathCheck:
    """One saved sample: its assessment (and second opinion), over ``bundle`` or its case's in ``dataset``. Whether
    its run is complete is the run folder's to say."""
    from answerlens.trials.log import parse_samples
    from answerlens.verification.trial import verify_samples

    try:
        sample = parse_samples([data], TrialSample, str(path))[0]
    except DatasetError as exc:
        return PathCheck(path, "trial sample", problems=(str(exc),))
    bundles: dict[str, MemoryBundle] = {}
    if bundle is not None:
        bundles = {sample.case_id: bundle}
    elif dataset is not None:
        bundles = result_bundles_by_hash(dataset, sample.dataset_sha256)
        if not bundles:
            return PathCheck(path, "trial sample", problems=(f"dataset: {dataset.path} is not the sample's dataset",))
    problems = verify_samples([sample], bundles, ["sample"])
    checked = 1 if sample.assessment is not None else 0
    notes = sample_notes([sample]) + unresolved(checked, bool(bundles)) + Notes(caveats=(
        "one sample: whether its run holds every sample is its run folder's to say (verify the folder)",))
    return PathCheck(path, "trial sample", checked, tuple(problems), notes)


def _assessments(path: Path, data: Any, bundle: MemoryBundle | None,
                 sample: dict[str, Any] | None = None) -> PathCheck:
    """An assessment file (or a file that wraps one): verified, with its second opinion when printed with one; an
    imported sample's assessment says where its evidence came from, and its import block is checked."""
    from answerlens.trials.reader import plain_assessments
    from answerlens.verification.imported import import_checks
    from answerlens.verification.notes import assessment_notes
    from answerlens.verification.opinion import verify_document

    found = plain_assessments(data)
    if not found:
        raise VerificationError(f"{path}: no assessment found (expected an assessment, a trial result or sample, a "
                                "run or sweep folder, or an HTML report)")
    problems = [problem for item in found for problem in verify_document(item.data, bundle=bundle)]
    from answerlens.second_opinion.document import split_document

    printed = [split_document(item.data)[0] for item in found]
    imported, notes = import_checks(printed, sample)
    notes = assessment_notes(("", assessment) for assessment in printed) + notes + \
        unresolved(len(found), bundle is not None)
    return PathCheck(path, "assessment", len(found), (*problems, *imported), notes)
