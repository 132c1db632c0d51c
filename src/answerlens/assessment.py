"""The assessment (PRME's fields plus ours) and its derivation from one parsed reply (pure).

The pipeline reads left to right: prepared inputs → parsed reply → citation decisions → final statuses → verdict
→ audit hashes. Judgement is the model's; everything here is arithmetic in code. File reading is the caller's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal
from uuid import UUID

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
    model_validator,
)

from answerlens.audit import (
    assessment_sha256,
    canonical_json_ascii,
    configuration_sha256,
    evaluation_id,
    provenance,
    provenance_sha256,
    sha256_text,
)
from answerlens.citations import CitationDecision, RequirementCitations, check_reply, valid_references
from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.prompts import PROMPT_SHA256, PROMPT_VERSION, RawAssessment, ReplyError, parse_reply, prompt_for
from answerlens.recording import RecordingRef, ReplyOrigin
from answerlens.records import MemoryBundle
from answerlens.trace_import import IMPORT_KEY, TraceImport
from answerlens.verdict import (
    ABSTAINING_ACTIONS,
    AnswerabilityAction,
    AnswerabilityStatus,
    AnswerabilityVerdict,
    derive_verdict,
)


class AnswerabilityRequirement(BaseModel):
    """One query or draft requirement with its validated citations."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    requirement: str
    status: AnswerabilityStatus
    """Final status, after downgrades."""
    evidence_refs: tuple[str, ...] = ()
    evidence_ids: tuple[UUID, ...] = ()
    explanation: str
    claimed_status: AnswerabilityStatus | None = None
    """answerlens: the status the model claimed (None in PRME's assessments)."""
    citations: tuple[CitationDecision, ...] = ()
    """answerlens: every cited token with its decision and where it sits in the context."""


class ProviderMetadata(BaseModel):
    """answerlens: where the reply came from and what the server said about the call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    engine: str
    base_url: str | None = None
    origin: ReplyOrigin = ReplyOrigin.LIVE
    """A live call, or a replayed recording."""
    recording: RecordingRef | None = None
    """The recording replayed (who wrote it, from which file), when ``origin`` is recorded."""
    latency_ms: float | None = None
    attempts: int = 1
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    response_format: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def recorded(self) -> bool:
        """True when the reply was replayed from a recording, not produced by a live model."""
        return self.origin == ReplyOrigin.RECORDED

    @model_validator(mode="before")
    @classmethod
    def _read_dumps(cls, data: Any) -> Any:
        # Dumps carry the computed ``recorded``; it must agree with ``origin`` (live when the dump has none).
        if not isinstance(data, dict) or "recorded" not in data:
            return data
        data = dict(data)
        recorded = data.pop("recorded")
        origin = data.get("origin", ReplyOrigin.LIVE)
        if recorded != (ReplyOrigin(origin) == ReplyOrigin.RECORDED):
            raise ValueError(f"recorded={recorded!r} contradicts origin={origin!r}")
        return data


class AnswerabilityAssessment(BaseModel):
    """Auditable set-level support decision over one exact packed context."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True)

    schema_version: Literal[1] = 1
    verdict: AnswerabilityVerdict
    recommended_action: AnswerabilityAction
    requirements: tuple[AnswerabilityRequirement, ...]
    missing_information: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    citation_errors: tuple[str, ...] = ()
    reasoning: str
    provider: str
    model: str
    prompt_version: str = PROMPT_VERSION
    prompt_sha256: str = PROMPT_SHA256
    configuration_sha256: str
    model_called: bool
    query_sha256: str
    context_sha256: str
    answer_sha256: str | None = None
    evaluation_id: str
    assessment_sha256: str
    raw_output: dict[str, Any] | None = None
    """answerlens: the model's reply as parsed JSON, so the assessment can be re-derived (replayed)."""
    raw_output_sha256: str | None = None
    """answerlens: sha256 of the model's raw reply text."""
    raw_output_text: str | None = None
    """answerlens: the model's reply exactly as received (``raw_output_sha256`` hashes it)."""
    provider_metadata: ProviderMetadata | None = None
    provenance_sha256: str | None = None
    """answerlens: sha256 of where the reply came from (``provenance``); None in PRME's assessments and in ours
    made before it existed, whose provenance no hash covers (then left out of dumps, so they re-dump as read)."""
    trace_import: TraceImport | None = Field(default=None, alias=IMPORT_KEY)
    """answerlens: the span an imported sample's evidence was read from (``import`` in JSON; outside every hash);
    None (and left out of dumps) for any other sample."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in ("provenance_sha256", IMPORT_KEY):
            if name in data and data[name] is None:
                del data[name]
        return data

    @property
    def should_abstain(self) -> bool:
        """Whether the assessment recommends returning no asserted answer."""
        return self.recommended_action in ABSTAINING_ACTIONS

    @property
    def hand_written(self) -> bool:
        """Whether the reply replayed is a hand-written recording: it has a reply (``raw_output``) but no model
        produced it, so ``model_called`` is false."""
        meta = self.provider_metadata
        return meta is not None and meta.recording is not None and meta.recording.hand_written

    @property
    def origin(self) -> ReplyOrigin | None:
        """Live or recorded; None when there was no reply (no citable evidence) or the assessment is PRME's own."""
        if self.provider_metadata is None or not (self.model_called or self.hand_written):
            return None
        return self.provider_metadata.origin

    def prme_dict(self) -> dict[str, Any]:
        """Only PRME's fields, as PRME dumps them."""
        ours = {"raw_output", "raw_output_sha256", "raw_output_text", "provider_metadata", "provenance_sha256",
                "trace_import"}
        data = self.model_dump(mode="json", exclude=ours)
        for item in data["requirements"]:
            item.pop("claimed_status")
            item.pop("citations")
        return data


@dataclass(frozen=True)
class AssessmentInputs:
    """A question (and draft) over one citable bundle, normalised once."""

    query: str
    answer: str | None
    bundle: MemoryBundle

    @property
    def context(self) -> str:
        return self.bundle.exact_context

    @cached_property
    def references(self) -> dict[str, UUID]:
        """The citation tokens that occur in the exact context (computed once)."""
        return valid_references(self.bundle, self.context)

    @property
    def citable(self) -> bool:
        """Whether a model is worth asking: a non-empty context with at least one citable token."""
        return bool(self.context) and bool(self.references)


@dataclass(frozen=True)
class PromptIdentity:
    """Which prompt asked for the reply: recorded in ``evaluation_id``."""

    version: str = PROMPT_VERSION
    sha256: str = PROMPT_SHA256

    @classmethod
    def of(cls, config: AnswerabilityConfig) -> PromptIdentity:
        """The identity of the prompt ``config.prompt`` chooses."""
        prompt = prompt_for(config.prompt)
        return cls(prompt.version, prompt.sha256)


def prepare_inputs(query: str, bundle: MemoryBundle, answer: str | None = None) -> AssessmentInputs:
    """Strip the query and answer and check the bundle can be cited.

    A blank query, a blank given answer or a reader bundle packed without citations is a ``ValueError``;
    anything but a loaded ``MemoryBundle`` is a ``TypeError`` (load files with ``load_bundle`` first).
    """
    if not isinstance(bundle, MemoryBundle):
        raise TypeError(f"expected a MemoryBundle, got {type(bundle).__name__}; load it with load_bundle() first")
    normalized = query.strip()
    if not normalized:
        raise ValueError("query must be nonempty")
    if answer is not None and not answer.strip():
        raise ValueError("answer must be nonempty when provided")
    bundle.ensure_citable()
    return AssessmentInputs(normalized, answer.strip() if answer is not None else None, bundle)


def derive(
    inputs: AssessmentInputs,
    raw: RawAssessment,
    raw_text: str | None,
    *,
    config: AnswerabilityConfig,
    prompt: PromptIdentity = PromptIdentity(),
    provider_metadata: ProviderMetadata | None = None,
) -> AnswerabilityAssessment:
    """The assessment of one parsed reply; ``raw_text`` is None when there was no reply (no citable evidence).
    A hand-written recording (``provider_metadata``) has a reply but no model call: ``model_called`` is false."""
    checked = check_reply(raw, inputs.bundle, inputs.context, inputs.references)
    requirements = tuple(_requirement(item, result) for item, result in zip(raw.requirements, checked, strict=True))
    citation_errors = tuple(error for result in checked for error in result.errors)
    verdict, action = derive_verdict(requirement.status for requirement in requirements)
    reasoning = raw.reasoning.strip()
    identity = _identity(inputs, config, prompt)
    eval_id = evaluation_id(identity)
    replied = raw_text is not None
    recording = provider_metadata.recording if provider_metadata is not None else None
    called = replied and not (recording is not None and recording.hand_written)
    meta = provider_metadata.model_dump(mode="json") if provider_metadata is not None else None
    source = {"provider": config.provider, "model": config.model, "model_called": called, "provider_metadata": meta}
    return AnswerabilityAssessment(
        verdict=verdict,
        recommended_action=action,
        requirements=requirements,
        missing_information=_texts(requirements, AnswerabilityStatus.UNSUPPORTED),
        conflicts=_texts(requirements, AnswerabilityStatus.CONFLICTING),
        citation_errors=citation_errors,
        reasoning=reasoning,
        provider=config.provider,
        model=config.model,
        model_called=called,
        evaluation_id=eval_id,
        assessment_sha256=assessment_sha256(
            evaluation_id=eval_id,
            verdict=verdict.value,
            recommended_action=action.value,
            requirements=[r.model_dump(mode="json") for r in requirements],
            citation_errors=citation_errors,
            reasoning=reasoning,
        ),
        raw_output=raw.model_dump(mode="json") if replied else None,
        raw_output_sha256=sha256_text(raw_text) if raw_text is not None else None,
        raw_output_text=raw_text,
        provider_metadata=provider_metadata,
        provenance_sha256=provenance_sha256(provenance(source)),
        **identity,
    )


def derive_assessment(
    query: str,
    bundle: MemoryBundle,
    reply: str | RawAssessment,
    *,
    config: AnswerabilityConfig,
    answer: str | None = None,
    prompt_version: str | None = None,
    prompt_sha256: str | None = None,
    model_called: bool = True,
    provider_metadata: ProviderMetadata | None = None,
) -> AnswerabilityAssessment:
    """A complete assessment from a model's reply (its exact JSON text, or a parsed ``RawAssessment``): replay.

    The prompt identity is the configured prompt's (``config.prompt``) unless ``prompt_version`` and
    ``prompt_sha256`` name another (a reply produced elsewhere).

    ``model_called=False`` records a reply that no model gave (the no-evidence assessment), with no raw output.

    Raises ``ValueError`` for a blank query/answer or an uncitable reader bundle, ``TypeError`` for anything but
    a loaded bundle, and ``AnswerabilityError`` when the reply does not fit the raw-response schema.
    """
    inputs = prepare_inputs(query, bundle, answer)
    if isinstance(reply, RawAssessment):
        raw, text = reply, canonical_json_ascii(reply.model_dump(mode="json"))
    elif isinstance(reply, str):
        raw, text = _parse(reply, config), reply
    else:
        raise TypeError(f"expected the reply's exact JSON text or a RawAssessment, got {type(reply).__name__}; "
                        "pass json.dumps(reply) for a parsed reply")
    configured = PromptIdentity.of(config)
    prompt = PromptIdentity(prompt_version or configured.version, prompt_sha256 or configured.sha256)
    return derive(inputs, raw, text if model_called else None, config=config, prompt=prompt,
                  provider_metadata=provider_metadata)


def _parse(text: str, config: AnswerabilityConfig) -> RawAssessment:
    try:
        return parse_reply(text)
    except ReplyError as exc:
        raise AnswerabilityError(
            f"the reply does not fit the answerability schema: {exc.reason}",
            kind=exc.kind,
            remedy="record a reply with 'requirements' (each: requirement, status, evidence_refs, explanation) "
            "and a non-empty 'reasoning'",
            model=config.model,
            raw_excerpt=text[:500],
        ) from exc


def _requirement(item: Any, result: RequirementCitations) -> AnswerabilityRequirement:
    return AnswerabilityRequirement(
        requirement=item.requirement.strip(),
        status=result.status,
        evidence_refs=result.refs,
        evidence_ids=result.ids,
        explanation=item.explanation.strip(),
        claimed_status=item.status,
        citations=result.decisions,
    )


def _identity(inputs: AssessmentInputs, config: AnswerabilityConfig, prompt: PromptIdentity) -> dict[str, Any]:
    return {
        "query_sha256": sha256_text(inputs.query),
        "context_sha256": sha256_text(inputs.context),
        "answer_sha256": sha256_text(inputs.answer) if inputs.answer is not None else None,
        "configuration_sha256": configuration_sha256(config.public_dump()),
        "prompt_sha256": prompt.sha256,
        "prompt_version": prompt.version,
    }


def _texts(requirements: tuple[AnswerabilityRequirement, ...], status: AnswerabilityStatus) -> tuple[str, ...]:
    return tuple(r.requirement for r in requirements if r.status == status)
