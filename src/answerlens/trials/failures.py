"""What error samples come to: identical errors grouped with a count, and the early stop of a run whose first
calls all fail the same way (an unreachable server, a missing model, a wrong key), so such a run never reports
figures from the few samples that happened to get through.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel

from answerlens.trials.log import STRICT, SampleError
from answerlens.trials.summary import ErrorEntry

EARLY_STOP = 5
"""Default: stop when the first 5 calls of an invocation all fail with the same kind of error (0: never)."""


class ErrorGroup(BaseModel):
    """Error samples with one kind and one message, and how many there are."""

    model_config = STRICT

    kind: str
    message: str
    count: int
    first_question_id: str
    first_repeat: int
    """The first such sample in the run's order."""
    last_question_id: str
    last_repeat: int
    """The last such sample."""
    questions: int
    """Distinct questions among them."""


def group_errors(errors: Iterable[ErrorEntry]) -> tuple[ErrorGroup, ...]:
    """Identical (kind, message) errors as one group each; the largest group first, then by first appearance."""
    found: dict[tuple[str, str], list[ErrorEntry]] = {}
    for error in errors:
        found.setdefault((error.kind, error.message), []).append(error)
    groups = [ErrorGroup(kind=kind, message=message, count=len(where), first_question_id=where[0].question_id,
                         first_repeat=where[0].repeat, last_question_id=where[-1].question_id,
                         last_repeat=where[-1].repeat, questions=len({error.question_id for error in where}))
              for (kind, message), where in found.items()]
    order = {key: index for index, key in enumerate(found)}
    return tuple(sorted(groups, key=lambda group: (-group.count, order[(group.kind, group.message)])))


def failure_lines(errors: Iterable[ErrorEntry], samples: int) -> list[str]:
    """What a run with failed samples leads its printout with: how many failed of ``samples``, and why (identical
    errors grouped, the largest group first). Empty when none failed."""
    groups = group_errors(errors)
    if not groups:
        return []
    failed = sum(group.count for group in groups)
    return [f"FAILED SAMPLES: {failed} of {samples} sample(s) failed and have no result (every figure below leaves "
            "them out); rerun the same command to retry them:",
            *(f"  {group.count:>4} × {group.kind}: {group.message}" for group in groups)]


@dataclass(frozen=True)
class EarlyStop:
    """Why a run stopped before its end: its first ``calls`` calls all failed with ``kind``."""

    kind: str
    message: str
    """The first failure's message (with its remedy)."""
    calls: int

    @property
    def text(self) -> str:
        return f"the first {self.calls} calls all failed with {self.kind}: {self.message}"


@dataclass
class EarlyStopWatch:
    """Watches the first ``limit`` calls of one invocation, in the order they finish."""

    limit: int = EARLY_STOP
    _first: list[SampleError | None] = field(default_factory=list)

    def record(self, error: SampleError | None) -> EarlyStop | None:
        """Note one finished call; the reason to stop when it completes ``limit`` failures of one kind."""
        if self.limit <= 0 or len(self._first) >= self.limit:
            return None
        self._first.append(error)
        if len(self._first) < self.limit:
            return None
        kinds = {item.kind if item is not None else None for item in self._first}
        first = self._first[0]
        if None in kinds or len(kinds) != 1 or first is None:
            return None
        return EarlyStop(kind=first.kind, message=first.message, calls=self.limit)
