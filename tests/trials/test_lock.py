"""The run folder's lock: a second runner is refused naming the holder; a SIGKILLed holder's lock is taken over.
Real processes (the CLI), a real loopback server that holds requests so the first runner is mid-run on demand."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from answerlens.errors import TrialLockError
from answerlens.trials.lock import LOCK_FILE, RunLock
from tests.oracle_server import oracle_server
from tests.trials.helpers import REPLIES, question_cases, write_dataset


def command(dataset: Path, out: Path, base_url: str) -> list[str]:
    return [sys.executable, "-m", "answerlens.cli", "trial", str(dataset), "--repeats", "1", "--concurrency", "1",
            "--out", str(out), "--provider", "openai", "--model", "oracle", "--base-url", base_url, "--timeout", "60"]


def test_a_second_runner_is_refused_naming_the_holder_then_a_killed_holder_is_taken_over(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    out = tmp_path / "run"
    with oracle_server(REPLIES, hold_after=0) as server:
        holder = subprocess.Popen(command(dataset, out, server.base_url), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            assert server.wait_held(1, timeout=60), "the first runner did not reach its first request"
            second = subprocess.run(command(dataset, out, server.base_url), capture_output=True, text=True,
                                    timeout=60)
            record = json.loads((out / LOCK_FILE).read_text())
        finally:
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait()
        assert second.returncode == 2
        refusal = [line for line in second.stderr.splitlines() if line.startswith("answerlens:")]
        assert len(refusal) == 1, second.stderr  # one line, after the plan line
        assert f"pid {holder.pid}" in refusal[0] and record["started"] in refusal[0] and "in use" in refusal[0]
        assert record["pid"] == holder.pid
        assert json.loads((out / LOCK_FILE).read_text())["pid"] == holder.pid  # left behind by the killed holder
        server.release.set()
        resumed = subprocess.run(command(dataset, out, server.base_url), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 1, resumed.stderr  # finished (the gates fail on this dataset)
    assert (out / "result.json").exists()
    assert (out / LOCK_FILE).read_text() == ""  # a clean exit leaves no holder recorded


def test_the_lock_in_process_takes_over_a_stale_record_and_refuses_while_held(tmp_path: Path) -> None:
    (tmp_path / LOCK_FILE).write_text(json.dumps({"pid": 999999, "host": "gone", "started": "2020-01-01T00:00:00"}))
    with RunLock(tmp_path) as lock:
        assert lock.took_over is not None and lock.took_over["pid"] == 999999
        assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == os.getpid()
        with pytest.raises(TrialLockError, match=f"pid {os.getpid()}") as refused, RunLock(tmp_path):
            pass
        assert refused.value.pid == os.getpid() and refused.value.started is not None
    with RunLock(tmp_path) as again:
        assert again.took_over is None
