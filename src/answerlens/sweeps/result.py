"""A sweep's typed log: ``run.json`` (``SweepManifest``) and ``result.json`` (``SweepResult``) of DESIGN §12.

Every sample is an ordinary trial sample (``samples/``, an ``AnswerabilityAssessment`` each); ``result.json``
lists them per cell in short form, with the cells' counts and the changes across budgets, all derived from them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

from answerlens.config import AnswerabilityConfig
from answerlens.sweeps.settings import MAX_AXIS_VALUE, Setting, SweepFormat, parse_budget, setting_key
from answerlens.trials.log import SampleError, TrialSample
from answerlens.verdict import AnswerabilityAction, AnswerabilityStatus, AnswerabilityVerdict

STRICT = ConfigDict(frozen=True, extra="forbid")
KIND = "sweep"
RUN_KIND = "answerlens-sweep-run"
ACTION_ORDER = (AnswerabilityAction.ANSWER, AnswerabilityAction.ANSWER_PARTIALLY,
                AnswerabilityAction.SURFACE_CONFLICT, AnswerabilityAction.ABSTAIN)
"""Least to most conservative: a tie between actions is read as the more conservative one."""


def _none(value: Any) -> bool:
    return value is None


class SweepSetting(BaseModel):
    """A cell's setting as ``run.json`` lists it (an axis not given is left out: "as packed")."""

    model_config = STRICT

    format: str
    budget: str
    top_k: int | None = Field(default=None, ge=1, le=MAX_AXIS_VALUE, exclude_if=_none)
    """Retrieval depth: the first K records in packed order."""
    record_tokens: int | None = Field(default=None, ge=1, le=MAX_AXIS_VALUE, exclude_if=_none)
    """Chunk size: each record's text cut to its first N tokens."""

    def identity(self) -> dict[str, Any]:
        """What the setting is, as hashed into ``sweep_sha256`` (axes not given left out)."""
        return self.model_dump()

    def setting(self) -> Setting:
        return Setting(format=SweepFormat(self.format), budget=self.budget, top_k=self.top_k,
                       record_tokens=self.record_tokens)

    @field_validator("format")
    @classmethod
    def _a_format(cls, value: str) -> str:
        return SweepFormat(value).value

    @field_validator("budget")
    @classmethod
    def _a_budget(cls, value: str) -> str:
        if parse_budget(value) != value:
            raise ValueError(f"budget {value!r} is not written as a sweep writes it")
        return value


class SweepManifest(BaseModel):
    """``run.json``: what the sweep is, written when its folder is created; a rerun into it must match."""

    model_config = STRICT

    kind: Literal["answerlens-sweep-run"] = "answerlens-sweep-run"
    schema_version: Literal[1] = 1
    question: str
    answer: str | None = None
    bundle: str
    """Where the bundle came from, as given (its records are in ``bundle.json``)."""
    bundle_sha256: str
    settings: tuple[SweepSetting, ...]
    repeats: int
    sweep_sha256: str
    """Identity of question, answer, bundle and settings: every sample's ``dataset_sha256``."""
    configuration: AnswerabilityConfig
    configuration_sha256: str
    prompt_version: str
    prompt_sha256: str
    second_opinion: bool = False
    manifest_sha256: str | None = Field(default=None, exclude_if=_none)
    """Of ``manifest()``: every field above; every sample and the result record it. None only in files written
    before manifests."""

    @field_serializer("configuration")
    def _public(self, config: AnswerabilityConfig) -> dict[str, Any]:
        return config.public_dump()

    def manifest(self) -> dict[str, Any]:
        """What the sweep asks and how it is summarised: question, draft, bundle (name and hash), settings, repeats,
        configuration (its base URL as recorded, evidence policy), prompt and second opinion — every field of
        ``run.json`` but the hashes derived from them."""
        return self.model_dump(mode="json", exclude={"manifest_sha256", "sweep_sha256"})


class SweepSample(BaseModel):
    """One repeat of a cell, in short; the whole sample (its assessment) is in ``samples/``."""

    model_config = STRICT

    repeat: int
    evaluation_id: str | None
    verdict: AnswerabilityVerdict | None
    action: AnswerabilityAction | None
    error: SampleError | None
    latency_ms: float


class RequirementTally(BaseModel):
    """One requirement of a cell (by position) over its repeats: final statuses and cited tokens counted."""

    model_config = STRICT

    requirement: str
    """Its text in the first repeat that has it."""
    statuses: dict[str, int]
    accepted: dict[str, int]
    """Accepted token -> repeats that cited it."""
    discarded: dict[str, int]
    """Discarded token -> repeats that cited it."""


class SweepCell(BaseModel):
    """One setting: where its budget cut, and its samples' outcomes."""

    model_config = STRICT

    format: str
    budget: str
    """As given (normalised: ``packed``, tokens, ``NN%``)."""
    top_k: int | None = Field(default=None, exclude_if=_none)
    """Retrieval depth, when the sweep has that axis."""
    record_tokens: int | None = Field(default=None, exclude_if=_none)
    """Chunk size, when the sweep has that axis."""
    budget_tokens: int | None
    tokens_used: int
    records_kept: tuple[str, ...]
    records_cut: tuple[str, ...]
    records_shortened: tuple[str, ...] = Field(default=(), exclude_if=lambda value: not value)
    """Kept records whose text the chunk size cut (present only then)."""
    assessable: bool
    reason: str | None = Field(default=None, exclude_if=_none)
    """Why the cell could not be assessed (present only then)."""
    samples: tuple[SweepSample, ...]
    actions: dict[str, int]
    verdicts: dict[str, int]
    errors: int
    stable: bool
    """Every repeat came to the same action (no error)."""
    requirements: tuple[RequirementTally, ...] = ()
    flags: dict[str, int] | None = Field(default=None, exclude_if=_none)
    """Second-opinion flags counted over repeats (present when the sweep ran with a second opinion)."""
    latency_ms: float | None = None
    """Median latency of the cell's calls."""

    @property
    def key(self) -> str:
        return setting_key(self.format, self.budget, self.top_k, self.record_tokens)

    @property
    def action(self) -> AnswerabilityAction | None:
        """The most frequent action (ties: the more conservative); None when no repeat came to one."""
        if not self.actions:
            return None
        counts = Counter({AnswerabilityAction(name): count for name, count in self.actions.items()})
        return max(ACTION_ORDER, key=lambda action: (counts[action], ACTION_ORDER.index(action)))


class RequirementFlip(BaseModel):
    model_config = STRICT

    requirement: str
    status_from: AnswerabilityStatus
    status_to: AnswerabilityStatus


class SweepChange(BaseModel):
    """Where the action changes from a fuller cell to the next cut one of the same format, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True)

    from_: int = Field(alias="from")
    """Index of the fuller cell in ``cells``."""
    to: int
    action_from: AnswerabilityAction
    action_to: AnswerabilityAction
    requirements_flipped: tuple[RequirementFlip, ...]
    records_lost: tuple[str, ...]
    """Records the fuller cell's accepted citations used that this cell cut (budget or depth)."""
    records_shortened: tuple[str, ...] = Field(default=(), exclude_if=lambda value: not value)
    """Records the fuller cell's accepted citations used whose text this cell's chunk size cut shorter, and which
    this cell's accepted citations no longer use (the cut took what was cited)."""


class SweepResult(BaseModel):
    """``result.json`` of a sweep, and what reading a sweep folder gives (with every sample's assessment)."""

    model_config = STRICT

    schema_version: Literal[1] = 1
    kind: Literal["sweep"] = "sweep"
    question: str
    answer: str | None = Field(default=None, exclude_if=_none)
    bundle_sha256: str
    configuration_sha256: str
    manifest_sha256: str | None = Field(default=None, exclude_if=_none)
    """The sweep's manifest (``run.json``'s)."""
    repeats: int
    cells: tuple[SweepCell, ...]
    changes: tuple[SweepChange, ...]
    wall_seconds: float | None = None
    samples: tuple[TrialSample, ...] = Field(default=(), exclude=True)
    """Every sample in full (``samples/``), in cell then repeat order; not written into ``result.json``."""

    def file_text(self) -> str:
        return self.model_dump_json(indent=2) + "\n"

    def samples_of(self, index: int) -> tuple[TrialSample, ...]:
        """Cell ``index``'s full samples, by repeat."""
        key = self.cells[index].key
        return tuple(sample for sample in self.samples if sample.case_id == key)
