"""Hostile stored sweeps on the Packing page: a damaged folder is a notice, never a traceback."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from streamlit.testing.v1 import AppTest

from answerlens.engine.sweep import run_sweep
from answerlens.ui.packing import sweeps
from tests.app.conftest import assert_clean, html, start
from tests.context_server import context_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle, config

PAGE = "pages/packing.py"


def stored_sweep(question: str = QUESTION, name: str = "b.json") -> tuple[str, Path]:
    with context_server(REQUIREMENTS) as server:
        planned = sweeps.plan(question, None, bundle(), config(server.base_url), ["compact"], ["packed"], 1, name,
                              sweeps.sweeps_dir())
        asyncio.run(run_sweep(question, bundle(), config(server.base_url), out=planned.out, formats=["compact"],
                              repeats=1, bundle_name=name))
    return planned.id, planned.out


def opened_by_link(ident: str) -> str:
    """The Packing page opened by a stored sweep's link, as its HTML."""
    at = AppTest.from_file(start()._script_path, default_timeout=30)
    at.query_params["sweep"] = ident
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    return html(at)


def test_a_damaged_stored_sweep_opened_by_its_link_is_a_notice() -> None:
    ident, out = stored_sweep()
    [sample] = (out / "samples").glob("*.json")
    sample.write_text(sample.read_text()[:100])  # truncated, as by a full disk
    at = AppTest.from_file(start()._script_path, default_timeout=30)
    at.query_params["sweep"] = ident
    at.run()
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert f"The stored sweep {ident} cannot be read" in html(at)


def test_the_stored_sweeps_list_shows_controls_in_a_question_as_code_points() -> None:
    stored_sweep("Which \u202eevil\u202c version\u200b runs?", "notes\u2066.json")
    at = start(PAGE)
    [option] = [item for item in at.selectbox(key="packing.sweep_pick").options if "evil" in item]
    assert "\u202e" not in option and "\u200b" not in option and "\u2066" not in option
    assert "⟨U+202E⟩evil⟨U+202C⟩" in option and "⟨U+2066⟩" in option


def test_a_stored_sweep_with_an_edited_verdict_opens_as_not_verified() -> None:
    """What verify says is what the page says (issue 29): the grid of a sweep that does not verify is not shown
    as valid, and the notice names the problem."""
    ident, out = stored_sweep()
    [sample] = (out / "samples").glob("*.json")
    data = json.loads(sample.read_text())
    data["assessment"]["verdict"], data["assessment"]["recommended_action"] = "insufficient", "abstain"
    sample.write_text(json.dumps(data, indent=2))
    page = opened_by_link(ident)
    assert "This sweep does not verify" in page and "does not follow from the statuses" in page
    assert 'data-verified="true"' not in page and f'data-sweep="{ident}" data-verified="false"' in page


def test_a_sweep_moved_under_another_sweeps_id_is_not_that_sweep() -> None:
    ident, out = stored_sweep()
    other, elsewhere = stored_sweep("Which version runs in staging?")
    shutil.rmtree(out)
    elsewhere.rename(out)  # the other sweep's folder, now under the first one's id
    page = opened_by_link(ident)
    assert f"its run.json is of sweep {other}" in page and f'data-sweep="{ident}" data-verified="false"' in page
