"""Where a run on a cluster ran, per node (Dask worker): its samples, errors and latency, so a bad node is seen at
once (``trial`` prints it, the Trials page draws it). Pure: read from each sample's ``node``."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from answerlens.trials.log import TrialSample


@dataclass(frozen=True)
class NodeStats:
    name: str
    host: str
    samples: int
    errors: int
    median_ms: float
    p90_ms: float

    @property
    def label(self) -> str:
        return node_label(self.name, self.host)


def node_label(name: str, host: str) -> str:
    """``gpu-1 (10.0.0.21)``: a node as the command line and the page name it."""
    return f"{name} ({host})" if host and host != name else name


def node_stats(samples: Iterable[object]) -> list[NodeStats]:
    """One row per node that assessed a sample, by name; empty for a run that never ran on a cluster."""
    grouped: dict[tuple[str, str], list[TrialSample]] = defaultdict(list)
    for sample in samples:
        if isinstance(sample, TrialSample) and sample.node is not None:
            grouped[(sample.node.name, sample.node.host)].append(sample)
    return [NodeStats(name, host, len(ran), sum(sample.error is not None for sample in ran),
                      _rank([sample.latency_ms for sample in ran], 0.5), _rank([s.latency_ms for s in ran], 0.9))
            for (name, host), ran in sorted(grouped.items())]


def _rank(values: list[float], share: float) -> float:
    """The nearest-rank percentile: a latency some sample really had."""
    ordered = sorted(values)
    return ordered[max(math.ceil(share * len(ordered)) - 1, 0)]
