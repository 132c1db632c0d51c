"""Forging assessments as a careful attacker would (requirements edited, verdict and ``assessment_sha256``
recomputed with the public formulas): shared by the verification, report and trial attack tests."""

from __future__ import annotations

import copy
import json
from typing import Any

from answerlens.audit import assessment_sha256
from answerlens.verdict import AnswerabilityStatus, derive_verdict
from tests.paths import PRME

PUBLISHED = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
FOREIGN_ID = "5b1f3f8e-6d0a-4c1e-9a57-0c6f7b0f2a11"


def rehashed(data: dict[str, Any]) -> dict[str, Any]:
    """Verdict, action, lists and ``assessment_sha256`` recomputed from the (forged) requirements."""
    statuses = [AnswerabilityStatus(item["status"]) for item in data["requirements"]]
    verdict, action = derive_verdict(statuses)
    data.update(verdict=verdict.value, recommended_action=action.value,
                missing_information=[r["requirement"] for r in data["requirements"] if r["status"] == "unsupported"],
                conflicts=[r["requirement"] for r in data["requirements"] if r["status"] == "conflicting"])
    data["assessment_sha256"] = assessment_sha256(
        evaluation_id=data["evaluation_id"], verdict=data["verdict"], recommended_action=data["recommended_action"],
        requirements=data["requirements"], citation_errors=data["citation_errors"], reasoning=data["reasoning"])
    return data


def forged(index: int, status: str, refs: list[str], ids: list[str], base: dict[str, Any] = PUBLISHED) -> dict:
    data = copy.deepcopy(base)
    data["requirements"][index].update(status=status, evidence_refs=refs, evidence_ids=ids)
    return rehashed(data)


