"""The Compare page (AppTest); the pure diff behind it is tested in tests/ui/compare."""

from __future__ import annotations

import copy
import json

from tests.app.conftest import assert_clean, assess, choose_sample, html, notices, start, use_recorded
from tests.paths import PRME

PAGE = "pages/compare.py"
PRME_ASSESSMENT = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
TRIAL = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"


def changes(at) -> list[str]:
    """The change column of the requirement diff (a sortable dataframe)."""
    (table,) = at.dataframe
    frame = table.value
    assert list(frame.columns) == ["A #", "B #", "requirement", "status A", "status B", "refs A", "refs B", "change"]
    return list(frame["change"])


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
    # Repeats of the same inputs are one stored run (the latest wins): run #1 was replaced by #2.
    at.selectbox(key="compare.A.run").set_value(2).run()
    at.selectbox(key="compare.B.run").set_value(2).run()
    page = html(at)
    assert 'data-same-inputs="true"' in page and 'data-same-output="true"' in page
    assert 'data-verified="A"' in page and 'data-verified="B"' in page
    at.selectbox(key="compare.B.run").set_value(3).run()
    page = html(at)
    assert 'data-same-inputs="false"' in page and 'data-same-output="false"' in page
    assert any(change.startswith("text, status") for change in changes(at))


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
    assert "status" in changes(at)
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
