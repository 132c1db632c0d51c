"""Record the shipped sweep of ``sweep_budget_cut.json`` into ``sweeps/sweep_budget_cut/``.

The replies come from answerlens' scripted context-dependent server (``tests/context_server.py``), not from a
model: it supports a requirement only when the record stating it is in the context it receives, citing that
record as the format cites. So the recorded grid shows exactly what the budgets cut. Run from the repository root:

    .venv/bin/python sample_bundles/sweeps/record.py
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from answerlens import AnswerabilityConfig  # noqa: E402
from answerlens.engine.sweep import run_sweep  # noqa: E402
from answerlens.samples import load_sample  # noqa: E402
from tests.context_server import context_server  # noqa: E402

SAMPLE = ROOT / "sample_bundles" / "sweep_budget_cut.json"
OUT = ROOT / "sample_bundles" / "sweeps" / "sweep_budget_cut"
REQUIREMENTS = {"Region the payments database runs in": "eu-central-1",
                "On-call owner of the payments database this week": "Priya Raman is the on-call owner"}
FORMATS = ["reader_cited", "reader_plain", "auditable", "compact"]
BUDGETS = ["packed", "90%", "50%", "20%"]


async def main() -> None:
    sample = load_sample(SAMPLE)
    shutil.rmtree(OUT, ignore_errors=True)
    with context_server(REQUIREMENTS) as server:
        config = AnswerabilityConfig(provider="openai", model="context-oracle", base_url=server.base_url, seed=7)
        outcome = await run_sweep(sample.question, sample.load(), config, out=OUT, formats=FORMATS, budgets=BUDGETS,
                                  repeats=3, concurrency=4, bundle_name="sample_bundles/sweep_budget_cut.json")
    assert outcome.result is not None, outcome
    print(f"{OUT}: {len(outcome.result.samples)} samples, {len(outcome.result.changes)} change(s)")


if __name__ == "__main__":
    asyncio.run(main())
