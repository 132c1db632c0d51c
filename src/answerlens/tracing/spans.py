"""Spans that record: what ``answerlens.tracing`` hands out when tracing is on (imported only then)."""

from __future__ import annotations

from contextvars import ContextVar, Token
from types import TracebackType
from typing import TYPE_CHECKING, Any

from answerlens.tracing import attributes
from answerlens.tracing.base import AssessmentSpan, app_url
from answerlens.tracing.otel import LiveSpan, Tracer

if TYPE_CHECKING:
    from answerlens.assessment import AnswerabilityAssessment, ProviderMetadata
    from answerlens.config import AnswerabilityConfig
    from answerlens.second_opinion.models import SecondOpinion
    from answerlens.tracing.attributes import Gates, Sample


class RecordingSpan(AssessmentSpan):
    """A started span. Used as a context manager it is current inside and ended on the way out (a failure is
    recorded on it, redacted with ``config``'s key); a trial sample's is ended by ``sampled`` instead."""

    def __init__(self, tracer: Tracer, live: LiveSpan, config: AnswerabilityConfig | None = None) -> None:
        self._tracer = tracer
        self._live = live
        self._config = config
        self._current = live.current(config, end=True)

    def __enter__(self) -> RecordingSpan:
        self._current.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._current.__exit__(kind, exc, tb)

    def current(self, config: AnswerabilityConfig | None = None) -> Any:
        return self._live.current(config, end=False)

    def assessed(self, assessment: AnswerabilityAssessment) -> None:
        self._live.record(attributes.assessed(assessment, self._tracer.capture, app_url()))
        self._live.ok()

    def replied(self, text: str, metadata: ProviderMetadata) -> None:
        self._live.record(attributes.replied(text, metadata, self._tracer.capture))
        self._live.ok()

    def opinion(self, second: SecondOpinion | None) -> None:
        if second is not None:
            self._live.record(attributes.opinion(second))

    def sampled(self, sample: Sample) -> None:
        self._live.record(attributes.sample(sample))
        if sample.assessment is not None:
            self.assessed(sample.assessment)
        self.opinion(sample.second_opinion)
        if sample.error is not None:  # already redacted, as every error message is
            self._live.error(sample.error.kind, sample.error.message, sample.error.kind)
        self._live.end()

    def finished(self, gates: Gates | None, **counts: Any) -> None:
        self._live.record(attributes.trial(gates, counts))


class VerdictSpan(RecordingSpan):
    """An ``answerlens.assess`` span: while it is open, an assessment started inside it (``evaluator.assess``
    under ``evaluator.with_second_opinion``) records onto it instead of opening another."""

    def __enter__(self) -> VerdictSpan:
        super().__enter__()
        self._open: Token[VerdictSpan | None] = _OPEN.set(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        _OPEN.reset(self._open)
        super().__exit__(kind, exc, tb)


class Joined(AssessmentSpan):
    """The open ``answerlens.assess`` span of the code around, as seen by an assessment inside it: what it is
    told goes to that span, which its opener ends (and on which a failure is recorded, once, on the way out)."""

    def __init__(self, outer: VerdictSpan) -> None:
        self._outer = outer

    def assessed(self, assessment: AnswerabilityAssessment) -> None:
        self._outer.assessed(assessment)

    def opinion(self, second: SecondOpinion | None) -> None:
        self._outer.opinion(second)


_OPEN: ContextVar[VerdictSpan | None] = ContextVar("answerlens_assess_span", default=None)


def assessment(tracer: Tracer, config: AnswerabilityConfig, query: str) -> AssessmentSpan:
    outer = _OPEN.get()
    if outer is not None:
        return Joined(outer)
    return VerdictSpan(tracer, tracer.start("answerlens.assess",
                                            attributes.starting(config, query, tracer.capture)), config)


def model_call(tracer: Tracer, config: AnswerabilityConfig, engine: str, system: str, user: str) -> RecordingSpan:
    return RecordingSpan(tracer, tracer.start(
        "answerlens.llm", attributes.model_call(config, engine, system, user, tracer.capture)), config)


def run(tracer: Tracer, name: str, fields: dict[str, Any]) -> RecordingSpan:
    attrs: attributes.Attributes = {attributes.KIND: attributes.CHAIN}
    attrs |= {f"answerlens.{key}": value for key, value in fields.items() if value is not None}
    return RecordingSpan(tracer, tracer.start(name, attrs))


def sample(tracer: Tracer, case_id: str, repeat: int) -> RecordingSpan:
    return RecordingSpan(tracer, tracer.start("answerlens.sample", {
        attributes.KIND: attributes.EVALUATOR, "answerlens.case_id": case_id, "answerlens.repeat": repeat}))


__all__ = ["RecordingSpan"]
