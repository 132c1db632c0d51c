"""Times a question names ("in 2023", "on 5 March 2024", "until May 8, 2024", "Q4 2023") and whether a record's
validity window or event time covers them (pure, UTC).

Deliberately conservative: only expressions that carry a year are read — ISO dates (``2024-03-05``), ISO months
(``2024-03``), day-month-year (``5 March 2024``, ``5th of March, 2024``), month-day-year (``March 5, 2024``),
month-year (``March 2024``), quarters (``Q4 2023``) and bare years after a time word (``in 2023``, ``since
2021``, ``until 2024``, ``as of 2024``; a bare number such as ``2048 MB`` is never a year). Relative times
("last year", "yesterday"), months or days without a year ("in March", "on May 14"), weekdays, times of day and
non-English month names are not read, so they never raise a flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import Enum

MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4, "may": 5,
    "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9, "september": 9,
    "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?P<year>(?:19|20|21)\d\d)(?![\d.,]*\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_I = re.IGNORECASE
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("day", re.compile(r"(?<![\w.])(?P<year>(?:19|20|21)\d\d)-(?P<month>\d\d?)-(?P<day>\d\d?)(?![\d])")),
    ("day", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}", _I)),
    ("day", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}", _I)),
    ("month", re.compile(rf"\b{_MONTH},?\s+{_YEAR}", _I)),
    ("month", re.compile(r"(?<![\w.])(?P<year>(?:19|20|21)\d\d)-(?P<month>\d\d)(?![-\d])")),
    ("quarter", re.compile(r"\bQ(?P<quarter>[1-4])\s*(?:of\s+)?(?P<year>(?:19|20|21)\d\d)\b", _I)),
    ("year", re.compile(
        r"\b(?:in|during|since|from|until|till|through|throughout|before|after|by|to|of)\s+(?:the\s+year\s+)?"
        r"(?P<year>(?:19|20|21)\d\d)(?![\d.,]*\d)", _I)),
)
"""Most specific first; a span read by one pattern is not read again by a later one."""
_RELATION_WORDS = re.compile(
    r"\b(?P<word>since|from|starting|until|till|through|by|to|before|prior\s+to|after)\s+(?:the\s+year\s+)?"
    r"(?:(?:on|in|of)\s+)?$", _I)


class TimeRelation(str, Enum):
    """How the question relates to the period it names."""

    AT = "at"
    SINCE = "since"
    UNTIL = "until"
    BEFORE = "before"
    AFTER = "after"


_RELATIONS = {"since": TimeRelation.SINCE, "from": TimeRelation.SINCE, "starting": TimeRelation.SINCE,
              "until": TimeRelation.UNTIL, "till": TimeRelation.UNTIL, "through": TimeRelation.UNTIL,
              "by": TimeRelation.UNTIL, "to": TimeRelation.UNTIL, "before": TimeRelation.BEFORE,
              "prior to": TimeRelation.BEFORE, "after": TimeRelation.AFTER}


@dataclass(frozen=True)
class NamedTime:
    """One time expression: the period it names (``[start, end)``, UTC) and how it is asked about."""

    text: str
    start: datetime
    end: datetime
    relation: TimeRelation = TimeRelation.AT

    @property
    def asked(self) -> tuple[datetime | None, datetime | None]:
        """The interval the question asks about (None: unbounded). ``until`` includes the named period and
        ``since`` starts with it; ``before`` ends where it starts and ``after`` starts where it ends."""
        match self.relation:
            case TimeRelation.SINCE:
                return self.start, None
            case TimeRelation.UNTIL:
                return None, self.end
            case TimeRelation.BEFORE:
                return None, self.start
            case TimeRelation.AFTER:
                return self.end, None
        return self.start, self.end

    def label(self) -> str:
        """How a flag's reason names it: ``in 2023``, ``until 2024-05-08`` …"""
        one_day = self.end - self.start <= timedelta(days=1)
        word = self.relation.value if self.relation != TimeRelation.AT else "on" if one_day else "in"
        return f"{word} {self.start:%Y-%m-%d}" if one_day else f"{word} {self.text}"


def named_times(text: str) -> tuple[NamedTime, ...]:
    """Every time expression with a year in the text, in reading order (see the module docstring)."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, NamedTime]] = []
    for kind, pattern in PATTERNS:
        for match in pattern.finditer(text):
            span = match.span("year") if kind == "year" else match.span()
            if any(start < span[1] and span[0] < end for start, end in taken):
                continue
            period = _period(kind, match)
            if period is None:
                continue
            relation = _relation(text[: match.start()] if kind != "year" else match.group())
            found.append((span[0], NamedTime(text[span[0]:span[1]], *period, relation)))
            taken.append(span)
    return tuple(item for _, item in sorted(found, key=lambda pair: pair[0]))


def _period(kind: str, match: re.Match[str]) -> tuple[datetime, datetime] | None:
    year = int(match.group("year"))
    try:
        if kind == "year":
            return _utc(year, 1, 1), _utc(year + 1, 1, 1)
        if kind == "quarter":
            first = 3 * (int(match.group("quarter")) - 1) + 1
            return _utc(year, first, 1), _next_month(year, first + 2)
        month = _month(match.group("month"))
        if kind == "month":
            return _utc(year, month, 1), _next_month(year, month)
        day = _utc(year, month, int(match.group("day")))
        return day, day + timedelta(days=1)
    except ValueError:  # 2024-02-30, month 13: not a date
        return None


def _month(text: str) -> int:
    return int(text) if text.isdigit() else MONTHS[text.casefold()]


def _utc(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=timezone.utc)


def _next_month(year: int, month: int) -> datetime:
    return _utc(year + 1, 1, 1) if month == 12 else _utc(year, month + 1, 1)


def _relation(before: str) -> TimeRelation:
    """The relation word right before the expression (for bare years, the word that introduced it)."""
    if before and before[-1].isdigit():  # a bare-year match carries its own word: "until 2024"
        before = before.rsplit(None, 1)[0] + " "
    match = _RELATION_WORDS.search(before)
    if match is None:
        return TimeRelation.AT
    return _RELATIONS[" ".join(match.group("word").casefold().split())]


def as_utc(value: datetime) -> datetime:
    """Aware times as UTC; a naive time is taken to be UTC (as the simple bundle format does)."""
    return value.replace(tzinfo=timezone.utc) if value.utcoffset() is None else value.astimezone(timezone.utc)


def overlaps(first: tuple[datetime | None, datetime | None], second: tuple[datetime | None, datetime | None]) -> bool:
    """Whether two half-open intervals share a moment (None: unbounded on that side)."""
    (low_a, high_a), (low_b, high_b) = first, second
    return (high_b is None or low_a is None or low_a < high_b) and (high_a is None or low_b is None or low_b < high_a)


def contains(interval: tuple[datetime | None, datetime | None], moment: datetime) -> bool:
    low, high = interval
    return (low is None or low <= moment) and (high is None or moment < high)
