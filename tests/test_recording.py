"""Recorded replies: typed provenance that nothing has to parse back from prose."""

import json

import pytest

from answerlens.assessment import ProviderMetadata
from answerlens.audit import sha256_text
from answerlens.errors import RecordingError, RecordingMismatchError
from answerlens.recording import (
    BindingField,
    Recording,
    RecordingBinding,
    RecordingMatch,
    RecordingRef,
    ReplyOrigin,
    recording_file,
    recording_from_text,
)

BOUND = RecordingBinding.of("Which cache?", "- [m1] \"Redis\"")


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
        pytest.param(RecordingRef(binding=BOUND), "hand-written recorded reply (not produced by a model)", True,
                     id="hand"),
        pytest.param(RecordingRef(author="qwen3.5:9b", source="s.json", binding=BOUND),
                     "recorded reply produced by qwen3.5:9b, from s.json", False, id="model"),
        pytest.param(RecordingRef(author=None, source="raw.json"),
                     "recorded reply (its author is not stated), from raw.json; unbound recording: it does not say "
                     "which question and context it answered", False, id="unstated_unbound"),
        pytest.param(RecordingRef(binding=BOUND, forced=(BindingField.QUESTION, BindingField.CONTEXT)),
                     "hand-written recorded reply (not produced by a model); FORCED replay: recorded for another "
                     "question, context", True, id="forced"),
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
    "dump, message",
    [
        pytest.param({"engine": "replay", "recorded": True}, "contradicts origin", id="recorded_without_origin"),
        pytest.param({"engine": "replay", "recorded": False, "recorded_note": "hand-written"}, "recorded_note",
                     id="a_note_field"),
    ],
)
def test_a_dump_without_its_origin_is_refused(dump: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ProviderMetadata.model_validate(dump)


@pytest.mark.parametrize(
    "question, context, answer, prompt, differs",
    [
        pytest.param("Which cache?", '- [m1] "Redis"', None, None, (), id="same"),
        pytest.param("  Which cache?\n", '- [m1] "Redis"', None, None, (), id="stripped_question_is_the_same"),
        pytest.param("Which queue?", '- [m1] "Redis"', None, None, ("question",), id="question"),
        pytest.param("Which cache?", '- [m1] "Redis"', "Redis.", None, ("draft",), id="draft"),
        pytest.param("Which cache?", '- [m1] "Memcached"', None, None, ("context",), id="context"),
        pytest.param("Which queue?", "", "x", None, ("question", "draft", "context"), id="all_three"),
    ],
)
def test_a_binding_names_what_differs(question: str, context: str, answer: str | None, prompt: str | None,
                                      differs: tuple[str, ...]) -> None:
    actual = RecordingBinding.of(question, context, answer, prompt_version="v1", prompt_sha256="abc")
    assert tuple(field.value for field in BOUND.differences(actual)) == differs


def test_a_binding_to_a_prompt_differs_when_another_prompt_asks() -> None:
    bound = RecordingBinding.of("q", "c", prompt_version="v1", prompt_sha256="abc")
    assert bound.differences(RecordingBinding.of("q", "c", prompt_version="v1", prompt_sha256="abc")) == ()
    assert bound.differences(RecordingBinding.of("q", "c", prompt_version="v2", prompt_sha256="abc")) == (
        BindingField.PROMPT,)
    assert bound.differences(RecordingBinding.of("q", "c", prompt_version="v1", prompt_sha256="def")) == (
        BindingField.PROMPT,)


def test_replaying_for_other_inputs_is_refused_unless_forced() -> None:
    recording = Recording.of('{"reasoning": "r"}', binding=BOUND, question="Which cache?")
    other = RecordingBinding.of("Which queue?", '- [m1] "Redis"')
    with pytest.raises(RecordingMismatchError) as refused:
        recording.replayed_for(other)
    assert refused.value.differences == ("question",) and refused.value.kind == "recording_mismatch"
    assert refused.value.restorable and "restore the recorded question" in str(refused.value)
    forced = recording.replayed_for(other, force=True)
    assert forced.match == RecordingMatch.FORCED and forced.forced == (BindingField.QUESTION,)
    assert recording.replayed_for(BOUND).match == RecordingMatch.BOUND
    unbound = Recording.of('{"reasoning": "r"}', author=None)
    assert unbound.replayed_for(other).match == RecordingMatch.UNBOUND


def test_restorable_only_when_the_carried_question_matches_the_binding() -> None:
    assert Recording.of("{}", binding=BOUND, question=" Which cache? ").restorable == ("Which cache?", None)
    assert Recording.of("{}", binding=BOUND, question="Something else").restorable is None
    assert Recording.of("{}", binding=BOUND).restorable is None


def test_match_is_dumped_and_checked_on_reading() -> None:
    ref = RecordingRef(binding=BOUND, forced=(BindingField.CONTEXT,))
    dumped = ref.model_dump(mode="json")
    assert dumped["match"] == "forced" and RecordingRef.model_validate(dumped) == ref
    dumped["match"] = "bound"
    with pytest.raises(ValueError, match="contradicts"):
        RecordingRef.model_validate(dumped)


def test_a_recording_file_round_trips() -> None:
    recording = Recording.of('{"reasoning": "é"}', author="qwen3.5:9b", binding=BOUND, question="Which cache?")
    text = json.dumps(recording_file(recording))
    read = recording_from_text(text, source="rec.json", source_sha256=sha256_text(text))
    assert read.text == recording.text and read.ref.binding == BOUND and read.ref.author == "qwen3.5:9b"
    assert read.restorable == ("Which cache?", None) and read.ref.source == "rec.json"


def test_an_assessment_file_is_a_recording_bound_by_its_hashes() -> None:
    data = {"evaluation_id": "e", "query_sha256": BOUND.query_sha256, "context_sha256": BOUND.context_sha256,
            "answer_sha256": None, "prompt_version": "v1", "prompt_sha256": "abc", "model": "m",
            "raw_output_text": '{"reasoning": "r"}'}
    from answerlens.audit import provenance, provenance_sha256

    assert recording_from_text(json.dumps(data)).ref.binding is None  # nothing proves it was not replayed
    data["provenance_sha256"] = provenance_sha256(provenance(data))
    read = recording_from_text(json.dumps(data))
    assert read.text == '{"reasoning": "r"}' and read.ref.author == "m"
    assert read.ref.binding == BOUND.model_copy(update={"prompt_version": "v1", "prompt_sha256": "abc"})


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"records": [{"text": "a"}]}', id="simple_bundle"),
        pytest.param('[{"text": "a"}]', id="record_list"),
        pytest.param('{"sections": {}, "rendered_context": ""}', id="prme_bundle"),
        pytest.param('{"question": "q", "bundle": {"records": []}}', id="sample"),
    ],
)
def test_a_bundle_file_is_not_a_recording(text: str) -> None:
    with pytest.raises(RecordingError, match="bundle"):
        recording_from_text(text, source="b.json")


@pytest.mark.parametrize(
    "text", [pytest.param('{"requirements": [], "reasoning": "r"}', id="raw_reply"),
             pytest.param("not json at all", id="not_json")],
)
def test_a_bare_reply_is_kept_exactly_and_unbound(text: str) -> None:
    read = recording_from_text(text, source="raw.json")
    assert read.text == text and read.ref.binding is None and read.ref.match == RecordingMatch.UNBOUND
