"""Adversarial variants of invisible characters in the app's tables: a trial's question ids and texts, a stored
run's question, a requirement's text shown in ``st.dataframe`` are badged like every other text on the page
(``plain``), while downloads keep the values as they are."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from answerlens.html.escape import DEFAULT_IGNORABLE, badged
from answerlens.ui.common.filters import badged_frame, json_text

HIDDEN = ["\u034f", "\u200b", "\u2060", "\u2064", "\ufeff", "\u180e", "\U0001d173", "\ufe0f", "\U000e0100",
          "\u17b4", "\u115f", "\u1160", "\u3164", "\u00ad", "\u202e", "\u0007"]


@pytest.mark.parametrize("char", HIDDEN)
def test_every_text_cell_is_badged_for_display_and_downloads_keep_it(char: str) -> None:
    frame = pd.DataFrame([[f"appr{char}oved", f"case{char}1", 3, None, 1.5]],
                         columns=["question", "id", "count", "empty", "latency"])
    shown = badged_frame(frame)
    assert shown.loc[0, "question"] == f"appr⟨U+{ord(char):04X}⟩oved" and not badged(shown.loc[0, "id"])
    assert shown.loc[0, "count"] == 3 and shown.loc[0, "empty"] is None and shown.loc[0, "latency"] == 1.5
    assert list(shown.dtypes) == list(frame.dtypes)
    assert json.loads(json_text(frame))[0]["question"] == f"appr{char}oved"  # the download is the data as it is
    assert frame.loc[0, "question"] == f"appr{char}oved"  # the frame itself is not changed


def test_the_badged_set_is_the_whole_default_ignorable_set() -> None:
    for low, high in DEFAULT_IGNORABLE:
        assert badged(chr(low) + chr(high)) == [chr(low), chr(high)] if low != high else [chr(low)]
