"""Loading what the app is given: sample files, uploads and pastes, each failure a BundleError."""

from __future__ import annotations

import json

import pytest

from answerlens.errors import BundleError
from answerlens.ui.common import sources
from tests.paths import PRME, SAMPLES


def test_sample_file_brings_its_question_answer_and_reply() -> None:
    source = sources.from_path(SAMPLES / "draft_answer_unsupported_claim.json")
    assert source.sample is not None and source.question == source.sample.question
    assert source.answer and source.recorded_reply is not None
    assert source.context == source.bundle.render().strip()


def test_plain_prme_bundle_has_no_question() -> None:
    data = (PRME / "bundles" / "bundle_auditable.json").read_bytes()
    source = sources.from_bytes(data, "bundle_auditable.json")
    assert source.sample is None and source.question == "" and source.recorded_reply is None
    assert source.title == "bundle_auditable.json"


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param("", "the text is empty", id="empty"),
        pytest.param("/etc/passwd", "invalid JSON", id="path_is_not_read"),
        pytest.param('{"question": "q", "bundle": []}', "$.title", id="bad_sample"),
        pytest.param('"just a string"', "expected a JSON object", id="not_an_object"),
    ],
)
def test_pasted_text_failures(text: str, message: str) -> None:
    with pytest.raises(BundleError, match=None) as caught:
        sources.from_text(text)
    assert message in str(caught.value)


def test_upload_size_limit_is_checked_before_parsing() -> None:
    with pytest.raises(BundleError, match="the limit is 50 MB"):
        sources.from_bytes(b"{" * (50 * 2**20 + 1), "huge.json")


def test_samples_dir_override(tmp_path, monkeypatch) -> None:
    (tmp_path / "one.json").write_text(json.dumps({"records": [{"text": "x"}]}))
    monkeypatch.setenv(sources.SAMPLES_ENV, str(tmp_path))
    directory = sources.samples_dir(SAMPLES.parent)
    assert list(sources.sample_files(directory)) == ["one"]
    assert sources.sample_files(tmp_path / "missing") == {}


def test_a_list_of_records_is_a_bundle() -> None:
    source = sources.from_data([{"text": "The cache is Redis.", "speaker": "Craig"}], "records.json")
    assert source.sample is None and source.bundle.record_count == 1 and "The cache is Redis." in source.context
    assert (source.title, source.question, source.answer) == ("records.json", "", None)


def test_an_upload_with_a_byte_order_mark_loads() -> None:
    data = b"\xef\xbb\xbf" + (SAMPLES / "speech_act_eslint.json").read_bytes()
    source = sources.from_bytes(data, "bom.json")
    assert source.sample is not None and source.title == source.sample.title


def test_an_upload_that_is_not_utf8_names_the_byte() -> None:
    with pytest.raises(BundleError, match="latin.json: not UTF-8 text \\(byte 26\\)"):
        sources.from_bytes(b'{"records": [{"text": "caf\xe9"}]}', "latin.json")


def test_a_reply_file_keeps_its_exact_text() -> None:
    text = '{"requirements": [], "reasoning": "r"}\r\n'
    assert sources.reply_text(text.encode(), "reply.json") == text
    with pytest.raises(BundleError, match="not UTF-8"):
        sources.reply_text(b"\xff", "reply.json")
    with pytest.raises(BundleError, match="the limit is 50 MB"):
        sources.reply_text(b" " * (50 * 2**20 + 1), "reply.json")


def test_sample_labels() -> None:
    source = sources.from_path(SAMPLES / "speech_act_eslint.json")
    assert sources.sample_label("speech_act_eslint", source) == f"{source.title}  ·  speech_act_eslint"
    assert sources.sample_label("broken", BundleError("bad", source="broken.json")) == "broken (cannot be loaded)"


def test_samples_dir_defaults_to_the_apps_folder(monkeypatch) -> None:
    monkeypatch.delenv(sources.SAMPLES_ENV, raising=False)
    assert sources.samples_dir(SAMPLES.parent) == SAMPLES
    assert len(sources.sample_files(SAMPLES)) == len(list(SAMPLES.glob("*.json")))


def test_a_sample_label_shows_invisible_characters_as_codes() -> None:
    from answerlens.ui.common.sources import Source, sample_label

    source = sources.from_data({"title": "t\u202eitle", "description": "d", "question": "q",
                                "bundle": {"records": [{"text": "a"}]}}, "s.json")
    assert isinstance(source, Source)
    assert sample_label("s\u2066tem", source) == "t⟨U+202E⟩itle  ·  s⟨U+2066⟩tem"
