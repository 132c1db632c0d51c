"""The one escaping function: every piece of record text, model text or file name passes ``esc`` before it
reaches a page, a report or a chart, so the display cannot lie about what the text holds.

Characters that draw nothing, reorder text or look like a blank are shown as their code point instead:
``<span class=al-ctl>U+202E</span>`` in HTML, the text ``⟨U+202E⟩`` where a tag cannot go (inside SVG
``<text>``, widget labels).
"""

from __future__ import annotations

import html
import re
from typing import Any

DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point property, as the merged ranges of ``DerivedCoreProperties.txt``
(unchanged from Unicode 14.0 to 16.0): what a renderer may draw as nothing at all. It holds the Hangul fillers
(U+115F, U+1160, U+3164, U+FFA0, drawn as blanks), variation selectors (U+FE00–FE0F, U+E0100–E01EF), the
combining grapheme joiner (U+034F), U+17B4/17B5 and the tag characters."""

CONTROLS = (
    (0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0x600, 0x605), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891),
    (0x8E2, 0x8E2), (0x2028, 0x2029), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
)
"""The controls (Unicode Cc but tab and newline), the format characters (Cf) that are not default-ignorable
(prepended number signs, interlinear annotation, Egyptian hieroglyph format controls) and the line and paragraph
separators (Zl, Zp): characters that break or reorder a line, or draw nothing, outside the set above."""

_BADGED = re.compile("[" + "".join(f"\\U{low:08x}-\\U{high:08x}"
                                   for low, high in sorted((*DEFAULT_IGNORABLE, *CONTROLS))) + "]")


def badged(text: str) -> list[str]:
    """Every character of ``text`` that ``esc`` shows as its code point, in order."""
    return _BADGED.findall(text)


def _html_badge(match: re.Match[str]) -> str:
    # No quote characters: the badge stays inert inside a double-quoted attribute as well as in text.
    return f"<span class=al-ctl title=invisible&#32;character>U+{ord(match.group()):04X}</span>"


def _text_badge(match: re.Match[str]) -> str:
    return f"⟨U+{ord(match.group()):04X}⟩"


def esc(value: Any, *, svg: bool = False) -> str:
    """HTML-escape anything (quotes too, since values also land in attributes) and show every invisible,
    reordering or blank-looking character as a visible ``U+XXXX`` badge.

    ``svg``: for text inside an SVG element, where an HTML tag would end the drawing; the badge is text there.
    """
    text = html.escape(str(value), quote=True)
    return _BADGED.sub(_text_badge if svg else _html_badge, text)


def plain(value: Any) -> str:
    """``esc`` for the places that show text, not HTML (widget labels and options, ``st.code``, chart labels):
    every badged character becomes the visible text ``⟨U+XXXX⟩``; nothing else changes."""
    return _BADGED.sub(_text_badge, str(value))
