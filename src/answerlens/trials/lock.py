"""The run folder's lock: one runner at a time per folder, across processes.

An exclusive ``fcntl.flock`` on ``<folder>/.lock``, held for the whole run. The kernel releases it when the holder
exits, however it exits (a SIGKILL included), so a lock file left behind by a dead holder is simply taken over.
The file records the holder's pid, host and start time, so a refused runner can say who holds the folder. The
file is never deleted: deleting it would let two runners lock two different files under the same name.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType

from answerlens.errors import TrialLockError

LOCK_FILE = ".lock"


class RunLock:
    """``with RunLock(folder):`` — creates the folder, locks it or raises ``TrialLockError`` at once (no waiting)."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / LOCK_FILE
        self._fd: int | None = None
        self.took_over: dict[str, object] | None = None
        """The record of a previous holder that is gone, when its lock file was taken over."""

    def __enter__(self) -> RunLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise _refusal(self.path.parent, holder) from None
        previous = _read(fd)
        self.took_over = previous or None
        record = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._fd is None:
            return
        os.ftruncate(self._fd, 0)  # a clean exit leaves no holder behind; a crash leaves one the kernel unlocked
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None


def _read(fd: int) -> dict[str, object]:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _refusal(folder: Path, holder: dict[str, object]) -> TrialLockError:
    pid, started, host = holder.get("pid"), holder.get("started"), holder.get("host")
    pid = pid if isinstance(pid, int) else None
    started = started if isinstance(started, str) else None
    who = f"pid {pid}" + (f" on {host}" if isinstance(host, str) else "") if pid is not None else "a runner"
    since = f", started {started}" if started else " (it has not recorded its pid yet)"
    return TrialLockError(f"{folder} is in use by another trial runner ({who}{since}); wait for it to finish or "
                          "stop it, or choose another output directory", pid=pid, started=started)
