"""The Review page in AppTest: the queue over stored runs with position and what is left, labels stored with the
reviewer, undo, notes kept with the label, the agreement figures, a trial folder as the queue, and the Trials
page's agreement section."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from answerlens.engine.runner import run_trial
from answerlens.review.labels import LabelStore
from answerlens.run_store import RunStore, default_path
from answerlens.trials.dataset import load_dataset
from tests.app.conftest import assert_clean, html, start
from tests.oracle_server import oracle_server
from tests.review.helpers import filled
from tests.trials.helpers import REPLIES, config, question_cases, write_dataset


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> RunStore:
    monkeypatch.setenv("ANSWERLENS_REVIEWER", "ann")
    return filled(default_path())


def _position(at: AppTest) -> tuple[int, int, int]:
    found = re.search(r'data-index="(\d+)" data-total="(\d+)" data-left="(\d+)"', html(at))
    assert found, "the queue says where the reviewer is"
    return int(found[1]), int(found[2]), int(found[3])


def _press(at: AppTest, key: str) -> None:
    at.button(key=key).click().run()
    assert_clean(at)


def test_labelling_moves_on_counts_and_undoes(runs: RunStore) -> None:
    at = start("pages/review.py")
    assert _position(at) == (1, 5, 5)
    assert at.text_input(key="review.reviewer").value == "ann"
    at.text_area(key="review.note").set_value("the plan is not a fact").run()
    _press(at, "review.label.3")
    assert _position(at) == (2, 5, 4), "labelled: on to the next item not labelled"
    [label] = LabelStore(runs).labels()
    assert (label.reviewer, label.verdict.value, label.note) == ("ann", "insufficient", "the plan is not a fact")
    assert 'data-n="1"' in html(at)
    _press(at, "review.label.4")
    assert len(LabelStore(runs).labels()) == 2
    _press(at, "review.undo_button")
    assert _position(at) == (2, 5, 4) and len(LabelStore(runs).labels()) == 1
    _press(at, "review.prev")
    assert _position(at)[0] == 1 and 'data-your-label="insufficient"' in html(at)
    _press(at, "review.next_j")
    assert _position(at)[0] == 2


def test_without_a_reviewer_nothing_can_be_labelled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSWERLENS_REVIEWER", raising=False)
    filled(default_path(), ("conflicting_deploy_freeze",))
    at = start("pages/review.py")
    assert at.button(key="review.label.1").disabled
    assert "Who is reviewing?" in html(at)


def test_a_trial_folder_is_a_queue_and_the_trials_page_measures_it(tmp_path: Path, runs: RunStore,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=tmp_path / "run", preflight=False))
    at = start("pages/review.py")
    at.radio(key="review.kind").set_value("A trial or sweep folder").run()
    at.text_input(key="review.path").set_value(str(tmp_path / "run")).run()
    assert_clean(at)
    assert _position(at) == (1, 6, 6)
    _press(at, "review.label.1")
    _press(at, "review.label.3")
    assert _position(at)[2] == 4
    assert 'data-n="2"' in html(at)
    trials = start("pages/trials.py")
    trials.radio(key="trials.mode").set_value("Open a result").run()
    trials.text_input(key="trials.open_path").set_value(str(tmp_path / "run")).run()
    trials.button(key="trials.open").click().run()
    assert_clean(trials)
    assert 'data-agreement="summary" data-n="2"' in html(trials)
