"""``result.json`` and the sample files, byte for byte as the dict-based runner wrote them (before/after).

The goldens under ``tests/fixtures/trials/`` were produced by the runner as it was before the typed trial log
(commit 27e2378), with this module's ``produce``. A run goes to the oracle server over real loopback HTTP; the
configured base URL is a fixed one (``FIXED_URL``) and a transport forwards each request to the server's real
port, so every configuration-dependent hash is stable and compared exactly. Only what legitimately varies is
normalised: latencies, the finish time, the wall time and the checkout's absolute path.

Regenerate (only when the file format changes on purpose): ``python -m tests.trials.test_result_compat``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from answerlens import AnswerabilityConfig, AnswerabilityEvaluator
from answerlens.engine.runner import run_trial
from answerlens.trials.dataset import load_dataset
from tests.oracle_server import judgement, oracle_server
from tests.paths import FIXTURES, REPO, SAMPLES

GOLDEN = FIXTURES / "trials"
FIXED_URL = "http://127.0.0.1:9/v1"
"""What the configuration says (and hashes); the transport sends each request to the oracle's real port."""
RUNS = {  # golden name: (dataset, repeats)
    "questions": (SAMPLES / "trials" / "questions.json", 2),
    "drafts": (SAMPLES / "trials" / "drafts.jsonl", 1),
}
VARYING = {"latency_ms": 0.0, "finished_at": "<finished_at>", "wall_seconds": 0.0}
ADDED = {"provenance_sha256"}
"""Fields answerlens writes since the goldens were made (each tested where it is made): left out to compare."""

REPLIES = (
    judgement(("The fact asked for", "supported", ["m1"])),
    judgement(("The fact asked for", "supported", ["m1"]), ("A second part", "unsupported", [])),
    judgement(("The fact asked for", "unsupported", [])),
    judgement(("The fact asked for", "conflicting", ["m1", "m2"])),
    judgement(("The fact asked for", "supported", ["m1", "m99"]), ("A second part", "supported", ["[m2]"])),
    500,
    {"requirements": [], "reasoning": "an invalid reply: no requirements"},
)
"""Cycled over the questions: every action, citation errors, an HTTP failure and a schema failure."""


class _Forward(httpx.AsyncBaseTransport):
    """Sends every request to the oracle server's port, whatever port the URL names."""

    def __init__(self, port: int) -> None:
        self._port = port
        self._inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(port=self._port)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _replies(dataset_path: Path) -> dict[str, Any]:
    questions = sorted({item.case.question for item in load_dataset(dataset_path).cases})
    return {question: REPLIES[index % len(REPLIES)] for index, question in enumerate(questions)}


def _normalise(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: VARYING[key] if key in VARYING and value[key] is not None else _normalise(item)
                for key, item in value.items() if key not in ADDED}
    if isinstance(value, list):
        return [_normalise(item) for item in value]
    if isinstance(value, str):
        return value.replace(str(REPO), "<repo>")
    return value


def produce(dataset_path: Path, repeats: int, out: Path) -> dict[str, Any]:
    """Run the trial; return run.json and result.json, normalised, after checking every sample file holds exactly
    its sample of result.json (so the golden result covers the sample files too)."""
    dataset = load_dataset(dataset_path)
    config = AnswerabilityConfig(provider="openai", model="oracle", base_url=FIXED_URL, timeout=10, max_retries=0)
    with oracle_server(_replies(dataset_path)) as server:
        port = server.server_address[1]
        asyncio.run(run_trial(dataset, config, repeats=repeats, out=out, concurrency=3, preflight=False,
                              evaluator_factory=lambda cfg, **options: AnswerabilityEvaluator(
                                  cfg, transport=_Forward(port), **options)))
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    files = {(question["question_id"], repeat): name for question in result["questions"]
             for repeat, name in enumerate(question["sample_files"])}
    assert sorted(path.name for path in (out / "samples").glob("*.json")) == sorted(files.values())
    for sample in result["samples"]:
        name = files[(sample["case_id"], sample["repeat"])]
        assert (out / "samples" / name).read_text(encoding="utf-8") == \
            json.dumps(sample, indent=2, ensure_ascii=False) + "\n"
    return _normalise({"run": json.loads((out / "run.json").read_text(encoding="utf-8")), "result": result})


def _text(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", list(RUNS))
def test_result_and_sample_files_are_unchanged(name: str, tmp_path: Path) -> None:
    dataset_path, repeats = RUNS[name]
    produced = produce(dataset_path, repeats, tmp_path / "run")
    golden = (GOLDEN / f"{name}-run.json").read_text(encoding="utf-8")
    # Compared as text, so key order counts too.
    assert _text(produced) == golden


def test_the_golden_runs_cover_every_outcome() -> None:
    """The goldens are worth comparing only if they hold every action, citation errors and both error kinds."""
    questions = json.loads((GOLDEN / "questions-run.json").read_text(encoding="utf-8"))["result"]
    summary = questions["summary"]
    actions = {**summary["answerable"]["actions"], **summary["unanswerable"]["actions"]}
    assert set(actions) == {"answer", "answer_partially", "abstain", "surface_conflict"}
    assert summary["citation_errors"] > 0
    assert {error["kind"] for error in summary["errors"]} == {"server_error", "schema"}
    drafts = json.loads((GOLDEN / "drafts-run.json").read_text(encoding="utf-8"))["result"]
    assert set(drafts["summary"]["draft_answers"]) == {"correct", "incorrect"}


if __name__ == "__main__":  # regenerate the goldens
    import tempfile

    GOLDEN.mkdir(parents=True, exist_ok=True)
    for golden_name, (path, count) in RUNS.items():
        with tempfile.TemporaryDirectory() as folder:
            (GOLDEN / f"{golden_name}-run.json").write_text(_text(produce(path, count, Path(folder) / "run")),
                                                           encoding="utf-8")
        print(f"wrote {GOLDEN / f'{golden_name}-run.json'}")
