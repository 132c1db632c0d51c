import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from pydantic import SecretStr

from answerlens import TrialError
from answerlens.engine.runner import run_trial
from answerlens.trials.dataset import load_dataset
from answerlens.trials.folder import sample_filename
from answerlens.trials.gates import Gate
from answerlens.trials.reader import read_trial
from tests.oracle_server import oracle_server
from tests.trials.helpers import BUNDLE, LABELS, REPLIES, SUPPORTED, config, finished, question_cases, write_dataset


def test_summary_counts_and_gates_on_known_answers(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with oracle_server(REPLIES) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=tmp_path / "run",
                                        concurrency=4))
    result = finished(outcome)
    assert result.summary.questions == 6 and result.summary.samples == 18
    summary = result.summary.model_dump(mode="json")  # the JSON as result.json holds it
    assert summary["unanswerable"] == {
        "samples": 9, "actions": {"abstain": 3, "answer": 3, "surface_conflict": 3},
        "unsafe_full_answer_count": 3, "explicit_abstention_count": 3, "partial_response_count": 0,
        "conflict_response_count": 3,
    }
    assert summary["answerable"] == {
        "samples": 9, "actions": {"abstain": 3, "answer": 3, "answer_partially": 3},
        "unnecessary_abstention_count": 3, "full_answer_count": 3, "partial_response_count": 3,
        "conflict_response_count": 0,
    }
    assert summary["stability"] == {"questions_with_identical_verdicts": 6, "questions_with_identical_actions": 6,
                                    "questions": 6}
    assert summary["citation_errors"] == 3
    assert summary["error_samples"] == 0
    assert summary["requirement_agreement"]["agreement_rate"] == 1.0
    assert [q["question_id"] for q in summary["per_question"]] == sorted(LABELS)
    gates = result.quality_gates
    assert gates is not None and gates.passed is False
    assert {name: (g.required, g.observed, g.passed) for name, g in gates.results.items()} == {
        "unsafe_full_answer_count_max": (0, 3, False),
        "citation_errors_max": (0, 3, False),
        "ordinary_full_answer_count_min": (8, 3, False),
        "ordinary_abstention_count_max": (0, 3, False),
        "stable_action_questions_min": (5, 6, True),
    }
    saved = json.loads((tmp_path / "run" / "samples" / sample_filename("a1", 2)).read_text())
    assert saved["case_id"] == "a1" and saved["repeat"] == 2
    assert saved["dataset_sha256"] == dataset.sha256 and saved["case_sha256"] == dataset.cases[0].sha256
    assert saved["assessment"]["verdict"] == "answerable"
    assert "api_key" not in json.dumps(result.file_json()["configuration"])


def test_draft_runs_summarise_per_answer_label(tmp_path: Path) -> None:
    cases = [
        {"id": "d1", "question": "Q a1", "label": "answerable", "bundle": BUNDLE, "answer": "Postgres 16.",
         "answer_label": "correct"},
        {"id": "d2", "question": "Q u1", "label": "answerable", "bundle": BUNDLE, "answer": "MySQL.",
         "answer_label": "incorrect"},
        {"id": "d3", "question": "Q a3", "label": "answerable", "bundle": BUNDLE, "answer": "Dana owns it.",
         "answer_label": "incorrect"},
    ]
    dataset = load_dataset(write_dataset(tmp_path / "drafts.json", cases))
    with oracle_server(REPLIES) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
    result = finished(outcome)
    drafts = result.summary.draft_answers
    assert drafts is not None and result.drafts
    assert drafts.correct.model_dump(mode="json") == {"samples": 2, "actions": {"answer": 2}, "full_accept_count": 2,
                                                      "partial_accept_count": 0, "reject_count": 0}
    assert drafts.incorrect.full_accept_count == 2 and drafts.incorrect.reject_count == 2
    assert result.quality_gates is not None
    assert set(result.quality_gates.results) == {
        "incorrect_draft_full_accept_count_max", "correct_draft_full_accept_count_min", "citation_errors_max",
        "stable_action_questions_min"}


def test_resume_reuses_saved_samples_and_never_duplicates(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with oracle_server(REPLIES) as server:
        first = asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
        (tmp_path / "run" / "samples" / sample_filename("u3", 1)).unlink()
        second = asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
        assert sum(server.requests.values()) == 13
    assert (first.new_samples, second.new_samples, second.reused_samples) == (12, 1, 11)
    assert len(list((tmp_path / "run" / "samples").glob("*.json"))) == 12
    assert finished(second).summary == finished(first).summary


def test_the_api_key_is_in_no_file_and_not_in_the_result(tmp_path: Path) -> None:
    planted = "sk-PLANTED-trial-4242"
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()[:2]))
    with oracle_server(REPLIES) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url, api_key=SecretStr(planted)), repeats=1,
                                        out=tmp_path / "run"))
    result = finished(outcome)
    assert result.configuration is not None and result.configuration.api_key is None
    assert planted not in repr(result) and planted not in json.dumps(result.file_json())
    written = [path.read_text() for path in (tmp_path / "run").rglob("*.json")]
    assert len(written) == 4 and not any(planted in text for text in written)


@pytest.mark.parametrize(
    "change, message",
    [
        pytest.param("config", "different configuration", id="other_config"),
        pytest.param("dataset", "different dataset", id="other_dataset"),
        pytest.param("prompt", "different prompt", id="other_prompt"),
    ],
)
def test_mismatched_resume_is_refused(tmp_path: Path, change: str, message: str) -> None:
    path = write_dataset(tmp_path / "cases.json", question_cases())
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(load_dataset(path), config(server.base_url), repeats=1, out=tmp_path / "run"))
        settings = {"config": config(server.base_url, seed=1), "prompt": config(server.base_url, prompt="prme")
                    }.get(change, config(server.base_url))
        if change == "dataset":
            write_dataset(path, question_cases()[:5])
        with pytest.raises(TrialError, match=message):
            asyncio.run(run_trial(load_dataset(path), settings, repeats=1, out=tmp_path / "run"))


def test_foreign_sample_in_the_directory_is_refused(tmp_path: Path) -> None:
    path = write_dataset(tmp_path / "cases.json", question_cases())
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(load_dataset(path), config(server.base_url), repeats=1, out=tmp_path / "run"))
        sample = tmp_path / "run" / "samples" / sample_filename("a1", 0)
        data = json.loads(sample.read_text())
        data["case_sha256"] = "0" * 64
        sample.write_text(json.dumps(data))
        with pytest.raises(TrialError, match="refusing to mix"):
            asyncio.run(run_trial(load_dataset(path), config(server.base_url), repeats=1, out=tmp_path / "run"))


def test_provider_failures_become_error_samples_not_verdicts(tmp_path: Path) -> None:
    cases = question_cases() + [{"id": "e1", "question": "Q e1", "label": "answerable", "bundle": BUNDLE}]
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", cases))
    with oracle_server({**REPLIES, "Q e1": 500}) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
        assert outcome.errors == 2
        summary = finished(outcome).summary
        assert summary.samples == 12 and summary.error_samples == 2
        assert {e.kind for e in summary.errors} == {"server_error"}
        assert summary.stability.questions_with_identical_actions == 6  # e1 is not counted stable
        assert summary.per_question[0].model_dump(mode="json") == {
            "question_id": "a1", "question_type": "t", "verdicts": ["answerable"] * 2, "actions": ["answer"] * 2}
        e1 = next(q for q in summary.per_question if q.question_id == "e1")
        assert e1.error_repeats == (0, 1) and e1.actions == () and not e1.stable_actions
        assert e1.model_dump(mode="json")["error_repeats"] == [0, 1]
        server.replies["Q e1"] = SUPPORTED  # the server recovers: a rerun retries only the error samples
        again = asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
    assert (again.new_samples, finished(again).summary.error_samples) == (2, 0)


def test_fail_fast_stops_without_a_result(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", [
        {"id": "e1", "question": "Q e1", "label": "answerable", "bundle": BUNDLE}, *question_cases()]))
    with oracle_server({**REPLIES, "Q e1": 503}) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=tmp_path / "run",
                                        concurrency=1, fail_fast=True))
    assert outcome.result_path is None and outcome.errors == 1
    assert not (tmp_path / "run" / "result.json").exists()


def test_cancel_keeps_finished_samples(tmp_path: Path) -> None:
    """Cancel while the fourth request is in flight (held by the server): it finishes and is kept, nothing after."""
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    cancel = threading.Event()
    seen: list = []
    with oracle_server(REPLIES, hold_after=3) as server:
        def cancel_while_held() -> None:
            if server.wait_held(1):
                cancel.set()
            server.release.set()

        canceller = threading.Thread(target=cancel_while_held)
        canceller.start()
        outcome = asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run",
                                        concurrency=1, progress=seen.append, cancel=cancel))
        canceller.join()
        assert outcome.cancelled and outcome.result_path is None and outcome.result is None
        assert sum(server.requests.values()) == 4
        kept = sorted(path.name for path in (tmp_path / "run" / "samples").glob("*.json"))
        assert kept == sorted(sample_filename(case_id, repeat) for case_id in ("a1", "a2") for repeat in range(2))
        assert outcome.new_samples == 4
        finished_run = asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
    assert finished_run.reused_samples == 4 and finished(finished_run).summary.samples == 12
    assert [update.done for update in seen] == [1, 2, 3, 4] and seen[-1].total == 12 and seen[0].rate > 0


def test_sigkill_mid_run_then_resume_ends_with_exactly_the_samples(tmp_path: Path) -> None:
    """Kill the CLI while the server holds two requests after answering six; rerunning resumes exactly."""
    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    out = tmp_path / "run"
    with oracle_server(REPLIES, hold_after=6) as server:
        command = [sys.executable, "-m", "answerlens.cli", "trial", str(dataset), "--repeats", "3",
                   "--concurrency", "2", "--out", str(out), "--provider", "openai", "--model", "oracle",
                   "--base-url", server.base_url, "--timeout", "60"]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert server.wait_held(2, timeout=60), "the run did not reach its seventh and eighth requests"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        killed_at = len(list((out / "samples").glob("*.json")))
        assert killed_at <= 6  # only answered requests can have been saved
        for path in (out / "samples").glob("*.json"):
            json.loads(path.read_text())  # every saved sample is whole
        server.release.set()
        resumed = subprocess.run(command, capture_output=True, text=True, timeout=120)
        requests = sum(server.requests.values())
    assert resumed.returncode == 1, resumed.stderr  # gates fail on this dataset; the run itself completed
    files = sorted(path.name for path in (out / "samples").glob("*.json"))
    assert files == sorted(sample_filename(case_id, r) for case_id in LABELS for r in range(3))
    assert not list((out / "samples").glob(".*.tmp"))
    report = read_trial(out)
    assert report.kind == "answerlens-trial-result" and report.summary.samples == 18
    assert requests == 8 + (18 - killed_at)  # the killed run's 8, then one per sample it had not saved
    assert f"{18 - killed_at} new, {killed_at} resumed" in resumed.stderr


def test_draft_gates_on_a_question_only_dataset_are_refused_up_front(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with pytest.raises(TrialError, match="need draft answers"):
        asyncio.run(run_trial(dataset, config("http://127.0.0.1:9/v1"), repeats=1, out=tmp_path / "run",
                              gates={Gate.INCORRECT_DRAFT_FULL_ACCEPT_COUNT_MAX: 0}))


def test_a_run_with_prmes_prompt_records_its_identity(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()[:2]))
    with oracle_server(REPLIES) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url, prompt="prme"), repeats=1,
                                        out=tmp_path / "run"))
    result = outcome.result
    assert result is not None and result.prompt_sha256 is not None
    assert (result.prompt_version, result.prompt_sha256[:8]) == ("answerability_requirements_v2", "51db73f0")
    dumped = result.model_dump(mode="json")
    assert "prompt" not in dumped["configuration"]
    assert dumped["configuration"] == config(server.base_url).public_dump()  # the prompt is not hashed
    assert {sample["assessment"]["prompt_version"] for sample in dumped["samples"]} == {
        "answerability_requirements_v2"}
