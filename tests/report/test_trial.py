"""The trial report: configuration without secrets, the Trials page's numbers and gates, four SVG charts, the
error samples and one row per question."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from answerlens.html.trial_rows import questions, samples, stats
from answerlens.report.trial import HIDDEN, _flat
from answerlens.trials.reader import read_trial
from answerlens.verification.report import trial_report, verify_report
from tests.report.builders import TRIALS, trial, trial_report_of, unfinished_run
from tests.report.inert import problems, visible_text

ALL = [pytest.param(name, id=name) for name in TRIALS]


@pytest.mark.parametrize("name", ALL)
def test_the_page_shows_numbers_gates_charts_and_questions(name: str) -> None:
    result = trial(name)
    html = trial_report_of(name)
    assert problems(html) == []
    for stat in stats(result):
        assert f'<div class="rp-card" data-number="{stat.label}"><div class="rp-value">{stat.value}</div>' in html
    assert result.quality_gates is not None
    gates = dict(re.findall(r'data-gate="([a-z_]+)" data-passed="(true|false)"', html))
    assert gates == {gate: str(outcome.passed).lower() for gate, outcome in result.quality_gates.results.items()}
    assert f'data-gates-passed="{str(result.quality_gates.passed).lower()}"' in html
    charts = re.findall(r'<svg class="rp-chart" data-chart="(\w+)"', html)
    assert charts[:2] == ["actions", "grid"] and len(charts) >= 3
    rows = questions(result, samples(result))
    assert len(re.findall(r"<td data-question-id=", html)) == len(rows)
    assert "The embedded result verifies" in visible_text(html)


def test_our_configuration_is_shown_and_holds_no_key() -> None:
    result = trial("questions")
    html = trial_report_of("questions")
    assert result.configuration is not None
    for key, value in result.configuration.public_dump().items():
        if value is not None:
            assert f'data-config="{key}">{value}<' in html
    assert f'data-config="configuration_sha256">{result.configuration_sha256}<' in html
    assert "api_key" not in html.split('<script type="application/json"')[0]


def test_upstreams_blocks_are_shown_with_secrets_hidden_and_long_listings_summarised() -> None:
    html = trial_report_of("upstream")
    assert f'data-config="model.api_key_placeholder">{HIDDEN}<' in html
    assert 'data-config="model.model">gpt-oss:120b-cloud<' in html
    assert re.search(r'data-config="source\.files\.artifact_sha256\.conversation_0">\d+ entries \(kept in the embedded data\)<', html)
    assert "The summary recomputed from the samples matches the published one" in visible_text(html)


@pytest.mark.parametrize(("name", "shown"), [
    pytest.param("api_key", False, id="api_key"), pytest.param("token", False, id="token"),
    pytest.param("client-secret", False, id="secret"), pytest.param("Authorization", False, id="authorization"),
    pytest.param("advertised_context_tokens", True, id="tokens_counted"),
    pytest.param("keyword_count", True, id="keyword"),
])
def test_a_field_named_like_a_secret_is_not_shown(name: str, shown: bool) -> None:
    (row,) = list(_flat({name: "value"}, ""))
    assert (row[1] == "value") is shown and (row[1] == HIDDEN) is not shown


def test_error_samples_and_draft_groups_are_listed() -> None:
    html = trial_report_of("drafts")
    result = trial("drafts")
    assert result.summary.errors
    assert f"Error samples ({len(result.summary.errors)})" in html
    assert ">correct draft<" in html and ">incorrect draft<" in html


def test_question_texts_are_shown_when_the_result_has_them() -> None:
    result = trial("questions")
    html = trial_report_of("questions")
    assert result.questions[0].question.replace("'", "&#x27;") in html
    assert "<th>text</th>" in html and "<th>text</th>" not in trial_report_of("upstream")


def test_an_unfinished_run_folder_is_reported_with_provisional_gates(tmp_path: Path) -> None:
    result = read_trial(unfinished_run(tmp_path, samples=30))
    html = trial_report(result, source="unfinished")
    assert verify_report(html).ok
    assert "unfinished answerlens run (no result.json)" in html
    assert "provisional: default gates over the samples saved so far" in html
    assert len(re.findall(r'<rect [^>]*data-outcome="', html.split('data-chart="grid"')[1].split("</svg>")[0])) == 30
