"""A sweep result as short texts (pure): each cell's outcome, each change and its why, and the grid's two shown
axes with the rest filtered. The CLI, the report and the app show these same words."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from answerlens.records import MemoryBundle
from answerlens.render import reference_labels
from answerlens.sweeps.cut import CellContext
from answerlens.sweeps.result import SweepCell, SweepChange, SweepResult
from answerlens.sweeps.settings import SweepFormat

ACTION_WORDS = {"answer": "answer", "answer_partially": "answer partially", "abstain": "abstain",
                "surface_conflict": "surface conflict"}
"""An action in the words the grid, its legend, the changes and the CLI all use."""


AXES = {"format": "format", "budget": "budget", "top_k": "depth (top k)", "record_tokens": "chunk size"}
"""Every axis of a sweep, in grid order, with its name in the grid's pickers and captions."""
ROWS, COLUMNS = "format", "budget"
"""The two axes a grid shows unless asked for others."""


def values(result: SweepResult, axis: str) -> list[Any]:
    """The values of ``axis`` in the order given (None: the axis is "as packed")."""
    return list(dict.fromkeys(getattr(cell, axis) for cell in result.cells))


def swept(result: SweepResult) -> list[str]:
    """The axes this sweep has: format and budget always; depth and chunk size when given."""
    return [axis for axis in AXES if axis in (ROWS, COLUMNS) or values(result, axis) != [None]]


def columns(result: SweepResult) -> list[str]:
    """The budgets, in the order given."""
    return values(result, "budget")


def value_text(axis: str, value: Any) -> str:
    """``reader, citations on``, ``90%``, ``top 3 records``, ``40 tokens a record``, ``every record``…"""
    if axis == "format":
        return SweepFormat(value).label
    if axis == "top_k":
        return "every record" if value is None else f"top {value:,} record{'s' if value != 1 else ''}"
    if axis == "record_tokens":
        return "whole records" if value is None else f"{value:,} token{'s' if value != 1 else ''} a record"
    return str(value)


def filters(result: SweepResult, rows: str = ROWS, cols: str = COLUMNS) -> list[dict[str, Any]]:
    """Every combination of the axes not shown (one grid each); a single empty one when there are none."""
    others = [axis for axis in swept(result) if axis not in (rows, cols)]
    return [dict(zip(others, combination, strict=True))
            for combination in itertools.product(*(values(result, axis) for axis in others))]


def filter_text(fixed: Mapping[str, Any]) -> str:
    """``top 3 records · 40 tokens a record`` (empty for no filter)."""
    return " · ".join(value_text(axis, value) for axis, value in fixed.items())


def find(result: SweepResult, fmt: str, budget: str, **fixed: Any) -> tuple[int, SweepCell] | None:
    """The cell of ``fmt`` at ``budget`` (and the other axes' values given; those not given are "as packed")."""
    return lookup(result, {"format": fmt, "budget": budget, **fixed})


def lookup(result: SweepResult, wanted: Mapping[str, Any]) -> tuple[int, SweepCell] | None:
    """The cell whose axes have the values ``wanted`` (an axis not named is "as packed": None)."""
    full = {"top_k": None, "record_tokens": None, **wanted}
    return next(((index, cell) for index, cell in enumerate(result.cells)
                 if all(getattr(cell, axis) == value for axis, value in full.items())), None)


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


def cell_text(result: SweepResult, fmt: str, budget: str, **fixed: Any) -> str:
    """``answer 3/3 · 5/6 records`` (``· 2 cut short`` when the chunk size cut records' text)."""
    found = find(result, fmt, budget, **fixed)
    if found is None:
        return ""
    cell = found[1]
    short = f" · {len(cell.records_shortened)} cut short" if cell.records_shortened else ""
    return f"{outcome(cell)} · {len(cell.records_kept)}/{len(cell.records_kept) + len(cell.records_cut)} records{short}"


def budget_text(cell: SweepCell) -> str:
    """``as packed``, ``1,200 tokens`` or ``90% (245 tokens)``."""
    if cell.budget == "packed":
        return "as packed"
    if cell.budget.isdigit():
        return f"{int(cell.budget):,} tokens"
    return f"{cell.budget} ({cell.budget_tokens:,} tokens)" if cell.budget_tokens is not None else cell.budget


def setting_text(cell: SweepCell) -> str:
    """``reader, citations on at 90% (245 tokens)``: the format as the grid names it, the budget, and the depth
    and chunk size when the sweep has them (``…, top 3 records, 40 tokens a record``)."""
    extra = [value_text(axis, getattr(cell, axis)) for axis in ("top_k", "record_tokens")
             if getattr(cell, axis) is not None]
    return f"{SweepFormat(cell.format).label} at {', '.join([budget_text(cell), *extra])}"


def _axis_text(cell: SweepCell, axis: str) -> str:
    return budget_text(cell) if axis == "budget" else value_text(axis, getattr(cell, axis))


def cut_text(context: CellContext, bundle: MemoryBundle) -> str:
    """What a setting kept and cut, records named by label: ``keeps 5 of 6 records (224 of 240 tokens); cut: m6``
    (``; text cut short: m1, m4`` by a chunk size)."""
    labels = labels_of(bundle)
    total = len(context.kept) + len(context.cut)
    limit = f" of {context.budget_tokens:,}" if context.budget_tokens is not None else ""
    text = f"keeps {len(context.kept)} of {total} record{'s' if total != 1 else ''} ({context.tokens_used:,}{limit} " \
        "tokens)"
    if context.cut:
        text += "; cut: " + ", ".join(labels.get(str(record), str(record)) for record in context.cut)
    if context.shortened:
        text += "; text cut short: " + ", ".join(labels.get(str(record), str(record)) for record in context.shortened)
    return text


def labels_of(bundle: MemoryBundle) -> dict[str, str]:
    """Record id -> its ``mN`` label (the same in every cell of a sweep)."""
    return {str(record_id): label for record_id, label in reference_labels(bundle).items()}


def change_text(result: SweepResult, change: SweepChange, labels: Mapping[str, str] | None = None) -> str:
    """``compact: as packed -> 90% (245 tokens): answer -> answer partially; requirement 'Who owns it'
    supported -> unsupported; the cut removed m6 (…), which the fuller setting's citations used``; along depth or
    chunk size, the setting shared and the step (``compact at as packed: top 4 records -> top 3 records``); a
    chunk size that cut a cited record's text names it. ``labels`` names records by their ``mN`` label."""
    before, after = result.cells[change.from_], result.cells[change.to]
    why = [f"requirement {flip.requirement!r} {flip.status_from.value} -> {flip.status_to.value}"
           for flip in change.requirements_flipped]
    if change.records_lost:
        used = "which" if len(change.records_lost) == 1 else "which all"
        why.append(f"the cut removed {_named(change.records_lost, labels)}, {used} the fuller setting's accepted "
                   "citations used")
    if change.records_shortened:
        them = "it" if len(change.records_shortened) == 1 else "them"
        why.append(f"the chunk size cut {_named(change.records_shortened, labels)} to the first "
                   f"{after.record_tokens:,} tokens, and the fuller setting's accepted citations used {them}: the "
                   "cited words were in the part cut off")
    if not why:
        why.append("no cited record was cut: the model answered differently over the shorter context")
    axis = next((name for name in ("budget", "top_k", "record_tokens")
                 if getattr(before, name) != getattr(after, name)), "budget")
    if before.format != after.format:
        where = f"{setting_text(before)} -> {setting_text(after)}"
    elif axis == "budget" and before.top_k is None and before.record_tokens is None:
        where = f"{SweepFormat(before.format).label}: {budget_text(before)} -> {budget_text(after)}"
    else:
        shared = [budget_text(before)] if axis != "budget" and before.budget != "packed" else []
        shared += [value_text(name, getattr(before, name)) for name in ("top_k", "record_tokens")
                   if name != axis and getattr(before, name) is not None]
        label = SweepFormat(before.format).label
        where = (f"{label} at {', '.join(shared)}: " if shared else f"{label}: ") \
            + f"{_axis_text(before, axis)} -> {_axis_text(after, axis)}"
    return (f"{where}: {ACTION_WORDS[change.action_from.value]} -> {ACTION_WORDS[change.action_to.value]}; "
            + "; ".join(why))


def _named(records: tuple[str, ...], labels: Mapping[str, str] | None) -> str:
    return ", ".join(f"{labels[record]} ({record})" if labels and record in labels else record for record in records)
