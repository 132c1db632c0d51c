"""The run's files beside its samples: ``run.json`` (the manifest) and ``result.json`` (``TrialResult``).

``TrialResult`` is also what reading any trial gives: a finished run, an unfinished run folder, or an upstream
BEAM result file (whose other blocks are kept, as published, in ``upstream``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_serializer, model_validator

from answerlens.config import AnswerabilityConfig
from answerlens.trials.gates import GateReport
from answerlens.trials.log import STRICT, TOLERANT, AnswerLabel, AnySample, QuestionLabel, ResultKind
from answerlens.trials.shard import Shard
from answerlens.trials.summary import TrialSummary


def _absent(value: Any) -> bool:
    """Fields answerlens added later are left out of a file while they hold their default (``exclude_if``, in
    the compiled serializer), so files written before them, and runs that do not use them, keep their bytes."""
    return value is None or value is False


class RunIdentity(BaseModel):
    """What every sample of a run folder shares: a saved sample or manifest that differs is refused on resume."""

    model_config = STRICT

    dataset_sha256: str
    configuration: AnswerabilityConfig
    """Written as ``AnswerabilityConfig.public_dump()``: no API key; answerlens-only fields only when set."""
    configuration_sha256: str
    prompt_version: str
    prompt_sha256: str
    manifest_sha256: str | None = Field(default=None, exclude_if=_absent)
    """The run's manifest (``trial_manifest``; a sweep's own); None only in files written before manifests."""

    @field_serializer("configuration")
    def _public(self, config: AnswerabilityConfig) -> dict[str, Any]:
        return config.public_dump()


TRIAL_MANIFEST_KIND = "answerlens-trial"


def trial_manifest(*, dataset_sha256: str, case_hashes: Mapping[str, str], repeats: int,
                   configuration: AnswerabilityConfig, configuration_sha256: str, prompt_version: str,
                   prompt_sha256: str, second_opinion: bool) -> dict[str, Any]:
    """What a trial asks and how it is summarised, hashed into ``manifest_sha256``: the dataset (its bytes' hash and
    every case's hash, by id), the repeats, the configuration (the base URL as recorded, the evidence policy), the
    prompt and the second-opinion setting. Where a run ran (its folder, its shard, its replicas) is not in it, so
    the shards of a run and a one-machine run share it."""
    return {"kind": TRIAL_MANIFEST_KIND, "dataset_sha256": dataset_sha256, "case_hashes": dict(case_hashes),
            "repeats": repeats, "configuration": configuration.public_dump(),
            "configuration_sha256": configuration_sha256, "prompt_version": prompt_version,
            "prompt_sha256": prompt_sha256, "second_opinion": second_opinion}


class RunManifest(BaseModel):
    """``run.json``: written when a run folder is created; a later run into the folder must match it."""

    model_config = STRICT

    kind: Literal["answerlens-trial-run"] = "answerlens-trial-run"
    schema_version: Literal[1] = 1
    dataset: str
    """The dataset file as the runner was given it."""
    repeats: int
    dataset_sha256: str
    configuration: AnswerabilityConfig
    """Written as ``AnswerabilityConfig.public_dump()``."""
    configuration_sha256: str
    prompt_version: str
    prompt_sha256: str
    manifest_sha256: str | None = Field(default=None, exclude_if=_absent)
    """Of ``manifest()``; None only in files written before manifests."""
    shard: Shard | None = Field(default=None, exclude_if=_absent)
    """A sharded run's shard (without its case list); left out of the file otherwise."""
    second_opinion: bool = Field(default=False, exclude_if=_absent)
    """Whether every assessed sample carries a second opinion; left out of the file when not."""
    case_hashes: dict[str, str] | None = Field(default=None, exclude_if=_absent)
    """Every case of the dataset (its id -> its ``case_sha256``), in the dataset's order; None only in files
    written before manifests."""

    @field_serializer("configuration")
    def _public(self, config: AnswerabilityConfig) -> dict[str, Any]:
        return config.public_dump()

    @property
    def identity(self) -> RunIdentity:
        return RunIdentity(dataset_sha256=self.dataset_sha256, configuration=self.configuration,
                           configuration_sha256=self.configuration_sha256, prompt_version=self.prompt_version,
                           prompt_sha256=self.prompt_sha256, manifest_sha256=self.manifest_sha256)

    def manifest(self) -> dict[str, Any] | None:
        """The manifest its fields describe (None for a file written before manifests)."""
        if self.case_hashes is None:
            return None
        return trial_manifest(dataset_sha256=self.dataset_sha256, case_hashes=self.case_hashes, repeats=self.repeats,
                              configuration=self.configuration, configuration_sha256=self.configuration_sha256,
                              prompt_version=self.prompt_version, prompt_sha256=self.prompt_sha256,
                              second_opinion=self.second_opinion)


class DatasetRecord(BaseModel):
    """Which dataset a run used."""

    model_config = STRICT

    path: str
    """As the runner was given it (relative paths are relative to where it ran)."""
    sha256: str
    """Of the dataset file's bytes."""
    cases: int | None
    """None for an unfinished run: ``run.json`` does not record it."""


class QuestionRecord(BaseModel):
    """One case as ``result.json`` lists it, with the files of its samples in repeat order."""

    model_config = STRICT

    question_id: str
    question: str
    label: QuestionLabel
    question_type: str | None
    answer_label: AnswerLabel | None
    sample_files: tuple[str, ...]


class UpstreamProtocol(BaseModel):
    """An upstream result's ``protocol`` block: the fields answerlens reads are typed, the others kept."""

    model_config = TOLERANT

    repeats: int | None = None
    assessment_mode: str | None = None
    """``draft_answer`` for draft runs (schema 3); absent means question-only."""


class UpstreamRun(BaseModel):
    """What an upstream result reports beyond its samples and gates, as published (unknown keys kept)."""

    model_config = TOLERANT

    registration: str | None = None
    registration_sha256: str | None = None
    source: dict[str, Any] | None = None
    protocol: UpstreamProtocol = UpstreamProtocol()
    model: dict[str, Any] | None = None
    """The model block: provider, model, base URL, digest (an API key placeholder, never a key)."""
    answerability: dict[str, Any] | None = None
    """Schema 2 and later: the implementation, prompt and response-schema hashes."""
    summary: dict[str, Any] | None = None
    """The published summary, verbatim (``TrialResult.summary`` is recomputed from the samples)."""

    @property
    def drafts(self) -> bool:
        return self.protocol.assessment_mode == "draft_answer"


class TrialResult(BaseModel):
    """A trial's log: a finished answerlens run (``result.json``), an unfinished run folder, or an upstream result.

    Mirroring the upstream BEAM runner (same names, nesting and counting): ``kind``, ``schema_version``,
    ``summary`` (its upstream keys: counts per label, ``draft_answers``, stability, citation errors, per question),
    ``quality_gates`` and ``samples`` (upstream samples keep their own fields); an upstream file's other blocks
    (registration, source, protocol, model, answerability, the published summary) are in ``upstream``.

    Ours: ``dataset``, ``configuration`` (never the API key) and the hashes beside it, ``repeats``,
    ``concurrency``, ``finished_at``, ``wall_seconds``, ``questions``; in the summary ``error_samples``,
    ``errors`` and ``requirement_agreement``; and error samples, which are never counted as verdicts.

    Read back, ``summary`` is always recomputed from ``samples``. ``file_json()`` is ``result.json`` as written.
    """

    model_config = STRICT

    kind: ResultKind
    schema_version: int
    dataset: DatasetRecord | None = None
    configuration: AnswerabilityConfig | None = None
    """Written as ``AnswerabilityConfig.public_dump()``; None for upstream results."""
    dataset_sha256: str | None = None
    configuration_sha256: str | None = None
    prompt_version: str | None = None
    prompt_sha256: str | None = None
    manifest_sha256: str | None = Field(default=None, exclude_if=_absent)
    """Ours: the run's manifest (``trial_manifest`` of the fields here); every sample records it."""
    repeats: int | None = None
    concurrency: int | None = None
    """None until the run finishes, and for upstream results."""
    finished_at: datetime | None = None
    wall_seconds: float | None = None
    """Of the last invocation, which may have resumed earlier ones."""
    summary: TrialSummary
    quality_gates: GateReport | None = None
    """Ours: evaluated when the run finished (for an unfinished run, provisional defaults over the samples so
    far); upstream: as published (schema 2 and later)."""
    questions: tuple[QuestionRecord, ...] = ()
    samples: tuple[AnySample, ...]
    upstream: UpstreamRun | None = None
    """Upstream results only; never part of ``result.json``."""
    shard: Shard | None = Field(default=None, exclude_if=_absent)
    """Ours, sharded runs only (with every case id in the dataset's order, for ``trial-merge``); left out of the
    file otherwise, so a merged result is byte for byte what one machine would have written."""
    second_opinion: bool = Field(default=False, exclude_if=_absent)
    """Ours: whether every assessed sample carries a second opinion (in the manifest)."""
    case_hashes: dict[str, str] | None = Field(default=None, exclude_if=_absent)
    """Ours: every case of the dataset (id -> ``case_sha256``) in its order, as the manifest lists them."""

    @field_serializer("configuration")
    def _public(self, config: AnswerabilityConfig | None) -> dict[str, Any] | None:
        return config.public_dump() if config is not None else None

    @field_serializer("finished_at")
    def _iso(self, value: datetime | None) -> str | None:
        return value.isoformat() if value is not None else None

    @model_validator(mode="after")
    def _complete_for_its_kind(self) -> TrialResult:
        if (self.kind == ResultKind.UPSTREAM) != (self.upstream is not None):
            raise ValueError("an upstream result, and only one, keeps its published blocks in 'upstream'")
        ours = (self.dataset, self.configuration, self.dataset_sha256, self.configuration_sha256, self.repeats)
        if self.kind != ResultKind.UPSTREAM and any(value is None for value in ours):
            raise ValueError("an answerlens run records its dataset, configuration, their hashes and repeats")
        return self

    def manifest(self) -> dict[str, Any] | None:
        """The manifest its fields describe (None for upstream results and files written before manifests)."""
        if self.case_hashes is None or self.kind == ResultKind.UPSTREAM:
            return None
        assert self.dataset_sha256 is not None and self.repeats is not None and self.configuration is not None
        return trial_manifest(dataset_sha256=self.dataset_sha256, case_hashes=self.case_hashes, repeats=self.repeats,
                              configuration=self.configuration, configuration_sha256=self.configuration_sha256 or "",
                              prompt_version=self.prompt_version or "", prompt_sha256=self.prompt_sha256 or "",
                              second_opinion=self.second_opinion)

    @property
    def drafts(self) -> bool:
        """Whether the run checked draft answers (its summary then has ``draft_answers``)."""
        return self.summary.draft_answers is not None

    @property
    def summary_matches(self) -> bool | None:
        """Upstream results: whether the summary recomputed from the samples equals the published one."""
        if self.upstream is None or self.upstream.summary is None:
            return None
        published = self.upstream.summary
        recomputed = self.summary.model_dump(mode="json")
        return {key: recomputed.get(key) for key in published} == published

    def file_json(self) -> dict[str, Any]:
        """``result.json`` as written: every field of ours, in order, and no upstream block."""
        self._check_finished()
        return self.model_dump(mode="json", exclude={"upstream"})

    def file_text(self) -> str:
        """``result.json``'s text: ``file_json()`` with two-space indents, non-ASCII kept, a final newline (the
        layout of every file of a run; pydantic's compiled serializer, not ``json.dumps``, for speed)."""
        self._check_finished()
        return self.model_dump_json(indent=2, exclude={"upstream"}) + "\n"

    def _check_finished(self) -> None:
        if self.kind != ResultKind.RESULT:
            raise ValueError(f"only a finished run is written as result.json, not {self.kind.value}")
