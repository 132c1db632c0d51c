"""Timing worker for the per-assessment overhead bench: one library, one process, driven over stdin.

Runs under either virtual environment (``--lib answerlens`` in ours, ``--lib upstream`` in the PRME one), so
only the standard library is imported at module level. It loads the bundle files once, then answers one
command per stdin line with one JSON line on stdout:

``run NAME N``   time N sequential ``assess`` calls on bundle NAME: wall and CPU nanoseconds per call
``check NAME``   one call, returning what both libraries must agree on (hashes, verdict, citations)
``floor NAME N`` (answerlens only) N bare httpx POSTs of the same request: the loopback floor

The bundle objects are built before timing, so a call measures ``assess`` only: checks, prompt, the HTTP
round trip to the instant server, reply parsing, citation validation and hashing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

QUERY = "Which database and cache does the API use, and who owns it?"


class Worker:
    def __init__(self, lib: str, url: str, bundles: dict[str, Path]) -> None:
        self.lib = lib
        self.url = url
        if lib == "answerlens":
            from answerlens import AnswerabilityConfig, AnswerabilityEvaluator, load_bundle

            self.config: Any = AnswerabilityConfig(provider="openai", model="bench", base_url=url, max_retries=0,
                                                   timeout=30.0)
            self.evaluator: Any = AnswerabilityEvaluator(self.config)
            self.bundles = {name: load_bundle(path) for name, path in bundles.items()}
        else:
            from prme.retrieval import answerability as upstream
            from prme.retrieval.models import MemoryBundle
            from pydantic import SecretStr

            self.config = upstream.AnswerabilityConfig(provider="openai", model="bench", base_url=url,
                                                       api_key=SecretStr("x"), max_retries=0, timeout=30.0)
            self.evaluator = upstream.AnswerabilityEvaluator(self.config)
            self.bundles = {name: MemoryBundle.model_validate_json(path.read_bytes())
                            for name, path in bundles.items()}

    async def run(self, name: str, calls: int) -> dict[str, Any]:
        bundle = self.bundles[name]
        wall, cpu = [], []
        for _ in range(calls):
            w0, c0 = time.perf_counter_ns(), time.process_time_ns()
            await self.evaluator.assess(QUERY, bundle)
            c1, w1 = time.process_time_ns(), time.perf_counter_ns()
            wall.append(w1 - w0)
            cpu.append(c1 - c0)
        return {"wall_ns": wall, "cpu_ns": cpu}

    async def check(self, name: str) -> dict[str, Any]:
        assessment = await self.evaluator.assess(QUERY, self.bundles[name])
        return {
            "context_sha256": assessment.context_sha256,
            "query_sha256": assessment.query_sha256,
            "verdict": assessment.verdict.value,
            "recommended_action": assessment.recommended_action.value,
            "evidence_refs": [list(r.evidence_refs) for r in assessment.requirements],
            "evidence_ids": [[str(i) for i in r.evidence_ids] for r in assessment.requirements],
            "citation_errors": list(assessment.citation_errors),
        }

    async def floor(self, name: str, calls: int) -> dict[str, Any]:
        import httpx

        from answerlens.prompts import SYSTEM_PROMPT, user_message

        context = self.bundles[name].render().strip()
        payload = {"model": "bench", "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                                                  {"role": "user", "content": user_message(QUERY, context)}]}
        wall, cpu = [], []
        async with httpx.AsyncClient() as client:
            for _ in range(calls):
                w0, c0 = time.perf_counter_ns(), time.process_time_ns()
                response = await client.post(f"{self.url}/chat/completions", json=payload)
                response.json()
                c1, w1 = time.process_time_ns(), time.perf_counter_ns()
                wall.append(w1 - w0)
                cpu.append(c1 - c0)
        return {"wall_ns": wall, "cpu_ns": cpu}


def environment(lib: str) -> dict[str, Any]:
    """Which interpreter and package versions this worker measured, and where the library came from."""
    from importlib import metadata

    module = sys.modules["answerlens" if lib == "answerlens" else "prme"]
    names = ("answerlens", "httpx", "pydantic") if lib == "answerlens" else ("prme", "instructor", "openai", "httpx",
                                                                             "pydantic")
    return {
        "python": sys.version.split()[0],
        "source": str(Path(module.__file__ or "").parent),
        "packages": {name: metadata.version(name) for name in names},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lib", choices=("answerlens", "upstream"), required=True)
    parser.add_argument("--url", required=True, help="base URL of the loopback server (…/v1)")
    parser.add_argument("--bundle", action="append", default=[], metavar="NAME=PATH")
    args = parser.parse_args()
    bundles = {name: Path(path) for name, path in (item.split("=", 1) for item in args.bundle)}
    with asyncio.Runner() as runner:  # one loop for the worker's life, so the HTTP client keeps its pool
        worker = Worker(args.lib, args.url, bundles)
        print(json.dumps({"ready": args.lib, **environment(args.lib)}), flush=True)
        for line in sys.stdin:
            command, *rest = line.split()
            if command == "quit":
                break
            if command == "run":
                result = runner.run(worker.run(rest[0], int(rest[1])))
            elif command == "check":
                result = runner.run(worker.check(rest[0]))
            elif command == "floor":
                result = runner.run(worker.floor(rest[0], int(rest[1])))
            else:
                result = {"error": f"unknown command {command!r}"}
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
