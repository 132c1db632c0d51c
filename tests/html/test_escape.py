"""The one escaping function: HTML-escaped, quotes included, and every control, format, separator and
default-ignorable character (Unicode's whole Default_Ignorable_Code_Point set, Hangul fillers included) shown as
its code point: a tag in HTML, text inside SVG and in widgets."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from html.parser import HTMLParser

import pytest

from answerlens.html.escape import CONTROLS, DEFAULT_IGNORABLE, badged, esc, plain


def _tags(markup: str) -> list[tuple[str, dict[str, str | None]]]:
    found: list[tuple[str, dict[str, str | None]]] = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, dict(attrs)))

    Parser(convert_charrefs=True).feed(markup)
    return found


def test_every_control_format_and_separator_character_is_badged() -> None:
    wanted = [chr(c) for c in range(0x110000)
              if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp") and chr(c) not in "\t\n"]
    text = "".join(wanted)
    assert re.findall(r">U\+([0-9A-F]+)</span>", esc(text)) == [f"{ord(c):04X}" for c in wanted]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("plain text\twith a tab\nand a newline", id="whitespace"),
        pytest.param("مرحبا עברית 日本語 Ünïcödé", id="scripts"),
        pytest.param("emoji 🚀 and math ∑", id="symbols"),
    ],
)
def test_ordinary_text_gets_no_badge(text: str) -> None:
    assert esc(text) == text


def test_quotes_are_escaped_for_attributes() -> None:
    assert esc("\"'<>&") == "&quot;&#x27;&lt;&gt;&amp;"
    (tag,) = _tags(f'<td data-ref="{esc(chr(34) + " x=" + chr(39))}">')
    assert tag[1] == {"data-ref": "\" x='"}


@pytest.mark.parametrize(
    "text, shown",
    [pytest.param("pay \u202eevil\u202c", "pay ⟨U+202E⟩evil⟨U+202C⟩", id="bidi_override"),
     pytest.param("a\u2066b\u2069", "a⟨U+2066⟩b⟨U+2069⟩", id="isolate"),
     pytest.param("zero\u200bwidth\ufeff", "zero⟨U+200B⟩width⟨U+FEFF⟩", id="zero_width"),
     pytest.param("<b>tags stay text</b>\ttab\nline", "<b>tags stay text</b>\ttab\nline", id="not_html")],
)
def test_plain_neutralises_invisible_characters_for_text_widgets(text: str, shown: str) -> None:
    assert plain(text) == shown


LOOK_ALIKES = [
    pytest.param("appr\u034foved", "034F", id="combining_grapheme_joiner"),
    pytest.param("ok\ufe0f", "FE0F", id="variation_selector_16"),
    pytest.param("ok\U000e0100", "E0100", id="variation_selector_17"),
    pytest.param("\u17b4ok", "17B4", id="khmer_vowel_inherent_aq"),
    pytest.param("a\u115fb", "115F", id="hangul_choseong_filler"),
    pytest.param("a\u1160b", "1160", id="hangul_jungseong_filler"),
    pytest.param("a\u3164b", "3164", id="hangul_filler"),
    pytest.param("a\uffa0b", "FFA0", id="halfwidth_hangul_filler"),
    pytest.param("a\u180fb", "180F", id="mongolian_free_variation_selector_4"),
    pytest.param("a\U000e0fffb", "E0FFF", id="last_reserved_default_ignorable"),
]


@pytest.mark.parametrize("text, code", LOOK_ALIKES)
def test_default_ignorable_characters_and_hangul_fillers_are_badged(text: str, code: str) -> None:
    """"approved" and "appr\u034foved" must not look the same, in HTML, in SVG text and in widgets."""
    assert f">U+{code}</span>" in esc(text)
    assert f"⟨U+{code}⟩" in esc(text, svg=True) and "<" not in esc(text, svg=True)
    assert f"⟨U+{code}⟩" in plain(text)


def _perl_default_ignorable() -> list[tuple[int, int]]:
    """The property as Perl's copy of the Unicode Character Database lists it (an inversion list)."""
    perl = shutil.which("perl")
    if perl is None:
        pytest.skip("perl is not installed (its Unicode::UCD is the independent copy of DerivedCoreProperties)")
    script = 'use Unicode::UCD "prop_invlist"; print join(" ", prop_invlist("Default_Ignorable_Code_Point"))'
    bounds = [int(value) for value in subprocess.run([perl, "-e", script], capture_output=True, text=True,
                                                     check=True).stdout.split()]
    return [(low, high - 1) for low, high in zip(bounds[::2], bounds[1::2], strict=True)]


def test_the_default_ignorable_table_is_unicodes_property() -> None:
    assert list(DEFAULT_IGNORABLE) == _perl_default_ignorable()


def test_every_default_ignorable_code_point_is_badged() -> None:
    every = [chr(code) for low, high in DEFAULT_IGNORABLE for code in range(low, high + 1)]
    assert len(every) == 4174
    assert badged("".join(every)) == every


def test_the_control_table_holds_only_what_it_says() -> None:
    for low, high in CONTROLS:
        for code in range(low, high + 1):
            # Cn: format characters assigned after this Python's Unicode (U+13439-1343F in 15.0)
            assert unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp", "Cn"), f"U+{code:04X}"


def test_text_inside_svg_gets_a_text_badge_never_a_tag() -> None:
    assert esc("<q\u202e>", svg=True) == "&lt;q⟨U+202E⟩&gt;"
    assert re.fullmatch(r"[^<>]*", esc("a\u200bb\u3164\U000e0001", svg=True))
