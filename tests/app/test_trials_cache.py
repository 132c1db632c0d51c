"""The Trials page builds a result's figures and tables once, for every rerun and session; a run folder opened
again after it resumed is another result, so the page shows its new samples, never the figures built before."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from answerlens import AnswerabilityConfig
from answerlens.engine.runner import run_trial
from answerlens.trials import folder
from answerlens.trials.dataset import load_dataset
from tests.app.conftest import assert_clean, html, start
from tests.oracle_server import judgement, oracle_server

PAGE = "pages/trials.py"
BUNDLE = {"records": [{"text": "The API uses Postgres 16."}]}
CASES = [{"id": "first-question", "question": "Which database?", "label": "answerable", "bundle": BUNDLE},
         {"id": "second-question", "question": "Who owns it?", "label": "unanswerable", "bundle": BUNDLE}]
REPLIES = {"Which database?": judgement(("Database", "supported", ["m1"])),
           "Who owns it?": judgement(("Owner", "unsupported", []))}


@pytest.fixture
def config() -> Iterator[AnswerabilityConfig]:
    """A loopback server answering both questions; its URL is part of the run's configuration."""
    with oracle_server(REPLIES) as server:
        yield AnswerabilityConfig(provider="openai", model="oracle", base_url=server.base_url, timeout=10,
                                  max_retries=0)


def run(cases: Path, out: Path, config: AnswerabilityConfig) -> None:
    """Run (or resume) the two questions once each."""
    asyncio.run(run_trial(load_dataset(cases), config, repeats=1, out=out))


def open_path(at: AppTest, path: Path) -> None:
    at.radio(key="trials.mode").set_value("Open a result").run()
    at.text_input(key="trials.open_path").set_value(str(path)).run()
    at.button(key="trials.open").click().run()
    assert_clean(at)


def grid_questions(at: AppTest) -> set[str]:
    """The questions the outcome grid has a square for (from the chart sent to the browser)."""
    (grid,) = [chart for chart in at.get("plotly_chart") if "Action per question and repeat" in chart.proto.spec]
    return {point[0].split("#")[0] for trace in json.loads(grid.proto.spec)["data"] for point in trace["customdata"]}


def test_a_run_opened_again_after_it_resumed_shows_its_new_sample(tmp_path: Path,
                                                                  config: AnswerabilityConfig) -> None:
    cases, out = tmp_path / "cases.json", tmp_path / "run"
    cases.write_text(json.dumps(CASES))
    run(cases, out, config)
    (out / folder.RESULT).unlink()  # as if cancelled after the first sample
    (out / folder.SAMPLES / folder.sample_filename("second-question", 0)).unlink()

    at = start(PAGE)
    open_path(at, out)
    assert 'data-trial-kind="answerlens-trial-run"' in html(at)
    assert grid_questions(at) == {"first-question"}
    assert len(at.dataframe[1].value) == 1  # the samples table

    other = start(PAGE)  # another session opening the same folder: the same result, the same figures
    open_path(other, out)
    assert grid_questions(other) == {"first-question"}

    run(cases, out, config)  # resumed into the same folder: the second sample is added
    at.button(key="trials.open").click().run()  # the same path, opened again
    assert_clean(at)
    assert 'data-trial-kind="answerlens-trial-result"' in html(at)
    assert grid_questions(at) == {"first-question", "second-question"}
    assert len(at.dataframe[1].value) == 2
    assert {metric.label: metric.value for metric in at.metric}["Questions"] == "2"
