"""The Compare page's view-model: finding assessments in files, the identity of two runs, the requirement diff,
and the escaped HTML shown for them."""

from __future__ import annotations

import copy
import json
import re

import pytest

from answerlens import AnswerabilityConfig, derive_assessment, load_bundle, verify_assessment
from answerlens.html.markup import STATUS_SOLID
from answerlens.ui.common import filters
from answerlens.ui.common.filters import TableFilter
from answerlens.ui.compare.viewmodel import (
    CHANGED_COLOUR,
    COMPARED_FIELDS,
    HASHES,
    REQUIREMENT_COLUMNS,
    REQUIREMENT_SPEC,
    compare,
    fields_html,
    identity_html,
    requirements_frame,
    requirements_html,
    verification_html,
)
from tests.paths import PRME
from tests.ui.conftest import recorded

PRME_ASSESSMENT = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
RAW = json.loads((PRME / "assessments" / "raw_output_reader_openai.json").read_text())
TRIAL = json.loads((PRME / "trials" / "beam-100k-answerability-dev-v2-results.json").read_text())


def assessed(raw: dict) -> dict:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    config = AnswerabilityConfig(provider="replay", model="stub")
    return derive_assessment("What database and cache…?", bundle, json.dumps(raw), config=config).model_dump(mode="json")


def test_two_runs_of_the_same_inputs_and_reply_are_the_same() -> None:
    a = recorded("partial_checkout_migration").model_dump(mode="json")
    result = compare(a, copy.deepcopy(a))
    assert result.same_inputs and result.same_output and result.changed == 0
    assert [row.name for row in result.fields] == list(COMPARED_FIELDS) and all(row.same for row in result.fields)


def test_different_samples_differ_in_inputs_and_output() -> None:
    result = compare(recorded("partial_checkout_migration").model_dump(mode="json"),
                     recorded("speech_act_eslint").model_dump(mode="json"))
    assert not result.same_inputs and not result.same_output and result.changed > 0


def test_missing_hashes_are_never_the_same() -> None:
    result = compare({"requirements": []}, {"requirements": []})
    assert not result.same_inputs and not result.same_output


def test_diff_aligns_by_requirement_text() -> None:
    changed = copy.deepcopy(RAW)
    del changed["requirements"][0]
    changed["requirements"][0]["evidence_refs"] = ["m4", "m2"]
    changed["requirements"][1]["status"] = "supported"
    changed["requirements"][2]["explanation"] = "other words"
    changed["requirements"].append({"requirement": "New", "status": "unsupported", "evidence_refs": [],
                                    "explanation": "x"})
    result = compare(assessed(RAW), assessed(changed))
    assert [(row.a_index, row.b_index, row.changes) for row in result.requirements] == [
        (0, None, ("removed",)), (1, 0, ("citations",)), (2, 1, ("status",)), (3, 2, ("explanation",)),
        (None, 3, ("added",))]
    assert result.same_inputs and not result.same_output and result.changed == 5


def test_a_reworded_requirement_is_a_text_change_in_place() -> None:
    changed = copy.deepcopy(RAW)
    changed["requirements"][0]["requirement"] = "Which cache the dashboard API uses"
    row = compare(assessed(RAW), assessed(changed)).requirements[0]
    assert (row.a_index, row.b_index, row.changes) == (0, 0, ("text",))
    assert row.text_a == "Cache used by the dashboard API" and row.text_b == "Which cache the dashboard API uses"


@pytest.mark.parametrize(
    "same_in, same_out, inputs, output, hint",
    [
        pytest.param(True, True, "true", "true", False, id="repeat"),
        pytest.param(True, False, "true", "false", True, id="nondeterministic"),
        pytest.param(False, False, "false", "false", False, id="different"),
    ],
)
def test_identity_html(same_in: bool, same_out: bool, inputs: str, output: str, hint: bool) -> None:
    a = recorded("partial_checkout_migration").model_dump(mode="json")
    b = dict(a, assessment_sha256=a["assessment_sha256"] if same_out else "0" * 64,
             evaluation_id=a["evaluation_id"] if same_in else "1" * 64)
    html = identity_html(compare(a, b))
    assert f'data-same-inputs="{inputs}"' in html and f'data-same-output="{output}"' in html
    assert ("not deterministic" in html) == hint


def test_verification_html_of_a_good_and_a_tampered_assessment() -> None:
    good = verification_html("A", "prme.json", verify_assessment(PRME_ASSESSMENT).problems)
    assert 'data-verified="A"' in good and "A verifies" in good
    tampered = copy.deepcopy(PRME_ASSESSMENT)
    tampered["requirements"][0]["status"] = "unsupported"
    bad = verification_html("B", "<b>bad</b>.json", verify_assessment(tampered).problems)
    assert 'data-verify-failed="B"' in bad and "assessment_sha256" in bad and "<b>bad" not in bad


def test_fields_html_marks_hash_cells_by_side() -> None:
    a = recorded("partial_checkout_migration").model_dump(mode="json")
    b = dict(a, model="<script>x</script>")
    html = fields_html(compare(a, b))
    for name in HASHES & set(COMPARED_FIELDS):
        value = "null" if a[name] is None else a[name]
        assert re.search(rf'<td data-hash="{name}" data-side="A"[^>]*>{value}</td>', html)
        assert re.search(rf'<td data-hash="{name}" data-side="B"[^>]*>{value}</td>', html)
    assert "<script>x" not in html and html.count(">differs<") == 1


def _changed_pair() -> tuple[dict, dict]:
    changed = copy.deepcopy(RAW)
    del changed["requirements"][0]
    changed["requirements"][0]["requirement"] = "Craig's role"
    changed["requirements"].append({"requirement": "New", "status": "unsupported", "evidence_refs": [],
                                    "explanation": "x"})
    return assessed(RAW), assessed(changed)


def test_requirements_frame_one_row_per_aligned_pair() -> None:
    frame = requirements_frame(compare(*_changed_pair()))
    assert tuple(frame.columns) == REQUIREMENT_COLUMNS
    assert str(frame["A #"].dtype) == "Int64" and str(frame["B #"].dtype) == "Int64"
    assert frame["A #"].isna().tolist() == [False, False, False, False, True]
    assert frame["B #"].isna().tolist() == [False, True, False, False, False]
    # The first requirement was deleted and the second reworded: difflib pairs them as one replaced row.
    assert frame["change"].tolist() == ["text, citations, explanation", "removed", "same", "same", "added"]
    assert frame["A #"].tolist()[:4] == [1, 2, 3, 4] and frame["B #"].dropna().tolist() == [1, 2, 3, 4]  # from 1
    assert frame["requirement"].tolist()[0] == "A: Cache used by the dashboard API\nB: Craig's role"
    assert (frame["refs A"].tolist()[0], frame["refs B"].tolist()[0]) == ("m1", "m4")
    assert frame["status B"].isna().tolist()[1] and frame["status A"].isna().tolist()[-1]


def test_requirements_frame_sorts_by_any_column() -> None:
    frame = requirements_frame(compare(*_changed_pair()))
    assert frame.sort_values("change")["change"].tolist() == [
        "added", "removed", "same", "same", "text, citations, explanation"]
    assert frame.sort_values("B #")["B #"].dropna().tolist() == [1, 2, 3, 4]


def test_the_requirement_diff_is_a_table_that_wraps_with_numbers_text_and_statuses() -> None:
    """One row per requirement with its numbers, its text (both, when it changed), its statuses (A → B when they
    differ) and the change, in five columns that wrap instead of a wide grid that scrolls on a phone."""
    html = requirements_html(requirements_frame(compare(*_changed_pair())))
    for status in ("supported", "unsupported"):
        assert f"background-color:{STATUS_SOLID[status]}" in html
    assert f"background-color:{CHANGED_COLOUR}" in html
    assert re.findall(r"<th>([^<]*)</th>", html) == ["A → B #", "requirement", "status", "change", "citations"]
    assert "A: Cache used by the dashboard API<br>B: Craig&#x27;s role" in html
    assert re.findall(r'data-change="([^"]+)"', html) == requirements_frame(compare(*_changed_pair()))[
        "change"].tolist()
    assert 'data-a="—"' in html and 'data-b="—"' in html  # an added and a removed requirement


def test_an_empty_diff_is_an_empty_table() -> None:
    frame = requirements_frame(compare({"requirements": []}, {"requirements": []}))
    assert frame.empty and tuple(frame.columns) == REQUIREMENT_COLUMNS


@pytest.mark.parametrize(
    "choice, changes",
    [
        pytest.param(TableFilter(search="craig's ROLE"), ["text, citations, explanation"],
                     id="search_requirement_text"),
        pytest.param(TableFilter(allowed={"Change": frozenset({"citations"})}), ["text, citations, explanation"],
                     id="a_kind_of_change_inside_a_list"),
        pytest.param(TableFilter(allowed={"Change": frozenset({"added", "removed"})}), ["removed", "added"],
                     id="added_or_removed"),
        pytest.param(TableFilter(allowed={"Status": frozenset({"unsupported"})}), ["same", "same", "added"],
                     id="status_either_side"),
        pytest.param(TableFilter(sort_by="change"), ["added", "removed", "same", "same",
                                                     "text, citations, explanation"], id="sorted"),
    ],
)
def test_the_requirement_diff_filters_by_text_status_and_change(choice: TableFilter, changes: list[str]) -> None:
    frame = filters.apply(requirements_frame(compare(*_changed_pair())), REQUIREMENT_SPEC, choice)
    assert frame["change"].tolist() == changes
