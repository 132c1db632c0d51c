"""``answerlens verify``: an assessment (with its second opinion), a trial result or run folder, or an HTML report
(``answerlens.cli.report``); optionally against the bundle the assessments were made over."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.common import EXIT_OK, EXIT_PROBLEMS, UsageError, load_source
from answerlens.cli.report import is_html, verify_file

if TYPE_CHECKING:
    from answerlens.trials.reader import FoundAssessment

SECOND_OPINION_KEY = "second_opinion"
"""The key of a printed second opinion (``answerlens.second_opinion.document.KEY``; a test pins them)."""


def add_commands(commands: Any) -> None:
    verify = commands.add_parser("verify", help="verify an assessment, a trial result or an HTML report")
    verify.add_argument("file", type=Path)
    verify.add_argument("--bundle", help="the bundle the assessment was made over: re-derive every citation "
                        "decision and span from its exact context")
    verify.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from answerlens.json_reader import read_json
    from answerlens.trials.reader import assessments_in, assessments_of, read_trial

    path: Path = args.file
    if path.is_file() and is_html(path):  # a report: its embedded data, and its page rendered again
        return verify_file(path, args.bundle)
    data = None if path.is_dir() else read_json(path)  # a run folder: through the trial reader
    found = assessments_of(read_trial(path)) if data is None else assessments_in(data, str(path))
    if not found:
        raise UsageError(f"{path}: no assessment found (expected an assessment or a trial result file)")
    bundle = load_source(args.bundle) if args.bundle else None
    from answerlens.verification import recording_mark

    failures = 0
    for item in found:
        mark = recording_mark(item.data) if isinstance(item.data, dict) else None
        if mark:
            print(f"{_label(item)}: note: {mark}")
        problems = verification_problems(item.data, bundle)
        if problems:
            failures += 1
            for problem in problems:
                print(f"{_label(item)}: {problem}")
    total = len(found)
    if failures:
        print(f"{path}: {failures} of {total} assessment(s) have problems")
        return EXIT_PROBLEMS
    print(f"{path}: ok ({total} assessment{'s' if total != 1 else ''} verified)")
    return EXIT_OK


def verification_problems(assessment: Any, bundle: Any) -> tuple[str, ...]:
    """An assessment's problems; a printed assessment with a ``second_opinion`` is verified with it."""
    if isinstance(assessment, dict) and SECOND_OPINION_KEY in assessment:
        from answerlens.second_opinion.document import verify_document

        return verify_document(assessment, bundle=bundle)
    from answerlens.verification import verify_assessment

    return verify_assessment(assessment, bundle=bundle).problems


def _label(item: FoundAssessment) -> str:
    if item.position is None:
        return "assessment"
    return f"samples[{item.position}] {item.question_id} repeat {item.repeat}"
