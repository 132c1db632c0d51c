"""The command line's second-opinion seam: ``assess --second-opinion / --evidence-policy / --nli-model-dir`` and
``verify`` of a printed assessment that carries a second opinion (kept out of ``cli`` so it stays small)."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from answerlens.assessment import AnswerabilityAssessment


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--second-opinion", action="store_true",
                        help="add typed evidence, deterministic flags and the NLI verifier per requirement")
    parser.add_argument("--evidence-policy", choices=["standard", "strict"],
                        help="strict (implies --second-opinion): demote flagged support and re-derive the verdict")
    parser.add_argument("--nli-model-dir", type=Path, help="local ONNX NLI model folder for the verifier "
                        "(default: $ANSWERLENS_NLI_MODEL, else the Hugging Face cache)")


def wanted(args: argparse.Namespace) -> bool:
    return bool(args.second_opinion or args.evidence_policy == "strict")


def print_with_second_opinion(args: argparse.Namespace, assessment: AnswerabilityAssessment, bundle: Any,
                              question: str, *, as_json: bool) -> None:
    """The assessment with its second opinion; under the strict policy the printed verdict is the strict one.

    The verifier runs the pinned NLI model from ``--nli-model-dir`` (or its defaults); when it is not installed
    the opinion says so and the flags still show.
    """
    from answerlens.claims import ClaimVerificationConfig, ClaimVerifier
    from answerlens.claims.onnx_scorer import OnnxNliScorer
    from answerlens.second_opinion.document import output_document
    from answerlens.second_opinion.opinion import second_opinion_for
    from answerlens.second_opinion.report import report_lines

    settings = ClaimVerificationConfig()
    scorer = OnnxNliScorer(args.nli_model_dir, model=settings.model, revision=settings.revision,
                           batch_size=settings.batch_size)
    verifier = ClaimVerifier(settings, scorer=scorer)
    opinion = asyncio.run(second_opinion_for(assessment, bundle, question, verifier=verifier,
                                             policy=args.evidence_policy))
    if as_json:
        print(json.dumps(output_document(assessment, opinion), indent=2, ensure_ascii=False))
    else:
        print("\n".join(report_lines(assessment, opinion)))


def verification_problems(assessment: Any, bundle: Any) -> tuple[str, ...]:
    """An assessment's problems; a printed assessment with a ``second_opinion`` is verified with it."""
    from answerlens.second_opinion.document import KEY, verify_document
    from answerlens.verification import verify_assessment

    if isinstance(assessment, dict) and KEY in assessment:
        return verify_document(assessment, bundle=bundle)
    return verify_assessment(assessment, bundle=bundle).problems
