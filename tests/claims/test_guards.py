from dataclasses import dataclass

import pytest

from answerlens.claims.guards import (
    SpeechActMode,
    content_tokens,
    corroborates_entailment,
    corroborates_refutation,
    explicit_negation_refutes,
    explicit_values,
    guard_segments,
    has_negated_clause,
    has_refutation_cue,
    negated_clauses,
    preserves_modality,
    speech_act_modes,
    typed_evidence_compatible,
    values_conflict,
)
from answerlens.records import EpistemicType, LifecycleState

M = SpeechActMode


@dataclass(frozen=True)
class Passage:
    text: str
    epistemic_type: EpistemicType | None = None
    lifecycle_state: LifecycleState | None = None


@pytest.mark.parametrize("text, modes", [
    pytest.param("We use Redis.", set(), id="actual"),
    pytest.param("I want Redis; I'd like it; we’d like it.", {M.DESIRE}, id="desire"),
    pytest.param("We tried Redis and worked on it.", {M.ATTEMPT}, id="attempt"),
    pytest.param("We are considering Redis.", {M.PLAN}, id="plan"),
    pytest.param("You should use Redis.", {M.ADVICE}, id="advice"),
    pytest.param("Perhaps Redis.", {M.UNCERTAINTY}, id="uncertainty"),
    pytest.param("Redis, provided that it scales.", {M.CONDITIONAL}, id="conditional"),
    pytest.param("Redis is allegedly in use.", {M.UNVERIFIED}, id="unverified"),
    pytest.param("Redis?", {M.QUESTION}, id="question_mark"),
    pytest.param("She wondered about Redis.", {M.QUESTION}, id="reported_question"),
    pytest.param("Ask whether we might use Redis.", {M.QUESTION, M.UNCERTAINTY}, id="whether_is_two_modes"),
    pytest.param("The planet needs no shoulder.", {M.DESIRE}, id="near_misses_except_needs"),
    pytest.param("WE PLAN TO USE REDIS.", {M.PLAN}, id="case_insensitive"),
])
def test_speech_act_modes(text: str, modes: set[SpeechActMode]) -> None:
    assert speech_act_modes(text) == modes


@pytest.mark.parametrize("text, clauses", [
    pytest.param("We use Redis.", [], id="none"),
    pytest.param("We use Redis. We don't use Memcached; it is fine.", [" We don't use Memcached"], id="one_clause"),
    pytest.param("Redis is no longer used!", ["Redis is no longer used"], id="no_longer"),
    pytest.param("We don’t use it.", [], id="curly_apostrophe_not_seen"),
    pytest.param("No Redis here.", [], id="bare_no_is_not_a_clause_negation"),
])
def test_negated_clauses(text: str, clauses: list[str]) -> None:
    assert negated_clauses(text) == clauses
    assert has_negated_clause(text) is bool(clauses)


@pytest.mark.parametrize("claim, cue", [
    pytest.param("We use Memcached instead.", True, id="instead"),
    pytest.param("Redis replaced Memcached.", True, id="replaced"),
    pytest.param("No Redis.", True, id="no"),
    pytest.param("We switched to Redis.", False, id="switched_alone"),
    pytest.param("We use Redis.", False, id="plain"),
])
def test_refutation_cues(claim: str, cue: bool) -> None:
    assert has_refutation_cue(claim) is cue


def test_explicit_values_and_conflicts() -> None:
    assert explicit_values("On Monday in May we saw 250 ms, -3 and 2.5; not v2 or 10x.") == (
        frozenset({"250", "-3", "2.5"}), frozenset({"monday"}), frozenset({"may"}))
    assert values_conflict("It took 250 ms.", "It took 300 ms.")
    assert not values_conflict("It took 250 ms.", "It took 250 ms on Monday.")
    assert not values_conflict("It took long.", "It took 300 ms.")
    assert values_conflict("On MONDAY.", "on friday")


def test_content_tokens_fold_plurals_and_drop_stopwords() -> None:
    assert content_tokens("The team's libraries and caches: bus, glass, dies, flies!") == {
        "s", "library", "cache", "bus", "glass", "die", "fly"}
    assert content_tokens("Das Café über") == {"das", "caf", "ber"}


def test_guard_segments_split_at_lines_and_sentence_ends_before_a_capital_or_digit() -> None:
    # "two" is lowercase (no split); a closing quote after the full stop hides the boundary before "(Six)".
    assert guard_segments("One. two. Three!\n\nFour? \"Five.\" (Six). 7 left") == (
        "One. two.", "Three!", "Four?", "\"Five.\" (Six).", "7 left")


LIFECYCLE_BLOCKED = [LifecycleState.SUPERSEDED, LifecycleState.DEPRECATED, LifecycleState.ARCHIVED]


@pytest.mark.parametrize("lifecycle", [pytest.param(state, id=state.value) for state in LifecycleState])
def test_lifecycle_table(lifecycle: LifecycleState) -> None:
    assert typed_evidence_compatible(Passage("x", lifecycle_state=lifecycle), set()) is (
        lifecycle not in LIFECYCLE_BLOCKED)


@pytest.mark.parametrize("epistemic, claim_modes, compatible", [
    pytest.param(None, set(), True, id="untyped"),
    pytest.param(EpistemicType.OBSERVED, set(), True, id="observed"),
    pytest.param(EpistemicType.INFERRED, set(), True, id="inferred"),
    pytest.param(EpistemicType.HYPOTHETICAL, set(), False, id="hypothetical_plain_claim"),
    pytest.param(EpistemicType.HYPOTHETICAL, {M.UNCERTAINTY}, True, id="hypothetical_uncertain_claim"),
    pytest.param(EpistemicType.HYPOTHETICAL, {M.CONDITIONAL}, True, id="hypothetical_conditional_claim"),
    pytest.param(EpistemicType.CONDITIONAL, {M.UNCERTAINTY}, False, id="conditional_uncertain_claim"),
    pytest.param(EpistemicType.CONDITIONAL, {M.CONDITIONAL}, True, id="conditional_conditional_claim"),
    pytest.param(EpistemicType.UNVERIFIED, {M.UNVERIFIED}, True, id="unverified_unverified_claim"),
    pytest.param(EpistemicType.UNVERIFIED, {M.UNCERTAINTY}, True, id="unverified_uncertain_claim"),
    pytest.param(EpistemicType.UNVERIFIED, {M.CONDITIONAL}, False, id="unverified_conditional_claim"),
    pytest.param(EpistemicType.DEPRECATED, set(M), False, id="deprecated_never"),
])
def test_epistemic_table(epistemic: EpistemicType | None, claim_modes: set[SpeechActMode], compatible: bool) -> None:
    assert typed_evidence_compatible(Passage("x", epistemic_type=epistemic), claim_modes) is compatible


def test_modality_is_preserved_only_when_evidence_modes_are_the_claims() -> None:
    assert preserves_modality("We use Redis.", [Passage("We use Redis.")])
    assert not preserves_modality("We use Redis.", [Passage("We plan to use Redis.")])
    assert preserves_modality("We plan to use Redis.", [Passage("We plan to use Redis.")])
    assert not preserves_modality("We use Redis.", [Passage("We use Redis.", epistemic_type=EpistemicType.UNVERIFIED)])


def test_entailment_is_not_corroborated_by_negated_evidence_for_a_positive_claim() -> None:
    assert corroborates_entailment("We use Redis.", [Passage("We use Redis.")])
    assert not corroborates_entailment("We use Redis.", [Passage("We use Redis."), Passage("We don't use Go.")])
    assert corroborates_entailment("We don't use Go.", [Passage("We don't use Go.")])


@pytest.mark.parametrize("claim, evidence, refutes", [
    pytest.param("Redis caches.", "Redis does not cache.", True, id="two_tokens_equal"),
    pytest.param("Redis caches.", "Redis does not cache sessions.", False, id="two_tokens_need_equality"),
    pytest.param("The dashboard uses Redis.", "The dashboard no longer uses Redis at night.", True, id="subset"),
    pytest.param("The dashboard uses Redis.", "The dashboard does not use Memcached.", False, id="not_covered"),
    pytest.param("Redis.", "We do not use Redis.", False, id="one_token"),
    pytest.param("We don't use Redis caches.", "We do not use Redis caches.", False, id="negated_claim"),
    pytest.param("Redis caches.", "We don’t use Redis caches.", False, id="curly_apostrophe"),
])
def test_explicit_negation_refutation(claim: str, evidence: str, refutes: bool) -> None:
    assert explicit_negation_refutes(claim, [Passage(evidence)]) is refutes


def test_explicit_negation_respects_typed_fields() -> None:
    assert not explicit_negation_refutes("Redis caches.", [Passage("Redis does not cache.",
                                                                   lifecycle_state=LifecycleState.ARCHIVED)])


@pytest.mark.parametrize("claim, evidence, corroborated", [
    pytest.param("We do not use Redis.", "We use Redis.", True, id="cue_in_claim"),
    pytest.param("It took 250 ms.", "It took 300 ms.", True, id="numbers"),
    pytest.param("We deploy on Monday.", "We deploy on Friday.", True, id="weekdays"),
    pytest.param("We launched in March.", "We launched in May.", True, id="months"),
    pytest.param("Redis caches.", "Redis does not cache.", True, id="negation_overlap"),
    pytest.param("We use Redis.", "We use Memcached.", False, id="bare_model_contradiction"),
    pytest.param("We do not use Redis.", "We plan to use Redis.", False, id="modality_differs"),
])
def test_refutation_corroboration(claim: str, evidence: str, corroborated: bool) -> None:
    assert corroborates_refutation(claim, [Passage(evidence)]) is corroborated
