"""Citation validation against the exact rendered context (pure, fail-closed), and where tokens sit in it.

Follows PRME 0.15 rule for rule and error string for error string; additionally records one decision
per cited token and the character spans the UI highlights.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import Enum
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from answerlens.prompts import RawAssessment, RawRequirement
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.verdict import AnswerabilityStatus


class Decision(str, Enum):
    ACCEPTED = "accepted"
    DISCARDED = "discarded"


class DiscardReason(str, Enum):
    UNKNOWN_REFERENCE = "unknown_reference"
    """The token is not a citable reference in this exact context."""
    DUPLICATE_MEMORY = "duplicate_memory"
    """The token resolves to a memory this requirement already cites."""
    EMPTY = "empty"
    """The token is empty once whitespace (and reader brackets) are stripped."""


class Span(BaseModel):
    """Half-open character range ``[start, end)`` in the rendered context (``render().strip()``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    start: int
    end: int


class CitationDecision(BaseModel):
    """What happened to one cited token, and where it sits in the context."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token: str
    """As the model wrote it."""
    normalized: str
    """After stripping whitespace (and, in reader, one pair of brackets)."""
    decision: Decision
    reason: DiscardReason | None = None
    memory_id: UUID | None = None
    ref: str | None = None
    error: str | None = None
    """The citation error this token produced, if any (a silently skipped token has none)."""
    span: Span | None = None
    """Where the token is printed as a record's label in the context; None when it is not there."""
    line: Span | None = None
    """The whole record line holding that label."""


@dataclass(frozen=True)
class LabelSite:
    """Where one label is printed; plain offsets, so sites for every line cost no model validation."""

    token_start: int
    token_end: int
    line_start: int
    line_end: int

    @property
    def token(self) -> Span:
        return Span(start=self.token_start, end=self.token_end)

    @property
    def line(self) -> Span:
        return Span(start=self.line_start, end=self.line_end)


@dataclass(frozen=True)
class RequirementCitations:
    status: AnswerabilityStatus
    refs: tuple[str, ...]
    ids: tuple[UUID, ...]
    decisions: tuple[CitationDecision, ...]
    errors: tuple[str, ...]


# Every "…" and […] in a context, overlapping ones included: one pass instead of one scan per reference.
_QUOTED = re.compile(r'"(?=([^"]*)")')
_BRACKETED = re.compile(r"\[(?=([^\[\]]*)\])")
_AUDITABLE_ID = re.compile(r'"(?=id":"([^"]*)")')
_ENCLOSING = frozenset('"[]')


def valid_references(bundle: MemoryBundle, context: str) -> dict[str, UUID]:
    """Citation tokens that occur in the exact context: refs as ``"ref"``/``[ref]``, or auditable UUIDs.

    Same rule as upstream's substring tests, in time linear in the context: a reference without quotes or
    brackets occurs as ``"ref"`` exactly when some quoted run equals it (likewise ``[ref]``); the rare
    reference that holds such a character is still tested by substring.
    """
    if bundle.context_references:
        enclosed = {match.group(1) for match in _QUOTED.finditer(context)}
        enclosed.update(match.group(1) for match in _BRACKETED.finditer(context))
        return {
            ref: memory_id
            for ref, memory_id in bundle.context_references.items()
            if (ref in enclosed if _ENCLOSING.isdisjoint(ref) else f'"{ref}"' in context or f"[{ref}]" in context)
        }
    if bundle.context_format != ContextFormat.AUDITABLE:
        return {}
    printed = printed_record_ids(context)
    references: dict[str, UUID] = {}
    for _, candidate in bundle.candidates():
        token = str(candidate.node.id)
        if token in printed:
            references[token] = candidate.node.id
    return references


def printed_record_ids(context: str) -> set[str]:
    """Every record id an auditable context prints as ``"id":"…"``: its citable tokens."""
    return {match.group(1) for match in _AUDITABLE_ID.finditer(context)}


_READER_LABEL = re.compile(r"- \[([^\[\]\n]+)\]")
_COMPACT_LABEL = re.compile(r'\["((?:[^"\\\n]|\\.)*)"')
_AUDITABLE_LABEL = re.compile(r'\{"id":"([^"\\\n]+)"')


def label_sites(context: str, context_format: ContextFormat, *, cited_reader: bool) -> dict[str, LabelSite]:
    """Each record line's label (reader ``[m3]``, compact ``"m3"``, auditable id) and where it is printed.

    Found structurally from line starts, so a label-like string inside record text is never mistaken for
    a label: record text is JSON-encoded and cannot start a line.
    """
    if context_format == ContextFormat.READER:
        if not cited_reader:
            return {}
        pattern = _READER_LABEL
    elif context_format == ContextFormat.COMPACT:
        pattern = _COMPACT_LABEL
    else:
        pattern = _AUDITABLE_LABEL
    sites: dict[str, LabelSite] = {}
    offset = 0
    for line in context.split("\n"):
        match = pattern.match(line)
        if match is not None:
            token = match.group(1)
            if pattern is _COMPACT_LABEL:
                try:
                    token = json.loads(f'"{token}"')
                except ValueError:  # not a label we printed; leave it unlocated
                    offset += len(line) + 1
                    continue
            if token not in sites:
                sites[token] = LabelSite(offset + match.start(1), offset + match.end(1), offset, offset + len(line))
        offset += len(line) + 1
    return sites


def normalize_token(token: str, *, bracketed: bool) -> str:
    ref = token.strip()
    if bracketed and ref.startswith("[") and ref.endswith("]"):
        # Reader records print references as [m3].
        ref = ref[1:-1].strip()
    return ref


def check_reply(raw: RawAssessment, bundle: MemoryBundle, context: str,
                references: dict[str, UUID]) -> list[RequirementCitations]:
    """Every requirement of a parsed reply checked against the exact context and its valid references."""
    fmt = bundle.context_format
    sites = label_sites(context, fmt, cited_reader=bool(bundle.context_references))
    bracketed = fmt == ContextFormat.READER
    return [
        check_requirement(index, item, references, sites, bracketed=bracketed)
        for index, item in enumerate(raw.requirements)
    ]


def check_requirement(
    index: int,
    item: RawRequirement,
    references: dict[str, UUID],
    sites: dict[str, LabelSite],
    *,
    bracketed: bool,
) -> RequirementCitations:
    """Validate one requirement's citations, then downgrade a claim that lacks enough valid ones."""
    tally = _Tally()
    for token in item.evidence_refs:
        tally.decide(index, token, normalize_token(token, bracketed=bracketed), references, sites)
    status = item.status
    minimum = 2 if status == AnswerabilityStatus.CONFLICTING else 1
    if status != AnswerabilityStatus.UNSUPPORTED and len(tally.ids) < minimum:
        tally.errors.append(f"requirement[{index}] {status.value} without {minimum} valid citation(s)")
        status = AnswerabilityStatus.UNSUPPORTED
    return RequirementCitations(status=status, refs=tuple(tally.refs), ids=tuple(tally.ids),
                                decisions=tuple(tally.decisions), errors=tuple(tally.errors))


@dataclass
class _Tally:
    """One requirement's citations as they are decided, token by token."""

    refs: list[str] = field(default_factory=list)
    ids: list[UUID] = field(default_factory=list)
    decisions: list[CitationDecision] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seen: dict[str, CitationDecision] = field(default_factory=dict)

    def decide(self, index: int, token: str, ref: str, references: dict[str, UUID],
               sites: dict[str, LabelSite]) -> None:
        site = sites.get(ref) if ref else None
        if not ref:
            self.decisions.append(_discard(token, ref, DiscardReason.EMPTY, site=None))
            return
        earlier = self.seen.get(ref)
        if earlier is not None:
            # The same token again is skipped silently (no error), as upstream does.
            reason = earlier.reason or DiscardReason.DUPLICATE_MEMORY
            self.decisions.append(_discard(token, ref, reason, site=site, memory_id=earlier.memory_id))
            return
        memory_id = references.get(ref)
        if memory_id is None:
            error = f"requirement[{index}] cited unknown context reference {ref!r}"
            decision = _discard(token, ref, DiscardReason.UNKNOWN_REFERENCE, site=site, error=error)
        elif memory_id in self.ids:
            error = f"requirement[{index}] cited memory {memory_id} more than once"
            decision = _discard(token, ref, DiscardReason.DUPLICATE_MEMORY, site=site, memory_id=memory_id,
                                error=error)
        else:
            decision = CitationDecision(token=token, normalized=ref, decision=Decision.ACCEPTED, memory_id=memory_id,
                                        ref=ref, span=site.token if site else None, line=site.line if site else None)
            self.refs.append(ref)
            self.ids.append(memory_id)
        if decision.error is not None:
            self.errors.append(decision.error)
        self.seen[ref] = decision
        self.decisions.append(decision)


def _discard(
    token: str,
    ref: str,
    reason: DiscardReason,
    *,
    site: LabelSite | None,
    memory_id: UUID | None = None,
    error: str | None = None,
) -> CitationDecision:
    return CitationDecision(
        token=token,
        normalized=ref,
        decision=Decision.DISCARDED,
        reason=reason,
        memory_id=memory_id,
        ref=ref if memory_id is not None else None,
        error=error,
        span=site.token if site else None,
        line=site.line if site else None,
    )
