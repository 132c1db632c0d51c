"""Reports of real data for the report tests: every shipped sample replayed as the app replays it (with its
second opinion where the sample promises one), a generated 500-record history, and the golden trial results."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from answerlens import (
    AnswerabilityAssessment,
    AnswerabilityConfig,
    AnswerabilityEvaluator,
    MemoryBundle,
    derive_assessment,
)
from answerlens.report.embedded import OPEN, encode
from answerlens.samples import Sample, list_samples, load_sample
from answerlens.second_opinion.models import SecondOpinion
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.trials.folder import sample_filename
from answerlens.trials.reader import read_trial
from answerlens.trials.result import TrialResult
from answerlens.verification.report import assessment_report, trial_report
from tests.paths import FIXTURES, PRME, SAMPLES

UNASSESSABLE = {"reader_without_citations"}
"""Samples whose bundle cannot be assessed (the error is the point): they have no report."""
SAMPLE_NAMES = [name for name in list_samples(SAMPLES) if name not in UNASSESSABLE]
OPINION_SAMPLES = [name for name in SAMPLE_NAMES if load_sample(SAMPLES / f"{name}.json").expected.second_opinion]
UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
LARGE_NOISE = {"stable_facts": 110, "recent_decisions": 90, "incidents": 90, "on_call": 80, "conversation": 65,
               "active_tasks": 60}
"""Records per section for the 500-record history (within what the generator can make distinct)."""


@cache
def sample(name: str) -> Sample:
    return load_sample(SAMPLES / f"{name}.json")


@cache
def replayed(name: str) -> tuple[MemoryBundle, AnswerabilityAssessment]:
    """The sample's recorded reply through the replay provider, exactly as the Inspect page assesses it."""
    item = sample(name)
    bundle = item.load(name)
    config = AnswerabilityConfig(provider="replay", model=item.recorded_model)

    async def assess() -> AnswerabilityAssessment:
        async with AnswerabilityEvaluator(config, recording=item.recording(source=f"{name}.json")) as evaluator:
            return await evaluator.assess(item.question, bundle, answer=item.answer)

    return bundle, asyncio.run(assess())


@cache
def opinion_of(name: str) -> SecondOpinion:
    bundle, assessment = replayed(name)
    return asyncio.run(second_opinion_for(assessment, bundle, sample(name).question, policy="strict"))


@cache
def report_of(name: str, *, with_opinion: bool = False) -> str:
    bundle, assessment = replayed(name)
    item = sample(name)
    return assessment_report(assessment, question=item.question, answer=item.answer, context=bundle.exact_context,
                             opinion=opinion_of(name) if with_opinion else None, source=f"{name}.json")


def _make_large() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_large", SAMPLES / "make_large.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def large_sample() -> Sample:
    """A 500-record history made deterministically by ``sample_bundles/make_large.py``."""
    return Sample.model_validate(_make_large().build(LARGE_NOISE))


@cache
def large_report() -> str:
    item = large_sample()
    bundle = item.load("large-500")
    recording = item.recording()
    assert recording is not None
    assessment = derive_assessment(item.question, bundle, recording.text,
                                   config=AnswerabilityConfig(provider="replay", model="hand-written"))
    return assessment_report(assessment, question=item.question, context=bundle.exact_context)


def golden_result(name: str, folder: Path) -> Path:
    """A golden run's result.json (``tests/fixtures/trials``), with a real time where it holds a placeholder."""
    result = json.loads((FIXTURES / "trials" / f"{name}-run.json").read_text(encoding="utf-8"))["result"]
    result["finished_at"] = "2026-01-01T00:00:00+00:00"
    path = folder / name / "result.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@cache
def trial(name: str) -> TrialResult:
    """``questions``, ``drafts`` (our golden runs) or ``upstream`` (the published upstream result)."""
    if name == "upstream":
        return read_trial(UPSTREAM)
    result = json.loads((FIXTURES / "trials" / f"{name}-run.json").read_text(encoding="utf-8"))["result"]
    result["finished_at"] = "2026-01-01T00:00:00+00:00"
    from answerlens.trials.reader import parse_trial

    return parse_trial(result, name)


@cache
def trial_report_of(name: str) -> str:
    return trial_report(trial(name), source=f"{name}.json")


TRIALS = ("questions", "drafts", "upstream")


def embedded(html: str) -> dict[str, Any]:
    from answerlens.report.embedded import extract

    return extract(html)


def unfinished_run(folder: Path, samples: int = 30) -> Path:
    """A run folder without result.json: the golden run's manifest and its first ``samples`` sample files."""
    golden = json.loads((FIXTURES / "trials" / "questions-run.json").read_text(encoding="utf-8"))
    run = folder / "unfinished"
    (run / "samples").mkdir(parents=True)
    (run / "run.json").write_text(json.dumps(golden["run"]), encoding="utf-8")
    for sample_json in golden["result"]["samples"][:samples]:
        name = sample_filename(sample_json["question_id"], sample_json["repeat"])  # the name the runner gives it
        (run / "samples" / name).write_text(json.dumps(sample_json), encoding="utf-8")
    return run


def with_data(html: str, edit) -> str:  # type: ignore[no-untyped-def]
    """The report with its embedded data edited (and re-encoded as a careful forger would)."""
    raw = embedded(html)
    edit(raw)
    start = html.index(OPEN) + len(OPEN)
    end = html.index("</script>", start)
    return html[:start] + encode(raw) + html[end:]
