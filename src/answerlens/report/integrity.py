"""Verifying a report file: its embedded data is checked field by field (``report.checks``), then rendered
again and compared with the file byte for byte, so an edit to the data or to the visible page is caught and
located."""

from __future__ import annotations

from dataclasses import dataclass

from answerlens.errors import ReportError
from answerlens.records import MemoryBundle
from answerlens.report.checks import assessment_problems, report_notes
from answerlens.report.document import problems_of, rendered
from answerlens.report.embedded import (
    CLOSE,
    FORMAT_VERSION,
    OPEN,
    REPORT_FORMAT,
    AssessmentData,
    envelope_of,
    extract,
    generator,
)

EXCERPT = 40
"""Characters shown on each side of the first difference."""


@dataclass(frozen=True)
class ReportCheck:
    """What ``verify_report`` found: the report's kind and every problem (none: the report is intact)."""

    kind: str
    problems: tuple[str, ...]
    notes: tuple[str, ...] = ()
    """Replay marks (forced or unbound) of the assessments in it."""
    caveats: tuple[str, ...] = ()
    """What the checks could not cover: provenance no hash covers, references taken as recorded."""

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_report(html: str, *, bundle: MemoryBundle | None = None) -> ReportCheck:
    """Check a report file's text. ``bundle`` (the one assessed) adds the checks ``verify --bundle`` makes.

    Raises ``ReportError`` when the text is not a report at all (no embedded data, or data that is not a report
    envelope); an envelope whose fields were edited out of shape is a problem, like any other edit.
    """
    raw = extract(html)
    try:
        envelope = envelope_of(raw)
    except ReportError as exc:
        if raw.get("format") != REPORT_FORMAT:
            raise
        # Recognisably a report whose data was edited out of shape: not verified, as any other edit is.
        report = raw.get("report")
        kind = report.get("kind") if isinstance(report, dict) else None
        return ReportCheck(kind if kind in ("assessment", "trial") else "unknown", (f"data: {exc}",))
    kind = envelope.report.kind
    if bundle is not None and kind != "assessment":
        raise ReportError("a bundle applies to an assessment's report, not to a trial's")
    if envelope.format_version != FORMAT_VERSION or envelope.generator != generator():
        problems = [f"generator: made by {envelope.generator} (report format {envelope.format_version}); this is "
                    f"{generator()} (format {FORMAT_VERSION}), which cannot re-render that page to compare it: "
                    "verify it with the version that made it", *problems_of(raw)]
        return ReportCheck(kind, tuple(problems))
    try:
        page, found = rendered(raw)
    except ReportError as exc:
        return ReportCheck(kind, (*problems_of(raw), f"data: {exc}"))
    problems = list(found)
    if bundle is not None and isinstance(envelope.report, AssessmentData):
        problems += [problem for problem in assessment_problems(envelope.report, bundle=bundle)
                     if problem not in problems]
    if page != html:
        problems.append(page_difference(html, page))
    return ReportCheck(kind, tuple(problems), *report_notes(envelope.report, bundle=bundle))


def page_difference(found: str, expected: str) -> str:
    """Where a file first differs from the page its data renders to: line, column, section, both texts."""
    index = _first_index(found, expected)
    line = found.count("\n", 0, index) + 1
    column = index - found.rfind("\n", 0, index)
    return (f"page: differs from what its embedded data renders to at line {line}, column {column} "
            f"({_place(found, expected, index)}): found {_excerpt(found, index)!r}, "
            f"expected {_excerpt(expected, index)!r}")


def _first_index(left: str, right: str) -> int:
    """The first index where two texts differ, by halving (fast on large reports)."""
    low, high = 0, min(len(left), len(right))
    while low < high:
        middle = (low + high + 1) // 2
        if left[low:middle] == right[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _place(found: str, page: str, index: int) -> str:
    end = page.rfind("</html>")
    if end >= 0 and index >= end + len("</html>"):
        return "after the document"
    if index <= found.lower().find("<!doctype"):
        return "before the document"
    data = page.find(OPEN)
    if 0 <= data <= index:
        end = page.find(CLOSE, data)
        return "in the embedded data block" if end < 0 or index < end + len(CLOSE) else \
            "after the embedded data block, at the end of the page"
    if index < page.find("<main"):
        return "in the page head"
    start = page.rfind('<section id="', 0, index)
    if start < 0:
        return "in the report header"
    anchor = page[start + len('<section id="') : page.find('"', start + len('<section id="'))]
    return f"in section '{anchor}'"


def _excerpt(text: str, index: int) -> str:
    return text[max(0, index - EXCERPT) : index + EXCERPT]
