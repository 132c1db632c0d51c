"""How many samples a trial or sweep holds against its manifest's cells or cases × repeats (pure)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SampleCount:
    """A run's samples against its plan: ``expected`` is every planned (case or cell, repeat), ``found`` how many of
    them have a sample counted; samples not counted are problems of their own."""

    expected: int
    found: int
    failed: int = 0
    """Found samples that hold an error, not an assessment."""
    written: bool = True
    """Whether the run wrote its result (it does once every sample exists)."""
    shard: str | None = None
    """A shard's label (``1/2``): the count is of that shard's samples, one part of the run."""

    @property
    def complete(self) -> bool:
        """Every planned sample is there and the result is written."""
        return self.found >= self.expected and self.written

    @property
    def text(self) -> str:
        """``unfinished: 7 of 12 samples`` (or ``12 of 12 samples``; ``6 of 6 samples of shard 1/2, one part of the
        run``)."""
        counted = f"{self.found} of {self.expected} sample{'s' if self.expected != 1 else ''}" + (
            f" of shard {self.shard}, one part of the run" if self.shard else "")
        if self.complete:
            return counted
        return f"unfinished: {counted}" + ("" if self.found < self.expected else ", and no result written yet")
