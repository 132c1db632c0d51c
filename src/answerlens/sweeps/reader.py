"""The one reader of a sweep folder, and its verification.

Reading recomputes: every cell is cut again from ``bundle.json`` and counted again from ``samples/``, so what is
shown is derived from what was recorded. ``verify_sweep`` also re-derives every sample's assessment from its
reply over its cell's exact context and compares ``result.json`` with the recomputation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from answerlens.errors import DatasetError, TrialError
from answerlens.sweeps import folder
from answerlens.sweeps.cut import CellContext
from answerlens.sweeps.result import KIND, SweepManifest, SweepResult
from answerlens.sweeps.run import assemble, contexts_of
from answerlens.sweeps.settings import Setting, SweepFormat
from answerlens.trials import folder as trial_folder
from answerlens.trials.log import TrialSample, round_trip_problem


def is_sweep(path: Path | str) -> bool:
    """Whether ``path`` is a sweep folder or a sweep's ``result.json`` (checked by ``kind``, without parsing it all)."""
    path = Path(path)
    manifest = path / folder.MANIFEST if path.is_dir() else path.parent / folder.MANIFEST
    try:
        head = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(head, dict) and head.get("kind") == "answerlens-sweep-run"


def folder_of(path: Path | str) -> Path:
    path = Path(path)
    return path.parent if path.is_file() else path


def read_sweep(path: Path | str) -> SweepResult:
    """A sweep folder (or its ``result.json``), finished or not, recomputed from its bundle and samples."""
    return _read(folder_of(path))[0]


def _read(out: Path) -> tuple[SweepResult, SweepManifest, tuple[CellContext, ...]]:
    if not (out / folder.MANIFEST).exists():
        raise DatasetError(f"{out}: no {folder.MANIFEST}: not an answerlens sweep folder")
    manifest = folder.read_manifest(out)
    bundle = folder.read_bundle(out, manifest)
    settings = tuple(Setting(format=SweepFormat(item.format), budget=item.budget) for item in manifest.settings)
    contexts = contexts_of(bundle, settings)
    samples = _samples(out, manifest, contexts)
    recorded = _recorded(out)
    wall = recorded.get("wall_seconds") if recorded else None
    return assemble(manifest, contexts, samples, wall), manifest, contexts


def _samples(out: Path, manifest: SweepManifest, contexts: tuple[CellContext, ...]) -> list[TrialSample]:
    keys = {context.setting.key for context in contexts if context.assessable}
    found = []
    for path in sorted((out / folder.SAMPLES).glob("*.json")):
        sample = trial_folder.read_sample(path)
        if (sample.dataset_sha256, sample.configuration_sha256) != (manifest.sweep_sha256,
                                                                    manifest.configuration_sha256):
            raise TrialError(f"{path}: a sample of another sweep or configuration than {folder.MANIFEST}'s")
        if sample.case_id not in keys:
            raise TrialError(f"{path}: a sample of {sample.case_id!r}, which is not an assessable cell of this sweep")
        if sample.repeat < manifest.repeats:
            found.append(sample)
    return found


def _recorded(out: Path) -> dict[str, Any] | None:
    path = out / folder.RESULT
    if not path.exists():
        return None
    data = trial_folder.read_saved_json(path)
    if not isinstance(data, dict) or data.get("kind") != KIND:
        kind = data.get("kind") if isinstance(data, dict) else None
        raise DatasetError(f"{path}: not a sweep result (kind {kind!r})")
    return data


def verify_sweep(path: Path | str) -> tuple[int, list[str]]:
    """(samples verified, problems): each sample re-derived over its cell's exact context, then ``result.json``
    compared with the summary recomputed from the samples."""
    from answerlens.verification import verify_assessment

    out = folder_of(path)
    result, _, contexts = _read(out)
    bundles = {context.setting.key: context.bundle for context in contexts}
    problems = []
    for sample in result.samples:
        if sample.assessment is None:
            continue
        for problem in verify_assessment(sample.assessment, bundle=bundles[sample.case_id]).problems:
            problems.append(f"{sample.case_id} repeat {sample.repeat}: {problem}")
    recorded = _recorded(out)
    if recorded is None:
        problems.append(f"{out}: no {folder.RESULT} (the sweep has not finished; rerun it to resume)")
    else:
        dumped = json.loads(result.file_text())
        recorded = {key: value for key, value in recorded.items() if key != "wall_seconds"}
        missing = sorted(set(dumped) - set(recorded) - {"wall_seconds"})
        difference = round_trip_problem(recorded, dumped) or (f"$ lacks {', '.join(missing)}" if missing else None)
        if difference:
            problems.append(f"{folder.RESULT} differs from the summary recomputed from the samples: {difference}")
    return len(result.samples), problems
