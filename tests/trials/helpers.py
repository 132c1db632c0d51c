"""Shared by the trial tests: the oracle's replies and a labelled dataset of six questions, the config that asks the
oracle, and the golden run and the upstream result file."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from answerlens import AnswerabilityConfig
from answerlens.engine.runner import TrialOutcome
from answerlens.trials.result import TrialResult
from tests.oracle_server import judgement
from tests.paths import FIXTURES, PRME
from tests.scripted_server import closed_port

BUNDLE = {"records": [{"text": "The API uses Postgres 16."}, {"text": "The cache is Redis 7."}]}
SUPPORTED = judgement(("Database", "supported", ["m1"]))
PARTIAL = judgement(("Database", "supported", ["m1"]), ("Owner", "unsupported", []))
MISSING = judgement(("Owner", "unsupported", []))
MISSING_BAD_CITE = judgement(("Owner", "unsupported", ["m99"]))
CONFLICT = judgement(("Database", "conflicting", ["m1", "m2"]))
REPLIES = {"Q a1": SUPPORTED, "Q a2": PARTIAL, "Q a3": MISSING,
           "Q u1": SUPPORTED, "Q u2": MISSING_BAD_CITE, "Q u3": CONFLICT}
LABELS = {"a1": "answerable", "a2": "answerable", "a3": "answerable",
          "u1": "unanswerable", "u2": "unanswerable", "u3": "unanswerable"}


def write_dataset(path: Path, cases: list[dict]) -> Path:
    path.write_text(json.dumps(cases))
    return path


def question_cases() -> list[dict]:
    return [{"id": case_id, "question": f"Q {case_id}", "label": label, "question_type": "t", "bundle": BUNDLE}
            for case_id, label in LABELS.items()]


def finished(outcome: TrialOutcome) -> TrialResult:
    assert outcome.result is not None, "the run finished and wrote its result"
    return outcome.result


def config(base_url: str, **extra: object) -> AnswerabilityConfig:
    return AnswerabilityConfig(provider="openai", model="oracle", base_url=base_url, timeout=10, max_retries=0,
                               **extra)


def closed_url() -> str:
    """An OpenAI-style base URL on a loopback port nobody listens on."""
    return f"http://127.0.0.1:{closed_port()}/v1"
UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
GOLDEN = json.loads((FIXTURES / "trials" / "questions-run.json").read_text())
PUBLISHED = json.loads(UPSTREAM.read_text())


def ours() -> dict[str, Any]:
    result = copy.deepcopy(GOLDEN["result"])
    result["finished_at"] = "2026-01-01T00:00:00+00:00"
    return result
