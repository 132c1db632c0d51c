"""``ClaimVerifier``: one declarative claim against exact passages, fail-closed and audited (PRME 0.15.0's rules).

Passages are scored alone first; only when none decides are small groups of the strongest ones scored together,
so a claim that needs two memories is found without hiding the decisive one in a long concatenation.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from answerlens.audit import sha256_text
from answerlens.claims.audit import claim_sha256, configuration_sha256, evaluation_id, evidence_sha256, result_sha256
from answerlens.claims.grouping import DecidingScore, best_group, group_candidates, groups_of
from answerlens.claims.guards import corroborates_entailment, corroborates_refutation, explicit_negation_refutes
from answerlens.claims.models import (
    ClaimEvidence,
    ClaimVerification,
    ClaimVerificationConfig,
    ClaimVerificationDecisionBasis,
    ClaimVerificationLimitation,
    ClaimVerificationStatus,
    EvidenceGroupScore,
    LocalizedEvidenceAssessment,
)
from answerlens.claims.premises import group_premise, localized_premise
from answerlens.claims.scoring import NliScorer, Probabilities, score_pairs
from answerlens.errors import ClaimVerificationError
from answerlens.loading import load_bundle
from answerlens.records import MemoryBundle

Group = tuple[ClaimEvidence, ...]


class ClaimVerifier:
    """Verify explicit claims with a pinned NLI cross-encoder (or an injected scorer).

    The default scorer runs the pinned model with ONNX Runtime from a local folder, loaded on first use; nothing
    is downloaded. Scorer calls share one lock, so concurrent first requests never load two copies. Exhaustive
    counts or lists must pass ``requires_complete_set=True``: NLI cannot prove a retrieved top-k set complete,
    so those return ``incomplete`` without a model call.
    """

    def __init__(self, config: ClaimVerificationConfig | BaseModel | Mapping[str, Any] | None = None, *,
                 scorer: NliScorer | None = None, model_dir: str | os.PathLike[str] | None = None) -> None:
        """``model_dir``: the folder of the pinned model's ONNX export (default: ``ANSWERLENS_NLI_MODEL_DIR``, then
        the usual places); ignored when ``scorer`` is given."""
        if isinstance(config, BaseModel) and not isinstance(config, ClaimVerificationConfig):
            config = config.model_dump()  # e.g. PRME's own ClaimVerificationConfig
        self.config = ClaimVerificationConfig.model_validate(config if config is not None else {})
        if scorer is None:
            from answerlens.claims.onnx_scorer import OnnxNliScorer

            scorer = OnnxNliScorer(model_dir, model=self.config.model, revision=self.config.revision,
                                   batch_size=self.config.batch_size)
        self.scorer = scorer
        self._lock = threading.Lock()

    async def verify(
        self, claim: str, evidence: Iterable[ClaimEvidence | Mapping[str, Any]], *, requires_complete_set: bool = False
    ) -> ClaimVerification:
        """Verify a declarative claim against exact, typed evidence passages (dicts are validated)."""
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a string, not {type(claim).__name__}")
        normalized = claim.strip()
        if not normalized:
            raise ValueError("claim must be nonempty")
        items = list(evidence)
        if len(items) > self.config.max_evidence:
            raise ValueError(f"evidence count exceeds configured maximum {self.config.max_evidence}")
        unique = _unique_evidence(items)
        if requires_complete_set:
            limitation = ClaimVerificationLimitation.COMPLETE_SET_REQUIRES_STRUCTURED_AGGREGATION
            return self._result(normalized, unique, ClaimVerificationStatus.INCOMPLETE, limitations=(limitation,))
        if not unique:
            return self._result(normalized, (), ClaimVerificationStatus.INSUFFICIENT)
        return await _Run(self, normalized, unique).decide()

    async def verify_bundle(
        self, claim: str, bundle: Any, *, evidence_refs: Sequence[str] | None = None,
        requires_complete_set: bool = False,
    ) -> ClaimVerification:
        """Verify using only passages present in an exact packed bundle (anything ``load_bundle`` reads).

        ``evidence_refs`` picks passages by reference, in the given order; an unknown one is a ``ValueError``.
        """
        evidence = bundle_evidence(bundle)
        if evidence_refs is not None:
            by_reference = {item.reference: item for item in evidence}
            selected = []
            for reference in evidence_refs:
                if reference not in by_reference:
                    raise ValueError(f"Unknown context reference: {reference}")
                selected.append(by_reference[reference])
            evidence = tuple(selected)
        return await self.verify(claim, evidence, requires_complete_set=requires_complete_set)

    @staticmethod
    def bundle_evidence(bundle: Any) -> tuple[ClaimEvidence, ...]:
        """Upstream's spelling, ``ClaimVerifier.bundle_evidence(bundle)``: the module function ``bundle_evidence``."""
        return bundle_evidence(bundle)

    async def score(self, pairs: Sequence[tuple[str, str]]) -> list[Probabilities]:
        """Validated scorer rows for (premise, claim) pairs, scored in a worker thread under the lock."""
        if not pairs:
            return []
        return await asyncio.to_thread(self._score_locked, pairs)

    def _score_locked(self, pairs: Sequence[tuple[str, str]]) -> list[Probabilities]:
        with self._lock:
            return score_pairs(self.scorer, pairs)

    def _resolved_revision(self) -> str | None:
        revision = getattr(self.scorer, "resolved_revision", None)
        if revision is not None and not isinstance(revision, str):
            raise ClaimVerificationError("the scorer's resolved_revision must be a string or None")
        return revision

    def _result(
        self,
        claim: str,
        evidence: Sequence[ClaimEvidence],
        status: ClaimVerificationStatus,
        *,
        model_called: bool = False,
        scores: Sequence[EvidenceGroupScore] = (),
        localized: Sequence[LocalizedEvidenceAssessment] = (),
        supporting: DecidingScore | None = None,
        refuting: DecidingScore | None = None,
        supporting_basis: ClaimVerificationDecisionBasis | None = None,
        refuting_basis: ClaimVerificationDecisionBasis | None = None,
        limitations: Sequence[ClaimVerificationLimitation] = (),
    ) -> ClaimVerification:
        hashes = {
            "configuration_sha256": configuration_sha256(self.config),
            "claim_sha256": claim_sha256(claim),
            "evidence_sha256": evidence_sha256(evidence),
        }
        identity = evaluation_id(**hashes)
        decision: dict[str, Any] = {
            "status": status,
            "supporting_group": supporting.memory_ids if supporting else (),
            "refuting_group": refuting.memory_ids if refuting else (),
            "supporting_basis": supporting_basis,
            "refuting_basis": refuting_basis,
            "group_scores": tuple(scores),
            "localized_assessments": tuple(localized),
            "limitations": tuple(limitations),
        }
        return ClaimVerification(
            claim=claim,
            **decision,
            model=self.config.model,
            requested_revision=self.config.revision,
            resolved_revision=self._resolved_revision() if model_called else None,
            model_called=model_called,
            **hashes,
            evaluation_id=identity,
            result_sha256=result_sha256(evaluation_id=identity, **decision),
        )


def _unique_evidence(items: Sequence[ClaimEvidence | Mapping[str, Any]]) -> list[ClaimEvidence]:
    unique: list[ClaimEvidence] = []
    references: set[str] = set()
    memory_ids: set[UUID] = set()
    for raw in items:
        item = _as_evidence(raw)
        if item.reference in references:
            raise ValueError(f"duplicate evidence reference: {item.reference}")
        if item.memory_id in memory_ids:
            raise ValueError(f"duplicate evidence memory: {item.memory_id}")
        references.add(item.reference)
        memory_ids.add(item.memory_id)
        unique.append(item)
    return unique


def _as_evidence(item: Any) -> ClaimEvidence:
    if isinstance(item, ClaimEvidence):
        return item
    if isinstance(item, Mapping):
        return ClaimEvidence.model_validate(item)
    if isinstance(item, BaseModel):  # e.g. PRME's own ClaimEvidence
        return ClaimEvidence.model_validate(item.model_dump())
    raise TypeError(f"evidence items must be ClaimEvidence or mappings, not {type(item).__name__}")


class _Run:
    """One verification: the scores gathered so far and what blocked model decisions."""

    def __init__(self, verifier: ClaimVerifier, claim: str, evidence: Sequence[ClaimEvidence]) -> None:
        self.verifier = verifier
        self.config = verifier.config
        self.claim = claim
        self.evidence = evidence
        self.by_id = {item.memory_id: item for item in evidence}
        self.scores: list[EvidenceGroupScore] = []
        self.localized: list[LocalizedEvidenceAssessment] = []
        self.entailment_blocked = False
        self.contradiction_blocked = False

    async def decide(self) -> ClaimVerification:
        singles = await self._score_groups([(item,) for item in self.evidence])
        support, refute, model_refute = await self._classify(singles)
        if not support and not refute and self.config.max_group_size > 1:
            candidates = group_candidates(self.evidence, singles, self.config.group_candidate_limit)
            for size in range(2, self.config.max_group_size + 1):
                grouped = list(groups_of(candidates, size))
                if not grouped:
                    break
                support, refute, model_refute = await self._classify(await self._score_groups(grouped))
                if support or refute:
                    break
        return self._conclude(support, refute, model_refute)

    def _conclude(
        self, support: list[DecidingScore], refute: list[EvidenceGroupScore], model_refute: list[EvidenceGroupScore]
    ) -> ClaimVerification:
        if support and refute:
            status = ClaimVerificationStatus.CONTESTED
        elif support:
            status = ClaimVerificationStatus.SUPPORTED
        elif refute:
            status = ClaimVerificationStatus.REFUTED
        else:
            status = ClaimVerificationStatus.INSUFFICIENT
        supporting = best_group(support, "entailment")
        refuting = best_group(list(refute), "contradiction")
        basis = ClaimVerificationDecisionBasis
        supporting_basis = None if supporting is None else (
            basis.LOCALIZED_MODEL_ENTAILMENT if isinstance(supporting, LocalizedEvidenceAssessment)
            else basis.MODEL_ENTAILMENT
        )
        refuting_basis = None if refuting is None else (
            basis.MODEL_CONTRADICTION if any(refuting is item for item in model_refute)
            else basis.EXPLICIT_NEGATION_OVERLAP
        )
        limitations = []
        if self.entailment_blocked:
            limitations.append(ClaimVerificationLimitation.UNCORROBORATED_MODEL_ENTAILMENT)
        if self.contradiction_blocked:
            limitations.append(ClaimVerificationLimitation.UNCORROBORATED_MODEL_CONTRADICTION)
        return self.verifier._result(
            self.claim, self.evidence, status, model_called=True, scores=self.scores, localized=self.localized,
            supporting=supporting, refuting=refuting, supporting_basis=supporting_basis,
            refuting_basis=refuting_basis, limitations=limitations,
        )

    def _group(self, score: DecidingScore) -> Group:
        return tuple(self.by_id[memory_id] for memory_id in score.memory_ids)

    async def _score_groups(self, groups: Sequence[Group]) -> list[EvidenceGroupScore]:
        rows = await self.verifier.score([(group_premise([item.text for item in group]), self.claim)
                                          for group in groups])
        scores = [
            EvidenceGroupScore(
                references=tuple(item.reference for item in group),
                memory_ids=tuple(item.memory_id for item in group),
                **row._asdict(),
            )
            for group, row in zip(groups, rows, strict=True)
        ]
        self.scores.extend(scores)
        return scores

    async def _classify(
        self, scores: Sequence[EvidenceGroupScore]
    ) -> tuple[list[DecidingScore], list[EvidenceGroupScore], list[EvidenceGroupScore]]:
        """(accepted supports, refutations, the refutations the model made) of one round of scores."""
        support = await self._supports(scores)
        model_refute, deterministic_refute = self._refutations(scores)
        return support, [*model_refute, *deterministic_refute], model_refute

    async def _supports(self, scores: Sequence[EvidenceGroupScore]) -> list[DecidingScore]:
        raw = [item for item in scores if item.entailment >= self.config.entailment_threshold]
        guarded = self.config.entailment_policy != "model_only"
        direct = [item for item in raw if not guarded or corroborates_entailment(self.claim, self._group(item))]
        blocked = [item for item in raw if not any(item is kept for kept in direct)]
        accepted: list[DecidingScore] = list(direct)
        if blocked and guarded:
            assessments = await self._localize(blocked)
            self.localized.extend(assessments)
            accepted.extend(
                item for item in assessments
                if item.model_called and item.entailment is not None
                and item.entailment >= self.config.entailment_threshold
            )
        accepted_keys = {item.memory_ids for item in accepted}
        if any(item.memory_ids not in accepted_keys for item in raw):
            self.entailment_blocked = True
        return accepted

    def _refutations(
        self, scores: Sequence[EvidenceGroupScore]
    ) -> tuple[list[EvidenceGroupScore], list[EvidenceGroupScore]]:
        raw = [item for item in scores if item.contradiction >= self.config.contradiction_threshold]
        model_only = self.config.refutation_policy == "model_only"
        model = [item for item in raw if model_only or corroborates_refutation(self.claim, self._group(item))]
        if len(raw) != len(model):
            self.contradiction_blocked = True
        model_keys = {item.memory_ids for item in model}
        # Explicit negation refutes whatever the policy and whatever the model said.
        deterministic = [
            item for item in scores
            if item.memory_ids not in model_keys and explicit_negation_refutes(self.claim, self._group(item))
        ]
        return model, deterministic

    async def _localize(self, blocked: Sequence[EvidenceGroupScore]) -> list[LocalizedEvidenceAssessment]:
        """Recheck guard-blocked groups on their guard-compatible segments only."""
        prepared = [(score, *localized_premise(self.claim, self._group(score))) for score in blocked]
        rows = iter(await self.verifier.score([(premise, self.claim) for _, premise, _ in prepared
                                               if premise is not None]))
        assessments = []
        for score, premise, included in prepared:
            identity: dict[str, Any] = {"references": score.references, "memory_ids": score.memory_ids,
                                        "included_segment_numbers": included}
            if premise is None:
                assessments.append(LocalizedEvidenceAssessment(**identity, model_called=False))
                continue
            assessments.append(LocalizedEvidenceAssessment(
                **identity, premise_sha256=sha256_text(premise), model_called=True, **next(rows)._asdict()
            ))
        return assessments


def bundle_evidence(bundle: Any) -> tuple[ClaimEvidence, ...]:
    """The exact rendered passages of a packed bundle, with typed provenance, in section order.

    The bundle must be citable (a reader bundle needs citations: ``ValueError`` otherwise). A passage is the
    candidate's packed text; its reference is its context reference (``m3``) or else its memory id, and it is
    kept only when that reference appears in the exact context. Each memory appears once.
    """
    if not isinstance(bundle, MemoryBundle):
        bundle = load_bundle(bundle)
    bundle.ensure_citable()
    context = bundle.render()
    reference_by_id = {memory_id: reference for reference, memory_id in bundle.context_references.items()}
    evidence: list[ClaimEvidence] = []
    seen: set[UUID] = set()
    for _, candidate in bundle.candidates():
        node = candidate.node
        if node.id in seen or candidate.rendered_text is None:
            continue
        reference = reference_by_id.get(node.id, str(node.id))
        if not (f'"{reference}"' in context or f"[{reference}]" in context or f'"id":"{reference}"' in context):
            continue
        evidence.append(ClaimEvidence(
            reference=reference, memory_id=node.id, text=candidate.rendered_text, source_type=node.source_type,
            epistemic_type=node.epistemic_type, lifecycle_state=node.lifecycle_state, event_time=node.event_time,
            valid_from=node.valid_from, valid_to=node.valid_to,
        ))
        seen.add(node.id)
    return tuple(evidence)
