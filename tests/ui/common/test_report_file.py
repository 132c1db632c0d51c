"""What the app's Download report buttons get: a name, a type, help, and the HTML rendered only when asked."""

from __future__ import annotations

import pytest

from answerlens.ui.common.report_file import LABEL, MIME, assessment_file, trial_file
from answerlens.verification.report import verify_report
from tests.report.builders import embedded, replayed, sample, trial


def test_the_assessment_file_is_named_by_its_evaluation_id_and_renders_on_call() -> None:
    bundle, assessment = replayed("draft_answer_unsupported_claim")
    item = sample("draft_answer_unsupported_claim")
    report = assessment_file(assessment, question=item.question, context=bundle.exact_context, answer=item.answer,
                             source=item.title)
    assert (LABEL, report.mime, MIME) == ("Download report", "text/html", "text/html")
    assert report.file_name == f"answerlens-report-{assessment.evaluation_id[:12]}.html"
    assert "answerlens verify" in report.help
    html = report.data()
    assert verify_report(html).ok
    assert embedded(html)["report"]["answer"] == item.answer
    assert embedded(html)["report"]["source"] == item.title


def test_an_edited_draft_box_is_left_out_rather_than_shown_as_the_draft() -> None:
    bundle, assessment = replayed("draft_answer_unsupported_claim")
    item = sample("draft_answer_unsupported_claim")
    html = assessment_file(assessment, question=item.question, context=bundle.exact_context,
                           answer="Something typed after the run.").data()
    assert embedded(html)["report"]["answer"] is None
    assert "its text was not available when this report was made" in html


@pytest.mark.parametrize(("source", "shown", "file_name"), [
    pytest.param("/home/me/runs/questions-20260101/result.json", "result.json", "answerlens-trial-result.html",
                 id="path"),
    pytest.param("runs/questions-20260101", "questions-20260101", "answerlens-trial-questions-20260101.html",
                 id="run_folder"),
    pytest.param("uploaded beam results.json", "uploaded beam results.json",
                 "answerlens-trial-uploaded-beam-results.html", id="upload"),
    pytest.param(None, None, "answerlens-trial-beam-answerability-execution.html", id="no_source"),
])
def test_the_trial_file_keeps_no_folders_of_this_machine(source: str | None, shown: str | None,
                                                         file_name: str) -> None:
    report = trial_file(trial("upstream"), source=source)
    assert report.file_name == file_name
    html = report.data()
    assert embedded(html)["report"]["source"] == shown
    assert "/home/me" not in html
