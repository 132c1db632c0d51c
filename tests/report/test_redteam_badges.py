"""Adversarial variants of invisible characters in trial reports: every Default_Ignorable range's first and last
code point (and controls) in question ids and the source name, through the whole report. Every SVG chart stays
well-formed SVG with every row, no such character reaches the page unbadged, and the report still verifies."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree

import pytest

from answerlens.audit import manifest_sha256
from answerlens.html.escape import CONTROLS, DEFAULT_IGNORABLE
from answerlens.report.embedded import CLOSE, OPEN
from answerlens.trials.reader import parse_trial
from answerlens.verification.report import trial_report, verify_report
from tests.paths import FIXTURES

CHARS = sorted({chr(code) for low, high in (*DEFAULT_IGNORABLE, *CONTROLS) for code in (low, high)
                if code not in (0x09, 0x0A)} | {"\U000e0100", "\U000e01ef"})
HIDDEN = re.compile("[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in (*DEFAULT_IGNORABLE, *CONTROLS)
                    if (low, high) != (0x00, 0x08)) + "\\x00-\\x08]")
SVG_ELEMENTS = {"{http://www.w3.org/2000/svg}" + name for name in ("svg", "rect", "text", "title", "line")} | \
    {"svg", "rect", "text", "title", "line"}


def hostile_result(chars: str) -> dict:
    result = json.loads((FIXTURES / "trials" / "questions-run.json").read_text(encoding="utf-8"))["result"]
    result["finished_at"] = "2026-01-01T00:00:00+00:00"
    text = json.dumps(result, ensure_ascii=False)
    for index, name in enumerate(("billing-db-version-and-owner", "cert-alerts-owner", "checkout-outage-fix")):
        text = text.replace(f'"{name}"', json.dumps(f"{name[:4]}{chars[index::3]}{name[4:]}"))
    # The ids are in the manifest: a run made with them has the manifest hash they give.
    renamed = parse_trial(json.loads(text), "hostile").manifest()
    assert renamed is not None
    return json.loads(text.replace(result["manifest_sha256"], manifest_sha256(renamed)))


@pytest.mark.parametrize("chunk", range(0, len(CHARS), 12))
def test_invisible_characters_in_question_ids_are_badged_everywhere(chunk: int) -> None:
    chars = "".join(CHARS[chunk:chunk + 12])
    result = parse_trial(hostile_result(chars), "hostile")
    html = trial_report(result, source=f"run{chars[:3]}.json")
    page = html[:html.index(OPEN)] + html[html.index(CLOSE) + len(CLOSE):]
    raw = [f"U+{ord(char):04X}" for char in HIDDEN.findall(page)]
    assert not raw, f"unbadged on the page: {raw}"
    svgs = re.findall(r"<svg\b.*?</svg>", page, flags=re.S)
    assert len(svgs) >= 3
    for svg in svgs:
        tree = ElementTree.fromstring(svg)
        assert {element.tag for element in tree.iter()} <= SVG_ELEMENTS, "an HTML tag would end the SVG"
        assert "<span" not in svg
    for char in chars:
        assert f"U+{ord(char):04X}" in page
    check = verify_report(html)
    assert check.ok, check.problems
