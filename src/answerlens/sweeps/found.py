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
    try:
        head = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(head, dict) and head.get("kind") == RUN_KIND
