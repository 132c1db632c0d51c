"""The one reader of a sweep (its folder, or the same data embedded in a report), and its verification.

Reading recomputes: every cell is cut again from the bundle and counted again from the samples, so what is
shown is derived from what was recorded. Checking also re-derives every sample's assessment from its reply over
its cell's exact context and compares the recorded ``result.json`` with the recomputation.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from answerlens.errors import DatasetError, TrialError, describe_validation
from answerlens.loading import load_bundle
from answerlens.records import MemoryBundle
from answerlens.sweeps import folder
from answerlens.sweeps.cut import CellContext
from answerlens.sweeps.found import is_sweep
from answerlens.sweeps.result import KIND, SweepManifest, SweepResult
from answerlens.sweeps.run import assemble, cases_of, contexts_of
from answerlens.trials import folder as trial_folder
from answerlens.trials.dataset import LoadedCase
from answerlens.trials.folder import sample_label, sample_mismatches
from answerlens.trials.log import TrialSample, parse_samples

__all__ = ["Recorded", "folder_of", "from_embedded", "is_sweep", "read_recorded", "read_sweep", "recompute"]


@dataclass(frozen=True)
class Recorded:
    """A sweep as recorded: its manifest, bundle, samples and (once finished) ``result.json`` as JSON."""

    manifest: SweepManifest
    bundle: MemoryBundle
    samples: tuple[TrialSample, ...]
    result: Mapping[str, Any] | None

    def embedded(self) -> dict[str, Any]:
        """As JSON, for a report to carry (``from_embedded`` reads it back)."""
        return {"manifest": self.manifest.model_dump(mode="json"), "bundle": folder.bundle_json(self.bundle),
                "samples": [sample.model_dump(mode="json") for sample in self.samples],
                "result": dict(self.result) if self.result is not None else None}


def folder_of(path: Path | str) -> Path:
    path = Path(path)
    return path.parent if path.is_file() else path


def read_recorded(path: Path | str) -> Recorded:
    """A sweep folder (or a file in it) as recorded; a sample of another sweep is refused."""
    out = folder_of(path)
    if not (out / folder.MANIFEST).exists():
        raise DatasetError(f"{out}: no {folder.MANIFEST}: not an answerlens sweep folder")
    manifest = folder.read_manifest(out)
    bundle = folder.read_bundle(out, manifest)
    samples = tuple(_read_sample(file) for file in sorted((out / folder.SAMPLES).glob("*.json")))
    result_path = out / folder.RESULT
    result = trial_folder.read_saved_json(result_path) if result_path.exists() else None
    if result is not None and (not isinstance(result, dict) or result.get("kind") != KIND):
        raise DatasetError(f"{result_path}: not a sweep result (expected kind 'sweep')")
    return Recorded(manifest, bundle, samples, result)


def _read_sample(path: Path) -> TrialSample:
    sample = trial_folder.read_sample(path)
    expected = trial_folder.sample_filename(sample.case_id, sample.repeat)
    if path.name != expected:
        raise TrialError(f"{path}: a sample of {sample_label(sample)} belongs in {expected}; a copy under another "
                         "name would count twice — delete it")
    return sample


def from_embedded(data: Mapping[str, Any]) -> Recorded:
    """The sweep a report carries; ``DatasetError`` naming the field when it is not one."""
    try:
        manifest = SweepManifest.model_validate(data.get("manifest"))
    except ValidationError as exc:
        raise DatasetError(f"manifest: {describe_validation(exc)}") from None
    problem = folder.manifest_problem(manifest)
    if problem:
        raise DatasetError(f"manifest: {problem}")
    bundle = load_bundle(data.get("bundle"), name="embedded bundle")
    if folder.bundle_sha256(bundle) != manifest.bundle_sha256:
        raise DatasetError("bundle: not the bundle the sweep ran over (sha256 differs from the manifest's)")
    samples = parse_samples(data.get("samples"), TrialSample, "embedded sweep")
    result = data.get("result")
    return Recorded(manifest, bundle, samples, result if isinstance(result, dict) else None)


def read_sweep(path: Path | str) -> SweepResult:
    """A sweep folder (or its ``result.json``), finished or not, recomputed from its bundle and samples."""
    return recompute(read_recorded(path))[0]


class Recomputed(NamedTuple):
    """A sweep recomputed from its bundle and samples: the result, every cell's context, and why each sample that
    is not counted was left out (another sweep's, a second copy, a repeat beyond the sweep's, not a cell's)."""

    result: SweepResult
    contexts: tuple[CellContext, ...]
    left_out: tuple[str, ...] = ()


def recompute(recorded: Recorded) -> Recomputed:
    manifest = recorded.manifest
    settings = tuple(item.setting() for item in manifest.settings)
    contexts = contexts_of(recorded.bundle, settings)
    cases = {item.case.id: item for item in cases_of(manifest, contexts).cases}
    kept: list[TrialSample] = []
    left_out: list[str] = []
    seen: set[tuple[str, int]] = set()
    for sample in recorded.samples:
        why = _not_counted(sample, cases, manifest, seen)
        if why:
            left_out.append(f"sample {sample_label(sample)}: not counted: {why}")
            continue
        seen.add((sample.case_id, sample.repeat))
        kept.append(sample)
    wall = recorded.result.get("wall_seconds") if recorded.result else None
    seconds = isinstance(wall, int | float) and not isinstance(wall, bool) and 0 <= wall < math.inf
    # A wall time that is not seconds is left out here, and is a problem of the check's.
    return Recomputed(assemble(manifest, contexts, kept, wall if seconds else None), contexts, tuple(left_out))


def _not_counted(sample: TrialSample, cases: Mapping[str, LoadedCase], manifest: SweepManifest,
                 seen: set[tuple[str, int]]) -> str | None:
    """Why a sample is not one of this sweep's (cheap: its fields only, no re-derivation), or None."""
    if sample.case_id not in cases:
        return "not an assessable cell of this sweep"
    # Its manifest, question, draft, cell context and configuration must be this sweep's.
    problems = sample_mismatches(sample, cases[sample.case_id], dataset_sha256=manifest.sweep_sha256,
                                 configuration_sha256=manifest.configuration_sha256,
                                 manifest=manifest.manifest_sha256)
    if problems:
        return f"a sample of another sweep ({'; '.join(problems)})"
    if sample.repeat >= manifest.repeats:
        return f"repeat {sample.repeat}, and the sweep has {manifest.repeats} repeat(s)"
    if (sample.case_id, sample.repeat) in seen:
        return "recorded twice"
    return None
