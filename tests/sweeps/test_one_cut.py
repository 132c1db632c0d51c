"""One cut everywhere: the Packing page, a sweep and ``answerlens render --budget`` keep the same records and send
the same context for every shipped and test bundle, in every format, at every budget from 0 to packed.

The kept set changes only where a budget reaches the tokens of a rendering of the first k records, so the budgets
checked are 0, each such count and the count one below it, and the packed context's tokens: every budget from 0 to
packed falls in a step whose ends are checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens.cli import main
from answerlens.loading import load_bundle
from answerlens.samples import load_sample
from answerlens.sweeps.cut import Renderings, contexts_of, packed_tokens
from answerlens.sweeps.settings import Setting, SweepFormat
from answerlens.sweeps.summary import build_cell
from answerlens.sweeps.view import labels_of
from answerlens.ui.packing.viewmodel import render_all
from tests.paths import PRME, SAMPLES
from tests.sweeps.helpers import bundle_data

SHIPPED = sorted(SAMPLES.glob("*.json"))
FIXTURES = sorted((PRME / "bundles").glob("bundle_*.json"))
SMALL = 12
"""Bundles with up to this many records are checked at every step; larger ones (``large_platform_history``: 200
records, 400 steps a format) at every tenth step and the last, which keeps the test near a minute."""


def bundle_files(tmp: Path) -> list[Path]:
    own = tmp / "sweep_helpers_bundle.json"
    own.write_text(json.dumps(bundle_data()))
    return [*SHIPPED, *FIXTURES, own]


def load(path: Path):  # noqa: ANN201 - a sample file or a bundle file
    data = json.loads(path.read_text())
    return load_sample(path).load() if isinstance(data, dict) and "question" in data else load_bundle(data)


def steps(bundle, fmt: SweepFormat) -> list[int]:  # noqa: ANN001
    """0, each prefix rendering's tokens and one below it, and the packed context's tokens (all up to packed)."""
    packed = packed_tokens(bundle)
    renderings = Renderings(bundle, fmt)
    found = {0, packed}
    for count in range(bundle.record_count + 1):
        try:
            tokens = renderings.first(count).tokens_used
        except ValueError:
            return sorted(found)  # not renderable in this format: every budget says so
        found |= {tokens, max(tokens - 1, 0)}
    return sorted(budget for budget in found if budget <= packed)


@pytest.mark.parametrize("fmt", [pytest.param(fmt, id=fmt.value) for fmt in SweepFormat])
def test_page_sweep_and_render_keep_the_same_records_at_every_budget(
        fmt: SweepFormat, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    checked = 0
    for path in bundle_files(tmp_path):
        bundle = load(path)
        labels = labels_of(bundle)
        budgets = steps(bundle, fmt)
        sweep = contexts_of(bundle, [Setting(format=fmt, budget=str(budget)) for budget in budgets])
        for position, (budget, cell_context) in enumerate(zip(budgets, sweep, strict=True)):
            if bundle.record_count > SMALL and position % 10 and position != len(budgets) - 1:
                continue
            cell = build_cell(cell_context, ())  # what the sweep's result.json records
            (page,) = [item for item in render_all(bundle, str(budget)) if item.format is fmt]
            where = f"{path.name} {fmt.value} at {budget}"
            assert tuple(map(str, page.context.kept)) == cell.records_kept, where
            assert tuple(map(str, page.context.cut)) == cell.records_cut, where
            assert page.assessable == cell.assessable, where
            if page.error is None:
                assert page.text == cell_context.bundle.exact_context, where
                assert cell.tokens_used <= budget or not cell.records_kept, where
            args = ["render", str(path), "--format", fmt.context_format.value, "--budget", str(budget)]
            code = main(args + (["--citations"] if fmt.citations else []))
            out, err = capsys.readouterr()
            assert code == 0, (where, err)
            assert out == cell_context.bundle.rendered_context + "\n", where
            kept = len(cell.records_kept)
            assert err.startswith(f"keeps {kept} of {kept + len(cell.records_cut)} record"), (where, err)
            cut = [labels[record] for record in cell.records_cut]
            assert (f"; cut: {', '.join(cut)}" in err) == bool(cut), (where, err)
            checked += 1
    assert checked > 50
