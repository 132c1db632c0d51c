"""Deterministic flags on a requirement's support (pure): stale records for the present, non-actual epistemic
types, speech acts, negation, times the question names, and counts or lists resting on a top-k set.

The speech-act, negation and typed-field tables are the claim verifier's own (``claims.guards``); what is ours is
reading the requirement's scope first (a requirement about the past may cite a superseded or deprecated record),
and reading a "whether …" requirement as the statement it asks about (its question form is not the uncertainty
or question a passage's speech act must match, and a negated passage may settle it).

Negation is what ``claims.guards`` detects: an English negation word (not, never, no longer, cannot, n't forms)
in a clause between ``. ; ! ?``. Bare "no" and every non-English negation (German "nicht"/"kein", French
"ne … pas", Spanish "no", …) are not detected, and so never flagged. A clause is flagged only when it shares a
content word with the requirement, so an unrelated negated sentence in a long passage raises nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime

from answerlens.claims.guards import (
    BLOCKING_LIFECYCLE_STATES,
    EPISTEMIC_REQUIRED_CLAIM_MODES,
    SpeechActMode,
    content_tokens,
    guard_segments,
    has_negated_clause,
    negated_clauses,
    speech_act_modes,
)
from answerlens.records import EpistemicType
from answerlens.second_opinion.models import Flag, FlagCode, TypedEvidence
from answerlens.second_opinion.scope import RequirementScope, is_yes_no, statement
from answerlens.second_opinion.timeframes import MONTHS, NamedTime, as_utc, contains, named_times, overlaps
from answerlens.verdict import AnswerabilityStatus

FLAG_RULES_VERSION = "answerlens-flags-2"
"""Bump whenever a rule changes what it flags: stored opinions name the rules they were made with."""
CHECKED_STATUSES = frozenset({AnswerabilityStatus.SUPPORTED, AnswerabilityStatus.CONFLICTING})
"""Only support is questioned; an unsupported requirement claims nothing to doubt."""

_MODE_WORDS = {
    SpeechActMode.DESIRE: "a wish or need", SpeechActMode.ATTEMPT: "an attempt", SpeechActMode.PLAN: "a plan",
    SpeechActMode.ADVICE: "advice", SpeechActMode.UNCERTAINTY: "uncertainty", SpeechActMode.CONDITIONAL: "a condition",
    SpeechActMode.UNVERIFIED: "an unverified report", SpeechActMode.QUESTION: "a question",
}
_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATES_AND_TIMES = re.compile(
    rf"\d{{4}}-\d\d(?:-\d\d)?(?:[T ]\d\d:\d\d(?::\d\d)?)?|\b\d{{1,2}}:\d\d\b|\b(?:19|20|21)\d\d\b|"
    rf"\b(?:{_MONTH_NAMES})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH_NAMES})\b",
    re.IGNORECASE)
_LOOSE_YEAR = re.compile(r"\b(?:19|20|21)\d\d\b")
_DONE = re.compile(
    r"\b(?:completed|finished|concluded|done|carried\s+out|took\s+place|happened|went\s+live|held|conducted|"
    r"performed|executed|ran|shipped|rolled\s+out|launched|succeeded)\b", re.IGNORECASE)
_NOT_YET = frozenset({"be", "being", "to", "will", "would", "should", "shall", "could", "may", "might", "must", "not",
                      "never", "cannot", "can't", "won't", "isn't", "wasn't", "aren't", "weren't", "hasn't", "haven't",
                      "hadn't", "didn't", "doesn't", "don't", "yet", "nothing", "no"})
"""Words just before a completion verb that leave the thing undone (future, infinitive, negation)."""
_TOTAL_WORDS = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|both|single|only|none|total|"
    r"all|every|exactly|complete|entire)\b", re.IGNORECASE)

RecordRule = Callable[[str, RequirementScope, TypedEvidence, datetime | None], str | None]


def stale_for_present(requirement: str, scope: RequirementScope, item: TypedEvidence,
                      as_of: datetime | None) -> str | None:
    """A superseded/deprecated/archived record, one superseded by another, or one whose validity window closed
    before the bundle's latest time — cited for a requirement about the present."""
    if not scope.present:
        return None
    tail = "; the requirement asks about the present"
    if item.lifecycle_state in BLOCKING_LIFECYCLE_STATES:
        return f"{item.ref} is {item.lifecycle_state.value}{tail}"
    if item.superseded_by is not None:
        return f"{item.ref} was superseded by {item.superseded_by}{tail}"
    if item.valid_to is not None and as_of is not None and as_utc(item.valid_to) <= as_of:
        ended = _day(item.valid_to)
        return f"{item.ref}'s validity ended {ended}, before the bundle's latest record ({_day(as_of)}){tail}"
    return None


def epistemic_not_actual(requirement: str, scope: RequirementScope, item: TypedEvidence,
                         as_of: datetime | None) -> str | None:
    """A hypothetical, conditional, unverified or deprecated record for a requirement without the matching
    uncertainty or condition (the verifier's table); a deprecated one may still answer the past."""
    required = EPISTEMIC_REQUIRED_CLAIM_MODES.get(item.epistemic_type)
    if required is None or not required.isdisjoint(speech_act_modes(statement(requirement))):
        return None
    if item.epistemic_type == EpistemicType.DEPRECATED:
        return None if scope.past else f"{item.ref} is epistemically deprecated; the requirement asks about the present"
    needed = " or ".join(sorted(_MODE_WORDS[mode] for mode in required))
    return f"{item.ref} is {item.epistemic_type.value}; the requirement does not state {needed}"


def speech_act_mismatch(requirement: str, scope: RequirementScope, item: TypedEvidence,
                        as_of: datetime | None) -> str | None:
    """The passage uses a non-actual mode (desire, plan, attempt, …) that the requirement does not. A plan the
    passage reports done (``reports_done``) is no longer a plan.

    Like the verifier's localized recheck, a passage of several sentences (or clauses split by ``;``) is not
    flagged when one of them shares a content word with the requirement and is free of such modes: it may be
    the support.
    """
    allowed = speech_act_modes(statement(requirement))
    extra = speech_act_modes(item.text) - allowed
    if SpeechActMode.PLAN in extra and reports_done(item.text):
        extra = extra - {SpeechActMode.PLAN}  # "planned drill … completed on 2024-06-03": it happened
    if not extra:
        return None
    mine = content_tokens(requirement)
    segments = [part for segment in guard_segments(item.text) for part in segment.split(";") if part.strip()]
    if len(segments) > 1 and any(
        speech_act_modes(segment) <= allowed and mine & content_tokens(segment) for segment in segments
    ):
        return None
    modes = ", ".join(_MODE_WORDS[mode] for mode in SpeechActMode if mode in extra)
    return f"{item.ref} states {modes}, which the requirement does not"


def reports_done(text: str) -> bool:
    """Whether a passage reports something done: a completion verb in the past ("completed on 2024-06-03", "was
    finished", "has been carried out"), not one still to come or denied ("to be completed", "will be done", "was
    not completed")."""
    for match in _DONE.finditer(text):
        before = re.findall(r"[\w']+", text[: match.start()].casefold())[-2:]
        if not _NOT_YET.intersection(before):
            return True
    return False


def negated_support(requirement: str, scope: RequirementScope, item: TypedEvidence,
                    as_of: datetime | None) -> str | None:
    """A negated clause of the passage, sharing a content word with a positive requirement (a "whether …"
    requirement is settled by a "no" as well, so it is never flagged)."""
    if has_negated_clause(requirement) or is_yes_no(requirement):
        return None
    mine = content_tokens(requirement)
    for clause in negated_clauses(item.text):
        shared = sorted(mine & content_tokens(clause))
        if shared:
            words = ", ".join(f"'{word}'" for word in shared[:3])
            return f"{item.ref} has a negated clause about {words}; the requirement states it positively"
    return None


def time_not_covered(requirement: str, scope: RequirementScope, item: TypedEvidence,
                     as_of: datetime | None) -> str | None:
    """The record's validity window, event time and own dates all miss a time the question names.

    A record with no window and no event time is not judged; neither is one whose text names the time itself.
    """
    if item.valid_from is None and item.valid_to is None and item.event_time is None:
        return None
    missed = [named for named in scope.times if not _covers(item, named)]
    if not missed:
        return None
    return f"{item.ref} ({_record_times(item)}) does not cover {', '.join(named.label() for named in missed)}"


RECORD_RULES: tuple[tuple[FlagCode, RecordRule], ...] = (
    (FlagCode.SUPERSEDED_FOR_PRESENT, stale_for_present),
    (FlagCode.EPISTEMIC_NOT_ACTUAL, epistemic_not_actual),
    (FlagCode.SPEECH_ACT_MISMATCH, speech_act_mismatch),
    (FlagCode.NEGATED_SUPPORT, negated_support),
    (FlagCode.TIME_NOT_COVERED, time_not_covered),
)
"""Rules judged record by record, in the order their flags are listed."""


def exhaustive_needs_aggregation(scope: RequirementScope, evidence: Sequence[TypedEvidence]) -> Flag | None:
    """A count or complete list supported by retrieved records, unless one record states the total itself
    (a number or a word such as "all", "only", "both" outside its dates)."""
    if not scope.exhaustive or not evidence:
        return None
    if len(evidence) == 1 and _TOTAL_WORDS.search(_DATES_AND_TIMES.sub(" ", evidence[0].text)):
        return None
    refs = tuple(item.ref for item in evidence)
    return Flag(code=FlagCode.EXHAUSTIVE_NEEDS_AGGREGATION, refs=refs,
                reason=f"the requirement asks for a count or complete list; {', '.join(refs)} "
                       f"{'is' if len(refs) == 1 else 'are'} a retrieved top-k set, which cannot show it is complete")


def flag_requirement(requirement: str, status: AnswerabilityStatus, evidence: Sequence[TypedEvidence],
                     scope: RequirementScope, as_of: datetime | None) -> tuple[Flag, ...]:
    """Every flag on one requirement: record rules in ``RECORD_RULES`` order (refs in citation order), then the
    count/list rule. Nothing for an unsupported requirement."""
    if status not in CHECKED_STATUSES:
        return ()
    flags = []
    for code, rule in RECORD_RULES:
        for item in evidence:
            reason = rule(requirement, scope, item, as_of)
            if reason is not None:
                flags.append(Flag(code=code, reason=reason, refs=(item.ref,)))
    aggregate = exhaustive_needs_aggregation(scope, evidence)
    return (*flags, aggregate) if aggregate is not None else tuple(flags)


def needs_complete_set(flags: Sequence[Flag]) -> bool:
    """Whether the verifier should be told the claim is exhaustive (it then answers ``incomplete``)."""
    return any(flag.code == FlagCode.EXHAUSTIVE_NEEDS_AGGREGATION for flag in flags)


def _covers(item: TypedEvidence, named: NamedTime) -> bool:
    asked = named.asked
    window = (None if item.valid_from is None else as_utc(item.valid_from),
              None if item.valid_to is None else as_utc(item.valid_to))
    if window != (None, None) and overlaps(window, asked):
        return True
    if item.event_time is not None and contains(asked, as_utc(item.event_time)):
        return True
    if any(overlaps((said.start, said.end), asked) for said in named_times(item.text)):
        return True
    return any(overlaps(_year(int(year)), asked) for year in _LOOSE_YEAR.findall(item.text))


def _year(year: int) -> tuple[datetime, datetime]:
    start = as_utc(datetime(year, 1, 1))
    return start, as_utc(datetime(year + 1, 1, 1))


def _record_times(item: TypedEvidence) -> str:
    parts = []
    if item.valid_from is not None or item.valid_to is not None:
        start = _day(item.valid_from) if item.valid_from is not None else "…"
        end = _day(item.valid_to) if item.valid_to is not None else "…"
        parts.append(f"valid {start} to {end}")
    if item.event_time is not None:
        parts.append(f"event {_day(item.event_time)}")
    return ", ".join(parts)


def _day(moment: datetime) -> str:
    return f"{as_utc(moment):%Y-%m-%d}"
