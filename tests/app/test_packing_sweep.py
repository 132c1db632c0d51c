"""The Packing page's sweep (AppTest) against a loopback server whose replies depend on the context it is sent."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import assert_clean, choose_sample, html, start
from tests.context_server import ContextServer, context_server

PAGE = "pages/packing.py"
REQUIREMENTS = {"Region the payments database runs in": "eu-central-1",
                "On-call owner this week": "Priya Raman is the on-call owner"}


@pytest.fixture
def server() -> Iterator[ContextServer]:
    with context_server(REQUIREMENTS) as running:
        yield running


def run_sweep(at: AppTest, base_url: str, budgets: str, *, second_opinion: bool = False, depths: str = "",
              chunks: str = "", formats: list[str] | None = None) -> str:
    choose_sample(at, "sweep_budget_cut", prefix="packing")
    at.radio(key="packing.provider").set_value("OpenAI-compatible server").run()
    at.text_input(key="packing.base_url.openai").set_value(base_url).run()
    at.selectbox(key="packing.model.openai").set_value("context-oracle").run()
    at.text_input(key="packing.sweep_budgets").set_value(budgets).run()
    at.number_input(key="packing.sweep_repeats").set_value(2).run()
    if depths:
        at.text_input(key="packing.sweep_top_k").set_value(depths).run()
    if chunks:
        at.text_input(key="packing.sweep_record_tokens").set_value(chunks).run()
    if formats:
        at.multiselect(key="packing.sweep_formats").set_value(formats).run()
    if second_opinion:
        at.toggle(key="packing.sweep_second_opinion").set_value(True).run()
    at.button(key="packing.sweep_run").click().run()
    assert_clean(at)
    job = at.session_state["packing.sweep_job"]
    assert job.job.wait(60), "the sweep did not end within 60 s"
    at.run()
    assert_clean(at)
    return str(at.session_state["packing.sweep_id"])


def test_a_sweep_runs_shows_its_grid_and_what_changed_and_reopens_from_its_link(server: ContextServer) -> None:
    at = start(PAGE)
    ident = run_sweep(at, server.base_url, "packed, 90%, 5")
    page = html(at)
    actions = dict(((fmt, budget), action) for fmt, budget, action in
                   re.findall(r'data-format="(\w+)" data-budget="([^"]+)" data-action="(\w+)"', page))
    assert actions[("reader_cited", "packed")] == "answer" and actions[("reader_cited", "90%")] == "answer_partially"
    assert actions[("compact", "packed")] == "answer" and actions[("auditable", "90%")] == "answer_partially"
    assert actions[("reader_plain", "packed")] == "none" and actions[("compact", "5")] == "none"
    assert 'data-legend="sweep"' in page and "stable" in page
    assert "requirement &#x27;On-call owner this week&#x27; supported -&gt; unsupported" in page
    links = re.findall(r'href="\./\?run=([0-9a-f]{64})"', page)
    assert len(links) == 6  # every assessed cell opens its run in Inspect
    assert [button.label for button in at.get("download_button")] == ["CSV", "JSON", "HTML report"]
    assert at.query_params["sweep"] == ident
    calls = server.calls

    again = AppTest.from_file(at._script_path, default_timeout=30)  # a new session: as after a restart
    again.query_params["sweep"] = ident
    again.run()
    again.switch_page(PAGE).run()
    assert_clean(again)
    assert f'data-sweep="{ident}"' in html(again)
    assert server.calls == calls  # reopened from the stored folder, no call


def test_a_cell_opens_its_run_in_inspect_with_its_cut_context(server: ContextServer) -> None:
    at = start(PAGE)
    run_sweep(at, server.base_url, "packed, 90%")
    page = html(at)
    cut = re.search(r'data-format="reader_cited" data-budget="90%"[^>]*>\s*<a href="\./\?run=([0-9a-f]{64})"', page)
    assert cut is not None
    inspect = start()
    inspect.query_params["run"] = cut.group(1)
    inspect.run()
    assert_clean(inspect)
    shown = html(inspect).replace("<wbr>", "")  # the context column may break after punctuation
    assert "data-verdict=\"partial\"" in shown
    assert "eu-central-1" in shown and "Priya Raman" not in shown  # the context at that setting: m6 was cut


def test_an_unknown_sweep_link_says_so() -> None:
    at = AppTest.from_file(start()._script_path, default_timeout=30)
    at.query_params["sweep"] = "0123456789ab"
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert "No stored sweep 0123456789ab" in html(at)


def test_the_shipped_sweep_opens_without_a_server() -> None:
    at = AppTest.from_file(start()._script_path, default_timeout=30)
    at.query_params["sweep"] = "sweep_budget_cut"
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    page = html(at)
    assert 'data-sweep="sweep_budget_cut"' in page
    assert 'data-format="reader_cited" data-budget="90%" data-action="answer_partially"' in page


def test_cancel_keeps_finished_samples_and_says_how_to_resume() -> None:
    with context_server(REQUIREMENTS, hold_after=2) as held:
        at = start(PAGE)
        choose_sample(at, "sweep_budget_cut", prefix="packing")
        at.radio(key="packing.provider").set_value("OpenAI-compatible server").run()
        at.text_input(key="packing.base_url.openai").set_value(held.base_url).run()
        at.selectbox(key="packing.model.openai").set_value("context-oracle").run()
        at.number_input(key="packing.sweep_concurrency").set_value(1).run()
        at.button(key="packing.sweep_run").click().run()
        assert held.wait_held(1)
        at.run()
        assert re.search(r'data-sweep-progress="\d+/24"', html(at))  # 8 assessed cells x 3 repeats: calls
        at.button(key="packing.sweep_cancel").click().run()
        held.release.set()
        assert at.session_state["packing.sweep_job"].job.wait(30)
        at.run()
    assert_clean(at)
    page = html(at)
    assert "The sweep stopped before it finished (cancelled)" in page and "run it again to resume" in page
    assert "This sweep has not finished" in page and "data-sweep=" in page  # the samples so far, in the grid


def test_a_sweep_with_a_second_opinion_counts_flags_per_cell_and_is_a_sweep_of_its_own(server: ContextServer) -> None:
    at = start(PAGE)
    plain = run_sweep(at, server.base_url, "packed, 90%")
    assert "second-opinion flags" not in html(at)
    with_opinion = run_sweep(at, server.base_url, "packed, 90%", second_opinion=True)
    assert with_opinion != plain  # its own folder: a folder holds one setting or the other
    page = html(at)
    assert "<th>second-opinion flags</th>" in page
    assert "data-cell-requirements" in page and "<td>1</td>" in page


def test_depths_and_chunk_sizes_run_and_the_grid_shows_the_two_axes_picked(server: ContextServer) -> None:
    at = start(PAGE)
    run_sweep(at, server.base_url, "packed, 90%", depths="6, 5", chunks="60, 8", formats=["compact"])
    page = html(at)
    assert 'data-grid-rows="format" data-grid-columns="budget"' in page
    assert at.selectbox(key="packing.sweep_fix_top_k").value == 6  # the other axes filtered, first value shown
    cells = re.findall(r'data-cell="(\d+)" data-format="compact" data-budget="([^"]+)" data-action="(\w+)"', page)
    assert [(budget, action) for _, budget, action in cells] == [("packed", "answer"), ("90%", "answer_partially")]
    at.selectbox(key="packing.sweep_fix_top_k").set_value(5).run()
    assert_clean(at)
    cells = re.findall(r'data-format="compact" data-budget="([^"]+)" data-action="(\w+)"', html(at))
    assert [action for _, action in cells] == ["answer_partially", "answer_partially"]  # top 5 cuts m6
    at.selectbox(key="packing.sweep_rows").set_value("top_k").run()
    at.selectbox(key="packing.sweep_cols").set_value("record_tokens").run()
    assert_clean(at)
    page = html(at)
    assert 'data-grid-rows="top_k" data-grid-columns="record_tokens"' in page
    assert "depth (top k) \\ chunk size" in page and "top 6 records" in page and "60 tokens a record" in page
    assert "the cut removed m6" in page
