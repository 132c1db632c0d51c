"""A sweep's cells from its contexts and samples, and what changed between them (pure: data in, data out)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence

from answerlens.assessment import AnswerabilityAssessment, AnswerabilityRequirement
from answerlens.citations import Decision
from answerlens.sweeps.cut import CellContext
from answerlens.sweeps.result import RequirementFlip, RequirementTally, SweepCell, SweepChange, SweepSample
from answerlens.trials.log import TrialSample


def build_cell(context: CellContext, samples: Sequence[TrialSample]) -> SweepCell:
    """One cell: its cut, and its samples (by repeat) counted."""
    assessments = [sample.assessment for sample in samples if sample.assessment is not None]
    actions = Counter(item.recommended_action.value for item in assessments)
    opinions = [sample.second_opinion for sample in samples if sample.second_opinion is not None]
    flags = Counter(flag.code.value for opinion in opinions for item in opinion.requirements for flag in item.flags) \
        if opinions else None
    # Every repeat came to one action; an assessable cell with no sample yet (an unfinished sweep) is not stable.
    stable = len(actions) <= 1 and len(assessments) == len(samples) and bool(samples or not context.assessable)
    setting = context.setting
    return SweepCell(
        format=setting.format.value, budget=setting.budget, top_k=setting.top_k, record_tokens=setting.record_tokens,
        budget_tokens=context.budget_tokens, tokens_used=context.tokens_used,
        records_kept=tuple(map(str, context.kept)), records_cut=tuple(map(str, context.cut)),
        records_shortened=tuple(map(str, context.shortened)), assessable=context.assessable, reason=context.reason,
        samples=tuple(_short(sample) for sample in samples), actions=dict(sorted(actions.items())),
        verdicts=dict(sorted(Counter(item.verdict.value for item in assessments).items())),
        errors=sum(1 for sample in samples if sample.error is not None),
        stable=stable,
        requirements=_tallies(assessments), flags=dict(sorted(flags.items())) if flags is not None else None,
        latency_ms=round(statistics.median(s.latency_ms for s in samples), 3) if samples else None)


def _short(sample: TrialSample) -> SweepSample:
    assessment = sample.assessment
    return SweepSample(repeat=sample.repeat, evaluation_id=assessment.evaluation_id if assessment else None,
                       verdict=assessment.verdict if assessment else None,
                       action=assessment.recommended_action if assessment else None, error=sample.error,
                       latency_ms=sample.latency_ms)


def _tallies(assessments: Sequence[AnswerabilityAssessment]) -> tuple[RequirementTally, ...]:
    """Requirements by position over repeats (a model may word one requirement differently each time)."""
    width = max((len(item.requirements) for item in assessments), default=0)
    tallies = []
    for index in range(width):
        found = [item.requirements[index] for item in assessments if index < len(item.requirements)]
        accepted: Counter[str] = Counter()
        discarded: Counter[str] = Counter()
        for requirement in found:
            for citation in requirement.citations:
                (accepted if citation.decision == Decision.ACCEPTED else discarded)[citation.token] += 1
        tallies.append(RequirementTally(
            requirement=found[0].requirement,
            statuses=dict(sorted(Counter(item.status.value for item in found).items())),
            accepted=dict(sorted(accepted.items())), discarded=dict(sorted(discarded.items()))))
    return tuple(tallies)


AXES = ("budget", "top_k", "record_tokens")
"""The axes along which a cell is "fuller" than another: what ``changes`` steps along."""


def changes(cells: Sequence[SweepCell], samples: Mapping[str, Sequence[TrialSample]]) -> tuple[SweepChange, ...]:
    """Along each axis, the assessed cells that share every other axis, from fullest to most cut (budget: most
    records kept first; depth and chunk size: as packed, then largest first): every step whose most frequent action
    differs from the step before, with the requirements that flipped, the records lost and the records the chunk
    size cut shorter."""
    found: list[SweepChange] = []
    for axis in AXES:
        rows: dict[tuple[object, ...], list[int]] = {}
        for index, cell in enumerate(cells):
            if cell.assessable and cell.action is not None:
                rows.setdefault(_others(cell, axis), []).append(index)
        for row in rows.values():
            row.sort(key=lambda index: (_cutness(cells[index], axis), index))
            for fuller, cut in zip(row, row[1:], strict=False):
                before, after = cells[fuller], cells[cut]
                if before.action == after.action:
                    continue
                assert before.action is not None and after.action is not None
                was, now = _typical(before, samples.get(before.key, ())), _typical(after, samples.get(after.key, ()))
                used = _used(before, samples)
                # A record cut short whose citation still holds lost nothing cited: only those no longer cited count.
                shortened = tuple(record for record in after.records_shortened
                                  if record in used and record not in _used(after, samples)) \
                    if axis == "record_tokens" else ()
                found.append(SweepChange(from_=fuller, to=cut, action_from=before.action, action_to=after.action,
                                         requirements_flipped=_flips(was, now),
                                         records_lost=tuple(record for record in after.records_cut if record in used),
                                         records_shortened=shortened))
    return tuple(found)


def _others(cell: SweepCell, axis: str) -> tuple[object, ...]:
    return (cell.format, *(getattr(cell, name) for name in AXES if name != axis))


def _cutness(cell: SweepCell, axis: str) -> float:
    """How much of the bundle the cell leaves out along ``axis`` (smaller: fuller)."""
    if axis == "budget":
        return -len(cell.records_kept)
    value = getattr(cell, axis)
    return 0.0 if value is None else 1.0 / value


def _typical(cell: SweepCell, samples: Sequence[TrialSample]) -> AnswerabilityAssessment | None:
    """The first repeat that came to the cell's most frequent action."""
    return next((sample.assessment for sample in samples if sample.assessment is not None
                 and sample.assessment.recommended_action == cell.action), None)


def _flips(was: AnswerabilityAssessment | None, now: AnswerabilityAssessment | None) -> tuple[RequirementFlip, ...]:
    """Requirements whose final status differs: matched by position when both list as many, else by text."""
    if was is None or now is None:
        return ()
    if len(was.requirements) == len(now.requirements):
        pairs = list(zip(was.requirements, now.requirements, strict=True))
    else:
        later: dict[str, AnswerabilityRequirement] = {}
        for item in now.requirements:
            later.setdefault(_norm(item.requirement), item)
        earlier: dict[str, AnswerabilityRequirement] = {}
        for item in was.requirements:
            earlier.setdefault(_norm(item.requirement), item)  # a text the model repeated is one requirement
        pairs = [(item, later[text]) for text, item in earlier.items() if text in later]
    return tuple(RequirementFlip(requirement=before.requirement, status_from=before.status, status_to=after.status)
                 for before, after in pairs if before.status != after.status)


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _used(cell: SweepCell, samples: Mapping[str, Sequence[TrialSample]]) -> set[str]:
    """Records the cell's accepted citations used (in its repeats of its typical action)."""
    return {str(record_id) for sample in samples.get(cell.key, ()) if sample.assessment is not None
            and sample.assessment.recommended_action == cell.action
            for item in sample.assessment.requirements for record_id in item.evidence_ids}
