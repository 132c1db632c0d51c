"""A write the machine refuses (a full disk or quota, a read-only file system, no permission): every write path
says so in one line naming the file, what was kept and how to resume, exits 6 (never the bad-input 2), and loses
or truncates nothing already written; freeing the space and rerunning resumes.

The disk is a real small tmpfs when the tests run as root (CI does), else a fault-injecting writer (``os.fsync``
failing with ENOSPC): see tests/small_disk.py. Each test's failure message says which ran."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from answerlens.errors import StorageError
from answerlens.storage import replace_file, write_atomically
from tests.context_server import context_server
from tests.oracle_server import oracle_server
from tests.small_disk import TMPFS, Disk, answerlens, answerlens_freely, can_mount, small_disk
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data
from tests.trials.helpers import REPLIES, question_cases, write_dataset

EXIT_ENVIRONMENT = 6


@pytest.fixture
def disk(tmp_path: Path) -> Disk:
    with small_disk(tmp_path) as made:
        made.path.mkdir()
        yield made


def the_error_line(stderr: str, disk: Disk) -> str:
    """The one line a refused write prints; no traceback, no asyncio complaint, nothing after it."""
    assert "Traceback" not in stderr and "Task exception" not in stderr and "never retrieved" not in stderr, \
        f"({disk.how}) {stderr}"
    errors = [line for line in stderr.splitlines() if line.startswith("answerlens:")]
    assert len(errors) == 1, f"({disk.how}) {stderr}"
    return errors[0]


def every_file_whole(folder: Path) -> int:
    """Each sample file left is whole JSON and no temporary file remains; how many samples are kept."""
    files = sorted((folder / "samples").glob("*"))
    assert not [path.name for path in (folder / "samples").glob(".*")], "a temporary file was left behind"
    for path in files:
        json.loads(path.read_text())
    return len(files)


def stopped_by_a_full_disk(disk: Disk, argv: list[str], out: Path, *, margin: int) -> int:
    """Run the command on a disk left ``margin`` bytes free: exit 6 and one line naming the file, the samples kept
    and how to resume, every file left whole; how many samples were kept."""
    disk.fill(margin=margin)
    done = answerlens(disk, *argv, fail_after=12)
    assert done.returncode == EXIT_ENVIRONMENT, f"({disk.how}) exit {done.returncode}: {done.stderr}"
    line = the_error_line(done.stderr, disk)
    kept = every_file_whole(out)
    assert f"cannot write {out}" in line and "the disk is full" in line, line
    assert f"{kept} sample(s) saved in {out} are kept" in line, line
    assert "free space on that disk, then rerun the same command: it resumes after the saved samples" in line, line
    return kept


def test_a_full_disk_mid_trial_says_what_was_kept_exits_6_and_a_rerun_resumes(disk: Disk, tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    out = disk.path / "run"
    argv = ["trial", str(dataset), "--repeats", "8", "--concurrency", "2", "--out", str(out), "--provider",
            "openai", "--model", "oracle", "--no-preflight", "--early-stop", "0"]
    with oracle_server(REPLIES) as server:
        argv += ["--base-url", server.base_url]
        kept = stopped_by_a_full_disk(disk, argv, out, margin=48 * 1024)
        assert 0 < kept < 48 and not (out / "result.json").exists()
        disk.free()
        again = answerlens_freely(*argv)
    assert again.returncode in (0, 1), again.stderr  # 1: the oracle's replies fail the default gates
    assert f"{48 - kept} new, {kept} resumed, 0 error sample(s)" in again.stderr
    assert answerlens_freely("verify", str(out)).returncode == 0


def test_a_full_disk_mid_sweep_says_what_was_kept_exits_6_and_a_rerun_resumes(disk: Disk, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(bundle_data()))
    out = disk.path / "sweep"
    argv = ["sweep", str(bundle), "-q", QUESTION, "--provider", "openai", "--model", "context-oracle", "--out",
            str(out), "--repeats", "4", "--budget", "packed", "--budget", "90%", "--budget", "60%", "--no-preflight",
            "--early-stop", "0", "--concurrency", "2"]
    with context_server(REQUIREMENTS) as server:
        argv += ["--base-url", server.base_url]
        kept = stopped_by_a_full_disk(disk, argv, out, margin=64 * 1024)
        assert json.loads((out / "bundle.json").read_text()) and json.loads((out / "run.json").read_text())
        disk.free()
        again = answerlens_freely(*argv)
    assert again.returncode == 0, again.stderr
    assert f", {kept} resumed, 0 error sample(s)" in again.stderr
    assert answerlens_freely("verify", str(out)).returncode == 0


def test_a_full_disk_before_a_run_starts_writes_nothing_half(disk: Disk, tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    out = disk.path / "run"
    disk.fill(margin=0)
    done = answerlens(disk, "trial", str(dataset), "--repeats", "1", "--out", str(out), "--no-preflight",
                      "--provider", "openai", "--model", "oracle", "--base-url", "http://127.0.0.1:9/v1",
                      fail_after=0)
    assert done.returncode == EXIT_ENVIRONMENT, f"({disk.how}) exit {done.returncode}: {done.stderr}"
    line = the_error_line(done.stderr, disk)
    assert f"cannot write {out}" in line and "the disk is full" in line, line
    assert not (out / "run.json").exists() or json.loads((out / "run.json").read_text())


def test_a_report_on_a_full_disk_is_refused_and_an_older_report_survives(disk: Disk, tmp_path: Path) -> None:
    from tests.paths import PRME

    report = disk.path / "trial.html"
    report.write_text("<!doctype html><p>the report written yesterday</p>\n")
    disk.fill(margin=0)
    trial = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
    done = answerlens(disk, "report", str(trial), "-o", str(report), fail_after=0)
    assert done.returncode == EXIT_ENVIRONMENT, f"({disk.how}) exit {done.returncode}: {done.stderr}"
    line = the_error_line(done.stderr, disk)
    assert f"cannot write {report}: the disk is full" in line and "unchanged" in line, line
    assert report.read_text() == "<!doctype html><p>the report written yesterday</p>\n"
    assert [path.name for path in disk.path.iterdir() if path.name != ".filler"] == ["trial.html"]


@pytest.mark.parametrize("code, reason", [
    pytest.param(errno.ENOSPC, "the disk is full", id="enospc"),
    pytest.param(errno.EDQUOT, "the disk quota is used up", id="edquot"),
    pytest.param(errno.EROFS, "the file system is read-only", id="erofs"),
    pytest.param(errno.EACCES, "no permission to write there", id="eacces"),
])
def test_each_refusal_is_one_storage_error_and_the_old_file_stays(tmp_path: Path, code: int, reason: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The mapping itself, for refusals a tmpfs cannot make on demand: ``os.fsync`` fails (as it does on a file
    system that allocates late) and the file being replaced keeps its old text."""
    path = tmp_path / "result.json"
    path.write_text("old\n")

    def refuse(descriptor: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", refuse)
    with pytest.raises(StorageError) as caught:
        write_atomically(path, "new\n")
    assert str(caught.value).startswith(f"cannot write {path}: {reason} ({os.strerror(code)})")
    assert caught.value.path == str(path) and isinstance(caught.value, OSError) and caught.value.errno == code
    assert path.read_text() == "old\n" and [item.name for item in tmp_path.iterdir()] == ["result.json"]


def test_other_os_errors_are_not_storage_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        replace_file(tmp_path / "no-such-folder" / "x.json", "{}")


@pytest.mark.skipif(not can_mount(), reason="a real small disk needs root to mount a tmpfs (CI runs as root)")
def test_the_real_disk_fills_at_open_write_or_fsync_and_nothing_is_left_half(tmp_path: Path) -> None:
    with small_disk(tmp_path, size="1m") as made:
        assert made.how == TMPFS
        made.path.mkdir()
        kept = made.path / "kept.json"
        replace_file(kept, "{}\n")
        made.fill(margin=0)
        with pytest.raises(StorageError, match="the disk is full"):
            replace_file(made.path / "new.json", "x" * 100_000)
        with pytest.raises(StorageError, match="the disk is full"):
            replace_file(kept, "x" * 100_000)
        assert kept.read_text() == "{}\n"
        assert sorted(path.name for path in made.path.iterdir()) == [".filler", "kept.json"]
