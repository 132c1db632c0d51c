"""The scorer seam: what an NLI scorer is, and the fail-closed check of every probability row it returns."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

from answerlens.claims.models import PROBABILITY_TOLERANCE
from answerlens.errors import ClaimVerificationError

SHAPE_ERROR = "Claim verifier must return three finite probabilities per group"
RANGE_ERROR = "Claim verifier probabilities must be normalized to [0, 1]"
INFERENCE_ERROR = "Claim verification inference failed"


class Probabilities(NamedTuple):
    """One validated row: the model's belief that the premise entails, contradicts or is neutral to the claim."""

    entailment: float
    contradiction: float
    neutral: float


@runtime_checkable
class NliScorer(Protocol):
    """Anything that scores (premise, hypothesis) pairs.

    ``score`` returns one ``(entailment, contradiction, neutral)`` row per pair, in order. It is never called
    with an empty list. A ``resolved_revision`` attribute, when present, names the model revision that ran.
    """

    def score(self, pairs: list[tuple[str, str]]) -> Sequence[Sequence[float]]: ...


def score_pairs(scorer: NliScorer, pairs: Sequence[tuple[str, str]]) -> list[Probabilities]:
    """Call the scorer once for all pairs and validate its rows; nothing is called for no pairs.

    A ``ClaimVerificationError`` from the scorer (a missing model, say) passes through; any other exception
    becomes ``ClaimVerificationError("Claim verification inference failed")`` with the cause chained.
    """
    if not pairs:
        return []
    try:
        raw = scorer.score(list(pairs))
    except ClaimVerificationError:
        raise
    except Exception as exc:
        raise ClaimVerificationError(INFERENCE_ERROR) from exc
    return validate_rows(raw, len(pairs))


def validate_rows(raw: Any, expected: int) -> list[Probabilities]:
    """Exactly ``expected`` rows of three finite numbers, each in [0, 1], each row summing to 1 ± 1e-5.

    Shape and finiteness are checked over all rows first, then range and sum, as upstream checks model
    output. Probabilities are used as given: nothing is renormalised or clipped.
    """
    rows = _finite_rows(raw, expected)
    for row in rows:
        in_range = all(0.0 <= value <= 1.0 for value in row)
        if not in_range or not math.isclose(
            sum(row), 1.0, rel_tol=PROBABILITY_TOLERANCE, abs_tol=PROBABILITY_TOLERANCE
        ):
            raise ClaimVerificationError(RANGE_ERROR)
    return rows


def _finite_rows(raw: Any, expected: int) -> list[Probabilities]:
    if isinstance(raw, (str, bytes, Mapping)):
        raise ClaimVerificationError(SHAPE_ERROR)
    try:
        items = list(raw)
    except TypeError:
        raise ClaimVerificationError(SHAPE_ERROR) from None
    if len(items) != expected:
        raise ClaimVerificationError(SHAPE_ERROR)
    return [_finite_row(item) for item in items]


def _finite_row(item: Any) -> Probabilities:
    if isinstance(item, (str, bytes, Mapping)):
        raise ClaimVerificationError(SHAPE_ERROR)
    try:
        values = list(item)
    except TypeError:
        raise ClaimVerificationError(SHAPE_ERROR) from None
    if len(values) != 3 or not all(isinstance(value, numbers.Real) for value in values):
        raise ClaimVerificationError(SHAPE_ERROR)
    try:
        floats = [float(value) for value in values]
    except (OverflowError, TypeError, ValueError):
        raise ClaimVerificationError(SHAPE_ERROR) from None
    if not all(math.isfinite(value) for value in floats):
        raise ClaimVerificationError(SHAPE_ERROR)
    return Probabilities(*floats)
