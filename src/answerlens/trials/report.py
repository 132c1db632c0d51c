"""A trial result as the text ``answerlens trial`` and ``answerlens trial-report`` print."""

from __future__ import annotations

from answerlens.trials.log import AnswerLabel
from answerlens.trials.result import TrialResult


def report_lines(result: TrialResult, source: object) -> list[str]:
    """Counts, draft counts, stability and agreement, whether the published summary is reproduced, the gates."""
    s = result.summary
    lines = [f"{source}  ({result.kind.value})",
             f"questions: {s.questions}   samples: {s.samples}   error samples: {s.error_samples}   "
             f"citation errors: {s.citation_errors}"]
    for label, group in (("unanswerable", s.unanswerable), ("answerable", s.answerable)):
        actions = ", ".join(f"{action.value} {count}" for action, count in group.actions.items()) or "none"
        lines.append(f"{label:<13} {group.samples:>4} samples: {actions}")
    if s.draft_answers is not None:
        for answer_label in AnswerLabel:
            draft = s.draft_answers.of(answer_label)
            lines.append(f"{answer_label.value + ' drafts':<13} {draft.samples:>4} samples: full accept "
                         f"{draft.full_accept_count}, partial {draft.partial_accept_count}, "
                         f"reject {draft.reject_count}")
    stability, agreement = s.stability, s.requirement_agreement
    lines.append(f"stability: identical actions {stability.questions_with_identical_actions}/{stability.questions}, "
                 f"identical verdicts {stability.questions_with_identical_verdicts}/{stability.questions}; "
                 f"requirement agreement {agreement.agreeing_requirements}/{agreement.matched_requirements}")
    if result.summary_matches is not None:
        verdict = "matches the published summary" if result.summary_matches else "DIFFERS from the published one"
        lines.append(f"summary recomputed from the samples {verdict}")
    if result.quality_gates is not None:
        lines.append("gates: " + ("PASSED" if result.quality_gates.passed else "FAILED"))
        for name, gate in result.quality_gates.results.items():
            mark = "pass" if gate.passed else "FAIL"
            lines.append(f"  {mark}  {name:<40} observed {gate.observed:>5}  required {gate.required}")
    return lines
