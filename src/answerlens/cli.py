"""The ``answerlens`` command line: assess, verify, render, trial, trial-report.

Exit codes: 0 ok, 1 verification problems, 2 bad input, 3 provider failure. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, get_args

from pydantic import SecretStr, ValidationError

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import sha256_text
from answerlens.config import DEFAULT_MODELS, AnswerabilityConfig, PromptName
from answerlens.errors import AnswerabilityError, AnswerlensError, describe_validation
from answerlens.evaluator import AnswerabilityEvaluator
from answerlens.explanation import report_lines
from answerlens.json_reader import read_json, read_text
from answerlens.loading import load_bundle
from answerlens.recording import Recording
from answerlens.records import ContextFormat
from answerlens.render import render_bundle
from answerlens.samples import Sample, is_sample
from answerlens.second_opinion import command as second_opinion
from answerlens.trials.dataset import load_dataset
from answerlens.trials.gates import load_gates
from answerlens.trials.reader import FoundAssessment, assessments_in, assessments_of, read_trial, trial_source
from answerlens.trials.report import report_lines as trial_report_lines
from answerlens.trials.runner import Progress, run_trial

EXIT_OK, EXIT_PROBLEMS, EXIT_BAD_INPUT, EXIT_PROVIDER = 0, 1, 2, 3


class UsageError(Exception):
    """Bad command-line input (exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"answerlens: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="answerlens", description="Grounded abstention: does the evidence establish the answer?")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    assess = commands.add_parser("assess", help="assess a question against a bundle")
    assess.add_argument("bundle", help="bundle or sample JSON file")
    assess.add_argument("-q", "--question", help="the question (default: the sample's question)")
    assess.add_argument("--answer", help="a draft answer to check claim by claim")
    _add_provider_options(assess, ["ollama", "openai", "llamacpp", "replay"])
    assess.add_argument("--replay-file", type=Path, metavar="RAW.json", help="recorded raw reply to replay")
    assess.add_argument("--prompt-version", help="prompt identity to record (replay of another tool's run)")
    assess.add_argument("--prompt-sha256", help="prompt hash to record (with --prompt-version)")
    assess.add_argument("--json", action="store_true", help="print the assessment JSON")
    second_opinion.add_options(assess)
    assess.set_defaults(handler=_assess)

    verify = commands.add_parser("verify", help="verify an assessment or a trial result file")
    verify.add_argument("file", type=Path)
    verify.add_argument("--bundle", help="the bundle the assessment was made over: re-derive every citation "
                        "decision and span from its exact context")
    verify.set_defaults(handler=_verify)

    trial = commands.add_parser("trial", help="run repeated trials over a labelled dataset (resumable)")
    trial.add_argument("dataset", type=Path, help="JSON or JSONL dataset of cases")
    trial.add_argument("--repeats", type=int, default=3)
    trial.add_argument("--concurrency", type=int, default=4)
    trial.add_argument("--out", type=Path, required=True, help="run directory (rerun the same command to resume)")
    trial.add_argument("--gates", type=Path, help="JSON mapping gate name to threshold (replaces the defaults)")
    trial.add_argument("--fail-fast", action="store_true", help="stop at the first provider failure")
    _add_provider_options(trial, ["ollama", "openai", "llamacpp"])
    trial.set_defaults(handler=_trial)

    trial_report = commands.add_parser("trial-report", help="print a trial result's summary and gates")
    trial_report.add_argument("result", type=Path, help="result.json, a run directory, or an upstream result file")
    trial_report.add_argument("--json", action="store_true", help="print the summary as JSON")
    trial_report.set_defaults(handler=_trial_report)

    _add_model_commands(commands)

    render = commands.add_parser("render", help="render a bundle's records in a context format")
    render.add_argument("bundle")
    render.add_argument("--format", choices=[f.value for f in ContextFormat], required=True)
    render.add_argument("--citations", action="store_true", help="reader only: print [mN] references")
    render.set_defaults(handler=_render)
    return parser


def _add_model_commands(commands: Any) -> None:
    serve = commands.add_parser("serve-model", help="serve a GGUF model with the embedded llama.cpp server")
    serve.add_argument("--gguf", type=Path, help="model file (default: the bundled SmolLM2-135M, a wiring check)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, help="default: a free port")
    serve.add_argument("--ctx", type=int, default=4096, help="context window in tokens")
    serve.add_argument("--threads", type=int, help="CPU threads (default: all cores)")
    serve.set_defaults(handler=_serve_model)

    claim = commands.add_parser("verify-claim", help="check one claim against a bundle's passages with the NLI model")
    claim.add_argument("bundle", help="bundle or sample JSON file")
    claim.add_argument("claim", help="one declarative claim")
    claim.add_argument("--ref", action="append", dest="refs", metavar="REF", help="only this passage (repeatable)")
    claim.add_argument("--complete-set", action="store_true",
                       help="the claim is an exhaustive count or list: reported incomplete, no model call")
    claim.add_argument("--model-dir", type=Path, help="local ONNX model folder (default: $ANSWERLENS_NLI_MODEL, "
                       "else the Hugging Face cache)")
    claim.add_argument("--json", action="store_true", help="print the result JSON")
    claim.set_defaults(handler=_verify_claim)


def _add_provider_options(parser: argparse.ArgumentParser, providers: list[str]) -> None:
    parser.add_argument("--provider", choices=providers, default="ollama")
    defaults = ", ".join(f"{name}: {DEFAULT_MODELS[name]}" for name in providers)
    sample_note = "; replay uses a sample's recorded model when it has one" if "replay" in providers else ""
    parser.add_argument("--model", help=f"model name (default per provider: {defaults}{sample_note})")
    parser.add_argument("--base-url", help="server base URL, e.g. http://127.0.0.1:11434/v1")
    parser.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    parser.add_argument("--timeout", type=float, help="seconds for the whole call (default 30)")
    parser.add_argument("--temperature", type=float)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--max-retries", type=int)
    parser.add_argument("--prompt", choices=list(get_args(PromptName)),
                        help="answerlens' prompt (default) or PRME 0.15.0's verbatim, with its prompt identity")


def _port(text: str) -> int:
    port = int(text)
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"{text} is not a port (1-65535)")
    return port


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed as one line
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except AnswerabilityError as exc:
        return _fail(EXIT_PROVIDER, str(exc))
    except (AnswerlensError, UsageError, ValueError, OSError) as exc:
        return _fail(EXIT_BAD_INPUT, str(exc))
    except KeyboardInterrupt:
        return _fail(130, "interrupted")


def _fail(code: int, message: str) -> int:
    print(f"answerlens: {' '.join(message.split())}", file=sys.stderr)
    return code


def _read_source(path_text: str) -> tuple[Any, Sample | None]:
    data = read_json(Path(path_text))
    if is_sample(data):
        try:
            return data["bundle"], Sample.model_validate(data)
        except ValidationError as exc:
            raise UsageError(f"{path_text}: {describe_validation(exc)}") from None
    return data, None


def _assess(args: argparse.Namespace) -> int:
    data, sample = _read_source(args.bundle)
    bundle = load_bundle(data, name=args.bundle)
    question = args.question or (sample.question if sample else None)
    if not question:
        raise UsageError("a question is needed: pass -q QUESTION")
    answer = args.answer if args.answer is not None else (sample.answer if sample and not args.question else None)
    recording = _recording(args, sample) if args.provider == "replay" else None
    config = _config(args, sample)
    evaluator = AnswerabilityEvaluator(config, recording=recording)
    assessment = asyncio.run(_run(evaluator, question, bundle, answer))
    if args.prompt_version or args.prompt_sha256:
        from answerlens.assessment import derive_assessment

        if not (args.prompt_version and args.prompt_sha256):
            raise UsageError("--prompt-version and --prompt-sha256 go together")
        if assessment.raw_output_text is None:
            raise UsageError("--prompt-version applies only when a reply was assessed")
        assessment = derive_assessment(
            question, bundle, assessment.raw_output_text, config=config, answer=answer,
            prompt_version=args.prompt_version, prompt_sha256=args.prompt_sha256,
            provider_metadata=assessment.provider_metadata,
        )
    if second_opinion.wanted(args):
        second_opinion.print_with_second_opinion(args, assessment, bundle, question, as_json=args.json)
    else:
        _print_assessment(assessment, as_json=args.json)
    return EXIT_OK


def _recording(args: argparse.Namespace, sample: Sample | None) -> Recording:
    if args.replay_file is not None:
        text = _read_text(args.replay_file)
        return Recording.of(text, author=None, source=str(args.replay_file),
                            source_sha256=sha256_text(text))
    if sample is not None and sample.recorded_reply is not None:
        source = Path(args.bundle)
        recording = sample.recording(source=source.name, source_sha256=_file_sha256(source))
        assert recording is not None
        return recording
    raise UsageError("--provider replay needs --replay-file RAW.json (or a sample with a recorded reply)")


def _file_sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


async def _run(
    evaluator: AnswerabilityEvaluator, question: str, bundle: Any, answer: str | None
) -> AnswerabilityAssessment:
    async with evaluator:
        return await evaluator.assess(question, bundle, answer=answer)


def _config(args: argparse.Namespace, sample: Sample | None) -> AnswerabilityConfig:
    values: dict[str, Any] = {"provider": args.provider}
    model = args.model or (sample.recorded_model if args.provider == "replay" and sample else None)
    if model:
        values["model"] = model
    if args.base_url:
        values["base_url"] = args.base_url
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            raise UsageError(f"environment variable {args.api_key_env} is not set or empty")
        values["api_key"] = SecretStr(key)
    for name in ("timeout", "temperature", "seed", "max_retries", "prompt", "evidence_policy"):
        if getattr(args, name, None) is not None:
            values[name] = getattr(args, name)
    try:
        return AnswerabilityConfig(**values)
    except ValidationError as exc:
        raise UsageError(f"invalid configuration: {describe_validation(exc, '')}") from None


def _read_text(path: Path) -> str:
    return read_text(path, error=lambda message, label: UsageError(f"{label}: {message}"))


def _print_assessment(assessment: AnswerabilityAssessment, *, as_json: bool) -> None:
    if as_json:
        print(assessment.model_dump_json(indent=2))
    else:
        print("\n".join(report_lines(assessment)))


def _verify(args: argparse.Namespace) -> int:
    path: Path = args.file
    found = assessments_of(read_trial(path)) if path.is_dir() else assessments_in(read_json(path), str(path))
    if not found:
        raise UsageError(f"{path}: no assessment found (expected an assessment or a trial result file)")
    bundle = load_bundle(_read_source(args.bundle)[0], name=args.bundle) if args.bundle else None
    failures = 0
    for item in found:
        problems = second_opinion.verification_problems(item.data, bundle)
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


def _label(item: FoundAssessment) -> str:
    if item.position is None:
        return "assessment"
    return f"samples[{item.position}] {item.question_id} repeat {item.repeat}"


def _trial(args: argparse.Namespace) -> int:
    dataset = load_dataset(args.dataset)
    gates = load_gates(args.gates) if args.gates else None
    config = _config(args, None)
    total = len(dataset.cases) * args.repeats
    print(f"{args.dataset}: {len(dataset.cases)} cases x {args.repeats} repeats = {total} samples "
          f"at concurrency {args.concurrency} -> {args.out}", file=sys.stderr)
    try:
        outcome = asyncio.run(run_trial(dataset, config, repeats=args.repeats, out=args.out,
                                        concurrency=args.concurrency, gates=gates, fail_fast=args.fail_fast,
                                        progress=_print_progress))
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return _fail(130, f"interrupted; finished samples are saved in {args.out} — rerun the same command to resume")
    print(file=sys.stderr)
    if outcome.result_path is None:
        return _fail(EXIT_PROVIDER, f"stopped at the first provider failure (--fail-fast); {outcome.new_samples} "
                     f"new sample(s) saved in {args.out}; rerun to resume")
    print(f"{outcome.new_samples} new, {outcome.reused_samples} resumed, {outcome.errors} error sample(s); "
          f"result: {outcome.result_path}", file=sys.stderr)
    result = outcome.result
    assert result is not None, "a run that wrote result.json has its result"
    print("\n".join(trial_report_lines(result, outcome.result_path)))
    return EXIT_OK if result.quality_gates is None or result.quality_gates.passed else EXIT_PROBLEMS


def _print_progress(progress: Progress) -> None:
    eta = f"{progress.eta:.0f}s" if progress.eta is not None else "?"
    line = (f"{progress.done}/{progress.total}  errors {progress.errors}  {progress.rate:.2f}/s  ETA {eta}  "
            f"{progress.last}")
    if sys.stderr.isatty():
        print("\r" + line[:150].ljust(150), end="", file=sys.stderr, flush=True)
    else:
        print(line, file=sys.stderr, flush=True)


def _trial_report(args: argparse.Namespace) -> int:
    result = read_trial(args.result)
    if args.json:
        print(json.dumps(result.summary.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        print("\n".join(trial_report_lines(result, trial_source(args.result))))
    if result.summary_matches is False:
        return EXIT_PROBLEMS
    return EXIT_OK if result.quality_gates is None or result.quality_gates.passed else EXIT_PROBLEMS


def _serve_model(args: argparse.Namespace) -> int:
    from answerlens.local_model import start_server

    server = start_server(args.gguf, host=args.host, port=args.port, ctx=args.ctx, threads=args.threads)
    print(f"serving {server.model_name} ({server.model_path}) at {server.base_url} — started in "
          f"{server.started_in:.1f} s", flush=True)
    print(f"use: answerlens assess BUNDLE -q QUESTION --provider llamacpp --base-url {server.base_url}", flush=True)
    if args.gguf is None:
        print("note: the bundled 135M model only checks the wiring; its verdicts mean nothing", flush=True)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    server.stop()
    print("stopped", flush=True)
    return EXIT_OK


def _verify_claim(args: argparse.Namespace) -> int:
    from answerlens.claims import ClaimVerificationConfig, ClaimVerificationError, ClaimVerifier, bundle_evidence
    from answerlens.claims.onnx_scorer import OnnxNliScorer
    from answerlens.claims.report import report_lines

    data, _ = _read_source(args.bundle)
    bundle = load_bundle(data, name=args.bundle)
    config = ClaimVerificationConfig()
    scorer = OnnxNliScorer(args.model_dir, model=config.model, revision=config.revision, batch_size=config.batch_size)
    verifier = ClaimVerifier(config, scorer=scorer)
    try:
        result = asyncio.run(verifier.verify_bundle(args.claim, bundle, evidence_refs=args.refs,
                                                    requires_complete_set=args.complete_set))
    except ClaimVerificationError as exc:
        return _fail(EXIT_PROVIDER, str(exc))
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print("\n".join(report_lines(result, bundle_evidence(bundle))))
    return EXIT_OK


def _render(args: argparse.Namespace) -> int:
    data, _ = _read_source(args.bundle)
    bundle = load_bundle(data, name=args.bundle)
    rendered = render_bundle(bundle, args.format, context_citations=args.citations)
    print(rendered.rendered_context)
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
