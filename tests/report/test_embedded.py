"""The embedded data block: inert whatever the data holds, read back exactly, refused when malformed."""

from __future__ import annotations

import json

import pytest

from answerlens.errors import ReportError
from answerlens.report.embedded import (
    CLOSE,
    OPEN,
    AssessmentData,
    Envelope,
    TrialData,
    data_block,
    encode,
    envelope_of,
    extract,
)

HOSTILE = "</script><script>alert(1)</script><!-- & \u2028 \U0001f600 \\u003c"


def test_encoding_leaves_nothing_that_ends_the_element_or_starts_markup() -> None:
    raw = {"text": HOSTILE, "nested": [{"a": "<b>&amp;</b>"}]}
    text = encode(raw)
    assert not {"<", ">", "&"} & set(text)
    assert text.isascii()
    assert json.loads(text) == raw
    assert encode(json.loads(text)) == text, "re-encoding what was read gives the same bytes"


def test_a_block_reads_back_exactly() -> None:
    raw = {"b": 1, "a": [1.5, None, True, HOSTILE]}
    page = f"<p>before</p>{data_block(raw)}<p>after {CLOSE}</p>"
    assert extract(page) == raw
    assert list(extract(page)) == ["b", "a"], "key order is kept, so the page re-renders byte for byte"


@pytest.mark.parametrize(("page", "message"), [
    pytest.param("<!doctype html><p>hello</p>", "not an answerlens report", id="no_block"),
    pytest.param(f"{OPEN}{{}}{CLOSE}{OPEN}{{}}{CLOSE}", "more than one", id="two_blocks"),
    pytest.param(f"{OPEN}{{}}", "not closed", id="unclosed"),
    pytest.param(f"{OPEN}{{'a':1}}{CLOSE}", "not JSON", id="not_json"),
    pytest.param(f"{OPEN}[1]{CLOSE}", "not a JSON object", id="not_an_object"),
])
def test_a_broken_block_is_a_report_error(page: str, message: str) -> None:
    with pytest.raises(ReportError, match=message):
        extract(page)


def test_the_envelope_is_typed_by_kind() -> None:
    data = AssessmentData(question="q?", context="", document={"verdict": "insufficient"})
    raw = Envelope(generator="answerlens 0.0.0", report=data).model_dump(mode="json")
    assert envelope_of(raw).report == data
    trial = Envelope(generator="answerlens 0.0.0", report=TrialData(result={"samples": []})).model_dump(mode="json")
    assert isinstance(envelope_of(trial).report, TrialData)


@pytest.mark.parametrize(("change", "field"), [
    pytest.param({"format": "other"}, "data.format", id="format"),
    pytest.param({"extra": 1}, "data.extra", id="unknown_field"),
    pytest.param({"report": {"kind": "assessment", "context": "", "document": {}}}, "question", id="missing"),
    pytest.param({"report": {"kind": "picture"}}, "data.report", id="unknown_kind"),
])
def test_a_malformed_envelope_names_the_field(change: dict[str, object], field: str) -> None:
    raw = {"format": "answerlens-report", "format_version": 1, "generator": "answerlens 0.0.0",
           "report": {"kind": "trial", "result": {}}, **change}
    with pytest.raises(ReportError, match="not a report's") as raised:
        envelope_of(raw)
    assert field in str(raised.value)
