"""The agreement drawn: figures with the interval or the reason there is none, the unsafe cells marked, too few
labels said, and every value from a label or model escaped."""

from __future__ import annotations

from answerlens.review.agreement import Pair, agreement
from answerlens.ui.review import agreement as drawn
from answerlens.verdict import AnswerabilityVerdict as V


def test_the_summary_the_matrix_and_the_unsafe_cell() -> None:
    result = agreement([Pair(V.ANSWERABLE, V.INSUFFICIENT, "?run=<x>"), Pair(V.ANSWERABLE, V.ANSWERABLE),
                        Pair(V.INSUFFICIENT, V.INSUFFICIENT)])
    summary = drawn.summary_html(result, void=2, unmatched=1)
    assert 'data-n="3"' in summary and "2 of 3" in summary and "2 labels void" in summary
    assert "Too few labels (under 20)" in summary
    matrix = drawn.confusion_html(result)
    assert 'data-cell="answerable:insufficient" data-unsafe="true"' in matrix
    assert 'data-cell="partial:insufficient" data-unsafe="true"' in matrix
    assert 'data-cell="answerable:answerable" data-agree="true"' in matrix
    unsafe = drawn.unsafe_html(result)
    assert 'data-count="1"' in unsafe and "?run=&lt;x&gt;" in unsafe and "<x>" not in unsafe


def test_an_undefined_kappa_says_why() -> None:
    result = agreement([Pair(V.ANSWERABLE, V.ANSWERABLE)] * 3)
    assert drawn.kappa_text(result).startswith("κ undefined: both sides gave only answerable")
    assert "—" in drawn.classes_html(result), "precision of a verdict the judge never gave is no number"


def test_people_with_people_and_what_is_not_counted() -> None:
    result = agreement([Pair(V.ANSWERABLE, V.ANSWERABLE)],
                       humans=[[("ann", V.ANSWERABLE), ("<b>", V.PARTIAL)]])
    humans = drawn.humans_html(result)
    assert "&lt;b&gt; – ann" in humans and "1 pair" in humans
    assert "no run is labelled by two" in drawn.humans_html(agreement([]))
    assert drawn.left_out_html([]) == "" and "&lt;i&gt;" in drawn.left_out_html(["void: <i>"])
