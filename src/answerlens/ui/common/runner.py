"""Run the async engine from Streamlit's script thread, turning every failure into data the page shows.

A failure is never a verdict: ``Run`` holds either an assessment or a ``Failure`` with a remedy.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from answerlens.assessment import AnswerabilityAssessment
from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError, BundleError, RecordingMismatchError
from answerlens.evaluator import AnswerabilityEvaluator, with_second_opinion
from answerlens.providers.engine import ProgressCallback
from answerlens.providers.preflight import Preflight, preflight
from answerlens.providers.request_size import Request
from answerlens.recording import Recording
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.second_opinion.models import SecondOpinion
from answerlens.second_opinion.opinion import second_opinion_for

log = logging.getLogger(__name__)

READER_FIX = (
    "Re-pack the bundle with reader citations on: PackingConfig(context_format='reader', "
    "context_citations=True), or set PRME_PACKING__CONTEXT_CITATIONS=true; or pack it in the auditable format."
)


@dataclass(frozen=True)
class Failure:
    """What went wrong, in words, and what to do about it."""

    title: str
    message: str
    remedy: str | None = None
    kind: str = "error"
    raw_excerpt: str | None = None
    differences: tuple[str, ...] = ()
    """For a refused replay: the inputs that are not the recording's (question, draft, context, prompt)."""
    restore: tuple[str, str | None] | None = None
    """For a refused replay: the question and draft the recording answered, when it carries them."""


@dataclass(frozen=True)
class Run:
    assessment: AnswerabilityAssessment | None
    failure: Failure | None
    seconds: float
    opinion: SecondOpinion | None = None
    """The second opinion on the assessment, when it was asked for."""


def assess(
    config: AnswerabilityConfig,
    bundle: MemoryBundle,
    question: str,
    answer: str | None = None,
    *,
    recording: Recording | None = None,
    force_replay: bool = False,
    second_opinion: bool = False,
) -> Run:
    """Assess once; every expected failure (and, as a last resort, any bug) comes back as a ``Failure``."""
    return asyncio.run(assess_async(config, bundle, question, answer, recording=recording,
                                    force_replay=force_replay, second_opinion=second_opinion))


async def assess_async(
    config: AnswerabilityConfig,
    bundle: MemoryBundle,
    question: str,
    answer: str | None = None,
    *,
    recording: Recording | None = None,
    progress: ProgressCallback | None = None,
    force_replay: bool = False,
    second_opinion: bool = False,
) -> Run:
    """``assess`` inside a running event loop (a background job's), with the model call's progress reported;
    cancelling the task cancels the call (``CancelledError`` is not turned into a ``Failure``). With
    ``second_opinion`` (implied by the strict evidence policy) the run carries the second opinion too."""
    started = time.perf_counter()
    try:
        async with AnswerabilityEvaluator(config, recording=recording, force_replay=force_replay) as evaluator:
            if second_opinion or config.evidence_policy is not None:
                from answerlens.claims.verifier import ClaimVerifier

                verifier = ClaimVerifier()
                assessment, opinion = await with_second_opinion(
                    evaluator.assess(question, bundle, answer=answer, progress=progress), bundle, question,
                    config=config, verifier=verifier)
            else:
                assessment, opinion = await evaluator.assess(question, bundle, answer=answer, progress=progress), None
    except RecordingMismatchError as exc:
        failure = _mismatch_failure(exc, recording)
    except AnswerabilityError as exc:
        failure = _provider_failure(exc, config)
    except BundleError as exc:
        failure = Failure("The bundle could not be loaded", str(exc), "fix the file named above", "bundle")
    except ValueError as exc:
        failure = _value_failure(exc, bundle)
    except Exception as exc:  # noqa: BLE001 - the page must show a message, never a traceback
        log.exception("unexpected failure while assessing")
        failure = Failure("Unexpected error (a bug in answerlens)", f"{type(exc).__name__}: {exc}",
                          "the full traceback is in the server log; please report it with the bundle", "bug")
    else:
        return Run(assessment, None, time.perf_counter() - started, opinion)
    return Run(None, failure, time.perf_counter() - started)


async def opinion_of(assessment: AnswerabilityAssessment, bundle: MemoryBundle, question: str,
                     config: AnswerabilityConfig | None) -> SecondOpinion:
    """The second opinion with the pinned NLI verifier (a missing model is a note, never a failure)."""
    from answerlens.claims.verifier import ClaimVerifier

    return await second_opinion_for(assessment, bundle, question, verifier=ClaimVerifier(),
                                    policy=config.evidence_policy if config is not None else None)


def _mismatch_failure(exc: RecordingMismatchError, recording: Recording | None) -> Failure:
    """A recording bound to other inputs: nothing was called; say what differs and what is possible."""
    what = ", ".join(exc.differences)
    restore = recording.restorable if recording is not None else None
    remedy = ("press “Restore the recorded question” to replay it for what it answered, or choose a live model "
              "to assess these inputs" if restore is not None else
              "put back the inputs the recording answered, upload a recording of these inputs, or choose a live model")
    return Failure(f"The recorded reply answers another {what} — no verdict is shown",
                   f"This recording was made for another {what} than the one on screen; replaying it would show "
                   "its verdict as if it were this one's. Nothing was called.", remedy, exc.kind,
                   differences=exc.differences, restore=restore)


def _provider_failure(exc: AnswerabilityError, config: AnswerabilityConfig) -> Failure:
    remedy = exc.remedy
    replay = config.provider == "replay"
    if exc.kind == "no_recording":
        remedy = "this bundle has no recorded reply: upload one, or choose Ollama or an OpenAI-compatible server"
    title = ("The recorded reply could not be used — no model was called, no verdict was produced" if replay
             else "The model call failed — no verdict was produced")
    if exc.kind in ("schema", "not_json", "empty", "empty_content"):
        title = ("The recorded reply does not fit the answerability schema — no verdict was produced" if replay
                 else "The reply did not fit the answerability schema — no verdict was produced")
    return Failure(title, exc.detail, remedy, exc.kind, exc.raw_excerpt)


def _value_failure(exc: ValueError, bundle: MemoryBundle) -> Failure:
    if bundle.context_format == ContextFormat.READER and not bundle.context_references:
        return Failure("This bundle cannot be assessed: reader format without citations", str(exc),
                       READER_FIX, "uncitable")
    return Failure("The input is not valid", str(exc), "fill in the question (and the draft answer, if given)",
                   "input")


def check_endpoint(config: AnswerabilityConfig, context_chars: int | None,
                   request: Request | None = None) -> Preflight:
    """The preflight for the endpoint panel (never raises for an unreachable server); given the request, a
    llama.cpp server counts it with the model's own tokenizer."""
    try:
        return asyncio.run(preflight(config, context_chars=context_chars, timeout=2.0, request=request))
    except Exception as exc:  # noqa: BLE001 - a broken preflight must not take the page down
        log.exception("preflight failed")
        return Preflight(reachable=False, problem=f"the preflight failed: {type(exc).__name__}: {exc}")
