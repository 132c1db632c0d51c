"""The reply formats the app documents, and the example files it links: each replays as the docs say."""

from __future__ import annotations

import asyncio
import json

from answerlens import AnswerabilityConfig, AnswerabilityEvaluator
from answerlens.recording import RecordingMatch, recording_from_text
from answerlens.ui.common import examples
from tests.ui.conftest import sample


def test_the_examples_exist_and_read_as_the_docs_say() -> None:
    raw, bound = (path.read_text() for path in examples.EXAMPLES.values())
    assert recording_from_text(raw).ref.match == RecordingMatch.UNBOUND
    recording = recording_from_text(bound)
    assert recording.ref.match == RecordingMatch.BOUND and recording.restorable is not None
    assert json.loads(recording.text) == json.loads(raw)


def test_the_bound_example_replays_for_its_sample() -> None:
    found = sample("answerable_billing_database")
    recording = recording_from_text(examples.EXAMPLES["Example recording (bound to its inputs)"].read_text())

    async def run():  # type: ignore[no-untyped-def]
        async with AnswerabilityEvaluator(AnswerabilityConfig(provider="replay"), recording=recording) as evaluator:
            return await evaluator.assess(found.question, found.load(), answer=found.answer)

    assert asyncio.run(run()).verdict.value == found.expected.verdict


def test_the_format_text_names_both_kinds_and_the_limit() -> None:
    html = examples.reply_format_html()
    for words in ("A raw reply", "unbound recording", "A recording", "assessment JSON", "50 MB",
                  "docs/examples/reply.json"):
        assert words in html


def test_the_example_bundle_is_the_one_the_example_recording_answers() -> None:
    from answerlens.audit import sha256_text
    from answerlens.ui.common import sources

    source = sources.from_path(examples.BUNDLE_EXAMPLE)
    recording = recording_from_text(examples.EXAMPLES["Example recording (bound to its inputs)"].read_text())
    assert recording.ref.binding is not None
    assert sha256_text(source.context) == recording.ref.binding.context_sha256
    html = examples.bundle_format_html()
    assert "simple format" in html and "50 MB" in html and "docs/examples/bundle.json" in html
