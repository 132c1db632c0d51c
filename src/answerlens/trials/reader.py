"""The one reader of trial logs: ``result.json``, a run folder (finished or not) or an upstream result, as a
``TrialResult``; and the assessments a file holds (the file itself, a saved sample, or every sample of a trial
result), for ``verify`` and the Compare page.

Whatever the source, the summary is recomputed from the samples, and a file that does not read back exactly as
recorded is refused (so what is verified or shown is what was written).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from answerlens.errors import DatasetError, describe_validation
from answerlens.json_reader import read_text
from answerlens.trials import folder
from answerlens.trials.gates import Gate, GateReport, default_gates, evaluate_gates
from answerlens.trials.log import (
    SAMPLE_KIND,
    ResultKind,
    TrialSample,
    UpstreamSample,
    parse_samples,
    round_trip_problem,
)
from answerlens.trials.result import DatasetRecord, RunManifest, TrialResult
from answerlens.trials.summary import TrialSummary, summarize
from answerlens.trials.upstream import upstream_result


def trial_source(source: Path | str) -> Path:
    """What ``read_trial`` reads for a path: a finished run folder's ``result.json``, else the path itself."""
    path = Path(source)
    return path / folder.RESULT if path.is_dir() and (path / folder.RESULT).exists() else path


def read_trial(source: Path | str) -> TrialResult:
    """Our ``result.json`` (or a run folder, finished or not) or an upstream result file."""
    path = trial_source(source)
    if path.is_dir():
        return _read_folder(path)
    text = read_text(path, max_bytes=folder.RESULT_MAX_BYTES, inside=path.parent if path != Path(source) else None,
                     remedy=folder.NOT_WRITTEN_HERE, error=lambda message, label: DatasetError(f"{label}: {message}"))
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"{path}: cannot read trial result ({exc})") from None
    return parse_trial(data, str(path))


def parse_trial(data: Any, source: str) -> TrialResult:
    """A trial result already parsed from JSON (``source`` names it in errors)."""
    if not isinstance(data, dict) or not isinstance(data.get("samples"), list):
        raise DatasetError(f"{source}: not a trial result (expected 'samples')")
    kind = data.get("kind")
    if kind == ResultKind.UPSTREAM:
        return upstream_result(data, source)
    if kind != ResultKind.RESULT:
        raise DatasetError(f"{source}: unknown trial result kind {kind!r}")
    samples = parse_samples(data["samples"], TrialSample, source)
    try:
        stored = TrialResult.model_validate({**data, "samples": samples})
    except ValidationError as exc:
        raise DatasetError(f"{source}: not an answerlens trial result: {describe_validation(exc)}") from None
    recorded = {key: value for key, value in data.items() if key != "samples"}
    problem = round_trip_problem(recorded, stored.model_dump(mode="json", exclude={"samples", "upstream"}))
    if problem:
        raise DatasetError(f"{source}: {problem}")
    summary = summarize(samples, drafts=stored.drafts)
    return stored.model_copy(update={"summary": summary, "quality_gates": _gates_of(stored, summary)})


def _gates_of(stored: TrialResult, summary: TrialSummary) -> GateReport | None:
    """Our gates re-evaluated over the recomputed summary with the thresholds recorded (as the summary is, so an
    edited gate is never shown); upstream's, and any naming a gate we do not evaluate, as recorded."""
    gates = stored.quality_gates
    if gates is None or stored.kind != ResultKind.RESULT:
        return gates
    try:
        thresholds = {Gate(name): gate.required for name, gate in gates.results.items()}
    except ValueError:
        return gates  # verify reports the unknown gate
    return evaluate_gates(summary, thresholds)


def _read_folder(path: Path) -> TrialResult:
    """A run folder without ``result.json``: the samples saved so far, with provisional default gates."""
    files = sorted((path / folder.SAMPLES).glob("*.json"))
    if not files:
        raise DatasetError(f"{path}: no result.json and no saved samples")
    if not (path / folder.MANIFEST).exists():
        raise DatasetError(f"{path}: saved samples but no {folder.MANIFEST}: not an answerlens run folder")
    manifest = folder.read_manifest(path / folder.MANIFEST)
    samples = parse_samples([folder.read_saved_json(file) for file in files], TrialSample, str(path / folder.SAMPLES))
    for file, sample in zip(files, samples, strict=True):
        if (sample.dataset_sha256, sample.configuration_sha256) != (manifest.dataset_sha256,
                                                                    manifest.configuration_sha256):
            raise DatasetError(f"{file}: a sample of another dataset or configuration than {folder.MANIFEST}'s")
    return unfinished_result(manifest, samples)


def unfinished_result(manifest: RunManifest, samples: Sequence[TrialSample]) -> TrialResult:
    """What a run folder without ``result.json`` holds so far, as a result: its manifest, the samples saved (as
    given: ``verification`` says which are not this run's), provisional default gates."""
    summary = summarize(samples, drafts=any(sample.answer_label is not None for sample in samples))
    return TrialResult(kind=ResultKind.RUN, schema_version=1,
                       dataset=DatasetRecord(path=manifest.dataset, sha256=manifest.dataset_sha256, cases=None),
                       **dict(manifest.identity), repeats=manifest.repeats, summary=summary,
                       quality_gates=evaluate_gates(summary, default_gates(summary)), samples=tuple(samples),
                       shard=manifest.shard, second_opinion=manifest.second_opinion,
                       case_hashes=manifest.case_hashes)


@dataclass(frozen=True)
class FoundAssessment:
    """An assessment in a file: the file itself, or one sample of a trial."""

    data: dict[str, Any]
    """The assessment as a JSON object, as recorded."""
    position: int | None = None
    """Index in the trial's samples."""
    question_id: str | None = None
    repeat: int | None = None


def holds_trial_log(data: Any) -> bool:
    """Whether parsed JSON is a trial result or a saved sample (read through the trial log)."""
    return isinstance(data, dict) and (isinstance(data.get("samples"), list) or data.get("kind") == SAMPLE_KIND)


def plain_assessments(data: Any) -> list[FoundAssessment]:
    """The assessment a file is, or wraps (a sample file of another runner, read no further); else none."""
    if not isinstance(data, dict):
        return []
    if any(name in data for name in ("verdict", "evaluation_id", "assessment_sha256")):
        return [FoundAssessment(data)]  # an assessment, perhaps with a field removed: verify says which
    wrapped = data.get("assessment")
    return [FoundAssessment(wrapped)] if isinstance(wrapped, dict) else []


def assessments_of(result: TrialResult) -> list[FoundAssessment]:
    """Every assessed sample's assessment (error samples carry no verdict to verify or compare); a sample with a
    second opinion gives the printed document (assessment plus ``second_opinion``), so both are verified."""
    return [FoundAssessment(_document(sample), position, sample.question_id, sample.repeat)
            for position, sample in enumerate(result.samples) if sample.assessment is not None]


def _document(sample: TrialSample | UpstreamSample) -> dict[str, Any]:
    assert sample.assessment is not None
    opinion = sample.second_opinion if isinstance(sample, TrialSample) else None
    if opinion is None:
        return sample.assessment.model_dump(mode="json")
    from answerlens.second_opinion.document import output_document

    return output_document(sample.assessment, opinion)


def assessments_in(data: Any, source: str) -> list[FoundAssessment]:
    """The assessments in a parsed JSON file: a trial result's (read through ``parse_trial``), a saved sample's,
    or the file itself when it is one. Empty when there is none; a malformed trial is a ``DatasetError``."""
    if not holds_trial_log(data):
        return plain_assessments(data)
    if isinstance(data.get("samples"), list):
        return assessments_of(parse_trial(data, source))
    sample = parse_samples([data], TrialSample, source)[0]
    return [FoundAssessment(_document(sample), None, sample.question_id, sample.repeat)
            ] if sample.assessment is not None else []
