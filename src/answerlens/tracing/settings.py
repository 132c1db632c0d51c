"""Whether assessments are traced, and where to, read from the standard OpenTelemetry environment variables.

Pure reading of the environment: nothing here imports OpenTelemetry, so a process that does not trace pays for a
few dictionary look-ups and no import.
"""

from __future__ import annotations

import os
import re
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

    @property
    def hides_content(self) -> bool:
        """Whether any message content is hidden: then an error message, which may quote a server's body and so
        the request or reply, is hidden too."""
        return not all((self.inputs, self.outputs, self.input_messages, self.output_messages, self.input_text,
                        self.output_text))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Capture:
        env = os.environ if environ is None else environ
        return cls(*(not _flag(env, name) for name in HIDE_VARIABLES))


# The header syntax the OTLP exporters accept (their liberal form: NAME=VALUE, the value not URL-encoded): an entry
# that is not NAME=VALUE is logged by the SDK with the entry itself, a token included, so it is refused here first.
_HEADER = re.compile(r"[ \t]*[\x21\x23-\x27\x2a\x2b\x2d\x2e\x30-\x39\x41-\x5a\x5e-\x7a\x7c\x7e]+[ \t]*=[ \t]*"
                     r"[\x20\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*[ \t]*")
HEADER_VARIABLES = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS")
BATCH_SETTINGS = {"OTEL_BSP_SCHEDULE_DELAY": 5000, "OTEL_BSP_MAX_QUEUE_SIZE": 2048,
                  "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": 512, "OTEL_BSP_EXPORT_TIMEOUT": 30000}
"""The batch span processor's settings and the SDK's defaults: a value it cannot use fails the provider (0, or a
batch larger than the queue) or is logged with a traceback (not a number)."""
COMPRESSIONS = ("gzip", "deflate", "none")


def setting_problem(environ: Mapping[str, str]) -> str | None:
    """The first OpenTelemetry setting that would fail the exporter or make the SDK log it (a header value with
    it): said by its name, never repeating a header's value."""
    for name in HEADER_VARIABLES:
        entries = [entry for entry in re.split(r"[ \t]*,[ \t]*", environ.get(name, "")) if entry.strip()]
        for number, entry in enumerate(entries, start=1):
            if not _HEADER.fullmatch(entry):
                return (f"{name}: entry {number} of {len(entries)} is not NAME=VALUE (write "
                        "authorization=Bearer%20TOKEN: '=' after the name, the value URL-encoded)")
    numbers = {}
    for name, default in BATCH_SETTINGS.items():
        text = environ.get(name, "").strip()
        if not text:
            numbers[name] = default
            continue
        if not text.isdigit() or (int(text) == 0 and name != "OTEL_BSP_EXPORT_TIMEOUT"):
            return f"{name}={text[:40]!r} is not a positive whole number"
        numbers[name] = int(text)
    if numbers["OTEL_BSP_MAX_EXPORT_BATCH_SIZE"] > numbers["OTEL_BSP_MAX_QUEUE_SIZE"]:
        return "OTEL_BSP_MAX_EXPORT_BATCH_SIZE is larger than OTEL_BSP_MAX_QUEUE_SIZE"
    for name in ("OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"):
        text = environ.get(name, "").strip()
        if text and not _non_negative(text):
            return f"{name}={text[:40]!r} is not a number of seconds"
    for name in ("OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"):
        text = environ.get(name, "").strip().lower()
        if text and text not in COMPRESSIONS:
            return f"{name}={text[:40]!r} is not one of {', '.join(COMPRESSIONS)}"
    return None


def _non_negative(text: str) -> bool:
    try:
        return 0 <= float(text) < float("inf")
    except ValueError:
        return False


@dataclass(frozen=True)
class TracingStatus:
    """On or off, where spans go (never a credential), and why, in one line for the CLI and the app."""

    on: bool
    reason: str
    destination: str | None = None
    protocol: str | None = None
    own_provider: bool = False
    """True when answerlens exports with its own tracer provider; False when the application's is used."""
    warn: bool = False
    """Tracing was asked for (an endpoint is set) and is off for a setting answerlens cannot use: said once."""

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
    problem = setting_problem(env)
    if problem is not None:
        return TracingStatus(False, f"{problem}; tracing is off until it is fixed", where, protocol, warn=True)
    if not (_installed("opentelemetry-sdk") and _installed(EXPORTER_DISTRIBUTIONS[protocol])):
        extra = INSTALL if protocol == HTTP else f"{INSTALL} {EXPORTER_DISTRIBUTIONS[GRPC]}"
        return TracingStatus(False, f"an OTLP endpoint is set but the exporter is not installed: {extra}",
                             where, protocol)
    return TracingStatus(True, f"spans go to {where} (OTLP {protocol})", where, protocol, own_provider=True)
