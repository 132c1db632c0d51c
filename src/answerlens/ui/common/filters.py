"""A filterable table (pure, no streamlit): search, facets, sorting and exports of the visible rows; drawn by
``filters_view``.

A ``TableSpec`` says what a table can be searched and filtered by; a ``TableFilter`` is what the user chose. The
page draws the widgets from both (``filters_view``) and shows ``apply``'s frame, so what is exported as CSV or
JSON is what is on screen, in the same order.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from answerlens.html.escape import plain
from answerlens.ui.common.exports import cell


@dataclass(frozen=True)
class Facet:
    """A filter by the values of one or more columns: a row passes when any of them holds an allowed value."""

    label: str
    columns: tuple[str, ...]
    separator: str | None = None
    """Cells that hold several values (``"status, citations"``, ``"answer abstain"``) are split on it."""
    ignored: tuple[str, ...] = ()
    """Values never offered (a placeholder such as ``·`` for a repeat with no sample)."""


@dataclass(frozen=True)
class TableSpec:
    search_columns: tuple[str, ...]
    """Searched case-insensitively; every word of the search must occur in one of them."""
    facets: tuple[Facet, ...] = ()


@dataclass(frozen=True)
class TableFilter:
    search: str = ""
    allowed: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Per facet label, the values kept; a facet left out (or empty) keeps every row."""
    sort_by: str | None = None
    descending: bool = False


MISSING = "(none)"
"""How an empty cell is offered and matched in a facet (an error kind of a sample that has none)."""


def _values(value: Any, separator: str | None) -> list[str]:
    if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
        return [MISSING]
    text = str(value)
    parts = [part.strip() for part in text.split(separator)] if separator else [text]
    return [part for part in parts if part] or [MISSING]


def facet_values(frame: pd.DataFrame, facet: Facet) -> list[str]:
    """The values a facet offers: every value in its columns, sorted, with ``(none)`` last."""
    found: set[str] = set()
    for column in facet.columns:
        for value in frame[column]:
            found.update(_values(value, facet.separator))
    found -= set(facet.ignored)
    return sorted(found - {MISSING}) + ([MISSING] if MISSING in found else [])


def _facet_mask(frame: pd.DataFrame, facet: Facet, allowed: frozenset[str]) -> pd.Series:
    mask = pd.Series(False, index=frame.index)
    for column in facet.columns:
        mask |= frame[column].map(lambda value: any(part in allowed for part in _values(value, facet.separator)))
    return mask


def _search_mask(frame: pd.DataFrame, columns: Sequence[str], search: str) -> pd.Series:
    text = frame[list(columns)].astype("string").fillna("").agg(" ".join, axis=1).str.casefold()
    mask = pd.Series(True, index=frame.index)
    for word in search.casefold().split():
        mask &= text.str.contains(word, regex=False)
    return mask


def apply(frame: pd.DataFrame, spec: TableSpec, choice: TableFilter) -> pd.DataFrame:
    """The rows that pass the search and every facet, sorted as chosen (ties keep the table's order)."""
    mask = pd.Series(True, index=frame.index)
    if choice.search.strip():
        mask &= _search_mask(frame, spec.search_columns, choice.search)
    for facet in spec.facets:
        allowed = choice.allowed.get(facet.label)
        if allowed:
            mask &= _facet_mask(frame, facet, allowed)
    visible = frame[mask]
    if choice.sort_by is not None and choice.sort_by in visible.columns:
        visible = visible.sort_values(choice.sort_by, ascending=not choice.descending, kind="stable",
                                      na_position="last")
    return visible.reset_index(drop=True)


def badged_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` for ``st.dataframe``: every invisible, reordering or blank-looking character of a text
    cell shown as its code point (``plain``), as everywhere else on the page; downloads use the frame itself."""
    shown = frame.copy()
    for column in shown.columns:
        if not pd.api.types.is_numeric_dtype(shown[column]):
            shown[column] = shown[column].map(lambda value: plain(value) if isinstance(value, str) else value)
    return shown


def csv_text(frame: pd.DataFrame) -> str:
    """The table as CSV; text a spreadsheet would run as a formula is prefixed with an apostrophe."""
    safe = frame.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):  # text (object, or pandas' string dtype)
            safe[column] = safe[column].map(lambda value: cell(value) if isinstance(value, str) else value)
    return safe.to_csv(index=False)


def json_text(frame: pd.DataFrame) -> str:
    """The table as a JSON list of row objects, keys in column order; an empty cell is ``null``."""
    rows = [{column: _plain(value) for column, value in zip(frame.columns, row, strict=True)}
            for row in frame.itertuples(index=False, name=None)]
    return json.dumps(rows, ensure_ascii=False, indent=1) + "\n"


def _plain(value: Any) -> Any:
    if value is None or value is pd.NA or (isinstance(value, float) and pd.isna(value)):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def shown(visible: int, total: int, noun: str, plural: str | None = None) -> str:
    """``"12 of 66 samples"``, or ``"all 66 samples"`` when nothing is filtered out (``"1 sample"`` alone)."""
    many = plural or f"{noun}s"
    if visible == total:
        return f"{total} {noun if total == 1 else many}" if total <= 1 else f"all {total} {many}"
    return f"{visible} of {total} {noun if total == 1 else many}"
