"""Where a budget cuts a bundle: the records kept in packed order while the re-rendered context fits (pure).

Labels (``mN``) are the full bundle's, so a record keeps its label whatever the budget. Tokens are counted as
PRME counts them (``answerlens.tokens``: ``cl100k_base`` over the whole rendered context).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from uuid import UUID

from answerlens.records import Candidate, ContextFormat, MemoryBundle
from answerlens.render import reference_labels, render_bundle
from answerlens.sweeps.settings import Setting, SweepFormat, budget_tokens
from answerlens.tokens import token_count


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


def cell_context(bundle: MemoryBundle, setting: Setting, packed: int | None = None) -> CellContext:
    """The context of ``setting`` over ``bundle``. ``packed`` is ``packed_tokens(bundle)`` (computed when None)."""
    order = [candidate.node.id for _, candidate in bundle.candidates()]
    limit = budget_tokens(setting.budget, packed_tokens(bundle) if packed is None else packed)
    labels = {label: record_id for record_id, label in reference_labels(bundle).items()}
    if limit is None and is_as_packed(bundle, setting.format):
        kept, rendered = len(order), bundle  # the bundle as packed: exactly what the packer produced
    else:
        def render(count: int) -> MemoryBundle:
            return _render_first(bundle, setting.format, count, labels)

        kept, rendered = _fit(render, len(order), limit)
    tokens = rendered.tokens_used if rendered is not bundle else token_count(bundle.render())[0]
    return CellContext(setting=setting, budget_tokens=limit, bundle=rendered, kept=tuple(order[:kept]),
                       cut=tuple(order[kept:]), tokens_used=tokens,
                       reason=_reason(rendered, kept, len(order), limit, setting))


def _fit(render: Callable[[int], MemoryBundle], total: int, limit: int | None) -> tuple[int, MemoryBundle]:
    """The most records (a prefix in packed order) whose rendering counts at most ``limit`` tokens."""
    if limit is None:
        return total, render(total)
    full = render(total)
    if full.tokens_used <= limit:
        return total, full
    low, high, best = 0, total, render(0)
    while low < high:  # the largest k in [low, high] that fits; a longer prefix never counts fewer tokens
        middle = (low + high + 1) // 2
        candidate = render(middle)
        if candidate.tokens_used <= limit:
            low, best = middle, candidate
        else:
            high = middle - 1
    return low, best


def _render_first(bundle: MemoryBundle, fmt: SweepFormat, count: int, labels: dict[str, UUID]) -> MemoryBundle:
    sections: dict[str, tuple[Candidate, ...]] = {}
    left = count
    for name, candidates in bundle.sections.items():
        if left <= 0:
            break
        sections[name] = candidates[:left]
        left -= len(sections[name])
    trimmed = bundle.model_copy(update={"sections": sections, "context_references": labels})
    return render_bundle(trimmed, fmt.context_format, context_citations=fmt.citations)


def _reason(rendered: MemoryBundle, kept: int, total: int, limit: int | None, setting: Setting) -> str | None:
    if total and not kept:
        return (f"the budget of {limit:,} tokens keeps no record: the first record alone needs more; nothing "
                "would be assessed")
    try:
        rendered.ensure_citable()
    except ValueError as exc:
        if setting.format is SweepFormat.READER_PLAIN:
            return f"reader with citations off: nothing is citable, so no verdict can be derived ({exc})"
        return str(exc)
    return None
