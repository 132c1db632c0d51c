"""Deterministic text and typed-field guards: speech-act modes, negation, refutation cues, compatibility tables.

Pure functions over plain text and typed passages (PRME 0.15.0's rules); also meant for deterministic flags
on answerability requirements, so they take any object with ``text``, ``epistemic_type`` and ``lifecycle_state``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import Enum
from functools import lru_cache
from typing import Protocol

from answerlens.records import EpistemicType, LifecycleState


class TypedPassage(Protocol):
    """What the guards read from a passage (``ClaimEvidence`` is one)."""

    @property
    def text(self) -> str: ...
    @property
    def epistemic_type(self) -> EpistemicType | None: ...
    @property
    def lifecycle_state(self) -> LifecycleState | None: ...


class SpeechActMode(str, Enum):
    """A way a sentence can talk about something without stating it as actual."""

    DESIRE = "desire"
    ATTEMPT = "attempt"
    PLAN = "plan"
    ADVICE = "advice"
    UNCERTAINTY = "uncertainty"
    CONDITIONAL = "conditional"
    UNVERIFIED = "unverified"
    QUESTION = "question"


_I = re.IGNORECASE
SPEECH_ACT_PATTERNS: tuple[tuple[SpeechActMode, re.Pattern[str]], ...] = (
    (SpeechActMode.DESIRE, re.compile(
        r"\b(?:want(?:s|ed)?|would\s+like|wish(?:es|ed)?|hope(?:s|d)?|need(?:s|ed)?|aim\w*|seek\w*)\b"
        r"|\b\w+[’']d\s+like\b", _I)),
    (SpeechActMode.ATTEMPT, re.compile(r"\b(?:tr(?:y|ies|ied|ying)|attempt\w*|work(?:s|ed|ing)?\s+(?:on|to))\b", _I)),
    (SpeechActMode.PLAN, re.compile(
        r"\b(?:plan(?:s|ned|ning)?|intend\w*|schedul\w*|consider\w*|explor\w*|evaluat\w*)\b", _I)),
    (SpeechActMode.ADVICE, re.compile(r"\b(?:should|ought|recommend\w*|suggest\w*|advis\w*)\b", _I)),
    (SpeechActMode.UNCERTAINTY, re.compile(
        r"\b(?:might|maybe|perhaps|possible|possibly|potentially|uncertain|whether)\b", _I)),
    (SpeechActMode.CONDITIONAL, re.compile(r"\b(?:if|unless|provided\s+that|in\s+case)\b", _I)),
    (SpeechActMode.UNVERIFIED, re.compile(r"\b(?:unverified|unconfirmed|reportedly|allegedly)\b", _I)),
)
"""Each non-actual mode and the words that signal it (a question is also any ``?``)."""
REPORTED_QUESTION_PATTERN = re.compile(
    r"\b(?:ask(?:s|ed|ing)?|question(?:s|ed|ing)?|wonder(?:s|ed|ing)?|whether)\b", _I)

REFUTATION_CUE_PATTERN = re.compile(
    r"\b(?:no|not|never|neither|nor|without|cannot|can't|isn't|aren't|wasn't|weren't|didn't|doesn't|don't|won't"
    r"|instead|rather than|switched from|replaced|incorrect|false)\b",
    _I,
)
"""A claim with one of these words states a negation or correction itself."""
NEGATED_CLAUSE_PATTERN = re.compile(
    r"[^.;!?]*(?:\b(?:not|never|no\s+longer|cannot|can't|isn't|aren't|wasn't|weren't|didn't|doesn't|don't|won't)\b)"
    r"[^.;!?]*",
    _I,
)
"""A clause (between ``.;!?``) that contains a negation word."""
_NUMBER = re.compile(r"(?<!\w)-?\d+(?:\.\d+)?(?!\w)")
_WEEKDAY = re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", _I)
_MONTH = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b", _I)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_SEGMENT_BOUNDARY = re.compile(r"(?:\r?\n)+|(?<=[.!?])\s+(?=[\"'([{]*[A-Z0-9])")

NEGATION_STOPWORDS = frozenset(
    "a an and app application are at be by currently did do does for from in i is it longer no not of on "
    "pipeline project service system that team the this to user was were we will with you".split()
)
"""Words that never count as content when matching a negated clause against a claim."""

BLOCKING_LIFECYCLE_STATES = frozenset({LifecycleState.SUPERSEDED, LifecycleState.DEPRECATED, LifecycleState.ARCHIVED})
"""A record in one of these states never supports or refutes anything."""
EPISTEMIC_REQUIRED_CLAIM_MODES: dict[EpistemicType, frozenset[SpeechActMode]] = {
    EpistemicType.HYPOTHETICAL: frozenset({SpeechActMode.UNCERTAINTY, SpeechActMode.CONDITIONAL}),
    EpistemicType.CONDITIONAL: frozenset({SpeechActMode.CONDITIONAL}),
    EpistemicType.UNVERIFIED: frozenset({SpeechActMode.UNVERIFIED, SpeechActMode.UNCERTAINTY}),
    EpistemicType.DEPRECATED: frozenset(),
}
"""An evidence epistemic type listed here is usable only for a claim with one of these modes (none: never)."""


# --- detectors over text --------------------------------------------------------------------------------


@lru_cache(maxsize=4096)  # pure; the same claim and passages are checked once per scored group
def speech_act_modes(text: str) -> frozenset[SpeechActMode]:
    """The non-actual modes a text uses (desire, attempt, plan, advice, uncertainty, conditional, …)."""
    modes = {mode for mode, pattern in SPEECH_ACT_PATTERNS if pattern.search(text) is not None}
    if "?" in text or REPORTED_QUESTION_PATTERN.search(text) is not None:
        modes.add(SpeechActMode.QUESTION)
    return frozenset(modes)


def negated_clauses(text: str) -> list[str]:
    """Every clause of the text that contains a negation word."""
    return [match.group() for match in NEGATED_CLAUSE_PATTERN.finditer(text)]


def has_negated_clause(text: str) -> bool:
    return NEGATED_CLAUSE_PATTERN.search(text) is not None


def has_refutation_cue(text: str) -> bool:
    """Whether the text itself negates or corrects something (``not``, ``instead``, ``replaced`` …)."""
    return REFUTATION_CUE_PATTERN.search(text) is not None


def explicit_values(text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The numbers, weekdays and months a text names (names case-folded)."""
    return (
        frozenset(_NUMBER.findall(text)),
        frozenset(match.casefold() for match in _WEEKDAY.findall(text)),
        frozenset(match.casefold() for match in _MONTH.findall(text)),
    )


def values_conflict(claim: str, evidence_text: str) -> bool:
    """Whether claim and evidence both name numbers (or weekdays, or months) and name different ones."""
    return any(
        mine and theirs and mine != theirs
        for mine, theirs in zip(explicit_values(claim), explicit_values(evidence_text), strict=True)
    )


@lru_cache(maxsize=4096)
def content_tokens(text: str) -> frozenset[str]:
    """Case-folded ASCII words minus stopwords, with a crude plural fold (``caches`` → ``cache``)."""
    tokens = set()
    for word in _WORD.findall(text):
        token = word.casefold()
        if token in NEGATION_STOPWORDS:
            continue
        if token.endswith("ies") and len(token) > 4:
            token = f"{token[:-3]}y"
        elif token.endswith("s") and not token.endswith("ss") and len(token) > 3:
            token = token[:-1]
        tokens.add(token)
    return frozenset(tokens)


def guard_segments(text: str) -> tuple[str, ...]:
    """The passage split at line breaks and sentence ends: the units a localized recheck keeps or drops."""
    return tuple(part.strip() for part in _SEGMENT_BOUNDARY.split(text) if part.strip())


# --- rules over typed passages ---------------------------------------------------------------------------


def typed_evidence_compatible(passage: TypedPassage, claim_modes: Iterable[SpeechActMode]) -> bool:
    """The lifecycle and epistemic tables: may this record speak to a claim with these modes at all?"""
    if passage.lifecycle_state in BLOCKING_LIFECYCLE_STATES:
        return False
    if passage.epistemic_type is None:
        return True
    required = EPISTEMIC_REQUIRED_CLAIM_MODES.get(passage.epistemic_type)
    return required is None or not required.isdisjoint(claim_modes)


def preserves_modality(claim: str, group: Sequence[TypedPassage]) -> bool:
    """Every passage is typed-compatible and uses no non-actual mode the claim does not use."""
    claim_modes = speech_act_modes(claim)
    evidence_modes: set[SpeechActMode] = set()
    for passage in group:
        if not typed_evidence_compatible(passage, claim_modes):
            return False
        evidence_modes.update(speech_act_modes(passage.text))
    return evidence_modes <= claim_modes


def corroborates_entailment(claim: str, group: Sequence[TypedPassage]) -> bool:
    """Model entailment stands when modality is preserved and no passage negates a positive claim."""
    if not preserves_modality(claim, group):
        return False
    return has_negated_clause(claim) or not any(has_negated_clause(passage.text) for passage in group)


def explicit_negation_refutes(claim: str, group: Sequence[TypedPassage]) -> bool:
    """A positive claim is refuted by a negated evidence clause covering all its content words.

    With exactly two content words the clause must have exactly those two; with more, it must contain them all.
    """
    if not any(has_negated_clause(passage.text) for passage in group):
        return False  # nothing to match (checked first only because it is the cheapest condition)
    if has_negated_clause(claim) or not preserves_modality(claim, group):
        return False
    claim_modes = speech_act_modes(claim)
    claim_tokens = content_tokens(claim)
    if len(claim_tokens) < 2:
        return False
    for passage in group:
        if not typed_evidence_compatible(passage, claim_modes):
            continue
        for clause in negated_clauses(passage.text):
            clause_tokens = content_tokens(clause)
            if len(claim_tokens) == 2 and clause_tokens == claim_tokens:
                return True
            if len(claim_tokens) > 2 and claim_tokens <= clause_tokens:
                return True
    return False


def corroborates_refutation(claim: str, group: Sequence[TypedPassage]) -> bool:
    """Model contradiction stands with preserved modality and a cue, conflicting values or explicit negation."""
    if not preserves_modality(claim, group):
        return False
    if has_refutation_cue(claim):
        return True
    if values_conflict(claim, "\n".join(passage.text for passage in group)):
        return True
    return explicit_negation_refutes(claim, group)
