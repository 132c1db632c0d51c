"""The one rendering of a report's embedded data into its page (pure: data and what verification found in it,
in; the page, out). ``answerlens.verification.report`` makes reports with it and re-runs it to check one, so it
depends on its arguments alone (no clock, no environment)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from answerlens.errors import ReportError, describe_validation
from answerlens.report import assessment as assessment_page
from answerlens.report import sweep as sweep_page
from answerlens.report import trial as trial_page
from answerlens.report.embedded import AssessmentData, SweepData, TrialData, data_block, envelope_of
from answerlens.report.page import document
from answerlens.sweeps.reader import Recorded
from answerlens.sweeps.result import SweepResult
from answerlens.trials.result import TrialResult


@dataclass(frozen=True)
class Findings:
    """What verification found in a report's data: its problems, and the recomputed result a trial or sweep page
    shows (never the recorded one)."""

    problems: tuple[str, ...]
    trial: TrialResult | None = None
    sweep: tuple[Recorded, SweepResult] | None = None
    caveats: tuple[str, ...] = ()
    """What the checks cannot prove for this data (replays forced or unbound, provenance no hash covers, an
    unfinished run, references taken as recorded): the page says it next to its verdict."""


def render_page(raw: dict[str, Any], findings: Findings) -> str:
    """The page for embedded data (as JSON) and its findings, with the data itself embedded; ``ReportError`` when
    the data cannot be shown at all."""
    envelope = envelope_of(raw)
    report = envelope.report
    problems: Sequence[str] = findings.problems
    if isinstance(report, SweepData):
        if findings.sweep is None:
            raise ReportError(f"the embedded sweep cannot be shown: {problems[0] if problems else 'unread'}")
        recorded, result = findings.sweep
        return document(title=sweep_page.title(result, report.source), kind="sweep",
                        sheets=sweep_page.sheets(recorded, result, report.source, problems, envelope.generator,
                                                 findings.caveats),
                        data=data_block(raw))
    if isinstance(report, TrialData):
        if findings.trial is None:
            raise ReportError(f"the embedded trial result cannot be shown: {problems[0] if problems else 'unread'}")
        sheets = trial_page.sheets(findings.trial, report.source, problems, envelope.generator, findings.caveats)
        return document(title=trial_page.title(findings.trial, report.source), kind="trial", sheets=sheets,
                        data=data_block(raw))
    assert isinstance(report, AssessmentData)
    try:
        shown = assessment_page.Shown.of(report)
    except ValidationError as exc:
        raise ReportError(f"the embedded assessment cannot be shown: {describe_validation(exc, 'document')}") \
            from None
    css = assessment_page.focus_css(len(shown.assessment.requirements))
    return document(title=assessment_page.title(shown), kind="assessment",
                    sheets=assessment_page.sheets(shown, problems, envelope.generator, findings.caveats),
                    data=data_block(raw), css=css)
