"""Error samples on the Trials page: identical errors grouped with a count, and each message with the remedy that
applies to a trial (never "use the recorded response", which the Trials page does not offer)."""

from __future__ import annotations

import asyncio
import json

import pytest

from answerlens import AnswerabilityConfig
from answerlens.engine.runner import run_trial
from answerlens.trials.dataset import load_dataset
from answerlens.trials.failures import group_errors
from answerlens.trials.log import TrialSample
from answerlens.trials.reader import read_trial
from answerlens.trials.result import TrialResult
from answerlens.trials.summary import ErrorEntry
from answerlens.ui.trials import errors as trial_errors
from tests.scripted_server import closed_port
from tests.ui.trials.helpers import sample

BUNDLE = {"records": [{"text": "The API uses Postgres 16."}]}


def entry(sample: TrialSample) -> ErrorEntry:
    assert sample.error is not None
    return ErrorEntry(question_id=sample.question_id, repeat=sample.repeat, label=sample.label,
                      answer_label=sample.answer_label, kind=sample.error.kind, message=sample.error.message)


@pytest.fixture(scope="module")
def unreachable(tmp_path_factory: pytest.TempPathFactory) -> TrialResult:
    """32 questions × 2 repeats against Ollama on a port nobody listens on: 64 identical errors."""
    folder = tmp_path_factory.mktemp("unreachable")
    cases = [{"id": f"q{index:02d}", "question": f"Question {index}?", "label": "answerable", "bundle": BUNDLE}
             for index in range(32)]
    (folder / "cases.json").write_text(json.dumps(cases))
    config = AnswerabilityConfig(provider="ollama", model="m", base_url=f"http://127.0.0.1:{closed_port()}/v1",
                                 timeout=5, max_retries=0)
    asyncio.run(run_trial(load_dataset(folder / "cases.json"), config, repeats=2, out=folder / "run",
                          concurrency=4, preflight=False, early_stop=0))  # the run the preflight would refuse
    return read_trial(folder / "run")


def test_sixty_four_identical_errors_are_one_group(unreachable: TrialResult) -> None:
    (group,) = group_errors(unreachable.summary.errors)
    assert (group.count, group.kind, group.questions) == (64, "connection_refused", 32)
    assert trial_errors.where(group) == "q00 · repeat 0 … q31 · repeat 1"  # in the run's order
    shown = trial_errors.trial_message(group.message)
    assert "recorded response" not in shown and "is not reachable" in shown and "ollama serve" in shown
    assert "same output directory" in trial_errors.trial_remedy(group.kind)
    assert trial_errors.every_call_failed_alike([group], 0)


def test_groups_by_kind_and_message_largest_first() -> None:
    samples = [sample("a", 0, "schema", "bad reply"), sample("b", 0), sample("b", 1), sample("c", 0),
               sample("a", 1, "schema", "other reply")]
    groups = group_errors(entry(sample) for sample in samples)
    assert [(group.kind, group.message, group.count) for group in groups] == [
        ("server_error", "it failed", 3), ("schema", "bad reply", 1), ("schema", "other reply", 1)]
    assert trial_errors.where(groups[0]) == "b · repeat 0 … c · repeat 0"
    assert trial_errors.where(groups[1]) == "a · repeat 0"
    assert not trial_errors.every_call_failed_alike(groups, 0)
    assert not trial_errors.every_call_failed_alike(groups[:1], 5)  # some model calls succeeded
    assert group_errors([]) == ()


@pytest.mark.parametrize(
    "message, shown",
    [
        pytest.param("X is not reachable — start it with `ollama serve`, or use the recorded response",
                     "X is not reachable — start it with `ollama serve`", id="as_written_before_this_release"),
        pytest.param("X failed — use the recorded response instead, or retry", "X failed — retry", id="leading"),
        pytest.param("X failed — Use the Recorded Response.", "X failed", id="any_case_and_all_the_remedy"),
        pytest.param("HTTP 500: recorded responses are cached", "HTTP 500: recorded responses are cached",
                     id="other_text_kept"),
    ],
)
def test_advice_for_one_assessment_is_removed(message: str, shown: str) -> None:
    assert trial_errors.trial_message(message) == shown


def test_every_remedy_resumes_or_says_to_start_afresh() -> None:
    for kind in (*trial_errors.TRIAL_REMEDIES, "something_new"):
        remedy = trial_errors.trial_remedy(kind)
        assert "same output directory" in remedy or "fresh output directory" in remedy
        assert "recorded" not in remedy
