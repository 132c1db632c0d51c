"""Where the Trials page's inputs come from: shipped and uploaded datasets, result files, output directories,
and the way back from one trial sample to its question, bundle and context for the Inspect page (no streamlit).
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import sha256_text
from answerlens.errors import DatasetError
from answerlens.html.trial_rows import SampleRef
from answerlens.json_reader import read_bytes
from answerlens.storage import write_atomically
from answerlens.trials import folder as trial_folder
from answerlens.trials.dataset import Dataset, load_dataset
from answerlens.trials.log import TrialSample
from answerlens.trials.reader import parse_trial, read_trial
from answerlens.trials.result import TrialResult
from answerlens.verification.path import verify_path
from answerlens.verification.samples import SampleCount
from answerlens.verification.trial_path import result_notes, verify_trial_data

DATASET_SUFFIXES = (".json", ".jsonl")
RUNS_DIR = "runs"
"""Default parent of new run directories, under the app's working directory."""
NO_PATHS = ("an uploaded dataset cannot use bundle paths: they are relative to a folder the app cannot see "
            "(case{s} {ids}); inline each bundle in its case, or put the dataset beside its bundles on this "
            "machine and give its path instead")


def shipped_datasets(samples_dir: Path) -> dict[str, Path]:
    """``sample_bundles/trials/*.json[l]`` by file name."""
    directory = samples_dir / "trials"
    if not directory.is_dir():
        return {}
    return {path.name: path for path in sorted(directory.iterdir()) if path.suffix.lower() in DATASET_SUFFIXES}


def default_out(cwd: Path, dataset_name: str, now: datetime) -> Path:
    """``runs/<dataset stem>-<YYYYmmdd-HHMMSS>`` under the working directory."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(dataset_name).stem).strip("._") or "dataset"
    return cwd / RUNS_DIR / f"{stem}-{now:%Y%m%d-%H%M%S}"


def path_bundles(text: str, name: str) -> list[str]:
    """Ids of the cases whose bundle is a path (parse errors are left to ``load_dataset`` to report)."""
    try:
        if name.lower().endswith(".jsonl"):
            cases: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            cases = json.loads(text)
    except ValueError:
        return []
    if isinstance(cases, dict):
        cases = cases.get("cases")
    if not isinstance(cases, list):
        return []
    return [str(case.get("id", f"#{index}")) for index, case in enumerate(cases)
            if isinstance(case, dict) and isinstance(case.get("bundle"), str)]


def upload_name(name: str) -> str:
    """A safe file name for an uploaded dataset, keeping its suffix (which selects JSON or JSONL)."""
    base = Path(name).name
    suffix = Path(base).suffix.lower()
    if suffix not in DATASET_SUFFIXES:
        raise DatasetError(f"{base}: a dataset is a .json or .jsonl file")
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(base).stem).strip("._") or "dataset"
    return f"{stem}{suffix}"


def load_upload(data: bytes, name: str) -> Dataset:
    """Validate an uploaded dataset; bundle paths are refused, since they would resolve on the server."""
    file_name = upload_name(name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DatasetError(f"{file_name}: not UTF-8 text") from None
    paths = path_bundles(text, file_name)
    if paths:
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        raise DatasetError(f"{file_name}: " + NO_PATHS.format(s="s" if len(paths) > 1 else "", ids=shown))
    with tempfile.TemporaryDirectory(prefix="answerlens-upload-") as folder:
        path = Path(folder) / file_name
        path.write_bytes(data)
        loaded = load_dataset(path)
    return loaded


def keep_upload(data: bytes, name: str, out: Path) -> Dataset:
    """Write the uploaded dataset into the run directory and load it from there, so ``result.json`` names a
    file that outlives the session (the dataset's sha256 is that of the bytes, wherever they sit)."""
    path = out / upload_name(name)
    if not (out / trial_folder.MANIFEST).exists():  # a fresh run: nothing of the user's is written over or mixed in
        trial_folder.refuse_foreign(out, "trial", "run.json, result.json and samples/", own={path.name})
    out.mkdir(parents=True, exist_ok=True)
    if path.exists() and read_bytes(path, inside=out) != data:
        raise DatasetError(f"{path} already holds a different dataset; choose a fresh output directory")
    write_atomically(path, data)
    return load_dataset(path)


@dataclass(frozen=True)
class Verified:
    """What ``answerlens verify`` says of a result opened in the app: its problems (the page shows none of its
    numbers as valid when there is any) and its samples against its manifest."""

    problems: tuple[str, ...] = ()
    samples: SampleCount | None = None
    caveats: tuple[str, ...] = ()
    """What the check cannot prove, or left unchecked (verify's notes), shown beside the numbers."""


def result_path(path_text: str, cwd: Path) -> Path:
    """The path a user typed (relative to the working dir), refused when empty or missing."""
    text = path_text.strip().strip('"').strip("'")
    if not text:
        raise DatasetError("give the path of a run directory, a result.json or an upstream result file")
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = cwd / path
    if not path.exists():
        raise DatasetError(f"{path}: no such file or directory")
    return path


def open_result(path_text: str, cwd: Path) -> TrialResult:
    """A result directory, ``result.json``, or an upstream result file, by path (relative to the working dir)."""
    return read_trial(result_path(path_text, cwd))


def verify_result(path: Path) -> Verified:
    """A result file or run folder verified as ``answerlens verify PATH`` verifies it."""
    check = verify_path(path)
    return Verified(check.problems, check.samples, check.notes.marks + check.notes.caveats)


def open_upload(data: bytes, name: str) -> TrialResult:
    """An uploaded result file (ours or upstream)."""
    return parse_trial(_parsed(data, name), Path(name).name or "result.json")


def verify_upload(data: bytes, name: str) -> Verified:
    """An uploaded result file verified as ``answerlens verify`` verifies the file."""
    checked = verify_trial_data(_parsed(data, name), Path(name).name or "result.json")
    notes = result_notes(checked.result, False) if checked.result is not None else None
    return Verified(checked.problems, checked.samples, notes.marks + notes.caveats if notes is not None else ())


def _parsed(data: bytes, name: str) -> Any:
    label = Path(name).name or "result.json"
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise DatasetError(f"{label}: cannot read trial result ({exc})") from None


# --- from a sample back to the Inspect page ------------------------------------------------------------


@dataclass(frozen=True)
class InspectTarget:
    """Everything the Inspect page needs to show one trial sample with its highlighted context."""

    title: str
    question: str
    answer: str | None
    assessment: AnswerabilityAssessment
    context: str
    bundle_file: Path | None
    """The bundle's file, when the case names one."""
    bundle_json: str | None
    """Otherwise the inline bundle, as JSON text."""


def inspect_target(result: TrialResult, ref: SampleRef, dataset: Dataset) -> InspectTarget | str:
    """The sample with its case's bundle and rendered context; or why it cannot be shown with its context."""
    sample = result.samples[ref.position]
    if sample.assessment is None:
        return f"this sample is an error ({ref.error}): there is no assessment to show"
    cases = {item.case.id: item for item in dataset.cases}
    item = cases.get(ref.question_id)
    if item is None:
        return f"the dataset has no case {ref.question_id!r}"
    if isinstance(sample, TrialSample) and sample.case_sha256 != item.sha256:
        return f"the case {ref.question_id!r} (or its bundle file) changed since the run"
    context = item.bundle.exact_context
    if sha256_text(context) != sample.assessment.context_sha256:
        return "the bundle now renders differently from the context that was assessed (context_sha256 differs)"
    case = item.case
    bundle_file = (dataset.path.parent / case.bundle).resolve() if isinstance(case.bundle, str) else None
    bundle_json = None if isinstance(case.bundle, str) else json.dumps(case.bundle, ensure_ascii=False, indent=1)
    return InspectTarget(title=f"trial {case.id} · repeat {ref.repeat}", question=case.question, answer=case.answer,
                         assessment=sample.assessment, context=context, bundle_file=bundle_file,
                         bundle_json=bundle_json)
