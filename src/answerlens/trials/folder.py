"""A run folder on disk: ``run.json``, one durable file per sample, ``result.json``; the checks of a resume; and the
``TrialResult`` of a run's samples (``assemble``: one builder for a single run, a shard and a merge, so a merge of
shards writes exactly what one machine would have written).

A sample file is written atomically the moment its assessment finishes, so a killed run loses only what was in
flight; rerunning resumes after checking every saved sample belongs to the same dataset and configuration.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from answerlens.audit import configuration_sha256, sha256_text
from answerlens.config import AnswerabilityConfig
from answerlens.errors import TrialError, describe_validation
from answerlens.json_reader import MB, read_text
from answerlens.prompts import prompt_for
from answerlens.storage import replace_file as replace_file  # re-exported: the run folder's writers live there now
from answerlens.storage import sync_directory as sync_directory
from answerlens.storage import write_atomically
from answerlens.trials.dataset import Dataset
from answerlens.trials.gates import Gate, Threshold, default_gates, evaluate_gates
from answerlens.trials.integrity import sample_label, sample_problems
from answerlens.trials.log import ResultKind, TrialSample, round_trip_problem
from answerlens.trials.result import DatasetRecord, QuestionRecord, RunIdentity, RunManifest, TrialResult
from answerlens.trials.shard import Shard
from answerlens.trials.summary import summarize
from answerlens.verification import verify_assessment

SAMPLES = "samples"
MANIFEST = "run.json"
RESULT = "result.json"
SAMPLE_MAX_BYTES = 64 * MB
"""Largest sample file read: one assessment, its reply (at most ``max_reply_bytes``, 8 MiB by default) kept as
text and parsed, and its second opinion."""
MANIFEST_MAX_BYTES = 16 * MB
"""Largest ``run.json`` read (a sweep's holds its question and draft)."""
RESULT_MAX_BYTES = 1024 * MB
"""Largest trial ``result.json`` read: every sample of up to 100,000 (a sweep's lists them in short)."""
NOT_WRITTEN_HERE = "no file a run writes is that large: it is not this run's (move it out of the folder)"


def run_identity(dataset: Dataset, config: AnswerabilityConfig) -> RunIdentity:
    """What a saved sample must share with the current run to be reused (the configuration without its key)."""
    prompt = prompt_for(config.prompt)
    return RunIdentity(dataset_sha256=dataset.sha256, configuration=config.model_copy(update={"api_key": None}),
                       configuration_sha256=configuration_sha256(config.public_dump()),
                       prompt_version=prompt.version, prompt_sha256=prompt.sha256)


def sample_filename(case_id: str, repeat: int) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", case_id)[:60].strip("._") or "case"
    return f"{slug}-{sha256_text(case_id)[:8]}-r{repeat:03d}.json"


def json_text(model: BaseModel, *, exclude: set[str] | None = None) -> str:
    """The one layout of every file of a run: two-space indents, non-ASCII kept, a final newline.

    pydantic's serializer (compiled) writes what ``json.dumps(model.model_dump(mode="json"), indent=2,
    ensure_ascii=False)`` writes, at a fraction of the cost (only floats below 1e-4 are spelt without an exponent).
    """
    return model.model_dump_json(indent=2, exclude=exclude) + "\n"


def write_sample(samples_dir: Path, sample: TrialSample) -> None:
    write_atomically(samples_dir / sample_filename(sample.case_id, sample.repeat), json_text(sample))


def write_result(out: Path, result: TrialResult) -> Path:
    path = out / RESULT
    write_atomically(path, result.file_text())
    return path


def read_saved_json(path: Path, max_bytes: int = SAMPLE_MAX_BYTES) -> Any:
    """A file of a run folder, read through the one reader: a regular file inside its folder, up to ``max_bytes``."""
    text = read_text(path, max_bytes=max_bytes, inside=path.parent, remedy=NOT_WRITTEN_HERE,
                     error=lambda message, label: TrialError(f"{label}: {message}"))
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise TrialError(f"{path}: unreadable saved file ({exc}); delete it to rerun that sample") from None


def read_manifest(path: Path) -> RunManifest:
    try:
        return RunManifest.model_validate(read_saved_json(path, MANIFEST_MAX_BYTES))
    except ValidationError as exc:
        raise TrialError(f"{path}: not the manifest of an answerlens run ({describe_validation(exc)})") from None


def prepare_output(out: Path, dataset: Dataset, identity: RunIdentity, repeats: int, *,
                   shard: Shard | None = None, second_opinion: bool = False) -> Path:
    """Create the folder (or check it holds a run of this dataset, configuration, shard and second-opinion
    setting); the samples folder. Call it holding the folder's ``RunLock``: it clears leftover temporary files."""
    samples = out / SAMPLES
    run_file = out / MANIFEST
    if not run_file.exists():
        refuse_foreign_to_trial(out, dataset)
    samples.mkdir(parents=True, exist_ok=True)
    for leftover in samples.glob(".*.tmp"):
        leftover.unlink()  # a write that was killed before its rename (no other runner: the caller holds the lock)
    plain = shard.plain() if shard is not None else None
    if not run_file.exists():
        manifest = RunManifest(dataset=str(dataset.path), repeats=repeats, **dict(identity), shard=plain,
                               second_opinion=second_opinion)
        write_atomically(run_file, json_text(manifest))
        return samples
    saved = read_manifest(run_file)
    for name, was, now in (("dataset", saved.dataset_sha256, identity.dataset_sha256),
                           ("configuration", saved.configuration_sha256, identity.configuration_sha256),
                           ("prompt", saved.prompt_sha256, identity.prompt_sha256),
                           ("shard", _label(saved.shard), _label(plain)),
                           ("second-opinion setting", str(saved.second_opinion), str(second_opinion))):
        if was != now:
            raise TrialError(f"{out} holds a run with a different {name} ({was[:12]}… ≠ {now[:12]}…); refusing to "
                             "mix samples — use a fresh --out directory, or delete this one to start over")
    return samples


LOCK = ".lock"
"""The run lock's file (``trials.lock.RunLock``), there before the folder is prepared."""


def foreign_files(out: Path, own: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """What a folder holds that no run wrote, as a fresh run finds it: anything but the lock, a ``samples/`` with
    no sample (a start killed before ``run.json`` was written) and ``own`` (a dataset kept in its run folder)."""
    if not out.is_dir():
        return []
    found = []
    for entry in sorted(out.iterdir()):
        if entry.name == LOCK or entry.name in own:
            continue
        if entry.name == SAMPLES and entry.is_dir() and not any(
                not item.name.endswith(".tmp") for item in entry.iterdir()):
            continue
        found.append(entry.name)
    return found


def refuse_foreign(out: Path, kind: str, writes: str, *, own: set[str] | frozenset[str] = frozenset()) -> None:
    """Refuse a fresh run's folder that holds files it did not write (``TrialError``): the run would overwrite them
    (a user's ``bundle.json`` or ``result.json``) or mix with them."""
    names = foreign_files(out, own)
    if names:
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        raise TrialError(f"{out} holds files a {kind} did not write ({shown}) and no {kind} to resume: a {kind} "
                         f"writes {writes} there and would overwrite them — choose a new or empty --out directory")


def refuse_foreign_to_trial(out: Path, dataset: Dataset) -> None:
    """``refuse_foreign`` for a fresh trial (its dataset may sit in the folder: the Trials page keeps an upload
    there, and ``result.json`` names it)."""
    own = {dataset.path.name} if dataset.path.parent.resolve() == out.resolve() else set()
    refuse_foreign(out, "trial", "run.json, result.json and samples/", own=own)


def _label(shard: Shard | None) -> str:
    return shard.label if shard is not None else "none"


def saved_samples(samples_dir: Path, dataset: Dataset, identity: RunIdentity,
                  repeats: int) -> dict[tuple[str, int], TrialSample]:
    """Saved samples of this run by (case, repeat). A sample is checked, not trusted: one of another
    dataset/configuration, or whose label, case or assessment no longer matches its case (``sample_problems``:
    every assessment re-derived from its case's bundle), is refused naming the file."""
    cases = {item.case.id: item for item in dataset.cases}
    saved: dict[tuple[str, int], TrialSample] = {}
    for path in sorted(samples_dir.glob("*.json")):
        sample = read_sample(path)
        problems = sample_problems(sample, cases.get(sample.case_id), dataset_sha256=identity.dataset_sha256,
                                   configuration_sha256=identity.configuration_sha256)
        if path.name != sample_filename(sample.case_id, sample.repeat):
            problems.append(f"file name: not {sample_filename(sample.case_id, sample.repeat)}")
        if problems:
            raise TrialError(f"{path}: saved sample does not match this dataset/configuration ({'; '.join(problems)}); "
                             "refusing to mix samples — delete it to rerun that sample, or use a fresh --out directory")
        if sample.repeat < repeats:  # later repeats of a longer run stay on disk but are not part of this result
            saved[(sample.case_id, sample.repeat)] = sample
    return saved


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


def folder_problems(run: Path, result: TrialResult) -> list[str]:
    """A finished run folder: every sample of ``result.json`` has its file under ``samples/`` holding exactly it,
    and every other sample file is a later repeat of a longer run (kept, not part of this result). Each file's
    assessment is verified as it is on disk."""
    samples_dir = run / SAMPLES
    expected = {sample_filename(s.case_id, s.repeat): s for s in result.samples if isinstance(s, TrialSample)}
    problems = []
    for name, sample in expected.items():
        path = samples_dir / name
        if not path.exists():
            problems.append(f"{SAMPLES}/{name}: missing ({sample_label(sample)} is in {RESULT})")
            continue
        try:
            saved = read_sample(path)
        except TrialError as exc:
            problems.append(f"{SAMPLES}/{name}: {exc}")
            continue
        if saved.model_dump(mode="json") != sample.model_dump(mode="json"):
            problems.append(f"{SAMPLES}/{name}: differs from its sample in {RESULT}")
        if saved.assessment is not None:
            problems += [f"{SAMPLES}/{name}: {problem}"
                         for problem in verify_assessment(saved.assessment).problems]
    repeats = result.repeats or 0
    for path in _extra_files(samples_dir, expected):
        try:
            extra = read_sample(path)
        except TrialError as exc:
            problems.append(f"{SAMPLES}/{path.name}: {exc}")
            continue
        if extra.repeat < repeats or sample_filename(extra.case_id, extra.repeat) != path.name:
            problems.append(f"{SAMPLES}/{path.name}: a sample file that is not in {RESULT}")
    return problems


def _extra_files(samples_dir: Path, expected: dict[str, TrialSample]) -> Iterator[Path]:
    return (path for path in sorted(samples_dir.glob("*.json")) if path.name not in expected)


def question_records(dataset: Dataset) -> dict[str, QuestionRecord]:
    """Every case as ``result.json`` lists it, without its sample files yet."""
    return {item.case.id: QuestionRecord(question_id=item.case.id, question=item.case.question, label=item.case.label,
                                         question_type=item.case.question_type, answer_label=item.case.answer_label,
                                         sample_files=()) for item in dataset.cases}


def dataset_record(dataset: Dataset) -> DatasetRecord:
    return DatasetRecord(path=str(dataset.path), sha256=dataset.sha256, cases=len(dataset.cases))


def assemble(record: DatasetRecord, questions: Mapping[str, QuestionRecord], samples: Sequence[TrialSample],
             identity: RunIdentity, *, repeats: int, concurrency: int | None, gates: Mapping[Gate, Threshold] | None,
             wall_seconds: float, drafts: bool, shard: Shard | None = None,
             finished_at: datetime | None = None) -> TrialResult:
    """The result of ``samples`` (in the run's order: by case, then repeat); each question lists the files of
    its samples present, in repeat order (all of them, except in a shard)."""
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
        questions=listed, samples=tuple(samples), shard=shard,
    )
