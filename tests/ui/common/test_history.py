"""The history the pages see: stored runs, one current per session, each titled by its question."""

from __future__ import annotations

import time

import pytest

from answerlens.html.provenance import source_label
from answerlens.run_store import RunStore
from answerlens.ui.common import history
from tests.ui.conftest import recorded, sample

LABEL = "recorded response (hand-written)"


def add(state: dict, question: str | None = None, stem: str = "speech_act_eslint", **extra: object) -> history.Entry:
    """A sample's run as the Inspect page stores it; ``question`` overrides the stored text (for the titles only:
    such a run does not verify when reopened)."""
    found = sample(stem)
    assert source_label(recorded(stem))[0] == LABEL
    return history.add(state, source=found.title, question=question or found.question, assessment=recorded(stem),
                       context=found.load().exact_context, label=LABEL, **extra)


def test_an_empty_store_has_no_runs() -> None:
    assert history.entries({}) == [] and history.current({}) is None and history.find({}, 1) is None


def test_add_numbers_runs_and_makes_the_newest_current() -> None:
    state: dict = {}
    first = add(state)
    second = add(state, stem="conflicting_deploy_freeze")
    assert [e.number for e in history.entries(state)] == [1, 2] and history.current(state) == second
    assert history.find(state, 1) == first and history.find(state, 3) is None
    assert history.by_id(state, second.evaluation_id) == second and history.by_id(state, "nope") is None


def test_the_same_inputs_are_one_run_and_the_latest_wins() -> None:
    state: dict = {}
    add(state, note="older")
    latest = add(state, note="newer")
    assert [e.number for e in history.entries(state)] == [1] and latest.note == "newer", "same inputs, same #"
    assert history.find(state, 1) == latest and history.find(state, 1).note == "newer"  # type: ignore[union-attr]


def test_a_session_never_takes_another_run_for_its_cleared_one() -> None:
    """Another tab clears the history and stores a new run #1: this session's current run is gone, not that one."""
    mine: dict = {}
    other: dict = {}  # the same store on disk, another browser session
    assert add(mine).number == 1
    history.clear(other)
    fresh = add(other, stem="conflicting_deploy_freeze")
    assert fresh.number == 1 and history.current(mine) is None and history.current(other) == fresh


@pytest.mark.parametrize("number, current", [pytest.param(1, 1, id="known"), pytest.param(99, 2, id="unknown")])
def test_select_reopens_a_known_run_only(number: int, current: int) -> None:
    state: dict = {}
    add(state)
    add(state, stem="conflicting_deploy_freeze")
    history.select(state, number)
    entry = history.current(state)
    assert entry is not None and entry.number == current


def test_title_names_number_time_verdict_question_and_label() -> None:
    created = time.mktime((2026, 1, 2, 9, 8, 7, 0, 0, -1))
    entry = add({}, "Which freeze\ndate holds?", "conflicting_deploy_freeze", created=created)
    assert entry.title == f"#1 09:08:07 · conflicting · Which freeze date holds? · {LABEL}"


def test_title_neutralises_invisible_characters_and_shortens_long_questions() -> None:
    entry = add({}, "pay \u202eevil " + "x" * 200)
    assert "\u202e" not in entry.title and "⟨U+202E⟩" in entry.title and "…" in entry.title


def test_runs_survive_a_new_session_and_are_read_on_demand() -> None:
    add({})
    (entry,) = history.entries({})  # another session: nothing in its state
    assert entry.context == sample("speech_act_eslint").load().exact_context and entry.opinion is None
    assert entry.assessment == recorded("speech_act_eslint") and entry.unchecked == ()


def test_clear_drops_every_run() -> None:
    state: dict = {}
    add(state)
    history.clear(state)
    assert history.entries(state) == [] and history.current(state) is None


def test_a_store_in_the_state_is_used(tmp_path) -> None:  # type: ignore[no-untyped-def]
    state: dict = {history.STORE_KEY: RunStore(tmp_path / "mine.sqlite3")}
    add(state)
    assert (tmp_path / "mine.sqlite3").exists() and len(history.entries(state)) == 1
