"""Text from a bundle, dataset, reply or file name reaches every page (Inspect, Packing, Compare, Trials) inert: no
script or markup of its own, and no raw bidirectional or invisible format character in any element the page sends
(AppTest: every string of every element's message, and every table cell). And each hostile value is shown, escaped,
where it belongs: a page that shows nothing does not pass."""

from __future__ import annotations

import copy
import html as html_lib
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from streamlit.testing.v1 import AppTest

from answerlens import AnswerabilityConfig, derive_assessment, load_bundle
from answerlens.html.escape import badged
from tests.app.conftest import assert_clean, assess, html, start, use_recorded, verdicts
from tests.paths import PRME

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u061c"
LOOK_ALIKES = "\u034f\ufe0f\U000e0100\u17b4\u115f\u1160\u3164\uffa0"
"""Default-ignorable characters and Hangul fillers: drawn as nothing or as a blank."""
MARKUP = "<script>alert('x')</script><img src=x onerror=alert(1)>\"'><a href=\"javascript:alert(2)\">go</a>"
HOSTILE = f"pay {BIDI}evil{INVISIBLE}appr{LOOK_ALIKES}oved {MARKUP} javascript:alert(3)"

REPLY = {"requirements": [{"requirement": f"who approved {HOSTILE}", "status": "supported",
                           "evidence_refs": ["m1", f"m9{HOSTILE}"], "explanation": f"m1 says {HOSTILE}"}],
         "reasoning": f"because {HOSTILE}"}
SAMPLE = {
    "title": f"title {HOSTILE}", "description": f"description {HOSTILE}", "question": f"Who approved? {HOSTILE}",
    "answer": f"Eve approved. {HOSTILE}",
    "bundle": {"records": [{"text": f"Eve approved it. {HOSTILE}", "speaker": "Eve",
                            "event_time": "2024-03-05T00:00:00Z"},
                           {"text": f"Second record {HOSTILE}", "speaker": "Mallory"}]},
    "recorded_reply": REPLY,
}
RECORD = SAMPLE["bundle"]["records"][0]["text"]
ASSESSED = (REPLY["requirements"][0]["requirement"], REPLY["requirements"][0]["explanation"], REPLY["reasoning"],
            REPLY["requirements"][0]["evidence_refs"][1])
"""The reply's text the result shows: the requirement, its explanation, the reasoning and the discarded token."""
FILE_NAME = "hostile-bundle.json"  # Streamlit's uploader shows the name itself: the names in our messages are tested below


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def cells(at: AppTest) -> list[str]:
    """Every cell and column name of every table on the page, as text."""
    return [str(value) for table in at.dataframe
            for value in [*table.value.columns, *table.value.astype(str).to_numpy().ravel()]]


def leaks(at: AppTest) -> list[tuple[str, str]]:
    """(element type, string) for every string of every element, and every table cell, that holds a raw invisible
    character."""
    found = [("table", text[:120]) for text in cells(at) if badged(text)]
    for root in (at.main, at.sidebar):
        stack = [root]
        while stack:
            node = stack.pop()
            stack.extend(getattr(node, "children", {}).values())
            proto = getattr(node, "proto", None)
            if proto is None or not hasattr(proto, "DESCRIPTOR"):
                continue
            fields = MessageToDict(proto)
            if type(node).__name__ == "TextArea":
                # An input box holds the question itself, exactly as given (re-sent each run until the user edits
                # it); its label, help and placeholder are checked like any text.
                fields.pop("value", None)
            for text in strings(fields):
                if badged(text):
                    found.append((type(node).__name__, text[:120]))
    return found


def inert(at: AppTest) -> None:
    assert_clean(at)
    assert leaks(at) == []
    page = html(at)
    assert "<script>alert" not in page and "<img src=x" not in page and 'href="javascript:' not in page
    assert "<a href=" not in page.replace('<a href="?run=', "")


def visible(value: str) -> str:
    """``value`` as a reader sees it on the page: each invisible or reordering character as its ``U+XXXX`` badge,
    markup as literal text."""
    return "".join(f"U+{ord(char):04X}" if badged(char) else char for char in value)


def shown(at: AppTest) -> str:
    """All the text the page shows: the text of our HTML (tags dropped, entities read), table cells and code
    blocks; a badge's ``⟨⟩`` (in text that is not HTML) dropped, so it reads as ``visible`` writes it. A raw
    ``<script>`` would be a tag here, dropped: only escaped markup reads back as text."""
    text = html_lib.unescape(re.sub(r"<[^>]*>", "", html(at)))
    return "\n".join([text, *cells(at), *(element.proto.code_text for element in at.code)]).translate(
        {ord("⟨"): None, ord("⟩"): None})


def found(at: AppTest, *values: str) -> None:
    """Each value is shown whole, escaped (see ``shown``)."""
    page = shown(at)
    assert [value[:40] for value in values if visible(value) not in page] == []


def upload(at: AppTest, prefix: str, data: dict[str, Any], name: str = FILE_NAME) -> None:
    at.radio(key=f"{prefix}.source_kind").set_value("Upload a file").run()
    at.file_uploader(key=f"{prefix}.upload").set_value((name, json.dumps(data).encode(), "application/json")).run()


def test_the_hostile_sample_is_inert_on_inspect() -> None:
    at = start()
    upload(at, "inspect", SAMPLE)
    use_recorded(at)
    inert(at)
    assess(at)
    assert verdicts(at) == ["answerable"]
    inert(at)
    found(at, SAMPLE["title"], SAMPLE["question"], *ASSESSED)
    at.radio(key="inspect.focus").set_value(0).run()
    inert(at)
    found(at, RECORD)
    at.text_area(key="inspect.question").set_value("Another question?").run()  # stale banner
    inert(at)
    assess(at)  # refused replay: its notice
    assert verdicts(at) == []
    inert(at)


def test_hostile_file_names_in_messages_are_inert() -> None:
    at = start()
    upload(at, "inspect", {"sections": "broken"}, name=f"x{HOSTILE}.json")
    inert(at)
    found(at, f"x{HOSTILE}.json")


def test_the_hostile_sample_is_inert_on_packing() -> None:
    at = start("pages/packing.py")
    upload(at, "packing", SAMPLE)
    inert(at)
    codes = [element.proto.code_text for element in at.code]
    assert codes and all(not badged(code) for code in codes)
    assert any("⟨U+202E⟩" in code for code in codes)
    found(at, RECORD.split('"')[0], REPLY["requirements"][0]["requirement"])  # a format quotes the text as JSON


def test_a_hostile_assessment_is_inert_on_compare() -> None:
    bundle = load_bundle(SAMPLE["bundle"])
    assessment = derive_assessment(SAMPLE["question"], bundle, json.dumps(REPLY),
                                   config=AnswerabilityConfig(provider="replay"), answer=SAMPLE["answer"])
    data = json.dumps(assessment.model_dump(mode="json")).encode()
    at = start("pages/compare.py")
    for side in ("A", "B"):
        at.radio(key=f"compare.{side}.kind").set_value("Upload a file").run()
        at.file_uploader(key=f"compare.{side}.file").set_value((f"{side}.json", data, "application/json")).run()
    inert(at)
    found(at, ASSESSED[0])  # the same assessment twice: its requirement, no differing text


UPSTREAM = json.loads((PRME / "trials" / "beam-100k-answerability-dev-v2-results.json").read_text())
FIRST_QUESTION = UPSTREAM["samples"][0]["question_id"]


@pytest.fixture
def hostile_trial(tmp_path) -> bytes:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(UPSTREAM)
    data["samples"] = data["samples"][:6]
    for sample in data["samples"]:
        sample["question_id"] = f"{sample['question_id']}{BIDI}"
        assessment = sample.get("assessment") or {}
        for requirement in assessment.get("requirements", []):
            requirement["requirement"] += HOSTILE
            requirement["explanation"] += HOSTILE
        if "reasoning" in assessment:
            assessment["reasoning"] += HOSTILE
    return json.dumps(data).encode()


def test_a_hostile_trial_result_is_inert_on_trials(hostile_trial: bytes) -> None:
    at = start("pages/trials.py")
    at.radio(key="trials.mode").set_value("Open a result").run()
    at.file_uploader(key="trials.open_upload").set_value(("trial.json", hostile_trial, "application/json")).run()
    inert(at)
    found(at, f"{FIRST_QUESTION}{BIDI}")


def test_a_hostile_sample_file_in_the_samples_folder_is_inert(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / f"hostile{BIDI}.json").write_text(json.dumps(SAMPLE))
    monkeypatch.setenv("ANSWERLENS_SAMPLES_DIR", str(tmp_path))
    at = start()
    use_recorded(at)
    inert(at)  # the picker's label, the description, the recorded-response notice
    assert f"hostile{visible(BIDI)}" in at.selectbox(key="inspect.sample").options[0].translate(
        {ord("⟨"): None, ord("⟩"): None})
    assess(at)
    assert verdicts(at) == ["answerable"]
    inert(at)
    found(at, SAMPLE["title"], *ASSESSED)
