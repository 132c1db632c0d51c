"""The Trials page's figures (pure plotly, built from view-model rows)."""

from __future__ import annotations

from answerlens.html import palette
from answerlens.html import trial_rows as trial_results
from answerlens.second_opinion.counts import VERIFIER_DISAGREES, OpinionCounts
from answerlens.trials.log import UpstreamSample
from answerlens.trials.result import TrialResult
from answerlens.ui.trials import charts as trial_charts
from answerlens.ui.trials import opinions


def test_charts_of_the_upstream_result(upstream: TrialResult) -> None:
    refs = trial_results.samples(upstream)
    rows = trial_results.questions(upstream, refs)
    bars = trial_charts.actions_per_label(trial_results.outcome_groups(refs))
    assert bars.layout.barmode == "stack"
    assert sum(sum(trace.y) for trace in bars.data) == 120
    grid = trial_charts.outcome_grid(rows, refs)
    keys = {point[0] for trace in grid.data for point in trace.customdata}
    assert keys == {ref.key for ref in refs}
    assert {trace.name for trace in grid.data} <= set(trial_charts.OUTCOME_NAMES.values())
    cites = trial_charts.citation_errors(rows)
    assert list(cites.data[0].y) == ["100K_0_q2_contradiction_resolution", "100K_1_q2_contradiction_resolution"]
    assert cites.layout.title.subtitle.text == "38 of 40 questions have none"
    agreement = trial_charts.requirement_agreement(rows)
    assert sum(sum(trace.x) for trace in agreement.data) == sum(row.requirements for row in rows)


def test_errors_have_their_own_colour_and_are_never_drawn_as_an_action(with_errors: TrialResult) -> None:
    refs = trial_results.samples(with_errors)
    grid = trial_charts.outcome_grid(trial_results.questions(with_errors, refs), refs)
    (errors,) = [trace for trace in grid.data if trace.name == "error (no verdict)"]
    assert errors.marker.color == palette.OUTCOMES["error"] and len(errors.x) == 2
    bars = trial_charts.actions_per_label(trial_results.outcome_groups(refs))
    assert "error (no verdict)" in {trace.name for trace in bars.data}


def test_unsafe_answers_the_second_opinion_would_have_caught(opinionated: list[UpstreamSample]) -> None:
    """Built from real assessments of the shipped samples and their real second opinions."""
    summary = opinions.summarize(opinions.triples(opinionated), opinions.STORED)
    assert summary is not None
    figure = trial_charts.second_opinion(summary.counts)
    alarms, caught = figure.data  # caught drawn last: on top of its row
    assert caught.name == "unsafe answers caught (of 2)" and alarms.name == "correct answers questioned (of 2)"
    assert list(caught.y) == ["any reason", "speech_act_mismatch", "superseded_for_present"]
    assert list(caught.x) == [2, 1, 1] and list(alarms.x) == [0, 0, 0]
    assert caught.marker.color == palette.OUTCOMES["surface_conflict"]
    assert alarms.marker.color == palette.OUTCOMES["abstain"]
    assert figure.layout.title.text == "Unsafe answers caught: 2 of 2" and figure.layout.title.subtitle.text
    assert list(caught.text) == ["2", "1", "1"] and list(alarms.text) == ["", "", ""]  # no "0" labels


def test_verifier_disagreement_is_named_in_words() -> None:
    counts = OpinionCounts(unsafe_answers=3, unsafe_caught=1, caught_by={VERIFIER_DISAGREES: 1}, correct_answers=1,
                           false_alarms=1, false_alarms_by={"negated_support": 1})
    figure = trial_charts.second_opinion(counts)
    alarms, caught = figure.data
    assert list(caught.y) == ["any reason", "negated_support", "verifier disagrees"]
    assert list(caught.x) == [1, 0, 1] and list(alarms.x) == [1, 1, 0]


def test_category_labels_show_invisible_characters_as_codes() -> None:
    import plotly.graph_objects as go

    figure = go.Figure(go.Bar(x=[1, 2], y=["q\u202e1", "q2"], customdata=[["q\u202e1"], ["q2"]]))
    figure.update_yaxes(categoryarray=["q2", "q\u202e1"])
    trial_charts.plain_labels(figure)
    assert list(figure.data[0].y) == ["q⟨U+202E⟩1", "q2"] and list(figure.layout.yaxis.categoryarray)[1] == "q⟨U+202E⟩1"
    assert figure.data[0].customdata[0][0] == "q\u202e1"  # the key a click hands back stays the raw one
