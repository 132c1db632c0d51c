"""A trial's run folder, checked: ``run.json``'s manifest, every sample file (read back as written, named as the
runner names it, this run's), ``result.json`` against both once it is written, every planned sample there; and the
saved samples a resume reuses, each re-derived from its case's bundle."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from answerlens.errors import TrialError
from answerlens.records import MemoryBundle
from answerlens.trials.dataset import Dataset
from answerlens.trials.folder import (
    MANIFEST,
    RESULT,
    RESULT_MAX_BYTES,
    SAMPLES,
    read_manifest,
    read_sample,
    read_saved_json,
    sample_filename,
    sample_label,
)
from answerlens.trials.log import TrialSample
from answerlens.trials.reader import unfinished_result
from answerlens.trials.result import RunIdentity, TrialResult
from answerlens.verification.trial import (
    CheckedTrial,
    identity_problems,
    manifest_problems,
    sample_problems,
    trial_problems,
    verify_samples,
)


def saved_samples(samples_dir: Path, dataset: Dataset, identity: RunIdentity,
                  repeats: int) -> dict[tuple[str, int], TrialSample]:
    """Saved samples of this run by (case, repeat). A sample is checked, not trusted: one of another run (its
    manifest), or whose label, case or assessment no longer matches its case (``sample_problems``: every assessment
    re-derived from its case's bundle), is refused naming the file."""
    cases = {item.case.id: item for item in dataset.cases}
    saved: dict[tuple[str, int], TrialSample] = {}
    for path in sorted(samples_dir.glob("*.json")):
        sample = read_sample(path)
        problems = sample_problems(sample, cases.get(sample.case_id), dataset_sha256=identity.dataset_sha256,
                                   configuration_sha256=identity.configuration_sha256,
                                   manifest=identity.manifest_sha256)
        if path.name != sample_filename(sample.case_id, sample.repeat):
            problems.append(f"file name: not {sample_filename(sample.case_id, sample.repeat)}")
        if sample.repeat >= repeats:
            problems.append(f"repeat: {sample.repeat}, and the run has {repeats} repeat(s) (0 to {repeats - 1})")
        if problems:
            raise TrialError(f"{path}: saved sample does not match this dataset/configuration ({'; '.join(problems)}); "
                             "refusing to mix samples — delete it to rerun that sample, or use a fresh --out directory")
        saved[(sample.case_id, sample.repeat)] = sample
    return saved


def check_folder(run: Path, *, bundles: Mapping[str, MemoryBundle] | None = None) -> CheckedTrial:
    """Every problem of a run folder, finished or not, and its samples against its manifest; each sample verified
    over its case's bundle when ``bundles`` has it. A ``run.json`` or ``result.json`` that is not JSON at all is a
    ``TrialError`` (nothing to verify), one whose fields were edited a problem."""
    manifest = read_manifest(run / MANIFEST)
    files, problems = _sample_files(run)
    problems += stray_files(run)
    if (run / RESULT).exists():
        checked = trial_problems(read_saved_json(run / RESULT, RESULT_MAX_BYTES), bundles=bundles)
        own = manifest.manifest()
        problems += [f"{MANIFEST}: {problem}" for problem in identity_problems(own, manifest.manifest_sha256)] \
            if own is not None else [f"{MANIFEST}: no manifest recorded (written before manifests)"]
        if checked.result is not None:
            if checked.result.manifest_sha256 != manifest.manifest_sha256:
                problems.append(f"{RESULT}: of another run than {MANIFEST} (their manifest_sha256 differ)")
            shown = {key: f"shard {part.label}" if part is not None else "the whole run"
                     for key, part in ((RESULT, checked.result.shard), (MANIFEST, manifest.shard))}
            if shown[RESULT] != shown[MANIFEST]:
                problems.append(f"{RESULT}: holds {shown[RESULT]}, and {MANIFEST} records {shown[MANIFEST]}")
            problems += files_against_result(files, checked.result)
        return CheckedTrial(checked.result, (*problems, *checked.problems), checked.samples)
    result = unfinished_result(manifest, list(files.values()))
    found, count = manifest_problems(result)
    problems += verify_samples(list(files.values()), bundles or {}, [f"{SAMPLES}/{name}" for name in files])
    return CheckedTrial(result, (*problems, *found), count)


LEFTOVER = re.compile(r"\..+\.json\.\d+\.\d+\.tmp")
"""``storage.temporary_name`` of a sample: a write a crash cut short (the next run clears it; nothing reads it)."""


def stray_files(run: Path) -> list[str]:
    """Whatever ``samples/`` holds besides sample files (and a crash's half-written leftovers): nothing reads it, so
    it is reported, never silently ignored (a sample renamed ``.orig`` or moved into a subfolder is still there)."""
    samples = run / SAMPLES
    if not samples.is_dir():
        return []
    return [f"{SAMPLES}/{entry.name}: not a sample file (a run writes only NAME.json files there), so nothing counts "
            "it — move it out of the folder" for entry in sorted(samples.iterdir())
            if not entry.name.endswith(".json") and not LEFTOVER.fullmatch(entry.name)]  # *.json: the readers' own


def _sample_files(run: Path) -> tuple[dict[str, TrialSample], list[str]]:
    """Every sample file that reads back as written under the name the runner gives it, and the problems of the
    others (a copy under another name would count twice)."""
    files: dict[str, TrialSample] = {}
    problems = []
    for path in sorted((run / SAMPLES).glob("*.json")):
        try:
            sample = read_sample(path)
        except TrialError as exc:
            problems.append(f"{SAMPLES}/{path.name}: {exc}")
            continue
        expected = sample_filename(sample.case_id, sample.repeat)
        if path.name != expected:
            problems.append(f"{SAMPLES}/{path.name}: holds {sample_label(sample)}, which belongs in {expected}; a copy "
                            "under another name would count twice")
            continue
        files[path.name] = sample
    return files, problems


def files_against_result(files: dict[str, TrialSample], result: TrialResult) -> list[str]:
    """A finished folder: every sample of ``result.json`` has its file holding exactly it, and no sample file is
    left out of it (an inconvenient sample cannot be dropped from the result and kept on disk unseen)."""
    counted = {sample_filename(s.case_id, s.repeat): s for s in result.samples if isinstance(s, TrialSample)}
    problems = []
    for name, sample in counted.items():
        saved = files.get(name)
        if saved is None:
            problems.append(f"{SAMPLES}/{name}: missing ({sample_label(sample)} is in {RESULT})")
        elif saved.model_dump(mode="json") != sample.model_dump(mode="json"):
            problems.append(f"{SAMPLES}/{name}: differs from its sample in {RESULT}")
            problems += verify_samples([saved], {}, [f"{SAMPLES}/{name}"])  # and what is wrong with the file
    problems += [f"{SAMPLES}/{name}: {sample_label(files[name])} is not counted in {RESULT}"
                 for name in files if name not in counted]
    return problems
