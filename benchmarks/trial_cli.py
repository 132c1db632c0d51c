"""End-to-end trials through the command line, and start times (``make bench`` parts 6 and 7).

Each trial is ``answerlens trial`` in a fresh process, timed from process start to its exit (``result.json`` is
written, fsynced, before it exits), against the delaying server. ``nofsync.py`` runs the same command with
``os.fsync`` disabled, to show what durable writes cost. Start times are the median wall time of a fresh process.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_SCRIPT = Path(sys.executable).parent / "answerlens"
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "answerlens.cli"]
"""The installed console script, as users start it."""
NO_FSYNC = [sys.executable, str(HERE / "nofsync.py")]


def trial_command(launcher: Sequence[str], dataset: Path, url: str, repeats: int, concurrency: int,
                  out: Path) -> list[str]:
    return [*launcher, "trial", str(dataset), "--repeats", str(repeats), "--concurrency", str(concurrency),
            "--out", str(out), "--provider", "openai", "--model", "bench", "--base-url", url, "--max-retries", "0"]


def run_once(command: list[str]) -> dict[str, Any]:
    """Wall seconds from start to exit, and the child's CPU seconds (user + system, all threads)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: the bench dataset fails the default gates, as it should
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": seconds, "cpu_seconds": cpu}


def level(launcher: Sequence[str], dataset: Path, url: str, *, samples: int, repeats: int, concurrency: int,
          delay: float, runs: int, tmp: Path, name: str) -> dict[str, Any]:
    """``runs`` fresh runs of one configuration: the median fraction of ideal and every run's."""
    ideal = samples * delay / concurrency
    measured = []
    for run in range(runs):
        load = os.getloadavg()[0]
        result = run_once(trial_command(launcher, dataset, url, repeats, concurrency, tmp / f"{name}-{run}"))
        measured.append({**result, "load_1min_before": round(load, 2)})
    seconds = statistics.median(item["seconds"] for item in measured)
    return {"name": name, "samples": samples, "concurrency": concurrency, "ideal_s": ideal, "seconds": seconds,
            "fraction": ideal / seconds, "fractions": [ideal / item["seconds"] for item in measured],
            "cpu_ms_per_sample": statistics.median(item["cpu_seconds"] for item in measured) * 1000 / samples,
            "loads": [item["load_1min_before"] for item in measured]}


ASSESSMENT = HERE.parent / "tests" / "fixtures" / "prme" / "assessments" / "assessment_reader_openai.json"


def start_times(result_file: Path, rounds: int) -> dict[str, dict[str, float]]:
    """Median and spread of a fresh process for ``--help``, ``trial --help``, ``verify`` of one assessment (the
    start-time target) and ``verify`` of a 120-sample ``result.json`` (start plus verifying every sample)."""
    commands = {"answerlens --help": [*CLI, "--help"], "answerlens trial --help": [*CLI, "trial", "--help"],
                "answerlens verify assessment.json": [*CLI, "verify", str(ASSESSMENT)],
                f"answerlens verify result.json (120 samples, {result_file.stat().st_size / 1e6:.1f} MB)":
                    [*CLI, "verify", str(result_file)]}
    found = {}
    for label, command in commands.items():
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False)
            times.append(time.perf_counter() - started)
        found[label] = {"median_s": statistics.median(times), "min_s": min(times), "max_s": max(times)}
    return found
