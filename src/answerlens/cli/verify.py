"""``answerlens verify``: an assessment (with its second opinion), a trial result or run folder, or an HTML report
(``answerlens.cli.report``); optionally against the bundle the assessments were made over."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.common import EXIT_OK, EXIT_PROBLEMS, UsageError, load_source
from answerlens.cli.report import is_html, verify_file
from answerlens.errors import AnswerlensError

if TYPE_CHECKING:
    from answerlens.trials.reader import FoundAssessment
    from answerlens.trials.result import TrialResult

SECOND_OPINION_KEY = "second_opinion"
"""The key of a printed second opinion (``answerlens.second_opinion.document.KEY``; a test pins them)."""


def add_commands(commands: Any) -> None:
    verify = commands.add_parser("verify", help="verify an assessment, a trial result or an HTML report")
    verify.add_argument("file", type=Path)
    source = verify.add_mutually_exclusive_group()
    source.add_argument("--bundle", help="the bundle the assessment was made over: re-derive every citation "
                        "decision and span from its exact context")
    source.add_argument("--dataset", type=Path, help="the dataset a trial result or run folder was made over: "
                        "check every sample's label, case hash and inputs against it and re-derive every citation "
                        "from its case's bundle")
    verify.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    if path.is_file() and is_html(path):  # a report: its embedded data, and its page rendered again
        if args.dataset is not None:
            raise UsageError("--dataset applies to a trial result or run folder; a trial report holds no contexts "
                             "(verify the run folder with --dataset)")
        return verify_file(path, args.bundle)
    from answerlens.sweeps.found import is_sweep

    if is_sweep(path):
        return _verify_sweep(path, args)
    from answerlens.errors import DatasetError

    try:
        found, result = _found(path)
    except DatasetError as exc:  # a trial result or sample whose fields do not read back: not verified
        if not _holds_trial_log(path):
            raise
        print(f"{path}: {exc}")
        print(f"{path}: not verified")
        return EXIT_PROBLEMS
    if not found:
        raise UsageError(f"{path}: no assessment found (expected an assessment or a trial result file)")
    bundle = load_source(args.bundle) if args.bundle else None
    sample = _imported_sample(args.bundle)
    bundles, other = _trial_checks(path, result, args.dataset)
    for problem in other:
        print(f"{path}: {problem}")
    from answerlens.verification import provenance_note, recording_mark

    failures = uncovered = 0
    for item in found:
        mark = recording_mark(item.data) if isinstance(item.data, dict) else None
        if mark:
            print(f"{_label(item)}: note: {mark}")
        if isinstance(item.data, dict) and provenance_note(item.data):
            uncovered += 1
        problems = (*verification_problems(item.data, bundles.get(item.question_id, bundle)),
                    *_import_checks(item, sample))
        if problems:
            failures += 1
            for problem in problems:
                print(f"{_label(item)}: {problem}")
    total = len(found)
    if uncovered:
        print(f"{path}: note: {uncovered} of {total} assessment(s) carry no provenance_sha256: their provider, "
              "model, origin and recording are covered by no hash", file=sys.stderr)
    if bundle is None and not bundles:
        print(f"{path}: note: cited references were not resolved in an exact context (the memory each names is "
              "taken as recorded); pass --bundle FILE (--dataset FILE for a trial) to re-derive every citation "
              "from it", file=sys.stderr)
    if failures or other:
        print(f"{path}: {failures} of {total} assessment(s) have problems"
              + (f"; {len(other)} other problem(s)" if other else ""))
        return EXIT_PROBLEMS
    print(f"{path}: ok ({total} assessment{'s' if total != 1 else ''} verified)")
    return EXIT_OK


def _holds_trial_log(path: Path) -> bool:
    """Whether ``path`` is recognisably a trial result, saved sample or run folder (whatever its fields hold)."""
    from answerlens.json_reader import read_json
    from answerlens.trials.reader import holds_trial_log, trial_source

    source = trial_source(path)
    if source.is_dir():
        return (source / "run.json").is_file()
    try:
        return holds_trial_log(read_json(source))
    except (ValueError, OSError, AnswerlensError):
        return False


def _found(path: Path) -> tuple[list[FoundAssessment], TrialResult | None]:
    """The assessments a file or folder holds, and the trial result they belong to (None: not a trial's)."""
    from answerlens.json_reader import read_json
    from answerlens.trials.reader import holds_trial_log, plain_assessments

    data = None if path.is_dir() else read_json(path)
    if data is not None and not holds_trial_log(data):
        return plain_assessments(data), None
    from answerlens.trials.reader import assessments_in, assessments_of, parse_trial, read_trial

    if data is None:
        result = read_trial(path)
        return assessments_of(result), result
    if isinstance(data.get("samples"), list):
        result = parse_trial(data, str(path))
        return assessments_of(result), result
    return assessments_in(data, str(path)), None  # one saved sample


def _trial_checks(path: Path, result: TrialResult | None,
                  dataset_path: Path | None) -> tuple[dict[str | None, Any], list[str]]:
    """A result's recorded summary and gates against its samples, a run folder's sample files against its
    result.json; with ``--dataset``, every sample against its case (labels, case hashes, inputs), and each case's
    bundle to re-derive its citations from."""
    from answerlens.trials.folder import folder_problems
    from answerlens.trials.integrity import dataset_problems

    problems = []
    if result is not None and result.kind == "answerlens-trial-result":
        from answerlens.json_reader import read_json
        from answerlens.report.checks import recorded_summary_problems
        from answerlens.trials.reader import trial_source

        raw = read_json(trial_source(path))
        if isinstance(raw, dict) and isinstance(raw.get("samples"), list):
            problems += recorded_summary_problems(raw, result)
    run_dir = path if path.is_dir() else path.parent if path.name == "result.json" else None
    if result is not None and run_dir is not None and (run_dir / "samples").is_dir() \
            and result.kind == "answerlens-trial-result":
        problems += folder_problems(run_dir, result)
    if dataset_path is None:
        return {}, problems
    if result is None or result.kind == "beam-answerability-execution":
        raise UsageError("--dataset applies to an answerlens trial result or run folder (use --bundle for one "
                         "assessment)")
    from answerlens.trials.dataset import load_dataset

    dataset = load_dataset(dataset_path)
    problems += dataset_problems(result, dataset, rederive=False)
    if problems and problems[0].startswith("dataset:"):
        return {}, problems
    return {item.case.id: item.bundle for item in dataset.cases}, problems


def _verify_sweep(path: Path, args: argparse.Namespace) -> int:
    """A sweep folder (or its result.json): every sample re-derived over its cell's context, the summary
    recomputed; the bundle is the sweep's own (``bundle.json``)."""
    from answerlens.sweeps.reader import verify_sweep

    if args.bundle:
        raise UsageError("a sweep carries its bundle (bundle.json): --bundle does not apply")
    count, problems = verify_sweep(path)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{path}: {len(problems)} problem(s) in a sweep of {count} sample(s)")
        return EXIT_PROBLEMS
    print(f"{path}: ok (sweep: {count} sample{'s' if count != 1 else ''} re-derived, summary recomputed)")
    return EXIT_OK


def verification_problems(assessment: Any, bundle: Any) -> tuple[str, ...]:
    """An assessment's problems; a printed assessment with a ``second_opinion`` is verified with it."""
    if isinstance(assessment, dict) and SECOND_OPINION_KEY in assessment:
        from answerlens.second_opinion.document import verify_document

        return verify_document(assessment, bundle=bundle)
    from answerlens.verification import verify_assessment

    return verify_assessment(assessment, bundle=bundle).problems


def _imported_sample(path: str | None) -> dict[str, Any] | None:
    """A sample imported from a trace, given as ``--bundle``: its import block is checked against the assessment's."""
    from answerlens.traces.checks import sample_of

    return sample_of(path)


def _import_checks(item: FoundAssessment, sample: dict[str, Any] | None) -> list[str]:
    """Prints where an imported sample's evidence came from (nothing for a hand-made sample's); its problems."""
    from answerlens.traces.checks import import_note, import_problems

    if not isinstance(item.data, dict):
        return []
    note = import_note(item.data)
    if note:
        print(f"{_label(item)}: note: {note}")
    return import_problems(item.data, sample)


def _label(item: FoundAssessment) -> str:
    if item.position is None:
        return "assessment"
    return f"samples[{item.position}] {item.question_id} repeat {item.repeat}"
