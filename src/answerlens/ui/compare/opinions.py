"""Second-opinion differences between two assessments (pure): per requirement, flags added and removed, the
badge and the verifier's status on each side; and the strict verdicts.

An assessment carries a second opinion when it is a printed ``assess --second-opinion --json`` document (the
top-level ``second_opinion``; under the strict policy its verdict on top is the strict one, so ``side`` restores
the audited assessment before anything is compared). A stored run may carry one later: pass it as ``opinion``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
from pydantic import ValidationError

from answerlens.errors import describe_validation
from answerlens.html.markup import cell, notice_html, outcome_cell, table_html
from answerlens.second_opinion.badges import badge
from answerlens.second_opinion.document import KEY, split_document
from answerlens.second_opinion.models import RequirementOpinion, SecondOpinion
from answerlens.ui.compare.viewmodel import Comparison
from answerlens.verification.assessment import verify_assessment
from answerlens.verification.opinion import verify_document


@dataclass(frozen=True)
class Side:
    """One side of a comparison: the audited assessment, its second opinion (if any) and its problems."""

    assessment: dict[str, Any]
    opinion: SecondOpinion | None
    problems: tuple[str, ...]
    """Verification problems of the assessment, of its opinion and of a strict view on top (empty: verifies)."""


def side(document: Mapping[str, Any], opinion: SecondOpinion | None = None) -> Side:
    """Split a printed document (or take a plain assessment and, optionally, a stored opinion) and verify it."""
    if KEY not in document:
        return Side(dict(document), opinion, verify_assessment(dict(document)).problems)
    assessment, raw, _ = split_document(document)
    problems = verify_document(document)
    try:
        parsed = raw if isinstance(raw, SecondOpinion) else SecondOpinion.model_validate(raw)
    except ValidationError as exc:
        return Side(assessment, None, (*problems, f"{KEY}: {describe_validation(exc)}"))
    return Side(assessment, parsed, problems)


@dataclass(frozen=True)
class OpinionRow:
    """One aligned requirement (``a``/``b`` numbered from 1, None when a side lacks it)."""

    a: int | None
    b: int | None
    requirement: str
    badge_a: str | None
    badge_b: str | None
    flags_a: tuple[str, ...]
    flags_b: tuple[str, ...]
    verifier_a: str | None
    verifier_b: str | None

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(code for code in self.flags_b if code not in self.flags_a)

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(code for code in self.flags_a if code not in self.flags_b)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed) or self.verifier_a != self.verifier_b or self.badge_a != self.badge_b


@dataclass(frozen=True)
class Verdicts:
    """One side's audited (model-derived) verdict and action, and the strict ones when the policy was strict."""

    audited: tuple[str, str]
    strict: tuple[str, str] | None


@dataclass(frozen=True)
class OpinionDiff:
    has_a: bool
    has_b: bool
    rows: tuple[OpinionRow, ...]
    verdicts_a: Verdicts
    verdicts_b: Verdicts

    @property
    def changed(self) -> int:
        return sum(row.changed for row in self.rows)


def _item(opinion: SecondOpinion | None, index: int | None) -> RequirementOpinion | None:
    if opinion is None or index is None or index >= len(opinion.requirements):
        return None
    return opinion.requirements[index]


def _codes(item: RequirementOpinion | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(flag.code.value for flag in item.flags)) if item is not None else ()


def _verifier(item: RequirementOpinion | None) -> str | None:
    return item.verifier.status.value if item is not None and item.verifier is not None else None


def _verdicts(one: Side) -> Verdicts:
    audited = (str(one.assessment.get("verdict")), str(one.assessment.get("recommended_action")))
    strict = one.opinion.strict if one.opinion is not None else None
    return Verdicts(audited, (strict.verdict.value, strict.recommended_action.value) if strict else None)


def opinion_diff(a: Side, b: Side, comparison: Comparison) -> OpinionDiff | None:
    """The differences, requirement by requirement as ``comparison`` aligned them; None when neither side has an
    opinion."""
    if a.opinion is None and b.opinion is None:
        return None
    rows = []
    for row in comparison.requirements:
        left, right = _item(a.opinion, row.a_index), _item(b.opinion, row.b_index)
        rows.append(OpinionRow(
            a=None if row.a_index is None else row.a_index + 1, b=None if row.b_index is None else row.b_index + 1,
            requirement=row.text_a if row.text_a is not None else row.text_b or "",
            badge_a=badge(left).value if left is not None else None,
            badge_b=badge(right).value if right is not None else None,
            flags_a=_codes(left), flags_b=_codes(right), verifier_a=_verifier(left), verifier_b=_verifier(right)))
    return OpinionDiff(a.opinion is not None, b.opinion is not None, tuple(rows), _verdicts(a), _verdicts(b))


# --- what the page shows ------------------------------------------------------------------------------

OPINION_COLUMNS = ("A #", "B #", "opinion A", "opinion B", "requirement", "flags added", "flags removed",
                   "verifier A", "verifier B")
"""The badges first: on a phone they are what the first screen of the table shows beside the numbers."""


def _words(value: str | None) -> str | None:
    return value.replace("_", " ") if value is not None else None


def _verifier_cell(status: str | None, badge: str | None) -> str | None:
    """The verifier's status; ``not run`` where the side has an opinion on the requirement but no verifier result."""
    return status if status is not None or badge is None else "not run"


def opinion_frame(diff: OpinionDiff) -> pd.DataFrame:
    """One row per aligned requirement: each side's badge, the flag codes B adds or drops, the verifier statuses.
    An empty cell means the side has no opinion on that requirement."""
    rows = [[row.a, row.b, _words(row.badge_a), _words(row.badge_b), row.requirement, " ".join(row.added),
             " ".join(row.removed), _verifier_cell(row.verifier_a, row.badge_a),
             _verifier_cell(row.verifier_b, row.badge_b)] for row in diff.rows]
    return pd.DataFrame(rows, columns=list(OPINION_COLUMNS)).astype({"A #": "Int64", "B #": "Int64"})


def _verdict(pair: tuple[str, str] | None) -> str:
    return "—" if pair is None else f"{pair[0]} · {pair[1].replace('_', ' ')}"


def verdicts_html(diff: OpinionDiff) -> str:
    """Each side's audited and strict verdict, and whether the strict policy changed it (``data-strict-side``)."""
    body = []
    for name, has, verdicts in (("A", diff.has_a, diff.verdicts_a), ("B", diff.has_b, diff.verdicts_b)):
        if not has:
            strict_text, changed = "no second opinion", None
        elif verdicts.strict is None:
            strict_text, changed = "not asked (standard policy)", None
        else:
            strict_text, changed = _verdict(verdicts.strict), verdicts.strict != verdicts.audited
        mark = {None: "—", True: "changed", False: "same"}[changed]
        body.append(cell(name) + cell(_verdict(verdicts.audited)) + cell(strict_text)
                    + outcome_cell(mark, None if changed is None else not changed,
                                   f'data-strict-side="{name}" data-strict-changed="{str(changed).lower()}"'))
    return table_html(["", "verdict · action", "strict verdict", "strict"], body)


def coverage_html(diff: OpinionDiff) -> str:
    """Which sides carry a second opinion (``data-opinions``), and how many requirements differ."""
    sides = [name for name, has in (("A", diff.has_a), ("B", diff.has_b)) if has]
    if len(sides) == 2:
        title = (f"Both carry a second opinion: {diff.changed} of {len(diff.rows)} requirements differ"
                 if diff.changed else "Both carry a second opinion, and it is the same on every requirement")
        kind = "warning" if diff.changed else "ok"
    else:
        title = f"Only {sides[0]} carries a second opinion; the other side's column is empty"
        kind = "info"
    detail = "flags are deterministic doubts about a requirement's support; the verifier is the NLI claim verifier"
    return f'<div data-opinions="{"".join(sides)}">{notice_html(kind, title, detail)}</div>'
