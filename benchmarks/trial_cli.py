"""End-to-end trials through the command line against a bare httpx client, and start times (``make bench`` 2b, 2c).

Each trial is ``answerlens trial`` in a fresh process, timed from process start to its exit (``result.json`` is
written, fsynced, before it exits), against the delaying server. Its floor is ``httpx_trial.py``: a fresh process
that imports httpx alone and makes the same POSTs at the same concurrency against the same server; runs of the
two alternate, and the level's ratio is the floor's median time over the trial's. ``nofsync.py`` runs the trial
with ``os.fsync`` disabled, to show what durable writes cost. Start times are the median wall time of a fresh
process.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_SCRIPT = Path(sys.executable).parent / "answerlens"
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "answerlens.cli"]
"""The installed console script, as users start it."""
NO_FSYNC = [sys.executable, str(HERE / "nofsync.py")]
FLOOR = [sys.executable, str(HERE / "httpx_trial.py")]
"""The bare httpx client a trial is compared with."""


class Server:
    """``server.py`` in its own process, and the CPU it has used (to show it is not the bottleneck)."""

    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


@contextmanager
def delaying_server(delay: float) -> Iterator[Server]:
    process = subprocess.Popen([sys.executable, str(HERE / "server.py"), "--delay", str(delay)],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield Server(process, f"http://127.0.0.1:{int(process.stdout.readline())}/v1")
    finally:
        process.terminate()
        process.wait(timeout=10)


def write_payload(path: Path, bundle: Path, question: str) -> Path:
    """The JSON body a trial posts for ``question`` over ``bundle`` (openai provider), for the bare client."""
    from answerlens import AnswerabilityConfig, load_bundle
    from answerlens.prompts import prompt_for
    from answerlens.providers.openai import OpenAIEngine

    config = AnswerabilityConfig(provider="openai", model="bench", base_url="http://127.0.0.1:1/v1")
    prompt = prompt_for(config.prompt)
    messages = [{"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user_message(question, load_bundle(bundle).render().strip(), None)}]
    payload = OpenAIEngine(config, None, None)._payload(messages)  # type: ignore[arg-type]  # no request is sent
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def floor_command(payload: Path, url: str, requests: int, concurrency: int) -> list[str]:
    return [*FLOOR, "--url", url, "--payload", str(payload), "--requests", str(requests), "--concurrency",
            str(concurrency)]


def trial_command(launcher: Sequence[str], dataset: Path, url: str, repeats: int, concurrency: int,
                  out: Path) -> list[str]:
    return [*launcher, "trial", str(dataset), "--repeats", str(repeats), "--concurrency", str(concurrency),
            "--out", str(out), "--provider", "openai", "--model", "bench", "--base-url", url, "--max-retries", "0"]


def run_once(command: list[str], result: Path | None = None) -> dict[str, Any]:
    """Wall seconds from start to exit, and the child's CPU seconds (user + system, all threads). ``result``: the
    file a finished trial leaves (a run that exits early, e.g. unable to reach the server, is an error here)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1) or (result is not None and not result.exists()):
        # 1: the bench dataset fails the default gates, as it should
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": seconds, "cpu_seconds": cpu}


def level(launcher: Sequence[str], dataset: Path, server: Server, *, samples: int, repeats: int,
          concurrency: int, delay: float, runs: int, tmp: Path, name: str,
          payload: Path | None = None) -> dict[str, Any]:
    """``runs`` fresh runs of one configuration: the median fraction of ideal and every run's; with ``payload``,
    as many runs of the bare httpx client, alternating with the trial's, and the ratio of their medians."""
    ideal = samples * delay / concurrency
    measured: list[dict[str, Any]] = []
    floor: list[dict[str, Any]] = []
    for run in range(runs):
        out = tmp / f"{name}-{run}"
        arms = [("trial", trial_command(launcher, dataset, server.url, repeats, concurrency, out), out / "result.json")]
        if payload is not None:
            arms.append(("floor", floor_command(payload, server.url, samples, concurrency), None))
        for arm, command, expected in arms if run % 2 == 0 else arms[::-1]:  # alternate who goes first
            load, served = os.getloadavg()[0], server.cpu_seconds()
            result = run_once(command, expected)
            row = {**result, "load_1min_before": round(load, 2), "server_cpu_s": server.cpu_seconds() - served}
            (measured if arm == "trial" else floor).append(row)
    seconds = statistics.median(item["seconds"] for item in measured)
    found: dict[str, Any] = {
        "name": name, "samples": samples, "concurrency": concurrency, "ideal_s": ideal, "seconds": seconds,
        "fraction": ideal / seconds, "fractions": [ideal / item["seconds"] for item in measured],
        "cpu_ms_per_sample": statistics.median(item["cpu_seconds"] for item in measured) * 1000 / samples,
        "loads": [item["load_1min_before"] for item in measured],
        "server_cpu_s": statistics.median(item["server_cpu_s"] for item in measured)}
    if floor:
        floor_seconds = statistics.median(item["seconds"] for item in floor)
        found["floor"] = {
            "seconds": floor_seconds, "runs_s": [item["seconds"] for item in floor],
            "cpu_ms_per_sample": statistics.median(item["cpu_seconds"] for item in floor) * 1000 / samples,
            "loads": [item["load_1min_before"] for item in floor]}
        # Each pair ran back to back: the median of the pairs' ratios follows the load less than either median.
        found["ratios"] = [f["seconds"] / t["seconds"] for t, f in zip(measured, floor, strict=True)]
        found["ratio"] = statistics.median(found["ratios"])
        found["ratio_of_medians"] = floor_seconds / seconds
    return found


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
