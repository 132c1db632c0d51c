"""A trial in a background thread: waiting on its progress and its end (events, not sleeps), cancel, failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens import AnswerabilityConfig
from answerlens.errors import AnswerabilityError, DatasetError, StorageError, TrialError
from answerlens.trials.dataset import Dataset, load_dataset
from answerlens.ui.trials import job as trial_job
from tests.oracle_server import judgement, oracle_server

BUNDLE = {"records": [{"text": "The API uses Postgres 16."}]}


def dataset(folder: Path, cases: int = 3) -> Dataset:
    items = [{"id": f"q{index}", "question": f"Q {index}", "label": "answerable", "bundle": BUNDLE}
             for index in range(cases)]
    (folder / "cases.json").write_text(json.dumps(items))
    return load_dataset(folder / "cases.json")


def config(base_url: str) -> AnswerabilityConfig:
    return AnswerabilityConfig(provider="openai", model="oracle", base_url=base_url, timeout=10, max_retries=0)


def test_progress_then_cancel_then_the_outcome(tmp_path: Path) -> None:
    replies = {f"Q {index}": judgement(("Database", "supported", ["m1"])) for index in range(3)}
    with oracle_server(replies, hold_after=2) as server:
        job = trial_job.start(dataset(tmp_path), config(server.base_url), out=tmp_path / "run", repeats=2,
                              concurrency=1)
        assert job.total == 6
        assert job.wait_for_samples(2, timeout=30) and job.job.running
        assert job.job.progress is not None and job.job.progress.done == 2
        assert server.wait_held(1)
        job.job.cancel()
        server.release.set()
        assert job.job.wait(30) and not job.job.running
    assert job.failure is None and job.outcome is not None
    assert job.outcome.cancelled and job.outcome.new_samples == 3 and job.outcome.result is None
    assert job.wait_for_samples(99, timeout=0)  # an ended run never blocks a waiter
    assert job.job.seconds >= 0


def test_a_failure_is_a_message_never_a_traceback(tmp_path: Path) -> None:
    with oracle_server({}) as server:
        first = trial_job.start(dataset(tmp_path), config(server.base_url), out=tmp_path / "run", repeats=1,
                                concurrency=2)
        assert first.job.wait(30) and first.outcome is not None and first.outcome.result is not None
        (tmp_path / "other").mkdir()
        other = trial_job.start(dataset(tmp_path / "other", cases=2), config(server.base_url), out=tmp_path / "run",
                                repeats=1, concurrency=2)
        assert other.job.wait(30)
    assert other.outcome is None and other.failure is not None
    assert other.failure.title == "The trial did not start"
    assert "different dataset" in other.failure.message and "fresh output directory" in other.failure.remedy


class _Refusal(TrialError):
    """A refusal as the engine's preflight may raise it: with its own remedy."""

    remedy = "start Ollama with ollama serve"


@pytest.mark.parametrize(
    "exc, title, remedy",
    [
        pytest.param(TrialError("repeats must be at least 1"), "The trial did not start", "fix what the message",
                     id="trial_error"),
        pytest.param(_Refusal("no server answers at http://127.0.0.1:9/v1"), "The trial did not start",
                     "start Ollama with ollama serve", id="refusal_with_its_remedy"),
        pytest.param(DatasetError("cases.json: case q1: no question"), "The dataset cannot be used",
                     "fix the case named above", id="dataset"),
        pytest.param(AnswerabilityError("Ollama at http://127.0.0.1:9/v1 is not reachable",
                                        kind="connection_refused",
                                        remedy="start it with `ollama serve`, or use the recorded response"),
                     "The trial stopped: the endpoint failed", "start the model server", id="endpoint"),
        pytest.param(OSError("disk full"), "The trial stopped", "writable", id="os_error"),
        pytest.param(StorageError("runs/q/samples/a.json", "the disk is full", kept="3 sample(s) saved in runs/q are "
                                  "kept", resume="free space on that disk, then run it again: it resumes"),
                     "The trial stopped: the disk refused a write", "free space on that disk", id="disk_full"),
        pytest.param(KeyError("bug"), "Unexpected error (a bug in answerlens)", "server log", id="bug"),
    ],
)
def test_failure_for_says_what_went_wrong_and_what_applies(exc: Exception, title: str, remedy: str) -> None:
    failure = trial_job.failure_for(exc)
    assert failure.title == title and failure.remedy is not None and remedy in failure.remedy
    assert "recorded response" not in failure.message + failure.remedy  # the Trials page offers none


def test_a_folder_another_runner_holds_is_refused_with_its_pid(tmp_path: Path) -> None:
    import os

    from answerlens.trials.lock import RunLock

    with oracle_server({}) as server, RunLock(tmp_path / "run"):
        job = trial_job.start(dataset(tmp_path), config(server.base_url), out=tmp_path / "run", repeats=1,
                              concurrency=1)
        assert job.job.wait(30)
        assert sum(server.requests.values()) == 0
    assert job.outcome is None and job.failure is not None
    assert job.failure.title == "Another run is writing to this output directory"
    assert f"pid {os.getpid()}" in job.failure.message


def test_an_endpoint_that_is_not_there_is_refused_before_any_sample(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    job = trial_job.start(dataset(tmp_path), config(url), out=tmp_path / "run", repeats=1, concurrency=1)
    assert job.job.wait(30) and job.failure is not None
    assert job.failure.title == "The endpoint cannot serve this trial"
    assert "not reachable" in job.failure.message
