"""The Inspect page's background assessment (no streamlit): how it ends, how it is cancelled, how a stage reads."""

from __future__ import annotations

import pytest

from answerlens import AnswerabilityConfig, load_bundle
from answerlens.providers.engine import CallProgress, Stage
from answerlens.ui.common.job import Job
from answerlens.ui.common.runner import Run
from answerlens.ui.common.sources import Source
from answerlens.ui.inspect import job
from tests.paths import PRME
from tests.scripted_server import CACHE_REPLY, ScriptedServer, llamacpp_events, pieces, sse

BUNDLE_PATH = PRME / "bundles" / "bundle_reader_citations.json"


def source() -> Source:
    return Source(name="PRME reader", bundle=load_bundle(BUNDLE_PATH))


def config(server: ScriptedServer) -> AnswerabilityConfig:
    return AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, max_retries=0,
                               timeout=10)


def test_a_job_ends_with_its_assessment_and_its_last_stage(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", sse(llamacpp_events(pieces(CACHE_REPLY))))
    running = job.start(config(scripted_server), source(), "What cache does the dashboard API use?", None)
    assert running.job.wait(30)
    assert running.run is not None and running.run.assessment is not None
    assert running.job.progress is not None and running.job.progress.stage == Stage.CHECKING


def test_a_job_cancelled_before_its_call_ends_as_a_cancel_that_names_the_stage(scripted_server: ScriptedServer) -> None:
    interrupted: Job[CallProgress, Run] = Job(name="assess", interrupt=True)
    interrupted.cancel()  # before its loop exists: the work is never called
    interrupted._run(lambda report, cancel: pytest.fail("the model was called"))
    running = job.AssessJob(config(scripted_server), source(), "Which cache?", None, interrupted)
    assert running.run is not None and running.run.failure is not None
    assert running.run.failure.kind == "cancelled" and "preparing the request" in running.run.failure.message
    assert scripted_server.requests_to("/v1/chat/completions") == []


@pytest.mark.parametrize(
    "progress, words",
    [
        pytest.param(None, "preparing the request", id="not_sent"),
        pytest.param(CallProgress(Stage.SENT), "waiting for the server", id="sent"),
        pytest.param(CallProgress(Stage.PROMPT, prompt_tokens=1250, prompt_done=0), "reading the prompt (1,250 tokens)",
                     id="prompt"),
        pytest.param(CallProgress(Stage.GENERATING, prompt_tokens=773), "prompt processed (773 tokens), waiting for "
                     "the first token", id="prompt_done"),
        pytest.param(CallProgress(Stage.GENERATING, prompt_tokens=773, generated=120),
                     "prompt processed (773 tokens); 120 tokens generated", id="generating"),
        pytest.param(CallProgress(Stage.SENT, attempt=2), "waiting for the server (re-ask 1)", id="re_ask"),
        pytest.param(CallProgress(Stage.CHECKING, generated=300), "checking the reply", id="checking"),
    ],
)
def test_describe(progress: CallProgress | None, words: str) -> None:
    assert job.describe(progress) == words


def test_a_job_can_bring_the_second_opinion(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/v1/chat/completions", sse(llamacpp_events(pieces(CACHE_REPLY))))
    running = job.start(config(scripted_server), source(), "What cache does the dashboard API use?", None,
                        second_opinion=True)
    assert running.job.wait(30)
    assert running.run is not None and running.run.assessment is not None and running.run.opinion is not None
    opinion = running.run.opinion
    assert opinion.assessment_evaluation_id == running.run.assessment.evaluation_id
    assert len(opinion.requirements) == len(running.run.assessment.requirements)
