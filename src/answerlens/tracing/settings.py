"""Whether assessments are traced, and where to, read from the standard OpenTelemetry environment variables.

Pure reading of the environment: nothing here imports OpenTelemetry, so a process that does not trace pays for a
few dictionary look-ups and no import.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

HTTP = "http/protobuf"
GRPC = "grpc"
EXPORTER_MODULES = {
    HTTP: "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    GRPC: "opentelemetry.exporter.otlp.proto.grpc.trace_exporter",
}
EXPORTER_DISTRIBUTIONS = {
    HTTP: "opentelemetry-exporter-otlp-proto-http",
    GRPC: "opentelemetry-exporter-otlp-proto-grpc",
}
INSTALL = "pip install 'answerlens[otel]'"

HIDE_VARIABLES = (
    "OPENINFERENCE_HIDE_INPUTS",
    "OPENINFERENCE_HIDE_OUTPUTS",
    "OPENINFERENCE_HIDE_INPUT_MESSAGES",
    "OPENINFERENCE_HIDE_OUTPUT_MESSAGES",
    "OPENINFERENCE_HIDE_INPUT_TEXT",
    "OPENINFERENCE_HIDE_OUTPUT_TEXT",
    "OPENINFERENCE_HIDE_LLM_INVOCATION_PARAMETERS",
)
"""OpenInference's content-capture switches that apply to our spans (all off by default, as OpenInference has
them: inputs and outputs are captured unless hidden)."""


def _flag(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").strip().lower() == "true"


def display_url(url: str) -> str:
    """The URL without its userinfo, query and fragment: safe to show and to log."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(an unreadable URL)"
    if ":" in host:
        host = f"[{host}]"
    return urlunsplit((parts.scheme, host + port, parts.path, "", ""))


@dataclass(frozen=True)
class Capture:
    """What message content the spans carry (OpenInference's ``TraceConfig`` semantics, read from its
    environment variables without needing ``openinference-instrumentation``)."""

    inputs: bool = True
    outputs: bool = True
    input_messages: bool = True
    output_messages: bool = True
    input_text: bool = True
    output_text: bool = True
    invocation_parameters: bool = True

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Capture:
        env = os.environ if environ is None else environ
        return cls(*(not _flag(env, name) for name in HIDE_VARIABLES))


@dataclass(frozen=True)
class TracingStatus:
    """On or off, where spans go (never a credential), and why, in one line for the CLI and the app."""

    on: bool
    reason: str
    destination: str | None = None
    protocol: str | None = None
    own_provider: bool = False
    """True when answerlens exports with its own tracer provider; False when the application's is used."""

    @property
    def line(self) -> str:
        if not self.on:
            return f"Tracing off: {self.reason}"
        return f"Tracing on: {self.reason}"


def _endpoint(environ: Mapping[str, str], protocol: str) -> str | None:
    traces = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if traces:
        return traces
    base = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if not base:
        return None
    return base if protocol == GRPC else base.rstrip("/") + "/v1/traces"


def application_provider() -> bool:
    """Whether the application set an OpenTelemetry tracer provider of its own (only looked at when it has
    imported OpenTelemetry already, so this never imports it)."""
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return False
    provider = trace.get_tracer_provider()
    return type(provider).__name__ not in {"ProxyTracerProvider", "NoOpTracerProvider"}


def _installed(distribution: str) -> bool:
    from importlib import metadata  # only when an endpoint is set: its import is not free

    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def status(environ: Mapping[str, str] | None = None) -> TracingStatus:
    """Tracing as the environment asks for it: off under ``OTEL_SDK_DISABLED=true``; on through the
    application's own tracer provider when it set one; else on when an OTLP endpoint is set and the ``otel``
    extra is installed."""
    env = os.environ if environ is None else environ
    if _flag(env, "OTEL_SDK_DISABLED"):
        return TracingStatus(False, "OTEL_SDK_DISABLED is true")
    if application_provider():
        return TracingStatus(True, "spans go to the application's OpenTelemetry tracer provider")
    protocol = (env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
                or HTTP).strip().lower()
    endpoint = _endpoint(env, protocol)
    if endpoint is None:
        return TracingStatus(False, "set OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://127.0.0.1:6006 for Phoenix)")
    where = display_url(endpoint)
    if protocol not in EXPORTER_MODULES:
        return TracingStatus(False, f"OTLP protocol {protocol!r} is not supported here; use {HTTP} or {GRPC}",
                             where, protocol)
    if not (_installed("opentelemetry-sdk") and _installed(EXPORTER_DISTRIBUTIONS[protocol])):
        extra = INSTALL if protocol == HTTP else f"{INSTALL} {EXPORTER_DISTRIBUTIONS[GRPC]}"
        return TracingStatus(False, f"an OTLP endpoint is set but the exporter is not installed: {extra}",
                             where, protocol)
    return TracingStatus(True, f"spans go to {where} (OTLP {protocol})", where, protocol, own_provider=True)
