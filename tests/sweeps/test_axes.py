"""Retrieval depth (``top_k``) and chunk size (``record_tokens``) against a loopback server whose replies depend on
the context it is sent: each axis flips the verdict exactly where the supporting words leave the context, and
``what changed`` names the record that took them."""

from pathlib import Path

import pytest

from answerlens.cli import main
from answerlens.engine.sweep import run_sweep
from answerlens.sweeps.reader import read_sweep
from answerlens.sweeps.result import SweepResult
from answerlens.sweeps.settings import SweepFormat
from answerlens.sweeps.view import change_text, labels_of
from answerlens.tokens import first_tokens
from tests.context_server import context_server
from tests.sweeps.helpers import NEEDLE, QUESTION, REQUIREMENTS, bundle, bundle_data, config, verified

FIRST = "00000000-0000-0000-0000-000000000001"
"""The record stating the production version ("…runs PostgreSQL 15.6 since…"): first in packed order."""
CITED = ("reader_cited", "auditable", "compact")


def words_survive_at() -> int:
    """The fewest tokens of the first record that still hold the phrase the server looks for."""
    text = next(candidate.rendered_text for _, candidate in bundle().candidates() if str(candidate.node.id) == FIRST)
    assert text is not None
    return next(count for count in range(1, 200) if REQUIREMENTS["production version"] in first_tokens(text, count))


def cell(result: SweepResult, key: str) -> int:
    return next(index for index, item in enumerate(result.cells) if item.key == key)


@pytest.mark.parametrize("fmt", CITED)
async def test_a_depth_flips_the_verdict_exactly_where_the_supporting_record_leaves(fmt: str, tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                  formats=[fmt], top_k=[4, 3], repeats=1)
    result = outcome.result
    assert result is not None
    deep, shallow = result.cells[cell(result, f"{fmt}@packed@top4")], result.cells[cell(result, f"{fmt}@packed@top3")]
    assert deep.actions == {"answer": 1} and shallow.actions == {"answer_partially": 1}
    assert shallow.records_cut == (NEEDLE,) and deep.records_cut == ()
    [change] = result.changes
    assert change.records_lost == (NEEDLE,) and change.records_shortened == ()
    text = change_text(result, change, labels_of(bundle()))
    assert text.startswith(f"{SweepFormat(fmt).label}: top 4 records -> top 3 records: answer -> answer partially")
    assert f"the cut removed m4 ({NEEDLE})" in text
    assert verified(tmp_path / "sweep") == (2, [])


@pytest.mark.parametrize("fmt", CITED)
async def test_a_chunk_size_flips_the_verdict_exactly_where_the_cited_words_are_cut_off(
        fmt: str, tmp_path: Path) -> None:
    survive = words_survive_at()
    with context_server(REQUIREMENTS) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                  formats=[fmt], record_tokens=[survive, survive - 1], repeats=1)
    result = outcome.result
    assert result is not None
    holds, loses = (result.cells[cell(result, f"{fmt}@packed@rec{count}")] for count in (survive, survive - 1))
    assert holds.actions == {"answer": 1} and loses.actions == {"answer_partially": 1}
    assert FIRST in loses.records_shortened and loses.records_cut == holds.records_cut == ()
    [change] = result.changes
    assert change.records_shortened == (FIRST,) and change.records_lost == ()
    assert [(flip.requirement, flip.status_to.value) for flip in change.requirements_flipped] == [
        ("production version", "unsupported")]
    text = change_text(result, change, labels_of(bundle()))
    assert f"{survive} tokens a record -> {survive - 1} tokens a record: answer -> answer partially" in text
    assert f"the chunk size cut m1 ({FIRST}) to the first {survive - 1} tokens" in text
    # What the model read says the record goes on.
    assert any(f"cut to its first {survive - 1} tokens" in context for context in server.contexts)
    assert verified(tmp_path / "sweep") == (2, [])


async def test_both_axes_compose_with_budgets_one_cell_each_and_verify(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as server:
        outcome = await run_sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                  formats=["compact"], budgets=["packed", "90%"], top_k=[4, 2], record_tokens=[60],
                                  repeats=1)
    result = outcome.result
    assert result is not None
    assert [item.key for item in result.cells] == ["compact@packed@top4@rec60", "compact@packed@top2@rec60",
                                                  "compact@90%@top4@rec60", "compact@90%@top2@rec60"]
    assert read_sweep(tmp_path / "sweep") == result
    assert verified(tmp_path / "sweep") == (4, [])


def test_the_cli_takes_both_axes_and_prints_a_grid_for_each_combination(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    bundle_file = tmp_path / "bundle.json"
    bundle_file.write_text(json.dumps(bundle_data()))
    out = tmp_path / "sweep"
    survive = words_survive_at()
    with context_server(REQUIREMENTS) as server:
        code = main(["sweep", str(bundle_file), "-q", QUESTION, "--provider", "openai", "--model", "context-oracle",
                     "--base-url", server.base_url, "--out", str(out), "--repeats", "1", "--format", "compact",
                     "--top-k", "4", "--top-k", "3", "--record-tokens", str(survive)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert f"top 4 records · {survive} tokens a record:" in printed
    assert f"top 3 records · {survive} tokens a record:" in printed
    assert f"compact at {survive} tokens a record: top 4 records -> top 3 records: answer -> answer " \
        "partially" in printed
    assert main(["verify", str(out)]) == 0


async def test_the_library_call_takes_both_axes_and_run_json_lists_them_under_its_hash(tmp_path: Path) -> None:
    import json

    import answerlens
    from answerlens import TrialError
    from answerlens.sweeps.folder import read_manifest

    with context_server(REQUIREMENTS) as server:
        result = await answerlens.sweep(QUESTION, bundle_data(), config(server.base_url), out=tmp_path / "sweep",
                                        formats=["compact"], top_k=[3], record_tokens=[40], repeats=1)
    assert [cell.key for cell in result.cells] == ["compact@packed@top3@rec40"]
    run = json.loads((tmp_path / "sweep" / "run.json").read_text())
    assert run["settings"] == [{"format": "compact", "budget": "packed", "top_k": 3, "record_tokens": 40}]
    run["settings"][0]["top_k"] = 4  # an edited axis no longer matches the sweep's identity
    (tmp_path / "sweep" / "run.json").write_text(json.dumps(run))
    with pytest.raises(TrialError, match="edited"):
        read_manifest(tmp_path / "sweep")


def test_a_sweep_without_the_new_axes_writes_run_json_as_before(tmp_path: Path) -> None:
    from answerlens.sweeps.result import SweepSetting

    assert SweepSetting(format="compact", budget="packed").model_dump() == {"format": "compact", "budget": "packed"}


def test_one_token_a_record_and_one_record_are_said_in_the_singular() -> None:
    from answerlens.sweeps.view import value_text

    assert (value_text("record_tokens", 1), value_text("record_tokens", 40)) == ("1 token a record",
                                                                               "40 tokens a record")
    assert value_text("top_k", 1) == "top 1 record"
