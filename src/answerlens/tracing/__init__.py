"""OpenTelemetry traces of assessments, by OpenInference's conventions (an ``EVALUATOR`` span per assessment, an
``LLM`` span per model call, a ``CHAIN`` span per trial run), switched on by the standard environment variables.

Without the ``otel`` extra, or with no endpoint set and no tracer provider of the application's, every function
here hands back a do-nothing span and OpenTelemetry is never imported. See docs/tracing.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from answerlens.tracing import attributes
from answerlens.tracing.settings import Capture, TracingStatus, application_provider, environment_key, status

if TYPE_CHECKING:
    from answerlens.assessment import AnswerabilityAssessment, ProviderMetadata
    from answerlens.config import AnswerabilityConfig
    from answerlens.second_opinion.models import SecondOpinion
    from answerlens.tracing.otel import LiveSpan, Tracer
    from answerlens.trials.log import TrialSample
    from answerlens.trials.result import TrialResult

APP_URL_VARIABLE = "ANSWERLENS_APP_URL"
_app_url: str | None = None
_tracers: dict[tuple[str, ...], Tracer | None] = {}


def set_app_url(url: str | None) -> None:
    """The app's address, for the ``answerlens.run_url`` links (``ANSWERLENS_APP_URL`` wins when set)."""
    global _app_url
    _app_url = url


def app_url() -> str | None:
    return os.environ.get(APP_URL_VARIABLE) or _app_url


def _tracer() -> Tracer | None:
    """The tracer for the current environment (decided once per distinct environment), or None: off."""
    key = environment_key()
    if key in _tracers:
        tracer = _tracers[key]
        if tracer is not None or not application_provider():
            return tracer
    decided = status()
    tracer = None
    if decided.on:
        from answerlens.tracing.otel import Tracer, own_provider

        tracer = Tracer(own_provider(decided) if decided.own_provider else None)
    _tracers[key] = tracer
    return tracer


def flush(timeout_millis: int = 10_000) -> bool:
    """Send every finished span now (tests, short scripts); True when nothing is left or tracing is off."""
    tracer = _tracer()
    return tracer.flush(timeout_millis) if tracer is not None else True


def reset() -> None:
    """Shut down the providers answerlens made (each waits at most for its exporter's timeout) and decide
    again on the next span: after the environment changed, or before a process ends on purpose."""
    tracers = list(_tracers.values())
    _tracers.clear()
    for tracer in tracers:
        if tracer is not None:
            tracer.shutdown()


def _redactor(config: AnswerabilityConfig | None) -> Any:
    if config is None:
        return lambda text: text
    from answerlens.providers.http import failures_for

    return failures_for(config).redact


class AssessmentSpan:
    """What the pipeline tells an assessment's span; does nothing when tracing is off."""

    def __init__(self, live: LiveSpan | None = None) -> None:
        self._live = live

    def assessed(self, assessment: AnswerabilityAssessment) -> None:
        if self._live is not None:
            self._live.record(attributes.assessed(assessment, Capture.from_env(), app_url()))
            self._live.ok()

    def opinion(self, second: SecondOpinion | None) -> None:
        if self._live is not None and second is not None:
            self._live.record(attributes.opinion(second))

    def replied(self, text: str, metadata: ProviderMetadata) -> None:
        if self._live is not None:
            self._live.record(attributes.replied(text, metadata, Capture.from_env()))
            self._live.ok()

    def sampled(self, sample: TrialSample) -> None:
        """A trial sample's outcome; ends the span (it was started by ``sample``)."""
        if self._live is None:
            return
        self._live.record(attributes.sample(sample))
        if sample.assessment is not None:
            self.assessed(sample.assessment)
        self.opinion(sample.second_opinion)
        if sample.error is not None:  # already redacted, as every error message is
            self._live.error(sample.error.kind, sample.error.message, sample.error.kind)
        self._live.end()

    def finished(self, result: TrialResult | None, **counts: Any) -> None:
        if self._live is not None:
            self._live.record(attributes.trial(result, counts))

    @contextmanager
    def current(self, config: AnswerabilityConfig | None = None) -> Iterator[AssessmentSpan]:
        """Make this (started, not yet ended) span the parent of what runs inside."""
        if self._live is None:
            yield self
            return
        with self._live.current(_redactor(config), end=False):
            yield self


NO_SPAN = AssessmentSpan()


@contextmanager
def _span(name: str, attrs: attributes.Attributes, config: AnswerabilityConfig | None) -> Iterator[AssessmentSpan]:
    tracer = _tracer()
    if tracer is None:
        yield NO_SPAN
        return
    with tracer.start(name, attrs).current(_redactor(config), end=True) as live:
        yield AssessmentSpan(live)


def assessment(config: AnswerabilityConfig, query: str) -> Any:
    """``with tracing.assessment(config, query) as span:`` around one assessment (span ``answerlens.assess``,
    a child of the caller's current span when there is one)."""
    if _tracer() is None:
        return _nothing()
    return _span("answerlens.assess", attributes.starting(config, query, Capture.from_env()), config)


def model_call(config: AnswerabilityConfig, engine: str, system: str, user: str) -> Any:
    """``with tracing.model_call(...) as call:`` around the model call with its re-asks (an ``LLM`` span)."""
    if _tracer() is None:
        return _nothing()
    return _span("answerlens.llm", attributes.model_call(config, engine, system, user, Capture.from_env()), config)


def run(name: str, **fields: Any) -> Any:
    """``with tracing.run("answerlens.trial", ...) as span:`` around a run of many samples (a ``CHAIN`` span;
    a packing sweep uses it too); ``span.finished(result, ...)`` adds the gates."""
    if _tracer() is None:
        return _nothing()
    attrs: attributes.Attributes = {attributes.KIND: attributes.CHAIN}
    attrs |= {f"answerlens.{key}": value for key, value in fields.items() if value is not None}
    return _span(name, attrs, None)


def sample(case_id: str, repeat: int) -> AssessmentSpan:
    """A started ``answerlens.sample`` span (``EVALUATOR``) of the current run: ``with span.current():`` around
    the model call, ``span.sampled(sample)`` once the sample is derived, which ends it."""
    tracer = _tracer()
    if tracer is None:
        return NO_SPAN
    return AssessmentSpan(tracer.start("answerlens.sample", {attributes.KIND: attributes.EVALUATOR,
                                                             "answerlens.case_id": case_id,
                                                             "answerlens.repeat": repeat}))


@contextmanager
def _nothing() -> Iterator[AssessmentSpan]:
    yield NO_SPAN


__all__ = ["NO_SPAN", "AssessmentSpan", "Capture", "TracingStatus", "app_url", "assessment", "flush", "model_call",
           "reset", "run", "sample", "set_app_url", "status"]
