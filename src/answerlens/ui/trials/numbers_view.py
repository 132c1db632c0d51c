"""The Trials page's numbers as metric cards: short labels that fit whole, the details in the help, and a note
under any value that rests on too few samples to rate."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from answerlens.html.trial_rows import Stat

PER_ROW = 3
"""Three cards a row: their labels fit whole at 1280 px with the sidebar open (a phone stacks them)."""


def numbers(stats: Sequence[Stat], per_row: int = PER_ROW) -> None:
    for start in range(0, len(stats), per_row):
        columns = st.columns(per_row)
        for column, stat in zip(columns, stats[start:start + per_row], strict=False):
            column.metric(stat.label, stat.value, delta=stat.note, delta_color="orange", delta_arrow="off",
                          help=stat.help, border=True)
