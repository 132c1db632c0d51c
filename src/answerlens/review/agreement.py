"""How far the judge's verdicts agree with people's (pure arithmetic over typed pairs; no I/O).

Over the four verdicts (answerable, partial, insufficient, conflicting): the confusion matrix judge × human, raw
agreement, Cohen's κ with a 95% interval, base rates, per-class precision and recall (the human label taken as
the truth), the unsafe cell, and between people the same figures for every pair of reviewers who labelled the same
thing.

The interval is κ ± 1.96 × the large-sample standard error of Fleiss, Cohen & Everitt (1969), "Large sample
standard errors of kappa and weighted kappa", Psychological Bulletin 72(5) — the non-null variance, as
statsmodels' ``cohens_kappa`` computes it — clipped to [-1, 1]. With few labels it is not to be trusted: below
``MIN_LABELS`` the result says "too few labels". A figure that cannot be computed (κ when both sides used one and
the same class only, so chance agreement is 1; precision for a class the judge never gave) is None with the reason,
never 0.0 or NaN.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from pydantic import BaseModel, ConfigDict

from answerlens.verdict import AnswerabilityVerdict

VERDICTS: tuple[AnswerabilityVerdict, ...] = tuple(AnswerabilityVerdict)
MIN_LABELS = 20
"""Below this many labels every figure is marked "too few labels" (as a trial's rates are below 20 samples)."""
Z95 = 1.959963984540054
"""The standard normal quantile for a two-sided 95% interval."""
INTERVAL = ("95% interval: kappa ± 1.96 × the large-sample standard error of Fleiss, Cohen & Everitt (1969), "
            "clipped to [-1, 1]")

_MODEL = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True)
class Pair:
    """One judgement compared: the judge's verdict and a person's, on the thing ``ref`` names."""

    judge: AnswerabilityVerdict
    human: AnswerabilityVerdict
    ref: str = ""
    """Where to see it (a run link, a sample): listed for the unsafe cell."""


class Kappa(BaseModel):
    """Cohen's κ with its 95% interval; ``value`` None with ``undefined`` saying why when it cannot be computed."""

    model_config = _MODEL

    value: float | None
    ci: tuple[float, float] | None
    standard_error: float | None
    undefined: str | None = None


class ClassFigures(BaseModel):
    """One verdict's base rates (its share of the judge's and of the people's verdicts) and, with the human label
    as the truth, the judge's precision and recall for it (None with the reason when a denominator is 0)."""

    model_config = _MODEL

    verdict: AnswerabilityVerdict
    judge_rate: float | None
    human_rate: float | None
    precision: float | None
    recall: float | None
    precision_undefined: str | None = None
    recall_undefined: str | None = None


class Cell(BaseModel):
    """A cell of the confusion matrix that matters on its own: its count and the cases in it."""

    model_config = _MODEL

    judge: tuple[AnswerabilityVerdict, ...]
    human: AnswerabilityVerdict
    count: int
    cases: tuple[str, ...]


class Figures(BaseModel):
    """Agreement between two raters over the four verdicts (``confusion[first][second]`` is a count)."""

    model_config = _MODEL

    n: int
    agreement: float | None
    """Share of pairs where both gave the same verdict; None with no pairs."""
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    kappa_se: float | None
    kappa_undefined: str | None
    interval: str = INTERVAL
    confusion: dict[str, dict[str, int]]
    too_few: bool
    min_labels: int


class ReviewerPair(BaseModel):
    """Two reviewers over the things both labelled: ``confusion[first][second]``."""

    model_config = _MODEL

    reviewers: tuple[str, str]
    figures: Figures


class HumanAgreement(BaseModel):
    """People with people: over every thing labelled by two or more reviewers, each pair of its labels."""

    model_config = _MODEL

    items: int
    """Things labelled by two or more reviewers."""
    pairs: int
    """Pairs of labels of the same thing by different reviewers."""
    agreement: float | None
    by_reviewers: tuple[ReviewerPair, ...]


class Agreement(Figures):
    """The judge against people (``confusion`` is judge verdict → human verdict → count: the figures of two raters,
    the judge first), per-class figures, the unsafe cells, and people among themselves; what ``answerlens
    agreement --json`` prints."""

    classes: tuple[ClassFigures, ...]
    unsafe: Cell
    """The unsafe cell (DESIGN §14): the judge said answerable or partial — the question gets an answer, in full or in
    part — and the person found the evidence insufficient."""
    unsafe_full: Cell
    """Of those, the ones the judge answered in full (answerable × insufficient)."""
    humans: HumanAgreement


def confusion(pairs: Sequence[tuple[AnswerabilityVerdict, AnswerabilityVerdict]]) -> list[list[int]]:
    """The 4×4 matrix of counts, rows the first rater's verdict, columns the second's, in ``VERDICTS`` order."""
    index = {verdict: position for position, verdict in enumerate(VERDICTS)}
    matrix = [[0] * len(VERDICTS) for _ in VERDICTS]
    for first, second in pairs:
        matrix[index[first]][index[second]] += 1
    return matrix


def cohen_kappa(matrix: Sequence[Sequence[int]]) -> Kappa:
    """Cohen's κ of a square count matrix, with the Fleiss–Cohen–Everitt large-sample 95% interval."""
    n = sum(map(sum, matrix))
    if n == 0:
        return Kappa(value=None, ci=None, standard_error=None, undefined="no labels")
    size = len(matrix)
    p = [[count / n for count in row] for row in matrix]
    rows = [sum(row) for row in p]
    cols = [sum(p[i][j] for i in range(size)) for j in range(size)]
    observed = sum(p[i][i] for i in range(size))
    chance = sum(rows[i] * cols[i] for i in range(size))
    if math.isclose(chance, 1.0):
        used = [VERDICTS[i].value if size == len(VERDICTS) else str(i) for i in range(size) if rows[i] or cols[i]]
        return Kappa(value=None, ci=None, standard_error=None,
                     undefined=f"undefined: both sides gave only {', '.join(used)}, so agreement by chance is 1 "
                     "(label cases of other verdicts)")
    kappa = (observed - chance) / (1 - chance)
    diagonal = sum(p[i][i] * (1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2 for i in range(size))
    off = (1 - kappa) ** 2 * sum(p[i][j] * (cols[i] + rows[j]) ** 2
                                 for i in range(size) for j in range(size) if i != j)
    correction = (kappa - chance * (1 - kappa)) ** 2
    variance = max(0.0, (diagonal + off - correction) / ((1 - chance) ** 2 * n))
    se = math.sqrt(variance)
    ci = (max(-1.0, kappa - Z95 * se), min(1.0, kappa + Z95 * se))
    return Kappa(value=kappa, ci=ci, standard_error=se)


def figures(pairs: Sequence[tuple[AnswerabilityVerdict, AnswerabilityVerdict]], *,
            min_labels: int = MIN_LABELS) -> Figures:
    """Raw agreement, κ and the confusion matrix of two raters' verdicts."""
    matrix = confusion(pairs)
    n = len(pairs)
    kappa = cohen_kappa(matrix)
    return Figures(n=n, agreement=sum(matrix[i][i] for i in range(len(VERDICTS))) / n if n else None,
                   kappa=kappa.value, kappa_ci=kappa.ci, kappa_se=kappa.standard_error,
                   kappa_undefined=kappa.undefined, confusion=_named(matrix), too_few=n < min_labels,
                   min_labels=min_labels)


def agreement(pairs: Sequence[Pair], *, humans: Sequence[Sequence[tuple[str, AnswerabilityVerdict]]] = (),
              min_labels: int = MIN_LABELS) -> Agreement:
    """The judge against people over ``pairs``; ``humans`` lists, per thing labelled, its (reviewer, verdict)s."""
    base = figures([(pair.judge, pair.human) for pair in pairs], min_labels=min_labels)
    return Agreement(**dict(base), classes=class_figures(confusion([(pair.judge, pair.human) for pair in pairs])),
                     unsafe=_cell(pairs, (AnswerabilityVerdict.ANSWERABLE, AnswerabilityVerdict.PARTIAL)),
                     unsafe_full=_cell(pairs, (AnswerabilityVerdict.ANSWERABLE,)),
                     humans=human_agreement(humans, min_labels=min_labels))


def class_figures(matrix: Sequence[Sequence[int]]) -> tuple[ClassFigures, ...]:
    """Per verdict: base rates, precision (of the judge's verdicts) and recall (of the people's)."""
    n = sum(map(sum, matrix))
    found = []
    for i, verdict in enumerate(VERDICTS):
        judged = sum(matrix[i])
        labelled = sum(row[i] for row in matrix)
        hit = matrix[i][i]
        found.append(ClassFigures(
            verdict=verdict, judge_rate=judged / n if n else None, human_rate=labelled / n if n else None,
            precision=hit / judged if judged else None, recall=hit / labelled if labelled else None,
            precision_undefined=None if judged else f"the judge never said {verdict.value}",
            recall_undefined=None if labelled else f"no person said {verdict.value}"))
    return tuple(found)


def human_agreement(groups: Sequence[Sequence[tuple[str, AnswerabilityVerdict]]], *,
                    min_labels: int = MIN_LABELS) -> HumanAgreement:
    """People with people: every pair of different reviewers' labels of the same thing."""
    shared = [group for group in groups if len({reviewer for reviewer, _ in group}) > 1]
    by_pair: dict[tuple[str, str], list[tuple[AnswerabilityVerdict, AnswerabilityVerdict]]] = {}
    agree = total = 0
    for group in shared:
        for (first, one), (second, other) in combinations(sorted(group, key=lambda item: item[0]), 2):
            if first == second:
                continue
            by_pair.setdefault((first, second), []).append((one, other))
            total += 1
            agree += one == other
    pairs = tuple(ReviewerPair(reviewers=names, figures=figures(found, min_labels=min_labels))
                  for names, found in sorted(by_pair.items()))
    return HumanAgreement(items=len(shared), pairs=total, agreement=agree / total if total else None,
                          by_reviewers=pairs)


def _cell(pairs: Sequence[Pair], judge: tuple[AnswerabilityVerdict, ...]) -> Cell:
    cases = tuple(pair.ref for pair in pairs if pair.judge in judge and pair.human is AnswerabilityVerdict.INSUFFICIENT)
    return Cell(judge=judge, human=AnswerabilityVerdict.INSUFFICIENT, count=len(cases), cases=cases)


def _named(matrix: Sequence[Sequence[int]]) -> dict[str, dict[str, int]]:
    return {first.value: {second.value: matrix[i][j] for j, second in enumerate(VERDICTS)}
            for i, first in enumerate(VERDICTS)}
