"""``AnswerabilityEvaluator``: load the bundle, ask the model once (with bounded re-asks), derive in code."""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

import httpx

from answerlens import tracing
from answerlens.assessment import (
    AnswerabilityAssessment,
    AssessmentInputs,
    PromptIdentity,
    ProviderMetadata,
    derive,
    prepare_inputs,
)
from answerlens.config import AnswerabilityConfig
from answerlens.loading import load_bundle
from answerlens.prompts import NO_EVIDENCE_RAW, RawAssessment, prompt_for, reply_bound
from answerlens.providers.ask import RawReply, make_engine, request_raw_assessment
from answerlens.providers.engine import Engine, ProgressCallback
from answerlens.providers.failures import failures_for
from answerlens.providers.http import client_timeout, make_client
from answerlens.providers.replay import ReplayEngine
from answerlens.recording import Recording, RecordingBinding, RecordingRef, ReplyOrigin

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from answerlens.claims.verifier import ClaimVerifier
    from answerlens.second_opinion.models import SecondOpinion


class AnswerabilityEvaluator:
    """Reusable client for cited, set-level answerability checks; one ``httpx.AsyncClient`` per instance.

    ``recording`` feeds the ``replay`` provider; a recording bound to other inputs than the ones assessed is
    refused with ``RecordingMismatchError`` unless ``force_replay`` (the result then says it was forced).
    ``transport`` is handed to httpx (benchmarks use it). ``base_url`` sends the requests to a replica of the
    configured server instead: the assessment's ``configuration_sha256`` stays the configuration's, and
    ``provider_metadata.base_url`` records where the request went. ``connections`` keeps that many connections
    open (a trial's concurrency).
    """

    def __init__(
        self,
        config: AnswerabilityConfig | None = None,
        *,
        recording: Recording | None = None,
        force_replay: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
        base_url: str | None = None,
        connections: int | None = None,
    ) -> None:
        self.config = config if config is not None else AnswerabilityConfig()
        self._wire = self.config
        """What requests are sent with: the configuration, or the same with the replica's URL."""
        if base_url:  # validated as base_url is (model_copy would not check it): credentials in it are refused
            self._wire = AnswerabilityConfig.model_validate(self.config.model_dump() | {"base_url": base_url})
        self._recording = recording
        self._force_replay = force_replay
        self._transport = transport
        self._connections = connections
        self._client: httpx.AsyncClient | None = None
        self._engine: Engine | None = None

    def __repr__(self) -> str:
        return f"AnswerabilityEvaluator({self.config!r})"

    def _ensure_engine(self) -> Engine:
        if self._client is None:
            self._client = make_client(self._wire, client_timeout(self._wire), self._transport,
                                       connections=self._connections)
        if self._engine is None:
            # The engine lives as long as the client: it remembers what the server rejected (think,
            # json_schema) so later calls do not pay for the same refusal again.
            self._engine = make_engine(self._wire, self._client, failures_for(self._wire), self._recording)
        return self._engine

    async def assess(self, query: str, bundle: Any, *, answer: str | None = None,
                     progress: ProgressCallback | None = None) -> AnswerabilityAssessment:
        """Assess whether one exact packed bundle supports a query (and a draft answer, when given).

        An empty context, or one with no citable tokens, returns ``insufficient`` without a model call.
        Provider, timeout, transport and schema failures raise ``AnswerabilityError``; a reader bundle
        packed without citations raises ``ValueError``; a bad bundle raises ``BundleError``. ``progress`` is
        called with each stage of the model call the engine can see (llama.cpp: prompt read, tokens generated).
        """
        with tracing.assessment(self.config, query) as span:
            assessment = (await self.ask(query, bundle, answer=answer, progress=progress)).derive()
            span.assessed(assessment)
        return assessment

    async def ask(self, query: str, bundle: Any, *, answer: str | None = None,
                  progress: ProgressCallback | None = None) -> Answer:
        """``assess`` in two steps: the model call (with its re-asks) now, the derivation when ``derive()`` is
        called — a trial sends its next request before it derives this one. Raises as ``assess`` does."""
        inputs = prepare_inputs(query, load_bundle(bundle), answer)
        identity = PromptIdentity.of(self.config)
        if not inputs.citable:
            return Answer(inputs, NO_EVIDENCE_RAW, None, self.config, identity, None)
        engine = self._ensure_engine()
        recording = self._replayed(engine, inputs, identity)
        prompt = prompt_for(self.config.prompt)
        user = prompt.user_message(inputs.query, inputs.context, inputs.answer)
        with tracing.model_call(self.config, engine.name, prompt.system, user) as call:
            reply = await request_raw_assessment(
                engine,
                failures_for(self._wire),
                prompt.system,
                user,
                max_retries=self.config.max_retries,
                timeout=self.config.timeout,
                bound=reply_bound(inputs.query, inputs.answer),
                progress=progress,
            )
            metadata = _metadata(engine, reply, recording)
            call.replied(reply.text, metadata)
        return Answer(inputs, reply.raw, reply.text, self.config, identity, metadata)

    def _replayed(self, engine: Engine, inputs: AssessmentInputs, identity: PromptIdentity) -> RecordingRef | None:
        """The recording's ref for these inputs (None for a live engine); other inputs raise, unless forced."""
        if not isinstance(engine, ReplayEngine):
            return None
        actual = RecordingBinding.of(inputs.query, inputs.context, inputs.answer, prompt_version=identity.version,
                                     prompt_sha256=identity.sha256)
        return engine.recording.replayed_for(actual, force=self._force_replay)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
        self._client = None
        self._engine = None

    async def __aenter__(self) -> AnswerabilityEvaluator:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


@dataclass(frozen=True)
class Answer:
    """A validated reply not yet derived into an assessment (``AnswerabilityEvaluator.ask``)."""

    inputs: AssessmentInputs
    raw: RawAssessment
    text: str | None
    """The reply's exact text; None when no model was called (no citable evidence)."""
    config: AnswerabilityConfig
    prompt: PromptIdentity
    provider_metadata: ProviderMetadata | None

    def derive(self) -> AnswerabilityAssessment:
        """Citations, statuses, verdict and hashes, in code."""
        return derive(self.inputs, self.raw, self.text, config=self.config, prompt=self.prompt,
                      provider_metadata=self.provider_metadata)


def _metadata(engine: Engine, reply: RawReply, recording: RecordingRef | None) -> ProviderMetadata:
    return ProviderMetadata(
        engine=engine.name,
        base_url=engine.base_url,
        origin=ReplyOrigin.RECORDED if recording is not None else ReplyOrigin.LIVE,
        recording=recording,
        latency_ms=round(reply.latency_ms, 3),
        attempts=reply.attempts,
        prompt_tokens=reply.last.prompt_tokens,
        completion_tokens=reply.last.completion_tokens,
        finish_reason=reply.last.finish_reason,
        response_format=reply.last.response_format,
    )


async def assess_answerability(
    query: str,
    bundle: Any,
    *,
    answer: str | None = None,
    config: AnswerabilityConfig | None = None,
) -> AnswerabilityAssessment:
    """One-shot convenience wrapper around :class:`AnswerabilityEvaluator`."""
    async with AnswerabilityEvaluator(config) as evaluator:
        return await evaluator.assess(query, bundle, answer=answer)


async def with_second_opinion(
    assessing: Awaitable[AnswerabilityAssessment],
    bundle: Any,
    question: str,
    *,
    config: AnswerabilityConfig,
    verifier: ClaimVerifier | None = None,
) -> tuple[AnswerabilityAssessment, SecondOpinion]:
    """Await ``assessing`` (an ``AnswerabilityEvaluator.assess`` call, or a step that ends with one), then give
    the assessment its second opinion under ``config.evidence_policy`` (``second_opinion_for``), in one
    ``answerlens.assess`` span: it carries the verdict of the assessment returned and the opinion's flag codes
    and strict outcome, as a trial sample's span does. Raises as those two do."""
    from answerlens.second_opinion.opinion import second_opinion_for  # its own imports are not free

    with tracing.assessment(config, question) as span:
        assessment = await assessing  # its own span joins this one
        opinion = await second_opinion_for(assessment, bundle, question, verifier=verifier,
                                           policy=config.evidence_policy)
        span.assessed(assessment)
        span.opinion(opinion)
    return assessment, opinion
