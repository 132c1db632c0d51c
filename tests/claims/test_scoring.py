import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from answerlens.claims.scoring import (
    INFERENCE_ERROR,
    RANGE_ERROR,
    SHAPE_ERROR,
    NliScorer,
    Probabilities,
    score_pairs,
    validate_rows,
)
from answerlens.errors import ClaimVerificationError

GOOD = [0.7, 0.2, 0.1]


@pytest.mark.parametrize("rows, message", [
    pytest.param(None, SHAPE_ERROR, id="none"),
    pytest.param("0.7,0.2,0.1", SHAPE_ERROR, id="a_string"),
    pytest.param({"a": GOOD}, SHAPE_ERROR, id="a_mapping"),
    pytest.param([GOOD], SHAPE_ERROR, id="too_few_rows"),
    pytest.param([GOOD, GOOD, GOOD], SHAPE_ERROR, id="too_many_rows"),
    pytest.param([GOOD, [0.5, 0.5]], SHAPE_ERROR, id="ragged"),
    pytest.param([[0.7, 0.2, 0.1, 0.0]] * 2, SHAPE_ERROR, id="four_columns"),
    pytest.param([GOOD, [math.nan, 0.5, 0.5]], SHAPE_ERROR, id="nan"),
    pytest.param([GOOD, [0.0, math.inf, 0.0]], SHAPE_ERROR, id="inf"),
    pytest.param([GOOD, ["0.7", "0.2", "0.1"]], SHAPE_ERROR, id="strings"),
    pytest.param([GOOD, [None, 0.5, 0.5]], SHAPE_ERROR, id="null"),
    pytest.param([GOOD, [10**400, 0, 0]], SHAPE_ERROR, id="overflow"),
    pytest.param([GOOD, 0.5], SHAPE_ERROR, id="scalar_row"),
    pytest.param([[1.2, -0.1, -0.1], GOOD], RANGE_ERROR, id="out_of_range"),
    pytest.param([GOOD, [0.5, 0.3, 0.1]], RANGE_ERROR, id="sum_below_one"),
    pytest.param([GOOD, [0.5, 0.3, 0.2 + 1.5e-5]], RANGE_ERROR, id="sum_just_beyond_tolerance"),
    pytest.param([[1.5, -0.5, 0.0], [math.nan, 0.5, 0.5]], SHAPE_ERROR, id="finiteness_is_checked_first"),
])
def test_malformed_rows_are_refused(rows: Any, message: str) -> None:
    with pytest.raises(ClaimVerificationError) as caught:
        validate_rows(rows, 2)
    assert str(caught.value) == message


@pytest.mark.parametrize("rows", [
    pytest.param([GOOD, [0.5, 0.3, 0.2 + 9e-6]], id="within_tolerance"),
    pytest.param([[1, 0, 0], [True, False, False]], id="ints_and_bools"),
    pytest.param(np.array([GOOD, GOOD], dtype=np.float32), id="numpy_float32"),
    pytest.param((row for row in [GOOD, GOOD]), id="generator"),
])
def test_well_formed_rows_are_used_as_given(rows: Any) -> None:
    validated = validate_rows(rows, 2)
    assert all(isinstance(row, Probabilities) and isinstance(row.entailment, float) for row in validated)
    assert sum(validated[0]) == pytest.approx(1.0, abs=1e-5)


def test_rows_are_not_renormalised() -> None:
    assert validate_rows([[0.5, 0.3, 0.2 + 9e-6]], 1) == [Probabilities(0.5, 0.3, 0.2 + 9e-6)]


class Recording:
    def __init__(self, result: Any = None, error: Exception | None = None) -> None:
        self.calls: list[list[tuple[str, str]]] = []
        self.result, self.error = result, error

    def score(self, pairs: list[tuple[str, str]]) -> Sequence[Sequence[float]]:
        self.calls.append(pairs)
        if self.error is not None:
            raise self.error
        return self.result if self.result is not None else [GOOD] * len(pairs)


def test_score_pairs_never_calls_with_no_pairs() -> None:
    scorer = Recording()
    assert isinstance(scorer, NliScorer)
    assert score_pairs(scorer, []) == []
    assert scorer.calls == []
    assert score_pairs(scorer, [("p", "h")]) == [Probabilities(*GOOD)]
    assert scorer.calls == [[("p", "h")]]


def test_scorer_exceptions_become_inference_failures_with_the_cause() -> None:
    with pytest.raises(ClaimVerificationError, match=INFERENCE_ERROR) as caught:
        score_pairs(Recording(error=KeyError("boom")), [("p", "h")])
    assert isinstance(caught.value.__cause__, KeyError)


def test_a_scorers_own_claim_verification_error_passes_through() -> None:
    with pytest.raises(ClaimVerificationError, match="^no model here$"):
        score_pairs(Recording(error=ClaimVerificationError("no model here")), [("p", "h")])
