"""What a requirement asks about: past or present, named times, counts and lists."""

import pytest

from answerlens.second_opinion.scope import (
    about_the_past,
    clause_for,
    is_yes_no,
    question_clauses,
    requirement_scope,
    statement,
)

TIMELINE = "What is the dashboard's current primary database, and what did it use before?"
SESSION = ("For the session-store Redis: which version runs in production, who maintains it, and when was it "
           "last failed over?")


def test_questions_split_before_each_new_clause() -> None:
    assert question_clauses(TIMELINE) == ("What is the dashboard's current primary database", "what did it use before")
    assert question_clauses("Which lint rules did I enforce?") == ("Which lint rules did I enforce",)
    assert len(question_clauses(SESSION)) == 4


def test_a_requirement_maps_to_the_clause_it_shares_words_with() -> None:
    assert clause_for("Kafka topic search-indexer consumes",
                      "How many connections may search-indexer open, and which Kafka topic does it consume?") \
        == "which Kafka topic does it consume"
    assert clause_for("Something else entirely", TIMELINE) is None  # tied (no shared words): no guess


@pytest.mark.parametrize("text, past", [
    pytest.param("Previous primary database of the dashboard", True, id="previous"),
    pytest.param("Database the dashboard used to run on", True, id="used_to"),
    pytest.param("Pool limit until 2024", True, id="until"),
    pytest.param("Whether the user rotated the credentials two days ago", True, id="ago"),
    pytest.param("Which database was used", True, id="weak_past"),
    pytest.param("What was the current region", False, id="present_overrides_weak_past"),
    pytest.param("Current primary database", False, id="current"),
    pytest.param("Primary database of the dashboard", False, id="unmarked"),
])
def test_about_the_past(text: str, past: bool) -> None:
    assert about_the_past(text) is past


def test_the_requirement_speaks_first_then_its_clause() -> None:
    assert requirement_scope("Current primary database of the dashboard", TIMELINE).present
    assert requirement_scope("Previous primary database of the dashboard", TIMELINE).past
    # No time words of its own: the clause it came from decides.
    assert requirement_scope("Database the dashboard", "What database did the dashboard use?").past
    named = requirement_scope("Checkout incidents", "How many incidents did checkout have in 2024?")
    assert [item.text for item in named.times] == ["2024"] and not named.present


def test_a_tied_clause_lends_no_times_but_its_past_may_remove_flags() -> None:
    question = "Who owned it before 2023, and who owns it now?"
    assert clause_for("Owner", question) is None
    scope = requirement_scope("Owner", question)
    assert scope.times == ()  # 2023 belongs to one clause; which one this requirement is about is unknown
    assert scope.past  # but a past word anywhere in the question can only remove a stale-record flag


@pytest.mark.parametrize("requirement, yes_no, stated", [
    pytest.param("Whether the user rotated the credentials", True, "the user rotated the credentials", id="whether"),
    pytest.param("Whether or not ClickHouse is used?", True, "ClickHouse is used", id="whether_or_not"),
    pytest.param("Did the user rotate the credentials?", False, "Did the user rotate the credentials", id="direct"),
    pytest.param("Owner of the migrations", False, "Owner of the migrations", id="plain"),
    pytest.param("Whether", False, "Whether", id="nothing_left"),
])
def test_the_statement_a_requirement_asks_about(requirement: str, yes_no: bool, stated: str) -> None:
    assert is_yes_no(requirement) is yes_no
    assert statement(requirement) == stated
