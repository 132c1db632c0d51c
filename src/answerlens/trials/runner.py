"""Repeated trials: datasets of labelled cases, durable resumable runs, upstream-compatible summaries, gates.

A sample file is written atomically the moment its assessment finishes, so a killed run loses only what was in
flight; rerunning resumes after checking every saved sample belongs to the same dataset and configuration.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from answerlens.audit import canonical_json, sha256_text
from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError, BundleError, DatasetError, TrialError, describe_validation
from answerlens.evaluator import AnswerabilityEvaluator
from answerlens.json_reader import MB
from answerlens.loading import MAX_BUNDLE_BYTES, load_bundle
from answerlens.prompts import prompt_for
from answerlens.records import MemoryBundle
from answerlens.trials.summary import RESULT_KIND, RUN_KIND, default_gates, evaluate_gates, read_saved_json, summarize

SAMPLE_KIND = "answerlens-trial-sample"


# --- datasets --------------------------------------------------------------------------------------


class TrialCase(BaseModel):
    """One labelled question (optionally with a draft answer) over one bundle."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    label: Literal["answerable", "unanswerable"]
    question_type: str | None = None
    bundle: dict[str, Any] | list[Any] | str
    """Inline bundle, or a path relative to the dataset file."""
    answer: str | None = None
    answer_label: Literal["correct", "incorrect"] | None = None

    @model_validator(mode="after")
    def _draft_needs_label(self) -> TrialCase:
        if not self.question.strip():
            raise ValueError("question must not be blank")
        if self.answer is not None and not self.answer.strip():
            raise ValueError("answer must not be blank when given")
        if (self.answer is None) != (self.answer_label is None):
            raise ValueError("answer and answer_label go together: give both or neither")
        return self


@dataclass(frozen=True)
class LoadedCase:
    case: TrialCase
    bundle: MemoryBundle
    sha256: str


@dataclass(frozen=True)
class Dataset:
    path: Path
    sha256: str
    cases: tuple[LoadedCase, ...]

    @property
    def has_drafts(self) -> bool:
        return any(item.case.answer is not None for item in self.cases)

    @property
    def all_drafts(self) -> bool:
        return bool(self.cases) and all(item.case.answer is not None for item in self.cases)


def load_dataset(path: Path | str) -> Dataset:
    """Read and validate a whole JSON or JSONL dataset up front; errors name the case and field."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read dataset ({exc.strerror})") from None
    if len(data) > MAX_BUNDLE_BYTES:
        raise DatasetError(f"{path}: dataset is {len(data) / MB:.1f} MB; the limit is {MAX_BUNDLE_BYTES / MB:.0f} MB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DatasetError(f"{path}: not UTF-8 text") from None
    raw_cases = _raw_cases(path, text)
    problems: list[str] = []
    cases: list[LoadedCase] = []
    seen: dict[str, str] = {}
    for where, raw in raw_cases:
        label = f"{where} (case {raw.get('id')!r})" if isinstance(raw, dict) and raw.get("id") else where
        try:
            case = TrialCase.model_validate(raw)
        except ValidationError as exc:
            problems.append(f"{label}: {describe_validation(exc, '')}".replace(": .", ": "))
            continue
        if case.id in seen:
            problems.append(f"{label}: duplicate id {case.id!r} (first at {seen[case.id]})")
            continue
        seen[case.id] = where
        try:
            bundle, bundle_file_sha = _case_bundle(path, case)
        except BundleError as exc:
            problems.append(f"{label}: field 'bundle': {exc}")
            continue
        try:
            bundle.ensure_citable()
        except ValueError as exc:
            problems.append(f"{label}: field 'bundle': {exc}")
            continue
        case_sha = sha256_text(canonical_json({"case": raw, "bundle_file_sha256": bundle_file_sha}))
        cases.append(LoadedCase(case=case, bundle=bundle, sha256=case_sha))
    if problems:
        more = f"\n… and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise DatasetError(f"{path}: {len(problems)} invalid case(s):\n" + "\n".join(problems[:20]) + more)
    if not cases:
        raise DatasetError(f"{path}: the dataset has no cases")
    return Dataset(path=path, sha256=hashlib.sha256(data).hexdigest(), cases=tuple(cases))


def _raw_cases(path: Path, text: str) -> list[tuple[str, Any]]:
    if path.suffix.lower() == ".jsonl":
        found = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                found.append((f"line {number}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}: line {number} is not JSON ({exc.msg} at column {exc.colno})") from None
        return found
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if isinstance(data, dict) and isinstance(data.get("cases"), list):
        data = data["cases"]
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a list of cases, or an object with a 'cases' list")
    return [(f"cases[{index}]", item) for index, item in enumerate(data)]


def _case_bundle(dataset_path: Path, case: TrialCase) -> tuple[MemoryBundle, str | None]:
    if isinstance(case.bundle, str):
        bundle_path = (dataset_path.parent / case.bundle).resolve()
        try:
            file_sha = hashlib.sha256(bundle_path.read_bytes()).hexdigest()
        except OSError as exc:
            raise BundleError(f"cannot read {case.bundle} ({exc.strerror})") from None
        return load_bundle(bundle_path), file_sha
    return load_bundle(case.bundle, name="inline bundle"), None


# --- durable samples -------------------------------------------------------------------------------


def run_identity(dataset: Dataset, config: AnswerabilityConfig) -> dict[str, Any]:
    """What a saved sample must share with the current run to be reused."""
    return {
        "dataset_sha256": dataset.sha256,
        "configuration": config.public_dump(),
        "configuration_sha256": sha256_text(canonical_json(config.public_dump())),
        "prompt_version": prompt_for(config.prompt).version,
        "prompt_sha256": prompt_for(config.prompt).sha256,
    }


def sample_filename(case_id: str, repeat: int) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", case_id)[:60].strip("._") or "case"
    return f"{slug}-{sha256_text(case_id)[:8]}-r{repeat:03d}.json"


def write_atomically(path: Path, text: str) -> None:
    """Write, fsync, rename over, fsync the directory: the file is either whole or absent."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _sample_record(item: LoadedCase, repeat: int, identity: Mapping[str, Any], *,
                   assessment: dict[str, Any] | None, error: dict[str, Any] | None,
                   latency_ms: float) -> dict[str, Any]:
    case = item.case
    return {
        "kind": SAMPLE_KIND,
        "schema_version": 1,
        "case_id": case.id,
        "question_id": case.id,
        "question_type": case.question_type,
        "label": case.label,
        "answer_label": case.answer_label,
        "repeat": repeat,
        "dataset_sha256": identity["dataset_sha256"],
        "case_sha256": item.sha256,
        "configuration_sha256": identity["configuration_sha256"],
        "latency_ms": round(latency_ms, 3),
        "assessment": assessment,
        "error": error,
    }


def _prepare_output(out: Path, dataset: Dataset, identity: dict[str, Any], repeats: int) -> Path:
    samples = out / "samples"
    samples.mkdir(parents=True, exist_ok=True)
    for leftover in samples.glob(".*.tmp"):
        leftover.unlink()  # a write that was killed before its rename
    run_file = out / "run.json"
    if run_file.exists():
        saved = read_saved_json(run_file)
        for key in ("dataset_sha256", "configuration_sha256", "prompt_sha256"):
            if saved.get(key) != identity[key]:
                raise TrialError(
                    f"{out} holds a run with a different {key.replace('_sha256', '')} "
                    f"({str(saved.get(key))[:12]}… ≠ {str(identity[key])[:12]}…); refusing to mix samples — "
                    "use a fresh --out directory, or delete this one to start over"
                )
    else:
        manifest = {"kind": RUN_KIND, "schema_version": 1, "dataset": str(dataset.path), "repeats": repeats, **identity}
        write_atomically(run_file, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return samples


def _saved_samples(samples_dir: Path, dataset: Dataset, identity: Mapping[str, Any],
                   repeats: int) -> dict[tuple[str, int], dict[str, Any]]:
    """Saved samples of this run by (case, repeat); any sample of another dataset/configuration is refused."""
    cases = {item.case.id: item for item in dataset.cases}
    saved: dict[tuple[str, int], dict[str, Any]] = {}
    for path in sorted(samples_dir.glob("*.json")):
        sample = read_saved_json(path)
        case_id = sample.get("case_id") if isinstance(sample, dict) else None
        item = cases.get(case_id) if isinstance(case_id, str) else None
        expected = (
            ("kind", SAMPLE_KIND),
            ("dataset_sha256", identity["dataset_sha256"]),
            ("configuration_sha256", identity["configuration_sha256"]),
            ("case_sha256", item.sha256 if item else "a case of this dataset"),
        )
        problems = [key for key, value in expected if not isinstance(sample, dict) or sample.get(key) != value]
        repeat = sample.get("repeat") if isinstance(sample, dict) else None
        if not isinstance(repeat, int) or not isinstance(case_id, str) or path.name != sample_filename(case_id, repeat):
            problems.append("file name")
        if problems or not isinstance(repeat, int) or not isinstance(case_id, str):
            raise TrialError(
                f"{path}: saved sample differs from this dataset/configuration ({', '.join(problems)}); "
                "refusing to mix samples — use a fresh --out directory"
            )
        if repeat < repeats:  # later repeats of a longer run stay on disk but are not part of this result
            saved[(case_id, repeat)] = sample
    return saved


# --- running ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    errors: int
    elapsed: float
    last: str = ""

    @property
    def rate(self) -> float:
        """Samples per second over this run's new work."""
        return self.done / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        remaining = self.total - self.done
        return remaining / self.rate if self.rate > 0 else None


@dataclass(frozen=True)
class TrialOutcome:
    result: dict[str, Any]
    result_path: Path | None
    new_samples: int
    reused_samples: int
    errors: int
    cancelled: bool


async def run_trial(
    dataset: Dataset,
    config: AnswerabilityConfig,
    *,
    repeats: int,
    out: Path,
    concurrency: int = 4,
    gates: Mapping[str, float] | None = None,
    fail_fast: bool = False,
    progress: Callable[[Progress], None] | None = None,
    cancel: threading.Event | None = None,
    evaluator_factory: Callable[[AnswerabilityConfig], AnswerabilityEvaluator] = AnswerabilityEvaluator,
) -> TrialOutcome:
    """Assess every (case, repeat) not already saved, writing each sample as it finishes, then summarise.

    Saved error samples are retried. Cancelling (``cancel.set()``) keeps finished samples and writes no
    result; so does ``fail_fast`` after the first error. Rerunning the same call resumes.
    """
    if repeats < 1:
        raise TrialError("repeats must be at least 1")
    if concurrency < 1:
        raise TrialError("concurrency must be at least 1")
    draft_gates = sorted(name for name in gates or {} if "draft" in name)
    if draft_gates and not dataset.has_drafts:
        raise TrialError(f"gates {', '.join(draft_gates)} need draft answers, and this dataset has none")
    out = Path(out)
    identity = run_identity(dataset, config)
    samples_dir = _prepare_output(out, dataset, identity, repeats)
    records = {key: sample for key, sample in _saved_samples(samples_dir, dataset, identity, repeats).items()
               if sample.get("error") is None}
    reused = len(records)
    todo = [(item, repeat) for item in dataset.cases for repeat in range(repeats)
            if (item.case.id, repeat) not in records]
    started = time.monotonic()
    counts = Counter[str]()
    stop = asyncio.Event()
    semaphore = asyncio.Semaphore(concurrency)

    def stopping() -> bool:
        return stop.is_set() or (cancel is not None and cancel.is_set())

    async def one(evaluator: AnswerabilityEvaluator, item: LoadedCase, repeat: int) -> None:
        async with semaphore:
            if stopping():
                return
            began = time.monotonic()
            assessment, error = None, None
            try:
                judged = await evaluator.assess(item.case.question, item.bundle, answer=item.case.answer)
                assessment, status = judged.model_dump(mode="json"), judged.recommended_action.value
            except (AnswerabilityError, ValueError) as exc:
                # A failure is recorded as an error sample, never as a verdict.
                kind = getattr(exc, "kind", type(exc).__name__)
                error, status = {"kind": kind, "message": str(exc)}, f"error ({kind})"
                counts["errors"] += 1
                if fail_fast:
                    stop.set()
            record = _sample_record(item, repeat, identity, assessment=assessment, error=error,
                                    latency_ms=(time.monotonic() - began) * 1000)
        # The slot is free again: the next request goes out while this sample is made durable (two fsyncs).
        text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
        await asyncio.to_thread(write_atomically, samples_dir / sample_filename(item.case.id, repeat), text)
        records[(item.case.id, repeat)] = record
        counts["done"] += 1
        if progress is not None:
            progress(Progress(counts["done"], len(todo), counts["errors"], time.monotonic() - started,
                              f"{item.case.id} repeat {repeat}: {status}"))

    if todo:
        async with evaluator_factory(config) as evaluator:
            await asyncio.gather(*(one(evaluator, item, repeat) for item, repeat in todo))
    cancelled = cancel is not None and cancel.is_set()
    if cancelled or (fail_fast and counts["errors"]):
        return TrialOutcome(result={}, result_path=None, new_samples=counts["done"], reused_samples=reused,
                            errors=counts["errors"], cancelled=cancelled)
    samples = [records[(item.case.id, repeat)] for item in dataset.cases for repeat in range(repeats)]
    result = build_result(dataset, config, samples, repeats=repeats, concurrency=concurrency, gates=gates,
                          wall_seconds=time.monotonic() - started)
    result_path = out / "result.json"
    write_atomically(result_path, json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    return TrialOutcome(result=result, result_path=result_path, new_samples=counts["done"], reused_samples=reused,
                        errors=counts["errors"], cancelled=False)


def build_result(dataset: Dataset, config: AnswerabilityConfig, samples: list[dict[str, Any]], *, repeats: int,
                 concurrency: int, gates: Mapping[str, float] | None, wall_seconds: float) -> dict[str, Any]:
    summary = summarize(samples, drafts=dataset.has_drafts)
    questions = {item.case.id: item.case for item in dataset.cases}
    details = []
    for entry in summary["per_question"]:
        case = questions[entry["question_id"]]
        details.append({"question_id": case.id, "question": case.question, "label": case.label,
                        "question_type": case.question_type, "answer_label": case.answer_label,
                        "sample_files": [sample_filename(case.id, r) for r in range(repeats)]})
    return {
        "kind": RESULT_KIND,
        "schema_version": 1,
        "dataset": {"path": str(dataset.path), "sha256": dataset.sha256, "cases": len(dataset.cases)},
        "configuration": config.public_dump(),
        **{key: value for key, value in run_identity(dataset, config).items() if key != "configuration"},
        "repeats": repeats,
        "concurrency": concurrency,
        "finished_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(wall_seconds, 3),
        "summary": summary,
        "quality_gates": evaluate_gates(summary, gates if gates is not None else default_gates(summary)),
        "questions": details,
        "samples": samples,
    }
