"""Canonical JSON, the audit hashes (PRME's formulas), and verification of recorded assessments."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from answerlens.verdict import AnswerabilityStatus, derive_verdict

IDENTITY_FIELDS = (
    "answer_sha256",
    "context_sha256",
    "configuration_sha256",
    "prompt_sha256",
    "prompt_version",
    "query_sha256",
)
"""The recorded inputs ``evaluation_id`` hashes."""

HASHED_REQUIREMENT_FIELDS = ("evidence_ids", "evidence_refs", "explanation", "requirement", "status")
"""The fields of each requirement that ``assessment_sha256`` hashes (ids as text)."""


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    """``json.dumps`` with sorted keys, no spaces and ASCII escapes: the one encoding every hash uses."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def configuration_sha256(public_dump: Mapping[str, Any]) -> str:
    """The configuration's identity: its non-secret settings in canonical JSON."""
    return sha256_text(canonical_json(public_dump))


def evaluation_id(identity: Mapping[str, Any]) -> str:
    """Fixed-input identity shared by repeats: a hash of the six input hashes and the prompt version."""
    return sha256_text(canonical_json({field: identity[field] for field in IDENTITY_FIELDS}))


def assessment_sha256(
    *,
    evaluation_id: str,
    verdict: str,
    recommended_action: str,
    requirements: Sequence[Mapping[str, Any]],
    citation_errors: Sequence[str],
    reasoning: str,
) -> str:
    """Identity of the validated output, so repeats sharing an ``evaluation_id`` can be compared."""
    result = {
        "citation_errors": list(citation_errors),
        "evaluation_id": evaluation_id,
        "reasoning": reasoning,
        "recommended_action": recommended_action,
        "requirements": [_hashed_requirement(item) for item in requirements],
        "verdict": verdict,
    }
    return sha256_text(canonical_json(result))


def _hashed_requirement(item: Mapping[str, Any]) -> dict[str, Any]:
    hashed = {name: list(item[name]) if name.startswith("evidence") else item[name]
              for name in HASHED_REQUIREMENT_FIELDS}
    hashed["evidence_ids"] = [str(memory_id) for memory_id in hashed["evidence_ids"]]
    return hashed


class VerificationReport(BaseModel):
    """What ``verify_assessment`` found; ``ok`` when ``problems`` is empty."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ok: bool
    problems: tuple[str, ...] = ()
    evaluation_id: str | None = None
    """Recomputed from the recorded input hashes."""
    assessment_sha256: str | None = None
    """Recomputed from the recorded output."""


_REQUIRED = (
    *IDENTITY_FIELDS,
    "verdict",
    "recommended_action",
    "requirements",
    "citation_errors",
    "reasoning",
    "evaluation_id",
    "assessment_sha256",
)


def verify_assessment(assessment: BaseModel | Mapping[str, Any]) -> VerificationReport:
    """Recompute ``evaluation_id``, ``assessment_sha256``, verdict, action, missing and conflicts.

    Works on answerlens assessments and on PRME's assessment JSON (a model or a mapping).
    """
    data: Mapping[str, Any] = (
        assessment.model_dump(mode="json") if isinstance(assessment, BaseModel) else assessment
    )
    if not isinstance(data, Mapping):
        return VerificationReport(ok=False, problems=("not an assessment: expected a JSON object",))
    missing = [field for field in _REQUIRED if field not in data]
    if missing:
        return VerificationReport(ok=False, problems=(f"not an assessment: missing {', '.join(missing)}",))
    requirements = data["requirements"]
    try:
        statuses = [AnswerabilityStatus(item["status"]) for item in requirements]
        recomputed_id = evaluation_id(data)
        recomputed_sha = assessment_sha256(
            evaluation_id=data["evaluation_id"],
            verdict=data["verdict"],
            recommended_action=data["recommended_action"],
            requirements=requirements,
            citation_errors=data["citation_errors"],
            reasoning=data["reasoning"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        return VerificationReport(ok=False, problems=(f"malformed requirements: {exc!r}",))
    problems = [
        *_hash_problems(data, recomputed_id, recomputed_sha),
        *_verdict_problems(data, statuses),
        *_requirement_problems(requirements),
    ]
    raw_text, raw_sha = data.get("raw_output_text"), data.get("raw_output_sha256")
    if isinstance(raw_text, str) and raw_sha is not None and sha256_text(raw_text) != raw_sha:
        problems.append("raw_output_sha256 does not match the recorded raw_output_text")
    return VerificationReport(
        ok=not problems, problems=tuple(problems), evaluation_id=recomputed_id, assessment_sha256=recomputed_sha
    )


def _hash_problems(data: Mapping[str, Any], recomputed_id: str, recomputed_sha: str) -> list[str]:
    problems = []
    if recomputed_id != data["evaluation_id"]:
        problems.append(f"evaluation_id {data['evaluation_id']} does not match the input hashes ({recomputed_id})")
    if recomputed_sha != data["assessment_sha256"]:
        problems.append(
            f"assessment_sha256 {data['assessment_sha256']} does not match the recorded output ({recomputed_sha})"
        )
    return problems


def _verdict_problems(data: Mapping[str, Any], statuses: list[AnswerabilityStatus]) -> list[str]:
    problems = []
    if not statuses:
        problems.append("an assessment needs at least one requirement")
    else:
        verdict, action = derive_verdict(statuses)
        if data["verdict"] != verdict.value:
            problems.append(f"verdict {data['verdict']!r} does not follow from the statuses ({verdict.value!r})")
        if data["recommended_action"] != action.value:
            problems.append(
                f"recommended_action {data['recommended_action']!r} does not follow from the statuses "
                f"({action.value!r})"
            )
    for name, status in (("missing_information", "unsupported"), ("conflicts", "conflicting")):
        expected = [item["requirement"] for item in data["requirements"] if item["status"] == status]
        recorded = data.get(name, [])
        if not isinstance(recorded, (list, tuple)):
            problems.append(f"{name} is not a list")
        elif list(recorded) != expected:
            problems.append(f"{name} does not list exactly the {status} requirements")
    return problems


def _requirement_problems(requirements: Sequence[Mapping[str, Any]]) -> list[str]:
    problems = []
    for index, item in enumerate(requirements):
        refs, ids = list(item["evidence_refs"]), list(item["evidence_ids"])
        if len(refs) != len(ids):
            problems.append(f"requirement[{index}] has {len(refs)} evidence_refs but {len(ids)} evidence_ids")
        needed = {"supported": 1, "conflicting": 2}.get(item["status"], 0)
        if len(set(map(str, ids))) < needed:
            problems.append(f"requirement[{index}] is {item['status']} with fewer than {needed} distinct memories")
    return problems
