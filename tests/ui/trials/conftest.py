"""Trial results the Trials page's pure modules are tested on: the published upstream run, a run of ours with
error samples, and the golden run over the shipped dataset (every action, citation errors, two error kinds)."""

from __future__ import annotations

import asyncio
import json

import pytest

from answerlens import AnswerabilityConfig
from answerlens.trials.dataset import load_dataset
from answerlens.trials.reader import parse_trial, read_trial
from answerlens.trials.result import TrialResult
from answerlens.trials.runner import run_trial
from tests.oracle_server import judgement, oracle_server
from tests.paths import FIXTURES, PRME

UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"


@pytest.fixture(scope="session")
def upstream() -> TrialResult:
    return read_trial(UPSTREAM)


@pytest.fixture(scope="session")
def golden() -> TrialResult:
    """The golden run of ``questions.json`` × 2 (tests/trials/test_result_compat.py)."""
    result = json.loads((FIXTURES / "trials" / "questions-run.json").read_text(encoding="utf-8"))["result"]
    return parse_trial({**result, "finished_at": "2026-01-01T00:00:00+00:00"}, "questions result.json")


@pytest.fixture(scope="session")
def with_errors(tmp_path_factory: pytest.TempPathFactory) -> TrialResult:
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
