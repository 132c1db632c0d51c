"""Agreement figures against reference implementations on fixed cases: κ and per-class precision/recall against
scikit-learn, the standard error and 95% interval against statsmodels' ``cohens_kappa`` (Fleiss, Cohen & Everitt
1969); and the cases where a figure is undefined say so instead of giving 0.0 or NaN."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_recall_fscore_support
from statsmodels.stats.inter_rater import cohens_kappa

from answerlens.review.agreement import (
    MIN_LABELS,
    VERDICTS,
    Pair,
    agreement,
    cohen_kappa,
    confusion,
    human_agreement,
)
from answerlens.verdict import AnswerabilityVerdict as V

A, P, N, C = V.ANSWERABLE, V.PARTIAL, V.INSUFFICIENT, V.CONFLICTING
NAMES = [verdict.value for verdict in VERDICTS]


def _mixed(seed: int, n: int) -> list[tuple[V, V]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        judge = rng.choice(VERDICTS)
        human = judge if rng.random() < 0.6 else rng.choice(VERDICTS)
        pairs.append((judge, human))
    return pairs


CASES = [
    pytest.param([(A, A)] * 6 + [(N, N)] * 5 + [(P, P)] * 3 + [(C, C)] * 2, id="all_agree"),
    pytest.param([(A, N)] * 5 + [(N, A)] * 5, id="none_agree"),
    pytest.param([(A, N)] * 4 + [(P, A)] * 3 + [(N, C)] * 2 + [(C, P)], id="none_agree_four_classes"),
    pytest.param(_mixed(1, 40), id="mixed_40"),
    pytest.param(_mixed(7, 200), id="mixed_200"),
    pytest.param([(A, A)] * 9 + [(A, N)] * 3 + [(N, N)] * 6 + [(N, A)] * 2, id="two_classes"),
    pytest.param([(A, A)] * 7 + [(A, N)] * 3 + [(A, P)] * 2, id="judge_one_class"),
]


def _reference_interval(pairs: list[tuple[V, V]]) -> tuple[float, float, float]:
    table = confusion_matrix([j.value for j, _ in pairs], [h.value for _, h in pairs], labels=NAMES)
    result = cohens_kappa(table)
    return float(result.std_kappa), float(result.kappa_low), float(result.kappa_upp)


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")  # statsmodels' null SE
@pytest.mark.parametrize("pairs", CASES)
def test_kappa_and_its_interval_match_the_references(pairs: list[tuple[V, V]]) -> None:
    found = cohen_kappa(confusion(pairs))
    expected = cohen_kappa_score([j.value for j, _ in pairs], [h.value for _, h in pairs], labels=NAMES)
    assert found.value is not None and found.value == pytest.approx(expected, abs=1e-12)
    se, low, high = _reference_interval(pairs)
    assert found.standard_error == pytest.approx(se, abs=1e-9)
    assert found.ci is not None
    assert found.ci[0] == pytest.approx(max(-1.0, low), abs=1e-9)
    assert found.ci[1] == pytest.approx(min(1.0, high), abs=1e-9)


@pytest.mark.parametrize("pairs", CASES)
def test_per_class_precision_and_recall_match_scikit_learn(pairs: list[tuple[V, V]]) -> None:
    result = agreement([Pair(j, h) for j, h in pairs])
    human = [h.value for _, h in pairs]
    judge = [j.value for j, _ in pairs]
    precision, recall, _, support = precision_recall_fscore_support(human, judge, labels=NAMES,
                                                                    zero_division=np.nan)
    for figures, p, r in zip(result.classes, precision, recall, strict=True):
        assert (figures.precision is None) == math.isnan(p), figures.verdict
        assert (figures.recall is None) == math.isnan(r), figures.verdict
        if figures.precision is not None:
            assert figures.precision == pytest.approx(p)
        else:
            assert figures.precision_undefined == f"the judge never said {figures.verdict.value}"
        if figures.recall is not None:
            assert figures.recall == pytest.approx(r)
        else:
            assert figures.recall_undefined == f"no person said {figures.verdict.value}"
    rates = {figures.verdict: figures.human_rate for figures in result.classes}
    assert [rates[verdict] for verdict in VERDICTS] == pytest.approx([s / len(pairs) for s in support])
    table = confusion_matrix(judge, human, labels=NAMES)
    assert [[result.confusion[a][b] for b in NAMES] for a in NAMES] == table.tolist()
    assert result.agreement == pytest.approx(np.trace(table) / len(pairs))


def test_all_agree_and_none_agree_have_the_textbook_values() -> None:
    agree = cohen_kappa(confusion([(A, A)] * 6 + [(N, N)] * 5))
    assert agree.value == 1.0 and agree.ci == (1.0, 1.0)
    none = cohen_kappa(confusion([(A, N)] * 5 + [(N, A)] * 5))
    assert none.value == pytest.approx(-1.0)


@pytest.mark.parametrize("pairs", [pytest.param([(A, A)] * 25, id="answerable_only"),
                                   pytest.param([(N, N)] * 3, id="insufficient_only")])
def test_one_class_only_says_kappa_is_undefined_never_zero_or_nan(pairs: list[tuple[V, V]]) -> None:
    with pytest.warns(UndefinedMetricWarning):
        reference = cohen_kappa_score([j.value for j, _ in pairs], [h.value for _, h in pairs], labels=NAMES)
    assert math.isnan(reference), "the reference cannot compute it either"
    result = agreement([Pair(j, h) for j, h in pairs])
    assert result.kappa is None and result.kappa_ci is None and result.kappa_se is None
    assert result.kappa_undefined is not None and "undefined" in result.kappa_undefined
    assert pairs[0][0].value in result.kappa_undefined
    assert result.agreement == 1.0


def test_no_labels_is_no_figure() -> None:
    result = agreement([])
    assert result.n == 0 and result.agreement is None and result.kappa is None
    assert result.kappa_undefined == "no labels" and result.too_few
    assert all(item.judge_rate is None and item.precision is None for item in result.classes)


def test_too_few_labels_below_the_stated_count() -> None:
    assert agreement([Pair(A, A)] * (MIN_LABELS - 1)).too_few
    assert not agreement([Pair(A, A)] * MIN_LABELS).too_few
    assert agreement([Pair(A, A)] * 5, min_labels=5).too_few is False


def test_the_unsafe_cell_lists_its_cases() -> None:
    pairs = [Pair(A, N, "run 1"), Pair(A, N, "run 2"), Pair(P, N, "run 3"), Pair(A, A, "run 4"), Pair(N, A, "run 5")]
    result = agreement(pairs)
    assert result.unsafe.count == 3 and result.unsafe.cases == ("run 1", "run 2", "run 3")
    assert result.unsafe.judge == (A, P) and result.unsafe.human is N  # DESIGN §14: answerable or partial
    assert result.unsafe_full.count == 2 and result.unsafe_full.cases == ("run 1", "run 2")
    assert result.confusion["answerable"]["insufficient"] == 2


def test_human_agreement_pairs_reviewers_over_what_both_labelled() -> None:
    groups = [
        [("ann", A), ("bob", A)],
        [("ann", N), ("bob", P), ("cy", N)],
        [("ann", C)],  # one reviewer: no pair
        [("bob", N), ("ann", N)],
    ]
    result = human_agreement(groups)
    assert result.items == 3 and result.pairs == 5
    assert result.agreement == pytest.approx(3 / 5)  # ann-bob A/A, N/P, N/N; ann-cy N/N; bob-cy P/N
    by = {pair.reviewers: pair.figures for pair in result.by_reviewers}
    assert set(by) == {("ann", "bob"), ("ann", "cy"), ("bob", "cy")}
    assert by[("ann", "bob")].n == 3 and by[("ann", "bob")].agreement == pytest.approx(2 / 3)
    expected = cohen_kappa_score(["answerable", "insufficient", "insufficient"],
                                 ["answerable", "partial", "insufficient"], labels=NAMES)
    assert by[("ann", "bob")].kappa == pytest.approx(expected)
    assert by[("ann", "cy")].kappa is None and by[("ann", "cy")].kappa_undefined is not None
