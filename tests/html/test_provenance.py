"""How a result's origin is labelled: a recording (hand-written or not), a live model, or no call."""

from __future__ import annotations

import pytest

from answerlens.assessment import AnswerabilityAssessment
from answerlens.html.provenance import RECORDED, is_recorded, source_label
from answerlens.recording import ReplyOrigin
from tests.ui.conftest import recorded, sample


def live(stem: str, base_url: str | None) -> AnswerabilityAssessment:
    assessment = recorded(stem)
    assert assessment.provider_metadata is not None
    meta = assessment.provider_metadata.model_copy(update={"origin": ReplyOrigin.LIVE, "recording": None,
                                                           "base_url": base_url})
    return assessment.model_copy(update={"provider": "ollama", "model": "qwen3.5:9b", "provider_metadata": meta,
                                         "model_called": True})


@pytest.mark.parametrize(
    "stem, label",
    [
        pytest.param("speech_act_eslint", "recorded response (hand-written)", id="hand_written"),
        pytest.param("prme_reader_citations", "recorded response", id="scripted_prme_run"),
    ],
)
def test_recordings_are_labelled_with_their_note(stem: str, label: str) -> None:
    recording = sample(stem).recording(source=f"{stem}.json")
    assert recording is not None
    assert source_label(recorded(stem)) == (label, recording.ref.note)
    assert is_recorded(label)


def test_no_model_call_is_said_plainly() -> None:
    assert source_label(recorded("empty_bundle")) == ("no model call (no citable evidence)", None)


@pytest.mark.parametrize(
    "base_url, label",
    [
        pytest.param("http://127.0.0.1:11434", "live model: ollama qwen3.5:9b at http://127.0.0.1:11434", id="at"),
        pytest.param(None, "live model: ollama qwen3.5:9b", id="no_url"),
    ],
)
def test_live_model_names_engine_and_server(base_url: str | None, label: str) -> None:
    assert source_label(live("answerable_billing_database", base_url)) == (label, None)
    assert not is_recorded(label)


def test_only_the_recorded_prefix_counts() -> None:
    assert is_recorded(RECORDED) and not is_recorded(f"live model: replay {RECORDED}")
