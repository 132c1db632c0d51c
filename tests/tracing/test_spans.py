"""One ``answerlens.assess`` span per assessment, whichever way it runs: with a second opinion (CLI, the app's
runner) the span carries the opinion's flag codes and the strict outcome, under the attribute names a trial
sample's span uses."""

from __future__ import annotations

import json
from typing import Any

import pytest

from answerlens import AnswerabilityConfig
from answerlens.cli import main
from answerlens.samples import load_sample
from answerlens.tracing import attributes
from answerlens.ui.common import runner
from tests.paths import SAMPLES

PLAN_AS_FACT = SAMPLES / "second_opinion_plan_as_fact.json"
FLAGS = "answerlens.second_opinion.flags"
STRICT_ACTION = "answerlens.second_opinion.strict_action"
STRICT_VERDICT = "answerlens.second_opinion.strict_verdict"


def verdict_span(memory: Any) -> dict[str, Any]:
    """The one ``answerlens.assess`` span finished, as a plain dict of its attributes."""
    found = [span for span in memory.get_finished_spans() if span.name == "answerlens.assess"]
    assert len(found) == 1, [span.name for span in memory.get_finished_spans()]
    return {key: list(value) if isinstance(value, tuple) else value for key, value in found[0].attributes.items()}


def as_trials_record(opinion: Any) -> dict[str, Any]:
    return {key: list(value) if isinstance(value, list) else value
            for key, value in attributes.opinion(opinion).items()}


@pytest.mark.parametrize(("options", "strict"), [
    pytest.param(["--second-opinion"], None, id="second_opinion"),
    pytest.param(["--evidence-policy", "strict"], ("abstain", "insufficient"), id="strict_policy"),
    pytest.param(["--second-opinion", "--prompt-version", "other-tool-v1", "--prompt-sha256", "f" * 64], None,
                 id="other_prompt_identity"),
])
def test_cli_assess_with_a_second_opinion_puts_its_flags_on_the_verdict_span(
        memory_spans: Any, capsys: pytest.CaptureFixture[str], options: list[str],
        strict: tuple[str, str] | None) -> None:
    assert main(["assess", str(PLAN_AS_FACT), "--provider", "replay", "--json", *options]) == 0
    printed = json.loads(capsys.readouterr().out)
    span = verdict_span(memory_spans)

    assert span[FLAGS] == ["speech_act_mismatch"]
    assert span["answerlens.evaluation_id"] == printed["second_opinion"]["assessment_evaluation_id"]
    assert span["answerlens.assessment_sha256"] == printed["second_opinion"]["assessment_sha256"]
    if strict is None:
        assert STRICT_ACTION not in span and STRICT_VERDICT not in span
    else:  # the printed verdict on top is the strict one; the span keeps the model's and adds the strict one
        assert (span[STRICT_ACTION], span[STRICT_VERDICT]) == strict == (printed["recommended_action"],
                                                                         printed["verdict"])
        assert span["answerlens.action"] == "answer"


def test_cli_assess_without_a_second_opinion_has_no_flags(memory_spans: Any,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["assess", str(PLAN_AS_FACT), "--provider", "replay", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    span = verdict_span(memory_spans)
    assert span["answerlens.evaluation_id"] == printed["evaluation_id"]
    assert not any(key.startswith("answerlens.second_opinion") for key in span)


@pytest.mark.parametrize("policy", [pytest.param(None, id="second_opinion"), pytest.param("strict", id="strict")])
def test_the_apps_run_puts_the_second_opinion_on_the_verdict_span(memory_spans: Any, policy: str | None) -> None:
    found = load_sample(PLAN_AS_FACT)
    config = AnswerabilityConfig(provider="replay", model=found.recorded_model, evidence_policy=policy)
    run = runner.assess(config, found.load(), found.question, found.answer, recording=found.recording(),
                        second_opinion=True)
    assert run.assessment is not None and run.opinion is not None, run.failure
    span = verdict_span(memory_spans)

    assert span["answerlens.evaluation_id"] == run.assessment.evaluation_id
    assert span["answerlens.verdict"] == run.assessment.verdict.value
    # The attributes a trial sample's span carries for the same opinion, no more and no fewer.
    assert {key: value for key, value in span.items() if key.startswith("answerlens.second_opinion")} == (
        as_trials_record(run.opinion))
    assert span[FLAGS] == ["speech_act_mismatch"]
    assert (STRICT_ACTION in span) is (policy == "strict")


def test_a_failed_run_with_a_second_opinion_is_one_error_span(memory_spans: Any) -> None:
    found = load_sample(PLAN_AS_FACT)
    config = AnswerabilityConfig(provider="replay", model=found.recorded_model)
    run = runner.assess(config, found.load(), "Another question?", recording=found.recording(), second_opinion=True)
    assert run.failure is not None and run.failure.kind == "recording_mismatch"
    (span,) = [span for span in memory_spans.get_finished_spans() if span.name == "answerlens.assess"]
    assert span.status.status_code.name == "ERROR"
    assert not any(key.startswith("answerlens.second_opinion") for key in span.attributes or {})
