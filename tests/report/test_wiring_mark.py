"""Reports of the bundled SmolLM2 carry the wiring-check mark; reports of any other model do not."""

from __future__ import annotations

import pytest

from answerlens import AnswerabilityConfig, derive_assessment
from answerlens.local_model import WIRING_MARK
from answerlens.verification.report import assessment_report, trial_report
from tests.report.builders import sample, trial


@pytest.mark.parametrize("model, marked", [pytest.param("smollm2", True, id="bundled"),
                                           pytest.param("qwen2.5-7b-instruct", False, id="capable_gguf")])
def test_an_assessment_report_of_the_bundled_model_is_marked(model: str, marked: bool) -> None:
    item = sample("speech_act_eslint")
    bundle = item.load()
    config = AnswerabilityConfig(provider="llamacpp", model=model, base_url="http://127.0.0.1:8080/v1")
    assessment = derive_assessment(item.question, bundle, item.recording().text,  # type: ignore[union-attr]
                                   config=config)
    html = assessment_report(assessment, question=item.question, context=bundle.exact_context)
    assert (WIRING_MARK in html) is marked


def test_a_trial_report_of_the_bundled_model_is_marked() -> None:
    result = trial("questions")
    bundled = result.model_copy(update={"configuration": AnswerabilityConfig(
        provider="llamacpp", model="smollm2", base_url="http://127.0.0.1:8080/v1")})
    assert WIRING_MARK.capitalize() in trial_report(bundled)
    assert WIRING_MARK.capitalize() not in trial_report(result)
