"""The Review page's queue, without Streamlit: the keys and their verdicts, filters, where the reviewer is and what
is left, this reviewer's label of an item, and the undo record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from answerlens.html.escape import esc
from answerlens.html.markup import plural
from answerlens.review.labels import Label, now
from answerlens.review.shown import Item
from answerlens.verdict import AnswerabilityVerdict

V = AnswerabilityVerdict
VERDICT_KEYS: tuple[tuple[str, AnswerabilityVerdict, str], ...] = (
    ("1", V.ANSWERABLE, "Answerable"), ("2", V.PARTIAL, "Answer partially"), ("3", V.INSUFFICIENT, "Insufficient"),
    ("4", V.CONFLICTING, "Conflicting"))
"""Key, verdict, button label: what a careful reader says from this context."""
SHORTCUTS = ("1–4 label", "← → or j k move", "u undo", "n note (Esc leaves it)")


@dataclass(frozen=True)
class Filters:
    verdicts: tuple[str, ...] = ()
    """The judge's verdicts to keep (none: all)."""
    sources: tuple[str, ...] = ()
    """Where replies came from (model), to keep (none: all)."""
    since: date | None = None
    """Stored on or after this day (items without a time are kept)."""


def filtered(items: Sequence[Item], filters: Filters) -> list[Item]:
    return [item for item in items
            if (not filters.verdicts or item.judge.value in filters.verdicts)
            and (not filters.sources or item.source in filters.sources)
            and (filters.since is None or item.created is None
                 or datetime.fromtimestamp(item.created).date() >= filters.since)]


def source_options(items: Sequence[Item]) -> list[str]:
    return sorted({item.source for item in items})


def mine(labels: Sequence[Label], reviewer: str | None) -> dict[str, list[Label]]:
    """This reviewer's labels by ``evaluation_id``."""
    found: dict[str, list[Label]] = {}
    for label in labels:
        if label.reviewer == reviewer:
            found.setdefault(label.evaluation_id, []).append(label)
    return found


def label_of(item: Item, labels: dict[str, list[Label]], assessment_sha256: str | None = None) -> Label | None:
    """This reviewer's label of ``item``: same inputs, and the same output where it is known."""
    sha = assessment_sha256 or item.assessment_sha256
    for label in labels.get(item.evaluation_id, []):
        if sha is None or label.assessment_sha256 == sha:
            return label
    return None


def current_key(keys: Sequence[str], wanted: str | None, labelled: set[str]) -> str | None:
    """The item to show: ``wanted`` when it is in the queue, else the first not labelled yet, else the first."""
    if wanted in keys:
        return wanted
    return next((key for key in keys if key not in labelled), keys[0] if keys else None)


def step(keys: Sequence[str], current: str | None, delta: int) -> str | None:
    """The item ``delta`` places away, stopping at either end."""
    if not keys:
        return None
    index = keys.index(current) if current in keys else 0
    return keys[min(max(index + delta, 0), len(keys) - 1)]


def after_labelling(keys: Sequence[str], current: str, labelled: set[str]) -> str:
    """Where labelling moves on to: the next item not labelled yet (wrapping), else the next one."""
    index = keys.index(current) if current in keys else 0
    for key in [*keys[index + 1:], *keys[:index]]:
        if key not in labelled:
            return key
    return step(keys, current, 1) or current


def position_html(keys: Sequence[str], current: str, labelled: set[str], label: Label | None) -> str:
    """Where the reviewer is, what is left, and their label of this item."""
    index = keys.index(current) + 1 if current in keys else 0
    left = sum(key not in labelled for key in keys)
    yours = (f' · your label: <strong data-your-label="{esc(label.verdict.value)}">{esc(label.verdict.value)}'
             "</strong>") if label is not None else ' · <span data-your-label="">not labelled by you</span>'
    return (f'<div data-queue="position" data-index="{index}" data-total="{len(keys)}" data-left="{left}">'
            f"<strong>{index} of {len(keys)}</strong> · {plural(left, 'item')} left to label{yours}</div>")


def shortcuts_html() -> str:
    return ('<div class="al-muted" style="font-size:0.8rem" data-queue="keys">Keys: '
            + " · ".join(f"<kbd>{esc(text)}</kbd>" for text in SHORTCUTS) + " (off while typing)</div>")


def new_label(*, evaluation_id: str, assessment_sha256: str, reviewer: str, verdict: AnswerabilityVerdict,
              note: str, wrong: Sequence[int]) -> Label:
    """A label of what was shown, now, with the note stripped and the wrong requirements sorted."""
    return Label(evaluation_id=evaluation_id, assessment_sha256=assessment_sha256, reviewer=reviewer,
                 labelled_at=now(), verdict=verdict, note=note.strip(), requirements_wrong=tuple(sorted(set(wrong))))


@dataclass(frozen=True)
class Done:
    """One labelling, as undo needs it: the item, the label written, and the label it replaced (None: none)."""

    item_key: str
    written: Label
    before: Label | None
