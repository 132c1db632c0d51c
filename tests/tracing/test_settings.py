"""Tracing is decided by the standard OpenTelemetry variables, and costs no import when it is off."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from answerlens.tracing.settings import Capture, display_url, status
from tests.paths import REPO, SAMPLES

ENDPOINT = "http://127.0.0.1:6006"


@pytest.mark.parametrize(("environ", "on", "says"), [
    pytest.param({}, False, "set OTEL_EXPORTER_OTLP_ENDPOINT", id="nothing_set"),
    pytest.param({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, True, f"{ENDPOINT}/v1/traces (OTLP http/protobuf)",
                 id="base_endpoint_gets_the_traces_path"),
    pytest.param({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://h:4318/custom"}, True, "http://h:4318/custom",
                 id="traces_endpoint_as_written"),
    pytest.param({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT, "OTEL_SDK_DISABLED": "TRUE"}, False,
                 "OTEL_SDK_DISABLED is true", id="sdk_disabled"),
    pytest.param({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, False,
                 "'http/json' is not supported", id="unsupported_protocol"),
    pytest.param({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://user:s3cret@collector:4318"}, True,
                 "http://collector:4318/v1/traces", id="userinfo_and_query_never_shown"),
])
def test_status_follows_the_standard_variables(environ: dict[str, str], on: bool, says: str) -> None:
    decided = status(environ)
    assert decided.on is on
    assert says in decided.line
    assert "s3cret" not in decided.line and "token" not in decided.line


@pytest.mark.parametrize(("url", "shown"), [
    pytest.param("https://u:p@[::1]:4318/v1/traces?k=v#f", "https://[::1]:4318/v1/traces", id="ipv6_userinfo"),
    pytest.param("http://:bad", "(an unreadable URL)", id="unreadable_port"),
])
def test_display_url_drops_credentials(url: str, shown: str) -> None:
    assert display_url(url) == shown


def test_capture_reads_openinference_switches() -> None:
    capture = Capture.from_env({"OPENINFERENCE_HIDE_INPUTS": "true", "OPENINFERENCE_HIDE_OUTPUT_TEXT": "True"})
    assert (capture.inputs, capture.outputs, capture.output_text, capture.input_text) == (False, True, False, True)
    assert Capture.from_env({}) == Capture()


# A replayed assessment in a fresh interpreter: which opentelemetry modules did it import?
PROBE = f"""
import asyncio, json, sys
{{prelude}}
from answerlens import AnswerabilityConfig, AnswerabilityEvaluator
from answerlens.cli import main
from answerlens.tracing import status
code = main(["assess", {str(SAMPLES / "answerable_billing_database.json")!r}, "--provider", "replay", "--json"])
print(json.dumps({{"code": code, "status": status().line,
                  "otel": sorted(m for m in sys.modules if m.startswith(("opentelemetry", "openinference")))}}))
"""
WITHOUT_EXTRA = """
from importlib import metadata
real = metadata.distribution
def distribution(name):
    if name.startswith("opentelemetry"):
        raise metadata.PackageNotFoundError(name)
    return real(name)
metadata.distribution = distribution
"""


@pytest.mark.parametrize(("environ", "prelude", "says"), [
    pytest.param({}, "", "set OTEL_EXPORTER_OTLP_ENDPOINT", id="no_endpoint"),
    pytest.param({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT, "OTEL_SDK_DISABLED": "true"}, "", "OTEL_SDK_DISABLED",
                 id="sdk_disabled"),
    pytest.param({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, WITHOUT_EXTRA, "pip install 'answerlens[otel]'",
                 id="extra_not_installed"),
])
def test_tracing_off_imports_no_opentelemetry(environ: dict[str, str], prelude: str, says: str) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
    env |= environ | {"PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, "-c", PROBE.replace("{prelude}", prelude)], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    probe = json.loads(done.stdout.splitlines()[-1])
    assert probe["code"] == 0
    assert says in probe["status"]
    assert probe["otel"] == []
