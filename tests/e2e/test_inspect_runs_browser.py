"""Inspect's runs in a real Chromium: a result goes stale at once, a refused replay shows no verdict, a run
survives a reload and a server restart and opens from its link; the second opinion and hostile text as the browser
renders them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from answerlens.html.escape import badged
from answerlens.samples import load_sample
from tests.e2e.conftest import TIMEOUT, choose, radio, settle, source_kind, streamlit_server
from tests.paths import SAMPLES

pytestmark = pytest.mark.e2e


def assess_recorded(page: Any, stem: str) -> None:
    choose(page, "Sample bundle", load_sample(SAMPLES / f"{stem}.json").title)
    radio(page, "Provider", "Recorded response")
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)


def test_a_result_goes_stale_as_soon_as_the_question_changes(page: Any) -> None:
    assess_recorded(page, "speech_act_eslint")
    assert page.locator("[data-verdict]").get_attribute("data-stale") == "false"
    page.get_by_label("Question").fill("Which formatter did I adopt?")
    page.get_by_label("Question").press("Control+Enter")
    page.locator('[data-verdict][data-stale="true"]').wait_for(timeout=TIMEOUT)
    assert "Inputs changed since this result — run again." in page.locator("[data-stale-banner]").inner_text()
    opacity = page.eval_on_selector(".st-key-inspect-result [data-testid=stHorizontalBlock]",
                                    "e => getComputedStyle(e).opacity")
    assert float(opacity) < 1  # the whole result is greyed


def test_a_refused_replay_shows_no_verdict_element_and_can_be_restored(page: Any) -> None:
    sample = load_sample(SAMPLES / "speech_act_eslint.json")
    assess_recorded(page, "speech_act_eslint")
    page.get_by_label("Question").fill("Which formatter did I adopt?")
    page.get_by_label("Question").press("Control+Enter")
    settle(page)
    page.get_by_role("button", name="Assess", exact=True).click()
    page.get_by_text("The recorded reply answers another question").wait_for(timeout=TIMEOUT)
    settle(page)
    # Streamlit removes the previous run's elements once the new run has drawn: wait for that, then none is left.
    page.locator("[data-verdict]").wait_for(state="detached", timeout=TIMEOUT)
    assert page.locator("[data-verdict]").count() == 0
    page.get_by_role("button", name="Restore the recorded question").click()
    settle(page)
    assert page.get_by_label("Question").input_value() == sample.question.strip()
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator('[data-verdict][data-stale="false"]').wait_for(timeout=TIMEOUT)


def test_a_run_survives_a_reload_and_a_server_restart_and_opens_from_its_link(browser: Any,
                                                                              tmp_path: Path) -> None:
    data = tmp_path / "data"
    with streamlit_server(tmp_path / "first.log", data_dir=data) as url:
        page = browser.new_page()
        page.goto(url)
        page.get_by_role("heading", name="Inspect").wait_for(timeout=TIMEOUT)
        settle(page)
        assess_recorded(page, "conflicting_deploy_freeze")
        evaluation_id = page.locator('[data-hash="evaluation_id"]').inner_text()
        assert f"run={evaluation_id}" in page.url
        page.reload()
        page.locator('[data-verdict="conflicting"]').wait_for(timeout=TIMEOUT)
        page.close()
    with streamlit_server(tmp_path / "second.log", data_dir=data) as url:
        page = browser.new_page()
        page.goto(f"{url}/?run={evaluation_id}")
        page.locator('[data-verdict="conflicting"]').wait_for(timeout=TIMEOUT)
        settle(page)
        assert page.locator('[data-hash="evaluation_id"]').inner_text() == evaluation_id
        assert page.locator("[data-verdict]").get_attribute("data-stale") == "false"
        page.goto(f"{url}/?run={'0' * 64}")
        page.get_by_text("No stored run has this link").wait_for(timeout=TIMEOUT)
        assert page.locator("[data-verdict]").count() == 0
        assert page.locator('[data-testid="stException"]').count() == 0
        page.close()


def test_second_opinion_marks_inline_with_a_legend(page: Any) -> None:
    assess_recorded(page, "second_opinion_plan_as_fact")
    flagged = page.locator(".al-context mark[data-flagged='true']")
    assert flagged.count() >= 1
    style = flagged.first.evaluate("e => [getComputedStyle(e).outlineStyle, getComputedStyle(e).textDecorationStyle]")
    assert style == ["solid", "wavy"]
    discarded_or_accepted = page.locator(".al-context mark:not([data-flagged])")
    for index in range(discarded_or_accepted.count()):
        assert discarded_or_accepted.nth(index).evaluate("e => getComputedStyle(e).outlineStyle") != "solid"
    assert "flagged by the second opinion" in page.locator("[data-legend]").inner_text()
    assert page.locator('[data-badge="flags"]').count() == 1
    radio(page, "Highlight requirement", "1")
    page.locator('[data-opinion-requirement="0"] [data-flag]').first.wait_for(timeout=TIMEOUT)


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u2060\ufeff"
HOSTILE = f"x{BIDI}<script>alert('x')</script><img src=x onerror=alert(1)>\"'><a href=\"javascript:alert(2)\">go</a>"


def hostile_sample() -> bytes:
    reply = {"requirements": [{"requirement": f"who approved {HOSTILE}", "status": "supported",
                               "evidence_refs": ["m1", f"m9{HOSTILE}"], "explanation": HOSTILE}],
             "reasoning": HOSTILE}
    return json.dumps({
        "title": HOSTILE, "description": HOSTILE, "question": f"Who approved? {HOSTILE}",
        "bundle": {"records": [{"text": f"Eve approved it. {HOSTILE}", "speaker": "Eve"}]},
        "recorded_reply": reply}).encode()


WHERE = """() => [...document.querySelectorAll('[data-testid="stAppViewContainer"] *')]
  .filter(e => [...e.childNodes].some(n => n.nodeType === 3 && /[\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2069\\ufeff]/.test(n.textContent)))
  .map(e => (e.getAttribute('data-testid') || e.className.baseVal || e.className || e.tagName) + ': '
       + e.textContent.slice(0, 60))"""


def raw_controls(page: Any) -> list[str]:
    """The invisible characters in the page's text (as the user would copy it), with where they are."""
    text = page.evaluate("() => document.querySelector('[data-testid=\"stAppViewContainer\"]').innerText")
    found = sorted({f"U+{ord(char):04X}" for char in badged(text)})
    return found + (page.evaluate(WHERE) if found else [])


def test_hostile_text_is_inert_and_shows_no_raw_control_on_inspect_and_packing(page: Any) -> None:
    source_kind(page, "Upload a file")
    page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
        files=[{"name": "hostile.json", "mimeType": "application/json", "buffer": hostile_sample()}])
    page.get_by_role("button", name="Assess", exact=True).wait_for(timeout=TIMEOUT)
    settle(page)
    radio(page, "Provider", "Recorded response")
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)
    radio(page, "Highlight requirement", "1")
    assert raw_controls(page) == []
    assert page.locator('img[src="x"]').count() == 0 and page.locator('a[href^="javascript"]').count() == 0
    page.get_by_role("link", name="Packing").click()
    page.get_by_role("heading", name="Packing").wait_for(timeout=TIMEOUT)
    settle(page)
    source_kind(page, "Upload a file")
    page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
        files=[{"name": "hostile.json", "mimeType": "application/json", "buffer": hostile_sample()}])
    page.locator("[data-counts]").first.wait_for(timeout=TIMEOUT)
    settle(page)
    assert raw_controls(page) == []
    assert page.locator('img[src="x"]').count() == 0


def test_hostile_assessment_shows_no_raw_control_on_compare(page: Any, tmp_path: Path) -> None:
    from answerlens import AnswerabilityConfig, derive_assessment, load_bundle

    data = json.loads(hostile_sample())
    assessment = derive_assessment(data["question"], load_bundle(data["bundle"]), json.dumps(data["recorded_reply"]),
                                   config=AnswerabilityConfig(provider="replay"))
    page.get_by_role("link", name="Compare", exact=True).first.click()
    page.get_by_role("heading", name="Compare").wait_for(timeout=TIMEOUT)
    settle(page)
    body = json.dumps(assessment.model_dump(mode="json")).encode()
    for side in ("A", "B"):
        group = page.locator('[data-testid="stRadio"]').filter(has_text=f"Assessment {side}")
        if group.count():
            group.get_by_text("Upload a file", exact=True).click()
            settle(page)
    for index in range(2):
        page.locator('[data-testid="stMain"] input[type="file"]').nth(index).set_input_files(
            files=[{"name": f"{index}.json", "mimeType": "application/json", "buffer": body}])
        settle(page)
    page.locator("[data-same-inputs]").wait_for(timeout=TIMEOUT)
    assert raw_controls(page) == []


def test_hostile_trial_result_shows_no_raw_control_on_trials(page: Any) -> None:
    from tests.paths import PRME

    data = json.loads((PRME / "trials" / "beam-100k-answerability-dev-v2-results.json").read_text())
    data["samples"] = data["samples"][:6]
    for sample in data["samples"]:
        sample["question_id"] += BIDI
        for requirement in (sample.get("assessment") or {}).get("requirements", []):
            requirement["requirement"] += HOSTILE
    page.get_by_role("link", name="Trials").click()
    page.get_by_role("heading", name="Trials").wait_for(timeout=TIMEOUT)
    settle(page)
    page.get_by_text("Open a result", exact=True).click()
    settle(page)
    page.locator('[data-testid="stMain"] input[type="file"]').first.set_input_files(
        files=[{"name": "trial.json", "mimeType": "application/json", "buffer": json.dumps(data).encode()}])
    page.locator("[data-trial-kind]").wait_for(timeout=TIMEOUT)
    settle(page)
    # The edited texts no longer hash as recorded: the result does not verify, and its charts show on request.
    page.locator('[data-verified="false"]').wait_for(timeout=TIMEOUT)
    page.get_by_text("Show its numbers anyway (NOT VERIFIED)").click()
    settle(page)
    page.locator(".js-plotly-plot .ytick text").first.wait_for(timeout=TIMEOUT)  # the grid names each question
    leaked = raw_controls(page)
    assert leaked == [], "\n".join(leaked)
    labels = page.eval_on_selector_all(".js-plotly-plot text", "ts => ts.map(t => t.textContent).join(' ')")
    assert "100K_0_q0_abstention" in labels and not badged(labels)
    assert page.locator('img[src="x"]').count() == 0
