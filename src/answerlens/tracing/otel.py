"""The OpenTelemetry side of tracing: a tracer provider exporting OTLP in the background (or the application's
own provider), and span handles that record errors with the same redaction as every other message.

Imported only when tracing is on (``answerlens.tracing`` decides); needs the ``otel`` extra.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

from opentelemetry import context as context_api
from opentelemetry import trace as trace_api
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Status, StatusCode

from answerlens.config import AnswerabilityConfig
from answerlens.providers.failures import failures_for
from answerlens.tracing.settings import EXPORTER_MODULES, Capture, TracingStatus

logger = logging.getLogger("answerlens.tracing")
OK = Status(StatusCode.OK)
SCOPE = "answerlens"
SILENCED = "opentelemetry.exporter"
"""The exporters' loggers: they complain on every retry of every batch, naming the endpoint as written (userinfo
included); ``OneWarning`` says it once, without userinfo, instead."""


class OneWarning(SpanExporter):
    """An exporter that reports its first failure as one warning and drops that batch and later failed ones
    quietly: a trace backend that is down must never fail, slow or flood an assessment."""

    def __init__(self, inner: SpanExporter, where: str) -> None:
        self._inner = inner
        self._where = where
        self._warned = threading.Event()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self._inner.export(spans)
        except Exception as exc:  # an exporter bug is still not the assessment's failure
            result, detail = SpanExportResult.FAILURE, type(exc).__name__
        else:
            detail = "no answer, or a refusal"
        if result is not SpanExportResult.SUCCESS and not self._warned.is_set():
            self._warned.set()
            logger.warning("answerlens: traces could not be sent to %s (%s); they are dropped, and later failures "
                           "are not reported", self._where, detail)
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)


def own_provider(status: TracingStatus) -> TracerProvider:
    """A provider exporting in batches, in a background thread, to the OTLP endpoint the environment names
    (the exporter reads its endpoint, headers, timeout and compression from ``OTEL_EXPORTER_OTLP_*`` itself)."""
    import importlib

    assert status.protocol is not None and status.destination is not None
    exporter = importlib.import_module(EXPORTER_MODULES[status.protocol]).OTLPSpanExporter()
    logging.getLogger(SILENCED).setLevel(logging.CRITICAL)
    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: "answerlens"}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OneWarning(exporter, status.destination)))
    return provider


class Tracer:
    """Starts our spans on one provider, with what content they may carry."""

    def __init__(self, provider: trace_api.TracerProvider | None, capture: Capture) -> None:
        self.provider = provider
        self.capture = capture
        self._tracer = (provider.get_tracer(SCOPE) if provider is not None else trace_api.get_tracer(SCOPE))

    def shutdown(self) -> None:
        """Stop our own provider's export thread (the application's provider is the application's)."""
        shutdown = getattr(self.provider, "shutdown", None)
        if shutdown is not None:
            shutdown()

    def flush(self, timeout_millis: int) -> bool:
        flush: Callable[[int], bool] | None = getattr(self.provider or trace_api.get_tracer_provider(),
                                                      "force_flush", None)
        return flush(timeout_millis) if flush is not None else True

    def start(self, name: str, attributes: dict[str, Any]) -> LiveSpan:
        return LiveSpan(self._tracer.start_span(name, attributes=attributes), self.capture)


HIDDEN = "message hidden: OPENINFERENCE_HIDE_* is set, and it may quote the request or the reply"


class LiveSpan:
    """One started span: current while its work runs, recording what fails, ended once."""

    def __init__(self, span: trace_api.Span, capture: Capture | None = None) -> None:
        self.span = span
        self.capture = capture if capture is not None else Capture()

    def record(self, attributes: dict[str, Any]) -> None:
        self.span.set_attributes(attributes)

    def fail(self, exc: BaseException, config: AnswerabilityConfig | None) -> None:
        """Status ERROR and an ``exception`` event carrying the message redacted as every message is (the
        configuration's key), and no traceback, whose chained causes could quote a URL or a key."""
        message = str(exc)
        if config is not None:
            message = failures_for(config).redact(message)
        kind = getattr(exc, "kind", None)
        self.error(f"{type(exc).__module__}.{type(exc).__qualname__}", message or type(exc).__name__,
                   kind if isinstance(kind, str) else None)

    def error(self, type_name: str, message: str, kind: str | None = None) -> None:
        """Status ERROR and an ``exception`` event; under content hiding the message (a server's body may echo the
        question or the context) gives way to the kind of failure."""
        if self.capture.hides_content:
            message = f"{kind or type_name}: {HIDDEN}"
        self.span.set_status(Status(StatusCode.ERROR, message))
        self.span.add_event("exception", {"exception.type": type_name, "exception.message": message,
                                          "exception.escaped": True})
        if kind is not None:
            self.span.set_attribute("answerlens.error_kind", kind)

    def ok(self) -> None:
        self.span.set_status(OK)

    def current(self, config: AnswerabilityConfig | None, *, end: bool) -> Current:
        """Make the span the current one (children attach to it); a failure inside is recorded and re-raised."""
        return Current(self, config, end)

    def end(self) -> None:
        if self.span.is_recording():
            self.span.end()


class Current:
    """``with live.current(...)``: the span is current inside; a failure is recorded (and ends the span, whose
    owner does not reach its own end); ``end`` ends it on the way out in any case. A plain object, not a
    generator: this runs twice per assessment."""

    def __init__(self, live: LiveSpan, config: AnswerabilityConfig | None, end: bool) -> None:
        self.live = live
        self.config = config
        self.ends = end
        self.token: object = None

    def __enter__(self) -> LiveSpan:
        self.token = context_api.attach(trace_api.set_span_in_context(self.live.span))
        return self.live

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        context_api.detach(self.token)  # type: ignore[arg-type]
        if exc is not None:
            self.live.fail(exc, self.config)
        if self.ends or exc is not None:
            self.live.end()
