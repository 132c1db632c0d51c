"""The Compare page (AppTest) and the pure diff behind it."""

from __future__ import annotations

import copy
import json
import re

from answerlens import AnswerabilityConfig, derive_assessment, load_bundle
from answerlens.ui.compare.viewmodel import compare
from tests.app.conftest import assert_clean, assess, choose_sample, html, notices, start, use_recorded
from tests.paths import PRME

PAGE = "pages/compare.py"
PRME_ASSESSMENT = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
TRIAL = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"


def test_without_runs_the_page_asks_for_two_assessments() -> None:
    at = start(PAGE)
    assert at.radio(key="compare.A.kind").options == ["Upload a file"]
    assert "Choose two assessments" in at.info[0].value


def test_two_runs_of_the_same_inputs_match() -> None:
    at = start()
    use_recorded(at)
    choose_sample(at, "partial_checkout_migration")
    assess(at)
    assess(at)
    choose_sample(at, "speech_act_eslint")
    assess(at)
    at.switch_page(PAGE).run()
    assert_clean(at)
    at.selectbox(key="compare.A.run").set_value(2).run()
    at.selectbox(key="compare.B.run").set_value(1).run()
    page = html(at)
    assert 'data-same-inputs="true"' in page and 'data-same-output="true"' in page
    assert 'data-verified="A"' in page and 'data-verified="B"' in page
    at.selectbox(key="compare.B.run").set_value(3).run()
    page = html(at)
    assert 'data-same-inputs="false"' in page and 'data-same-output="false"' in page
    assert re.search(r'data-change="text, status', page)


def test_uploaded_prme_assessment_against_a_tampered_copy() -> None:
    tampered = copy.deepcopy(PRME_ASSESSMENT)
    tampered["requirements"][0]["status"] = "unsupported"
    at = start(PAGE)
    at.file_uploader(key="compare.A.file").set_value(("prme.json", json.dumps(PRME_ASSESSMENT).encode(),
                                                      "application/json")).run()
    at.file_uploader(key="compare.B.file").set_value(("bad.json", json.dumps(tampered).encode(),
                                                      "application/json")).run()
    assert_clean(at)
    page = html(at)
    assert 'data-verified="A"' in page and 'data-verify-failed="B"' in page
    assert 'data-same-inputs="true"' in page and 'data-same-output="true"' in page  # recorded hashes agree
    assert re.search(r'data-change="status"', page)
    (problem,) = notices(at.main, "error")
    assert "assessment_sha256" in problem


def test_trial_file_offers_its_samples() -> None:
    at = start(PAGE)
    data = TRIAL.read_bytes()
    for side in ("A", "B"):
        at.file_uploader(key=f"compare.{side}.file").set_value(("trial.json", data, "application/json")).run()
    picker = at.selectbox(key="compare.B.sample")
    assert len(picker.options) == 120
    picker.set_value(1).run()
    assert_clean(at)
    page = html(at)
    assert 'data-same-inputs="true"' in page  # repeats 0 and 1 of one question share the inputs
    assert 'data-verified="A"' in page and 'data-verified="B"' in page


def test_a_file_with_no_assessment_says_so() -> None:
    at = start(PAGE)
    at.file_uploader(key="compare.A.file").set_value(("x.json", b"[1, 2]", "application/json")).run()
    assert_clean(at)
    (error,) = notices(at.main, "error")
    assert "not an assessment" in error


def _assessment(raw: dict) -> dict:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    config = AnswerabilityConfig(provider="replay", model="stub")
    return derive_assessment("What database and cache…?", bundle, raw, config=config).model_dump(mode="json")


def test_diff_aligns_by_requirement_text() -> None:
    raw = json.loads((PRME / "assessments" / "raw_output_reader_openai.json").read_text())
    changed = copy.deepcopy(raw)
    del changed["requirements"][0]
    changed["requirements"][0]["evidence_refs"] = ["m4", "m2"]
    changed["requirements"].append({"requirement": "New", "status": "unsupported", "evidence_refs": [],
                                    "explanation": "x"})
    result = compare(_assessment(raw), _assessment(changed))
    assert [(row.a_index, row.b_index, row.changes) for row in result.requirements] == [
        (0, None, ("removed",)), (1, 0, ("citations",)), (2, 1, ()), (3, 2, ()), (None, 3, ("added",))]
    assert result.same_inputs and not result.same_output
