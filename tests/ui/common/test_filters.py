"""Searching, filtering and sorting a table, and exporting exactly the rows left visible (pure pandas)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from answerlens.ui.common import filters
from answerlens.ui.common.filters import Facet, TableFilter, TableSpec

SPEC = TableSpec(("sample", "question text"), (
    Facet("Label", ("label",)),
    Facet("Action", ("outcome",)),
    Facet("Error kind", ("error",)),
))


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        [("billing#0", "Which PostgreSQL version?", "answerable", "answer", None, 0, 12.5),
         ("billing#1", "Which PostgreSQL version?", "answerable", "error", "read_timeout", 0, None),
         ("lint#0", "Which lint rules did I enforce?", "unanswerable", "abstain", None, 2, 3.0),
         ("=cmd#0", "=HYPERLINK(\"x\") — ünïcode", "unanswerable", "error", "server_error", 1, 7.0)],
        columns=["sample", "question text", "label", "outcome", "error", "citation errors", "latency ms"],
    ).astype({"citation errors": "int64", "latency ms": "float64"})


def visible(choice: TableFilter) -> list[str]:
    return filters.apply(frame(), SPEC, choice)["sample"].tolist()


@pytest.mark.parametrize(
    "choice, samples",
    [
        pytest.param(TableFilter(), ["billing#0", "billing#1", "lint#0", "=cmd#0"], id="nothing_chosen"),
        pytest.param(TableFilter(search="postgresql"), ["billing#0", "billing#1"], id="search_is_case_blind"),
        pytest.param(TableFilter(search="which  LINT"), ["lint#0"], id="every_word_must_occur"),
        pytest.param(TableFilter(search="billing#1"), ["billing#1"], id="search_by_sample_id"),
        pytest.param(TableFilter(search='("x")'), ["=cmd#0"], id="no_regex"),
        pytest.param(TableFilter(allowed={"Label": frozenset({"unanswerable"})}), ["lint#0", "=cmd#0"],
                     id="by_label"),
        pytest.param(TableFilter(allowed={"Action": frozenset({"error"}), "Label": frozenset({"answerable"})}),
                     ["billing#1"], id="facets_combine"),
        pytest.param(TableFilter(allowed={"Error kind": frozenset({"read_timeout", "server_error"})}),
                     ["billing#1", "=cmd#0"], id="by_error_kind"),
        pytest.param(TableFilter(allowed={"Error kind": frozenset({filters.MISSING})}), ["billing#0", "lint#0"],
                     id="samples_without_an_error"),
        pytest.param(TableFilter(allowed={"Action": frozenset()}), ["billing#0", "billing#1", "lint#0", "=cmd#0"],
                     id="an_empty_choice_keeps_all"),
        pytest.param(TableFilter(sort_by="citation errors", descending=True), ["lint#0", "=cmd#0", "billing#0",
                                                                               "billing#1"], id="sort_stable"),
        pytest.param(TableFilter(sort_by="latency ms"), ["lint#0", "=cmd#0", "billing#0", "billing#1"],
                     id="empty_cells_sort_last"),
        pytest.param(TableFilter(search="nothing like this"), [], id="nothing_found"),
    ],
)
def test_apply(choice: TableFilter, samples: list[str]) -> None:
    assert visible(choice) == samples


def test_facet_values_are_sorted_with_none_last_and_split_when_asked() -> None:
    assert filters.facet_values(frame(), SPEC.facets[2]) == ["read_timeout", "server_error", filters.MISSING]
    several = pd.DataFrame({"change": ["status, citations", "same", None], "outcomes": ["answer ·", "abstain", ""]})
    assert filters.facet_values(several, Facet("Change", ("change",), separator=",")) == [
        "citations", "same", "status", filters.MISSING]
    assert filters.facet_values(several, Facet("Action", ("outcomes",), separator=" ", ignored=("·",))) == [
        "abstain", "answer", filters.MISSING]
    status = Facet("Status", ("a", "b"))
    sides = pd.DataFrame({"a": ["supported", None], "b": ["unsupported", "conflicting"], "n": [1, 2]})
    assert filters.apply(sides, TableSpec(("a",), (status,)), TableFilter(
        allowed={"Status": frozenset({"conflicting"})}))["n"].tolist() == [2]  # either column may match


def test_csv_of_the_visible_rows_defuses_formulas() -> None:
    shown = filters.apply(frame(), SPEC, TableFilter(allowed={"Action": frozenset({"error"})}))
    back = pd.read_csv(io.StringIO(filters.csv_text(shown)))
    assert back["sample"].tolist() == ["billing#1", "'=cmd#0"]
    assert back["question text"].tolist()[1] == "'=HYPERLINK(\"x\") — ünïcode"
    assert back["citation errors"].tolist() == [0, 1]


def test_json_of_the_visible_rows_keeps_types_and_nulls() -> None:
    shown = filters.apply(frame(), SPEC, TableFilter(sort_by="sample"))
    rows = json.loads(filters.json_text(shown))
    assert [row["sample"] for row in rows] == ["=cmd#0", "billing#0", "billing#1", "lint#0"]
    assert list(rows[0]) == list(frame().columns)  # keys in column order
    assert rows[0]["question text"] == "=HYPERLINK(\"x\") — ünïcode"  # JSON is data: nothing to defuse
    assert rows[2]["error"] == "read_timeout" and rows[1]["error"] is None and rows[2]["latency ms"] is None
    assert isinstance(rows[0]["citation errors"], int) and rows[1]["latency ms"] == 12.5
    assert json.loads(filters.json_text(frame().iloc[0:0])) == []


@pytest.mark.parametrize(
    "shown, total, text",
    [
        pytest.param(66, 66, "all 66 samples", id="all"),
        pytest.param(12, 66, "12 of 66 samples", id="some"),
        pytest.param(1, 1, "1 sample", id="one"),
        pytest.param(0, 1, "0 of 1 sample", id="none_of_one"),
        pytest.param(0, 0, "0 samples", id="empty"),
    ],
)
def test_shown_reads_naturally(shown: int, total: int, text: str) -> None:
    assert filters.shown(shown, total, "sample") == text
