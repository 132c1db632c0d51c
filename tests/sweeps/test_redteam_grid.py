"""A cell whose every call failed is drawn as such, not in the colour the legend gives an action."""

from __future__ import annotations

import re

from answerlens.html.sweep_grid import grid_html, legend_html
from answerlens.sweeps.reader import read_sweep
from answerlens.sweeps.result import SweepSample
from answerlens.trials.log import SampleError
from tests.paths import SAMPLES


def test_a_cell_of_errors_only_takes_no_action_colour_and_the_legend_says_how_it_looks() -> None:
    result = read_sweep(SAMPLES / "sweeps" / "sweep_budget_cut")
    failed = SweepSample(repeat=0, evaluation_id=None, verdict=None, action=None, latency_ms=1.0,
                         error=SampleError(kind="server_error", message="HTTP 500"))
    cell = result.cells[0].model_copy(update={"samples": (failed, failed.model_copy(update={"repeat": 1})),
                                               "actions": {}, "verdicts": {}, "errors": 2, "stable": False})
    html = grid_html(result.model_copy(update={"cells": (cell, *result.cells[1:])}))
    drawn = re.search(r'<td [^>]*data-cell="0"[^>]*>.*?</td>', html, flags=re.S)
    assert drawn is not None and "error 2/2" in drawn.group(0)
    assert "--al-soft-" not in drawn.group(0)  # red is surface conflict in the legend
    assert "every call failed" in legend_html()


def test_a_cell_of_an_unfinished_sweep_with_no_sample_yet_is_not_called_an_error() -> None:
    from answerlens.cli.sweep import grid_lines

    result = read_sweep(SAMPLES / "sweeps" / "sweep_budget_cut")
    cell = result.cells[0].model_copy(update={"samples": (), "actions": {}, "verdicts": {}, "errors": 0,
                                               "stable": False, "latency_ms": None})
    unfinished = result.model_copy(update={"cells": (cell, *result.cells[1:]), "changes": ()})
    drawn = re.search(r'<td [^>]*data-cell="0"[^>]*>.*?</td>', grid_html(unfinished), flags=re.S)
    assert drawn is not None and "no sample yet" in drawn.group(0) and "error" not in drawn.group(0)
    assert "no sample yet" in grid_lines(unfinished)[1] and "error 0/0" not in grid_lines(unfinished)[1]


def test_a_cell_with_no_sample_yet_is_not_called_stable() -> None:
    from answerlens.html.sweep_grid import detail_rows
    from answerlens.sweeps.cut import cell_context
    from answerlens.sweeps.settings import Setting, SweepFormat
    from answerlens.sweeps.summary import build_cell
    from tests.sweeps.helpers import bundle

    cell = build_cell(cell_context(bundle(), Setting(format=SweepFormat.COMPACT, budget="packed")), ())
    assert cell.assessable and not cell.stable  # exported as such in the CSV and JSON of an unfinished sweep
    result = read_sweep(SAMPLES / "sweeps" / "sweep_budget_cut")
    [row] = detail_rows(result.model_copy(update={"cells": (cell,), "changes": ()}))
    assert "stable" not in row and "unstable" not in row
