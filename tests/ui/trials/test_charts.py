"""The Trials page's figures (pure plotly, built from view-model rows)."""

from __future__ import annotations

from answerlens.trials.result import TrialResult
from answerlens.ui.trials import charts as trial_charts
from answerlens.ui.trials import viewmodel as trial_results


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
    assert "38 of 40 questions have none" in cites.layout.title.text
    agreement = trial_charts.requirement_agreement(rows)
    assert sum(sum(trace.x) for trace in agreement.data) == sum(row.requirements for row in rows)


def test_errors_have_their_own_colour_and_are_never_drawn_as_an_action(with_errors: TrialResult) -> None:
    refs = trial_results.samples(with_errors)
    grid = trial_charts.outcome_grid(trial_results.questions(with_errors, refs), refs)
    (errors,) = [trace for trace in grid.data if trace.name == "error (no verdict)"]
    assert errors.marker.color == trial_charts.OUTCOME_COLOURS["error"] and len(errors.x) == 2
    bars = trial_charts.actions_per_label(trial_results.outcome_groups(refs))
    assert "error (no verdict)" in {trace.name for trace in bars.data}


def test_category_labels_show_invisible_characters_as_codes() -> None:
    import plotly.graph_objects as go

    figure = go.Figure(go.Bar(x=[1, 2], y=["q\u202e1", "q2"], customdata=[["q\u202e1"], ["q2"]]))
    figure.update_yaxes(categoryarray=["q2", "q\u202e1"])
    trial_charts.plain_labels(figure)
    assert list(figure.data[0].y) == ["q⟨U+202E⟩1", "q2"] and list(figure.layout.yaxis.categoryarray)[1] == "q⟨U+202E⟩1"
    assert figure.data[0].customdata[0][0] == "q\u202e1"  # the key a click hands back stays the raw one
