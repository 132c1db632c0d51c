"""The deterministic NLI scorer of the ClaimVerifier differential: hash-derived probabilities plus keyword rules,
with planted faults. Standard library only, so that ``benchmarks/claims_golden.py`` runs it under upstream PRME
(in its own virtualenv) and ``tests/claims/test_differential.py`` replays the same rows through answerlens."""

from __future__ import annotations

import hashlib
import math
from typing import Any


def hash_row(salt: str, premise: str, hypothesis: str, peak: int) -> list[float]:
    digest = hashlib.sha256(f"{salt}\x1f{premise}\x1f{hypothesis}".encode()).digest()
    weights = [(digest[index] + 1) ** peak for index in range(3)]
    total = sum(weights)
    return [weight / total for weight in weights]


def rule_row(spec: dict[str, Any], premise: str, hypothesis: str) -> list[float]:
    for rule in spec.get("rules", []):
        if all(part in premise for part in rule.get("all", [])) \
                and not any(part in premise for part in rule.get("none", [])) \
                and all(part in hypothesis for part in rule.get("claim", [])):
            return list(rule["row"])
    return hash_row(spec.get("salt", ""), premise, hypothesis, spec.get("peak", 3))


def scorer_rows(spec: dict[str, Any], pairs: list[tuple[str, str]], call: int) -> Any:
    """The rows for one call (1-based), including the planted faults."""
    rows: list[Any] = [rule_row(spec, premise, hypothesis) for premise, hypothesis in pairs]
    fault = spec.get("fault")
    if not fault or fault["call"] != call:
        return rows
    mode = fault["mode"]
    if mode == "raise":
        raise RuntimeError("scorer exploded")
    if mode == "none":
        return None
    replacements = {
        "nan": [math.nan, 0.5, 0.5], "inf": [0.0, math.inf, 0.0], "negative": [-0.1, 0.6, 0.5],
        "above_one": [1.2, -0.1, -0.1], "bad_sum": [0.5, 0.3, 0.1], "low_sum": [0.3, 0.3, 0.3],
        "gap_sum": [0.5, 0.3, 0.2 + 1.5e-5], "tiny_sum_ok": [0.5, 0.3, 0.2 + 5e-6], "ints": [1, 0, 0],
        "bools": [True, False, False], "strings": ["0.9", "0.05", "0.05"], "ragged": [0.5, 0.5],
    }
    if mode in replacements:
        rows[fault.get("row", 0)] = replacements[mode]
    elif mode == "short_rows":
        rows = [row[:2] for row in rows]
    elif mode == "long_rows":
        rows = [[*row, 0.0] for row in rows]
    elif mode == "missing_row":
        rows = rows[:-1]
    elif mode == "extra_row":
        rows = [*rows, [0.1, 0.1, 0.8]]
    elif mode == "range_then_nan":
        rows[0] = [1.5, -0.5, 0.0]
        rows[-1] = [math.nan, 0.5, 0.5]
    else:
        raise ValueError(mode)
    return rows


def pair_digest(premise: str, hypothesis: str) -> str:
    return hashlib.sha256(f"{premise}\x1f{hypothesis}".encode()).hexdigest()[:16]
