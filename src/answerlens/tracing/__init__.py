"""OpenTelemetry traces of assessments, by OpenInference's conventions (an ``EVALUATOR`` span per assessment, an
``LLM`` span per model call, a ``CHAIN`` span per trial run), switched on by the standard environment variables.

Without the ``otel`` extra, or with no endpoint set and no tracer provider of the application's, every function
here hands back ``NO_SPAN``, which does nothing, and neither OpenTelemetry nor the rest of this package is
imported. See docs/tracing.md.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from answerlens.tracing.base import APP_URL_VARIABLE, NO_SPAN, AssessmentSpan, app_url, set_app_url

if TYPE_CHECKING:
    from answerlens.config import AnswerabilityConfig
    from answerlens.tracing.otel import Tracer
    from answerlens.tracing.settings import TracingStatus

_decided: dict[str, Tracer | None] = {}


def status() -> TracingStatus:
    """On or off, and where to, as the environment says now (``tracing.settings.status``)."""
    from answerlens.tracing.settings import status as decide

    return decide()


def _plainly_off() -> bool:
    """Off without a look at anything else: no endpoint and no OpenTelemetry in the process, or disabled."""
    env = os.environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return True
    if "opentelemetry.trace" in sys.modules:  # the application may have a provider of its own
        return False
    return not (env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def _tracer() -> Tracer | None:
    """The tracer (decided once, from the environment as it was then, as the OpenTelemetry SDK reads its own
    variables once; ``reset`` decides again), or None: off."""
    if "tracer" in _decided:
        tracer = _decided["tracer"]
        if tracer is not None or "opentelemetry.trace" not in sys.modules:
            return tracer
        from answerlens.tracing.settings import application_provider

        if not application_provider():  # the application may have set its provider since
            return None
    tracer = None
    if not _plainly_off():
        decided = status()
        if decided.warn:
            _off(decided.reason)
        elif decided.on:
            tracer = _started(decided)
    _decided["tracer"] = tracer
    return tracer


def _started(decided: TracingStatus) -> Tracer | None:
    """The tracer of a decided status; None, with one warning, when the SDK refuses a setting we did not foresee
    (an assessment is never failed by its tracing)."""
    from answerlens.tracing.otel import Tracer, own_provider
    from answerlens.tracing.settings import Capture

    try:
        return Tracer(own_provider(decided) if decided.own_provider else None, Capture.from_env())
    except Exception as exc:  # noqa: BLE001 - whatever the SDK raises for a setting, tracing stops, not the caller
        _off(f"the OpenTelemetry SDK refused a setting ({type(exc).__name__}: {str(exc)[:200]})")
        return None


def _off(reason: str) -> None:
    import logging

    logging.getLogger("answerlens.tracing").warning("answerlens: tracing is off: %s", reason)


def flush(timeout_millis: int = 10_000) -> bool:
    """Send every finished span now (tests, short scripts); True when nothing is left or tracing is off."""
    tracer = _tracer()
    return tracer.flush(timeout_millis) if tracer is not None else True


def reset() -> None:
    """Shut down the provider answerlens made (waiting at most for its exporter's timeout) and decide again on
    the next span: after the environment changed, or before a process ends on purpose."""
    tracer = _decided.pop("tracer", None)
    if tracer is not None:
        tracer.shutdown()


def assessment(config: AnswerabilityConfig, query: str) -> AssessmentSpan:
    """``with tracing.assessment(config, query) as span:`` around one assessment (span ``answerlens.assess``,
    kind ``EVALUATOR``, a child of the caller's current span when there is one). Inside an ``answerlens.assess``
    span already open (``evaluator.with_second_opinion``'s), the handle records onto that one instead."""
    tracer = _tracer()
    if tracer is None:
        return NO_SPAN
    from answerlens.tracing import spans

    return spans.assessment(tracer, config, query)


def model_call(config: AnswerabilityConfig, engine: str, system: str, user: str) -> AssessmentSpan:
    """``with tracing.model_call(...) as call:`` around the model call with its re-asks (an ``LLM`` span)."""
    tracer = _tracer()
    if tracer is None:
        return NO_SPAN
    from answerlens.tracing import spans

    return spans.model_call(tracer, config, engine, system, user)


def run(name: str, **fields: Any) -> AssessmentSpan:
    """``with tracing.run("answerlens.trial", ...) as span:`` around a run of many samples (a ``CHAIN`` span;
    a packing sweep uses it too); ``span.finished(result, ...)`` adds the gates."""
    tracer = _tracer()
    if tracer is None:
        return NO_SPAN
    from answerlens.tracing import spans

    return spans.run(tracer, name, fields)


def sample(case_id: str, repeat: int) -> AssessmentSpan:
    """A started ``answerlens.sample`` span (``EVALUATOR``) of the current run: ``with span.current():`` around
    the model call, ``span.sampled(sample)`` once the sample is derived, which ends it."""
    tracer = _tracer()
    if tracer is None:
        return NO_SPAN
    from answerlens.tracing import spans

    return spans.sample(tracer, case_id, repeat)


__all__ = ["APP_URL_VARIABLE", "NO_SPAN", "AssessmentSpan", "app_url", "assessment", "flush", "model_call", "reset",
           "run", "sample", "set_app_url", "status"]
