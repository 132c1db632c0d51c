"""``answerlens trial``, ``trial-report`` and ``trial-merge``: repeated runs over a labelled dataset (one machine,
one shard, several endpoints), reading their results, and merging shards."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.cluster import add_cluster_options, cluster_exit, cluster_from, node_progress, on_cluster
from answerlens.cli.common import (
    CONCURRENCY_HELP,
    EXIT_FAILED_SAMPLES,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_PROVIDER,
    EXIT_UNFINISHED,
    UsageError,
    add_provider_options,
    announce,
    concurrency_text,
    config_from,
    fail,
    run_ended,
)

MIN_SAMPLES_DEFAULT = 10
"""``answerlens.trials.rates.MIN_SAMPLES`` for the help text (the parser imports nothing heavy; a test pins them)."""

if TYPE_CHECKING:
    from answerlens.engine.runner import Progress, SecondOpinionSetting, TrialOutcome
    from answerlens.trials.result import TrialResult


def add_commands(commands: Any) -> None:
    trial = commands.add_parser("trial", help="run repeated trials over a labelled dataset (resumable)")
    trial.add_argument("dataset", type=Path, help="JSON or JSONL dataset of cases")
    trial.add_argument("--repeats", type=int, default=3, help="repeats per case (1–1,000)")
    trial.add_argument("--concurrency", type=int, help=CONCURRENCY_HELP)
    trial.add_argument("--out", type=Path, required=True, help="run directory (rerun the same command to resume)")
    trial.add_argument("--gates", type=Path, help="JSON mapping gate name to threshold (replaces the defaults)")
    trial.add_argument("--fail-fast", action="store_true", help="stop at the first provider failure")
    trial.add_argument("--early-stop", type=int, default=5, metavar="N",
                       help="stop when the first N calls all fail with the same kind of error (default 5; 0: never)")
    trial.add_argument("--no-preflight", action="store_true",
                       help="start without first asking each endpoint whether it is up and has the model")
    trial.add_argument("--shard", metavar="K/N", help="run only shard K of N (1-based; merge with trial-merge)")
    trial.add_argument("--endpoint", action="append", default=[], metavar="URL",
                       help="a replica of the model server (repeatable): requests are spread over them, each with "
                       "--concurrency, and a transport failure is retried on another")
    trial.add_argument("--endpoints", type=Path, metavar="FILE", help="replicas, one base URL a line")
    trial.add_argument("--second-opinion", action="store_true",
                       help="a second opinion on every assessed sample, counted in the summary")
    trial.add_argument("--evidence-policy", choices=["standard", "strict"],
                       help="strict (implies --second-opinion; enters the configuration hash)")
    trial.add_argument("--nli-model-dir", type=Path, help="local ONNX NLI model folder for the second opinion's "
                       "verifier (without one the flags still count)")
    add_cluster_options(trial)
    add_provider_options(trial, ["ollama", "openai", "llamacpp"])
    trial.set_defaults(handler=run_trial)

    report = commands.add_parser("trial-report", help="print a trial result's summary and gates")
    report.add_argument("result", type=Path, help="result.json, a run directory, or an upstream result file")
    report.add_argument("--json", action="store_true", help="print the summary as JSON")
    report.add_argument("--min-samples", type=int, metavar="N",
                        help=f"rates over fewer than N samples are shown as too few (default {MIN_SAMPLES_DEFAULT})")
    report.set_defaults(handler=run_report)

    merge = commands.add_parser("trial-merge", help="merge the finished shards of one run into one result")
    merge.add_argument("shards", type=Path, nargs="+", metavar="DIR", help="the shards' run directories")
    merge.add_argument("--out", type=Path, required=True, help="a fresh directory for the merged run")
    merge.add_argument("--gates", type=Path, help="JSON mapping gate name to threshold (default: the default gates)")
    merge.add_argument("--dataset", type=Path, help="the run's dataset, to check every sample against (default: the "
                       "file the run recorded, when it is still there unchanged)")
    merge.set_defaults(handler=run_merge)


def run_trial(args: argparse.Namespace) -> int:
    import asyncio

    from answerlens.engine.runner import run_trial as run
    from answerlens.errors import AnswerabilityError, ClusterError
    from answerlens.trials import limits
    from answerlens.trials.dataset import load_dataset
    from answerlens.trials.gates import load_gates

    endpoints = _endpoints(args)
    limits.check_counts(repeats=args.repeats, concurrency=args.concurrency, endpoints=max(len(endpoints), 1),
                        early_stop=args.early_stop)
    shard = _shard(args.shard)
    cluster = cluster_from(args, endpoints)
    if endpoints and not args.base_url:
        args.base_url = endpoints[0]  # the configuration names one server; the others are its replicas
    config = config_from(args)
    gates = load_gates(args.gates) if args.gates else None
    dataset = load_dataset(args.dataset)
    limits.check_samples(len(dataset.cases), args.repeats)
    print(_plan_line(args, len(dataset.cases), shard, endpoints), file=sys.stderr)
    try:
        outcome = asyncio.run(on_cluster(cluster, lambda on: run(
            dataset, config, repeats=args.repeats, out=args.out, concurrency=args.concurrency, gates=gates,
            fail_fast=args.fail_fast, progress=_print_progress, shard=shard, endpoints=endpoints,
            preflight=not args.no_preflight, early_stop=args.early_stop, second_opinion=_second_opinion(args),
            announce=announce, cluster=on)))
    except ClusterError as exc:
        return cluster_exit(exc)
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return fail(130, f"interrupted; finished samples are saved in {args.out} — rerun the same command to resume")
    except AnswerabilityError as exc:
        if exc.kind != "preflight":
            raise
        return fail(EXIT_PROVIDER, f"{exc}, or skip this check with --no-preflight")
    print(file=sys.stderr)
    return _finished(args, outcome)


def _endpoints(args: argparse.Namespace) -> list[str]:
    from answerlens.trials.endpoints import read_endpoints

    return [*args.endpoint, *(read_endpoints(args.endpoints) if args.endpoints else [])]


def _shard(text: str | None) -> Any:
    from answerlens.trials.shard import Shard

    if text is None:
        return None
    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _second_opinion(args: argparse.Namespace) -> SecondOpinionSetting | None:
    if not (args.second_opinion or args.evidence_policy == "strict"):
        return None
    from answerlens.claims.verifier import ClaimVerifier
    from answerlens.engine.runner import SecondOpinionSetting

    return SecondOpinionSetting(verifier=ClaimVerifier(model_dir=args.nli_model_dir))


def _plan_line(args: argparse.Namespace, cases: int, shard: Any, endpoints: list[str]) -> str:
    where = f" over {len(endpoints)} endpoints" if len(endpoints) > 1 else ""
    where += f" on the Dask cluster {args.dask}" if args.dask else ""
    part = f", shard {shard.label} of them" if shard is not None else ""
    return (f"{args.dataset}: {cases} cases x {args.repeats} repeats = {cases * args.repeats} samples{part} "
            f"at {concurrency_text(args.concurrency)}{where} -> {args.out}")


def _finished(args: argparse.Namespace, outcome: TrialOutcome) -> int:
    from answerlens.trials.report import node_lines, report_lines, served_lines

    code = run_ended(args.out, outcome, finished=outcome.result_path is not None)
    if code is not None:
        return code
    result = outcome.result
    assert result is not None, "a run that wrote result.json has its result"
    for line in [*served_lines(result), *node_lines(result.samples)]:
        print(line, file=sys.stderr)
    print("\n".join(report_lines(result, outcome.result_path)))
    if result.shard is not None:
        print(f"shard {result.shard.label} finished; its gates are provisional — merge the shards with "
              "`answerlens trial-merge`", file=sys.stderr)
        return EXIT_FAILED_SAMPLES if result.summary.error_samples else EXIT_OK
    return _gates_exit(result)


def _gates_exit(result: TrialResult) -> int:
    """A finished run's code: failed samples (4) before failed gates (1): its figures leave those samples out."""
    if result.summary.error_samples:
        return EXIT_FAILED_SAMPLES
    return EXIT_OK if result.quality_gates is None or result.quality_gates.passed else EXIT_PROBLEMS


def _print_progress(progress: Progress) -> None:
    eta = f"{progress.eta:.0f}s" if progress.eta is not None else "?"
    line = (f"{progress.done}/{progress.total}  errors {progress.errors}  {progress.rate:.2f}/s  ETA {eta}"
            f"{node_progress(progress.nodes)}  {progress.last}")
    if sys.stderr.isatty():
        print("\r" + line[:150].ljust(150), end="", file=sys.stderr, flush=True)
    else:
        print(line, file=sys.stderr, flush=True)


def run_report(args: argparse.Namespace) -> int:
    """The summary and gates as verify finds them: a result that does not verify says so first (exit 1), an
    unfinished run its count (exit 5); then failed samples (4) before failed gates (1), as ``trial`` exits."""
    from answerlens.trials.rates import MIN_SAMPLES
    from answerlens.trials.reader import read_trial, trial_source
    from answerlens.trials.report import report_lines
    from answerlens.verification.path import verify_path

    min_samples = MIN_SAMPLES if args.min_samples is None else args.min_samples
    if min_samples < 1:
        raise UsageError("--min-samples must be at least 1")
    result = read_trial(args.result)
    check = verify_path(args.result)
    status = []
    if check.problems:
        status = [f"NOT VERIFIED: {len(check.problems)} problem(s), the first: {check.problems[0]} (`answerlens "
                  f"verify {args.result}` names every one)"]
    elif check.unfinished and check.samples is not None:
        status = [f"{check.samples.text}: the figures count the samples saved so far"]
    if args.json:
        for line in status:
            print(line, file=sys.stderr)
        print(json.dumps(result.summary.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print("\n".join([*status, *report_lines(result, trial_source(args.result), min_samples=min_samples)]))
    from answerlens.trials.report import node_lines, served_lines

    for line in [*served_lines(result), *node_lines(result.samples)]:
        print(line, file=sys.stderr)
    for caveat in check.notes.caveats:  # what verify cannot prove, as verify says it
        print(f"{args.result}: note: {caveat}", file=sys.stderr)
    if check.problems or result.summary_matches is False:
        return EXIT_PROBLEMS
    if check.unfinished:
        return EXIT_UNFINISHED
    return _gates_exit(result)


def run_merge(args: argparse.Namespace) -> int:
    from answerlens.engine.merge import merge_shards
    from answerlens.trials.dataset import load_dataset
    from answerlens.trials.gates import load_gates
    from answerlens.trials.report import report_lines

    gates = load_gates(args.gates) if args.gates else None
    dataset = load_dataset(args.dataset) if args.dataset else None
    result, path = merge_shards(args.shards, args.out, gates=gates, dataset=dataset)
    print(f"merged {len(args.shards)} shards: {len(result.samples)} samples; result: {path}", file=sys.stderr)
    print("\n".join(report_lines(result, path)))
    return _gates_exit(result)
