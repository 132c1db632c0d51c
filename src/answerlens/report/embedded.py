"""The data a report carries: a typed envelope written into one inert ``<script type="application/json">`` block,
and read back from a report file. The report is rendered from exactly this data, so it can be rendered again."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from answerlens.errors import ReportError, json_path
from answerlens.records import ContextFormat

REPORT_FORMAT: Literal["answerlens-report"] = "answerlens-report"
FORMAT_VERSION = 2
"""Raised whenever the page a given envelope renders to changes, so an old report is never compared with a new
rendering of its data."""
DATA_ID = "answerlens-report-data"
OPEN = f'<script type="application/json" id="{DATA_ID}">'
CLOSE = "</script>"


class AssessmentData(BaseModel):
    """One assessment with everything its page shows: the question, the draft, the exact context."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["assessment"] = "assessment"
    source: str | None = None
    """Where it was read from (file names), for display only."""
    question: str
    """The question assessed: its sha256 is the assessment's ``query_sha256``."""
    answer: str | None = None
    """The draft answer assessed (sha256 ``answer_sha256``); None also when a draft was assessed but its text
    was not available to the report, which then says so."""
    context_format: ContextFormat | None = None
    """How the context was rendered (None: unknown, so citation spans are checked against the text only)."""
    context: str
    """The exact context (``render().strip()``): its sha256 is ``context_sha256``."""
    document: dict[str, Any]
    """The assessment JSON as answerlens writes it; a printed second opinion rides along under
    ``second_opinion`` (``answerlens assess --second-opinion --json``)."""


class TrialData(BaseModel):
    """One trial result (ours, a run folder's, or upstream's) as the typed trial log dumps it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["trial"] = "trial"
    source: str | None = None
    result: dict[str, Any]
    """``TrialResult.model_dump(mode="json")``: no API key, every sample with its assessment."""


class SweepData(BaseModel):
    """One packing sweep as recorded: manifest, bundle, every sample, ``result.json`` (``sweeps.reader``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["sweep"] = "sweep"
    source: str | None = None
    sweep: dict[str, Any]
    """``Recorded.embedded()``: no API key, every sample with its assessment."""


class Envelope(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["answerlens-report"] = REPORT_FORMAT
    format_version: int = FORMAT_VERSION
    generator: str
    """``answerlens X.Y.Z``: the version that rendered the page."""
    report: Annotated[AssessmentData | TrialData | SweepData, Field(discriminator="kind")]


def encode(raw: dict[str, Any]) -> str:
    """Compact ASCII JSON in which ``<``, ``>`` and ``&`` are ``\\u`` escapes: nothing in it can end the script
    element or start markup, whatever the data holds. Re-encoding what ``decode`` gives returns the same text."""
    text = json.dumps(raw, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def data_block(raw: dict[str, Any]) -> str:
    return f"{OPEN}{encode(raw)}{CLOSE}"


def extract(html: str) -> dict[str, Any]:
    """The embedded data of a report file, as JSON; ``ReportError`` when there is not exactly one block of it."""
    start = html.find(OPEN)
    if start < 0:
        raise ReportError(f"not an answerlens report: no <script id=\"{DATA_ID}\"> data block")
    if html.find(OPEN, start + len(OPEN)) >= 0:
        raise ReportError("more than one embedded data block: a report carries exactly one")
    end = html.find(CLOSE, start + len(OPEN))
    if end < 0:
        raise ReportError("the embedded data block is not closed")
    try:
        raw = json.loads(html[start + len(OPEN) : end])
    except ValueError as exc:
        raise ReportError(f"the embedded data is not JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise ReportError("the embedded data is not a JSON object")
    return raw


def envelope_of(raw: dict[str, Any]) -> Envelope:
    """The typed envelope; a malformed one is a ``ReportError`` naming the field."""
    try:
        return Envelope.model_validate(raw)
    except ValidationError as exc:
        problems = [f"{json_path('data', error['loc'])}: {error['msg']}"
                    for error in exc.errors(include_url=False, include_input=False)[:5]]
        raise ReportError("the embedded data is not a report's: " + "; ".join(problems)) from None


def generator() -> str:
    from answerlens.version import __version__

    return f"answerlens {__version__}"
