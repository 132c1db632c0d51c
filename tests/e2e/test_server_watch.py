"""The app's server watches only the app's own sources: no recursive inotify watch over the checkout (a
``.venv``, ``runs/`` or ``.git`` inside it would flood the log and the kernel's watch table)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _server_pid(url: str) -> int:
    port = url.rsplit(":", 1)[1]
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--server.port" in argv and argv[argv.index(b"--server.port") + 1].decode() == port:
            return int(cmdline.parent.name)
    raise AssertionError(f"no streamlit process for {url}")


def _inotify_watches(pid: int) -> int:
    count = 0
    for info in Path(f"/proc/{pid}/fdinfo").iterdir():
        try:
            count += sum(line.startswith("inotify wd:") for line in info.read_text().splitlines())
        except OSError:
            continue
    return count


def test_the_server_sets_no_recursive_watch_over_the_checkout(page: Any, app_url: str) -> None:
    """After a first run (every module imported), the server holds no inotify watch: it watches no file at all
    (``server.fileWatcherType = "none"``), so nothing under .venv, runs/ or .git is watched, and nothing holds up
    its exit (test_shutdown_browser)."""
    page.get_by_role("button", name="Assess").wait_for()
    assert _inotify_watches(_server_pid(app_url)) == 0
