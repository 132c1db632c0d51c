"""What the Trials page shows, computed from a ``TrialReport`` (pure: no streamlit, no plotly).

Gates as rows, actions per label, the question × repeat grid, citation errors and requirement agreement per
question, and the list of samples. An error sample is always ``error``, never an action.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from answerlens.trials.summary import RESULT_KIND, RUN_KIND, UPSTREAM_KIND, TrialReport, sample_label
from answerlens.verdict import AnswerabilityAction

ERROR = "error"
ACTIONS: tuple[str, ...] = (*(action.value for action in AnswerabilityAction), ERROR)
"""Every cell value of the grid, in legend order."""
KIND_LABELS = {RESULT_KIND: "answerlens trial result", RUN_KIND: "unfinished answerlens run (no result.json)",
               UPSTREAM_KIND: "upstream trial result (beam-answerability-execution)"}


@dataclass(frozen=True)
class GateRow:
    name: str
    observed: float
    required: float
    passed: bool

    @property
    def rule(self) -> str:
        """``≥ 86`` for a ``_min`` gate, ``≤ 0`` otherwise (the same rule ``evaluate_gates`` applies)."""
        return f"{'≥' if self.name.endswith('_min') else '≤'} {number(self.required)}"


@dataclass(frozen=True)
class SampleRef:
    """One (question, repeat) of a report, with what it came to: an action, or an error."""

    question_id: str
    repeat: int
    label: str
    outcome: str
    """The recommended action, or ``error``."""
    verdict: str | None
    error: str | None
    citation_errors: int
    position: int
    """Index in ``report.samples``."""

    @property
    def key(self) -> str:
        return f"{self.question_id}#{self.repeat}"

    @property
    def title(self) -> str:
        if self.error is not None:
            return f"{self.question_id} · repeat {self.repeat} · ERROR ({self.error})"
        return f"{self.question_id} · repeat {self.repeat} · {self.verdict} → {self.outcome}"


@dataclass(frozen=True)
class QuestionRow:
    question_id: str
    label: str
    question_type: str | None
    outcomes: tuple[str | None, ...]
    """Per repeat index: the action, ``error``, or None when that repeat has no sample."""
    citation_errors: int
    requirements: int
    matched: int
    agreeing: int


def gate_rows(gates: Mapping[str, Any] | None) -> list[GateRow]:
    if not gates:
        return []
    return [GateRow(name, gate["observed"], gate["required"], bool(gate["passed"]))
            for name, gate in gates.get("results", {}).items()]


def samples(report: TrialReport) -> list[SampleRef]:
    """Every sample, ordered by question and repeat."""
    found = []
    for position, sample in enumerate(report.samples):
        assessment = sample.get("assessment")
        if isinstance(assessment, Mapping):
            outcome, verdict, error = str(assessment["recommended_action"]), str(assessment["verdict"]), None
            cites = len(assessment.get("citation_errors") or ())
        else:
            problem = sample.get("error") or {}
            outcome, verdict, error, cites = ERROR, None, str(problem.get("kind") or "no assessment"), 0
        found.append(SampleRef(str(sample["question_id"]), int(sample["repeat"]), sample_label(sample), outcome,
                               verdict, error, cites, position))
    return sorted(found, key=lambda ref: (ref.question_id, ref.repeat))


def repeats(refs: Sequence[SampleRef]) -> int:
    return max((ref.repeat for ref in refs), default=-1) + 1


def questions(report: TrialReport, refs: Sequence[SampleRef]) -> list[QuestionRow]:
    """One row per question (in the summary's order) with its grid cells, citation errors and agreement."""
    by_question: dict[str, list[SampleRef]] = defaultdict(list)
    for ref in refs:
        by_question[ref.question_id].append(ref)
    width = repeats(refs)
    agreement = {entry["question_id"]: entry for entry in report.summary["requirement_agreement"]["per_question"]}
    rows = []
    for entry in report.summary["per_question"]:
        question_id = entry["question_id"]
        found = by_question.get(question_id, [])
        cells: list[str | None] = [None] * width
        for ref in found:
            cells[ref.repeat] = ref.outcome
        agree = agreement.get(question_id, {})
        rows.append(QuestionRow(question_id, found[0].label if found else "?", entry.get("question_type"),
                                tuple(cells), sum(ref.citation_errors for ref in found),
                                agree.get("requirements", 0), agree.get("matched", 0), agree.get("agreeing", 0)))
    return rows


def outcome_groups(report: TrialReport, refs: Sequence[SampleRef]) -> dict[str, Counter[str]]:
    """Outcome counts (errors included) per question label; draft runs add the same samples per draft label."""
    groups: dict[str, Counter[str]] = {"unanswerable": Counter(), "answerable": Counter()}
    for ref in refs:
        groups.setdefault(ref.label, Counter())[ref.outcome] += 1
    drafts: dict[str, Counter[str]] = {"correct draft": Counter(), "incorrect draft": Counter()}
    for ref in refs:
        label = report.samples[ref.position].get("answer_label")
        if label in ("correct", "incorrect"):
            drafts[f"{label} draft"][ref.outcome] += 1
    return groups | {name: counts for name, counts in drafts.items() if counts}


def headline(report: TrialReport) -> list[tuple[str, str, str | None]]:
    """``(label, value, help)`` numbers for the top of the page."""
    s = report.summary
    stability = s["stability"]
    agreement = s["requirement_agreement"]
    rate = agreement["agreement_rate"]
    numbers: list[tuple[str, str, str | None]] = [
        ("Questions", str(s["questions"]), None),
        ("Samples assessed", str(s["samples"]), "samples with an assessment; error samples are counted apart"),
        ("Error samples", str(s["error_samples"]), "provider failures: recorded as errors, never as verdicts"),
        ("Unsafe full answers", str(s["unanswerable"]["unsafe_full_answer_count"]),
         "action answer on an unanswerable question"),
        ("Full answers (answerable)", f"{s['answerable']['full_answer_count']} / {s['answerable']['samples']}",
         None),
        ("Unnecessary abstentions", str(s["answerable"]["unnecessary_abstention_count"]),
         "action abstain on an answerable question (partial and conflict are not abstentions)"),
        ("Citation errors", str(s["citation_errors"]), "citation error strings over all samples"),
        ("Stable actions", f"{stability['questions_with_identical_actions']} / {stability['questions']}",
         "questions whose repeats all share one action"),
        ("Requirement agreement", "—" if rate is None else f"{rate:.0%}",
         f"{agreement['agreeing_requirements']} of {agreement['matched_requirements']} requirements matched "
         "across repeats by identical text keep one final status"),
    ]
    return numbers


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
