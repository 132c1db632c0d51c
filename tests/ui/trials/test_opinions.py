"""The second opinion over a trial (pure): where a sample's opinion comes from, the (assessment, opinion, label)
triples, the counts shown as numbers, and flags computed from the run's own dataset."""

from __future__ import annotations

from dataclasses import replace

import pytest

from answerlens.second_opinion.models import SecondOpinion
from answerlens.trials.dataset import load_dataset
from answerlens.trials.log import AnswerLabel, QuestionLabel, TrialSample, UpstreamSample
from answerlens.trials.result import TrialResult
from answerlens.ui.trials import opinions
from tests.paths import REPO
from tests.ui.trials.conftest import LABELS
from tests.ui.trials.helpers import sample as error_sample


def test_stored_opinions_are_read_from_the_samples(opinionated: list[UpstreamSample]) -> None:
    trio = opinions.triples(opinionated)
    assert [label for _, _, label in trio] == list(LABELS.values())
    assert all(isinstance(opinion, SecondOpinion) for _, opinion, _ in trio)
    summary = opinions.summarize(trio, opinions.STORED)
    assert summary is not None and summary.assessed == summary.counts.assessments == 5
    counts = summary.counts
    assert (counts.unsafe_answers, counts.unsafe_caught) == (2, 2)
    assert counts.caught_by == {"speech_act_mismatch": 1, "superseded_for_present": 1}
    assert (counts.correct_answers, counts.false_alarms) == (2, 0)
    stats = {stat.label: stat for stat in opinions.stats(summary)}
    assert stats["Unsafe answers caught"].value == "2 / 2" and stats["Correct answers flagged"].value == "0 / 2"
    assert (stats["Verifier agreement"].value, stats["Verifier agreement"].note) == (
        "not run", "no requirement was verified")
    assert opinions.coverage(summary).startswith("5 of 5 assessed samples have a second opinion, stored")


def test_the_typed_field_the_engine_will_add_is_read_too(opinionated: list[UpstreamSample]) -> None:
    opinion = opinions.stored_opinion(opinionated[0])
    assert opinion is not None
    # The engine's typed field (a sample built without validation: the opinion is another sample's).
    typed = TrialSample.model_construct(**{**dict(error_sample("q", 0)), "second_opinion": opinion})
    assert opinions.stored_opinion(typed) is opinion
    assert opinions.stored_opinion(error_sample("q", 0)) is None  # today's samples carry none


def test_an_unreadable_opinion_counts_as_none(opinionated: list[UpstreamSample]) -> None:
    broken = UpstreamSample.model_validate(
        {**opinionated[-1].model_dump(mode="json"), opinions.OPINION_FIELD: {"schema_version": 1}})
    assert opinions.stored_opinion(broken) is None


def test_samples_without_an_opinion_give_no_summary(example: TrialResult) -> None:
    trio = opinions.triples(example.samples)
    assert len(trio) == example.summary.samples and all(opinion is None for _, opinion, _ in trio)
    assert opinions.summarize(trio, opinions.STORED) is None


@pytest.mark.parametrize(
    "label, answer_label, expected",
    [
        pytest.param(QuestionLabel.ANSWERABLE, None, "answerable", id="answerable_question"),
        pytest.param(QuestionLabel.UNANSWERABLE, None, "unanswerable", id="unanswerable_question"),
        pytest.param(QuestionLabel.ANSWERABLE, AnswerLabel.INCORRECT, "unanswerable", id="incorrect_draft"),
        pytest.param(QuestionLabel.UNANSWERABLE, AnswerLabel.CORRECT, "answerable", id="correct_draft"),
    ],
)
def test_a_draft_is_labelled_by_whether_it_may_be_accepted(label: QuestionLabel, answer_label: AnswerLabel | None,
                                                            expected: str) -> None:
    found = error_sample("q", 0).model_copy(update={"label": label, "answer_label": answer_label})
    assert opinions.label_of(found) == expected


def test_flags_computed_from_the_example_run_s_own_dataset(example: TrialResult) -> None:
    assert example.dataset is not None
    computed = opinions.compute_opinions(example, load_dataset(REPO / example.dataset.path))
    assessed = [position for position, sample in enumerate(example.samples) if sample.assessment is not None]
    assert sorted(computed) == assessed  # every assessed sample; the error samples have nothing to question
    summary = opinions.summarize(opinions.triples(example.samples, computed), opinions.COMPUTED)
    assert summary is not None and summary.source == opinions.COMPUTED
    counts = summary.counts
    assert (counts.unsafe_answers, counts.unsafe_caught) == (4, 3)  # the plan-like runbook task is missed
    assert counts.verifier_checked == 0 and counts.verifier_agreement_rate is None


def test_a_changed_case_is_not_checked(example: TrialResult) -> None:
    assert example.dataset is not None
    dataset = load_dataset(REPO / example.dataset.path)
    item = dataset.cases[0]
    changed = replace(dataset, cases=(replace(item, sha256="0" * 64), *dataset.cases[1:]))
    computed = opinions.compute_opinions(example, changed)
    assert not any(example.samples[position].question_id == item.case.id for position in computed)
