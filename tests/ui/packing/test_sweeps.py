import csv
import io
from pathlib import Path

import pytest

from answerlens.engine.sweep import run_sweep
from answerlens.run_store import RunStore
from answerlens.ui.packing import sweeps
from tests.context_server import context_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle, config


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("packed, 75%, 1200", ["packed", "75%", "1200"], id="commas"),
    pytest.param(" packed  50% ", ["packed", "50%"], id="spaces"),
    pytest.param("", [], id="empty"),
])
def test_budgets_from_the_text_field(text: str, expected: list[str]) -> None:
    assert sweeps.parse_budgets(text) == expected


@pytest.mark.parametrize("ident", ["../etc", "0123456789AB", "0123", "", "0123456789ab/x"])
def test_a_malformed_or_unknown_id_names_no_folder(tmp_path: Path, ident: str) -> None:
    assert sweeps.folder_for(tmp_path, ident) is None


async def test_plan_store_reopen_and_export(tmp_path: Path) -> None:
    root = tmp_path / "sweeps"
    with context_server(REQUIREMENTS) as server:
        settings = config(server.base_url)
        planned = sweeps.plan(QUESTION, None, bundle(), settings, ["reader_plain", "compact"], ["packed", "90%"], 2,
                              "b.json", root)
        assert (planned.cells, planned.total_cells) == (2, 4)
        assert sweeps.plan(QUESTION, None, bundle(), settings, ["reader_plain", "compact"], ["packed", "90%"], 5,
                           "b.json", root).id != planned.id  # more repeats: another manifest, a folder of its own
        await run_sweep(QUESTION, bundle(), settings, out=planned.out, formats=["reader_plain", "compact"],
                        budgets=["packed", "90%"], repeats=2, bundle_name="b.json")
    [kept] = sweeps.stored(root)
    assert (kept.id, kept.cells, kept.finished) == (planned.id, 4, True)
    path = sweeps.folder_for(root, planned.id)
    assert path == planned.out
    opened = sweeps.open_sweep(path)
    runs = RunStore(tmp_path / "runs.sqlite3")
    links, problem = sweeps.cell_runs(opened, runs, "b.json")
    assert sorted(links) == [2, 3] and problem is None  # the compact cells; reader without citations is not assessed
    assert len(runs.runs()) == 2 and sweeps.cell_runs(opened, runs, "b.json") == (links, None)  # added once
    stored = runs.by_id(links[3])
    assert stored is not None and stored.verdict == "partial"
    assert runs.context(stored.number) == opened.contexts[3] and "Leo Alvarez" not in opened.contexts[3]
    rows = list(csv.DictReader(io.StringIO(sweeps.csv_text(opened.result))))
    assert [row["action"] for row in rows] == ["", "", "answer", "answer_partially"]
    assert rows[0]["reason"].startswith("reader with citations off") and list(rows[0]) == list(sweeps.CSV_COLUMNS)


def test_shipped_examples_open_by_name_beside_stored_sweeps(tmp_path: Path) -> None:
    from tests.paths import SAMPLES

    examples = SAMPLES / "sweeps"
    assert sweeps.folder_for(tmp_path, "sweep_budget_cut", examples) == examples / "sweep_budget_cut"
    assert sweeps.folder_for(tmp_path, "sweep_budget_cut") is None
    assert sweeps.folder_for(tmp_path, "../sweeps", examples) is None
    assert [item.id for item in sweeps.stored(tmp_path, examples)] == ["sweep_budget_cut"]


def test_the_stamp_changes_when_a_sample_or_the_result_is_written(tmp_path: Path) -> None:
    (tmp_path / "samples").mkdir()
    empty = sweeps.stamp(tmp_path)
    (tmp_path / "samples" / "a.json").write_text("{}")
    one = sweeps.stamp(tmp_path)
    (tmp_path / "result.json").write_text("{}")
    assert empty == (0.0, 0) and one[1] == 1 and sweeps.stamp(tmp_path)[1] == 2
