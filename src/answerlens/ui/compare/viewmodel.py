"""Comparing two assessments: same inputs, same validated output, and a requirement-level diff (pure).

Works on answerlens and PRME assessment JSON; ``answerlens.trials.reader.assessments_in`` finds them in files.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from answerlens.audit import IDENTITY_FIELDS

COMPARED_FIELDS = ("verdict", "recommended_action", "provider", "model", *IDENTITY_FIELDS, "evaluation_id",
                   "assessment_sha256", "raw_output_sha256")


@dataclass(frozen=True)
class FieldRow:
    name: str
    a: Any
    b: Any

    @property
    def same(self) -> bool:
        return self.a == self.b


@dataclass(frozen=True)
class RequirementRow:
    a_index: int | None
    b_index: int | None
    text_a: str | None
    text_b: str | None
    status_a: str | None
    status_b: str | None
    refs_a: tuple[str, ...]
    refs_b: tuple[str, ...]
    changes: tuple[str, ...]
    """Empty when unchanged; else any of ``added``, ``removed``, ``text``, ``status``, ``citations``,
    ``explanation``."""


@dataclass(frozen=True)
class Comparison:
    same_inputs: bool
    same_output: bool
    fields: tuple[FieldRow, ...]
    requirements: tuple[RequirementRow, ...]

    @property
    def changed(self) -> int:
        return sum(1 for row in self.requirements if row.changes)


def compare(a: Mapping[str, Any], b: Mapping[str, Any]) -> Comparison:
    fields = tuple(FieldRow(name, a.get(name), b.get(name)) for name in COMPARED_FIELDS)
    same_inputs = a.get("evaluation_id") is not None and a.get("evaluation_id") == b.get("evaluation_id")
    same_output = a.get("assessment_sha256") is not None and a.get("assessment_sha256") == b.get("assessment_sha256")
    return Comparison(same_inputs, same_output, fields, tuple(_requirements(a, b)))


def _key(item: Mapping[str, Any]) -> str:
    return " ".join(str(item.get("requirement", "")).split()).casefold()


def _requirements(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[RequirementRow]:
    left = [item for item in a.get("requirements") or [] if isinstance(item, Mapping)]
    right = [item for item in b.get("requirements") or [] if isinstance(item, Mapping)]
    matcher = difflib.SequenceMatcher(a=[_key(i) for i in left], b=[_key(i) for i in right], autojunk=False)
    rows: list[RequirementRow] = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag in ("equal", "replace"):
            pairs = list(zip(range(a0, a1), range(b0, b1), strict=False))
            rows += [_row(i, left[i], j, right[j]) for i, j in pairs]
            rows += [_row(i, left[i], None, None) for i in range(a0 + len(pairs), a1)]
            rows += [_row(None, None, j, right[j]) for j in range(b0 + len(pairs), b1)]
        elif tag == "delete":
            rows += [_row(i, left[i], None, None) for i in range(a0, a1)]
        else:
            rows += [_row(None, None, j, right[j]) for j in range(b0, b1)]
    return rows


def _refs(item: Mapping[str, Any] | None) -> tuple[str, ...]:
    return tuple(map(str, item.get("evidence_refs") or ())) if item is not None else ()


def _ids(item: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(map(str, item.get("evidence_ids") or ()))


def _row(i: int | None, x: Mapping[str, Any] | None, j: int | None, y: Mapping[str, Any] | None) -> RequirementRow:
    changes: list[str] = []
    if x is None:
        changes.append("added")
    elif y is None:
        changes.append("removed")
    else:
        if _key(x) != _key(y):
            changes.append("text")
        if x.get("status") != y.get("status"):
            changes.append("status")
        if _refs(x) != _refs(y) or _ids(x) != _ids(y):
            changes.append("citations")
        if x.get("explanation") != y.get("explanation"):
            changes.append("explanation")
    return RequirementRow(
        a_index=i,
        b_index=j,
        text_a=x.get("requirement") if x is not None else None,
        text_b=y.get("requirement") if y is not None else None,
        status_a=x.get("status") if x is not None else None,
        status_b=y.get("status") if y is not None else None,
        refs_a=_refs(x),
        refs_b=_refs(y),
        changes=tuple(changes),
    )
