import copy
import json
import re
from pathlib import Path

import pytest

from answerlens import DatasetError
from answerlens.cli import main
from answerlens.trials.summary import default_gates, evaluate_gates, read_trial, summarize
from tests.paths import PRME

UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"


def test_upstream_result_is_resummarised_exactly() -> None:
    report = read_trial(UPSTREAM)
    published = json.loads(UPSTREAM.read_text())["summary"]
    assert report.summary_matches is True
    assert {key: report.summary[key] for key in published} == published
    assert report.summary["error_samples"] == 0
    assert report.summary["requirement_agreement"]["matched_requirements"] > 0


def test_upstream_draft_schema_3_summary_shape(tmp_path: Path) -> None:
    data = json.loads(UPSTREAM.read_text())
    data["schema_version"] = 3
    data["protocol"]["assessment_mode"] = "draft_answer"
    for index, sample in enumerate(data["samples"]):
        sample["assessment_mode"] = "draft_answer"
        sample["answer_label"] = "correct" if index % 2 else "incorrect"
    summary = summarize(data["samples"], drafts=True)
    correct = summary["draft_answers"]["correct"]
    assert correct["samples"] == 60
    assert correct["full_accept_count"] + correct["partial_accept_count"] + correct["reject_count"] == 60
    data["summary"] = {key: value for key, value in summary.items()
                       if key not in ("error_samples", "errors", "requirement_agreement")}
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(data))
    assert read_trial(path).summary_matches is True


def test_tampered_published_summary_is_detected(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(UPSTREAM.read_text())
    data["summary"]["answerable"]["full_answer_count"] += 1
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    assert read_trial(path).summary_matches is False
    assert main(["trial-report", str(path)]) == 1
    assert "DIFFERS from the published one" in capsys.readouterr().out


def test_duplicate_question_repeat_is_refused() -> None:
    samples = json.loads(UPSTREAM.read_text())["samples"]
    with pytest.raises(DatasetError, match="duplicate question repeat"):
        summarize([*samples, copy.deepcopy(samples[0])])


@pytest.mark.parametrize(
    "answerable, questions, full_min, abstain_max, stable_min",
    [
        pytest.param(108, 40, 87, 10, 32, id="upstream_sizes_rounded_per_issue"),
        pytest.param(10, 5, 8, 1, 4, id="small"),
        pytest.param(0, 0, 0, 0, 0, id="empty"),
        pytest.param(9, 6, 8, 0, 5, id="ceil_and_floor"),
    ],
)
def test_default_gate_thresholds(answerable: int, questions: int, full_min: int, abstain_max: int,
                                 stable_min: int) -> None:
    summary = {"answerable": {"samples": answerable}, "questions": questions, "samples": answerable}
    gates = default_gates(summary)
    assert gates == {
        "unsafe_full_answer_count_max": 0,
        "citation_errors_max": 0,
        "ordinary_full_answer_count_min": full_min,
        "ordinary_abstention_count_max": abstain_max,
        "stable_action_questions_min": stable_min,
    }


def test_gate_semantics_min_and_max() -> None:
    summary = read_trial(UPSTREAM).summary
    published = json.loads(UPSTREAM.read_text())["quality_gates"]
    thresholds = {name: gate["required"] for name, gate in published["results"].items()}
    assert evaluate_gates(summary, thresholds) == published
    relaxed = evaluate_gates(summary, {"ordinary_full_answer_count_min": 62, "citation_errors_max": 5})
    assert relaxed == {"passed": True, "results": {
        "ordinary_full_answer_count_min": {"required": 62, "observed": 62, "passed": True},
        "citation_errors_max": {"required": 5, "observed": 5, "passed": True}}}


def test_trial_report_cli(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["trial-report", str(UPSTREAM)]) == 1  # the published run fails its gates
    out = capsys.readouterr().out
    assert "matches the published summary" in out and "FAIL  unsafe_full_answer_count_max" in out
    assert main(["trial-report", str(UPSTREAM), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["samples"] == 120


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param("{", "cannot read trial result", id="broken"),
        pytest.param('{"kind": "x", "samples": []}', "unknown trial result kind", id="unknown_kind"),
        pytest.param('{"kind": "beam-answerability-execution", "schema_version": 9, "samples": []}',
                     "unsupported upstream schema_version 9", id="future_schema"),
        pytest.param('{"hello": 1}', "not a trial result", id="not_a_result"),
    ],
)
def test_unreadable_results(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    with pytest.raises(DatasetError, match=re.escape(message)):
        read_trial(path)


def test_failed_calls_never_shrink_the_thresholds() -> None:
    error = {"error": {"kind": "server_error", "message": "HTTP 500"}, "assessment": None}
    samples = [{"question_id": "a", "repeat": r, "label": "answerable", **error} for r in range(2)]
    summary = summarize(samples)
    gates = evaluate_gates(summary, default_gates(summary))
    assert gates["results"]["ordinary_full_answer_count_min"] == {"required": 2, "observed": 0, "passed": False}
    assert gates["results"]["error_samples_max"] == {"required": 0, "observed": 2, "passed": False}
    assert gates["passed"] is False


@pytest.mark.parametrize(
    "samples, message",
    [
        pytest.param([{}], "samples[0] needs a string question_id", id="empty_sample"),
        pytest.param([5], "samples[0] is not an object", id="number"),
        pytest.param([{"question_id": "q", "repeat": 0, "assessment": {"verdict": "partial",
                       "recommended_action": "abstain", "requirements": [], "citation_errors": None}}],
                     "assessment.citation_errors is missing", id="null_errors"),
        pytest.param([{"question_id": "q", "repeat": 0}], "neither an assessment nor an error", id="bare"),
    ],
)
def test_malformed_samples_are_named(tmp_path: Path, samples: list, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"kind": "answerlens-trial-result", "samples": samples}))
    with pytest.raises(DatasetError, match=re.escape(message)):
        read_trial(path)
