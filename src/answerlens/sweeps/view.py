"""A sweep result as short texts (pure): each cell's outcome, each change and its why. The CLI, the report and
the app show these same words."""

from __future__ import annotations

from collections.abc import Mapping

from answerlens.records import MemoryBundle
from answerlens.render import reference_labels
from answerlens.sweeps.result import SweepCell, SweepChange, SweepResult

SHORT = {"answer": "answer", "answer_partially": "partial", "abstain": "abstain", "surface_conflict": "conflict"}


def columns(result: SweepResult) -> list[str]:
    """The budgets, in the order given."""
    return list(dict.fromkeys(cell.budget for cell in result.cells))


def find(result: SweepResult, fmt: str, budget: str) -> tuple[int, SweepCell] | None:
    return next(((index, cell) for index, cell in enumerate(result.cells)
                 if cell.format == fmt and cell.budget == budget), None)


def outcome(cell: SweepCell) -> str:
    """``answer 3/3``, ``partial 2/3 (unstable)``, ``error 3/3``, or ``not assessed``."""
    if not cell.assessable:
        return "not assessed"
    total = len(cell.samples)
    action = cell.action
    if action is None:
        return f"error {cell.errors}/{total}"
    text = f"{SHORT[action.value]} {cell.actions[action.value]}/{total}"
    return text if cell.stable else f"{text} (unstable)"


def cell_text(result: SweepResult, fmt: str, budget: str) -> str:
    found = find(result, fmt, budget)
    if found is None:
        return ""
    cell = found[1]
    return f"{outcome(cell)} · {len(cell.records_kept)}/{len(cell.records_kept) + len(cell.records_cut)} records"


def setting_text(cell: SweepCell) -> str:
    budget = "as packed" if cell.budget == "packed" else f"budget {cell.budget}"
    if cell.budget_tokens is not None and not cell.budget.isdigit():
        budget += f" ({cell.budget_tokens:,} tokens)"
    return f"{cell.format} at {budget}"


def labels_of(bundle: MemoryBundle) -> dict[str, str]:
    """Record id -> its ``mN`` label (the same in every cell of a sweep)."""
    return {str(record_id): label for record_id, label in reference_labels(bundle).items()}


def change_text(result: SweepResult, change: SweepChange, labels: Mapping[str, str] | None = None) -> str:
    """``compact at packed -> compact at budget 120: answer -> answer_partially; ...``; ``labels`` names the
    records lost by their ``mN`` label too."""
    before, after = result.cells[change.from_], result.cells[change.to]
    why = [f"requirement {flip.requirement!r} {flip.status_from.value} -> {flip.status_to.value}"
           for flip in change.requirements_flipped]
    if change.records_lost:
        why.append(f"the cut removed {len(change.records_lost)} record(s) its citations used: "
                   + ", ".join(f"{labels[record]} ({record})" if labels and record in labels else record
                               for record in change.records_lost))
    elif not why:
        why.append("no cited record was cut: the model answered differently over the shorter context")
    return (f"{setting_text(before)} -> {setting_text(after)}: {change.action_from.value} -> "
            f"{change.action_to.value}; " + "; ".join(why))
