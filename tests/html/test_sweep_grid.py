"""The sweep grid's markup (pure): one cell per format x budget coloured by its action, links, the legend, the
changes; no stylesheet in a fragment; hostile text escaped. Data: the shipped recorded sweep."""

import re

from answerlens.html.style import STYLESHEET
from answerlens.html.sweep_grid import changes_html, grid_html, legend_html
from answerlens.sweeps.reader import read_sweep
from tests.paths import SAMPLES

SWEEP = SAMPLES / "sweeps" / "sweep_budget_cut"


def test_every_cell_is_drawn_with_the_tone_of_its_action() -> None:
    result = read_sweep(SWEEP)
    html = grid_html(result)
    cells = re.findall(r'<td data-cell="(\d+)"[^>]*data-action="([a-z_]+)"[^>]*style="([^"]*)"', html)
    assessed = [cell for cell in result.cells if cell.assessable]
    assert len(cells) == len(assessed)
    tones = {"answer": "answerable", "answer_partially": "partial", "abstain": "insufficient"}
    for index, action, style in cells:
        cell = result.cells[int(index)]
        assert cell.action is not None and action == cell.action.value
        assert f"var(--al-soft-{tones[action]})" in style
    assert html.count('class="al-na"') == len(result.cells) - len(assessed)


def test_cells_link_where_asked_and_fragments_carry_no_stylesheet() -> None:
    result = read_sweep(SWEEP)
    html = grid_html(result, link=lambda index: f"?sweep=x&cell={index}")
    assert 'href="?sweep=x&amp;cell=0"' in html
    for fragment in (html, legend_html(), changes_html(result)):
        assert "<style" not in fragment
    assert ".al-sweep td.al-na{" in STYLESHEET


def test_hostile_cell_text_is_escaped() -> None:
    result = read_sweep(SWEEP)
    cell = result.cells[0].model_copy(update={"reason": "<script>alert(1)</script>", "assessable": False})
    hostile = result.model_copy(update={"cells": (cell, *result.cells[1:])})
    html = grid_html(hostile)
    assert "<script>" not in html and "&lt;script&gt;" in html
