"""Where a run on a cluster ran: per node, its samples, errors and latency (``trials.nodes``), as ``trial`` prints it."""

from __future__ import annotations

from answerlens.trials.log import NodeRef, TrialSample
from answerlens.trials.nodes import node_stats
from answerlens.trials.report import node_lines
from tests.trials.helpers import GOLDEN

SAMPLES = [TrialSample.model_validate(item) for item in GOLDEN["result"]["samples"]]
ASSESSED = next(sample for sample in SAMPLES if sample.error is None)
FAILED = next(sample for sample in SAMPLES if sample.error is not None)


def on(node: str | None, latency: float, sample: TrialSample = ASSESSED) -> TrialSample:
    where = NodeRef(name=node, host="10.0.0.7") if node else None
    return sample.model_copy(update={"node": where, "latency_ms": latency})


def test_each_node_has_its_counts_errors_and_latency() -> None:
    samples = [on("w2", 300, FAILED), on("w1", 100), on("w1", 200, FAILED), on("w1", 900), on(None, 5)]
    rows = node_stats(samples)
    assert [(row.name, row.samples, row.errors, row.median_ms, row.p90_ms) for row in rows] == [
        ("w1", 3, 1, 200, 900), ("w2", 1, 1, 300, 300)]
    assert rows[0].label == "w1 (10.0.0.7)"
    lines = node_lines(samples)
    assert lines[0] == "samples per node:" and "w1 (10.0.0.7)" in lines[1] and "median 200 ms  p90 900 ms" in lines[1]


def test_a_run_that_never_ran_on_a_cluster_has_no_node_lines() -> None:
    assert node_stats(SAMPLES) == [] and node_lines(SAMPLES) == []


def test_a_sample_s_node_is_in_its_file_only_when_it_ran_on_a_cluster() -> None:
    assert "node" not in ASSESSED.model_dump(mode="json")
    assert on("w1", 10).model_dump(mode="json")["node"] == {"name": "w1", "host": "10.0.0.7"}
    assert TrialSample.model_validate_json(on("w1", 10).model_dump_json()).node == NodeRef(name="w1", host="10.0.0.7")
