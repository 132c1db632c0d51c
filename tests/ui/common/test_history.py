"""The session history: runs numbered in order, one current, each titled for the pickers."""

from __future__ import annotations

import time

import pytest

from answerlens.ui.common import history
from tests.ui.conftest import recorded


def add(state: dict, source: str, stem: str = "speech_act_eslint", **extra: object) -> history.Entry:
    return history.add(state, source=source, question="q", assessment=recorded(stem), context="", label="l",
                       **extra)


def test_an_empty_state_has_no_runs() -> None:
    assert history.entries({}) == [] and history.current({}) is None and history.find({}, 1) is None


def test_add_numbers_runs_and_makes_the_newest_current() -> None:
    state: dict = {}
    first = add(state, "a")
    second = add(state, "b", "conflicting_deploy_freeze")
    assert [e.number for e in history.entries(state)] == [1, 2] and history.current(state) == second
    assert history.find(state, 1) == first and history.find(state, 3) is None


@pytest.mark.parametrize("number, current", [pytest.param(1, 1, id="known"), pytest.param(99, 2, id="unknown")])
def test_select_reopens_a_known_run_only(number: int, current: int) -> None:
    state: dict = {}
    add(state, "a")
    add(state, "b")
    history.select(state, number)
    entry = history.current(state)
    assert entry is not None and entry.number == current


def test_title_names_number_time_verdict_source_and_label() -> None:
    created = time.mktime((2026, 1, 2, 9, 8, 7, 0, 0, -1))
    entry = add({}, "Deploy freeze", "conflicting_deploy_freeze", created=created)
    assert entry.title == "#1 09:08:07 · conflicting · Deploy freeze · l"


def test_entries_is_a_copy() -> None:
    state: dict = {}
    add(state, "a")
    history.entries(state).clear()
    assert len(history.entries(state)) == 1
