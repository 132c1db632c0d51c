"""A run folder on disk: ``run.json``, one durable file per sample, ``result.json``; the checks of a resume; and the
``TrialResult`` of a run's samples (``assemble``: one builder for a single run, a shard and a merge, so a merge of
shards writes exactly what one machine would have written).

A sample file is written atomically the moment its assessment finishes, so a killed run loses only what was in
flight; rerunning resumes after checking every saved sample belongs to the same dataset and configuration.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from answerlens.audit import configuration_sha256, manifest_sha256, sha256_text
from answerlens.config import AnswerabilityConfig
from answerlens.errors import TrialError, describe_validation
from answerlens.prompts import prompt_for
from answerlens.trials.dataset import Dataset, LoadedCase
from answerlens.trials.gates import Gate, Threshold, default_gates, evaluate_gates
from answerlens.trials.log import ResultKind, TrialSample, round_trip_problem
from answerlens.trials.result import (
    DatasetRecord,
    QuestionRecord,
    RunIdentity,
    RunManifest,
    TrialResult,
    trial_manifest,
)
from answerlens.trials.shard import Shard
from answerlens.trials.summary import summarize

SAMPLES = "samples"
MANIFEST = "run.json"
RESULT = "result.json"


def run_identity(dataset: Dataset, config: AnswerabilityConfig, *, repeats: int | None = None,
                 second_opinion: bool = False, manifest: str | None = None) -> RunIdentity:
    """What a saved sample must share with the current run to be reused (the configuration without its key): with
    ``repeats``, the trial's manifest hash over ``dataset``; ``manifest`` gives another run's own (a sweep's)."""
    prompt = prompt_for(config.prompt)
    identity = RunIdentity(dataset_sha256=dataset.sha256, configuration=config.model_copy(update={"api_key": None}),
                           configuration_sha256=configuration_sha256(config.public_dump()),
                           prompt_version=prompt.version, prompt_sha256=prompt.sha256, manifest_sha256=manifest)
    if manifest is None and repeats is not None:
        fields = trial_manifest(dataset_sha256=identity.dataset_sha256, case_hashes=case_hashes(dataset),
                                repeats=repeats, configuration=identity.configuration,
                                configuration_sha256=identity.configuration_sha256,
                                prompt_version=identity.prompt_version, prompt_sha256=identity.prompt_sha256,
                                second_opinion=second_opinion)
        identity = identity.model_copy(update={"manifest_sha256": manifest_sha256(fields)})
    return identity


def case_hashes(dataset: Dataset) -> dict[str, str]:
    """Every case's hash by id, in the dataset's order (the manifest lists them)."""
    return {item.case.id: item.sha256 for item in dataset.cases}


def sample_filename(case_id: str, repeat: int) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", case_id)[:60].strip("._") or "case"
    return f"{slug}-{sha256_text(case_id)[:8]}-r{repeat:03d}.json"


def json_text(model: BaseModel, *, exclude: set[str] | None = None) -> str:
    """The one layout of every file of a run: two-space indents, non-ASCII kept, a final newline.

    pydantic's serializer (compiled) writes what ``json.dumps(model.model_dump(mode="json"), indent=2,
    ensure_ascii=False)`` writes, at a fraction of the cost (only floats below 1e-4 are spelt without an exponent).
    """
    return model.model_dump_json(indent=2, exclude=exclude) + "\n"


def temporary_name(name: str) -> str:
    """Where ``name`` is written before it is renamed into place (``prepare_output`` clears leftovers)."""
    return f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"


def replace_file(path: Path, text: str) -> None:
    """Write a temporary file, fsync it, rename it over ``path``. Durable once the directory is synced too."""
    tmp = path.with_name(temporary_name(path.name))
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def write_atomically(path: Path, text: str) -> None:
    """Write, fsync, rename over, fsync the directory: the file is either whole or absent."""
    replace_file(path, text)
    sync_directory(path.parent)


def sync_directory(folder: Path) -> None:
    """fsync a folder, so that the renames into it survive a crash."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_sample(samples_dir: Path, sample: TrialSample) -> None:
    write_atomically(samples_dir / sample_filename(sample.case_id, sample.repeat), json_text(sample))


def write_result(out: Path, result: TrialResult) -> Path:
    path = out / RESULT
    write_atomically(path, result.file_text())
    return path


def read_saved_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TrialError(f"{path}: unreadable saved file ({exc}); delete it to rerun that sample") from None


def read_manifest(path: Path) -> RunManifest:
    try:
        return RunManifest.model_validate(read_saved_json(path))
    except ValidationError as exc:
        raise TrialError(f"{path}: not the manifest of an answerlens run ({describe_validation(exc)})") from None


def prepare_output(out: Path, dataset: Dataset, identity: RunIdentity, repeats: int, *,
                   shard: Shard | None = None, second_opinion: bool = False) -> Path:
    """Create the folder (or check it holds a run of this dataset, configuration, shard and second-opinion
    setting); the samples folder. Call it holding the folder's ``RunLock``: it clears leftover temporary files."""
    samples = out / SAMPLES
    samples.mkdir(parents=True, exist_ok=True)
    for leftover in samples.glob(".*.tmp"):
        leftover.unlink()  # a write that was killed before its rename (no other runner: the caller holds the lock)
    run_file = out / MANIFEST
    plain = shard.plain() if shard is not None else None
    if not run_file.exists():
        manifest = RunManifest(dataset=str(dataset.path), repeats=repeats, **dict(identity), shard=plain,
                               second_opinion=second_opinion, case_hashes=case_hashes(dataset))
        write_atomically(run_file, json_text(manifest))
        return samples
    saved = read_manifest(run_file)
    for name, was, now in (("dataset", saved.dataset_sha256, identity.dataset_sha256),
                           ("configuration", saved.configuration_sha256, identity.configuration_sha256),
                           ("prompt", saved.prompt_sha256, identity.prompt_sha256),
                           ("shard", _label(saved.shard), _label(plain)),
                           ("second-opinion setting", str(saved.second_opinion), str(second_opinion)),
                           ("number of repeats", str(saved.repeats), str(repeats)),
                           ("manifest", str(saved.manifest_sha256), str(identity.manifest_sha256))):
        if was != now:
            raise TrialError(f"{out} holds a run with a different {name} ({was[:12]}… ≠ {now[:12]}…); refusing to "
                             "mix samples — use a fresh --out directory, or delete this one to start over")
    return samples


def _label(shard: Shard | None) -> str:
    return shard.label if shard is not None else "none"


def read_sample(path: Path) -> TrialSample:
    """A saved sample, refused when it is unreadable, not ours, or does not read back exactly as written."""
    data = read_saved_json(path)
    try:
        sample = TrialSample.model_validate(data)
    except ValidationError as exc:
        raise TrialError(f"{path}: not a sample of an answerlens run ({describe_validation(exc)}); refusing to mix "
                         "samples — use a fresh --out directory") from None
    problem = round_trip_problem(data, sample.model_dump(mode="json"))
    if problem:
        raise TrialError(f"{path}: saved sample was edited ({problem}); delete it to rerun that sample")
    return sample


def sample_label(sample: TrialSample) -> str:
    return f"{sample.case_id} repeat {sample.repeat}"


def sample_mismatches(sample: TrialSample, item: LoadedCase | None, *, dataset_sha256: str,
                      configuration_sha256: str | None, manifest: str | None) -> list[str]:
    """Every way ``sample`` disagrees with its case ``item`` and the run, read from their fields (cheap: nothing is
    re-derived; ``verification.trial.sample_problems`` also re-derives its assessment)."""
    if item is None:
        return [f"case_id: {sample.case_id!r} is not a case of this dataset"]
    case = item.case
    expected: tuple[tuple[str, Any, Any], ...] = (
        ("question_id", sample.question_id, case.id),
        ("label", sample.label, case.label),
        ("answer_label", sample.answer_label, case.answer_label),
        ("question_type", sample.question_type, case.question_type),
        ("case_sha256", sample.case_sha256, item.sha256),
        ("dataset_sha256", sample.dataset_sha256, dataset_sha256),
        ("configuration_sha256", sample.configuration_sha256, configuration_sha256),
        ("manifest_sha256", sample.manifest_sha256, manifest),
    )
    problems = [f"{name}: {plain_value(found)!r} in the sample, {plain_value(wanted)!r} in the run"
                for name, found, wanted in expected if plain_value(found) != plain_value(wanted)]
    assessment = sample.assessment
    if assessment is None:
        return problems
    answer = case.answer.strip() if case.answer is not None else None
    inputs = (("query_sha256", assessment.query_sha256, sha256_text(case.question.strip()), "its case's question"),
              ("answer_sha256", assessment.answer_sha256, sha256_text(answer) if answer is not None else None,
               "its case's draft"),
              ("context_sha256", assessment.context_sha256, sha256_text(item.bundle.exact_context),
               "its case's exact context"),
              ("configuration_sha256", assessment.configuration_sha256, configuration_sha256,
               "the run's configuration"))
    problems += [f"assessment.{name}: not {what}" for name, found, wanted, what in inputs if found != wanted]
    return problems


def plain_value(value: Any) -> Any:
    """An enum's value; anything else as it is."""
    return value.value if isinstance(value, Enum) else value


def question_records(dataset: Dataset) -> dict[str, QuestionRecord]:
    """Every case as ``result.json`` lists it, without its sample files yet."""
    return {item.case.id: QuestionRecord(question_id=item.case.id, question=item.case.question, label=item.case.label,
                                         question_type=item.case.question_type, answer_label=item.case.answer_label,
                                         sample_files=()) for item in dataset.cases}


def dataset_record(dataset: Dataset) -> DatasetRecord:
    return DatasetRecord(path=str(dataset.path), sha256=dataset.sha256, cases=len(dataset.cases))


def assemble(record: DatasetRecord, questions: Mapping[str, QuestionRecord], samples: Sequence[TrialSample],
             identity: RunIdentity, *, repeats: int, concurrency: int | None, gates: Mapping[Gate, Threshold] | None,
             wall_seconds: float, drafts: bool, case_hashes: Mapping[str, str], second_opinion: bool,
             shard: Shard | None = None, finished_at: datetime | None = None) -> TrialResult:
    """The result of ``samples`` (in the run's order: by case, then repeat); each question lists the files of
    its samples present, in repeat order (all of them, except in a shard). ``case_hashes`` and ``second_opinion``
    complete the manifest ``identity`` names."""
    summary = summarize(samples, drafts=drafts)
    files: dict[str, list[str]] = defaultdict(list)
    for sample in sorted(samples, key=lambda item: item.repeat):
        files[sample.case_id].append(sample_filename(sample.case_id, sample.repeat))
    listed = tuple(questions[entry.question_id].model_copy(update={"sample_files": tuple(files[entry.question_id])})
                   for entry in summary.per_question)
    return TrialResult(
        kind=ResultKind.RESULT, schema_version=1, dataset=record, **dict(identity), repeats=repeats,
        concurrency=concurrency,
        finished_at=finished_at or datetime.now(timezone.utc).replace(microsecond=0),
        wall_seconds=round(wall_seconds, 3), summary=summary,
        quality_gates=evaluate_gates(summary, gates if gates is not None else default_gates(summary)),
        questions=listed, samples=tuple(samples), shard=shard, second_opinion=second_opinion,
        case_hashes=dict(case_hashes),
    )
