"""Regenerate the shipped examples from hand-written replies: the example trial result (``result.json`` here) and
the pair of assessments the Compare page offers (``sample_bundles/compare/``).

The trial is a real ``run_trial`` of ``questions.json`` × 2 repeats through the ``replay`` provider: each call
replays the reply ``replies.json`` holds for that case and repeat (written by a person, labelled hand-written in
every assessment); a ``failure`` entry raises the provider error it describes instead. Nothing calls a model. The
finish time, the wall time and the latencies are fixed, so the files are the same bytes on every run.

The Compare pair is repeat 0 and repeat 1 of ``dashboard-db-cache-craig`` from that trial (the same inputs, two
different replies), each printed as ``answerlens assess --evidence-policy strict --json`` prints it: the
assessment with its second opinion (deterministic flags; the claim verifier is not run).

    .venv/bin/python sample_bundles/trials/example/make_example.py          # from the repository root
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, MemoryBundle, render_bundle
from answerlens.audit import sha256_text
from answerlens.engine.runner import run_trial
from answerlens.evaluator import Answer
from answerlens.recording import HAND_WRITTEN, Recording
from answerlens.records import ContextFormat
from answerlens.second_opinion.document import output_document
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.trials.dataset import load_dataset
from answerlens.trials.reader import read_trial

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent
DATASET = "sample_bundles/trials/questions.json"
"""Relative to the repository root, so the result names it as the app (started there) finds it."""
REPLIES = "sample_bundles/trials/example/replies.json"
RESULT = HERE / "result.json"
COMPARE = ROOT / "sample_bundles" / "compare"
PAIR_CASE = "dashboard-db-cache-craig"
REPEATS = 2
CONFIG = AnswerabilityConfig(provider="replay", model=HAND_WRITTEN)
FIXED = {"latency_ms": 0.0, "wall_seconds": 0.0, "finished_at": "2026-01-01T00:00:00+00:00"}
"""What varies between runs of the same replies, fixed so the files regenerate byte for byte."""


class ReplayByCase:
    """Stands in for ``AnswerabilityEvaluator`` in ``run_trial``: each question gets its case's reply for the
    repeat being asked (calls arrive in repeat order: the run is sequential), replayed as a hand-written
    recording through the real ``replay`` provider and derivation path."""

    def __init__(self, config: AnswerabilityConfig, replies: dict[str, list[dict[str, Any]]],
                 cases: dict[str, str], source_sha256: str) -> None:
        self.config = config
        self.replies = replies
        self.cases = cases
        self.source_sha256 = source_sha256
        self.asked: Counter[str] = Counter()

    async def __aenter__(self) -> ReplayByCase:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def aclose(self) -> None:
        return None

    async def ask(self, query: str, bundle: MemoryBundle, *, answer: str | None = None,
                  progress: object = None) -> Answer:
        case = self.cases[query]
        repeat = self.asked[case]
        self.asked[case] += 1
        planned = self.replies.get(case)
        recording = None  # no reply: the evaluator decides an uncitable bundle without one, and refuses others
        if planned is not None:
            reply = planned[min(repeat, len(planned) - 1)]
            if "failure" in reply:
                raise AnswerabilityError(reply["failure"]["message"], kind=reply["failure"]["kind"])
            recording = Recording.of(raw_reply(reply, bundle), author=HAND_WRITTEN, source=REPLIES,
                                     source_sha256=self.source_sha256)
        async with AnswerabilityEvaluator(self.config, recording=recording) as evaluator:
            return await evaluator.ask(query, bundle, answer=answer)


def json_text(value: Any) -> str:
    """The layout of every run file: two-space indents, non-ASCII kept, a final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def raw_reply(reply: dict[str, Any], bundle: MemoryBundle) -> dict[str, Any]:
    """The reply as a model would send it; reader labels become record ids in an auditable bundle."""
    labels = reader_labels(bundle)
    return {"requirements": [{"requirement": text, "status": status,
                              "evidence_refs": [labels.get(ref, ref) for ref in refs], "explanation": why}
                             for text, status, refs, why in reply["requirements"]],
            "reasoning": reply["reasoning"]}


def reader_labels(bundle: MemoryBundle) -> dict[str, str]:
    if bundle.context_format != ContextFormat.AUDITABLE:
        return {}
    reader = render_bundle(bundle, "reader", context_citations=True)
    return {label: str(memory_id) for label, memory_id in reader.context_references.items()}


def fixed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: FIXED[key] if key in FIXED and item is not None else fixed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [fixed(item) for item in value]
    return value


async def make_result(out: Path) -> dict[str, Any]:
    dataset = load_dataset(DATASET)
    text = (ROOT / REPLIES).read_text(encoding="utf-8")
    replies = json.loads(text)["replies"]
    cases = {item.case.question: item.case.id for item in dataset.cases}
    await run_trial(dataset, CONFIG, repeats=REPEATS, out=out, concurrency=1,
                    evaluator_factory=lambda config, **_: ReplayByCase(  # type: ignore[arg-type, return-value]
                        config, replies, cases, sha256_text(text)))
    return fixed(json.loads((out / "result.json").read_text(encoding="utf-8")))


async def make_pair() -> dict[str, dict[str, Any]]:
    """Both repeats of ``PAIR_CASE`` as ``assess --evidence-policy strict --json`` prints them."""
    result = read_trial(RESULT)
    item = next(item for item in load_dataset(DATASET).cases if item.case.id == PAIR_CASE)
    pair = {}
    for sample in result.samples:
        if sample.question_id == PAIR_CASE and sample.assessment is not None:
            opinion = await second_opinion_for(sample.assessment, item.bundle, item.case.question, policy="strict")
            pair[f"{PAIR_CASE}-repeat-{sample.repeat}.json"] = output_document(sample.assessment, opinion)
    return pair


def main() -> int:
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory(prefix="answerlens-example-") as folder:
        RESULT.write_text(json_text(asyncio.run(make_result(Path(folder) / "run"))), encoding="utf-8")
    COMPARE.mkdir(exist_ok=True)
    for name, document in asyncio.run(make_pair()).items():
        (COMPARE / name).write_text(json_text(document), encoding="utf-8")
    print(f"wrote {RESULT} and the pair in {COMPARE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
