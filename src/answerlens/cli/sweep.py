"""``answerlens sweep``: one question over one bundle at a grid of packing settings (formats × token budgets ×
retrieval depths × chunk sizes), each cell assessed ``--repeats`` times through the trial engine (resumable);
prints the grid and what changed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.cluster import add_cluster_options, cluster_exit, cluster_from, on_cluster
from answerlens.cli.common import (
    CONCURRENCY_HELP,
    EXIT_FAILED_SAMPLES,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_UNFINISHED,
    UsageError,
    add_provider_options,
    announce,
    concurrency_text,
    config_from,
    fail,
    run_ended,
)

if TYPE_CHECKING:
    from answerlens.engine.sweep import SweepOutcome
    from answerlens.sweeps.result import SweepResult

FORMAT_CHOICES = ("reader_cited", "reader_plain", "auditable", "compact")
"""``SweepFormat``'s values (a test pins them)."""


def add_commands(commands: Any) -> None:
    sweep = commands.add_parser("sweep", help="assess one question at a grid of packing settings (resumable)")
    sweep.add_argument("bundle", help="bundle or sample JSON file")
    sweep.add_argument("-q", "--question", help="the question (default: the sample's question)")
    sweep.add_argument("--answer", help="a draft answer to check claim by claim (default: the sample's)")
    sweep.add_argument("--format", action="append", default=[], choices=FORMAT_CHOICES, dest="formats",
                       help="a packing format (repeatable; default: every format)")
    sweep.add_argument("--budget", action="append", default=[], dest="budgets", metavar="B",
                       help="'packed', a token count, or NN%% of the packed context's tokens (repeatable; "
                       "default: packed)")
    sweep.add_argument("--top-k", action="append", default=[], dest="top_k", metavar="K",
                       help="retrieval depth: keep the first K records in packed order (repeatable; default: every "
                       "record)")
    sweep.add_argument("--record-tokens", action="append", default=[], dest="record_tokens", metavar="N",
                       help="chunk size: cut each record's text to its first N tokens, marked as cut in the context "
                       "(repeatable; default: whole records)")
    sweep.add_argument("--repeats", type=int, default=3, help="repeats per cell (1–1,000)")
    sweep.add_argument("--concurrency", type=int, help=CONCURRENCY_HELP)
    sweep.add_argument("--out", type=Path, required=True, help="sweep directory (rerun the same command to resume)")
    sweep.add_argument("--fail-fast", action="store_true", help="stop at the first provider failure")
    sweep.add_argument("--early-stop", type=int, default=5, metavar="N",
                       help="stop when the first N calls all fail with the same kind of error (default 5; 0: never)")
    sweep.add_argument("--no-preflight", action="store_true",
                       help="start without first asking each endpoint whether it is up and has the model")
    sweep.add_argument("--endpoint", action="append", default=[], metavar="URL",
                       help="a replica of the model server (repeatable), each with --concurrency")
    sweep.add_argument("--endpoints", type=Path, metavar="FILE", help="replicas, one base URL a line")
    sweep.add_argument("--second-opinion", action="store_true", help="a second opinion on every assessed sample")
    sweep.add_argument("--evidence-policy", choices=["standard", "strict"],
                       help="strict (implies --second-opinion; enters the configuration hash)")
    sweep.add_argument("--nli-model-dir", type=Path, help="local ONNX NLI model folder for the second opinion")
    add_cluster_options(sweep)
    add_provider_options(sweep, ["ollama", "openai", "llamacpp"])
    sweep.set_defaults(handler=run)

    show = commands.add_parser("sweep-report", help="print a sweep's grid and what changed (no model call)")
    show.add_argument("sweep", type=Path, help="a sweep directory (finished or not) or its result.json")
    show.set_defaults(handler=run_show)


def run_show(args: argparse.Namespace) -> int:
    """The grid as verify finds it: a sweep that does not verify says so first (exit 1), an unfinished one its
    count (exit 5); one with failed samples leads with them (exit 4, as ``sweep`` exits)."""
    from answerlens.sweeps.reader import read_recorded
    from answerlens.sweeps.view import failure_lines, labels_of
    from answerlens.verification.sweep import check

    recorded = read_recorded(args.sweep)
    checked = check(recorded)
    status = []
    if checked.problems:
        status = [f"NOT VERIFIED: {len(checked.problems)} problem(s), the first: {checked.problems[0]} (`answerlens "
                  f"verify {args.sweep}` names every one)"]
    elif not checked.samples.complete:
        status = [f"{checked.samples.text}: the grid counts the samples saved so far"]
    print("\n".join([*status, *failure_lines(checked.result), *grid_lines(checked.result,
                                                                          labels_of(recorded.bundle))]))
    if checked.problems:
        return EXIT_PROBLEMS
    if not checked.samples.complete:
        return EXIT_UNFINISHED
    return EXIT_FAILED_SAMPLES if checked.samples.failed else EXIT_OK


def run(args: argparse.Namespace) -> int:
    import asyncio

    from answerlens.cli.common import question_and_answer, read_source
    from answerlens.cli.trial import _endpoints, _print_progress, _second_opinion
    from answerlens.engine.sweep import run_sweep
    from answerlens.errors import ClusterError
    from answerlens.loading import load_bundle
    from answerlens.sweeps.settings import grid
    from answerlens.trials import limits

    endpoints = _endpoints(args)
    limits.check_counts(repeats=args.repeats, concurrency=args.concurrency, endpoints=max(len(endpoints), 1),
                        early_stop=args.early_stop)
    try:
        settings = grid(args.formats, args.budgets, args.top_k, args.record_tokens)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    data, sample = read_source(args.bundle)
    bundle = load_bundle(data, name=args.bundle)
    question, answer = question_and_answer(args, sample)
    cluster = cluster_from(args, endpoints)
    if endpoints and not args.base_url:
        args.base_url = endpoints[0]
    config = config_from(args)
    print(f"{args.bundle}: {len(settings)} cells x {args.repeats} repeats at {concurrency_text(args.concurrency)} -> "
          f"{args.out}", file=sys.stderr)
    try:
        outcome = asyncio.run(on_cluster(cluster, lambda on: run_sweep(
            question, bundle, config, out=args.out, formats=args.formats, budgets=args.budgets, top_k=args.top_k,
            record_tokens=args.record_tokens, answer=answer, repeats=args.repeats, concurrency=args.concurrency,
            progress=_print_progress, endpoints=endpoints, preflight=not args.no_preflight,
            early_stop=args.early_stop, second_opinion=_second_opinion(args),
            bundle_name=Path(args.bundle).name,  # run.json is shared: no folders
            announce=announce, cluster=on)))
    except ClusterError as exc:
        return cluster_exit(exc)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return fail(130, f"interrupted; finished samples are saved in {args.out} — rerun the same command to resume")
    print(file=sys.stderr)
    return _finished(args, outcome, bundle)


def _finished(args: argparse.Namespace, outcome: SweepOutcome, bundle: Any) -> int:
    code = run_ended(args.out, outcome, finished=outcome.result is not None)
    if code is not None:
        return code
    assert outcome.result is not None  # finished
    from answerlens.loading import load_bundle
    from answerlens.sweeps.view import failure_lines, labels_of
    from answerlens.trials.report import node_lines

    result = outcome.result
    print("\n".join([*failure_lines(result), *grid_lines(result, labels_of(load_bundle(bundle)))]))
    for line in node_lines(result.samples):
        print(line, file=sys.stderr)
    return EXIT_FAILED_SAMPLES if any(sample.error is not None for sample in result.samples) else EXIT_OK


def grid_lines(result: SweepResult, labels: dict[str, str] | None = None) -> list[str]:
    """The grid as text: a row per format, a column per budget (one grid per depth × chunk size, headed by
    them, when the sweep has those axes); then every change and why."""
    from answerlens.sweeps.settings import SweepFormat
    from answerlens.sweeps.view import cell_text, change_text, columns, filter_text, filters, no_change_text

    budgets = columns(result)
    formats = list(dict.fromkeys(cell.format for cell in result.cells))
    lines = []
    for fixed in filters(result):
        table = [["format", *budgets]]
        for fmt in formats:
            table.append([SweepFormat(fmt).label, *(cell_text(result, fmt, budget, **fixed) for budget in budgets)])
        widths = [max(len(row[index]) for row in table) for index in range(len(table[0]))]
        lines += [f"{filter_text(fixed)}:"] if fixed else []
        lines += ["  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)).rstrip()
                  for row in table]
    lines += [f"  {index}. {note}" for index, note in enumerate(_notes(result), start=1)]
    lines += ["changes:" if result.changes else f"changes: {no_change_text(result)}"]
    lines += [f"  {change_text(result, change, labels)}" for change in result.changes]
    return lines


def _notes(result: SweepResult) -> list[str]:
    reasons = list(dict.fromkeys(cell.reason for cell in result.cells if cell.reason))
    return [f"not assessed: {reason}" for reason in reasons]
