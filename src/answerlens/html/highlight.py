"""Where to highlight in a rendered context: line tints and citation marks, computed as spans (pure).

The renderer in ``markup`` only draws what this module decides. One pass over the lines and one sort of
the spans keeps it linear in the context length, so a 100k-character context with hundreds of citations
is cheap to redraw on every rerun.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from answerlens.citations import CitationDecision, Decision, DiscardReason
from answerlens.render import quote
from answerlens.verdict import AnswerabilityStatus


@dataclass(frozen=True)
class Mark:
    """One cited token as the highlighting shows it."""

    requirement: int
    ref: str
    """The normalised token (what ``data-ref`` carries)."""
    decision: Decision
    reason: DiscardReason | None = None
    flags: tuple[str, ...] = ()
    """Second-opinion flag codes on this accepted citation (empty: not flagged, or no second opinion)."""
    counted: bool = True
    """False for a valid token of a requirement that ended unsupported: it supports nothing, so it is drawn
    outlined in its requirement's colour, never filled like an accepted citation (``look`` "uncounted")."""

    @property
    def accepted(self) -> bool:
        """Accepted and counted: the only mark drawn filled, and the only one that tints its line."""
        return self.decision == Decision.ACCEPTED and self.counted

    @property
    def look(self) -> str:
        """How it is drawn (``data-citation``): accepted, uncounted or discarded."""
        if self.decision == Decision.DISCARDED:
            return "discarded"
        return "accepted" if self.counted else "uncounted"

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


@dataclass(frozen=True)
class Segment:
    """A run of one line's text; ``marks`` are the citations covering all of it (outermost first)."""

    start: int
    end: int
    marks: tuple[Mark, ...] = ()
    unread: bool = False
    """Part of a cited passage the claim verifier's model never read (cut to its token limit)."""


@dataclass(frozen=True)
class Line:
    number: int
    """1-based."""
    start: int
    end: int
    requirements: tuple[int, ...]
    """Requirements with an accepted citation on this line, ascending: the line's tint comes from them."""
    segments: tuple[Segment, ...]


@dataclass(frozen=True)
class Highlight:
    lines: tuple[Line, ...]
    unplaced: dict[int, tuple[Mark, ...]]
    """Per requirement: cited tokens that do not sit in the context (unknown refs, empty tokens)."""
    unread: tuple[tuple[int, int], ...] = ()
    """Spans of the context the claim verifier's model never read (``unread_spans``)."""

    @property
    def marks(self) -> int:
        return sum(len(segment.marks) for line in self.lines for segment in line.segments)


def highlight(
    context: str,
    citations: Sequence[Sequence[CitationDecision]],
    *,
    only: int | None = None,
    flagged: Mapping[int, Mapping[str, Sequence[str]]] | None = None,
    uncounted: Collection[int] = (),
    unread: Sequence[tuple[int, int]] = (),
) -> Highlight:
    """Tints and marks for ``context`` given each requirement's citation decisions.

    ``citations[i]`` are requirement ``i``'s decisions; ``only`` narrows everything to one requirement.
    ``flagged[i]`` maps requirement ``i``'s flagged refs to their flag codes (the second opinion's
    ``flags_by_ref``); those accepted marks carry the codes. ``uncounted`` names the requirements whose valid
    tokens support nothing (see ``uncounted()``). A span outside the context is treated as not located (its token
    becomes unplaced). A printed label gets one mark per requirement: the decision of the first token that reached
    it (the same token cited again is skipped and adds no mark). ``unread`` spans (``unread_spans``) are drawn as
    text the claim verifier never read.
    """
    size = len(context)
    by_span: dict[tuple[int, int], list[Mark]] = defaultdict(list)
    tints: dict[int, set[int]] = defaultdict(set)
    unplaced: dict[int, list[Mark]] = {}
    for index, decisions in enumerate(citations):
        if only is not None and index != only:
            continue
        flags = (flagged or {}).get(index, {})
        counted = index not in uncounted
        for decision in decisions:
            codes = tuple(flags.get(decision.normalized, ())) if decision.decision == Decision.ACCEPTED else ()
            mark = Mark(index, decision.normalized, decision.decision, decision.reason, codes, counted)
            span = decision.span
            if span is None or not 0 <= span.start < span.end <= size:
                unplaced.setdefault(index, []).append(mark)
                continue
            placed = by_span[(span.start, span.end)]
            if not any(other.requirement == index for other in placed):
                placed.append(mark)
            if mark.accepted and decision.line is not None:
                tints[decision.line.start].add(index)
    unread = tuple(span for span in unread if 0 <= span[0] < span[1] <= size)
    return Highlight(_lines(context, by_span, tints, unread),
                     {index: tuple(marks) for index, marks in unplaced.items()}, unread)


def _lines(context: str, by_span: Mapping[tuple[int, int], list[Mark]], tints: Mapping[int, set[int]],
           unread: Sequence[tuple[int, int]]) -> tuple[Line, ...]:
    """The context's lines, each cut into segments at the spans that touch it (one pass: spans are sorted)."""
    size, spans = len(context), sorted(by_span)
    lines: list[Line] = []
    cursor = 0  # index into spans: the first span that may still touch the current line
    start = 0
    number = 1
    while True:
        end = context.find("\n", start)
        if end < 0:
            end = size
        while cursor < len(spans) and spans[cursor][1] <= start:
            cursor += 1
        stop = cursor
        while stop < len(spans) and spans[stop][0] < end:
            stop += 1
        here = [(max(s, start), min(e, end), by_span[(s, e)]) for s, e in spans[cursor:stop] if e > start]
        skipped = [(max(s, start), min(e, end)) for s, e in unread if s < end and e > start]
        lines.append(Line(number, start, end, tuple(sorted(tints.get(start, ()))),
                          _segments(start, end, here, skipped)))
        if end >= size:
            return tuple(lines)
        start = end + 1
        number += 1


_DEPTH = {"discarded": 0, "uncounted": 1, "accepted": 2}
"""Outermost first: a filled accepted mark goes innermost so its colour shows inside any outline."""


def _segments(start: int, end: int, spans: list[tuple[int, int, list[Mark]]],
              unread: Sequence[tuple[int, int]] = ()) -> tuple[Segment, ...]:
    """Cut one line at every span boundary; each piece carries the marks of the spans covering it, and whether
    the verifier left it unread.

    Accepted marks go innermost so their colour shows; a discarded mark around them stays visible as
    an outline.
    """
    if not spans and not unread:
        return (Segment(start, end),)
    cuts = sorted({start, end, *(s for s, _, _ in spans), *(e for _, e, _ in spans), *(s for s, _ in unread),
                   *(e for _, e in unread)})
    segments: list[Segment] = []
    for left, right in zip(cuts, cuts[1:], strict=False):
        covering = [mark for s, e, marks in spans if s <= left and right <= e for mark in marks]
        covering.sort(key=lambda mark: (_DEPTH[mark.look], mark.requirement))
        segments.append(Segment(left, right, tuple(covering), any(s <= left and right <= e for s, e in unread)))
    return tuple(segments)


def unread_spans(context: str, passages: Sequence[tuple[str, str, int]]) -> tuple[tuple[int, int], ...]:
    """Where in ``context`` each (ref, passage text, characters read) passage goes on past what the verifier read:
    from the first unread character to the end of the passage as the line quotes it (JSON, as every format
    writes a record's text), on the line that holds the passage and its ref. A passage not found is left out."""
    found = []
    for ref, text, read in passages:
        quoted, prefix = quote(text)[1:-1], quote(text[:read])[1:-1]
        at = _passage_at(context, quoted, ref)
        if at is not None and len(prefix) < len(quoted):
            found.append((at + len(prefix), at + len(quoted)))
    return tuple(sorted(found))


def _passage_at(context: str, quoted: str, ref: str) -> int | None:
    first = None
    at = context.find(quoted)
    while at >= 0:
        line_start = context.rfind("\n", 0, at) + 1
        line_end = context.find("\n", at)
        if ref in context[line_start: line_end if line_end >= 0 else len(context)]:
            return at
        first = at if first is None else first
        at = context.find(quoted, at + 1)
    return first


def uncounted(requirements: Sequence[Any]) -> frozenset[int]:
    """Requirements whose valid tokens support nothing: those that ended unsupported (downgraded for want of
    enough valid citations, or unsupported as the model said while citing something)."""
    return frozenset(index for index, requirement in enumerate(requirements)
                     if requirement.status == AnswerabilityStatus.UNSUPPORTED)


@dataclass(frozen=True)
class CitedToken:
    """One cited token as the requirements table shows it (a chip): its mark and where its label is printed."""

    mark: Mark
    located: bool
    """Whether the token's label is printed in the context."""
    line: int | None = None
    """The 1-based context line holding that label, when the context is known: the chip links to it."""


@dataclass(frozen=True)
class RequirementRow:
    """One row of the requirements table: built once from a requirement, never changed by a view."""

    index: int
    """0-based, as in the data; shown from 1."""
    requirement: str
    claimed: str | None
    status: str
    explanation: str
    accepted: tuple[CitedToken, ...]
    """Valid tokens (drawn accepted, or uncounted when the requirement ended unsupported), in the reply's order."""
    discarded: tuple[CitedToken, ...]
    badge: str | None = None
    """The second opinion's badge for this requirement (trusted HTML), when there is one."""


def requirement_rows(requirements: Sequence[Any], context: str = "",
                     badges: Sequence[str] | None = None) -> list[RequirementRow]:
    """Rows for the requirements table: each cited token with its mark and context line, split by decision;
    ``badges`` (one per requirement) are the second opinion's.

    Works on answerlens requirements; PRME's (no per-citation decisions) show their accepted refs only.
    """
    rows = []
    unused = uncounted(requirements)
    starts = [0, *(match.end() for match in re.finditer("\n", context))] if context else []
    for index, requirement in enumerate(requirements):
        accepted: list[CitedToken] = []
        discarded: list[CitedToken] = []
        for decision in requirement.citations:
            mark = Mark(index, decision.normalized, decision.decision, decision.reason, counted=index not in unused)
            span = decision.span
            line = bisect_right(starts, span.start) if span is not None and starts else None
            token = CitedToken(mark, located=span is not None, line=line)
            (accepted if mark.decision == Decision.ACCEPTED else discarded).append(token)
        if not requirement.citations:
            accepted = [CitedToken(Mark(index, ref, Decision.ACCEPTED, counted=index not in unused), located=False)
                        for ref in requirement.evidence_refs]
        rows.append(RequirementRow(
            index=index, requirement=requirement.requirement,
            claimed=requirement.claimed_status.value if requirement.claimed_status else None,
            status=requirement.status.value, explanation=requirement.explanation, accepted=tuple(accepted),
            discarded=tuple(discarded), badge=badges[index] if badges is not None else None))
    return rows
