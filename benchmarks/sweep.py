"""Packing sweep worker: one sweep in a fresh process against the benchmark server.

``python sweep.py overhead --bundle B --url U --out DIR`` runs 8 cells (reader with citations and compact, each at
packed, 90%, 75% and 60%) × 3 repeats at concurrency 4 and prints its wall time, the ideal (calls × server delay /
concurrency) and the overhead above it. ``python sweep.py memory --bundle B --url U --out DIR`` runs one format at
6 budgets (1 repeat) and prints the peak resident set after imports and after the sweep (MiB). Start it through a
shell (see ``run.py``): Linux carries a parent's ``ru_maxrss`` across exec.

Timed apart, before the sweep, what a fresh process pays once whatever it runs (the app's long-lived process has
paid both before its first sweep): the tokenizer's load, and the HTTP stack's (httpx imports httpcore, anyio and
h11 on its first request: one preflight ``GET /models``). After the sweep, ``overhead`` times the floor: the
same number of POSTs at the same concurrency, each with the body of one of the sweep's requests, made by a bare
httpx client in this process; what the sweep takes above the floor is answerlens's own part.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

import httpx
from memory import high_water_mib, peak_mib

from answerlens import AnswerabilityConfig
from answerlens.engine.sweep import run_sweep
from answerlens.loading import load_bundle
from answerlens.prompts import SYSTEM_PROMPT
from answerlens.tokens import token_count
from answerlens.trials.preflight import check_endpoints

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
    loading = time.perf_counter()
    asyncio.run(check_endpoints(config, [args.url]))  # the HTTP stack's one-time load, reported apart
    http_stack_s = time.perf_counter() - loading
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
    floor = asyncio.run(bare_calls(args.url, _request_body(args.bundle), calls, plan["concurrency"])) \
        if args.kind == "overhead" else None
    print(json.dumps({
        "kind": args.kind, "tokenizer_load_s": tokenizer_s, "http_stack_load_s": http_stack_s,
        "cells": len(result.cells), "assessed_cells": cells, "calls": calls,
        "concurrency": plan["concurrency"], "delay_s": args.delay, "seconds": seconds, "ideal_s": ideal,
        "overhead_fraction": (seconds - ideal) / seconds, "floor_s": floor,
        "own_fraction": (seconds - floor) / seconds if floor is not None else None,
        "cpu_ms_per_call": cpu_s * 1000 / calls,
        "records_kept": [len(cell.records_kept) for cell in result.cells],
        "baseline_mib": baseline, "peak_mib": peak_mib(), "vm_hwm_mib": high_water_mib(),
        "bundle_bytes": args.bundle.stat().st_size}))


def _request_body(bundle: Path) -> dict[str, object]:
    """A request as large as the sweep's fullest: the packed context and a system prompt, in a chat body."""
    context = load_bundle(bundle, name=bundle.name).render()
    return {"model": "bench", "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                                           {"role": "user", "content": f"{QUESTION}\n\n{context}"}]}


async def bare_calls(url: str, body: dict[str, object], calls: int, concurrency: int) -> float:
    """The floor: ``calls`` POSTs of ``body`` at ``concurrency`` by a bare httpx client; its wall seconds."""
    left = calls
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=60.0, limits=limits) as client:

        async def worker() -> None:
            nonlocal left
            while left > 0:
                left -= 1
                response = await client.post(f"{url}/chat/completions", json=body)
                response.raise_for_status()
                response.json()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
