"""The Inspect page's view-model on real runs: question line, caption, audit facts, errors, downloads, history."""

from __future__ import annotations

import re

import pytest

from answerlens.assessment import AnswerabilityAssessment
from answerlens.html.provenance import source_label
from answerlens.recording import ReplyOrigin
from answerlens.ui.common import history
from answerlens.ui.inspect import viewmodel
from tests.ui.conftest import recorded, sample

HOSTILE = "<script>alert(1)</script>\u202e"


def entry(stem: str, *, question: str | None = None, source: str | None = None, state: dict | None = None,
          assessment: AnswerabilityAssessment | None = None) -> history.Entry:
    found = sample(stem)
    a = assessment or recorded(stem)
    label, note = source_label(a)
    return history.add({} if state is None else state, source=source or found.title,
                       question=question or found.question, assessment=a, context=found.load().exact_context,
                       label=label, note=note, seconds=0.25)


@pytest.mark.parametrize(
    "stem, draft",
    [pytest.param("draft_answer_unsupported_claim", True, id="with_draft"),
     pytest.param("speech_act_eslint", False, id="question_only")],
)
def test_asked_line_names_run_bundle_draft_and_question(stem: str, draft: bool) -> None:
    html = viewmodel.asked_html(entry(stem))
    assert "Run #1 · " in html and "0.25 s" in html
    assert ("with a draft answer" in html) == draft
    assert "<strong>Question:</strong>" in html


def test_asked_line_escapes_question_and_bundle_name() -> None:
    html = viewmodel.asked_html(entry("speech_act_eslint", question=HOSTILE, source=HOSTILE))
    assert "<script>" not in html and "\u202e" not in html and html.count("&lt;script&gt;") == 2


def test_focus_offers_all_then_each_requirement() -> None:
    a = recorded("prme_reader_citations")
    options = viewmodel.focus_options(a)
    assert options == [None, 0, 1, 2, 3]
    assert [viewmodel.focus_label(o) for o in options] == ["all", "1", "2", "3", "4"]  # people count from 1


def test_context_caption_counts_and_hash() -> None:
    run = entry("prme_reader_citations")
    html = viewmodel.context_caption_html(run, lines=12)
    assert f"{len(run.context):,} characters · 12 lines" in html
    assert f"context_sha256 {run.assessment.context_sha256[:16]}…" in html


def test_citation_errors_are_listed_and_escaped() -> None:
    a = recorded("compact_citation_errors")
    html = viewmodel.citation_errors_html(a.citation_errors)
    assert html is not None and f"Citation errors ({len(a.citation_errors)})" in html
    assert len(re.findall(r"<li><code>", html)) == len(a.citation_errors) == 6
    assert viewmodel.citation_errors_html(()) is None
    hostile = viewmodel.citation_errors_html((HOSTILE,))
    assert hostile is not None and "<script>" not in hostile and "U+202E" in hostile


def test_reasoning_is_folded_and_escaped() -> None:
    html = viewmodel.reasoning_html(HOSTILE)
    assert "<summary>Model reasoning</summary>" in html and "<script>" not in html and "U+202E" in html


def test_audit_facts_of_a_recording() -> None:
    a = recorded("speech_act_eslint")
    facts = dict(viewmodel.audit_facts(a, "recorded response (hand-written)"))
    assert facts["source"] == "recorded response (hand-written)"
    assert (facts["provider"], facts["model"], facts["model_called"]) == (a.provider, a.model, False), "no model wrote it"
    assert facts["prompt_version"] == a.prompt_version
    assert facts["recording"] == "hand-written recorded reply (not produced by a model), from speech_act_eslint.json"
    assert "base_url" not in facts


def test_audit_facts_of_a_live_call_with_its_costs() -> None:
    a = recorded("answerable_billing_database")
    assert a.provider_metadata is not None
    meta = a.provider_metadata.model_copy(update={
        "origin": ReplyOrigin.LIVE, "recording": None, "base_url": "http://127.0.0.1:11434", "latency_ms": 1234.4,
        "attempts": 2, "prompt_tokens": 900, "completion_tokens": 120, "finish_reason": "stop"})
    facts = viewmodel.audit_facts(a.model_copy(update={"provider_metadata": meta}), "live model: ollama m")
    assert facts[5:] == [("base_url", "http://127.0.0.1:11434"), ("latency", "1,234 ms, 2 attempts"),
                         ("tokens", "prompt 900, completion 120"), ("finish_reason", "stop")]


def test_audit_facts_without_a_model_call() -> None:
    facts = dict(viewmodel.audit_facts(recorded("empty_bundle"), "no model call (no citable evidence)"))
    assert facts["model_called"] is False and "latency" not in facts


@pytest.mark.parametrize(
    "stem, labels",
    [pytest.param("conflicting_deploy_freeze", ["Assessment", "Requirements", "Raw reply", "Recording"],
                  id="model_called"),
     pytest.param("empty_bundle", ["Assessment", "Requirements"], id="no_call_no_raw_reply")],
)
def test_downloads(stem: str, labels: list[str]) -> None:
    files = viewmodel.downloads(recorded(stem), sample(stem).question, sample(stem).answer)
    assert [label for label, _ in files] == labels
    assert [d.mime for _, d in files][:2] == ["application/json", "text/csv"]


@pytest.mark.parametrize("numbers, label", [pytest.param([1], "History (1 run)", id="one"),
                                            pytest.param([2, 1], "History (2 runs)", id="two"),
                                            pytest.param([4, 5, 6], "History (3 runs: #4–#6)", id="oldest_dropped")])
def test_history_label(numbers: list[int], label: str) -> None:
    assert viewmodel.history_label(numbers) == label


def test_history_titles_newest_first() -> None:
    state: dict = {}
    entry("speech_act_eslint", state=state)
    entry("conflicting_deploy_freeze", state=state)
    titles = viewmodel.history_titles(history.entries(state))
    assert list(titles) == [2, 1] and titles[2].startswith("#2 ") and "conflicting" in titles[2]


def test_history_frame_one_row_per_run_newest_first() -> None:
    state: dict = {}
    first = entry("speech_act_eslint", state=state)
    second = entry("conflicting_deploy_freeze", state=state, question="Which freeze date holds?")
    frame = viewmodel.history_frame(history.entries(state))
    assert tuple(frame.columns) == viewmodel.HISTORY_COLUMNS
    assert frame["run"].tolist() == [2, 1] and frame["verdict"].tolist() == ["conflicting", "insufficient"]
    assert frame["action"].tolist() == ["surface_conflict", "abstain"]
    assert frame["question"].tolist()[0] == "Which freeze date holds?"
    assert frame["bundle"].tolist() == [second.source, first.source]
    assert frame["source"].tolist() == [second.label, first.label]
    assert frame["requirements"].tolist() == [len(second.assessment.requirements), len(first.assessment.requirements)]
    assert frame["evaluation_id"].tolist() == [second.assessment.evaluation_id, first.assessment.evaluation_id]
    assert frame["time"].tolist()[1].timestamp() == pytest.approx(first.created)
    assert frame.sort_values("run")["run"].tolist() == [1, 2]


def test_history_frame_of_no_runs() -> None:
    frame = viewmodel.history_frame([])
    assert frame.empty and tuple(frame.columns) == viewmodel.HISTORY_COLUMNS


def test_inputs_name_what_changed() -> None:
    then = viewmodel.inputs_of("Which cache?", "", "ctx", "replay")
    assert viewmodel.changed(then, viewmodel.inputs_of("  Which cache?\n", None, "ctx", "replay")) == ()
    now = viewmodel.inputs_of("Which queue?", "A draft.", "other", "ollama")
    assert viewmodel.changed(then, now) == ("question", "draft", "bundle", "endpoint")
    assert viewmodel.changed(then, viewmodel.inputs_of(None, None, None, "replay")) == ("question", "bundle")


def test_the_stale_banner_names_the_changes_and_escapes() -> None:
    html = viewmodel.stale_html(("question", HOSTILE))
    assert "Inputs changed since this result — run again." in html and "Changed: question, " in html
    assert "<script>" not in html and 'data-stale-banner="true"' in html


def test_an_unknown_link_says_where_it_looked() -> None:
    html = viewmodel.unknown_run_html("ab" * 32, "/data/runs.sqlite3")
    assert "No stored run has this link" in html and "?run=" + "ab" * 32 in html and "/data/runs.sqlite3" in html


@pytest.mark.parametrize(
    "stem, index, expected",
    [
        pytest.param("prme_reader_citations", 3, "Requirement 4 has no accepted citation — status downgraded to "
                     "unsupported because the model claimed it supported, which needs 1 valid citation, and it "
                     "cited m99 (not a citable reference in this context).", id="downgraded_supported"),
        pytest.param("prme_reader_citations", 2, None, id="downgraded_conflict_keeps_its_citation"),
        pytest.param("prme_reader_citations", 0, None, id="accepted"),
    ],
)
def test_why_a_requirement_has_no_accepted_citation(stem: str, index: int, expected: str | None) -> None:
    a = recorded(stem)
    assert viewmodel.no_citation_note(index, a.requirements[index]) == expected


def test_a_requirement_the_model_left_unsupported_says_so() -> None:
    a = recorded("speech_act_eslint")
    notes = [viewmodel.no_citation_note(i, r) for i, r in enumerate(a.requirements)]
    unsupported = [n for n in notes if n is not None]
    assert unsupported and all("the model marked it unsupported" in n for n in unsupported)


def test_the_recording_download_is_bound_to_the_runs_inputs() -> None:
    import json

    from answerlens.recording import RecordingMatch, recording_from_text

    found = sample("speech_act_eslint")
    files = dict(viewmodel.downloads(recorded("speech_act_eslint"), found.question, found.answer))
    recording = recording_from_text(files["Recording"].data)
    assert recording.ref.match == RecordingMatch.BOUND and recording.restorable == (found.question.strip(), None)
    assert json.loads(files["Recording"].data)["binding"]["query_sha256"] == recorded("speech_act_eslint").query_sha256
    assert "Recording" not in dict(viewmodel.downloads(recorded("speech_act_eslint"), "another question?"))


def test_the_inputs_a_run_answered_come_from_its_own_hashes() -> None:
    found = sample("draft_answer_unsupported_claim")
    a = recorded("draft_answer_unsupported_claim")
    answered = viewmodel.inputs_answered(a, "replay")
    same = viewmodel.inputs_of(found.question, found.answer, found.load().exact_context and a.context_sha256, "replay")
    assert viewmodel.changed(answered, same) == ()
    assert viewmodel.changed(answered, viewmodel.inputs_of(found.question, "", a.context_sha256, "replay")) == (
        "draft",)
