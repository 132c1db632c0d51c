"""What the runner takes and gives (``engine.runner``, which re-exports every name): how a run reports progress and
ends, a folder layout of its own (a sweep's), a second opinion, and a cluster that assesses its samples elsewhere.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from answerlens.config import AnswerabilityConfig
from answerlens.trials.failures import EarlyStop
from answerlens.trials.fit import Fit
from answerlens.trials.log import TrialSample
from answerlens.trials.result import TrialResult

if TYPE_CHECKING:  # a run without a second opinion never imports the claim verifier
    from answerlens.claims.verifier import ClaimVerifier


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    errors: int
    elapsed: float
    last: str = ""
    nodes: tuple[tuple[str, int], ...] = ()
    """On a cluster: samples done by each node (worker name), in the order the nodes first delivered one."""

    @property
    def rate(self) -> float:
        """Samples per second over this run's new work."""
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        remaining = self.total - self.done
        return remaining / self.rate if self.rate > 0 else None


R = TypeVar("R")


@dataclass(frozen=True)
class RunOutcome(Generic[R]):
    """How one invocation of the engine ended; a trial's and a sweep's differ only in their result's type."""

    result: R | None = field(repr=False)
    """None when the run was cancelled or stopped early (no ``result.json`` then). Left out of the repr:
    ``asyncio.run`` formats its main task's result when it restores the SIGINT handler, and the repr of every
    sample of a large run took half a second."""
    result_path: Path | None
    new_samples: int
    reused_samples: int
    errors: int
    cancelled: bool
    stopped: EarlyStop | None = None
    """Why the run stopped early: its first calls all failed alike (rerunning resumes)."""
    warnings: tuple[str, ...] = ()
    """What the preflight noticed without refusing (an endpoint down while another is up …)."""
    fit: Fit | None = field(default=None, repr=False)
    """The concurrency and configuration the run used, fitted to its endpoint, and why (``trials.fit``)."""


@dataclass(frozen=True)
class TrialOutcome(RunOutcome[TrialResult]):
    """A trial's outcome (``result``: its ``TrialResult``)."""


@dataclass(frozen=True)
class RunLayout:
    """A run whose folder is not a trial's (a packing sweep: its cases are settings): how its folder is prepared
    and what is written once every planned sample exists. The samples, lock, resume and bounds stay the engine's."""

    prepare: Callable[[Path], Path]
    """Create the folder, or check it holds this run; return its samples folder (called holding the lock)."""
    finish: Callable[[Sequence[TrialSample], float], Path]
    """Write the run's result from every planned sample (in plan order) and the wall seconds; return its path."""
    manifest_sha256: str
    """The run's manifest hash, which every sample records."""
    refuse_foreign: Callable[[Path], None] | None = None
    """Refuse a fresh run's folder holding files the run did not write, before anything (the lock) is made."""


SampleSink = Callable[[TrialSample], Awaitable[None]]
"""Where each finished sample goes: the run folder's durable writer, or (a cluster's worker) the driver."""


class Cluster(Protocol):
    """Assesses a run's samples on other machines (``engine.cluster.DaskCluster``); the folder stays here."""

    async def check(self, config: AnswerabilityConfig, urls: Sequence[str]) -> tuple[str, ...]: ...

    async def run(self, run: Any, sink: SampleSink, config: AnswerabilityConfig, urls: Sequence[str]) -> None: ...


@dataclass(frozen=True)
class SecondOpinionSetting:
    """``trial --second-opinion``: each assessed sample gets ``second_opinion_for`` with this verifier (None: the
    flags only) and the configuration's evidence policy."""

    verifier: ClaimVerifier | None = None
