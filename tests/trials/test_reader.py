"""The one reader: result files, run folders, upstream results; what it refuses; the assessments a file holds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from answerlens import DatasetError
from answerlens.trials.log import SAMPLE_KIND, ResultKind, TrialSample, UpstreamSample, round_trip_problem
from answerlens.trials.reader import assessments_in, parse_trial, read_trial, trial_source
from tests.trials.helpers import GOLDEN, PUBLISHED, UPSTREAM, ours


def write_folder(folder: Path, *, finished: bool) -> Path:
    """A run folder from the golden run: run.json, its sample files, and result.json when finished."""
    result = ours()
    (folder / "samples").mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps(GOLDEN["run"]))
    files = {(q["question_id"], r): name for q in result["questions"] for r, name in enumerate(q["sample_files"])}
    for sample in result["samples"]:
        (folder / "samples" / files[(sample["case_id"], sample["repeat"])]).write_text(json.dumps(sample))
    if finished:
        (folder / "result.json").write_text(json.dumps(result))
    return folder


def test_our_result_reads_back_exactly_as_written() -> None:
    result = parse_trial(ours(), "result.json")
    assert result.kind == ResultKind.RESULT and result.upstream is None
    assert result.file_json() == ours()
    assert all(isinstance(sample, TrialSample) for sample in result.samples)
    assert result.summary.model_dump(mode="json") == ours()["summary"]  # recomputed, and equal
    assert result.configuration is not None and result.configuration.model == "oracle"
    assert result.summary_matches is None


def test_a_folder_reads_its_result_or_its_samples_so_far(tmp_path: Path) -> None:
    done = write_folder(tmp_path / "done", finished=True)
    assert trial_source(done) == done / "result.json"
    assert read_trial(done).kind == ResultKind.RESULT
    unfinished = read_trial(write_folder(tmp_path / "unfinished", finished=False))
    assert unfinished.kind == ResultKind.RUN
    assert unfinished.summary.samples == read_trial(done).summary.samples
    assert unfinished.dataset is not None and unfinished.dataset.cases is None
    assert unfinished.quality_gates is not None and unfinished.concurrency is None  # provisional default gates


def test_a_folder_without_its_manifest_or_with_a_foreign_sample_is_refused(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "run", finished=False)
    sample = next((folder / "samples").glob("*.json"))
    data = json.loads(sample.read_text())
    sample.write_text(json.dumps({**data, "configuration_sha256": "0" * 64}))
    with pytest.raises(DatasetError, match="another dataset or configuration"):
        read_trial(folder)
    (folder / "run.json").unlink()
    with pytest.raises(DatasetError, match="no run.json"):
        read_trial(folder)
    with pytest.raises(DatasetError, match="no result.json and no saved samples"):
        read_trial(tmp_path)


def test_the_upstream_result_reads_through_the_adapter() -> None:
    result = read_trial(UPSTREAM)
    assert result.kind == ResultKind.UPSTREAM and result.summary_matches is True
    assert all(isinstance(sample, UpstreamSample) for sample in result.samples)
    assert result.quality_gates is not None
    assert result.quality_gates.model_dump(mode="json") == PUBLISHED["quality_gates"]


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param("{", "cannot read trial result", id="broken"),
        pytest.param('{"kind": "x", "samples": []}', "unknown trial result kind 'x'", id="unknown_kind"),
        pytest.param('{"kind": "beam-answerability-execution", "schema_version": 9, "samples": []}',
                     "unsupported upstream schema_version 9", id="future_schema"),
        pytest.param('{"hello": 1}', "not a trial result (expected 'samples')", id="not_a_result"),
        pytest.param('{"kind": "answerlens-trial-result", "samples": [5]}', "samples[0] is not a trial sample",
                     id="number_sample"),
        pytest.param('{"kind": "answerlens-trial-result", "samples": [{}]}', "samples[0].case_id: Field required",
                     id="empty_sample"),
    ],
)
def test_unreadable_results_say_why(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(DatasetError, match=re.escape(message)):
        read_trial(path)


def _edited(edit: str) -> dict[str, Any]:
    data = ours()
    sample = next(s for s in data["samples"] if s["assessment"] and s["assessment"]["requirements"][0]["evidence_ids"])
    if edit == "uuid_form":
        ids = sample["assessment"]["requirements"][0]["evidence_ids"]
        ids[0] = ids[0].replace("-", "")  # the same UUID, written without its hyphens
    elif edit == "repeat_as_text":
        sample["repeat"] = str(sample["repeat"])
    elif edit == "latency_as_int":
        sample["latency_ms"] = 12
    elif edit == "both_outcomes":
        sample["error"] = {"kind": "timeout", "message": "x"}
    elif edit == "unknown_field":
        sample["note"] = "added by hand"
    elif edit == "summary_type":
        data["summary"]["questions"] = float(data["summary"]["questions"])
    return data


@pytest.mark.parametrize(
    "edit, message",
    [
        pytest.param("uuid_form", "evidence_ids[0] reads back as", id="uuid_form"),
        pytest.param("repeat_as_text", ".repeat reads back as", id="repeat_as_text"),
        pytest.param("latency_as_int", ".latency_ms reads back as 12.0", id="latency_as_int"),
        pytest.param("both_outcomes", "either an assessment or an error", id="both_outcomes"),
        pytest.param("unknown_field", "note: Extra inputs are not permitted", id="unknown_field"),
        pytest.param("summary_type", "$.summary.questions reads back as", id="summary_type"),
    ],
)
def test_a_file_that_does_not_read_back_as_recorded_is_refused(edit: str, message: str) -> None:
    """Verifying the typed log must verify what was written: no silent coercion on the way in."""
    with pytest.raises(DatasetError, match=re.escape(message)):
        parse_trial(_edited(edit), "result.json")


# --- the assessments a file holds ------------------------------------------------------------------------------


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
