"""The Compare page (AppTest); the pure diff behind it is tested in tests/ui/compare."""

from __future__ import annotations

import copy
import html as html_lib
import json
import re

from answerlens.samples import load_sample
from tests.app.conftest import assert_clean, assess, choose_sample, html, notices, start, use_recorded
from tests.paths import PRME, SAMPLES

PAGE = "pages/compare.py"
PRME_ASSESSMENT = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
TRIAL = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"


def changes(at) -> list[str]:
    """The change column of the requirement diff (a table that wraps, drawn as HTML)."""
    return [html_lib.unescape(change) for change in re.findall(r'<td data-change="([^"]+)"', html(at))]


def diff_texts(at) -> list[str]:
    """The requirement column of the diff, as shown."""
    diff = html(at)[html(at).index("data-requirement-diff"):]
    return [html_lib.unescape(text) for text in re.findall(r'<td class="al-text" style="min-width:9em">([^<]*)</td>',
                                                          diff)]


def upload(at, side: str, name: str, data: bytes) -> None:
    at.radio(key=f"compare.{side}.kind").set_value("Upload a file").run()
    at.file_uploader(key=f"compare.{side}.file").set_value((name, data, "application/json")).run()


def test_the_shipped_pair_is_offered_first() -> None:
    """First open, no runs yet: the shipped example pair is compared at once, second opinions included."""
    at = start(PAGE)
    assert at.radio(key="compare.A.kind").options == ["Shipped example", "Upload a file"]
    assert at.selectbox(key="compare.A.example").value.endswith("repeat-0.json")
    assert at.selectbox(key="compare.B.example").value.endswith("repeat-1.json")
    page = html(at)
    assert 'data-same-inputs="true"' in page and 'data-same-output="false"' in page  # same inputs, other reply
    assert 'data-verified="A"' in page and 'data-verified="B"' in page  # printed documents, second opinion and all
    assert changes(at) == ["status, citations, explanation", "same", "same"]
    # The second opinion, side by side: A's flag is gone in B, and the strict policy changed only A's verdict.
    assert 'data-opinions="AB"' in page
    assert 'data-strict-side="A" data-strict-changed="true"' in page
    assert 'data-strict-side="B" data-strict-changed="false"' in page
    opinions = at.dataframe[0].value
    assert opinions["opinion A"].tolist() == ["flags", "agrees", "agrees"]
    assert opinions.loc[0, "flags removed"] == "superseded_for_present"
    # The question compared is shown, once: both sides asked it.
    question = json.loads((SAMPLES / "compare" / "dashboard-db-cache-craig-repeat-0.json").read_text())[
        "second_opinion"]["question"]
    assert 'data-question="same"' in page and html_lib.escape(question) in page
    # The verdicts compared are the audited ones (the strict one is printed on top of A's document).
    assert re.search(r"<td>verdict</td><td [^>]*>answerable</td>", page)


def test_the_requirement_diff_filters_and_exports_what_is_shown() -> None:
    at = start(PAGE)
    at.multiselect(key="compare.requirements.change").set_value(["status"]).run()
    assert_clean(at)
    assert changes(at) == ["status, citations, explanation"]
    assert any("1 of 3 requirements shown" in caption.value for caption in at.caption)
    at.multiselect(key="compare.requirements.change").set_value([]).run()
    at.text_input(key="compare.requirements.search").set_value("craig").run()
    assert diff_texts(at) == ["Craig's background"]
    assert [button.label for button in at.get("download_button")] == [
        "Shown requirements as CSV", "Shown requirements as JSON"]


def test_without_a_second_opinion_the_page_says_so() -> None:
    at = start(PAGE)
    upload(at, "A", "prme.json", json.dumps(PRME_ASSESSMENT).encode())
    upload(at, "B", "prme-again.json", json.dumps(PRME_ASSESSMENT).encode())
    assert_clean(at)
    assert 'data-opinions=""' in html(at)
    assert any("Neither assessment carries a second opinion" in notice for notice in notices(at.main, "info"))


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
    # Stored runs or not, the page opens on the shipped pair; the runs are one click away.
    assert at.radio(key="compare.A.kind").value == "Shipped example"
    for side in ("A", "B"):
        at.radio(key=f"compare.{side}.kind").set_value("A stored run").run()
    # Repeats of the same inputs are one stored run (the latest wins, keeping its number #1).
    at.selectbox(key="compare.A.run").set_value(1).run()
    at.selectbox(key="compare.B.run").set_value(1).run()
    page = html(at)
    assert 'data-same-inputs="true"' in page and 'data-same-output="true"' in page
    assert 'data-verified="A"' in page and 'data-verified="B"' in page
    asked = load_sample(SAMPLES / "partial_checkout_migration.json").question
    assert 'data-question="same"' in page and html_lib.escape(asked) in page
    at.selectbox(key="compare.B.run").set_value(2).run()
    page = html(at)
    assert 'data-same-inputs="false"' in page and 'data-same-output="false"' in page
    assert any(change.startswith("text, status") for change in changes(at))


def test_uploaded_prme_assessment_against_a_tampered_copy() -> None:
    tampered = copy.deepcopy(PRME_ASSESSMENT)
    tampered["requirements"][0]["status"] = "unsupported"
    at = start(PAGE)
    upload(at, "A", "prme.json", json.dumps(PRME_ASSESSMENT).encode())
    upload(at, "B", "bad.json", json.dumps(tampered).encode())
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
        upload(at, side, "trial.json", data)
    picker = at.selectbox(key="compare.B.sample")
    assert len(picker.options) == 120
    picker.set_value(1).run()
    assert_clean(at)
    page = html(at)
    assert 'data-same-inputs="true"' in page  # repeats 0 and 1 of one question share the inputs
    assert 'data-verified="A"' in page and 'data-verified="B"' in page


def test_a_file_with_no_assessment_says_so() -> None:
    at = start(PAGE)
    upload(at, "A", "x.json", b"[1, 2]")
    assert_clean(at)
    (error,) = notices(at.main, "error")
    assert "not an assessment" in error
