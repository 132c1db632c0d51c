"""A trial result as the text ``answerlens trial``, ``trial-report`` and ``trial-merge`` print."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from answerlens.trials.failures import failure_lines
from answerlens.trials.log import AnswerLabel, TrialSample
from answerlens.trials.nodes import node_stats
from answerlens.trials.opinions import SecondOpinionSummary, catch_rows
from answerlens.trials.rates import MIN_SAMPLES, summary_rates
from answerlens.trials.result import TrialResult


def report_lines(result: TrialResult, source: object, *, min_samples: int = MIN_SAMPLES) -> list[str]:
    """Failed samples first (how many, and why: identical errors grouped), then counts, draft counts, stability and
    agreement, rates (marked when too few samples back them), the second opinion's counts, whether the published
    summary is reproduced, the gates."""
    s = result.summary
    lines = [f"{source}  ({result.kind.value})",
             *failure_lines(s.errors, s.samples + s.error_samples),
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
    lines.append(f"rates (each over at least {min_samples} samples, else marked too few):")
    lines += [f"  {rate.label:<52} {rate.text}" for rate in summary_rates(s, min_samples)]
    if s.second_opinion is not None:
        lines += opinion_lines(s.second_opinion)
    if result.summary_matches is not None:
        verdict = "matches the published summary" if result.summary_matches else "DIFFERS from the published one"
        lines.append(f"summary recomputed from the samples {verdict}")
    if result.quality_gates is not None:
        lines.append("gates: " + ("PASSED" if result.quality_gates.passed else "FAILED"))
        for name, gate in result.quality_gates.results.items():
            mark = "pass" if gate.passed else "FAIL"
            lines.append(f"  {mark}  {name:<40} observed {gate.observed:>5}  required {gate.required}")
    return lines


def opinion_lines(opinion: SecondOpinionSummary) -> list[str]:
    """The run's second-opinion counts, and per reason the unsafe answers caught and the false alarms."""
    lines = [f"second opinion: {opinion.assessments} assessments, {opinion.requirements_flagged} of "
             f"{opinion.requirements_checked} checked requirements flagged, verifier agreed "
             f"{opinion.verifier_agreements}/{opinion.verifier_checked}, strict policy changed "
             f"{opinion.strict_changed}",
             f"  unsafe answers (full answers to unanswerable questions): {opinion.unsafe_answers}, the second "
             f"opinion would have caught {opinion.unsafe_caught}, uncaught {opinion.unsafe_uncaught}; "
             f"false alarms on correct full answers: {opinion.false_alarms}/{opinion.correct_answers}"]
    lines += [f"  {row.reason:<32} caught {row.unsafe_caught:>4}   false alarms {row.false_alarms:>4}"
              for row in catch_rows(opinion)]
    return lines


def served_lines(result: TrialResult) -> list[str]:
    """Which endpoint served how many assessed samples, when more than one did or the one that did is not the
    configuration's base URL (replicas: each sample records the endpoint that answered it)."""
    served = Counter(sample.assessment.provider_metadata.base_url for sample in result.samples
                     if isinstance(sample, TrialSample) and sample.assessment is not None
                     and sample.assessment.provider_metadata is not None)
    configured = result.configuration.effective_base_url if result.configuration is not None else None
    if len(served) < 2 and set(served) <= {configured}:
        return []
    return ["served by: " + ", ".join(f"{url} {count}" for url, count in sorted(served.items(), key=str))]


def node_lines(samples: Iterable[object]) -> list[str]:
    """Per node of a run on a cluster: samples, errors, median and 90th-percentile latency (none otherwise)."""
    rows = node_stats(samples)
    lines = [f"  {row.label:<28} {row.samples:>6} samples  {row.errors:>4} errors  median {row.median_ms:,.0f} ms  "
             f"p90 {row.p90_ms:,.0f} ms" for row in rows]
    return ["samples per node:", *lines] if lines else []
