"""Where a setting cuts a bundle: the one decision of which records a budget keeps, used by the sweep, the Packing
page, ``answerlens render --budget`` and the reports (pure).

A setting keeps the first ``top_k`` records in packed order, cuts each one's text to its first ``record_tokens``
tokens (marked as cut in the context), then keeps records in packed order while the re-rendered context fits the
budget. Labels (``mN``) are the full bundle's, so a record keeps its label whatever the setting. Tokens are counted
as PRME counts them (``answerlens.tokens``: ``cl100k_base`` over the whole rendered context).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from uuid import UUID

from answerlens.records import Candidate, ContextFormat, MemoryBundle
from answerlens.render import context_header, reference_labels, render_bundle, render_record
from answerlens.sweeps.settings import Setting, SweepFormat, budget_tokens
from answerlens.tokens import first_tokens, token_count

CUT_MARK = " [… cut to its first {count} tokens]"
"""Appended to a record's text that ``record_tokens`` cut: what the model reads says the text goes on."""


@dataclass(frozen=True)
class CellContext:
    """One setting applied to a bundle: the context a cell's samples are assessed over, or why there is none."""

    setting: Setting
    budget_tokens: int | None
    """The tokens the budget allows; None for ``packed``."""
    bundle: MemoryBundle
    """The re-rendered bundle (its ``rendered_context`` is what the model is sent)."""
    kept: tuple[UUID, ...]
    cut: tuple[UUID, ...]
    tokens_used: int
    reason: str | None = None
    """Why this cell cannot be assessed (None when it can)."""
    shortened: tuple[UUID, ...] = ()
    """Kept records whose text ``record_tokens`` cut (in packed order)."""
    rendered: bool = True
    """False when the records cannot be rendered in the format at all (``reason`` says why)."""

    @property
    def assessable(self) -> bool:
        return self.reason is None


def packed_tokens(bundle: MemoryBundle) -> int:
    """The packed context's tokens, as PRME counts them: what a percentage budget is a percentage of."""
    return token_count(bundle.render())[0]


def is_as_packed(bundle: MemoryBundle, fmt: SweepFormat) -> bool:
    """Whether ``fmt`` is the format the bundle was packed in (reader: with the same citation setting)."""
    if fmt.context_format != bundle.context_format:
        return False
    return fmt.context_format != ContextFormat.READER or fmt.citations == bool(bundle.context_references)


def narrowed(bundle: MemoryBundle, top_k: int | None,
             record_tokens: int | None) -> tuple[MemoryBundle, tuple[UUID, ...]]:
    """The bundle's first ``top_k`` records in packed order, each text cut to its first ``record_tokens`` tokens
    and marked (``CUT_MARK``); and the records whose text was cut. The bundle itself when neither changes it."""
    sections: dict[str, tuple[Candidate, ...]] = {}
    shortened: list[UUID] = []
    left = top_k if top_k is not None else bundle.record_count
    for name, candidates in bundle.sections.items():
        if left <= 0:
            break
        kept = []
        for candidate in candidates[:left]:
            text = candidate.rendered_text
            if text is not None and record_tokens is not None and (short := first_tokens(text, record_tokens)) != text:
                shortened.append(candidate.node.id)
                candidate = candidate.model_copy(update={"rendered_text": short + CUT_MARK.format(count=record_tokens)})
            kept.append(candidate)
        sections[name] = tuple(kept)
        left -= len(kept)
    if not shortened and sum(map(len, sections.values())) == bundle.record_count:
        return bundle, ()
    return bundle.model_copy(update={"sections": sections}), tuple(shortened)


class Renderings:
    """One bundle's renderings in one format (after its depth and chunk size) by how many records they keep (each
    made once), each record's line (rendered once, whatever the prefix), and the per-line estimate that says where
    a budget falls: shared by the cells of that format, depth and chunk size."""

    def __init__(self, bundle: MemoryBundle, fmt: SweepFormat, top_k: int | None = None,
                 record_tokens: int | None = None) -> None:
        self.original, self.fmt = bundle, fmt
        self.bundle, self.shortened = narrowed(bundle, top_k, record_tokens)
        self.labels = {label: record_id for record_id, label in reference_labels(bundle).items()}
        cited = fmt.context_format == ContextFormat.COMPACT or fmt.citations
        self._line_labels = {record_id: label for label, record_id in self.labels.items()} if cited else None
        self._lines: dict[UUID, str] = {}
        self._made: dict[int, MemoryBundle] = {}
        self._estimates: list[int] | None = None

    def line(self, candidate: Candidate) -> str:
        """``render_record`` of one record in this format, made once."""
        key = candidate.node.id
        if key not in self._lines:
            self._lines[key] = render_record(candidate, context_format=self.fmt.context_format,
                                             labels=self._line_labels)
        return self._lines[key]

    def first(self, count: int) -> MemoryBundle:
        if count not in self._made:
            self._made[count] = _render_first(self, count)
        return self._made[count]

    @property
    def estimates(self) -> list[int]:
        if self._estimates is None:
            self._estimates = _estimates(self)
        return self._estimates


def cell_context(bundle: MemoryBundle, setting: Setting, packed: int | None = None,
                 renderings: Renderings | None = None) -> CellContext:
    """The context of ``setting`` over ``bundle``: the one place that decides which records a setting keeps.
    ``packed`` is ``packed_tokens(bundle)`` (computed when None); ``renderings`` (of the setting's format, depth and
    chunk size) is shared by the cells that have them. Records that cannot be rendered in the format make a cell
    that cannot be assessed, saying why."""
    order = [candidate.node.id for _, candidate in bundle.candidates()]
    packed = packed_tokens(bundle) if packed is None else packed
    limit = budget_tokens(setting.budget, packed)
    try:
        shared = renderings or Renderings(bundle, setting.format, setting.top_k, setting.record_tokens)
        if limit is None and shared.bundle is bundle and is_as_packed(bundle, setting.format):
            kept, rendered = len(order), bundle  # the bundle as packed: exactly what the packer produced
        else:
            kept, rendered = _fit(shared, limit)
    except ValueError as exc:
        nothing = bundle.model_copy(update={"sections": {}, "rendered_context": "", "context_references": {}})
        return CellContext(setting=setting, budget_tokens=limit, bundle=nothing, kept=(), cut=tuple(order),
                           tokens_used=0, reason=f"the records cannot be rendered as {setting.format.label}: {exc}",
                           rendered=False)
    tokens = rendered.tokens_used if rendered is not bundle else packed
    kept_ids = tuple(order[:kept])
    return CellContext(setting=setting, budget_tokens=limit, bundle=rendered, kept=kept_ids,
                       cut=tuple(order[kept:]), tokens_used=tokens,
                       reason=_reason(rendered, kept, len(order), limit, setting),
                       shortened=tuple(record for record in shared.shortened if record in set(kept_ids)))


def contexts_of(bundle: MemoryBundle, settings: Sequence[Setting]) -> tuple[CellContext, ...]:
    """Every setting's context, in the order given (renderings shared by the cells of one format, depth and
    chunk size)."""
    packed = packed_tokens(bundle)
    shared: dict[tuple[SweepFormat, int | None, int | None], Renderings] = {}
    found = []
    for setting in settings:
        key = (setting.format, setting.top_k, setting.record_tokens)
        if key not in shared:
            shared[key] = Renderings(bundle, *key)
        found.append(cell_context(bundle, setting, packed, shared[key]))
    return tuple(found)


def _fit(renderings: Renderings, limit: int | None) -> tuple[int, MemoryBundle]:
    """The most records (a prefix in packed order) whose whole rendering counts at most ``limit`` tokens.

    Every answer is an exact count of a real rendering; a per-line estimate, scaled to the exact count of the
    whole, only says where to look first, and exact renderings gallop out from there to bracket the answer and
    bisect the bracket: a 2,000-record bundle costs a handful of renderings per budget, not a bisection of all."""
    total, render = renderings.bundle.record_count, renderings.first
    full = render(total)
    if limit is None or full.tokens_used <= limit:
        return total, full
    estimates = renderings.estimates
    scale = full.tokens_used / estimates[-1] if estimates[-1] else 1.0
    start = max(0, min(total - 1, bisect_right([value * scale for value in estimates], limit) - 1))
    low, high = _bracket(lambda count: render(count).tokens_used <= limit, start, total)
    if low is None:
        return 0, render(0)  # not even the notice and header fit: nothing is kept
    while high - low > 1:  # render(low) fits, render(high) does not
        middle = (low + high) // 2
        low, high = (middle, high) if render(middle).tokens_used <= limit else (low, middle)
    return low, render(low)


def _bracket(fits: Callable[[int], bool], start: int, total: int) -> tuple[int | None, int]:
    """(a count that fits, a larger one that does not), galloping from ``start``; ``total`` does not fit."""
    step = 1
    if fits(start):
        low, high = start, min(start + step, total)
        while high < total and fits(high):
            low, step = high, step * 2
            high = min(low + step, total)
        return low, high
    high = start
    while high > 0:
        low = max(high - step, 0)
        if fits(low):
            return low, high
        high, step = low, step * 2
    return None, 0


def _estimates(renderings: Renderings) -> list[int]:
    """For k = 0..n records, about the tokens of their rendering: the notice, guidance and full header, plus
    each section line and record line as counted alone, plus one per line break (non-decreasing)."""
    bundle, fmt = renderings.bundle, renderings.fmt
    cited = fmt.context_format == ContextFormat.COMPACT or fmt.citations
    head = [text for text in (bundle.coverage_notice, bundle.context_guidance) if text]
    head.append(context_header(bundle.sections, fmt.context_format, cited=cited))
    running = sum(_count(line) + 1 for line in head)
    found = [0]
    for name, candidates in bundle.sections.items():
        running += _count(f"[{name}]") + 1
        for candidate in candidates:
            running += _count(renderings.line(candidate)) + 1
            found.append(running)
    return found


def _count(text: str) -> int:
    return token_count(text)[0]


def _render_first(renderings: Renderings, count: int) -> MemoryBundle:
    bundle, fmt = renderings.bundle, renderings.fmt
    sections: dict[str, tuple[Candidate, ...]] = {}
    left = count
    for name, candidates in bundle.sections.items():
        if left <= 0:
            break
        sections[name] = candidates[:left]
        left -= len(sections[name])
    trimmed = bundle.model_copy(update={"sections": sections, "context_references": renderings.labels})
    return render_bundle(trimmed, fmt.context_format, context_citations=fmt.citations, record_line=renderings.line)


def _reason(rendered: MemoryBundle, kept: int, total: int, limit: int | None, setting: Setting) -> str | None:
    if total and not kept and limit is not None:
        return (f"the budget of {limit:,} tokens keeps no record: the first record alone needs more; nothing "
                "would be assessed")
    try:
        rendered.ensure_citable()
    except ValueError as exc:
        if setting.format is SweepFormat.READER_PLAIN:
            return f"reader with citations off: nothing is citable, so no verdict can be derived ({exc})"
        return str(exc)
    return None
