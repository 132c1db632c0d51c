"""Times a question names, and the interval helpers."""

from datetime import datetime

import pytest

from answerlens.second_opinion.timeframes import TimeRelation, as_utc, contains, named_times, overlaps
from tests.second_opinion.builders import utc


@pytest.mark.parametrize("text, expected", [
    pytest.param("What happened in 2023?", [("2023", "at", utc(2023), utc(2024))], id="in_year"),
    pytest.param("on 5 March 2024", [("5 March 2024", "at", utc(2024, 3, 5), utc(2024, 3, 6))], id="day_month_year"),
    pytest.param("the 5th of June, 2023", [("5th of June, 2023", "at", utc(2023, 6, 5), utc(2023, 6, 6))],
                 id="ordinal_of"),
    pytest.param("until May 8, 2024?", [("May 8, 2024", "until", utc(2024, 5, 8), utc(2024, 5, 9))],
                 id="until_month_day_year"),
    pytest.param("before Sept. 2023", [("Sept. 2023", "before", utc(2023, 9), utc(2023, 10))], id="before_month_year"),
    pytest.param("since 2024-02-01", [("2024-02-01", "since", utc(2024, 2, 1), utc(2024, 2, 2))], id="since_iso"),
    pytest.param("as of 2024-03", [("2024-03", "at", utc(2024, 3), utc(2024, 4))], id="iso_month"),
    pytest.param("in Q4 2023", [("Q4 2023", "at", utc(2023, 10), utc(2024))], id="quarter"),
    pytest.param("after 2022", [("2022", "after", utc(2022), utc(2023))], id="after_year"),
    pytest.param("from 2021 to 2023", [("2021", "since", utc(2021), utc(2022)), ("2023", "until", utc(2023), utc(2024))],
                 id="range"),
    pytest.param("prior to March 2024", [("March 2024", "before", utc(2024, 3), utc(2024, 4))], id="prior_to"),
])
def test_named_times(text: str, expected: list[tuple[str, str, datetime, datetime]]) -> None:
    found = [(item.text, item.relation.value, item.start, item.end) for item in named_times(text)]
    assert found == expected


@pytest.mark.parametrize("text", [
    pytest.param("What changed last year?", id="relative"),
    pytest.param("Who won in March?", id="month_without_year"),
    pytest.param("What caused the outage on May 14?", id="day_without_year"),
    pytest.param("It has 2048 MB of memory.", id="bare_number"),
    pytest.param("PostgreSQL 15.6 with 20,000 messages", id="versions_and_counts"),
    pytest.param("on 2024-02-30", id="impossible_date"),
    pytest.param("im März 2024", id="german_month"),
    pytest.param("at 14:05 on Friday", id="time_and_weekday"),
])
def test_what_is_not_read_as_a_time(text: str) -> None:
    assert named_times(text) == ()


@pytest.mark.parametrize("relation, asked", [
    pytest.param(TimeRelation.AT, (utc(2023), utc(2024)), id="at"),
    pytest.param(TimeRelation.SINCE, (utc(2023), None), id="since"),
    pytest.param(TimeRelation.UNTIL, (None, utc(2024)), id="until_includes_the_period"),
    pytest.param(TimeRelation.BEFORE, (None, utc(2023)), id="before_excludes_it"),
    pytest.param(TimeRelation.AFTER, (utc(2024), None), id="after_starts_past_it"),
])
def test_asked_interval_per_relation(relation: TimeRelation, asked: tuple) -> None:  # type: ignore[type-arg]
    word = {"at": "in", "since": "since", "until": "until", "before": "before", "after": "after"}[relation.value]
    (item,) = named_times(f"{word} 2023")
    assert item.relation == relation and item.asked == asked


def test_labels_name_days_and_periods() -> None:
    assert [item.label() for item in named_times("on 5 March 2024, until May 8, 2024 and in Q4 2023")] == [
        "on 2024-03-05", "until 2024-05-08", "in Q4 2023"]


def test_interval_helpers() -> None:
    assert overlaps((utc(2021), utc(2024)), (utc(2023), utc(2024)))
    assert not overlaps((utc(2021), utc(2023)), (utc(2023), utc(2024)))  # half-open
    assert overlaps((None, None), (utc(2023), utc(2024)))
    assert contains((utc(2023), None), utc(2030)) and not contains((None, utc(2023)), utc(2023))
    assert as_utc(datetime(2024, 1, 1)) == utc(2024)
