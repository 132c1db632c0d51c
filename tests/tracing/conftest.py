from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def memory_spans(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """Every span answerlens finishes, kept in memory: tracing on through a provider of the test's own (as an
    application's would be, without setting the process-wide one), everything captured, no NLI model (the
    second opinion then notes the verifier as unavailable and its flags still show)."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from answerlens import tracing
    from answerlens.tracing.otel import Tracer
    from answerlens.tracing.settings import Capture

    monkeypatch.setenv("ANSWERLENS_NLI_MODEL", str(tmp_path_factory.mktemp("no-nli-model")))
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracing.reset()
    tracing._decided["tracer"] = Tracer(provider, Capture())  # what `tracing` decides once per process
    yield memory
    tracing.reset()
