"""Injected NLI scorers for the second-opinion tests: one that returns a fixed row and counts its calls, one that
raises."""

from __future__ import annotations


class Fixed:
    """An injected scorer returning one row for every pair, and counting calls."""

    def __init__(self, row: tuple[float, float, float]) -> None:
        self.row = row
        self.pairs: list[tuple[str, str]] = []

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        self.pairs += pairs
        return [self.row] * len(pairs)


class Raises:
    def __init__(self, error: Exception) -> None:
        self.error = error

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        raise self.error
