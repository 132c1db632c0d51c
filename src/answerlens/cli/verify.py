"""``answerlens verify``: arguments and printing; what is checked, and how, is ``answerlens.verify_path``'s."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNFINISHED, UsageError

if TYPE_CHECKING:
    from answerlens.verification.outcome import PathCheck


ONE_ASSESSMENT = ("assessment", "trial sample", "assessment report")
"""What ``verify_path`` finds that is no run, so has no samples to be unfinished."""


def add_commands(commands: Any) -> None:
    verify = commands.add_parser("verify", help="verify an assessment, a trial or sweep (result or folder), or an "
                                 "HTML report")
    verify.add_argument("file", type=Path)
    source = verify.add_mutually_exclusive_group()
    source.add_argument("--bundle", type=Path, help="the bundle the assessment was made over: re-derive every "
                        "citation decision and span from its exact context")
    source.add_argument("--dataset", type=Path, help="the dataset a trial result or run folder was made over: "
                        "check every sample's label, case hash and inputs against it and re-derive every citation "
                        "from its case's bundle")
    verify.add_argument("--allow-unfinished", action="store_true", help="a trial or sweep that does not hold every "
                        "sample yet verifies (exit 0) when what it holds does; the count is still printed")
    verify.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from answerlens.verification.path import verify_path

    for option in (args.bundle, args.dataset):
        if option is not None and not option.is_file():
            raise UsageError(f"{option}: no such file")
    check = verify_path(args.file, bundle=args.bundle, dataset=args.dataset)
    if args.allow_unfinished and check.kind in ONE_ASSESSMENT:
        raise UsageError(f"--allow-unfinished applies to a trial or sweep (a run folder, its result, or its report), "
                         f"not to {'an' if check.kind[0] in 'aeiou' else 'a'} {check.kind}")
    return report(check, allow_unfinished=args.allow_unfinished)


def report(check: PathCheck, *, allow_unfinished: bool = False) -> int:
    """Print what ``verify_path`` found; the exit code (0 verified, 1 problems, 5 unfinished)."""
    label = check.kind if check.kind.endswith(("report", "assessment")) else str(check.path)
    for problem in check.problems:
        print(f"{label}: {problem}")
    for mark in check.notes.marks:
        print(f"{label}: note: {mark}")
    for caveat in check.notes.caveats:
        print(f"{check.path}: note: {caveat}", file=sys.stderr)
    if check.problems:
        unfinished = f"; {check.samples.text}" if check.unfinished and check.samples is not None else ""
        print(f"{check.path}: {len(check.problems)} problem(s){_where(check)}{unfinished}")
        return EXIT_PROBLEMS
    if check.unfinished:
        assert check.samples is not None
        print(f"{check.path}: {check.samples.text} ({_verified(check)}); "
              + ("allowed by --allow-unfinished" if allow_unfinished else
                 "not a complete run: rerun it to finish, or pass --allow-unfinished"))
        return EXIT_OK if allow_unfinished else EXIT_UNFINISHED
    print(f"{check.path}: ok ({_verified(check)})")
    return EXIT_OK


def _where(check: PathCheck) -> str:
    if check.kind.endswith("report"):
        return ""
    if check.kind == "sweep":
        return f" in a sweep of {check.checked} assessed sample(s)"
    return f" in {check.kind} of {check.checked} assessment(s)"


def _verified(check: PathCheck) -> str:
    if check.kind.endswith("report"):
        return f"{check.kind}: embedded data verified, page re-rendered identically"
    if check.kind == "sweep":
        text = f"sweep: {check.checked} sample{'s' if check.checked != 1 else ''} re-derived, summary recomputed"
    else:
        text = f"{check.checked} assessment{'s' if check.checked != 1 else ''} verified"
    if check.samples is not None:
        failed = f", {check.samples.failed} failed" if check.samples.failed else ""
        text += f"; {check.samples.text}{failed}"
    return text
