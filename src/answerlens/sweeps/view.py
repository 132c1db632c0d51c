"""A sweep result as short texts (pure): each cell's outcome, each change and its why. The CLI, the report and
the app show these same words."""

from __future__ import annotations

from collections.abc import Mapping

from answerlens.records import MemoryBundle
from answerlens.render import reference_labels
from answerlens.sweeps.result import SweepCell, SweepChange, SweepResult
from answerlens.sweeps.settings import SweepFormat

ACTION_WORDS = {"answer": "answer", "answer_partially": "answer partially", "abstain": "abstain",
                "surface_conflict": "surface conflict"}
"""An action in the words the grid, its legend, the changes and the CLI all use."""


def columns(result: SweepResult) -> list[str]:
    """The budgets, in the order given."""
    return list(dict.fromkeys(cell.budget for cell in result.cells))


def find(result: SweepResult, fmt: str, budget: str) -> tuple[int, SweepCell] | None:
    return next(((index, cell) for index, cell in enumerate(result.cells)
                 if cell.format == fmt and cell.budget == budget), None)


def outcome(cell: SweepCell) -> str:
    """``answer 3/3``, ``answer partially 2/3 (unstable)``, ``error 3/3``, ``not assessed``, or ``no sample yet``
    (a cell of an unfinished sweep)."""
    if not cell.assessable:
        return "not assessed"
    if not cell.samples:
        return "no sample yet"
    total = len(cell.samples)
    action = cell.action
    if action is None:
        return f"error {cell.errors}/{total}"
    text = f"{ACTION_WORDS[action.value]} {cell.actions[action.value]}/{total}"
    if cell.errors:  # its action rests on fewer repeats than were asked
        return f"{text} ({cell.errors} failed)"
    return text if cell.stable else f"{text} (unstable)"


def failure_lines(result: SweepResult) -> list[str]:
    """How many samples failed and why (identical errors grouped), before anything else is said of the sweep; empty
    when none failed. The CLI prints these lines, the page and the report show them."""
    from answerlens.trials.failures import failure_lines as lines
    from answerlens.trials.summary import ErrorEntry

    errors = [ErrorEntry(question_id=sample.case_id, repeat=sample.repeat, label=sample.label,
                         answer_label=sample.answer_label, kind=sample.error.kind, message=sample.error.message)
              for sample in result.samples if sample.error is not None]
    return lines(errors, len(result.samples))


def no_change_text(result: SweepResult) -> str:
    """What "no change" means for this result: every format keeping its action, only when every assessable cell
    came to one; else how many cells have no result to compare (every sample failed, or not run yet)."""
    assessable = [cell for cell in result.cells if cell.assessable]
    failed = sum(1 for cell in assessable if cell.samples and cell.action is None)
    unrun = sum(1 for cell in assessable if not cell.samples)
    if not failed and not unrun:
        return "none (every format keeps its action at every budget)"
    missing = [part for part in (f"{failed} whose every sample failed" if failed else "",
                                 f"{unrun} not run yet" if unrun else "") if part]
    compared = len(assessable) - failed - unrun
    return (f"none among the {compared} cell(s) with a result; {len(assessable) - compared} assessable cell(s) have "
            f"no result ({' and '.join(missing)}), so whether they keep their action is unknown")


def cell_text(result: SweepResult, fmt: str, budget: str) -> str:
    found = find(result, fmt, budget)
    if found is None:
        return ""
    cell = found[1]
    return f"{outcome(cell)} · {len(cell.records_kept)}/{len(cell.records_kept) + len(cell.records_cut)} records"


def budget_text(cell: SweepCell) -> str:
    """``as packed``, ``1,200 tokens`` or ``90% (245 tokens)``."""
    if cell.budget == "packed":
        return "as packed"
    if cell.budget.isdigit():
        return f"{int(cell.budget):,} tokens"
    return f"{cell.budget} ({cell.budget_tokens:,} tokens)" if cell.budget_tokens is not None else cell.budget


def setting_text(cell: SweepCell) -> str:
    """``reader, citations on at 90% (245 tokens)``: the format as the grid names it, and the budget."""
    return f"{SweepFormat(cell.format).label} at {budget_text(cell)}"


def labels_of(bundle: MemoryBundle) -> dict[str, str]:
    """Record id -> its ``mN`` label (the same in every cell of a sweep)."""
    return {str(record_id): label for record_id, label in reference_labels(bundle).items()}


def change_text(result: SweepResult, change: SweepChange, labels: Mapping[str, str] | None = None) -> str:
    """``compact: as packed -> 90% (245 tokens): answer -> answer partially; requirement 'Who owns it'
    supported -> unsupported; the cut removed m6 (…), which the fuller setting's citations used``; ``labels`` names
    the records lost by their ``mN`` label."""
    before, after = result.cells[change.from_], result.cells[change.to]
    why = [f"requirement {flip.requirement!r} {flip.status_from.value} -> {flip.status_to.value}"
           for flip in change.requirements_flipped]
    if change.records_lost:
        lost = ", ".join(f"{labels[record]} ({record})" if labels and record in labels else record
                         for record in change.records_lost)
        used = "which" if len(change.records_lost) == 1 else "which all"
        why.append(f"the cut removed {lost}, {used} the fuller setting's accepted citations used")
    elif not why:
        why.append("no cited record was cut: the model answered differently over the shorter context")
    where = (f"{SweepFormat(before.format).label}: {budget_text(before)} -> {budget_text(after)}"
             if before.format == after.format else f"{setting_text(before)} -> {setting_text(after)}")
    return (f"{where}: {ACTION_WORDS[change.action_from.value]} -> {ACTION_WORDS[change.action_to.value]}; "
            + "; ".join(why))
