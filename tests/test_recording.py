"""Recorded replies: typed provenance that nothing has to parse back from prose."""

import json

import pytest

from answerlens.assessment import ProviderMetadata
from answerlens.audit import sha256_text
from answerlens.recording import HAND_WRITTEN, Recording, RecordingRef, ReplyOrigin


@pytest.mark.parametrize(
    "reply, text",
    [
        pytest.param('{"reasoning": "r"}', '{"reasoning": "r"}', id="text_kept_exactly"),
        pytest.param({"reasoning": "é"}, '{"reasoning": "é"}', id="parsed_kept_non_ascii"),
    ],
)
def test_a_recording_keeps_the_reply_text(reply: object, text: str) -> None:
    recording = Recording.of(reply, source="sample.json")  # type: ignore[arg-type]
    assert recording.text == text
    assert recording.sha256 == sha256_text(text)
    assert json.loads(recording.text) == (reply if isinstance(reply, dict) else json.loads(reply))


@pytest.mark.parametrize(
    "ref, note, hand",
    [
        pytest.param(RecordingRef(), "hand-written recorded reply (not produced by a model)", True, id="hand"),
        pytest.param(RecordingRef(author="qwen3.5:9b", source="s.json"),
                     "recorded reply produced by qwen3.5:9b, from s.json", False, id="model"),
        pytest.param(RecordingRef(author=None, source="raw.json"),
                     "recorded reply (its author is not stated), from raw.json", False, id="unstated"),
    ],
)
def test_the_note_is_built_from_typed_fields(ref: RecordingRef, note: str, hand: bool) -> None:
    assert ref.note == note
    assert ref.hand_written is hand


def test_metadata_dumps_recorded_and_reads_it_back() -> None:
    meta = ProviderMetadata(engine="replay", origin=ReplyOrigin.RECORDED, recording=RecordingRef())
    dumped = meta.model_dump(mode="json")
    assert dumped["recorded"] is True and dumped["origin"] == "recorded"
    assert ProviderMetadata.model_validate(dumped) == meta


def test_a_dump_whose_recorded_flag_contradicts_its_origin_is_refused() -> None:
    dumped = ProviderMetadata(engine="replay", origin=ReplyOrigin.RECORDED).model_dump(mode="json")
    dumped["recorded"] = False
    with pytest.raises(ValueError, match="contradicts origin"):
        ProviderMetadata.model_validate(dumped)


@pytest.mark.parametrize(
    "legacy, origin, author",
    [
        pytest.param({"engine": "replay", "recorded": True,
                      "recorded_note": "hand-written recorded reply (not produced by a model)"},
                     ReplyOrigin.RECORDED, HAND_WRITTEN, id="hand_written"),
        pytest.param({"engine": "ollama", "recorded": False}, ReplyOrigin.LIVE, None, id="live"),
    ],
)
def test_older_dumps_are_read(legacy: dict, origin: ReplyOrigin, author: str | None) -> None:
    meta = ProviderMetadata.model_validate(legacy)
    assert meta.origin == origin
    assert (meta.recording.author if meta.recording else None) == author
