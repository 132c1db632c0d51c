"""What the Trials page computes from a report, and the charts drawn from it (pure)."""

from __future__ import annotations

import asyncio
import json

import pytest

from answerlens import AnswerabilityConfig
from answerlens.trials.runner import load_dataset, run_trial
from answerlens.trials.summary import TrialReport, read_trial
from answerlens.ui.trials import charts as trial_charts
from answerlens.ui.trials import viewmodel as trial_results
from tests.oracle_server import judgement, oracle_server
from tests.paths import PRME

UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"


@pytest.fixture(scope="module")
def upstream() -> TrialReport:
    return read_trial(UPSTREAM)


@pytest.fixture(scope="module")
def with_errors(tmp_path_factory: pytest.TempPathFactory) -> TrialReport:
    """Two questions, two repeats; every call for "Q broken" fails, so its samples are error samples."""
    folder = tmp_path_factory.mktemp("trial")
    bundle = {"records": [{"text": "The API uses Postgres 16."}]}
    cases = [{"id": "ok", "question": "Q ok", "label": "answerable", "bundle": bundle},
             {"id": "broken", "question": "Q broken", "label": "unanswerable", "bundle": bundle}]
    (folder / "cases.json").write_text(json.dumps(cases))
    dataset = load_dataset(folder / "cases.json")
    replies = {"Q ok": judgement(("Database", "supported", ["m1", "m9"])), "Q broken": 500}
    with oracle_server(replies) as server:
        config = AnswerabilityConfig(provider="openai", model="oracle", base_url=server.base_url, timeout=10,
                                     max_retries=0)
        asyncio.run(run_trial(dataset, config, repeats=2, out=folder / "run"))
    return read_trial(folder / "run")


def test_upstream_rows(upstream: TrialReport) -> None:
    refs = trial_results.samples(upstream)
    assert len(refs) == 120 and trial_results.repeats(refs) == 3
    assert refs[0].key == "100K_0_q0_abstention#0" and refs[0].label == "unanswerable"
    rows = trial_results.questions(upstream, refs)
    assert len(rows) == 40 and all(len(row.outcomes) == 3 and None not in row.outcomes for row in rows)
    assert sum(row.citation_errors for row in rows) == upstream.summary["citation_errors"] == 5
    groups = trial_results.outcome_groups(upstream, refs)
    assert dict(groups["unanswerable"]) == upstream.summary["unanswerable"]["actions"]
    assert dict(groups["answerable"]) == upstream.summary["answerable"]["actions"]
    gates = {row.name: (row.observed, row.rule, row.passed) for row in trial_results.gate_rows(upstream.gates)}
    assert gates["ordinary_full_answer_count_min"] == (62, "≥ 86", False)
    assert gates["unsafe_full_answer_count_max"] == (2, "≤ 0", False)


def test_error_samples_are_errors_never_actions(with_errors: TrialReport) -> None:
    refs = trial_results.samples(with_errors)
    broken = [ref for ref in refs if ref.question_id == "broken"]
    assert [(ref.outcome, ref.verdict, ref.error) for ref in broken] == [("error", None, "server_error")] * 2
    assert "ERROR (server_error)" in broken[0].title
    groups = trial_results.outcome_groups(with_errors, refs)
    assert dict(groups["unanswerable"]) == {"error": 2}
    assert with_errors.summary["unanswerable"]["samples"] == 0  # the library does not count them as verdicts
    (bad, ok) = trial_results.questions(with_errors, refs)  # in question order
    assert ok.citation_errors == 2 and ok.matched == ok.agreeing == 1  # m9 is not in the context, both repeats
    assert bad.outcomes == ("error", "error")
    headline = dict((label, value) for label, value, _ in trial_results.headline(with_errors))
    assert headline["Error samples"] == "2" and headline["Samples assessed"] == "2"


def test_charts(upstream: TrialReport, with_errors: TrialReport) -> None:
    refs = trial_results.samples(upstream)
    rows = trial_results.questions(upstream, refs)
    bars = trial_charts.actions_per_label(trial_results.outcome_groups(upstream, refs))
    assert bars.layout.barmode == "stack"
    assert sum(sum(trace.y) for trace in bars.data) == 120
    grid = trial_charts.outcome_grid(rows, refs)
    keys = {point[0] for trace in grid.data for point in trace.customdata}
    assert keys == {ref.key for ref in refs}
    assert {trace.name for trace in grid.data} <= set(trial_charts.OUTCOME_NAMES.values())
    cites = trial_charts.citation_errors(rows)
    assert list(cites.data[0].y) == ["100K_0_q2_contradiction_resolution", "100K_1_q2_contradiction_resolution"]
    assert "38 of 40 questions have none" in cites.layout.title.text
    agreement = trial_charts.requirement_agreement(rows)
    assert sum(sum(trace.x) for trace in agreement.data) == sum(row.requirements for row in rows)

    error_refs = trial_results.samples(with_errors)
    error_grid = trial_charts.outcome_grid(trial_results.questions(with_errors, error_refs), error_refs)
    (errors,) = [trace for trace in error_grid.data if trace.name == "error (no verdict)"]
    assert errors.marker.color == trial_charts.OUTCOME_COLOURS["error"] and len(errors.x) == 2

