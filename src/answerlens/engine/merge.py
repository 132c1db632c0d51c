"""``trial-merge``: the finished shards of one run, checked and merged into the ``result.json`` (and run folder)
that one machine would have written for the same samples.

Checked, each refusal naming the folder: every shard is a finished sharded run; all share the dataset,
configuration, prompt, repeats, shard count and case list; each shard number 1..N is given exactly once (a
missing or duplicated shard is named); each shard holds exactly the samples its number owns (none missing, none
foreign), so together they hold each sample exactly once; and every sample agrees with its case in the run's
dataset and the run's configuration, and its assessment re-derives from its case's bundle (``verification.trial``),
all before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from answerlens.errors import DatasetError, TrialError
from answerlens.storage import write_atomically
from answerlens.trials import folder
from answerlens.trials.dataset import Dataset
from answerlens.trials.gates import Gate, Threshold
from answerlens.trials.lock import RunLock
from answerlens.trials.log import ResultKind, TrialSample
from answerlens.trials.reader import read_trial
from answerlens.trials.result import RunIdentity, RunManifest, TrialResult
from answerlens.trials.shard import Shard, shard_number
from answerlens.verification.folder import check_folder
from answerlens.verification.trial import dataset_problems, load_run_dataset

SHARED = ("dataset_sha256", "configuration_sha256", "prompt_sha256", "repeats", "manifest_sha256")


@dataclass(frozen=True)
class _Part:
    folder: Path
    result: TrialResult
    shard: Shard


def merge_shards(folders: Sequence[Path], out: Path, *, gates: Mapping[Gate, Threshold] | None = None,
                 dataset: Dataset | None = None) -> tuple[TrialResult, Path]:
    """Check the shards, write the merged run folder (``run.json``, ``samples/``, ``result.json``) to ``out``.

    ``dataset`` is the run's dataset; by default the file the run recorded (refused when it is gone or changed).
    """
    parts = [_read(Path(path)) for path in folders]
    if not parts:
        raise TrialError("trial-merge needs the shard folders to merge")
    _check_same_run(parts)
    by_key = _samples(parts)
    first = parts[0]
    run_dataset = load_run_dataset(first.result, dataset)
    _check_against_dataset(parts, run_dataset)
    cases = first.shard.cases or ()
    result = first.result
    assert result.dataset is not None and result.repeats is not None and result.configuration is not None
    samples = [by_key[(case_id, repeat)] for case_id in cases for repeat in range(result.repeats)]
    concurrencies = {part.result.concurrency for part in parts}
    questions = folder.question_records(run_dataset)
    identity = RunIdentity(dataset_sha256=result.dataset.sha256, configuration=result.configuration,
                           configuration_sha256=result.configuration_sha256 or "",
                           prompt_version=result.prompt_version or "", prompt_sha256=result.prompt_sha256 or "",
                           manifest_sha256=result.manifest_sha256)
    finished = [part.result.finished_at for part in parts if part.result.finished_at is not None]
    merged = folder.assemble(result.dataset, questions, samples, identity, repeats=result.repeats,
                             concurrency=concurrencies.pop() if len(concurrencies) == 1 else None, gates=gates,
                             wall_seconds=max(part.result.wall_seconds or 0.0 for part in parts),
                             drafts=any(part.result.drafts for part in parts), finished_at=max(finished, default=None),
                             case_hashes=folder.case_hashes(run_dataset), second_opinion=result.second_opinion)
    return merged, _write(out, merged, identity)


def _read(path: Path) -> _Part:
    try:
        result = read_trial(path)
    except DatasetError as exc:
        raise TrialError(f"{path}: not a finished shard ({exc})") from None
    if result.kind != ResultKind.RESULT:
        raise TrialError(f"{path}: not a finished run (no result.json yet); finish the shard first — rerun its "
                         "trial command, which resumes")
    if result.shard is None or result.shard.cases is None:
        raise TrialError(f"{path}: a run that was not sharded (run each part with --shard K/N)")
    return _Part(path, result, result.shard)


def _check_against_dataset(parts: list[_Part], dataset: Dataset) -> None:
    """Every shard's result against its own sample files and the run's dataset and configuration: records, labels,
    case hashes, and every assessment re-derived from its case's bundle. The first shard with a problem is
    refused, naming them."""
    for part in parts:
        problems = [*check_folder(part.folder).problems, *dataset_problems(part.result, dataset)]
        if problems:
            shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
            raise TrialError(f"{part.folder}: does not match the run's dataset and configuration: {shown}")


def _check_same_run(parts: list[_Part]) -> None:
    first = parts[0]
    for part in parts[1:]:
        for name in SHARED:
            if getattr(part.result, name) != getattr(first.result, name):
                raise TrialError(f"{part.folder}: a shard of another run than {first.folder} (its {name} differs)")
        if part.shard.count != first.shard.count:
            raise TrialError(f"{part.folder}: shard {part.shard.label}, but {first.folder} is shard "
                             f"{first.shard.label} (a different number of shards)")
        if part.shard.cases != first.shard.cases:
            raise TrialError(f"{part.folder}: its dataset lists other cases than {first.folder}'s")
    seen: dict[int, Path] = {}
    for part in parts:
        if part.shard.index in seen:
            raise TrialError(f"shard {part.shard.label} is given twice: {seen[part.shard.index]} and {part.folder}")
        seen[part.shard.index] = part.folder
    missing = [index for index in range(1, first.shard.count + 1) if index not in seen]
    if missing:
        names = ", ".join(f"{index}/{first.shard.count}" for index in missing)
        raise TrialError(f"shard {names} is missing (given: "
                         f"{', '.join(f'{part.shard.label} in {part.folder}' for part in parts)})")


def _samples(parts: list[_Part]) -> dict[tuple[str, int], TrialSample]:
    by_key: dict[tuple[str, int], TrialSample] = {}
    for part in parts:
        for sample in part.result.samples:
            assert isinstance(sample, TrialSample)
            key = (sample.case_id, sample.repeat)
            if shard_number(sample.case_id, sample.repeat, part.shard.count) != part.shard.index:
                raise TrialError(f"{part.folder}: holds {sample.case_id} repeat {sample.repeat}, which belongs to "
                                 f"shard {shard_number(*key, part.shard.count)}/{part.shard.count}")
            by_key[key] = sample
    first = parts[0]
    assert first.result.repeats is not None
    for case_id in first.shard.cases or ():
        for repeat in range(first.result.repeats):
            if (case_id, repeat) not in by_key:
                owner = shard_number(case_id, repeat, first.shard.count)
                where = next(part.folder for part in parts if part.shard.index == owner)
                raise TrialError(f"{where}: shard {owner}/{first.shard.count} lacks {case_id} repeat {repeat}")
    return by_key


def _write(out: Path, result: TrialResult, identity: RunIdentity) -> Path:
    """The merged folder, as a single run leaves it: ``run.json``, one file per sample, ``result.json``."""
    with RunLock(out):
        if (out / folder.RESULT).exists() or (out / folder.MANIFEST).exists():
            raise TrialError(f"{out} already holds a run; merge into a fresh directory")
        assert result.dataset is not None and result.repeats is not None
        manifest = RunManifest(dataset=result.dataset.path, repeats=result.repeats, **dict(identity),
                               second_opinion=result.second_opinion, case_hashes=result.case_hashes)
        write_atomically(out / folder.MANIFEST, folder.json_text(manifest))
        samples_dir = out / folder.SAMPLES
        samples_dir.mkdir(exist_ok=True)
        for sample in result.samples:
            assert isinstance(sample, TrialSample)
            folder.write_sample(samples_dir, sample)
        return folder.write_result(out, result)
