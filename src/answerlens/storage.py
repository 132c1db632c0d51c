"""Durable writes of whole files, and the machine's refusals of them as one error.

Every file answerlens writes (run folders' samples, manifests and results, reports) goes to a temporary file
beside it, is fsynced and renamed over the old one, so a file is either whole or absent and a failed write never
truncates what was there. A refusal by the machine — the disk or quota full, a read-only file system, no permission
— is a ``StorageError`` naming the file; other ``OSError``\\ s (a missing folder …) pass unchanged.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from answerlens.errors import StorageError

REFUSALS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "no permission to write there",
    errno.EPERM: "no permission to write there",
    errno.EFBIG: "the file is larger than this file system or process may write",
}
"""The ``errno`` values that mean the machine refused a write, in words."""
KEPT = "what was there before is unchanged (a file is written whole or not at all)"


def full(code: int | None) -> bool:
    """Whether a refusal is for want of space (a full disk or quota), rather than of permission."""
    return code in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def remedy(code: int | None) -> str:
    """What frees a refused write: space for a full disk or quota, a permission for the rest."""
    return "free space on that disk" if full(code) else "make that folder writable (or choose another)"



def refusal(exc: OSError) -> str | None:
    """The refusal in words (with the system's own text), or None when the error is not a refusal to write."""
    reason = REFUSALS.get(exc.errno) if exc.errno is not None else None
    if reason is None:
        return None
    return f"{reason} ({exc.strerror})" if exc.strerror else reason


@contextmanager
def refusals(path: Path | str, *, kept: str = KEPT, resume: str | None = None) -> Iterator[None]:
    """``with refusals(path):`` around a write: the machine's refusal becomes a ``StorageError`` naming ``path``."""
    try:
        yield
    except StorageError:
        raise
    except OSError as exc:
        reason = refusal(exc)
        if reason is None:
            raise
        then = resume or f"{remedy(exc.errno)}, then run the same command again"
        raise StorageError(str(path), reason, errno=exc.errno, kept=kept, resume=then) from exc


def temporary_name(name: str) -> str:
    """Where ``name`` is written before it is renamed into place (a run folder's preparation clears leftovers)."""
    return f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"


def replace_file(path: Path, content: str | bytes) -> None:
    """Write a temporary file (text as UTF-8, bytes as they are), fsync it, rename it over ``path``. Durable once
    the directory is synced too. On any failure the temporary file is removed (a full disk gets its space back) and
    ``path`` is as it was."""
    tmp = path.with_name(temporary_name(path.name))
    data = content.encode("utf-8") if isinstance(content, str) else content
    with refusals(path):
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise


def sync_directory(folder: Path) -> None:
    """fsync a folder, so that the renames into it survive a crash."""
    with refusals(folder):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write, fsync, rename over, fsync the directory: the file is either whole or absent."""
    replace_file(path, content)
    sync_directory(path.parent)
