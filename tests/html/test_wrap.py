"""Break opportunities in the context: after punctuation inside a run, never inside a word."""

from __future__ import annotations

import html

import pytest

from answerlens.html.wrap import breakable


@pytest.mark.parametrize("text, expected", [
    pytest.param("session-store", "session-<wbr>store", id="hyphen"),
    pytest.param('{"id":"m1","text":"a b"}', '{&quot;id&quot;:<wbr>&quot;m1&quot;,<wbr>&quot;text&quot;:<wbr>&quot;a b&quot;}',
                 id="json"),
    pytest.param("a/b.c", "a/<wbr>b.<wbr>c", id="path"),
    pytest.param("end. Next", "end. Next", id="before_a_space"),
    pytest.param("sessionstore", "sessionstore", id="a_word_stays_whole"),
    pytest.param("<b>x</b>", "&lt;b&gt;x&lt;/<wbr>b&gt;", id="escaped_piece_by_piece"),
])
def test_breaks_only_after_punctuation(text: str, expected: str) -> None:
    assert breakable(text, lambda s: html.escape(s)) == expected
    assert breakable(text, lambda s: s).replace("<wbr>", "") == text
