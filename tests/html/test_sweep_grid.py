"""The sweep grid's markup (pure): one cell per format x budget coloured by its action, links, the legend, the
changes; no stylesheet in a fragment; hostile text escaped. Data: the shipped recorded sweep."""

import re

from answerlens.html.style import STYLESHEET
from answerlens.html.sweep_grid import cells_table, changes_html, grid_html, legend_html, requirement_tables
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


def test_every_cell_table_counts_second_opinion_flags_only_when_the_sweep_asked_for_them() -> None:
    result = read_sweep(SWEEP)
    plain = cells_table(result)
    assert "second-opinion flags" not in plain and plain.count("<tr>") == len(result.cells) + 1
    flagged = [cell.model_copy(update={"flags": {"cited_text_lacks_answer": 2} if index == 0 else
                                        ({} if cell.assessable else None)})
               for index, cell in enumerate(result.cells)]
    table = cells_table(result.model_copy(update={"cells": tuple(flagged)}))
    assert "<th>second-opinion flags</th>" in table
    assert "<td>cited_text_lacks_answer ×2</td>" in table and "<td>none</td>" in table


def test_requirements_by_cell_are_numbered_from_one_with_their_citations() -> None:
    result = read_sweep(SWEEP)
    tables = requirement_tables(result)
    assert len(tables) == sum(1 for cell in result.cells if cell.requirements)
    setting, table = tables[0]
    assert setting == "reader, citations on at as packed"
    first = result.cells[0].requirements[0]
    assert "<td>1</td>" in table and "<td>0</td>" not in table
    assert all(f"{token} ×{count}" in table for token, count in first.accepted.items())
