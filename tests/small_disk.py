"""A disk that fills up, for the tests of what answerlens does when a write is refused.

Run as root where mounting is allowed (CI is), ``small_disk`` mounts a real tmpfs of a few megabytes and fills it up to a margin with a
filler file: the next writes meet a genuine ``ENOSPC`` wherever the kernel says so (opening, writing, fsync).
Elsewhere it falls back to a fault-injecting writer: a command run through ``python_with_fault`` sees ``os.fsync``
raise ``ENOSPC`` once a number of files were synced. ``Disk.how`` says which ran (tests put it in their messages).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

TMPFS = "tmpfs"
INJECTED = "injected"


@dataclass
class Disk:
    path: Path
    """A folder on the small disk (on the fallback: an ordinary folder)."""
    how: str
    """``tmpfs`` (a real small file system) or ``injected`` (a writer that fails)."""
    filler: Path | None = None

    def fill(self, margin: int) -> None:
        """Leave about ``margin`` bytes free (tmpfs); on the fallback the fault is injected instead."""
        if self.how != TMPFS:
            return
        self.filler = self.path / ".filler"
        free = os.statvfs(self.path).f_bavail * os.statvfs(self.path).f_frsize
        with self.filler.open("wb") as handle:
            handle.write(b"\0" * max(free - margin, 0))

    def free(self) -> None:
        """Free the space (rerunning must then resume)."""
        if self.filler is not None:
            self.filler.unlink(missing_ok=True)
            self.filler = None


@functools.cache
def can_mount() -> bool:
    """Whether this process may mount a tmpfs (root on Linux, and a container that allows it): tried once."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return False
    with tempfile.TemporaryDirectory() as folder:
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder], capture_output=True).returncode:
            return False
        subprocess.run(["umount", folder], check=False)
    return True


@contextmanager
def small_disk(tmp_path: Path, size: str = "8m") -> Iterator[Disk]:
    """A small disk under ``tmp_path`` (see the module docstring), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if can_mount():
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(mount)], check=True)
        try:
            yield Disk(mount / "data", TMPFS)
        finally:
            subprocess.run(["umount", "-l", str(mount)], check=False)
        return
    yield Disk(mount / "data", INJECTED)


FAULT = """
import errno, os, sys
_real, _count = os.fsync, [0]
def _fsync(fd):
    _count[0] += 1
    if _count[0] > {after}:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return _real(fd)
os.fsync = _fsync
from answerlens.cli import main
sys.exit(main(sys.argv[1:]))
"""


def answerlens(disk: Disk, *argv: str, fail_after: int, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The CLI in a fresh process; on the fallback its ``os.fsync`` fails after ``fail_after`` syncs."""
    if disk.how == TMPFS:
        command = [sys.executable, "-m", "answerlens.cli", *argv]
    else:
        command = [sys.executable, "-c", FAULT.format(after=fail_after), *argv]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def answerlens_freely(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "answerlens.cli", *argv], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
