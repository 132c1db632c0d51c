"""``answerlens assess``: one question over one bundle, live or replayed, with an optional second opinion."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.common import (
    EXIT_OK,
    UsageError,
    add_provider_options,
    config_from,
    question_and_answer,
    read_source,
    read_text,
)
from answerlens.cli.traces import add_phoenix_options

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from answerlens.assessment import AnswerabilityAssessment
    from answerlens.config import AnswerabilityConfig
    from answerlens.recording import Recording
    from answerlens.samples import Sample


def add_commands(commands: Any) -> None:
    assess = commands.add_parser("assess", help="assess a question against a bundle")
    assess.add_argument("bundle", help="bundle or sample JSON file")
    assess.add_argument("-q", "--question", help="the question (default: the sample's question)")
    assess.add_argument("--answer", help="a draft answer to check claim by claim")
    add_provider_options(assess, ["ollama", "openai", "llamacpp", "replay"])
    assess.add_argument("--replay-file", type=Path, metavar="RAW.json", help="recorded reply to replay: the raw "
                        "reply (unbound), a recording answerlens wrote, or an assessment JSON")
    assess.add_argument("--force-replay", action="store_true", help="replay a recording for inputs other than the "
                        "ones it answered; the result is marked forced")
    assess.add_argument("--prompt-version", help="prompt identity to record (replay of another tool's run)")
    assess.add_argument("--prompt-sha256", help="prompt hash to record (with --prompt-version)")
    assess.add_argument("--json", action="store_true", help="print the assessment JSON")
    assess.add_argument("--second-opinion", action="store_true",
                        help="add typed evidence, deterministic flags and the NLI verifier per requirement")
    assess.add_argument("--evidence-policy", choices=["standard", "strict"],
                        help="strict (implies --second-opinion): demote flagged support and re-derive the verdict")
    assess.add_argument("--nli-model-dir", type=Path, help="local ONNX NLI model folder for the verifier "
                        "(default: $ANSWERLENS_NLI_MODEL, else the Hugging Face cache)")
    assess.add_argument("--annotate", action="store_true", help="write the verdict onto the span an imported "
                        "sample came from (answerlens import-trace), in the Phoenix given by --phoenix")
    add_phoenix_options(assess, required=False)
    assess.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from answerlens.evaluator import AnswerabilityEvaluator
    from answerlens.loading import load_bundle

    data, sample = read_source(args.bundle)
    bundle = load_bundle(data, name=args.bundle)
    question, answer = question_and_answer(args, sample)
    recording = _recording(args, sample) if args.provider == "replay" else None
    config = config_from(args, sample)
    origin = sample.trace_import if sample is not None else None
    _check_annotate(args, origin is not None)

    async def assess() -> AnswerabilityAssessment:
        async with AnswerabilityEvaluator(config, recording=recording, force_replay=args.force_replay) as evaluator:
            assessment = await evaluator.assess(question, bundle, answer=answer)
        if args.prompt_version or args.prompt_sha256:
            assessment = _with_prompt_identity(args, assessment, question, bundle, answer)
        # An imported sample's assessment names the span its evidence came from (outside every hash).
        return assessment.model_copy(update={"trace_import": origin}) if origin is not None else assessment

    if args.second_opinion or args.evidence_policy == "strict":
        assessment = _print_with_second_opinion(args, assess, bundle, question, config)
    else:
        assessment = asyncio.run(assess())
        _print(assessment, as_json=args.json)
    if args.annotate:  # only reached with an assessment: a failed one raised, and nothing is written
        from answerlens.cli.traces import annotate

        print(f"answerlens: {annotate(assessment, args.phoenix, args.project)}", file=sys.stderr)
    return EXIT_OK


def _check_annotate(args: argparse.Namespace, imported: bool) -> None:
    if args.annotate and not args.phoenix:
        raise UsageError("--annotate needs --phoenix URL (the Phoenix the span is in)")
    if (args.phoenix or args.project) and not args.annotate:
        raise UsageError("--phoenix and --project apply with --annotate")
    if args.annotate and not imported:
        raise UsageError(f"--annotate needs a sample imported from a trace (answerlens import-trace): {args.bundle} "
                         "names no span to annotate")


def _with_prompt_identity(args: argparse.Namespace, assessment: AnswerabilityAssessment, question: str,
                          bundle: Any, answer: str | None) -> AnswerabilityAssessment:
    from answerlens.assessment import derive_assessment

    if not (args.prompt_version and args.prompt_sha256):
        raise UsageError("--prompt-version and --prompt-sha256 go together")
    if assessment.raw_output_text is None:
        raise UsageError("--prompt-version applies only when a reply was assessed")
    return derive_assessment(question, bundle, assessment.raw_output_text, config=config_from(args),
                             answer=answer, prompt_version=args.prompt_version, prompt_sha256=args.prompt_sha256,
                             provider_metadata=assessment.provider_metadata)


def _recording(args: argparse.Namespace, sample: Sample | None) -> Recording:
    from answerlens.audit import sha256_text
    from answerlens.recording import recording_from_text

    if args.replay_file is not None:
        text = read_text(args.replay_file)
        # The file's name, never its folder: the source enters the assessment, which is shared.
        return recording_from_text(text, source=args.replay_file.name, source_sha256=sha256_text(text))
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


def _print(assessment: AnswerabilityAssessment, *, as_json: bool) -> None:
    from answerlens.explanation import report_lines

    print(assessment.model_dump_json(indent=2) if as_json else "\n".join(report_lines(assessment)))


def _print_with_second_opinion(args: argparse.Namespace, assess: Callable[[], Awaitable[AnswerabilityAssessment]],
                               bundle: Any, question: str, config: AnswerabilityConfig) -> AnswerabilityAssessment:
    """The assessment with its second opinion (both in one traced span); under the strict policy the printed
    verdict is the strict one.

    The verifier runs the pinned NLI model from ``--nli-model-dir`` (or its defaults); when it is not installed
    the opinion says so and the flags still show.
    """
    import asyncio

    from answerlens.claims.verifier import ClaimVerifier
    from answerlens.evaluator import with_second_opinion
    from answerlens.explanation import report_lines
    from answerlens.second_opinion.document import output_document

    verifier = ClaimVerifier(model_dir=args.nli_model_dir)
    assessment, opinion = asyncio.run(with_second_opinion(assess(), bundle, question, config=config,
                                                          verifier=verifier))
    if args.json:
        print(json.dumps(output_document(assessment, opinion), indent=2, ensure_ascii=False))
    else:
        print("\n".join(report_lines(assessment, opinion)))
    return assessment
