"""``answerlens report``: one shareable HTML file of an assessment (with its bundle) or of a trial result; and
``verify`` checks such a file (``answerlens.verification.report``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.common import EXIT_OK, EXIT_PROBLEMS, UsageError, read_source

if TYPE_CHECKING:
    from answerlens.records import MemoryBundle
    from answerlens.samples import Sample

def add_commands(commands: Any) -> None:
    report = commands.add_parser("report",
                                 help="write a self-contained HTML report of an assessment, a trial or a sweep")
    report.add_argument("input", type=Path, help="an assessment JSON (as `assess --json` prints it, a second "
                        "opinion included), or a trial result.json / run directory / upstream result")
    report.add_argument("--bundle", help="the bundle or sample file the assessment was made over (assessments)")
    report.add_argument("-q", "--question", help="the question assessed (default: the sample's, or the second "
                        "opinion's; an assessment stores only its hash)")
    report.add_argument("--answer", help="the draft answer assessed, if any (default: the sample's)")
    report.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write")
    report.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from answerlens.json_reader import read_json
    from answerlens.trials.reader import holds_trial_log

    path: Path = args.input
    from answerlens.sweeps.found import is_sweep

    if is_sweep(path):
        if args.bundle or args.question or args.answer:
            raise UsageError("--bundle, --question and --answer apply to an assessment, not to a sweep")
        return _refused(path, args.output, "sweep report") or _write_checked(_sweep(path), args.output,
                                                                               "sweep report", None)
    data = None if path.is_dir() else read_json(path)
    if data is None or holds_trial_log(data):
        if args.bundle or args.question or args.answer:
            raise UsageError("--bundle, --question and --answer apply to an assessment, not to a trial result")
        refused = _refused(path, args.output, "trial report")
        if refused:
            return refused
        html, label, bundle = _trial(path), "trial report", None
    else:
        html, label, bundle = _assessment(path, data, args)
    return _write_checked(html, args.output, label, bundle)


def _refused(path: Path, output: Path, label: str) -> int:
    """A run (folder or result) is reported only when ``verify`` finds no problem in it: its folder and the dataset
    its run names are checked there, beyond what the page's own data can show (an unfinished run is reported, and
    says so on the page). ``EXIT_PROBLEMS`` after printing them, else 0."""
    from answerlens.verification.path import verify_path

    check = verify_path(path)
    if not check.problems:
        return 0
    for problem in check.problems:
        print(f"{label}: {problem}")
    print(f"{output}: not written ({len(check.problems)} problem(s): `answerlens verify {path}` finds them)")
    return EXIT_PROBLEMS


def _trial(path: Path) -> str:
    from answerlens.trials.reader import read_trial
    from answerlens.verification.report import trial_report

    return trial_report(read_trial(path), source=path.name)


def _sweep(path: Path) -> str:
    from answerlens.sweeps.reader import folder_of, read_recorded
    from answerlens.verification.report import sweep_report

    return sweep_report(read_recorded(path), source=folder_of(path).name)


def _assessment(path: Path, data: Any, args: argparse.Namespace) -> tuple[str, str, MemoryBundle]:
    from answerlens.loading import load_bundle
    from answerlens.verification.report import assessment_report

    if not isinstance(data, dict) or "verdict" not in data:
        raise UsageError(f"{path}: not an assessment (expected the JSON `answerlens assess --json` prints) "
                         "nor a trial result")
    if not args.bundle:
        raise UsageError("an assessment's report shows its exact context: pass the bundle it was made over "
                         "with --bundle BUNDLE.json")
    source, sample = read_source(args.bundle)
    bundle = load_bundle(source, name=args.bundle)
    question = _question(args, data, sample)
    answer = args.answer if args.answer is not None else _sample_answer(data, sample)
    html = assessment_report(data, question=question, answer=answer, context=bundle.exact_context,
                             context_format=bundle.context_format,
                             source=f"{path.name} over {Path(args.bundle).name}")
    return html, "assessment report", bundle


def _question(args: argparse.Namespace, data: dict[str, Any], sample: Sample | None) -> str:
    """The question given, else the one among the sample's and the second opinion's that hashes as recorded."""
    from answerlens.audit import sha256_text

    if args.question:
        return str(args.question)
    opinion = data.get("second_opinion")
    known = [sample.question if sample else None, opinion.get("question") if isinstance(opinion, dict) else None]
    for question in known:
        if isinstance(question, str) and sha256_text(question.strip()) == data.get("query_sha256"):
            return question
    raise UsageError("the assessment stores only its question's hash, and no question at hand (the sample's, the "
                     "second opinion's) has it: pass the question assessed with -q QUESTION, and check that "
                     "--bundle is the file assessed")


def _sample_answer(data: dict[str, Any], sample: Sample | None) -> str | None:
    """The sample's draft when it is the one assessed (by its hash); else the report says the text is missing."""
    from answerlens.audit import sha256_text

    if sample is None or sample.answer is None or data.get("answer_sha256") is None:
        return None
    return sample.answer if sha256_text(sample.answer.strip()) == data["answer_sha256"] else None


def _write_checked(html: str, output: Path, label: str, bundle: MemoryBundle | None) -> int:
    """Write the report only when it verifies as written (its data, and its page re-rendered)."""
    from answerlens.verification.report import verify_report

    check = verify_report(html, bundle=bundle)
    if not check.ok:
        for problem in check.problems:
            print(f"{label}: {problem}")
        print(f"{output}: not written ({len(check.problems)} problem(s) in the data it would carry)")
        return EXIT_PROBLEMS
    from answerlens.storage import refusals, write_atomically

    if output.exists() and not output.is_file():  # /dev/stdout, a pipe: written to, never replaced
        with refusals(output), output.open("w", encoding="utf-8") as handle:
            handle.write(html)
    else:  # whole or not at all: an older report there survives a full disk
        write_atomically(output.resolve(), html)
    print(f"{output}: {label} written ({len(html.encode('utf-8')):,} bytes); check it with `answerlens verify "
          f"{output}`")
    return EXIT_OK
