"""Span attributes from typed values: the source label, the app link, the second opinion's flags, content only as
OpenInference's capture settings allow."""

from __future__ import annotations

import json

import pytest

from answerlens import AnswerabilityConfig
from answerlens.assessment import ProviderMetadata
from answerlens.recording import BindingField, RecordingBinding, RecordingRef, ReplyOrigin
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.tracing import attributes
from answerlens.tracing.settings import Capture
from tests.second_opinion.builders import replayed

CONFIG = AnswerabilityConfig(provider="openai", model="m", base_url="http://127.0.0.1:9/v1")
BINDING = RecordingBinding(query_sha256="q" * 64, context_sha256="c" * 64)


@pytest.mark.parametrize(("metadata", "label"), [
    pytest.param(None, "no model call", id="no_citable_evidence"),
    pytest.param(ProviderMetadata(engine="openai"), "live", id="live"),
    pytest.param(ProviderMetadata(engine="replay", origin=ReplyOrigin.RECORDED,
                                  recording=RecordingRef(binding=BINDING)), "recorded", id="bound_recording"),
    pytest.param(ProviderMetadata(engine="replay", origin=ReplyOrigin.RECORDED,
                                  recording=RecordingRef(binding=BINDING, forced=(BindingField.QUESTION,))),
                 "forced replay", id="forced"),
    pytest.param(ProviderMetadata(engine="replay", origin=ReplyOrigin.RECORDED, recording=RecordingRef()),
                 "unbound", id="unbound"),
])
def test_source_says_where_the_verdict_came_from(metadata: ProviderMetadata | None, label: str) -> None:
    assert attributes.source(metadata) == label


@pytest.mark.parametrize(("app", "link"), [
    pytest.param(None, None, id="app_unknown"),
    pytest.param("http://127.0.0.1:8501/", "http://127.0.0.1:8501/?run=abc", id="trailing_slash"),
])
def test_run_url_is_the_apps_run_link(app: str | None, link: str | None) -> None:
    assert attributes.run_url(app, "abc") == link


async def test_flags_of_the_second_opinion_are_listed_once() -> None:
    item, bundle, assessment = replayed("second_opinion_plan_as_fact")
    opinion = await second_opinion_for(assessment, bundle, item.question, policy="strict")
    recorded = attributes.opinion(opinion)
    assert recorded["answerlens.second_opinion.flags"] == ["speech_act_mismatch"]
    assert recorded["answerlens.second_opinion.strict_action"] == opinion.strict.recommended_action.value
    assert recorded["answerlens.second_opinion.strict_verdict"] == opinion.strict.verdict.value


def test_hidden_content_stays_out_and_the_verdict_stays_in() -> None:
    _, _, assessment = replayed("answerable_billing_database")
    hidden = Capture.from_env({"OPENINFERENCE_HIDE_OUTPUTS": "true"})
    shown = attributes.assessed(assessment, Capture(), None)
    assert json.loads(str(shown["output.value"]))["verdict"] == assessment.verdict.value
    assert attributes.assessed(assessment, hidden, None) == {
        key: value for key, value in shown.items() if not key.startswith("output.")}


def test_message_text_can_be_hidden_while_roles_remain() -> None:
    capture = Capture.from_env({"OPENINFERENCE_HIDE_INPUT_TEXT": "true"})
    model = attributes.model_call(CONFIG, "openai", "system text", "user text", capture)
    assert model["llm.input_messages.0.message.role"] == "system"
    assert not any(key.endswith("message.content") for key in model)
