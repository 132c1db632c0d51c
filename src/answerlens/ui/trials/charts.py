"""Plotly figures for the Trials page, built from ``trial_results`` rows (no streamlit here).

Colours are per outcome and shared by every chart; ``error`` has its own colour and is never drawn as an action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go  # type: ignore[import-untyped]

from answerlens.html import palette
from answerlens.html.escape import plain
from answerlens.html.trial_rows import ACTIONS, OUTCOME_NAMES, QuestionRow, SampleRef
from answerlens.second_opinion.counts import VERIFIER_DISAGREES, OpinionCounts

ROW_PX = 22
REASON_NAMES = {VERIFIER_DISAGREES: "verifier disagrees"}
"""Reasons shown as words where the code would read badly; flag codes are shown as they are (the docs use them)."""


LEGEND_PX = 56


def _layout(figure: go.Figure, *, title: str, height: int, axis_px: int = 0, subtitle: str | None = None) -> go.Figure:
    """A short title on top (it must fit a phone's width) with any detail in a smaller subtitle under it; the legend
    pinned to the figure's bottom edge, below any x-axis title (``axis_px``)."""
    heading: dict[str, object] = {"text": title, "x": 0, "font": {"size": 15}}
    if subtitle is not None:
        heading["subtitle"] = {"text": subtitle, "font": {"size": 12}}
    figure.update_layout(title=heading, height=height + LEGEND_PX + axis_px,
                         margin={"l": 10, "r": 10, "t": 60, "b": LEGEND_PX + axis_px},
                         legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
                         plot_bgcolor=palette.TRANSPARENT)
    return plain_labels(figure)


def plain_labels(figure: go.Figure) -> go.Figure:
    """Category labels from a dataset (question ids …) with invisible and reordering characters shown as their
    codes, as every other text on the page (``markup.plain``); the traces' ``customdata`` keeps the raw keys."""
    for trace in figure.data:
        for axis in ("x", "y"):
            values = getattr(trace, axis, None)
            if values is not None and any(isinstance(value, str) for value in values):
                trace.update({axis: [plain(value) if isinstance(value, str) else value for value in values]})
    for axis in ("xaxis", "yaxis"):
        order = figure.layout[axis].categoryarray
        if order is not None:
            figure.layout[axis].categoryarray = [plain(value) if isinstance(value, str) else value for value in order]
    return figure


def actions_per_label(groups: Mapping[str, Counter[str]]) -> go.Figure:
    """Stacked bars: one bar per label, one segment per outcome."""
    labels = list(groups)
    figure = go.Figure()
    for outcome in ACTIONS:
        counts = [groups[label][outcome] for label in labels]
        if not any(counts):
            continue
        figure.add_bar(x=labels, y=counts, name=OUTCOME_NAMES[outcome], marker_color=palette.OUTCOMES[outcome],
                       text=[count or "" for count in counts], textposition="inside", textangle=0,
                       hovertemplate="%{x}: %{y} " + OUTCOME_NAMES[outcome] + "<extra></extra>")
    figure.update_layout(barmode="stack", yaxis_title="samples", legend_traceorder="normal",
                         uniformtext={"minsize": 10, "mode": "hide"})
    return _layout(figure, title="Actions per label", height=330, axis_px=24)


def outcome_grid(rows: Sequence[QuestionRow], refs: Sequence[SampleRef]) -> go.Figure:
    """Question × repeat, one square per sample coloured by its action (or error); clicking selects it.

    Drawn as square markers rather than a heatmap trace so that a click selects a sample.
    """
    order = [row.question_id for row in rows]
    figure = go.Figure()
    for outcome in ACTIONS:
        chosen = [ref for ref in refs if ref.outcome == outcome]
        if not chosen:
            continue
        figure.add_scatter(
            x=[f"repeat {ref.repeat}" for ref in chosen], y=[ref.question_id for ref in chosen], mode="markers",
            name=OUTCOME_NAMES[outcome], customdata=[[ref.key, ref.verdict or ref.error or ""] for ref in chosen],
            marker={"symbol": "square", "size": 17, "color": palette.OUTCOMES[outcome],
                    "line": {"width": 1, "color": palette.SOLID_TEXT}},
            hovertemplate="%{y} · %{x}<br>" + OUTCOME_NAMES[outcome] + " (%{customdata[1]})<extra></extra>",
        )
    width = max((len(row.outcomes) for row in rows), default=1)
    figure.update_xaxes(categoryorder="array", categoryarray=[f"repeat {i}" for i in range(width)], side="top",
                        showgrid=False, range=[-0.5, width - 0.5])
    figure.update_yaxes(categoryorder="array", categoryarray=list(reversed(order)), showgrid=False,
                        tickfont={"size": 11}, range=[-0.5, len(order) - 0.5])
    figure.update_layout(clickmode="event+select", dragmode=False)
    return _layout(figure, title="Action per question and repeat", subtitle="click a square to open its sample",
                   height=max(200, ROW_PX * len(order) + 80))


def citation_errors(rows: Sequence[QuestionRow]) -> go.Figure:
    """Horizontal bars: citation errors per question, over all repeats; only questions that have any."""
    chosen = [row for row in rows if row.citation_errors]
    figure = go.Figure()
    figure.add_bar(x=[row.citation_errors for row in chosen], y=[row.question_id for row in chosen],
                   orientation="h", marker_color=palette.CITATION_ERROR, text=[row.citation_errors for row in chosen],
                   textposition="auto", hovertemplate="%{y}: citation errors %{x}<extra></extra>")
    figure.update_yaxes(categoryorder="array", categoryarray=[row.question_id for row in reversed(chosen)],
                        tickfont={"size": 11})
    figure.update_xaxes(title="citation errors over all repeats", rangemode="tozero", dtick=1)
    clean = len(rows) - len(chosen)
    return _layout(figure, title="Citation errors per question", subtitle=f"{clean} of {len(rows)} questions have none",
                   height=max(200, ROW_PX * len(chosen) + 80), axis_px=24)


def requirement_agreement(rows: Sequence[QuestionRow]) -> go.Figure:
    """Stacked horizontal bars per question: requirements matched across repeats that agree or disagree, and
    requirements whose text occurred in one repeat only (not comparable)."""
    parts = (
        ("same status in every repeat", palette.AGREEMENT["same"], [row.agreeing for row in rows]),
        ("status changed between repeats", palette.AGREEMENT["changed"], [row.matched - row.agreeing for row in rows]),
        ("text in one repeat only (not matched)", palette.AGREEMENT["unmatched"],
         [row.requirements - row.matched for row in rows]),
    )
    figure = go.Figure()
    for name, colour, values in parts:
        figure.add_bar(x=values, y=[row.question_id for row in rows], orientation="h", name=name,
                       marker_color=colour, hovertemplate="%{y}: %{x} " + name + "<extra></extra>")
    figure.update_layout(barmode="stack")
    figure.update_yaxes(categoryorder="array", categoryarray=[row.question_id for row in reversed(rows)],
                        tickfont={"size": 11})
    figure.update_xaxes(title="requirements", rangemode="tozero")
    return _layout(figure, title="Per-requirement agreement across repeats",
                   height=max(200, ROW_PX * len(rows) + 80), axis_px=24)


def second_opinion(counts: OpinionCounts) -> go.Figure:
    """Horizontal bars per reason: unsafe answers the second opinion would have caught, and correct answers it
    questions (false alarms); the first row is any reason. Caught answers take the colour of a surfaced
    conflict (the answer is questioned), false alarms that of an abstention."""
    reasons = sorted(set(counts.caught_by) | set(counts.false_alarms_by))
    rows = ["any reason", *(REASON_NAMES.get(reason, reason) for reason in reasons)]
    caught = [counts.unsafe_caught, *(counts.caught_by.get(reason, 0) for reason in reasons)]
    alarms = [counts.false_alarms, *(counts.false_alarms_by.get(reason, 0) for reason in reasons)]
    figure = go.Figure()
    for name, colour, values in (  # drawn bottom-up within a row: the caught bar lands on top, as in the legend
        (f"correct answers questioned (of {counts.correct_answers})", palette.OUTCOMES["abstain"], alarms),
        (f"unsafe answers caught (of {counts.unsafe_answers})", palette.OUTCOMES["surface_conflict"], caught),
    ):
        figure.add_bar(x=values, y=rows, orientation="h", name=name, marker_color=colour,
                       text=[value or "" for value in values],
                       textposition="outside", textangle=0, cliponaxis=False,
                       hovertemplate="%{y}: %{x} " + name + "<extra></extra>")
    figure.update_layout(barmode="group", legend_traceorder="reversed")
    figure.update_yaxes(categoryorder="array", categoryarray=list(reversed(rows)), tickfont={"size": 11})
    figure.update_xaxes(title="samples answered in full", rangemode="tozero",
                        dtick=1 if max(caught + alarms) <= 10 else None)
    return _layout(figure, title=f"Unsafe answers caught: {counts.unsafe_caught} of {counts.unsafe_answers}",
                   subtitle="full answers the second opinion would have questioned, per reason",
                   height=max(160, 2 * ROW_PX * len(rows) + 60), axis_px=24)
