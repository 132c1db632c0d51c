"""``--out`` names a folder a run will write run.json, result.json, samples/ (and, for a sweep, bundle.json) into:
one that holds files the run did not write, or a run of another kind, is refused before anything is written, its
files untouched; a resumable run of the same kind and manifest is resumed as before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from answerlens.cli import main
from tests.context_server import context_server
from tests.oracle_server import oracle_server
from tests.paths import SAMPLES
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data
from tests.trials.helpers import REPLIES, question_cases, write_dataset


def trial(dataset: Path, out: Path, base_url: str) -> int:
    return main(["trial", str(dataset), "--repeats", "1", "--out", str(out), "--provider", "openai", "--model",
                 "oracle", "--base-url", base_url, "--no-preflight"])


def sweep(bundle: Path, out: Path, base_url: str) -> int:
    return main(["sweep", str(bundle), "-q", QUESTION, "--provider", "openai", "--model", "context-oracle",
                 "--base-url", base_url, "--out", str(out), "--repeats", "1", "--format", "compact",
                 "--no-preflight"])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_sweep_out_dot_refuses_a_folder_holding_the_users_own_bundle_and_result(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The case of the issue: a sample file named bundle.json and a result.json of the user's, in the folder the
    sweep is asked to write into."""
    shutil.copy(SAMPLES / "speech_act_eslint.json", tmp_path / "bundle.json")
    (tmp_path / "result.json").write_text('{"mine": true}\n')
    before = snapshot(tmp_path)
    monkeypatch.chdir(tmp_path)
    with context_server(REQUIREMENTS) as server:
        code = sweep(Path("bundle.json"), Path("."), server.base_url)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "holds files a sweep did not write (bundle.json, result.json)" in err, err
    assert "choose a new or empty --out directory" in err
    assert snapshot(tmp_path) == before and server.calls == 0


def test_trial_out_refuses_a_folder_with_a_foreign_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    out = tmp_path / "elsewhere"
    out.mkdir()
    (out / "result.json").write_text(json.dumps({"kind": "beam-answerability-execution", "samples": []}))
    before = snapshot(out)
    with oracle_server(REPLIES) as server:
        code = trial(dataset, out, server.base_url)
    err = capsys.readouterr().err
    assert code == 2 and "holds files a trial did not write (result.json)" in err, err
    assert snapshot(out) == before


@pytest.mark.parametrize("kind", ["trial_into_sweep", "sweep_into_trial"])
def test_a_run_of_the_other_kind_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases()[:1])
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(bundle_data()))
    out = tmp_path / "run"
    with oracle_server(REPLIES) as oracle, context_server(REQUIREMENTS) as context:
        first = sweep(bundle, out, context.base_url) if kind == "trial_into_sweep" else \
            trial(dataset, out, oracle.base_url)
        assert first in (0, 1)
        before = snapshot(out)
        capsys.readouterr()
        second = trial(dataset, out, oracle.base_url) if kind == "trial_into_sweep" else \
            sweep(bundle, out, context.base_url)
    err = capsys.readouterr().err
    assert second == 2, err
    assert "not the manifest of an answerlens " + ("run" if kind == "trial_into_sweep" else "sweep") in err, err
    assert snapshot(out) == before


def test_an_unrelated_file_is_refused_and_an_interrupted_start_is_not(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases()[:2])
    notes, started = tmp_path / "notes", tmp_path / "started"
    notes.mkdir()
    (notes / "todo.txt").write_text("buy milk\n")
    (started / "samples").mkdir(parents=True)  # a start killed before run.json was written
    (started / ".lock").write_text("")
    with oracle_server(REPLIES) as server:
        assert trial(dataset, notes, server.base_url) == 2
        assert "holds files a trial did not write (todo.txt)" in capsys.readouterr().err
        assert trial(dataset, started, server.base_url) in (0, 1)
        assert trial(dataset, started, server.base_url) in (0, 1)  # and a rerun resumes it
    assert "0 new, 2 resumed" in capsys.readouterr().err
    assert (notes / "todo.txt").read_text() == "buy milk\n" and not (notes / "run.json").exists()


def test_a_dataset_kept_in_its_run_folder_is_the_runs_own(tmp_path: Path) -> None:
    """The Trials page keeps an uploaded dataset in the run folder before the run starts (result.json names it)."""
    out = tmp_path / "run"
    out.mkdir()
    dataset = write_dataset(out / "cases.json", question_cases()[:1])
    with oracle_server(REPLIES) as server:
        assert trial(dataset, out, server.base_url) in (0, 1)
    assert (out / "result.json").exists()
