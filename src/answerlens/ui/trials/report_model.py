"""The Trials report's view model (pure): everything it draws from one result — rows, notices, number cards,
charts, the tables' frames, the second opinion — built in one go, and the keys ``report_view`` caches it by.

The key is the result's content (``digest``, which ``Shown`` carries): a resumed run or a new sample reads as
another result, so it is built anew and never shows the figures of the one before, while the same result opened
again, or in another tab, is built once. What is built is shared by every session, so what draws it must not change
it: ``st.plotly_chart`` sends a copy of a figure (``Figure.to_dict``), and the table filters build new frames.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go  # type: ignore[import-untyped]

from answerlens.audit import sha256_text
from answerlens.html import trial_rows
from answerlens.html.markup import Notice
from answerlens.html.trial_rows import SampleRef, Stat
from answerlens.trials.dataset import Dataset
from answerlens.trials.failures import ErrorGroup, group_errors
from answerlens.trials.nodes import NodeStats, node_stats
from answerlens.trials.result import TrialResult
from answerlens.ui.trials import charts, opinions, runstate, tables


def digest(result: TrialResult) -> str:
    """The result's identity for the caches: sha256 of all its content, every sample included (~2 ms for the
    example's 66 samples; ``Shown`` computes it once)."""
    return sha256_text(result.model_dump_json())


def dataset_digest(dataset: Dataset) -> str:
    """The dataset's identity: its file and every case with its bundle file (a bundle file can change under an
    unchanged dataset file, and the flags are computed from the bundles)."""
    return sha256_text(" ".join([dataset.sha256, *(item.sha256 for item in dataset.cases)]))


@dataclass(frozen=True)
class Charts:
    actions: go.Figure
    citations: go.Figure | None
    """None when no sample has a citation error."""
    grid: go.Figure
    agreement: go.Figure | None
    """None with fewer than two repeats."""


@dataclass(frozen=True)
class Report:
    """What the report draws from the result alone."""

    refs: tuple[SampleRef, ...]
    groups: tuple[ErrorGroup, ...]
    notices: tuple[Notice, ...]
    stats: tuple[Stat, ...]
    charts: Charts
    questions: pd.DataFrame
    samples: pd.DataFrame
    nodes: tuple[NodeStats, ...] = ()
    """A run on a cluster: per node, its samples, errors and latency (none otherwise)."""


def build(result: TrialResult) -> Report:
    refs = trial_rows.samples(result)
    rows = trial_rows.questions(result, refs)
    groups = group_errors(result.summary.errors)
    texts = tables.question_texts(result)
    figures = Charts(
        actions=charts.actions_per_label(trial_rows.outcome_groups(refs)),
        citations=charts.citation_errors(rows) if any(row.citation_errors for row in rows) else None,
        grid=charts.outcome_grid(rows, refs),
        agreement=charts.requirement_agreement(rows) if trial_rows.repeats(refs) >= 2 else None,
    )
    return Report(refs=tuple(refs), groups=groups, notices=tuple(runstate.result_notices(result, groups)),
                  stats=tuple(trial_rows.stats(result)), charts=figures, questions=tables.questions(rows, texts),
                  samples=tables.samples(refs, texts), nodes=tuple(node_stats(result.samples)))


@dataclass(frozen=True)
class Opinions:
    summary: opinions.OpinionSummary
    chart: go.Figure


def _drawn(summary: opinions.OpinionSummary | None) -> Opinions | None:
    return Opinions(summary, charts.second_opinion(summary.counts)) if summary is not None else None


def stored_opinions(result: TrialResult) -> Opinions | None:
    """The opinions the samples carry; None when none does."""
    return _drawn(opinions.summarize(opinions.triples(result.samples), opinions.STORED))


def computed_opinions(result: TrialResult, dataset: Dataset) -> Opinions | None:
    """The flags computed from the run's dataset for every sample that carries no opinion; None when no assessed
    sample could be checked."""
    found = opinions.compute_opinions(result, dataset)
    return _drawn(opinions.summarize(opinions.triples(result.samples, found), opinions.COMPUTED))
