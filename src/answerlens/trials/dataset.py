"""Trial datasets: labelled cases (a question, optionally a draft answer, over one bundle), read whole and checked.

Every problem is found up front, before any model call, and named by case and field.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from answerlens.audit import canonical_json_ascii, sha256_text
from answerlens.errors import AnswerlensError, BundleError, DatasetError, describe_validation, json_problem
from answerlens.json_reader import PACK_FEWER, read_bytes
from answerlens.loading import MAX_BUNDLE_BYTES, load_bundle
from answerlens.records import MemoryBundle
from answerlens.trials.log import AnswerLabel, QuestionLabel

if TYPE_CHECKING:
    from answerlens.trials.result import TrialResult


class TrialCase(BaseModel):
    """One labelled question (optionally with a draft answer) over one bundle."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    label: QuestionLabel
    question_type: str | None = None
    bundle: dict[str, Any] | list[Any] | str
    """Inline bundle, or a path relative to the dataset file."""
    answer: str | None = None
    answer_label: AnswerLabel | None = None

    @field_validator("id")
    @classmethod
    def _printable_id(cls, value: str) -> str:
        """An id is printed in every line about its case (progress, verify, reports): no control or format
        character (a newline, a bidi override) may forge or reorder what is printed around it."""
        hidden = next((char for char in value if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")), None)
        if hidden is not None:
            raise ValueError(f"id holds U+{ord(hidden):04X} ({unicodedata.name(hidden, 'a control character')}): an "
                             "id is printed everywhere its case is named, so it takes visible characters only")
        return value

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
    """A case with its bundle loaded and checked citable."""

    case: TrialCase
    bundle: MemoryBundle
    sha256: str
    """Identity of the case as written, and of its bundle file's bytes when it names one."""


@dataclass(frozen=True)
class Dataset:
    path: Path
    sha256: str
    """Of the file's bytes."""
    cases: tuple[LoadedCase, ...]

    def planned(self, repeats: int) -> list[tuple[LoadedCase, int]]:
        """Every (case, repeat) of a run, in the order a result lists its samples: by case, then repeat."""
        return [(item, repeat) for item in self.cases for repeat in range(repeats)]

    @property
    def has_drafts(self) -> bool:
        return any(item.case.answer is not None for item in self.cases)

    @property
    def all_drafts(self) -> bool:
        return bool(self.cases) and all(item.case.answer is not None for item in self.cases)


def load_dataset(path: Path | str) -> Dataset:
    """Read and validate a whole JSON or JSONL dataset up front; errors name the case and field."""
    path = Path(path)
    data = read_bytes(path, max_bytes=MAX_BUNDLE_BYTES, remedy="split it into smaller datasets",
                      error=lambda message, label: DatasetError(f"{label}: {message}"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DatasetError(f"{path}: not UTF-8 text") from None
    raw_cases = _raw_cases(path, text)
    problems: list[str] = []
    cases: list[LoadedCase] = []
    seen: dict[str, str] = {}
    files: dict[Path, tuple[MemoryBundle, str]] = {}
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
            bundle, bundle_file_sha = _case_bundle(path, case, files)
        except BundleError as exc:
            problems.append(f"{label}: field 'bundle': {exc}")
            continue
        try:
            bundle.ensure_citable()
        except ValueError as exc:
            problems.append(f"{label}: field 'bundle': {exc}")
            continue
        case_sha = sha256_text(canonical_json_ascii({"case": raw, "bundle_file_sha256": bundle_file_sha}))
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
                raise DatasetError(f"{path}: line {number} is not JSON ({json_problem(exc)}, "
                                   f"column {exc.colno})") from None
        return found
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: "
                           f"{json_problem(exc)}") from None
    if isinstance(data, dict) and isinstance(data.get("cases"), list):
        data = data["cases"]
    if not isinstance(data, list):
        raise DatasetError(f"{path}: expected a list of cases, or an object with a 'cases' list")
    return [(f"cases[{index}]", item) for index, item in enumerate(data)]


def _case_bundle(dataset_path: Path, case: TrialCase,
                 files: dict[Path, tuple[MemoryBundle, str]]) -> tuple[MemoryBundle, str | None]:
    """The case's bundle; a bundle file that several cases name is read and loaded once (bundles are frozen)."""
    if isinstance(case.bundle, str):
        bundle_path = (dataset_path.parent / case.bundle).resolve()
        if bundle_path not in files:
            data = read_bytes(bundle_path, max_bytes=MAX_BUNDLE_BYTES, remedy=PACK_FEWER,
                              error=lambda message, label: BundleError(f"cannot read {case.bundle}: {message}"))
            files[bundle_path] = (load_bundle(bundle_path), hashlib.sha256(data).hexdigest())
        return files[bundle_path]
    return load_bundle(case.bundle, name="inline bundle"), None


def run_dataset(result: TrialResult, cwd: Path, folder: Path | None = None) -> Dataset | str:
    """The dataset a run of ours used, reloaded and checked against its sha256; or why it cannot be. A relative
    path is relative to where the trial ran: ``cwd``, else the run's ``folder`` or a folder above it."""
    if result.dataset is None:
        return ("upstream result files name their bundles (artifact files) but do not contain them, so the "
                "context cannot be shown")
    where, sha = result.dataset.path, result.dataset.sha256
    path = Path(where)
    if not path.is_absolute():
        bases = [cwd, *([folder.resolve(), *folder.resolve().parents] if folder is not None else [])]
        path = next((base / path for base in bases if (base / path).is_file()), cwd / path)
    if not path.is_file():
        return f"the dataset {where} is not there any more, so the bundles cannot be found"
    try:
        dataset = load_dataset(path)
    except AnswerlensError as exc:
        return f"the dataset {where} no longer loads: {exc}"
    if dataset.sha256 != sha:
        return f"the dataset {where} changed since the run (sha256 {dataset.sha256[:12]}… ≠ {sha[:12]}…)"
    return dataset
