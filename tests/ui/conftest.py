"""Real assessments for the view-model tests: each sample replayed once through the app's runner."""

from __future__ import annotations

import asyncio
from functools import cache

from answerlens import AnswerabilityConfig
from answerlens.assessment import AnswerabilityAssessment
from answerlens.samples import Sample, load_sample
from answerlens.second_opinion.models import SecondOpinion
from answerlens.ui.common import runner
from tests.paths import SAMPLES


@cache
def sample(stem: str) -> Sample:
    return load_sample(SAMPLES / f"{stem}.json")


@cache
def recorded(stem: str) -> AnswerabilityAssessment:
    """The sample's recorded reply, assessed exactly as the Inspect page assesses it."""
    found = sample(stem)
    config = AnswerabilityConfig(provider="replay", model=found.recorded_model)
    run = runner.assess(config, found.load(), found.question, found.answer,
                        recording=found.recording(source=f"{stem}.json"))
    assert run.assessment is not None, run.failure
    return run.assessment


@cache
def opinion(stem: str) -> SecondOpinion:
    """The second opinion on the sample's recorded assessment, as the Inspect page computes it."""
    found = sample(stem)
    return asyncio.run(runner.opinion_of(recorded(stem), found.load(), found.question, None))
