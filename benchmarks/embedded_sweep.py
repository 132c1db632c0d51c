"""A packing sweep with the defaults against the embedded model: the bundled SmolLM2-135M in the in-process
llama.cpp server (one slot, as the app starts it), ``sweep_budget_cut`` at reader with citations and compact, each
as packed and at 90% (4 cells), one repeat: the run that timed out 3 of 4 cells with a fixed concurrency of 4 and a
30 s timeout.

``python embedded_sweep.py`` prints one JSON line: what the run fitted (requests in flight, timeout, the measured
speed), its wall time, and its samples' errors by kind. ``--before`` adds the old defaults (concurrency 4, timeout
30 s, nothing fitted: ``preflight=False``) on a fresh folder, for comparison. The machine's load average is
recorded with every figure: other work on a 2-core machine changes them severalfold.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from answerlens import AnswerabilityConfig
from answerlens.engine.sweep import run_sweep
from answerlens.local_model import start_server
from answerlens.samples import load_sample
from answerlens.sweeps.reader import verify_sweep
from answerlens.ui.common.local_model import CTX

SAMPLE = Path(__file__).resolve().parents[1] / "sample_bundles" / "sweep_budget_cut.json"
GRID = {"formats": ["reader_cited", "compact"], "budgets": ["packed", "90%"], "repeats": 1}


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


async def sweep(base_url: str, out: Path, **settings: Any) -> dict[str, Any]:
    sample = load_sample(SAMPLE)
    config = AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=base_url, seed=7,
                                 **({"timeout": settings.pop("timeout")} if "timeout" in settings else {}))
    notes: list[str] = []
    before, started = load(), time.perf_counter()
    outcome = await run_sweep(sample.question, sample.load(), config, out=out, announce=notes.append, **GRID,
                              **settings)
    wall = time.perf_counter() - started
    samples = outcome.result.samples if outcome.result is not None else ()
    fit = outcome.fit
    return {"wall_s": round(wall, 1), "load_before": before, "load_after": load(),
            "concurrency": fit.concurrency if fit else None, "timeout_s": fit.config.timeout if fit else None,
            "slots": fit.slots if fit else None,
            "speed": {"prompt_tokens": fit.speed.prompt_tokens, "prompt_per_s": round(fit.speed.prompt_per_second, 1),
                      "reply_per_s": round(fit.speed.reply_per_second, 1)} if fit and fit.speed else None,
            "notes": notes, "samples": len(samples), "finished": outcome.result is not None,
            "errors": dict(Counter(sample.error.kind for sample in samples if sample.error is not None)),
            "actions": dict(Counter(sample.assessment.recommended_action.value for sample in samples
                                    if sample.assessment is not None)),
            "verifies": verify_sweep(out)[1] == [] if outcome.result is not None else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", action="store_true", help="also run the old defaults (concurrency 4, 30 s)")
    args = parser.parse_args()
    server = start_server(ctx=CTX)
    found: dict[str, Any] = {"model": server.model_name, "ctx": CTX, "grid": GRID, "load_at_start": load()}
    try:
        with tempfile.TemporaryDirectory(prefix="answerlens-embedded-sweep-") as name:
            found["defaults"] = asyncio.run(sweep(server.base_url, Path(name) / "defaults"))
            if args.before:
                found["before"] = asyncio.run(sweep(server.base_url, Path(name) / "before", concurrency=4,
                                                    timeout=30.0, preflight=False))
    finally:
        server.stop()
    print(json.dumps(found))


if __name__ == "__main__":
    main()
