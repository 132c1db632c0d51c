"""A trial that must not mislead: the preflight refuses an endpoint that cannot serve, a run whose first calls
all fail alike stops early (and resumes), identical errors are grouped with a count."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from answerlens.engine.runner import run_trial
from answerlens.errors import AnswerabilityError
from answerlens.trials.dataset import load_dataset
from answerlens.trials.failures import EarlyStopWatch, group_errors
from answerlens.trials.log import QuestionLabel, SampleError
from answerlens.trials.summary import ErrorEntry
from tests.oracle_server import oracle_server
from tests.trials.helpers import REPLIES, closed_url, config, question_cases, write_dataset


def test_the_preflight_refuses_an_unreachable_endpoint_before_any_sample(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with pytest.raises(AnswerabilityError, match="the trial was not started: .* is not reachable") as refused:
        asyncio.run(run_trial(dataset, config(closed_url()), repeats=2, out=tmp_path / "run"))
    assert refused.value.kind == "preflight" and "--no-preflight" not in str(refused.value), "each interface says it"
    assert not (tmp_path / "run").exists(), "refused before anything was created"


def test_the_cli_refusal_names_its_own_flag_and_leaves_no_folder(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from answerlens.cli import main

    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    code = main(["trial", str(dataset), "--repeats", "1", "--out", str(tmp_path / "run"), "--provider", "ollama",
                 "--model", "oracle", "--base-url", closed_url()])
    err = capsys.readouterr().err
    assert code != 0 and "the trial was not started" in err and "--no-preflight" in err
    assert not (tmp_path / "run").exists()


def test_the_preflight_refuses_a_missing_model(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with oracle_server(REPLIES, models=("llama3",)) as server:
        with pytest.raises(AnswerabilityError, match="model 'oracle' is not on"):
            asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run"))
        assert sum(server.requests.values()) == 0


def test_a_run_whose_first_calls_all_fail_alike_stops_early_and_resumes(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    failing = {question: 503 for question in REPLIES}
    with oracle_server(failing) as server:
        stopped = asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=tmp_path / "run",
                                        concurrency=1, early_stop=4))
        assert stopped.result is None and stopped.stopped is not None
        assert stopped.stopped.kind == "server_error" and stopped.stopped.calls == 4
        assert "HTTP 503" in stopped.stopped.text
        assert sum(server.requests.values()) == 4 and stopped.new_samples == 4
        server.replies.update(REPLIES)  # the server is fixed: rerunning retries the error samples and goes on
        resumed = asyncio.run(run_trial(dataset, config(server.base_url), repeats=3, out=tmp_path / "run",
                                        concurrency=2, early_stop=4))
    assert resumed.result is not None and resumed.result.summary.error_samples == 0
    assert resumed.new_samples == 18


def test_mixed_failures_do_not_stop_a_run() -> None:
    watch = EarlyStopWatch(3)
    assert watch.record(SampleError(kind="timeout", message="a")) is None
    assert watch.record(None) is None
    assert watch.record(SampleError(kind="timeout", message="a")) is None
    assert EarlyStopWatch(0).record(SampleError(kind="x", message="y")) is None
    two = EarlyStopWatch(2)
    two.record(SampleError(kind="schema", message="first"))
    stop = two.record(SampleError(kind="schema", message="second"))
    assert stop is not None and stop.message == "first"


def test_identical_errors_are_grouped_with_a_count_largest_first() -> None:
    def entry(question: str, repeat: int, kind: str, message: str) -> ErrorEntry:
        return ErrorEntry(question_id=question, repeat=repeat, label=QuestionLabel.ANSWERABLE, answer_label=None,
                          kind=kind, message=message)

    groups = group_errors([entry("a", 0, "schema", "bad"), entry("b", 0, "timeout", "slow"),
                           entry("b", 1, "timeout", "slow"), entry("c", 0, "schema", "other")])
    assert [(group.kind, group.message, group.count, group.first_question_id) for group in groups] == [
        ("timeout", "slow", 2, "b"), ("schema", "bad", 1, "a"), ("schema", "other", 1, "c")]


def test_the_cli_says_why_it_stopped_early_in_one_line_and_exits_3(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from answerlens.cli import main

    path = write_dataset(tmp_path / "cases.json", question_cases())
    code = main(["trial", str(path), "--repeats", "2", "--out", str(tmp_path / "run"), "--provider", "openai",
                 "--model", "oracle", "--base-url", closed_url(), "--no-preflight", "--concurrency", "1"])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("answerlens:")]
    assert code == 3 and len(lines) == 1
    assert "stopped early: the first 5 calls all failed with connection_refused" in lines[0]
    assert "rerun the same command to resume" in lines[0]
    assert not (tmp_path / "run" / "result.json").exists()
