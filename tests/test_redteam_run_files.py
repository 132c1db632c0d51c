"""What sits in a run folder is not always what a run wrote: a FIFO, a device, a socket, a symlink out of the folder,
a 1.5 GB file. ``verify``, ``sweep-report``, ``report`` and ``trial-report`` refuse each at once, naming the file
and (for a size) the cap, through the one reader (``answerlens.json_reader.read_bytes``); none hangs or runs out
of memory.

A command that hangs is the failure here, so the FIFO cases run the CLI in a subprocess with a timeout as the
failure detector (a refusal takes about a second, the process's start)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from answerlens.cli import main
from answerlens.engine.runner import run_trial
from answerlens.trials.dataset import load_dataset
from tests.context_server import context_server
from tests.oracle_server import oracle_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data
from tests.trials.helpers import REPLIES, config, question_cases, write_dataset

HANG = 120
"""Seconds after which a command counts as hung (a failure detector, never waited out when all is well)."""


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished sweep and one finished trial, copied by each test before it plants a file."""
    folder = tmp_path_factory.mktemp("finished")
    bundle = folder / "bundle-source.json"
    bundle.write_text(json.dumps(bundle_data()))
    with context_server(REQUIREMENTS) as server:
        assert main(["sweep", str(bundle), "-q", QUESTION, "--provider", "openai", "--model", "context-oracle",
                     "--base-url", server.base_url, "--out", str(folder / "sweep"), "--repeats", "1",
                     "--format", "compact", "--budget", "packed", "--no-preflight"]) == 0
    dataset = load_dataset(write_dataset(folder / "cases.json", question_cases()[:2]))
    with oracle_server(REPLIES) as server:
        asyncio.run(run_trial(dataset, config(server.base_url), repeats=1, out=folder / "trial", concurrency=1,
                              early_stop=0, preflight=False))
    return {"sweep": folder / "sweep", "trial": folder / "trial"}


def copy(finished: dict[str, Path], kind: str, tmp_path: Path, command: str = "verify") -> Path:
    """A copy of a finished run; a trial's without its result.json for a report, which then reads the samples (a
    finished trial's report reads result.json alone)."""
    run = Path(shutil.copytree(finished[kind], tmp_path / kind))
    if kind == "trial" and command in ("report", "trial-report"):
        (run / "result.json").unlink()
    return run


def a_sample(run: Path) -> Path:
    return sorted((run / "samples").glob("*.json"))[0]


def fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run([sys.executable, "-m", "answerlens.cli", *argv], capture_output=True, text=True,
                              timeout=HANG, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"answerlens {' '.join(argv)} hung on a FIFO")


COMMANDS: dict[str, Callable[[Path, Path], list[str]]] = {
    "verify": lambda run, tmp: ["verify", str(run)],
    "sweep-report": lambda run, tmp: ["sweep-report", str(run)],
    "trial-report": lambda run, tmp: ["trial-report", str(run)],
    "report": lambda run, tmp: ["report", str(run), "-o", str(tmp / "report.html")],
}


@pytest.mark.parametrize("kind, command, planted", [
    pytest.param("sweep", "verify", "sample", id="sweep_verify_sample"),
    pytest.param("sweep", "sweep-report", "sample", id="sweep_report_sample"),
    pytest.param("sweep", "report", "sample", id="sweep_html_report_sample"),
    pytest.param("sweep", "verify", "result.json", id="sweep_verify_result"),
    pytest.param("sweep", "sweep-report", "bundle.json", id="sweep_report_bundle"),
    pytest.param("sweep", "verify", "run.json", id="sweep_verify_manifest"),
    pytest.param("trial", "verify", "sample", id="trial_verify_sample"),
    pytest.param("trial", "report", "sample", id="trial_html_report_sample"),
    pytest.param("trial", "verify", "result.json", id="trial_verify_result"),
    pytest.param("trial", "trial-report", "result.json", id="trial_report_result"),
])
def test_a_fifo_in_a_run_folder_is_refused_at_once(finished: dict[str, Path], tmp_path: Path, kind: str,
                                                   command: str, planted: str) -> None:
    run = copy(finished, kind, tmp_path, command if planted == "sample" else "verify")
    target = a_sample(run) if planted == "sample" else run / planted
    fifo(target)
    done = cli(*COMMANDS[command](run, tmp_path))
    assert done.returncode in (1, 2), done
    shown = done.stdout + done.stderr
    assert "Traceback" not in shown
    if planted != "run.json":  # a FIFO where run.json belongs: the folder is not a sweep's, said as such
        assert f"{target}: is a FIFO (named pipe), not a regular file" in shown, shown
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize("kind, command", [
    pytest.param("sweep", "verify", id="sweep_verify"),
    pytest.param("sweep", "sweep-report", id="sweep_report"),
    pytest.param("trial", "verify", id="trial_verify"),
    pytest.param("trial", "report", id="trial_report"),
])
@pytest.mark.parametrize("plant", ["dev_zero", "socket", "outside", "sparse_1_5_gb"])
def test_a_sample_that_is_not_a_file_the_run_wrote_is_refused(finished: dict[str, Path], tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str], kind: str,
                                                              command: str, plant: str) -> None:
    run = copy(finished, kind, tmp_path, command)
    target = a_sample(run)
    target.unlink()
    expected = {"dev_zero": "is a character device, not a regular file", "socket": "is a socket, not a regular file",
                "outside": "is a symbolic link to a file outside",
                "sparse_1_5_gb": "file is 1430.5 MB (1,500,000,000 bytes); the limit is 64 MB"}[plant]
    keep: socket.socket | None = None
    if plant == "dev_zero":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root (CI runs as root)")
        os.mknod(target, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers: it never ends
    elif plant == "socket":
        keep = socket.socket(socket.AF_UNIX)
        short = Path(tempfile.mkdtemp(dir="/tmp")) / "s"  # a socket's path is at most 107 bytes: bound, then moved
        keep.bind(str(short))
        short.rename(target)
    elif plant == "outside":
        secret = tmp_path / "elsewhere.json"
        shutil.copy(a_sample(finished[kind]), secret)  # even a genuine sample: it is not in the folder
        target.symlink_to(secret)
    else:
        with target.open("wb") as handle:
            handle.truncate(1_500_000_000)
    code = main(COMMANDS[command](run, tmp_path))
    shown = "".join(capsys.readouterr())
    if keep is not None:
        keep.close()
    assert code in (1, 2), shown
    assert f"{target}: " in shown and expected in shown, shown
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize("named", ["dataset", "gates", "endpoints"])
def test_a_fifo_named_as_a_trials_input_is_refused_at_once(tmp_path: Path, named: str) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases()[:1])
    target = tmp_path / f"{named}.fifo"
    os.mkfifo(target)
    argv = ["trial", str(target if named == "dataset" else dataset), "--out", str(tmp_path / "run"),
            "--no-preflight"]
    argv += {"gates": ["--gates", str(target)], "endpoints": ["--endpoints", str(target)]}.get(named, [])
    done = cli(*argv)
    assert done.returncode == 2, done
    assert f"{target}: " in done.stderr and "is a FIFO (named pipe), not a regular file" in done.stderr, done.stderr
