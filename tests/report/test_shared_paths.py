"""What is made to be sent (an HTML report, a sweep's run record and exports) names files, never the directories of
the machine that made it; what a resume needs (the trial's dataset path in run.json and result.json) stays local."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from answerlens.cli import main
from answerlens.engine.runner import run_trial
from answerlens.trials.dataset import load_dataset
from tests.context_server import context_server
from tests.oracle_server import oracle_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data
from tests.trials.helpers import REPLIES, config, question_cases, write_dataset


def test_a_trial_report_names_the_dataset_file_not_its_folder(tmp_path: Path) -> None:
    private = tmp_path / "home" / "dana" / "secret-project"
    private.mkdir(parents=True)
    dataset = load_dataset(write_dataset(private / "cases.json", question_cases()[:2]))
    out = tmp_path / "run"
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=out, early_stop=0, preflight=False))
    assert json.loads((out / "result.json").read_text())["dataset"]["path"] == str(private / "cases.json"), \
        "the run folder keeps where its dataset is (trial-merge and the Trials page find it there)"
    report = tmp_path / "trial.html"
    assert main(["report", str(out), "-o", str(report)]) == 0
    html = report.read_text()
    assert "cases.json" in html and "secret-project" not in html and str(tmp_path) not in html
    assert main(["verify", str(report)]) == 0


def test_a_sweep_records_and_reports_the_bundle_file_not_its_folder(tmp_path: Path) -> None:
    private = tmp_path / "home" / "dana" / "secret-project"
    private.mkdir(parents=True)
    bundle = private / "billing.json"
    bundle.write_text(json.dumps(bundle_data()))
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        assert main(["sweep", str(bundle), "-q", QUESTION, "--provider", "openai", "--model", "context-oracle",
                     "--base-url", server.base_url, "--out", str(out), "--repeats", "1", "--format", "compact",
                     "--no-preflight"]) == 0
    assert json.loads((out / "run.json").read_text())["bundle"] == "billing.json"
    report = tmp_path / "sweep.html"
    assert main(["report", str(out), "-o", str(report)]) == 0
    html = report.read_text()
    assert "billing.json" in html and "secret-project" not in html and str(tmp_path) not in html
    assert "secret-project" not in (out / "result.json").read_text()
