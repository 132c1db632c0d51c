"""A filterable table: search box, one multiselect per facet and a sort order above ``st.dataframe``, and
downloads of exactly the rows shown (CSV and JSON)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from answerlens.html.escape import plain
from answerlens.ui.common import filters
from answerlens.ui.common.filters import TableFilter, TableSpec

TABLE_ORDER = "table order"


def table(key: str, frame: pd.DataFrame, spec: TableSpec, *, noun: str, file_stem: str, placeholder: str,
          column_config: Mapping[str, Any] | None = None, styler: Any = None,
          draw: Callable[[pd.DataFrame], object] | None = None) -> pd.DataFrame:
    """Draw the controls, the visible rows and their downloads; return the visible rows.

    ``key`` namespaces every widget (``"trials.samples"`` → ``"trials.samples.search"`` …). ``styler`` (a
    function of the visible frame) may colour it; the downloads always hold the plain values. Text cells are shown
    through ``plain``: an invisible or reordering character in a cell reads as its ``⟨U+XXXX⟩`` badge. ``draw``
    shows the visible rows in place of the sortable ``st.dataframe`` (e.g. as a table that wraps on a phone).
    """
    choice = _controls(key, frame, spec, placeholder)
    visible = filters.apply(frame, spec, choice)
    how = "" if draw is not None else (" · click a column header to sort the view; the downloads follow the order "
                                       "chosen above")
    st.caption(f"{filters.shown(len(visible), len(frame), noun)} shown{how}")
    if draw is not None:
        draw(visible)
    else:
        display = visible.apply(lambda column: column.map(_plain) if pd.api.types.is_string_dtype(column) else column)
        st.dataframe(styler(display) if styler is not None else display, key=f"{key}.table", hide_index=True,
                     width="stretch", column_config=dict(column_config or {}))
    csv_column, json_column = st.columns(2)
    csv_column.download_button(f"Shown {noun}s as CSV", filters.csv_text(visible), f"{file_stem}.csv", "text/csv",
                               key=f"{key}.csv", icon=":material/download:", width="stretch")
    json_column.download_button(f"Shown {noun}s as JSON", filters.json_text(visible), f"{file_stem}.json",
                                "application/json", key=f"{key}.json", icon=":material/download:", width="stretch")
    return visible


def _controls(key: str, frame: pd.DataFrame, spec: TableSpec, placeholder: str) -> TableFilter:
    """The search box, and the facets and sort order in a popover beside it (its label counts the active ones),
    so the table stays next to its title on a phone."""
    search_column, more_column = st.columns([3, 1], vertical_alignment="bottom")
    search = search_column.text_input("Search", key=f"{key}.search", placeholder=placeholder,
                                      help="every word must occur in " + ", ".join(spec.search_columns))
    keys = [f"{key}.{_slug(facet.label)}" for facet in spec.facets]
    active = sum(bool(st.session_state.get(name)) for name in keys)
    active += st.session_state.get(f"{key}.sort", TABLE_ORDER) != TABLE_ORDER
    label = "Filter and sort" + (f" ({active})" if active else "")
    allowed = {}
    with more_column.popover(label, icon=":material/filter_list:", width="stretch"):
        for facet, name in zip(spec.facets, keys, strict=True):
            picked = st.multiselect(facet.label, filters.facet_values(frame, facet), key=name, placeholder="all",
                                    help=f"keep rows whose {' or '.join(facet.columns)} is one of these")
            allowed[facet.label] = frozenset(picked)
        sort_by = st.selectbox("Sort by", [TABLE_ORDER, *frame.columns], key=f"{key}.sort")
        descending = st.toggle("Descending", key=f"{key}.descending", disabled=sort_by == TABLE_ORDER)
    return TableFilter(search=search, allowed=allowed, sort_by=None if sort_by == TABLE_ORDER else sort_by,
                       descending=descending)


def _slug(label: str) -> str:
    return "_".join(label.lower().split())


def _plain(value: Any) -> Any:
    return plain(value) if isinstance(value, str) else value
