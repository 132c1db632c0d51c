"""The packing sweep (DESIGN §12): one question over one bundle at a grid of packing settings, on the trial engine.

    settings  formats and budgets as typed (``packed``, tokens, ``NN%``), the grid     cut  where a budget cuts
    run       contexts -> the trial engine (cells as cases) -> ``result.json``       folder  run.json, bundle.json
    summary   cells counted from samples; what changed between budgets               result  the typed log
    reader    the one reader of a sweep folder; ``verify_sweep``     view  its words     found  is this a sweep?

Names are imported when first used, so ``answerlens.sweeps.found`` (asked by ``verify``) costs nothing more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from answerlens.lazy import lazy_exports

if TYPE_CHECKING:
    from answerlens.sweeps.result import SweepCell, SweepChange, SweepResult
    from answerlens.sweeps.run import SweepOutcome, run_sweep, sweep

_EXPORTS = {
    "SweepCell": "answerlens.sweeps.result",
    "SweepChange": "answerlens.sweeps.result",
    "SweepResult": "answerlens.sweeps.result",
    "SweepOutcome": "answerlens.sweeps.run",
    "run_sweep": "answerlens.sweeps.run",
    "sweep": "answerlens.sweeps.run",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = ["SweepCell", "SweepChange", "SweepOutcome", "SweepResult", "run_sweep", "sweep"]
