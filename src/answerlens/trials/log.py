"""The typed trial log's entries: one sample per (case, repeat), ours or upstream's, and the closed vocabularies.

Our own files are strict (``extra="forbid"``); upstream BEAM samples keep unknown fields. Dumped with
``model_dump(mode="json")``, a sample gives exactly the keys, order and values of the file it was read from.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, Literal, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, model_validator

from answerlens.assessment import AnswerabilityAssessment
from answerlens.errors import DatasetError, describe_validation
from answerlens.second_opinion.models import SecondOpinion

STRICT = ConfigDict(frozen=True, extra="forbid")
"""Our own files."""
TOLERANT = ConfigDict(frozen=True, extra="allow")
"""Upstream's files: unknown fields are kept."""

SAMPLE_KIND: Literal["answerlens-trial-sample"] = "answerlens-trial-sample"
"""The ``kind`` of a saved sample file."""


class ResultKind(StrEnum):
    """What a trial file (or folder) is; the value is the ``kind`` the file carries."""

    RESULT = "answerlens-trial-result"
    """A finished answerlens run: ``result.json``."""
    RUN = "answerlens-trial-run"
    """An answerlens run folder without ``result.json`` yet (``run.json`` and the samples saved so far)."""
    UPSTREAM = "beam-answerability-execution"
    """A result file of PRME's BEAM answerability runner (schema 1–3)."""


UPSTREAM_SCHEMAS = frozenset({1, 2, 3})


class QuestionLabel(StrEnum):
    """Whether the records fully establish every part of the question."""

    ANSWERABLE = "answerable"
    UNANSWERABLE = "unanswerable"


class AnswerLabel(StrEnum):
    """Whether every factual claim of a draft answer is established by the records."""

    CORRECT = "correct"
    INCORRECT = "incorrect"


class OutcomeKind(StrEnum):
    """What one sample came to: a validated assessment, or a failure recorded as an error (never a verdict)."""

    ASSESSMENT = "assessment"
    ERROR = "error"


class SampleError(BaseModel):
    """A call that produced no assessment."""

    model_config = STRICT

    kind: str
    """``AnswerabilityError.kind`` (``timeout``, ``server_error``, ``schema`` …), or the exception's class name."""
    message: str


class TrialSample(BaseModel):
    """One (case, repeat) of an answerlens run: ``samples/<file>.json``, and an item of ``result.json``'s samples."""

    model_config = STRICT

    kind: Literal["answerlens-trial-sample"] = SAMPLE_KIND
    schema_version: Literal[1] = 1
    case_id: str
    question_id: str
    """The case id again, under upstream's name for it."""
    question_type: str | None
    label: QuestionLabel
    answer_label: AnswerLabel | None
    repeat: int = Field(ge=0)
    dataset_sha256: str
    case_sha256: str
    """Identity of the case as written in the dataset, and of its bundle file's bytes when it names one."""
    configuration_sha256: str
    manifest_sha256: str | None = Field(default=None, exclude_if=lambda value: value is None)
    """The run's manifest (``audit.manifest_sha256``): a sample recording another is not of this run. Absent only
    in samples written before manifests."""
    latency_ms: float
    assessment: AnswerabilityAssessment | None
    error: SampleError | None
    second_opinion: SecondOpinion | None = Field(default=None, exclude_if=lambda value: value is None)
    """Ours (``trial --second-opinion``): the second opinion on the assessment, beside it and never inside its
    hashed fields; left out of the file when absent, so samples written without one keep their exact bytes."""

    @model_validator(mode="after")
    def _one_outcome(self) -> TrialSample:
        if (self.assessment is None) == (self.error is None):
            raise ValueError("a sample holds either an assessment or an error, not both or neither")
        if self.second_opinion is not None and self.assessment is None:
            raise ValueError("only an assessed sample carries a second opinion")
        return self

    @property
    def outcome(self) -> AnswerabilityAssessment | SampleError:
        if self.assessment is not None:
            return self.assessment
        assert self.error is not None  # guaranteed by _one_outcome
        return self.error

    @property
    def outcome_kind(self) -> OutcomeKind:
        return OutcomeKind.ASSESSMENT if self.assessment is not None else OutcomeKind.ERROR


class UpstreamSample(BaseModel):
    """One sample of an upstream BEAM result, under the upstream runner's field names; unknown fields are kept."""

    model_config = TOLERANT

    cohort: str | None = None
    question_id: str
    question_type: str
    """Upstream's label: a question is unanswerable exactly when its type is ``abstention``."""
    repeat: int = Field(ge=0)
    artifact: str | None = None
    artifact_sha256: str | None = None
    assessment_mode: str | None = None
    """Schema 3: ``draft_answer`` when the sample checks a draft."""
    draft_answer_sha256: str | None = None
    answer_label: AnswerLabel | None = None
    assessment: AnswerabilityAssessment
    """The upstream runner stops at a failure (and is resumed later), so every sample it saved holds one."""

    @property
    def case_id(self) -> str:
        return self.question_id

    @property
    def label(self) -> QuestionLabel:
        return QuestionLabel.UNANSWERABLE if self.question_type == "abstention" else QuestionLabel.ANSWERABLE

    @property
    def error(self) -> None:
        return None

    @property
    def outcome(self) -> AnswerabilityAssessment:
        return self.assessment

    @property
    def outcome_kind(self) -> OutcomeKind:
        return OutcomeKind.ASSESSMENT


def _sample_tag(value: Any) -> str:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return "ours" if kind == SAMPLE_KIND else "upstream"


AnySample = Annotated[
    Annotated[TrialSample, Tag("ours")] | Annotated[UpstreamSample, Tag("upstream")], Discriminator(_sample_tag)
]
"""A sample of either origin; both answer ``question_id``, ``repeat``, ``label``, ``answer_label``,
``question_type``, ``assessment``, ``error`` and ``outcome``."""


class Difference(NamedTuple):
    """Where two JSON values first differ: the path, and the other side's value there (``missing``: it has none)."""

    path: str
    value: Any
    missing: bool = False


def json_difference(recorded: Any, other: Any, path: str = "$", *, added_keys_ok: bool) -> Difference | None:
    """The first place ``other`` differs from ``recorded``, JSON type included (no ``"1"`` for ``1``, no ``12.0`` for
    ``12``): a key ``recorded`` has and ``other`` lacks, a list of another length, another value; a key only
    ``other`` has is a difference unless ``added_keys_ok``. None when they agree. The one JSON comparison of
    answerlens: reading a file back (``round_trip_problem``) and a recorded summary against its recomputation."""
    if isinstance(recorded, dict) and isinstance(other, dict):
        for key, value in recorded.items():
            if key not in other:
                return Difference(f"{path}.{key}", None, missing=True)
            found = json_difference(value, other[key], f"{path}.{key}", added_keys_ok=added_keys_ok)
            if found:
                return found
        added = next((key for key in other if key not in recorded), None)
        return None if added is None or added_keys_ok else Difference(f"{path}.{added}", other[added])
    if isinstance(recorded, list) and isinstance(other, list) and len(recorded) == len(other):
        for index, (value, again) in enumerate(zip(recorded, other, strict=True)):
            found = json_difference(value, again, f"{path}[{index}]", added_keys_ok=added_keys_ok)
            if found:
                return found
        return None
    return None if type(recorded) is type(other) and recorded == other else Difference(path, other)


def round_trip_problem(recorded: Any, dumped: Any, path: str = "$") -> str | None:
    """Where a model's JSON dump differs from the JSON it was read from, or None when it reproduces it.

    Every recorded key must come back with the same value and JSON type (no ``"1"`` read as ``1``, no UUID
    re-cased, no ``12`` written back as ``12.0``); keys the dump adds are defaults the file left out. A log that
    does not round-trip is refused, so verifying the typed log verifies exactly what was recorded.
    """
    found = json_difference(recorded, dumped, path, added_keys_ok=True)
    if found is None:
        return None
    if found.missing:
        return f"{found.path} is not read"
    return f"{found.path} reads back as {json.dumps(found.value, ensure_ascii=False)[:80]}, not as recorded"


SampleModel = TypeVar("SampleModel", TrialSample, UpstreamSample)


def parse_samples(raw: Any, model: type[SampleModel], source: str) -> tuple[SampleModel, ...]:
    """A file's samples as typed samples; the first one that does not read (or round-trip) is a ``DatasetError``."""
    if not isinstance(raw, list):
        raise DatasetError(f"{source}: 'samples' must be a list")
    samples: list[SampleModel] = []
    for index, item in enumerate(raw):
        try:
            sample = model.model_validate(item)
        except ValidationError as exc:
            raise DatasetError(f"{source}: samples[{index}] is not a trial sample: "
                               f"{describe_validation(exc, f'samples[{index}]')}") from None
        problem = round_trip_problem(item, sample.model_dump(mode="json"), f"samples[{index}]")
        if problem:
            raise DatasetError(f"{source}: {problem}")
        samples.append(sample)
    return tuple(samples)
