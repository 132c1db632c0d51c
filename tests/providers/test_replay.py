"""The replay engine: the recording is the reply, no server is asked, and re-asking it would be pointless."""

from __future__ import annotations

import pytest

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator
from answerlens.recording import Recording, ReplyOrigin
from tests.providers.helpers import BUNDLE, INVALID_STATUS, QUESTION, VALID


async def test_the_recording_is_the_reply_and_labelled_recorded() -> None:
    recording = Recording.of(VALID)
    async with AnswerabilityEvaluator(AnswerabilityConfig(provider="replay"), recording=recording) as evaluator:
        assessment = await evaluator.assess(QUESTION, BUNDLE)
    assert assessment.verdict.value == "answerable"
    metadata = assessment.provider_metadata
    assert (metadata.engine, metadata.base_url, metadata.origin) == ("replay", None, ReplyOrigin.RECORDED)
    assert metadata.response_format == "recorded"


async def test_an_invalid_recording_is_refused_after_one_attempt_whatever_max_retries_says() -> None:
    config = AnswerabilityConfig(provider="replay", max_retries=3)
    async with AnswerabilityEvaluator(config, recording=Recording.of(INVALID_STATUS)) as evaluator:
        with pytest.raises(AnswerabilityError) as info:
            await evaluator.assess(QUESTION, BUNDLE)
    assert info.value.kind == "schema" and "1 attempt(s)" in str(info.value)


async def test_the_replay_provider_without_a_recording_says_how_to_give_one() -> None:
    async with AnswerabilityEvaluator(AnswerabilityConfig(provider="replay")) as evaluator:
        with pytest.raises(AnswerabilityError) as info:
            await evaluator.assess(QUESTION, BUNDLE)
    assert info.value.kind == "no_recording" and "Recording.of" in (info.value.remedy or "")
