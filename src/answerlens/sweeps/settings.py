"""A sweep's settings: a packing format, a token budget, a retrieval depth and a chunk size, parsed from what a
user types (pure)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from answerlens.records import ContextFormat

STRICT = ConfigDict(frozen=True, extra="forbid")

PACKED = "packed"
"""The budget that keeps the bundle as packed: every record."""
_PERCENT = re.compile(r"0*([0-9]{1,3})%")
_TOKENS = re.compile(r"[0-9]{1,9}")
MAX_SETTINGS = 64
"""Cells of one sweep at most (formats × budgets × depths × chunk sizes)."""
MAX_AXIS_VALUE = 1_000_000
"""Largest ``top_k`` or ``record_tokens``."""


class SweepFormat(StrEnum):
    """How a cell's records are rendered; reader is split by whether its citations are on."""

    READER_CITED = "reader_cited"
    READER_PLAIN = "reader_plain"
    AUDITABLE = "auditable"
    COMPACT = "compact"

    @property
    def context_format(self) -> ContextFormat:
        return ContextFormat.READER if self in (SweepFormat.READER_CITED, SweepFormat.READER_PLAIN) \
            else ContextFormat(self.value)

    @property
    def citations(self) -> bool:
        """``context_citations`` of the rendering (reader only)."""
        return self is SweepFormat.READER_CITED

    @property
    def label(self) -> str:
        return {"reader_cited": "reader, citations on", "reader_plain": "reader, citations off"}.get(
            self.value, self.value)


def parse_budget(text: str) -> str:
    """A budget as given, normalised: ``packed``, a whole number of tokens (``"1200"``; ``"0"`` keeps no record),
    or ``"NN%"`` (1–100)."""
    value = str(text).strip().lower()
    if value == PACKED:
        return value
    percent = _PERCENT.fullmatch(value)
    if percent:
        if not 1 <= int(percent.group(1)) <= 100:
            raise ValueError(f"budget {text!r}: a percentage is from 1% to 100% of the packed context's tokens")
        return f"{int(percent.group(1))}%"
    if _TOKENS.fullmatch(value):
        return str(int(value))
    raise ValueError(f"budget {text!r}: expected 'packed', a whole number of tokens from 0 to 999,999,999 (e.g. "
                     "1200) or a percentage of the packed context's tokens (e.g. 50%)")


def budget_tokens(budget: str, packed_tokens: int) -> int | None:
    """The tokens a budget allows: None for ``packed`` (no cut); a percentage of ``packed_tokens``, rounded down."""
    if budget == PACKED:
        return None
    if budget.endswith("%"):
        return packed_tokens * int(budget[:-1]) // 100
    return int(budget)


def parse_count(text: str | int, axis: str) -> int:
    """A ``top_k`` or ``record_tokens`` value: a whole number from 1 to ``MAX_AXIS_VALUE``."""
    value = str(text).strip()
    if _TOKENS.fullmatch(value) and 1 <= int(value) <= MAX_AXIS_VALUE:
        return int(value)
    raise ValueError(f"{axis} {text!r}: expected a whole number from 1 to {MAX_AXIS_VALUE:,}")


class Setting(BaseModel):
    """One cell of the grid: a format and a budget (``packed``, tokens, or ``NN%``, normalised), and, when given,
    a retrieval depth (``top_k``: the first K records in packed order) and a chunk size (``record_tokens``: each
    record's text cut to its first N tokens). An axis not given is "as packed"."""

    model_config = STRICT

    format: SweepFormat
    budget: str = Field(min_length=1)
    top_k: int | None = Field(default=None, ge=1, le=MAX_AXIS_VALUE)
    record_tokens: int | None = Field(default=None, ge=1, le=MAX_AXIS_VALUE)

    @property
    def key(self) -> str:
        """The cell's name in a run folder (its samples' ``case_id``): ``compact@50%``,
        ``compact@packed@top3@rec40``."""
        return setting_key(self.format.value, self.budget, self.top_k, self.record_tokens)


def setting_key(fmt: str, budget: str, top_k: int | None, record_tokens: int | None) -> str:
    depth = f"@top{top_k}" if top_k is not None else ""
    chunk = f"@rec{record_tokens}" if record_tokens is not None else ""
    return f"{fmt}@{budget}{depth}{chunk}"


def grid(formats: Sequence[str] = (), budgets: Sequence[str] = (), top_k: Sequence[str | int] = (),
         record_tokens: Sequence[str | int] = ()) -> tuple[Setting, ...]:
    """Every format × budget × depth × chunk size, formats outermost, each axis in the order given (duplicates
    dropped); no formats means every format, no budgets ``packed``, no depths or chunk sizes "as packed". A bad
    value is a ``ValueError`` saying what is expected."""
    chosen: list[SweepFormat] = []
    for name in formats or [item.value for item in SweepFormat]:
        try:
            fmt = SweepFormat(str(name).strip())
        except ValueError:
            choices = ", ".join(item.value for item in SweepFormat)
            raise ValueError(f"format {name!r}: expected one of {choices}") from None
        if fmt not in chosen:
            chosen.append(fmt)
    depths: list[int | None] = list(dict.fromkeys(parse_count(value, "top_k") for value in top_k)) or [None]
    chunks: list[int | None] = list(dict.fromkeys(parse_count(value, "record_tokens") for value in record_tokens)) \
        or [None]
    others = len(chosen) * len(depths) * len(chunks)
    parsed: dict[str, None] = {}
    for text in budgets or [PACKED]:
        parsed[parse_budget(text)] = None
        if others * len(parsed) > MAX_SETTINGS:  # said at once: a pasted column is not read to its end
            raise ValueError(f"{len(chosen)} formats × {len(parsed)} or more budgets × {len(depths)} depths × "
                             f"{len(chunks)} chunk sizes: more than {MAX_SETTINGS} cells; a sweep holds at most "
                             f"{MAX_SETTINGS}")
    return tuple(Setting(format=fmt, budget=budget, top_k=depth, record_tokens=chunk)
                 for fmt in chosen for budget in parsed for depth in depths for chunk in chunks)
