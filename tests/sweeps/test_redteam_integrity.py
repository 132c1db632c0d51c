"""A finished sweep folder edited by hand, or fed samples of another sweep: ``verify`` and the reader catch it."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from answerlens import TrialError
from answerlens.cli import main
from answerlens.engine.sweep import run_sweep
from answerlens.sweeps.reader import read_sweep
from tests.context_server import context_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data, config, verified

OTHER = "Who owns the billing-api schema migrations, and which PostgreSQL version runs in production?"
PACKED = "compact_packed-60fda6cc-r000.json"
"""The first repeat of the ``compact@packed`` cell."""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two finished sweeps of the same bundle and settings: ``a`` (QUESTION) and ``b`` (another question)."""
    root = tmp_path_factory.mktemp("sweeps")

    async def both() -> None:
        with context_server(REQUIREMENTS) as server:
            for name, question in (("a", QUESTION), ("b", OTHER)):
                await run_sweep(question, bundle_data(), config(server.base_url), out=root / name,
                                formats=["compact"], budgets=["packed", "90%"], repeats=2)

    asyncio.run(both())
    return root


def edit(path: Path, change: Callable[[dict], None]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def copy(made: Path, tmp_path: Path) -> Path:
    out = tmp_path / "a"
    shutil.copytree(made / "a", out)
    return out


def caught(out: Path) -> str:
    """What verifying ``out`` found: its problems, or why it refused to read the folder."""
    try:
        return "\n".join(verified(out)[1])
    except TrialError as exc:
        return str(exc)


def test_a_sample_of_another_question_passed_off_as_this_sweeps_is_caught(made: Path, tmp_path: Path) -> None:
    out = copy(made, tmp_path)
    mine = json.loads((out / "samples" / PACKED).read_text())
    foreign = json.loads((made / "b" / "samples" / PACKED).read_text())
    foreign.update(dataset_sha256=mine["dataset_sha256"], latency_ms=mine["latency_ms"])
    (out / "samples" / PACKED).write_text(json.dumps(foreign, indent=2, ensure_ascii=False) + "\n")
    edit(out / "result.json", lambda data: data["cells"][0]["samples"][0].update(
        evaluation_id=foreign["assessment"]["evaluation_id"]))  # the summary made to agree with the swap
    assert "query_sha256" in caught(out)


def test_a_question_edited_in_run_json_and_result_json_is_caught(made: Path, tmp_path: Path) -> None:
    out = copy(made, tmp_path)
    for name in ("run.json", "result.json"):
        edit(out / name, lambda data: data.update(question="Is billing-api safe to delete?"))
    assert "run.json" in caught(out)


def test_a_model_name_edited_in_run_json_is_caught(made: Path, tmp_path: Path) -> None:
    out = copy(made, tmp_path)
    edit(out / "run.json", lambda data: data["configuration"].update(model="gpt-9"))
    assert "configuration" in caught(out)


def test_a_budget_relabelled_in_run_json_is_refused_by_name(made: Path, tmp_path: Path) -> None:
    out = copy(made, tmp_path)
    edit(out / "run.json", lambda data: data["settings"][1].update(budget="<b>half</b>"))
    with pytest.raises(TrialError, match=r"run.json: not the manifest of an answerlens sweep .*budget"):
        read_sweep(out)


def test_a_sample_file_copied_under_another_name_is_not_counted_twice(made: Path, tmp_path: Path) -> None:
    out = copy(made, tmp_path)
    shutil.copy(out / "samples" / PACKED, out / "samples" / "zz-copy.json")
    edit(out / "result.json", lambda data: data["cells"][0].update(actions={"answer": 3}))
    with pytest.raises(TrialError, match="zz-copy.json"):
        read_sweep(out)
    assert main(["verify", str(out)]) != 0


@pytest.mark.parametrize("wall", [pytest.param('"fast"', id="text"), pytest.param("[1]", id="list"),
                                  pytest.param("true", id="boolean"), pytest.param("NaN", id="nan"),
                                  pytest.param("-5", id="negative")])
def test_a_wall_time_that_is_not_seconds_is_a_problem_not_a_crash(made: Path, tmp_path: Path, wall: str) -> None:
    out = copy(made, tmp_path)
    text = (out / "result.json").read_text()
    recorded = json.dumps(json.loads(text)["wall_seconds"])
    (out / "result.json").write_text(text.replace(f'"wall_seconds": {recorded}', f'"wall_seconds": {wall}'))
    assert read_sweep(out).wall_seconds is None
    assert "wall_seconds" in caught(out)


def test_a_report_whose_question_was_replaced_everywhere_does_not_verify(made: Path, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "sweep.html"
    assert main(["report", str(made / "a"), "-o", str(report)]) == 0
    report.write_text(report.read_text().replace(QUESTION, "Is billing-api safe to delete?"))
    capsys.readouterr()
    assert main(["verify", str(report)]) == 1
    assert "sweep_sha256" in capsys.readouterr().out
