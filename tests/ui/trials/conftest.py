"""Trial results the Trials page's pure modules are tested on: the published upstream run, a run of ours with
error samples, the golden run over the shipped dataset (every action, citation errors, two error kinds) and the
shipped example result."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from answerlens import AnswerabilityConfig
from answerlens.engine.runner import run_trial
from answerlens.second_opinion.models import SecondOpinion
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.trials.dataset import load_dataset
from answerlens.trials.log import UpstreamSample
from answerlens.trials.reader import parse_trial, read_trial
from answerlens.trials.result import TrialResult
from answerlens.ui.trials.opinions import OPINION_FIELD
from tests.oracle_server import judgement, oracle_server
from tests.paths import FIXTURES, PRME, SAMPLES
from tests.second_opinion.builders import replayed

UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
EXAMPLE = SAMPLES / "trials" / "example" / "result.json"


@pytest.fixture(scope="session")
def upstream() -> TrialResult:
    return read_trial(UPSTREAM)


@pytest.fixture(scope="session")
def example() -> TrialResult:
    """The shipped example: questions.json × 2 with hand-written replies (sample_bundles/trials/example)."""
    return read_trial(EXAMPLE)


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


LABELS: dict[str, str] = {
    "second_opinion_plan_as_fact": "unanswerable",  # a plan cited as the fact: an unsafe answer, flagged
    "second_opinion_superseded_region": "unanswerable",  # a superseded record for the present: flagged
    "speech_act_eslint": "unanswerable",  # abstains: nothing to catch
    "superseded_database_timeline": "answerable",  # a correct answer about the past: stays unflagged
    "answerable_billing_database": "answerable",
}
"""Shipped sample bundles with recorded replies, labelled as the trial dataset labels their own questions."""


def _upstream(name: str, opinion: SecondOpinion | None) -> UpstreamSample:
    """An upstream-style sample (unknown fields are kept) carrying a real assessment and, as JSON, its opinion."""
    _, _, assessment = replayed(name)
    data: dict[str, Any] = {"question_id": name, "repeat": 0, "assessment": assessment.model_dump(mode="json"),
                            "question_type": "abstention" if LABELS[name] == "unanswerable" else "single_fact"}
    if opinion is not None:
        data[OPINION_FIELD] = opinion.model_dump(mode="json")
    return UpstreamSample.model_validate(data)


async def _opinion(name: str) -> SecondOpinion:
    item, bundle, assessment = replayed(name)
    return await second_opinion_for(assessment, bundle, item.question)


@pytest.fixture(scope="session")
def opinionated() -> list[UpstreamSample]:
    """Every labelled sample with its recorded reply and its real second opinion, stored on the sample."""
    return [_upstream(name, asyncio.run(_opinion(name))) for name in LABELS]
