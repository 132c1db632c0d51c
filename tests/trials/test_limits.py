"""Bounds checked up front, alike for the CLI, the library and the Trials page: a one-line error, at once."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from answerlens import AnswerabilityConfig, TrialError
from answerlens.engine.runner import run_trial
from answerlens.engine.sweep import run_sweep
from answerlens.trials import limits
from answerlens.trials.dataset import load_dataset
from answerlens.trials.folder import SAMPLE_MAX_BYTES
from answerlens.ui.trials import job as trial_job
from tests.sweeps.helpers import bundle_data
from tests.trials.helpers import question_cases, write_dataset

CONFIG = AnswerabilityConfig(provider="openai", model="oracle", base_url="http://127.0.0.1:9/v1")


@pytest.mark.parametrize("flags, message", [
    pytest.param(["--repeats", "99999999999"], "repeats must be a whole number from 1 to 1,000 "
                 "(got 99,999,999,999)", id="huge_repeats"),
    pytest.param(["--repeats", "0"], "repeats must be", id="no_repeats"),
    pytest.param(["--concurrency", "257"], "concurrency must be a whole number from 1 to 256", id="concurrency"),
    pytest.param(["--early-stop", "-1"], "early stop must be", id="early_stop"),
    pytest.param(["--shard", "3/2"], "needs 1 ≤ K ≤ N", id="shard"),
])
def test_the_cli_refuses_out_of_bounds_in_one_line_before_reading_anything(flags: list[str], message: str,
                                                                           tmp_path: Path) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "answerlens.cli", "trial", str(tmp_path / "absent.json"),
                           "--out", str(tmp_path / "run"), *flags], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert time.monotonic() - started < 10  # no memory blow-up: the process starts, checks, exits
    assert not (tmp_path / "run").exists()


def test_the_whole_run_is_bounded(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with pytest.raises(TrialError, match="concurrency must be"):
        asyncio.run(run_trial(dataset, CONFIG, repeats=1, out=tmp_path / "run", concurrency=10_000))
    with pytest.raises(TrialError, match="101 cases × 1,000 repeats = 101,000 samples; a run holds at most 100,000"):
        limits.check_samples(101, 1_000)
    limits.check_samples(100, 1_000)
    assert not (tmp_path / "run").exists()


def test_the_trials_page_job_refuses_out_of_bounds_settings(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    job = trial_job.start(dataset, CONFIG, out=tmp_path / "run", repeats=5_000, concurrency=1)
    assert job.job.wait(30) and job.outcome is None and job.failure is not None
    assert job.failure.title == "The trial settings are out of bounds"
    assert "repeats must be a whole number from 1 to 1,000" in job.failure.message


def test_a_run_keeps_replies_its_own_verify_can_read_back(tmp_path: Path) -> None:
    """A run keeps every reply in its sample file, read back up to 64 MB: a reply limit past 8 MiB is refused up
    front (an assessment alone may take up to 1 GiB)."""
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    large = CONFIG.model_copy(update={"max_reply_bytes": limits.MAX_RUN_REPLY_BYTES + 1})
    # Escaped as JSON text a reply takes at most 6 bytes a byte (a control character as \u0000).
    assert 6 * limits.MAX_RUN_REPLY_BYTES < SAMPLE_MAX_BYTES
    with pytest.raises(TrialError, match="max_reply_bytes must be at most 8,388,608 for a trial or sweep"):
        asyncio.run(run_trial(dataset, large, repeats=1, out=tmp_path / "run"))
    with pytest.raises(TrialError, match="max_reply_bytes must be at most"):
        asyncio.run(run_sweep("Who?", bundle_data("compact"), large, formats=["compact"],
                              budgets=["packed"], repeats=1, out=tmp_path / "sweep"))
    assert not (tmp_path / "run").exists() and not (tmp_path / "sweep").exists()
    limits.check_reply_bytes(limits.MAX_RUN_REPLY_BYTES)
    limits.check_reply_bytes(None)
