"""``answerlens trial`` and ``trial-report``: repeated runs over a labelled dataset, and reading their results."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_PROVIDER, add_provider_options, config_from, fail

if TYPE_CHECKING:
    from answerlens.trials.runner import Progress


def add_commands(commands: Any) -> None:
    trial = commands.add_parser("trial", help="run repeated trials over a labelled dataset (resumable)")
    trial.add_argument("dataset", type=Path, help="JSON or JSONL dataset of cases")
    trial.add_argument("--repeats", type=int, default=3)
    trial.add_argument("--concurrency", type=int, default=4)
    trial.add_argument("--out", type=Path, required=True, help="run directory (rerun the same command to resume)")
    trial.add_argument("--gates", type=Path, help="JSON mapping gate name to threshold (replaces the defaults)")
    trial.add_argument("--fail-fast", action="store_true", help="stop at the first provider failure")
    add_provider_options(trial, ["ollama", "openai", "llamacpp"])
    trial.set_defaults(handler=run_trial)

    report = commands.add_parser("trial-report", help="print a trial result's summary and gates")
    report.add_argument("result", type=Path, help="result.json, a run directory, or an upstream result file")
    report.add_argument("--json", action="store_true", help="print the summary as JSON")
    report.set_defaults(handler=run_report)


def run_trial(args: argparse.Namespace) -> int:
    import asyncio

    from answerlens.trials.dataset import load_dataset
    from answerlens.trials.gates import load_gates
    from answerlens.trials.report import report_lines
    from answerlens.trials.runner import run_trial as run

    dataset = load_dataset(args.dataset)
    gates = load_gates(args.gates) if args.gates else None
    config = config_from(args)
    total = len(dataset.cases) * args.repeats
    print(f"{args.dataset}: {len(dataset.cases)} cases x {args.repeats} repeats = {total} samples "
          f"at concurrency {args.concurrency} -> {args.out}", file=sys.stderr)
    try:
        outcome = asyncio.run(run(dataset, config, repeats=args.repeats, out=args.out,
                                  concurrency=args.concurrency, gates=gates, fail_fast=args.fail_fast,
                                  progress=_print_progress))
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return fail(130, f"interrupted; finished samples are saved in {args.out} — rerun the same command to resume")
    print(file=sys.stderr)
    if outcome.result_path is None:
        return fail(EXIT_PROVIDER, f"stopped at the first provider failure (--fail-fast); {outcome.new_samples} "
                    f"new sample(s) saved in {args.out}; rerun to resume")
    print(f"{outcome.new_samples} new, {outcome.reused_samples} resumed, {outcome.errors} error sample(s); "
          f"result: {outcome.result_path}", file=sys.stderr)
    result = outcome.result
    assert result is not None, "a run that wrote result.json has its result"
    print("\n".join(report_lines(result, outcome.result_path)))
    return EXIT_OK if result.quality_gates is None or result.quality_gates.passed else EXIT_PROBLEMS


def _print_progress(progress: Progress) -> None:
    eta = f"{progress.eta:.0f}s" if progress.eta is not None else "?"
    line = (f"{progress.done}/{progress.total}  errors {progress.errors}  {progress.rate:.2f}/s  ETA {eta}  "
            f"{progress.last}")
    if sys.stderr.isatty():
        print("\r" + line[:150].ljust(150), end="", file=sys.stderr, flush=True)
    else:
        print(line, file=sys.stderr, flush=True)


def run_report(args: argparse.Namespace) -> int:
    from answerlens.trials.reader import read_trial, trial_source
    from answerlens.trials.report import report_lines

    result = read_trial(args.result)
    if args.json:
        print(json.dumps(result.summary.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print("\n".join(report_lines(result, trial_source(args.result))))
    if result.summary_matches is False:
        return EXIT_PROBLEMS
    return EXIT_OK if result.quality_gates is None or result.quality_gates.passed else EXIT_PROBLEMS
