"""The assessment (PRME's fields plus ours) and ``derive_assessment``: a raw reply to a verdict (pure).

Judgement is the model's; everything after it here is arithmetic in code: citation checks, downgrades,
verdict, hashes.
"""

from __future__ import annotations

import json
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from answerlens.audit import assessment_sha256, canonical_json, evaluation_id, sha256_text
from answerlens.bundle import ContextFormat, load_bundle
from answerlens.citations import CitationDecision, check_requirement, label_sites, valid_references
from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.prompts import PROMPT_SHA256, PROMPT_VERSION, RawAssessment, ReplyError, parse_reply, prompt_for
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
    """answerlens: what the server said about the call, where it said it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    engine: str
    base_url: str | None = None
    recorded: bool = False
    """True when the reply was replayed from a recording, not produced by a live model."""
    recorded_note: str | None = None
    latency_ms: float | None = None
    attempts: int = 1
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    response_format: str | None = None


class AnswerabilityAssessment(BaseModel):
    """Auditable set-level support decision over one exact packed context."""

    model_config = ConfigDict(frozen=True, extra="forbid")

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

    @property
    def should_abstain(self) -> bool:
        """Whether the assessment recommends returning no asserted answer."""
        return self.recommended_action in ABSTAINING_ACTIONS

    def prme_dict(self) -> dict[str, Any]:
        """Only PRME's fields, as PRME dumps them."""
        ours = {"raw_output", "raw_output_sha256", "raw_output_text", "provider_metadata"}
        data = self.model_dump(mode="json", exclude=ours)
        for item in data["requirements"]:
            item.pop("claimed_status")
            item.pop("citations")
        return data


def normalize_inputs(query: str, answer: str | None) -> tuple[str, str | None]:
    """Strip the query and answer; a blank query or a blank given answer is a ``ValueError``."""
    normalized = query.strip()
    if not normalized:
        raise ValueError("query must be nonempty")
    if answer is not None and not answer.strip():
        raise ValueError("answer must be nonempty when provided")
    return normalized, answer.strip() if answer is not None else None


def derive_assessment(
    query: str,
    bundle: Any,
    raw_output: str | dict[str, Any] | RawAssessment,
    *,
    config: AnswerabilityConfig,
    answer: str | None = None,
    prompt_version: str | None = None,
    prompt_sha256: str | None = None,
    model_called: bool = True,
    provider_metadata: ProviderMetadata | None = None,
) -> AnswerabilityAssessment:
    """The pure path from a model's raw reply (JSON text or parsed) to a complete assessment.

    The prompt identity is the configured prompt's (``config.prompt``) unless ``prompt_version`` and
    ``prompt_sha256`` name another (a reply produced elsewhere). Raises ``ValueError`` for a blank query/answer
    or an uncitable reader bundle, ``BundleError`` for a bad bundle, and ``AnswerabilityError`` when the reply
    does not fit the raw-response schema.
    """
    query, answer = normalize_inputs(query, answer)
    bundle = load_bundle(bundle)
    bundle.ensure_citable()
    try:
        raw = parse_reply(raw_output)
    except ReplyError as exc:
        excerpt = raw_output if isinstance(raw_output, str) else json.dumps(raw_output, default=str)
        raise AnswerabilityError(
            f"the reply does not fit the answerability schema: {exc.reason}",
            kind=exc.kind,
            remedy="record a reply with 'requirements' (each: requirement, status, evidence_refs, explanation) "
            "and a non-empty 'reasoning'",
            model=config.model,
            raw_excerpt=excerpt[:500],
        ) from exc
    context = bundle.render().strip()
    references = valid_references(bundle, context)
    fmt = bundle.context_format
    sites = label_sites(context, fmt, cited_reader=bool(bundle.context_references))

    requirements: list[AnswerabilityRequirement] = []
    citation_errors: list[str] = []
    for index, item in enumerate(raw.requirements):
        checked = check_requirement(index, item, references, sites, bracketed=fmt == ContextFormat.READER)
        citation_errors.extend(checked.errors)
        requirements.append(
            AnswerabilityRequirement(
                requirement=item.requirement.strip(),
                status=checked.status,
                evidence_refs=checked.refs,
                evidence_ids=checked.ids,
                explanation=item.explanation.strip(),
                claimed_status=item.status,
                citations=checked.decisions,
            )
        )

    verdict, action = derive_verdict(requirement.status for requirement in requirements)
    reasoning = raw.reasoning.strip()
    identity = {
        "query_sha256": sha256_text(query),
        "context_sha256": sha256_text(context),
        "answer_sha256": sha256_text(answer) if answer is not None else None,
        "configuration_sha256": sha256_text(canonical_json(config.public_dump())),
        "prompt_sha256": prompt_sha256 or prompt_for(config.prompt).sha256,
        "prompt_version": prompt_version or prompt_for(config.prompt).version,
    }
    eval_id = evaluation_id(identity)
    if isinstance(raw_output, str):
        raw_text = raw_output
    else:
        raw_text = canonical_json(raw_output if isinstance(raw_output, dict) else raw.model_dump(mode="json"))
    return AnswerabilityAssessment(
        verdict=verdict,
        recommended_action=action,
        requirements=tuple(requirements),
        missing_information=tuple(r.requirement for r in requirements if r.status == AnswerabilityStatus.UNSUPPORTED),
        conflicts=tuple(r.requirement for r in requirements if r.status == AnswerabilityStatus.CONFLICTING),
        citation_errors=tuple(citation_errors),
        reasoning=reasoning,
        provider=config.provider,
        model=config.model,
        model_called=model_called,
        evaluation_id=eval_id,
        assessment_sha256=assessment_sha256(
            evaluation_id=eval_id,
            verdict=verdict.value,
            recommended_action=action.value,
            requirements=[r.model_dump(mode="json") for r in requirements],
            citation_errors=citation_errors,
            reasoning=reasoning,
        ),
        raw_output=raw.model_dump(mode="json") if model_called else None,
        raw_output_sha256=sha256_text(raw_text) if model_called else None,
        raw_output_text=raw_text if model_called else None,
        provider_metadata=provider_metadata,
        **identity,
    )
