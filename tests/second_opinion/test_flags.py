"""Every flag rule with cases that raise it and cases that must not, non-English negation included."""

from datetime import datetime

import pytest

from answerlens.records import EpistemicType, LifecycleState
from answerlens.second_opinion.flags import (
    FLAG_RULES_VERSION,
    epistemic_not_actual,
    exhaustive_needs_aggregation,
    flag_requirement,
    needs_complete_set,
    negated_support,
    speech_act_mismatch,
    stale_for_present,
    time_not_covered,
)
from answerlens.second_opinion.models import FlagCode, TypedEvidence
from answerlens.second_opinion.scope import RequirementScope, requirement_scope
from answerlens.verdict import AnswerabilityStatus
from tests.second_opinion.builders import evidence, utc

PRESENT = RequirementScope(past=False, times=(), exhaustive=False)
PAST = RequirementScope(past=True, times=(), exhaustive=False)
SUPPORTED = AnswerabilityStatus.SUPPORTED


def scope(requirement: str, question: str | None = None) -> RequirementScope:
    return requirement_scope(requirement, question or f"{requirement}?")


# --- superseded / deprecated / archived for the present ------------------------------------------------------


@pytest.mark.parametrize("state", [LifecycleState.SUPERSEDED, LifecycleState.DEPRECATED, LifecycleState.ARCHIVED])
def test_a_stale_lifecycle_is_flagged_for_the_present(state: LifecycleState) -> None:
    item = evidence("The dashboard used MySQL.", lifecycle_state=state)
    assert stale_for_present("Primary database", PRESENT, item, None) == \
        f"m1 is {state.value}; the requirement asks about the present"


@pytest.mark.parametrize("requirement, question", [
    pytest.param("Previous primary database", None, id="previous"),
    pytest.param("Database the dashboard used to run on", None, id="used_to"),
    pytest.param("Primary database until 2024", None, id="until_2024"),
    pytest.param("Primary database", "What database did the dashboard use before the cut-over?", id="question_before"),
    pytest.param("Primary database in 2022", None, id="named_time_is_for_the_time_rule"),
])
def test_a_stale_record_may_answer_the_past(requirement: str, question: str | None) -> None:
    item = evidence("The dashboard used MySQL.", lifecycle_state=LifecycleState.SUPERSEDED)
    assert stale_for_present(requirement, scope(requirement, question), item, None) is None


def test_superseded_by_another_record_is_stale() -> None:
    item = evidence("Uses MySQL.", superseded_by=evidence("x", ref="m2").memory_id)
    assert "superseded by 00000000-0000-0000-0000-000000000002" in (stale_for_present("DB", PRESENT, item, None) or "")


def test_a_closed_window_is_stale_only_before_the_bundles_latest_time() -> None:
    item = evidence("The dashboard project used MySQL.", valid_from=utc(2023), valid_to=utc(2024))
    assert stale_for_present("Current database", PRESENT, item, utc(2026, 12, 2)) == (
        "m1's validity ended 2024-01-01, before the bundle's latest record (2026-12-02); "
        "the requirement asks about the present")
    assert stale_for_present("Current database", PRESENT, item, utc(2023, 6)) is None  # still open then
    assert stale_for_present("Current database", PRESENT, item, None) is None
    assert stale_for_present("Current database", PRESENT, evidence("Uses PostgreSQL."), utc(2030)) is None


# --- epistemic type ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("epistemic, reason", [
    pytest.param(EpistemicType.HYPOTHETICAL, "m1 is hypothetical; the requirement does not state a condition or "
                 "uncertainty", id="hypothetical"),
    pytest.param(EpistemicType.CONDITIONAL, "m1 is conditional; the requirement does not state a condition",
                 id="conditional"),
    pytest.param(EpistemicType.UNVERIFIED, "m1 is unverified; the requirement does not state an unverified report "
                 "or uncertainty", id="unverified"),
    pytest.param(EpistemicType.DEPRECATED, "m1 is epistemically deprecated; the requirement asks about the present",
                 id="deprecated"),
])
def test_non_actual_epistemic_types_are_flagged(epistemic: EpistemicType, reason: str) -> None:
    item = evidence("The pool is doubled to 64 connections.", epistemic_type=epistemic)
    assert epistemic_not_actual("Connection pool size", PRESENT, item, None) == reason


@pytest.mark.parametrize("requirement, epistemic, scope_", [
    pytest.param("Pool size it might be doubled to", EpistemicType.HYPOTHETICAL, PRESENT, id="uncertain_claim"),
    pytest.param("Pool size if indexing falls behind", EpistemicType.CONDITIONAL, PRESENT, id="conditional_claim"),
    pytest.param("Pool size reportedly used", EpistemicType.UNVERIFIED, PRESENT, id="unverified_claim"),
    pytest.param("Pool size", EpistemicType.DEPRECATED, PAST, id="deprecated_for_the_past"),
    pytest.param("Pool size", EpistemicType.OBSERVED, PRESENT, id="observed"),
    pytest.param("Pool size", EpistemicType.INFERRED, PRESENT, id="inferred"),
])
def test_epistemic_types_the_requirement_allows(requirement: str, epistemic: EpistemicType,
                                                scope_: RequirementScope) -> None:
    item = evidence("The pool is doubled to 64 connections.", epistemic_type=epistemic)
    assert epistemic_not_actual(requirement, scope_, item, None) is None


# --- speech acts ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, words", [
    pytest.param("We plan to move notifications to NATS.", "a plan", id="plan"),
    pytest.param("I want to move notifications to NATS.", "a wish or need", id="desire"),
    pytest.param("I'm trying to move notifications to NATS.", "an attempt", id="attempt"),
    pytest.param("You should move notifications to NATS.", "advice", id="advice"),
    pytest.param("Maybe notifications moves to NATS.", "uncertainty", id="uncertainty"),
    pytest.param("If load grows, notifications moves to NATS.", "a condition", id="conditional"),
    pytest.param("Notifications reportedly moved to NATS.", "an unverified report", id="unverified"),
    pytest.param("Did notifications move to NATS?", "a question", id="question"),
    pytest.param("We plan to move notifications to NATS; should we?", "a plan, advice, a question", id="several"),
])
def test_a_speech_act_the_requirement_does_not_state(text: str, words: str) -> None:
    reason = speech_act_mismatch("Notifications broker is NATS", PRESENT, evidence(text), None)
    assert reason == f"m1 states {words}, which the requirement does not"


@pytest.mark.parametrize("requirement, text", [
    pytest.param("Notifications broker is NATS", "Notifications moved to NATS in June.", id="plain_fact"),
    pytest.param("The plan for the notifications broker", "We plan to move notifications to NATS.", id="same_mode"),
    pytest.param("Owner of the billing migrations",
                 "Leo Alvarez owns the billing migrations; every migration PR needs his review.", id="clean_clause"),
    pytest.param("Notifications broker is NATS",
                 "Notifications moved to NATS in June. We plan to drop RabbitMQ later.", id="clean_sentence"),
])
def test_speech_acts_that_are_not_flagged(requirement: str, text: str) -> None:
    assert speech_act_mismatch(requirement, PRESENT, evidence(text), None) is None


def test_the_question_form_of_a_requirement_is_not_a_speech_act() -> None:
    """"Whether …" asks about a statement; it does not make a hypothetical or a plan fit."""
    item = evidence("We might move analytics to ClickHouse.", epistemic_type=EpistemicType.HYPOTHETICAL)
    requirement = "Whether the dashboard runs its analytics on ClickHouse?"
    assert speech_act_mismatch(requirement, PRESENT, item, None) == "m1 states uncertainty, which the requirement does not"
    assert epistemic_not_actual(requirement, PRESENT, item, None) is not None
    asked = evidence("We asked whether analytics could move to ClickHouse.")
    assert speech_act_mismatch("Whether analytics moved to ClickHouse", PRESENT, asked, None) is not None


def test_a_blocked_sentence_is_flagged_when_the_clean_one_says_nothing_of_the_requirement() -> None:
    text = "The weather was fine. We plan to move notifications to NATS."
    assert speech_act_mismatch("Notifications broker is NATS", PRESENT, evidence(text), None) is not None


# --- negation ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    pytest.param("Checkout does not use Redis.", id="not"),
    pytest.param("Checkout never used Redis for sessions.", id="never"),
    pytest.param("Checkout no longer uses Redis.", id="no_longer"),
    pytest.param("Checkout isn't on Redis; it uses Memcached.", id="contraction"),
])
def test_a_negated_clause_against_a_positive_requirement(text: str) -> None:
    reason = negated_support("Checkout uses Redis", PRESENT, evidence(text), None)
    assert reason is not None and reason.startswith("m1 has a negated clause about 'checkout'")


@pytest.mark.parametrize("requirement, text", [
    pytest.param("Checkout does not use Redis", "Checkout does not use Redis.", id="negative_requirement"),
    pytest.param("Checkout uses Redis", "Checkout uses Redis. The weather is not nice.", id="unrelated_clause"),
    pytest.param("Checkout uses Redis", "Checkout uses Redis for sessions.", id="positive_passage"),
    pytest.param("Whether checkout uses Redis", "Checkout does not use Redis.", id="a_no_settles_whether"),
])
def test_negation_that_is_not_flagged(requirement: str, text: str) -> None:
    assert negated_support(requirement, PRESENT, evidence(text), None) is None


@pytest.mark.parametrize("requirement, text", [
    pytest.param("Checkout nutzt Redis", "Checkout nutzt Redis nicht.", id="german_nicht"),
    pytest.param("Checkout nutzt Redis", "Checkout nutzt kein Redis mehr.", id="german_kein"),
    pytest.param("Checkout utilise Redis", "Checkout n'utilise pas Redis.", id="french_ne_pas"),
    pytest.param("Checkout usa Redis", "Checkout no usa Redis.", id="spanish_no"),
    pytest.param("Checkout uses Redis", "No: checkout uses Memcached, Redis was dropped.", id="english_bare_no"),
])
def test_negation_the_guards_do_not_detect_is_not_flagged(requirement: str, text: str) -> None:
    """Documented gap (module docstring of ``flags``): only English negation words in ``claims.guards`` count."""
    assert negated_support(requirement, PRESENT, evidence(text), None) is None


def test_an_english_negation_in_a_non_english_passage_is_detected() -> None:
    text = "Checkout Redis: not deployed (noch offen)."
    assert negated_support("Checkout Redis deployed", PRESENT, evidence(text), None) is not None


# --- times the question names --------------------------------------------------------------------------------


@pytest.mark.parametrize("requirement, item, label", [
    pytest.param("Primary database in 2025", evidence("Uses MySQL.", valid_from=utc(2021, 6), valid_to=utc(2024, 2)),
                 "m1 (valid 2021-06-01 to 2024-02-01) does not cover in 2025", id="window_misses"),
    pytest.param("Incidents in 2024", evidence("Checkout was down.", event_time=utc(2023, 5)),
                 "m1 (event 2023-05-01) does not cover in 2024", id="event_misses"),
    pytest.param("Pool limit before May 8, 2024", evidence("At most 32 connections.", valid_from=utc(2024, 5, 8)),
                 "m1 (valid 2024-05-08 to …) does not cover before 2024-05-08", id="before"),
    pytest.param("Pool limit since 2025", evidence("At most 12.", valid_from=utc(2023, 9), valid_to=utc(2024, 5, 8),
                                                   event_time=utc(2023, 9)),
                 "m1 (valid 2023-09-01 to 2024-05-08, event 2023-09-01) does not cover since 2025", id="since"),
])
def test_a_named_time_the_record_does_not_cover(requirement: str, item: TypedEvidence, label: str) -> None:
    assert time_not_covered(requirement, scope(requirement), item, None) == label


@pytest.mark.parametrize("requirement, item", [
    pytest.param("Database in 2023", evidence("Uses MySQL.", valid_from=utc(2021), valid_to=utc(2024, 2)),
                 id="window_covers"),
    pytest.param("Incidents in 2024", evidence("Checkout was down.", event_time=utc(2024, 3, 12)), id="event_inside"),
    pytest.param("Freeze dates in Q4 2023", evidence("The Q4 2023 freeze ran from November 24 to January 8.",
                                                     event_time=utc(2024, 2)), id="text_names_it"),
    pytest.param("Pool limit until May 8, 2024", evidence("At most 12.", valid_from=utc(2023, 9), valid_to=utc(2024, 5, 8)),
                 id="until"),
    pytest.param("Database in 2023", evidence("Uses MySQL."), id="record_has_no_time"),
    pytest.param("Current database", evidence("Uses MySQL.", event_time=utc(2020)), id="no_time_named"),
    pytest.param("Outage on May 14", evidence("Login outage.", event_time=utc(2023, 1)), id="no_year_no_time"),
])
def test_named_times_that_are_covered_or_not_judged(requirement: str, item: TypedEvidence) -> None:
    assert time_not_covered(requirement, scope(requirement), item, None) is None


# --- counts and complete lists -------------------------------------------------------------------------------


def test_a_count_over_retrieved_records_needs_aggregation() -> None:
    items = [evidence(f"Incident INC-{n}: checkout was down.", ref=f"m{n}") for n in (1, 2, 3)]
    flag = exhaustive_needs_aggregation(scope("How many checkout incidents"), items)
    assert flag is not None and flag.code == FlagCode.EXHAUSTIVE_NEEDS_AGGREGATION and flag.refs == ("m1", "m2", "m3")
    assert flag.reason == ("the requirement asks for a count or complete list; m1, m2, m3 are a retrieved top-k set, "
                           "which cannot show it is complete")


@pytest.mark.parametrize("requirement, texts, flagged", [
    pytest.param("List the services that use Redis", ["checkout uses Redis", "billing uses Redis"], True, id="list"),
    pytest.param("Every service on Redis", ["checkout uses Redis"], True, id="every_single_record_no_total"),
    pytest.param("How many connections search-indexer may open", ["at most 32 connections (HikariCP)"], False,
                 id="single_record_states_the_number"),
    pytest.param("How many incidents on 2024-03-12", ["Checkout was down on 2024-03-12."], True,
                 id="a_date_is_not_a_total"),
    pytest.param("Number of owners", ["Both Leo and Dana own it."], False, id="number_word"),
    pytest.param("Kafka topic search-indexer consumes", ["a", "b"], False, id="not_exhaustive"),
    pytest.param("Whether the all-hands happened at all", ["It happened."], False, id="at_all_and_all_hands"),
])
def test_counts_and_lists(requirement: str, texts: list[str], flagged: bool) -> None:
    items = [evidence(text, ref=f"m{n}") for n, text in enumerate(texts, 1)]
    assert (exhaustive_needs_aggregation(scope(requirement), items) is not None) is flagged


# --- one requirement ------------------------------------------------------------------------------------------


def test_flags_are_listed_by_rule_then_citation_and_only_for_claimed_support() -> None:
    items = [
        evidence("Maybe we use NATS.", ref="m1", epistemic_type=EpistemicType.HYPOTHETICAL),
        evidence("We used RabbitMQ.", ref="m2", lifecycle_state=LifecycleState.SUPERSEDED),
        evidence("We plan to use NATS.", ref="m3"),
    ]
    requirement = "Every broker notifications uses"
    flags = flag_requirement(requirement, SUPPORTED, items, scope(requirement), None)
    assert [(flag.code.value, flag.refs) for flag in flags] == [
        ("superseded_for_present", ("m2",)), ("epistemic_not_actual", ("m1",)),
        ("speech_act_mismatch", ("m1",)), ("speech_act_mismatch", ("m3",)),
        ("exhaustive_needs_aggregation", ("m1", "m2", "m3")),
    ]
    assert needs_complete_set(flags)
    conflicting = flag_requirement(requirement, AnswerabilityStatus.CONFLICTING, items, scope(requirement), None)
    assert conflicting == flags
    assert flag_requirement(requirement, AnswerabilityStatus.UNSUPPORTED, items, scope(requirement), None) == ()


def test_reasons_are_one_line_and_never_quote_record_text() -> None:
    hostile = "<script>alert('x')</script> We plan\u2028to never\nuse it?"
    item = evidence(hostile, lifecycle_state=LifecycleState.SUPERSEDED, epistemic_type=EpistemicType.HYPOTHETICAL,
                    event_time=datetime(2020, 1, 1))
    requirement = "How many times we use it in 2024"
    flags = flag_requirement(requirement, SUPPORTED, [item], scope(requirement), None)
    assert {flag.code for flag in flags} == set(FlagCode) - {FlagCode.SUPERSEDED_FOR_PRESENT}  # 2024 is named
    for flag in flags:
        assert "<" not in flag.reason and "\n" not in flag.reason and "\u2028" not in flag.reason


def test_the_rules_version_is_named() -> None:
    assert FLAG_RULES_VERSION == "answerlens-flags-2"


@pytest.mark.parametrize(("text", "flagged"), [
    pytest.param("Planned failover drill of session-store completed on 2024-06-03 at 07:30 UTC with 41 s of write "
                 "errors.", False, id="shipped_compact_citation_errors_m4_dated_completion"),
    pytest.param("We plan to move the notifications service from RabbitMQ to NATS JetStream next quarter.", True,
                 id="shipped_plan_as_fact_m1_future"),
    pytest.param("The planned cut-over to NATS was finished on 12 March 2024.", False, id="was_finished"),
    pytest.param("The scheduled NATS migration has been carried out.", False, id="has_been_carried_out"),
    pytest.param("The NATS migration is planned to be completed by 2024-09-01.", True, id="to_be_completed"),
    pytest.param("The scheduled NATS cut-over will be done next week.", True, id="will_be_done"),
    pytest.param("The planned NATS cut-over was not completed.", True, id="not_completed"),
    pytest.param("We are evaluating NATS; nothing has shipped yet.", True, id="evaluating_nothing_shipped_yet"),
])
def test_a_plan_reported_done_is_no_longer_a_plan(text: str, flagged: bool) -> None:
    reason = speech_act_mismatch("Notifications broker is NATS", PRESENT, evidence(text), None)
    assert (reason is not None) == flagged, reason


def test_the_shipped_compact_citation_errors_sample_flags_no_plan_on_m4() -> None:
    from answerlens.second_opinion.opinion import flagged_requirements
    from tests.ui.conftest import recorded, sample

    item = sample("compact_citation_errors")
    opinions = flagged_requirements(recorded("compact_citation_errors"), item.load(), item.question)
    flagged = {ref for opinion in opinions for flag in opinion.flags if flag.code == FlagCode.SPEECH_ACT_MISMATCH
               for ref in flag.refs}
    assert "m4" not in flagged
