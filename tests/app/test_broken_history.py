"""Inspect, Compare and Packing with a run history that cannot be used (AppTest): one notice naming the file and
what to do, the page usable without history, and a new Assess result shown and downloadable though not stored."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from answerlens import run_store as runs
from answerlens.ui.common.history_view import ONE_RUN_TITLE, TITLE
from tests.app.conftest import assert_clean, assess, choose_sample, html, notices, start, use_recorded, verdicts
from tests.run_store.broken_stores import BROKEN, bad_json_row, filled, locked

KINDS = [*BROKEN, "locked"]


@contextmanager
def broken(kind: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The app's own run history (in the test's data folder) broken this way for the block."""
    path = runs.default_path()
    if kind != "locked":
        {**BROKEN, "bad_json_row": bad_json_row}[kind](path)
        yield path
        return
    filled(path)
    monkeypatch.setattr(runs, "LOCK_WAIT_SECONDS", 0.05)
    with locked(path):
        yield path


def store_notices(at: Any, path: Path) -> list[str]:
    found = [text for text in notices(at.main, "warning") if TITLE in text or ONE_RUN_TITLE in text]
    assert all(str(path) in text and "What to do:" in text for text in found), found
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_inspect_shows_one_notice_and_keeps_a_new_result(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with broken(kind, monkeypatch) as path:
        at = start()
        choose_sample(at, "speech_act_eslint")
        use_recorded(at)
        assess(at)
        assert verdicts(at) == ["insufficient"]
        (notice,) = store_notices(at, path)
        assert TITLE in notice and "What to do:" in notice
        assert [b.proto.label for b in at.get("download_button")] == [
            "Assessment", "Requirements", "Raw reply", "Recording", "Download report"]
        assert 'data-run-stored="false"' in html(at)
        at.run()  # a rerun (any widget) keeps the result on screen
        assert_clean(at)
        assert verdicts(at) == ["insufficient"] and len(store_notices(at, path)) == 1


def test_inspect_with_one_unreadable_run_names_it_and_carries_on(monkeypatch: pytest.MonkeyPatch) -> None:
    with broken("bad_json_row", monkeypatch) as path:
        at = start()
        assert store_notices(at, path) == []
        at.selectbox(key="inspect.history").set_value(2).run()
        assert_clean(at)
        (notice,) = store_notices(at, path)
        assert ONE_RUN_TITLE in notice and "Run #2" in notice and "Clear history" in notice
        at.selectbox(key="inspect.history").set_value(3).run()
        assert_clean(at)
        assert verdicts(at) == ["answerable"] and store_notices(at, path) == []


def _compare(at: AppTest) -> None:
    at.switch_page("pages/compare.py").run()


def _packing(at: AppTest) -> None:
    at.switch_page("pages/packing.py").run()
    choose_sample(at, "answerable_billing_database", prefix="packing")


@pytest.mark.parametrize("page", [pytest.param(_compare, id="compare"), pytest.param(_packing, id="packing")])
@pytest.mark.parametrize("kind", KINDS)
def test_compare_and_packing_show_one_notice_and_stay_usable(kind: str, page: Callable[[AppTest], None],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with broken(kind, monkeypatch) as path:
        at = start()
        page(at)
        assert_clean(at)
        assert len(store_notices(at, path)) == 1
        kinds = at.radio[0].options
        assert "A stored run" not in kinds  # no history offered; the rest of the page works
        if page is _compare:
            assert 'data-same-inputs="true"' in html(at)  # the shipped pair
        else:
            assert 'data-format-verdict="compact"' in html(at)


@pytest.mark.parametrize("page, key", [pytest.param(_compare, "compare.B.run", id="compare"),
                                       pytest.param(_packing, "packing.run", id="packing")])
def test_compare_and_packing_name_an_unreadable_run(page: Callable[[AppTest], None], key: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with broken("bad_json_row", monkeypatch) as path:
        at = start()
        page(at)
        if page is _packing:
            at.radio(key="packing.reply_kind").set_value("A stored run").run()
        else:
            at.radio(key="compare.B.kind").set_value("A stored run").run()
        at.selectbox(key=key).set_value(2).run()
        assert_clean(at)
        (notice,) = store_notices(at, path)
        assert "Run #2" in notice
