"""Where a line of the context may wrap: at spaces, and after punctuation inside a run of characters (compact and
auditable lines are JSON with no spaces), never inside a word; the page's CSS does not break words."""

from __future__ import annotations

import re
from collections.abc import Callable

BREAK_AFTER = re.compile(r"(?<=[,;:/.\-_)\]}|=&?])(?=\S)")
"""A position after punctuation followed by more text."""


def breakable(text: str, escape: Callable[[str], str]) -> str:
    """``text`` escaped piece by piece, with ``<wbr>`` (a break opportunity, invisible and never copied) after
    punctuation inside a run."""
    return "<wbr>".join(escape(piece) for piece in BREAK_AFTER.split(text))
