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
from tests.app.conftest import APP, assert_clean, assess, choose_sample, html, notices, start, use_recorded, verdicts
from tests.run_store.broken_stores import BROKEN, bad_json_row, filled, locked
from tests.small_disk import can_mount, small_disk
from tests.ui.conftest import recorded

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


@contextmanager
def full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The app's data folder on a small disk that is full, its history holding three good runs."""
    if not can_mount():
        pytest.skip("a full disk needs root to mount a small tmpfs (CI runs as root)")
    with small_disk(tmp_path, size="2m") as disk:
        disk.path.mkdir()
        monkeypatch.setenv("ANSWERLENS_DATA_DIR", str(disk.path))
        path = runs.default_path()
        filled(path)
        disk.fill(margin=0)
        yield path


def _any_store(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    return full(tmp_path, monkeypatch) if kind == "full" else broken(kind, monkeypatch)


@pytest.mark.parametrize("kind", [*KINDS, "full"])
def test_a_sweep_link_shows_its_grid_and_one_notice(kind: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """``?sweep=`` keeps each cell's run in the history (for its Inspect link): a history that cannot keep them
    costs the links and one notice, never the grid."""
    with _any_store(kind, tmp_path, monkeypatch) as path:
        at = AppTest.from_file(APP, default_timeout=30)
        at.query_params["sweep"] = "sweep_budget_cut"
        at.switch_page("pages/packing.py").run()
        assert_clean(at)
        page = html(at)
        assert 'data-sweep="sweep_budget_cut"' in page and 'data-action="answer"' in page
        assert len(store_notices(at, path)) == 1, notices(at.main, "warning")


@pytest.mark.parametrize("kind", ["full", "locked", "random_bytes"])
def test_a_run_link_with_a_history_that_cannot_be_used_says_so_once(kind: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    with _any_store(kind, tmp_path, monkeypatch) as path:
        at = AppTest.from_file(APP, default_timeout=30)
        at.query_params["run"] = recorded("speech_act_eslint").evaluation_id
        at.run()
        assert_clean(at)
        found = store_notices(at, path)
        if kind == "full":  # the history is read: the run opens
            assert verdicts(at) == ["insufficient"] and found == []
        else:
            assert len(found) == 1
        fresh = start()  # a new session, no link: a new result is shown, kept or not
        choose_sample(fresh, "answerable_billing_database")
        use_recorded(fresh)
        assess(fresh)
        assert verdicts(fresh) == ["answerable"]
        if kind == "full":
            (notice,) = store_notices(fresh, path)
            assert "cannot be written: the disk is full" in notice and "free space on that disk" in notice
            assert "stored runs are intact" in notice
            assert "delete" not in notice.lower() and "move the file aside" not in notice
