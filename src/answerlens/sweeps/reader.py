"""The one reader of a sweep (its folder, or the same data embedded in a report), and its verification.

Reading recomputes: every cell is cut again from the bundle and counted again from the samples, so what is
shown is derived from what was recorded. Checking also re-derives every sample's assessment from its reply over
its cell's exact context and compares the recorded ``result.json`` with the recomputation.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from answerlens.trials.integrity import sample_label, sample_problems
from answerlens.trials.log import TrialSample, parse_samples, round_trip_problem

__all__ = ["Recorded", "check", "folder_of", "from_embedded", "is_sweep", "read_recorded", "read_sweep",
           "recompute", "verify_sweep"]


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


def recompute(recorded: Recorded) -> tuple[SweepResult, tuple[CellContext, ...]]:
    manifest = recorded.manifest
    settings = tuple(item.setting() for item in manifest.settings)
    contexts = contexts_of(recorded.bundle, settings)
    cases = {item.case.id: item for item in cases_of(manifest, contexts).cases}
    kept, seen = [], set()
    for sample in recorded.samples:
        if sample.case_id not in cases:
            raise TrialError(f"sample {sample.case_id!r}: not an assessable cell of this sweep")
        # Its question, draft, cell context and configuration must be this sweep's (cheap: no re-derivation).
        problems = sample_problems(sample, cases[sample.case_id], dataset_sha256=manifest.sweep_sha256,
                                   configuration_sha256=manifest.configuration_sha256, rederive=False)
        if problems:
            raise TrialError(f"sample {sample_label(sample)}: not a sample of this sweep ({'; '.join(problems)})")
        if (sample.case_id, sample.repeat) in seen:
            raise TrialError(f"sample {sample_label(sample)}: recorded twice")
        seen.add((sample.case_id, sample.repeat))
        if sample.repeat < manifest.repeats:
            kept.append(sample)
    wall = recorded.result.get("wall_seconds") if recorded.result else None
    seconds = isinstance(wall, int | float) and not isinstance(wall, bool) and 0 <= wall < math.inf
    return assemble(manifest, contexts, kept, wall if seconds else None), contexts  # else: a problem of check's


def check(recorded: Recorded) -> tuple[SweepResult, list[str]]:
    """The recomputed result, and every problem: a sample (or its second opinion) that does not re-derive over
    its cell's exact context, a missing ``result.json``, or one that differs from the recomputation."""
    from answerlens.second_opinion.verification import verify_second_opinion
    from answerlens.verification import verify_assessment

    result, contexts = recompute(recorded)
    bundles = {context.setting.key: context.bundle for context in contexts}
    problems = []
    for sample in result.samples:
        if sample.assessment is None:
            continue
        bundle = bundles[sample.case_id]
        found = list(verify_assessment(sample.assessment, bundle=bundle).problems)
        if sample.second_opinion is not None:
            found += verify_second_opinion(sample.second_opinion, sample.assessment, bundle=bundle)
        problems += [f"{sample.case_id} repeat {sample.repeat}: {problem}" for problem in found]
    problems += _summary_problems(result, recorded.result)
    return result, problems


def _summary_problems(result: SweepResult, recorded: Mapping[str, Any] | None) -> Sequence[str]:
    if recorded is None:
        return [f"no {folder.RESULT} (the sweep has not finished; rerun it to resume)"]
    dumped = json.loads(result.file_text())
    found = dict(recorded)
    missing = sorted(set(dumped) - set(found) - {"wall_seconds"})
    difference = round_trip_problem(found, dumped) or (f"$ lacks {', '.join(missing)}" if missing else None)
    return [f"{folder.RESULT} differs from the summary recomputed from the samples: {difference}"] if difference \
        else []


def verify_sweep(path: Path | str) -> tuple[int, list[str]]:
    """(samples verified, problems) of a sweep folder (or a file in it)."""
    result, problems = check(read_recorded(path))
    return len(result.samples), problems
