"""What a requirement asks about: the past or the present, times it names, and whether it wants a count or a
complete list — read from its own text, else from the clause of the question it came from (pure, English).

A requirement is the model's rewording of part of the question, so its own words come first; where it has
none, the question clause that shares most content words with it decides. When two clauses tie, the question
is not used for times or counts (a flag must not rest on a guess), while a past marker anywhere in the
question still counts as the past (so the guess can only remove a flag, never add one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from answerlens.claims.guards import content_tokens
from answerlens.second_opinion.timeframes import NamedTime, named_times

_I = re.IGNORECASE
STRONG_PAST = re.compile(
    r"\b(?:before|previous(?:ly)?|prior|former(?:ly)?|earlier|originally|used\s+to|until|till|ago)\b", _I)
"""Words that put a requirement in the past outright ("the previous database", "used to", "until 2024")."""
WEAK_PAST = re.compile(r"\b(?:was|were|did|had)\b", _I)
"""Past-tense auxiliaries: the past unless a present word overrides them ("what was the current …")."""
PRESENT = re.compile(r"\b(?:current(?:ly)?|now|today|still|presently|at\s+present|these\s+days|nowadays|latest)\b",
                     _I)
EXHAUSTIVE = re.compile(
    r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\s+(?:of|the)\b|\bin\s+total\b|\btotal\s+number\b|"
    r"\b(?:complete|full|whole|exhaustive)\s+(?:list|set)\b|\blist(?:s|ed)?\b|\bevery(?:thing|one|body)?\b|"
    r"(?<!\bat\s)\ball\b(?!-)", _I)
"""A count or a complete list: "how many", "number of", "all", "every", "list" … ("at all" and "all-hands" are not)."""
_YES_NO = re.compile(r"^\s*whether(?:\s+or\s+not)?\s+", _I)
_CLAUSE_BREAK = re.compile(
    r"(?:[,;:?]\s*(?:(?:and|or|but)\s+)?|\s+(?:and|or|but)\s+)"
    r"(?=(?:what|which|who|whom|whose|when|where|why|how|did|does|do|is|are|was|were|has|have|had|can|could|"
    r"will|would|should)\b)", _I)


@dataclass(frozen=True)
class RequirementScope:
    """What the flags need to know about one requirement."""

    past: bool
    """It asks about an earlier state ("previous", "before", "used to", "was" …), so superseded records may
    rightly support it."""
    times: tuple[NamedTime, ...]
    """The times it names (its own, else its question clause's)."""
    exhaustive: bool
    """It asks for a count or a complete list."""

    @property
    def present(self) -> bool:
        """Neither about the past nor anchored to a named time: "what is …" reads as now."""
        return not self.past and not self.times


def question_clauses(question: str) -> tuple[str, ...]:
    """The question split before each new wh-/auxiliary clause ("…, and what did it use before?")."""
    parts = [part.strip(" ,;:?") for part in _CLAUSE_BREAK.split(question)]
    return tuple(part for part in parts if part) or (question.strip(),)


def clause_for(requirement: str, question: str) -> str | None:
    """The question clause sharing most content words with the requirement (None when tied or unrelated)."""
    clauses = question_clauses(question)
    if len(clauses) == 1:
        return clauses[0]
    mine = content_tokens(requirement)
    overlaps = sorted(((len(mine & content_tokens(clause)), clause) for clause in clauses),
                      key=lambda pair: pair[0], reverse=True)
    best, runner_up = overlaps[0][0], overlaps[1][0]
    return overlaps[0][1] if best > runner_up else None


def is_yes_no(requirement: str) -> bool:
    """A "whether …" requirement: evidence that settles it either way (a "no" included) is its support."""
    return _YES_NO.match(requirement) is not None


def statement(requirement: str) -> str:
    """The requirement as a statement: a leading "whether (or not)" and a trailing "?" are its question form,
    not doubt, so they do not count as the uncertainty or question a passage's speech act must match."""
    text = _YES_NO.sub("", requirement).rstrip().rstrip("?").rstrip()
    return text or requirement


def about_the_past(text: str) -> bool:
    """A strong past word, or a past auxiliary with no present word."""
    if STRONG_PAST.search(text):
        return True
    return WEAK_PAST.search(text) is not None and PRESENT.search(text) is None


def marks_time(text: str) -> bool:
    """Whether the text says anything about time itself (past, present or a named time)."""
    return bool(STRONG_PAST.search(text) or WEAK_PAST.search(text) or PRESENT.search(text) or named_times(text))


def requirement_scope(requirement: str, question: str) -> RequirementScope:
    """The requirement's own words first; its question clause where it says nothing (module docstring)."""
    clause = clause_for(requirement, question)
    if marks_time(requirement):
        past, times = about_the_past(requirement), named_times(requirement)
    elif clause is not None:
        past, times = about_the_past(clause), named_times(clause)
    else:
        past, times = about_the_past(question), ()
    exhaustive = EXHAUSTIVE.search(requirement) is not None or (
        clause is not None and EXHAUSTIVE.search(clause) is not None)
    return RequirementScope(past=past, times=times, exhaustive=exhaustive)
