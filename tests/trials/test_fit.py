"""Runs that fit their endpoint: the decisions (pure), and sweeps and trials against a loopback stand-in for a
llama.cpp server that serves one request at a time and reports its speed as llama.cpp does."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from answerlens import AnswerabilityConfig, AnswerabilityError
from answerlens.cli import main
from answerlens.engine.runner import run_trial
from answerlens.engine.sweep import run_sweep
from answerlens.providers.request_size import Request, reply_tokens
from answerlens.providers.speed import PROBE_TOKENS, Speed
from answerlens.trials.dataset import load_dataset
from answerlens.trials.fit import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, MARGIN, decide
from tests.context_server import TIMINGS, context_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data, verified
from tests.trials.helpers import write_dataset

SPEED = Speed(prompt_tokens=1000, prompt_per_second=100.0, reply_per_second=10.0)
"""10 s to read the prompt; 100 s for a 1,000-token reply."""
AUTO = AnswerabilityConfig(provider="llamacpp", model="m", max_retries=1)
"""Timeout left unset: it follows the endpoint."""


def rounded(seconds: float) -> float:
    return 5.0 * math.ceil(seconds / 5.0)


@pytest.mark.parametrize(("concurrency", "slots", "expected", "note"), [
    pytest.param(None, 1, 1, "1 request in flight: the server serves 1 at a time", id="default_follows_one_slot"),
    pytest.param(None, 2, 2, "2 requests in flight: the server serves 2 at a time", id="default_follows_two_slots"),
    pytest.param(None, 16, DEFAULT_CONCURRENCY, "4 requests in flight: the server serves 16", id="many_slots"),
    pytest.param(None, None, DEFAULT_CONCURRENCY, None, id="server_says_nothing"),
    pytest.param(3, 1, 3, "3 requests in flight, but the server serves 1 at a time", id="explicit_kept_and_warned"),
    pytest.param(1, 4, 1, None, id="explicit_within_slots"),
])
def test_requests_in_flight_follow_the_servers_slots(concurrency: int | None, slots: int | None, expected: int,
                                                     note: str | None) -> None:
    fit = decide(AUTO, concurrency=concurrency, slots=slots, speed=None, reply=100)
    assert fit.concurrency == expected
    assert [text for text in fit.notes if note and text.startswith(note)] == ([fit.notes[0]] if note else [])
    assert fit.config.timeout == DEFAULT_TIMEOUT and "timeout" not in fit.config.model_fields_set


def test_an_unset_timeout_covers_the_largest_prompt_and_the_longest_reply() -> None:
    fit = decide(AUTO, concurrency=None, slots=1, speed=SPEED, reply=1000)
    assert fit.config.timeout == rounded(MARGIN * (10 + 100)) == 165
    assert any(note.startswith("timeout 165 s a call: 1,000 prompt tokens read at 100 tokens/s") for note in fit.notes)
    assert decide(AUTO, concurrency=None, slots=1, speed=Speed(10, 1000.0, 1000.0), reply=10).config.timeout \
        == DEFAULT_TIMEOUT  # never below the default


def test_a_resumed_run_keeps_the_timeout_its_folder_recorded() -> None:
    assert decide(AUTO, concurrency=None, slots=1, speed=None, reply=1000, saved_timeout=185.0).config.timeout == 185


def test_an_explicit_timeout_that_cannot_cover_reading_the_prompt_is_refused_saying_what_fits() -> None:
    short = AUTO.model_copy(update={"timeout": 5.0})
    with pytest.raises(AnswerabilityError, match="cannot finish in time: one call over its largest context needs at "
                       "least 12 s") as caught:
        decide(short, concurrency=None, slots=1, speed=SPEED, reply=1000)
    assert caught.value.kind == "preflight" and "raise --timeout to 165" in str(caught.value.remedy)
    assert 10 + PROBE_TOKENS / 10 == pytest.approx(11.6)


def test_an_explicit_timeout_shorter_than_a_reply_to_its_bound_is_kept_with_a_warning() -> None:
    medium = AUTO.model_copy(update={"timeout": 60.0})
    fit = decide(medium, concurrency=1, slots=1, speed=SPEED, reply=1000)
    assert fit.config.timeout == 60
    assert any("takes about 110 s here, longer than the timeout of 60 s" in note for note in fit.notes)


# --- against a stand-in llama.cpp server ------------------------------------------------------------------------


def expected_timeout(config: AnswerabilityConfig) -> float:
    """What the stand-in's timings give: reading its 400 prompt tokens and writing the question's reply bound."""
    speed = Speed(TIMINGS["prompt_n"], TIMINGS["prompt_per_second"], TIMINGS["predicted_per_second"])
    reply = reply_tokens(config, Request(QUESTION, ""))
    return max(DEFAULT_TIMEOUT, rounded(MARGIN * speed.seconds(speed.prompt_tokens, reply)))


async def test_a_sweep_with_defaults_never_queues_at_a_one_slot_server_and_takes_a_timeout_that_fits(
        tmp_path: Path) -> None:
    notes: list[str] = []
    config = AnswerabilityConfig(provider="llamacpp", model="context-oracle", max_retries=0)
    with context_server(REQUIREMENTS, slots=1, delay=0.02) as server:
        config = config.model_copy(update={"base_url": server.base_url})
        outcome = await run_sweep(QUESTION, bundle_data(), config, out=tmp_path / "sweep", formats=["compact"],
                                  budgets=["packed", "90%"], repeats=3, announce=notes.append)
        assert server.most_at_server == 1 and server.probes == 1  # one measuring call, then one request at a time
        # Resumed: the timeout the folder recorded, and no measuring call.
        again = await run_sweep(QUESTION, bundle_data(), config, out=tmp_path / "sweep", formats=["compact"],
                                budgets=["packed", "90%"], repeats=3)
        assert server.probes == 1
    assert outcome.result is not None and outcome.errors == 0
    assert outcome.fit is not None and outcome.fit.concurrency == 1 and outcome.fit.slots == 1
    timeout = outcome.fit.config.timeout
    assert timeout == expected_timeout(config) > DEFAULT_TIMEOUT and notes[0] == "1 request in flight: the server serves 1 at a time"
    assert notes[1].startswith(f"timeout {timeout:g} s a call: 400 prompt tokens read at 200 tokens/s")
    run = json.loads((tmp_path / "sweep" / "run.json").read_text())
    assert run["configuration"]["timeout"] == timeout  # recorded: every sample's configuration hash covers it
    assert verified(tmp_path / "sweep") == (6, [])
    assert again.fit is not None and again.fit.config.timeout == timeout and again.reused_samples == 6


async def test_a_sweep_whose_timeout_cannot_cover_its_largest_cell_says_so_before_it_starts(tmp_path: Path) -> None:
    config = AnswerabilityConfig(provider="llamacpp", model="context-oracle", timeout=1.0)
    with context_server(REQUIREMENTS, slots=1) as server:
        with pytest.raises(AnswerabilityError, match="cannot finish in time") as caught:
            await run_sweep(QUESTION, bundle_data(), config.model_copy(update={"base_url": server.base_url}),
                            out=tmp_path / "sweep", formats=["compact"], repeats=1)
        assert server.calls == server.probes == 1  # the measuring call only
    assert "raise --timeout to" in str(caught.value.remedy)
    assert not (tmp_path / "sweep").exists()


async def test_a_server_that_does_not_say_it_is_llama_cpp_is_never_measured(tmp_path: Path) -> None:
    config = AnswerabilityConfig(provider="openai", model="context-oracle")
    with context_server(REQUIREMENTS) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config.model_copy(update={"base_url": server.base_url}),
                                  out=tmp_path / "sweep", formats=["compact"], repeats=2)
        assert server.probes == 0 and server.calls == 2
    assert outcome.fit is not None and outcome.fit.config.timeout == DEFAULT_TIMEOUT
    assert outcome.fit.concurrency == DEFAULT_CONCURRENCY


async def test_a_trial_fits_the_same_way(tmp_path: Path) -> None:
    cases = [{"id": f"c{index}", "question": QUESTION, "label": "answerable", "question_type": "t",
              "bundle": bundle_data()} for index in range(3)]
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", cases))
    with context_server(REQUIREMENTS, slots=1, delay=0.02) as server:
        config = AnswerabilityConfig(provider="llamacpp", model="context-oracle", base_url=server.base_url)
        outcome = await run_trial(dataset, config, repeats=2, out=tmp_path / "run")
        assert server.most_at_server == 1 and server.probes == 1
    assert outcome.result is not None and outcome.errors == 0 and outcome.result.concurrency == 1
    assert outcome.result.configuration.timeout > DEFAULT_TIMEOUT


def test_the_cli_says_what_it_fitted_before_the_first_call(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    bundle_file = tmp_path / "bundle.json"
    bundle_file.write_text(json.dumps(bundle_data()))
    with context_server(REQUIREMENTS, slots=1) as server:
        code = main(["sweep", str(bundle_file), "-q", QUESTION, "--provider", "llamacpp", "--model", "context-oracle",
                     "--base-url", server.base_url, "--out", str(tmp_path / "sweep"), "--repeats", "1",
                     "--format", "compact"])
        assert server.most_at_server == 1
    err = capsys.readouterr().err
    assert code == 0, err
    assert "at the concurrency the endpoint serves" in err
    assert "answerlens: 1 request in flight: the server serves 1 at a time" in err
    assert "answerlens: timeout " in err and err.index("answerlens: timeout") < err.index("1 new, 0 resumed")


