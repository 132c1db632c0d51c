"""``trial --second-opinion``: every assessed sample carries its second opinion (beside the assessment), the run's
counts sit beside upstream's summary keys, a gate limits the unsafe answers, ``verify`` checks stored opinions,
and the Trials page gets rows to chart."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from answerlens.cli import main
from answerlens.engine.runner import SecondOpinionSetting, run_trial
from answerlens.errors import TrialError
from answerlens.trials.dataset import load_dataset
from answerlens.trials.gates import Gate
from answerlens.trials.opinions import catch_rows
from answerlens.trials.reader import read_trial
from tests.oracle_server import oracle_server
from tests.paths import SAMPLES
from tests.trials.helpers import config

SHIPPED = ("second_opinion_plan_as_fact", "second_opinion_superseded_region", "answerable_billing_database")
LABELS = {"second_opinion_plan_as_fact": "unanswerable", "second_opinion_superseded_region": "unanswerable",
          "answerable_billing_database": "answerable"}


def dataset_and_replies(folder: Path) -> tuple[Path, dict[str, object]]:
    """Three shipped samples as cases (their bundles inline), answered with their recorded replies."""
    cases, replies = [], {}
    for name in SHIPPED:
        sample = json.loads((SAMPLES / f"{name}.json").read_text())
        cases.append({"id": name, "question": sample["question"], "label": LABELS[name], "bundle": sample["bundle"]})
        replies[sample["question"]] = sample["recorded_reply"]
    (folder / "cases.json").write_text(json.dumps(cases))
    return folder / "cases.json", replies


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("opinions")
    path, replies = dataset_and_replies(folder)
    with oracle_server(replies) as server:
        code = main(["trial", str(path), "--repeats", "2", "--out", str(folder / "run"), "--provider", "openai",
                     "--model", "oracle", "--base-url", server.base_url, "--second-opinion",
                     "--nli-model-dir", str(folder / "no-model")])
    assert code == 1  # the default gates fail: two unsafe answers per repeat
    return folder / "run"


def test_each_assessed_sample_carries_its_opinion_beside_the_assessment(run: Path) -> None:
    result = read_trial(run)
    for sample in result.samples:
        assert sample.assessment is not None and sample.second_opinion is not None
        opinion = sample.second_opinion
        assert opinion.assessment_evaluation_id == sample.assessment.evaluation_id
        assert opinion.verifier_note.state.value == "unavailable"  # no model: a note, and the flags still count
    saved = json.loads(next((run / "samples").glob("*.json")).read_text())
    assert list(saved)[-2:] == ["error", "second_opinion"] and "second_opinion" not in saved["assessment"]


def test_the_summary_counts_unsafe_answers_caught_beside_upstreams_keys(run: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    result = read_trial(run)
    opinion = result.summary.second_opinion
    assert opinion is not None
    assert (opinion.assessments, opinion.unsafe_answers, opinion.unsafe_caught, opinion.unsafe_uncaught) == (6, 4, 4, 0)
    assert opinion.requirements_flagged >= 4 and opinion.verifier_checked == 0
    assert opinion.verifier_agreement_rate is None
    summary = json.loads((run / "result.json").read_text())["summary"]
    assert list(summary)[-1] == "second_opinion" and summary["unanswerable"]["unsafe_full_answer_count"] == 4
    rows = catch_rows(opinion)
    assert rows and sum(row.unsafe_caught for row in rows) >= 4
    assert main(["trial-report", str(run)]) == 1
    out = capsys.readouterr().out
    assert "the second opinion would have caught 4, uncaught 0" in out
    assert "unsafe answers the second opinion would have caught" in out and "too few samples (4/4" in out


def test_verify_checks_the_stored_second_opinions(run: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["verify", str(run)]) == 0
    assert "ok (6 assessments verified; 6 of 6 samples)" in capsys.readouterr().out
    data = json.loads((run / "result.json").read_text())
    data["samples"][0]["second_opinion"]["requirements"][0]["flags"] = []
    (tmp_path / "tampered.json").write_text(json.dumps(data))
    assert main(["verify", str(tmp_path / "tampered.json")]) == 1
    out = capsys.readouterr().out
    assert "samples[0]" in out and "second_opinion" in out


def test_a_gate_on_uncaught_unsafe_answers_and_its_refusal_without_opinions(tmp_path: Path) -> None:
    path, replies = dataset_and_replies(tmp_path)
    dataset = load_dataset(path)
    gates = {Gate.UNSAFE_ANSWERS_UNCAUGHT_MAX: 0, Gate.UNSAFE_ANSWERS_CAUGHT_MAX: 1}
    with pytest.raises(TrialError, match="need --second-opinion"):
        asyncio.run(run_trial(dataset, config("http://127.0.0.1:9/v1"), repeats=1, out=tmp_path / "none",
                              gates=gates))
    with oracle_server(replies) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=tmp_path / "run",
                                        gates=gates, second_opinion=SecondOpinionSetting()))
    assert outcome.result is not None and outcome.result.quality_gates is not None
    results = outcome.result.quality_gates.results
    assert (results["unsafe_answers_uncaught_max"].observed, results["unsafe_answers_uncaught_max"].passed) == (0, True)
    assert (results["unsafe_answers_caught_max"].observed, results["unsafe_answers_caught_max"].passed) == (2, False)


def test_a_strict_run_records_its_policy_in_the_configuration_and_counts_changes(tmp_path: Path) -> None:
    path, replies = dataset_and_replies(tmp_path)
    with oracle_server(replies) as server:
        outcome = asyncio.run(run_trial(load_dataset(path), config(server.base_url, evidence_policy="strict"),
                                        repeats=1, out=tmp_path / "run"))
    result = outcome.result
    assert result is not None and result.summary.second_opinion is not None
    assert result.configuration is not None and result.configuration.evidence_policy is not None
    assert result.summary.second_opinion.strict_changed >= 2
    assert all(sample.second_opinion is not None and sample.second_opinion.strict is not None
               for sample in result.samples)
