"""Sweeps against a real loopback server whose replies depend on the context it is sent."""

import asyncio
import json
import threading
from pathlib import Path

import pytest

import answerlens
from answerlens import TrialError
from answerlens.engine.runner import Progress
from answerlens.engine.sweep import run_sweep
from answerlens.sweeps.cut import cell_context
from answerlens.sweeps.reader import read_sweep
from answerlens.sweeps.result import SweepResult
from answerlens.sweeps.settings import Setting, SweepFormat
from tests.context_server import context_server
from tests.oracle_server import oracle_server
from tests.sweeps.helpers import NEEDLE, QUESTION, REQUIREMENTS, bundle, bundle_data, config, verified

CITED = ("reader_cited", "auditable", "compact")


def full_tokens(fmt: str) -> int:
    return cell_context(bundle(), Setting(format=SweepFormat(fmt), budget="packed")).tokens_used


def cell(result: SweepResult, key: str) -> int:
    return next(index for index, item in enumerate(result.cells) if item.key == key)


@pytest.mark.parametrize("fmt", CITED)
async def test_the_verdict_flips_exactly_where_the_cut_removes_the_supporting_record(fmt: str, tmp_path: Path) -> None:
    fits, short = full_tokens(fmt), full_tokens(fmt) - 1
    with context_server(REQUIREMENTS) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                  formats=[fmt], budgets=["packed", str(fits), str(short)], repeats=2)
    result = outcome.result
    assert result is not None and outcome.result_path == tmp_path / "sweep" / "result.json"
    packed, whole, cut = (result.cells[cell(result, f"{fmt}@{budget}")] for budget in ("packed", fits, short))
    assert packed.actions == whole.actions == {"answer": 2} and packed.stable
    assert cut.actions == {"answer_partially": 2} and cut.stable
    assert cut.records_cut == (NEEDLE,) and whole.records_cut == ()
    assert whole.tokens_used == fits and cut.tokens_used <= short
    [change] = result.changes
    assert (change.from_, change.to) == (cell(result, f"{fmt}@{fits}"), cell(result, f"{fmt}@{short}"))
    assert (change.action_from.value, change.action_to.value) == ("answer", "answer_partially")
    assert change.records_lost == (NEEDLE,)
    assert [(flip.requirement, flip.status_from.value, flip.status_to.value)
            for flip in change.requirements_flipped] == [("migration owner", "supported", "unsupported")]
    assert sum("Leo Alvarez owns" in context for context in server.contexts) == 4  # packed and whole, twice each
    assert server.calls == 6


async def test_every_format_in_one_grid_and_the_file_keys_of_the_contract(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                  budgets=["packed", "3"], repeats=1, concurrency=4)
    data = json.loads((tmp_path / "sweep" / "result.json").read_text())
    assert list(data)[:9] == ["schema_version", "kind", "question", "bundle_sha256", "configuration_sha256",
                              "manifest_sha256", "repeats", "cells", "changes"]
    assert data["kind"] == "sweep"
    plain = data["cells"][2]
    assert (plain["format"], plain["budget"], plain["assessable"]) == ("reader_plain", "packed", False)
    assert "citations off" in plain["reason"] and plain["samples"] == []
    assert {"format", "budget", "budget_tokens", "tokens_used", "records_kept", "records_cut", "assessable",
            "samples", "actions", "stable"} <= set(data["cells"][0]) and "reason" not in data["cells"][0]
    assert set(data["cells"][0]["samples"][0]) >= {"repeat", "evaluation_id", "verdict", "action", "error"}
    tiny = [item for item in data["cells"] if item["budget"] == "3"]
    assert all(not item["assessable"] and "keeps no record" in item["reason"] for item in tiny)
    assert server.calls == 3 and outcome.new_samples == 3  # reader_cited, auditable and compact at packed


async def test_a_rerun_resumes_and_a_different_sweep_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        first = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"],
                                repeats=2)
        again = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"],
                                repeats=2)
        assert server.calls == 2
        with pytest.raises(TrialError, match="different question, answer, bundle or settings"):
            await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["auditable"])
    assert (first.new_samples, again.new_samples, again.reused_samples) == (2, 0, 2)
    assert again.result is not None and first.result is not None
    assert again.result.cells == first.result.cells


async def test_cancel_keeps_finished_samples_and_writes_no_result(tmp_path: Path) -> None:
    cancel = threading.Event()
    seen: list[Progress] = []

    def progress(update: Progress) -> None:
        seen.append(update)
        cancel.set()

    with context_server(REQUIREMENTS) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                  formats=list(CITED), repeats=3, concurrency=1, progress=progress, cancel=cancel)
    assert outcome.cancelled and outcome.result is None and not (tmp_path / "sweep" / "result.json").exists()
    assert seen[0].total == 9 and 1 <= outcome.new_samples < 9  # the request in flight when cancelled finishes
    partial = read_sweep(tmp_path / "sweep")  # an unfinished folder reads as far as it got
    assert len(partial.samples) == outcome.new_samples


async def test_identical_first_failures_stop_the_sweep_early(tmp_path: Path) -> None:
    with oracle_server({QUESTION: 500}) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                  formats=list(CITED), repeats=3, concurrency=1, early_stop=2, preflight=False)
    assert outcome.stopped is not None and outcome.result is None
    assert sum(server.requests.values()) == 2


async def test_bounds_are_the_engines(tmp_path: Path) -> None:
    with pytest.raises(TrialError, match="repeats must be a whole number"):
        await run_sweep(QUESTION, bundle_data(), config("http://127.0.0.1:9/v1"), out=tmp_path, repeats=0)


async def test_verify_re_derives_every_sample_and_finds_an_edited_summary(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"],
                        budgets=["packed", "90%"], repeats=2)
    assert verified(out) == (4, [])
    data = json.loads((out / "result.json").read_text())
    data["cells"][1]["actions"] = {"answer": 2}
    (out / "result.json").write_text(json.dumps(data))
    count, problems = verified(out)
    assert count == 4 and len(problems) == 1 and "cells[1].actions" in problems[0]


async def test_the_library_call_returns_a_frozen_result(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as server:
        result = await answerlens.sweep(QUESTION, bundle(), config(server.base_url), out=tmp_path / "s",
                                        formats=["compact"], repeats=1)
    assert isinstance(result, answerlens.SweepResult) and result.cells[0].actions == {"answer": 1}
    assert result.samples[0].assessment is not None and result.samples[0].assessment.verdict.value == "answerable"
    with pytest.raises(Exception, match="frozen"):
        result.cells = ()  # type: ignore[misc]
    assert asyncio.iscoroutinefunction(answerlens.sweep)


async def test_a_second_opinion_counts_its_flags_per_cell(tmp_path: Path) -> None:
    from answerlens.engine.runner import SecondOpinionSetting

    with context_server(REQUIREMENTS) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                  formats=["compact"], repeats=1, second_opinion=SecondOpinionSetting())
    assert outcome.result is not None
    [cell] = outcome.result.cells
    assert cell.flags is not None  # counted (possibly none flagged), and present only with a second opinion
    assert all(sample.second_opinion is not None for sample in outcome.result.samples)
    assert verified(tmp_path / "sweep") == (1, [])
    data = json.loads((tmp_path / "sweep" / "result.json").read_text())
    assert "flags" in data["cells"][0]


async def test_verify_checks_each_samples_second_opinion(tmp_path: Path) -> None:
    from answerlens.engine.runner import SecondOpinionSetting

    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=out, formats=["compact"], repeats=1,
                        second_opinion=SecondOpinionSetting())
    [path] = (out / "samples").glob("*.json")
    data = json.loads(path.read_text())
    data["second_opinion"]["question"] = "Another question?"
    path.write_text(json.dumps(data, indent=2))
    count, problems = verified(out)
    assert count == 1 and any("second_opinion" in problem or "question" in problem for problem in problems)


async def test_a_folder_another_runner_holds_is_refused(tmp_path: Path) -> None:
    from answerlens.errors import TrialLockError
    from answerlens.trials.lock import RunLock

    with RunLock(tmp_path / "sweep"), pytest.raises(TrialLockError):
        await run_sweep(QUESTION, bundle_data(), config("http://127.0.0.1:9/v1"), out=tmp_path / "sweep",
                        formats=["compact"], repeats=1, preflight=False)


async def test_calls_are_spread_over_several_endpoints(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as first, context_server(REQUIREMENTS) as second:
        outcome = await run_sweep(QUESTION, bundle_data(), config(first.base_url), out=tmp_path / "sweep",
                                  formats=list(CITED), repeats=4, concurrency=1,
                                  endpoints=[first.base_url, second.base_url])
    assert outcome.result is not None and len(outcome.result.samples) == 12
    assert first.calls > 0 and second.calls > 0 and first.calls + second.calls == 12
