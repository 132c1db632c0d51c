"""A sweep's settings: a packing format and a token budget, parsed from what a user types (pure)."""

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
"""Cells of one sweep at most (formats × budgets)."""


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
    """A budget as given, normalised: ``packed``, a whole number of tokens (``"1200"``), or ``"NN%"`` (1–100)."""
    value = str(text).strip().lower()
    if value == PACKED:
        return value
    percent = _PERCENT.fullmatch(value)
    if percent:
        if not 1 <= int(percent.group(1)) <= 100:
            raise ValueError(f"budget {text!r}: a percentage is from 1% to 100% of the packed context's tokens")
        return f"{int(percent.group(1))}%"
    if _TOKENS.fullmatch(value) and int(value) > 0:
        return str(int(value))
    raise ValueError(f"budget {text!r}: expected 'packed', a whole number of tokens from 1 to 999,999,999 (e.g. "
                     "1200) or a percentage of the packed context's tokens (e.g. 50%)")


def budget_tokens(budget: str, packed_tokens: int) -> int | None:
    """The tokens a budget allows: None for ``packed`` (no cut); a percentage of ``packed_tokens``, rounded down."""
    if budget == PACKED:
        return None
    if budget.endswith("%"):
        return packed_tokens * int(budget[:-1]) // 100
    return int(budget)


class Setting(BaseModel):
    """One cell of the grid: a format and a budget (``packed``, tokens, or ``NN%``, normalised)."""

    model_config = STRICT

    format: SweepFormat
    budget: str = Field(min_length=1)

    @property
    def key(self) -> str:
        """The cell's name in a run folder (its samples' ``case_id``)."""
        return f"{self.format.value}@{self.budget}"


def grid(formats: Sequence[str] = (), budgets: Sequence[str] = ()) -> tuple[Setting, ...]:
    """Every format × budget, formats outermost, in the order given (duplicates dropped); no formats means every
    format, no budgets means ``packed``. A bad name is a ``ValueError`` listing the choices."""
    chosen: list[SweepFormat] = []
    for name in formats or [item.value for item in SweepFormat]:
        try:
            fmt = SweepFormat(str(name).strip())
        except ValueError:
            choices = ", ".join(item.value for item in SweepFormat)
            raise ValueError(f"format {name!r}: expected one of {choices}") from None
        if fmt not in chosen:
            chosen.append(fmt)
    parsed: dict[str, None] = {}
    for text in budgets or [PACKED]:
        parsed[parse_budget(text)] = None
        if len(chosen) * len(parsed) > MAX_SETTINGS:  # said at once: a pasted column is not read to its end
            raise ValueError(f"{len(chosen)} formats × {len(parsed)} or more budgets: more than {MAX_SETTINGS} "
                             f"cells; a sweep holds at most {MAX_SETTINGS}")
    return tuple(Setting(format=fmt, budget=budget) for fmt in chosen for budget in parsed)
