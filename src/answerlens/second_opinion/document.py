"""The printed document: the assessment's JSON with a top-level ``second_opinion`` object, and under the strict
policy the strict ``verdict``, ``recommended_action``, ``missing_information`` and ``conflicts`` on top.

Requirement statuses and every hashed field stay the audited ones, so ``split_document`` can restore the audited
assessment from its own statuses and verify both parts; the strict values on top must equal the opinion's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from answerlens.assessment import AnswerabilityAssessment
from answerlens.second_opinion.models import SecondOpinion
from answerlens.second_opinion.strict import strict_statuses
from answerlens.verdict import AnswerabilityStatus, derive_verdict

KEY = "second_opinion"
VIEW_FIELDS = ("verdict", "recommended_action", "missing_information", "conflicts")
"""What the strict view replaces at the top level."""


def output_document(assessment: AnswerabilityAssessment, opinion: SecondOpinion) -> dict[str, Any]:
    """The assessment dump plus ``second_opinion``; the strict verdict and action on top when it has them."""
    document = assessment.model_dump(mode="json")
    if opinion.strict is not None:
        texts = [item.requirement for item in opinion.requirements]
        statuses = [status.value for status in strict_statuses(opinion.requirements)]
        document.update(_view(opinion.strict.verdict.value, opinion.strict.recommended_action.value, texts, statuses))
    document[KEY] = opinion.model_dump(mode="json")
    return document


def split_document(document: Mapping[str, Any]) -> tuple[dict[str, Any], Any, list[str]]:
    """(the audited assessment, the second opinion, problems of the strict view on top).

    The audited top-level values are re-derived from the recorded requirement statuses (which
    ``assessment_sha256`` covers), so editing them is caught there; the strict ones must match the opinion.
    """
    assessment = {name: value for name, value in document.items() if name != KEY}
    opinion = document.get(KEY)
    strict = opinion.get("strict") if isinstance(opinion, Mapping) else None
    requirements = assessment.get("requirements")
    if not isinstance(strict, Mapping) or not isinstance(requirements, list):
        return assessment, opinion, []
    try:
        texts = [item["requirement"] for item in requirements]
        audited = [item["status"] for item in requirements]
        verdict, action = derive_verdict(audited)
        changed = {change["index"]: change["to_status"] for change in strict.get("changes", [])}
        shown = _view(strict["verdict"], strict["recommended_action"], texts,
                      [changed.get(index, status) for index, status in enumerate(audited)])
    except (KeyError, TypeError, ValueError) as exc:
        return assessment, opinion, [f"{KEY}.strict: malformed ({exc!r})"]
    problems = [f"{name}: {assessment.get(name)!r} is not the strict policy's ({value!r})"
                for name, value in shown.items() if assessment.get(name) != value]
    assessment.update(_view(verdict.value, action.value, texts, audited))
    return assessment, opinion, problems


def _view(verdict: str, action: str, texts: list[str], statuses: list[str]) -> dict[str, Any]:
    return {
        "verdict": verdict,
        "recommended_action": action,
        "missing_information": [text for text, status in zip(texts, statuses, strict=True)
                                if status == AnswerabilityStatus.UNSUPPORTED.value],
        "conflicts": [text for text, status in zip(texts, statuses, strict=True)
                      if status == AnswerabilityStatus.CONFLICTING.value],
    }
