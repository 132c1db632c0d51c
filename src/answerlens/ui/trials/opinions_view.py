"""The Trials page's second-opinion section: per run, requirements flagged, verifier agreement and the unsafe
answers it would have caught, as numbers and a chart; or why the run has none."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from answerlens.html.escape import esc
from answerlens.html.markup import notice_html
from answerlens.second_opinion.models import SecondOpinion
from answerlens.trials.result import TrialResult
from answerlens.ui.trials import charts as trial_charts
from answerlens.ui.trials import numbers_view, opinions
from answerlens.ui.trials.run_view import Shown
from answerlens.ui.trials.sources import run_dataset

CACHE_KEY = "trials.opinions"
"""Session cache of computed opinions: (id of the result shown, its opinions by sample position)."""


def section(prefix: str, shown: Shown, cwd: Path) -> None:
    st.subheader("Second opinion")
    summary = _summary(shown, cwd)
    if isinstance(summary, str):
        st.html(f'<div data-second-opinion="none">{notice_html("info", "No second opinion for this run", summary)}'
                "</div>")
        return
    st.html(f'<div class="al-muted" data-second-opinion="{esc(summary.counts.assessments)}">'
            f"{esc(opinions.coverage(summary))}</div>")
    numbers_view.numbers(opinions.stats(summary), per_row=2)
    st.plotly_chart(trial_charts.second_opinion(summary.counts), key=f"{prefix}.chart.opinions",
                    config={"displaylogo": False})


def _summary(shown: Shown, cwd: Path) -> opinions.OpinionSummary | str:
    """The stored opinions, else flags computed from the run's dataset; or why there is neither."""
    result = shown.result
    stored = opinions.summarize(opinions.triples(result.samples), opinions.STORED)
    if stored is not None:
        return stored
    if shown.dataset is None:
        shown.dataset = run_dataset(result, cwd)
    if isinstance(shown.dataset, str):
        return (f"the samples carry none, and the flags cannot be computed here: {shown.dataset} "
                "(a run of answerlens trial --second-opinion stores one with every sample)")
    computed = opinions.summarize(opinions.triples(result.samples, _computed(result, shown)),
                                  opinions.COMPUTED)
    return computed if computed is not None else "no assessed sample could be checked against the run's dataset"


def _computed(result: TrialResult, shown: Shown) -> dict[int, SecondOpinion]:
    """Computed once per result shown in this session (a fraction of a second for the example's 64 samples)."""
    cached = st.session_state.get(CACHE_KEY)
    if cached is not None and cached[0] is result:
        return cached[1]
    assert shown.dataset is not None and not isinstance(shown.dataset, str)
    found = opinions.compute_opinions(result, shown.dataset)
    st.session_state[CACHE_KEY] = (result, found)
    return found
