"""Verifying a sweep (its folder, or the same data embedded in a report): its manifest, every sample counted once
and re-derived over its cell's exact context, every assessable cell holding ``repeats`` samples, and the recorded
``result.json`` compared with the recomputation."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from answerlens.sweeps import folder
from answerlens.sweeps.reader import Recorded, read_recorded, recompute
from answerlens.sweeps.result import SweepResult
from answerlens.trials.log import round_trip_problem
from answerlens.verification.assessment import verify_assessment
from answerlens.verification.opinion import verify_second_opinion
from answerlens.verification.samples import SampleCount
from answerlens.verification.trial import asked_problems, copy_problems, prompt_problems


@dataclass(frozen=True)
class SweepCheck:
    """A sweep as verified: the result recomputed from its samples (what every reader shows), every problem, and
    its samples against its cells × repeats."""

    result: SweepResult
    problems: tuple[str, ...]
    samples: SampleCount


def check(recorded: Recorded) -> SweepCheck:
    """The recomputed result and every problem: a sample not counted (another sweep's, a copy, beyond the repeats),
    a sample (or its second opinion) that does not re-derive over its cell's exact context, a ``result.json`` that
    differs from the recomputation; and the count (an unfinished sweep has no ``result.json`` and fewer samples)."""
    result, contexts, left_out = recompute(recorded)
    bundles = {context.setting.key: context.bundle for context in contexts}
    manifest = recorded.manifest
    problems = [*left_out, *prompt_problems(manifest.prompt_version, manifest.prompt_sha256),
                *copy_problems(result.samples),
                *asked_problems(result.samples, manifest.configuration,
                                configuration_sha256=manifest.configuration_sha256,
                                prompt_version=manifest.prompt_version,
                                prompt_sha256=manifest.prompt_sha256, second_opinion=manifest.second_opinion)]
    for sample in result.samples:
        if sample.assessment is None:
            continue
        bundle = bundles[sample.case_id]
        found = list(verify_assessment(sample.assessment, bundle=bundle).problems)
        if sample.second_opinion is not None:
            found += verify_second_opinion(sample.second_opinion, sample.assessment, bundle=bundle)
        problems += [f"{sample.case_id} repeat {sample.repeat}: {problem}" for problem in found]
    expected = sum(1 for context in contexts if context.assessable) * recorded.manifest.repeats
    count = SampleCount(expected, len(result.samples), sum(1 for s in result.samples if s.error is not None),
                        written=recorded.result is not None)
    problems += _summary_problems(result, recorded.result, count)
    return SweepCheck(result, tuple(problems), count)


def _summary_problems(result: SweepResult, recorded: Mapping[str, Any] | None, count: SampleCount) -> Sequence[str]:
    if recorded is None:
        return []  # unfinished (the count says so): rerunning the sweep resumes it and writes the result
    if count.found < count.expected:
        return [f"{folder.RESULT} is written, but the sweep holds {count.found} of {count.expected} samples: "
                "samples it counted are gone"]
    dumped = json.loads(result.file_text())
    found = dict(recorded)
    missing = sorted(set(dumped) - set(found) - {"wall_seconds"})
    difference = round_trip_problem(found, dumped) or (f"$ lacks {', '.join(missing)}" if missing else None)
    return [f"{folder.RESULT} differs from the summary recomputed from the samples: {difference}"] if difference \
        else []


def verify_sweep(path: Path | str) -> SweepCheck:
    """A sweep folder (or a file in it), verified: ``check``, and whatever its ``samples/`` holds besides samples."""
    from answerlens.sweeps.reader import folder_of
    from answerlens.verification.folder import stray_files

    checked = check(read_recorded(path))
    stray = stray_files(folder_of(path))
    return replace(checked, problems=(*checked.problems, *stray)) if stray else checked
