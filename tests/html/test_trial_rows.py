"""What the Trials page computes from a ``TrialResult`` (pure)."""

from __future__ import annotations

import pytest

from answerlens.html import trial_rows as trial_results
from answerlens.trials.log import QuestionLabel, ResultKind
from answerlens.trials.result import TrialResult


def test_upstream_rows(upstream: TrialResult) -> None:
    refs = trial_results.samples(upstream)
    assert len(refs) == 120 and trial_results.repeats(refs) == 3
    assert refs[0].key == "100K_0_q0_abstention#0" and refs[0].label == QuestionLabel.UNANSWERABLE
    assert all(ref.latency_ms is None and ref.answer_label is None for ref in refs)  # upstream records neither
    rows = trial_results.questions(upstream, refs)
    assert len(rows) == 40 and all(len(row.outcomes) == 3 and None not in row.outcomes for row in rows)
    assert sum(row.citation_errors for row in rows) == upstream.summary.citation_errors == 5
    groups = trial_results.outcome_groups(refs)
    assert list(groups) == ["unanswerable", "answerable"]
    assert dict(groups["unanswerable"]) == {a.value: n for a, n in upstream.summary.unanswerable.actions.items()}
    assert dict(groups["answerable"]) == {a.value: n for a, n in upstream.summary.answerable.actions.items()}
    gates = {row.name: (row.observed, row.rule, row.passed) for row in trial_results.gate_rows(upstream.quality_gates)}
    assert gates["ordinary_full_answer_count_min"] == (62, "≥ 86", False)
    assert gates["unsafe_full_answer_count_max"] == (2, "≤ 0", False)
    assert trial_results.KIND_LABELS[upstream.kind].startswith("upstream trial result")
    assert trial_results.GATES_SOURCE[upstream.kind] == "as published in the file"


def test_error_samples_are_errors_never_actions(with_errors: TrialResult) -> None:
    refs = trial_results.samples(with_errors)
    broken = [ref for ref in refs if ref.question_id == "broken"]
    assert [(ref.outcome, ref.verdict, ref.error) for ref in broken] == [("error", None, "server_error")] * 2
    assert "ERROR (server_error)" in broken[0].title
    assert all(ref.latency_ms is not None and ref.latency_ms >= 0 for ref in refs)
    groups = trial_results.outcome_groups(refs)
    assert dict(groups["unanswerable"]) == {"error": 2}
    assert with_errors.summary.unanswerable.samples == 0  # the library does not count them as verdicts
    (bad, ok) = trial_results.questions(with_errors, refs)  # in question order
    assert ok.citation_errors == 2 and ok.matched == ok.agreeing == 1  # m9 is not in the context, both repeats
    assert bad.outcomes == ("error", "error")
    stats = {stat.label: stat for stat in trial_results.stats(with_errors)}
    assert stats["Error samples"].value == "2" and stats["Samples assessed"].value == "2 / 4"
    # Two assessed samples: every figure over them says so instead of passing for a rate.
    assert stats["Samples assessed"].note == "n=2: too few samples to rate"
    assert (stats["Requirement agreement"].value, stats["Requirement agreement"].note) == (
        "1 / 1", "n=1: too few matched requirements to rate")
    assert stats["Full answers"].value == "2 / 2" and stats["Full answers"].note == "n=2: too few samples to rate"
    assert stats["Unsafe answers"].value == "0 / 0" and stats["Unsafe answers"].note == "n=0: too few samples to rate"


def test_draft_labels_add_their_own_groups(golden: TrialResult) -> None:
    refs = trial_results.samples(golden)
    groups = trial_results.outcome_groups(refs)
    assert set(groups) == {"unanswerable", "answerable"}  # a question-only run: no draft groups
    assert sum(sum(counts.values()) for counts in groups.values()) == len(golden.samples)
    assert sum(groups["answerable"].values()) == golden.summary.planned(QuestionLabel.ANSWERABLE)


def test_a_run_of_ours_says_where_its_gates_come_from(golden: TrialResult) -> None:
    assert golden.kind == ResultKind.RESULT
    assert trial_results.GATES_SOURCE[golden.kind] == "as recorded in result.json"
    rows = trial_results.gate_rows(golden.quality_gates)
    assert [row.name for row in rows] == list(golden.file_json()["quality_gates"]["results"])
    assert trial_results.gate_rows(None) == []


def test_numbers_are_shown_without_a_trailing_zero() -> None:
    assert (trial_results.number(3), trial_results.number(3.0), trial_results.number(2.5)) == ("3", "3", "2.5")


def test_stats_of_a_run_large_enough_to_rate(golden: TrialResult) -> None:
    stats = {stat.label: stat for stat in trial_results.stats(golden)}
    summary = golden.summary
    assert list(stats) == ["Questions", "Samples assessed", "Error samples", "Unsafe answers", "Full answers",
                           "Unnecessary abstentions", "Citation errors", "Stable questions", "Requirement agreement"]
    assert all(len(label) <= 23 for label in stats)  # short enough for a metric card at 1280 px
    assert stats["Samples assessed"].value == f"{summary.samples} / {summary.planned_samples}"
    assert stats["Samples assessed"].note is None and stats["Stable questions"].note is None
    rate = summary.requirement_agreement.agreement_rate
    assert rate is not None and stats["Requirement agreement"].value == f"{rate:.0%}"
    assert all(stat.help for label, stat in stats.items() if label != "Questions")


@pytest.mark.parametrize(
    "count, noun, plural, text",
    [
        pytest.param(1, "sample", None, "1 sample", id="one"),
        pytest.param(2, "sample", None, "2 samples", id="two"),
        pytest.param(0, "sample", None, "0 samples", id="none"),
        pytest.param(3, "query", "queries", "3 queries", id="own_plural"),
    ],
)
def test_counts_read_naturally(count: int, noun: str, plural: str | None, text: str) -> None:
    assert trial_results.counted(count, noun, plural) == text


@pytest.mark.parametrize(
    "part, whole, value, note",
    [
        pytest.param(2, 2, "2 / 2", "n=2: too few samples to rate", id="two_of_two_is_not_100_percent"),
        pytest.param(0, 0, "—", "no samples to rate", id="nothing_to_rate"),
        pytest.param(9, 9, "9 / 9", "n=9: too few samples to rate", id="just_below"),
        pytest.param(7, 10, "70%", None, id="at_the_minimum"),
    ],
)
def test_a_rate_needs_the_stated_minimum(part: int, whole: int, value: str, note: str | None) -> None:
    assert trial_results.MIN_SAMPLES_FOR_RATE == 10
    assert trial_results.rate(part, whole) == (value, note)


def test_a_single_repeat_has_no_stability_to_show(with_errors: TrialResult) -> None:
    one = with_errors.model_copy(update={"samples": tuple(s for s in with_errors.samples if s.repeat == 0)})
    stats = {stat.label: stat for stat in trial_results.stats(one)}
    assert stats["Stable questions"].note == "one repeat: nothing to compare"
