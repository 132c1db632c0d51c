"""Packing sweep worker: one sweep in a fresh process against the benchmark server.

``python sweep.py overhead --bundle B --url U --out DIR`` runs 8 cells (reader with citations and compact, each at
packed, 90%, 75% and 60%) × 3 repeats at concurrency 4 and prints its wall time, the ideal (calls × server delay /
concurrency) and the overhead above it. ``python sweep.py memory --bundle B --url U --out DIR`` runs one format at
6 budgets (1 repeat) and prints the peak resident set after imports and after the sweep (MiB). Start it through a
shell (see ``run.py``): Linux carries a parent's ``ru_maxrss`` across exec. The tokenizer's one-time load
(what a fresh process pays before its first count) is timed apart, before the sweep.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from memory import high_water_mib, peak_mib

from answerlens import AnswerabilityConfig
from answerlens.sweeps.run import run_sweep
from answerlens.tokens import token_count

QUESTION = "Which database and cache does the API use, and who owns it?"
OVERHEAD = {"formats": ["reader_cited", "compact"], "budgets": ["packed", "90%", "75%", "60%"], "repeats": 3,
            "concurrency": 4}
MEMORY = {"formats": ["reader_cited"], "budgets": ["packed", "90%", "75%", "50%", "25%", "10%"], "repeats": 1,
          "concurrency": 4}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=("overhead", "memory"))
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--delay", type=float, default=0.0, help="the server's delay per request (for the ideal)")
    args = parser.parse_args()
    plan = OVERHEAD if args.kind == "overhead" else MEMORY
    config = AnswerabilityConfig(provider="openai", model="bench", base_url=args.url, timeout=60, max_retries=0)
    baseline = peak_mib()
    loading = time.perf_counter()
    token_count("warm")  # the tokenizer's one-time load (as in the app's process), reported apart
    tokenizer_s = time.perf_counter() - loading
    started, cpu = time.perf_counter(), time.process_time()
    outcome = asyncio.run(run_sweep(QUESTION, args.bundle, config, out=args.out, formats=plan["formats"],
                                    budgets=plan["budgets"], repeats=plan["repeats"],
                                    concurrency=plan["concurrency"], preflight=False, bundle_name=args.bundle.name))
    seconds, cpu_s = time.perf_counter() - started, time.process_time() - cpu
    result = outcome.result
    assert result is not None and outcome.errors == 0, outcome
    calls = len(result.samples)
    cells = sum(1 for cell in result.cells if cell.assessable)
    ideal = calls * args.delay / plan["concurrency"]
    print(json.dumps({
        "kind": args.kind, "tokenizer_load_s": tokenizer_s, "cells": len(result.cells), "assessed_cells": cells,
        "calls": calls,
        "concurrency": plan["concurrency"], "delay_s": args.delay, "seconds": seconds, "ideal_s": ideal,
        "overhead_fraction": (seconds - ideal) / seconds, "cpu_ms_per_call": cpu_s * 1000 / calls,
        "records_kept": [len(cell.records_kept) for cell in result.cells],
        "baseline_mib": baseline, "peak_mib": peak_mib(), "vm_hwm_mib": high_water_mib(),
        "bundle_bytes": args.bundle.stat().st_size}))


if __name__ == "__main__":
    main()
