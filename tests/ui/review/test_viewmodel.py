"""The Review queue without Streamlit: filters, where labelling moves on to, the position line, this reviewer's
label of an item."""

from __future__ import annotations

from datetime import date, datetime

from answerlens.review.shown import Item
from answerlens.ui.review import viewmodel as model
from answerlens.verdict import AnswerabilityVerdict
from tests.review.helpers import label


def _item(key: str, verdict: str = "answerable", source: str = "live model: m", created: float | None = None,
          eid: str = "a" * 64, sha: str | None = None) -> Item:
    return Item(key=key, title=key, question="q", answer=None, evaluation_id=eid, judge=AnswerabilityVerdict(verdict),
                source=source, created=created, link=key, assessment_sha256=sha)


def test_filters_keep_what_they_name() -> None:
    day = datetime(2026, 3, 1, 12).timestamp()
    items = [_item("1", "answerable", "live model: a", day), _item("2", "insufficient", "live model: b", day),
             _item("3", "insufficient", "live model: a", datetime(2026, 1, 1, 12).timestamp()), _item("4", created=None)]
    assert [i.key for i in model.filtered(items, model.Filters())] == ["1", "2", "3", "4"]
    assert [i.key for i in model.filtered(items, model.Filters(verdicts=("insufficient",)))] == ["2", "3"]
    assert [i.key for i in model.filtered(items, model.Filters(sources=("live model: a",)))] == ["1", "3"]
    assert [i.key for i in model.filtered(items, model.Filters(since=date(2026, 2, 1)))] == ["1", "2", "4"]
    assert model.source_options(items) == ["live model: a", "live model: b", "live model: m"]


def test_labelling_moves_to_the_next_item_not_labelled_wrapping() -> None:
    keys = ["a", "b", "c", "d"]
    assert model.after_labelling(keys, "b", {"b", "c"}) == "d"
    assert model.after_labelling(keys, "d", {"b", "c", "d"}) == "a"
    assert model.after_labelling(keys, "b", set(keys)) == "c", "all labelled: simply the next"
    assert model.step(keys, "a", -1) == "a" and model.step(keys, "d", 1) == "d" and model.step([], None, 1) is None
    assert model.current_key(keys, "zz", {"a"}) == "b" and model.current_key(keys, "c", set()) == "c"
    assert model.current_key(keys, None, set(keys)) == "a" and model.current_key([], None, set()) is None


def test_the_position_line_says_where_and_what_is_left() -> None:
    text = model.position_html(["a", "b", "c"], "b", {"a"}, None)
    assert 'data-index="2" data-total="3" data-left="2"' in text and "2 of 3" in text and "not labelled by you" in text
    mine = label("speech_act_eslint", "partial")
    assert 'data-your-label="partial"' in model.position_html(["a"], "a", {"a"}, mine)


def test_a_reviewer_s_label_of_an_item_needs_the_same_output_when_it_is_known() -> None:
    found = label("speech_act_eslint", "partial")
    mine = model.mine([found, label("speech_act_eslint", "answerable", "bob")], "ann")
    item = _item("x", eid=found.evaluation_id)
    assert model.label_of(item, mine) == found, "a stored run's output is known only once opened"
    assert model.label_of(item, mine, "0" * 64) is None
    assert model.label_of(_item("y", eid=found.evaluation_id, sha=found.assessment_sha256), mine) == found
    assert model.mine([found], None) == {}


def test_a_new_label_is_stamped_now_with_a_clean_note() -> None:
    made = model.new_label(evaluation_id="a" * 64, assessment_sha256="b" * 64, reviewer="ann",
                           verdict=AnswerabilityVerdict.CONFLICTING, note="  both dates  ", wrong=[3, 1, 3])
    assert made.note == "both dates" and made.requirements_wrong == (1, 3)
    assert made.labelled_at.tzinfo is not None
    assert "1–4 label" in model.shortcuts_html()
