"""Whether a path is a sweep (a folder, or a file in one), told from its ``run.json`` alone: standard library
only, so ``verify`` and ``report`` ask it before importing anything heavy."""

from __future__ import annotations

import json
from pathlib import Path

RUN_KIND = "answerlens-sweep-run"
"""``SweepManifest.kind`` (a test pins them)."""


def is_sweep(path: Path | str) -> bool:
    path = Path(path)
    manifest = path / "run.json" if path.is_dir() else path.parent / "run.json"
    from answerlens.json_reader import read_text  # the one reader: a FIFO here must not hang the question

    try:
        head = json.loads(read_text(manifest, max_bytes=16 * 2**20, inside=manifest.parent))
    except (ValueError, RecursionError):  # not readable, not JSON: not a sweep (BundleError is a ValueError)
        return False
    return isinstance(head, dict) and head.get("kind") == RUN_KIND
