"""What the app's "Download report" buttons hand to ``st.download_button`` (pure): the file name, the type, a
help line, and the HTML as a callable, so a page renders it only when the button is pressed."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from answerlens.assessment import AnswerabilityAssessment
from answerlens.second_opinion.models import SecondOpinion
from answerlens.trials.result import TrialResult
from answerlens.verification.report import assessed_answer, assessment_report, trial_report

LABEL = "Download report"
MIME = "text/html"


@dataclass(frozen=True)
class ReportFile:
    data: Callable[[], str]
    """Renders the report when called (Streamlit calls it on click)."""
    file_name: str
    help: str
    mime: str = MIME


def assessment_file(assessment: AnswerabilityAssessment, *, question: str, context: str, answer: str | None = None,
                    opinion: SecondOpinion | None = None, source: str | None = None) -> ReportFile:
    """The report of the assessment on screen. ``answer`` is the draft box's text: kept only when it is the draft
    this assessment checked (the box may have been edited since)."""
    render = partial(assessment_report, assessment, question=question, context=context,
                     answer=assessed_answer(assessment, answer), opinion=opinion, source=source)
    return ReportFile(render, f"answerlens-report-{assessment.evaluation_id[:12]}.html",
                      "one HTML file to share: verdict, requirements, highlighted context, audit; opens offline in "
                      "any browser; check it with `answerlens verify`")


def trial_file(result: TrialResult, *, source: str | None = None) -> ReportFile:
    """The report of the trial result on screen; ``source`` (a path or "uploaded NAME") is shown by its last part
    only, so a shared file does not carry the folders of the machine it was made on."""
    name = _last_part(source) if source else None
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", (name or result.kind.value).removesuffix(".json")).strip("-.")[:60]
    return ReportFile(partial(trial_report, result, source=name), f"answerlens-trial-{stem or 'result'}.html",
                      "one HTML file to share: configuration, summary, gates, charts and questions; opens offline "
                      "in any browser; check it with `answerlens verify`")


def _last_part(path: str) -> str:
    return path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or path
