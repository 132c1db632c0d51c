"""The assessments a file holds, found without importing the trial log for a single assessment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from answerlens import DatasetError
from answerlens.trials.found import SAMPLE_KIND
from answerlens.trials.log import TrialSample, round_trip_problem
from answerlens.trials.reader import assessments_in
from tests.trials.helpers import PUBLISHED, ours


def test_assessments_in_each_shape(tmp_path: Path) -> None:
    trial = assessments_in(PUBLISHED, "beam.json")
    assert len(trial) == 120 and (trial[0].position, trial[0].question_id, trial[0].repeat) == (
        0, "100K_0_q0_abstention", 0)
    assert round_trip_problem(PUBLISHED["samples"][3]["assessment"], trial[3].data) is None  # as recorded
    ours_found = assessments_in(ours(), "result.json")
    assert len(ours_found) == ours()["summary"]["samples"]  # error samples carry no verdict
    bare = PUBLISHED["samples"][0]["assessment"]
    assert [item.data for item in assessments_in(bare, "a.json")] == [bare]
    assert [item.data for item in assessments_in({"assessment": bare}, "a.json")] == [bare]
    sample = next(s for s in ours()["samples"] if s["assessment"])
    (found,) = assessments_in(sample, "sample.json")
    assert found.data == sample["assessment"] and found.position is None
    assert assessments_in([1, 2], "x.json") == [] and assessments_in({"bundle": {}}, "x.json") == []
    with pytest.raises(DatasetError, match="unknown trial result kind None"):
        assessments_in({"samples": []}, "x.json")


def test_the_sample_kind_is_the_one_the_log_writes() -> None:
    assert TrialSample.model_fields["kind"].default == SAMPLE_KIND


def test_a_single_assessment_is_found_without_the_trial_log() -> None:
    code = ("import sys, answerlens.trials.found as f; f.plain_assessments({'verdict': 'partial'}); "
            "print(sorted(m for m in sys.modules if m.startswith('answerlens.trials')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "answerlens.trials.log" not in loaded and "answerlens.trials.reader" not in loaded
