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
from contextlib import contextmanager
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from answerlens import storage
from answerlens.audit import configuration_sha256, manifest_sha256, sha256_text
from answerlens.config import AnswerabilityConfig
from answerlens.errors import StorageError, TrialError, describe_validation
from answerlens.json_reader import MB, read_text
from answerlens.prompts import prompt_for
from answerlens.storage import replace_file as replace_file  # re-exported: the run folder's writers live there now
from answerlens.storage import sync_directory as sync_directory
from answerlens.storage import write_atomically
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
SAMPLE_MAX_BYTES = 64 * MB
"""Largest sample file read: one assessment, its reply (at most ``max_reply_bytes``, 8 MiB by default) kept as
text and parsed, and its second opinion."""
MANIFEST_MAX_BYTES = 16 * MB
"""Largest ``run.json`` read (a sweep's holds its question and draft)."""
RESULT_MAX_BYTES = 1024 * MB
"""Largest trial ``result.json`` read: every sample of up to 100,000 (a sweep's lists them in short)."""
NOT_WRITTEN_HERE = "no file a run writes is that large: it is not this run's (move it out of the folder)"


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
        what = {MANIFEST: "the run's manifest: use a fresh --out directory (the samples cannot be told from another "
                          "run's without it)",
                RESULT: "delete it: rerunning the same command writes it again from the samples"}.get(
            path.name, "delete it to rerun that sample")
        raise TrialError(f"{path}: unreadable saved file ({exc}); {what}") from None


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


@contextmanager
def refusals_kept(out: Path) -> Iterator[None]:
    """The machine's refusal of any write of the run in ``out`` as one ``StorageError`` saying how many samples
    are kept and how to resume; other errors pass unchanged."""
    try:
        yield
    except OSError as exc:
        refused = _refused(exc, out)
        if refused is None:
            raise
        raise refused from exc


def _refused(exc: OSError, out: Path) -> StorageError | None:
    if not isinstance(exc, StorageError):
        reason = storage.refusal(exc)
        if reason is None:
            return None
        exc = StorageError(str(exc.filename or out), reason, errno=exc.errno, kept="", resume="")
    samples = out / SAMPLES
    saved = sum(1 for _ in samples.glob("*.json")) if samples.is_dir() else 0
    kept = f"{saved} sample(s) saved in {out} are kept" if saved else f"no sample was saved in {out} yet"
    then = ": it resumes after the saved samples" if saved else ""
    return exc.carrying(kept=kept, resume=f"{storage.remedy(exc.errno)}, then rerun the same command{then}")


def refuse_foreign_to_trial(out: Path, dataset: Dataset) -> None:
    """``refuse_foreign`` for a fresh trial (its dataset may sit in the folder: the Trials page keeps an upload
    there, and ``result.json`` names it)."""
    own = {dataset.path.name} if dataset.path.parent.resolve() == out.resolve() else set()
    refuse_foreign(out, "trial", "run.json, result.json and samples/", own=own)


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
