"""Peak memory worker: one task in a fresh process, reporting its own ``ru_maxrss``.

``python memory.py assess --lib L --bundle B --url U`` loads B and assesses it once against the instant server;
``python memory.py load --lib L --bundle B`` only loads B. Prints one JSON line with the peak resident set after
imports (the baseline) and after the task, in MiB, and the task's wall time. Stdlib only at module level, so
it runs under either virtual environment. Start it through a shell (see ``run.py``): on Linux a child exec'd
straight from a large parent inherits the parent's ``ru_maxrss``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

QUERY = "Which database and cache does the API use, and who owns it?"


def peak_mib() -> float:
    # Linux reports ru_maxrss in KiB (macOS in bytes).
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def high_water_mib() -> float | None:
    """Linux's VmHWM: the peak RSS of this process image alone, a cross-check on ``ru_maxrss``."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def task(kind: str, lib: str, bundle_path: Path, url: str | None) -> tuple[float, float, Any]:
    if lib == "answerlens":
        from answerlens import AnswerabilityConfig, AnswerabilityEvaluator, load_bundle

        def load() -> Any:
            return load_bundle(bundle_path)

        def evaluator() -> Any:
            return AnswerabilityEvaluator(AnswerabilityConfig(provider="openai", model="bench", base_url=url,
                                                              max_retries=0, timeout=120.0))
    else:
        from prme.retrieval import answerability as upstream
        from prme.retrieval.models import MemoryBundle
        from pydantic import SecretStr

        def load() -> Any:
            return MemoryBundle.model_validate_json(bundle_path.read_bytes())

        def evaluator() -> Any:
            return upstream.AnswerabilityEvaluator(upstream.AnswerabilityConfig(
                provider="openai", model="bench", base_url=url, api_key=SecretStr("x"), max_retries=0, timeout=120.0))

    baseline = peak_mib()
    started = time.perf_counter()
    try:
        bundle = load()
        if kind == "assess":
            async def assess() -> Any:
                return await evaluator().assess(QUERY, bundle)

            result = asyncio.run(assess()).verdict.value
        else:
            result = sum(len(candidates) for candidates in bundle.sections.values())
    except Exception as exc:  # noqa: BLE001 - a refusal (record limit, reply cap) is a result here
        result = f"{type(exc).__name__}: {str(exc)[:160]}"
    return baseline, time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("kind", choices=("assess", "load"))
    parser.add_argument("--lib", choices=("answerlens", "upstream"), default="answerlens")
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--url")
    args = parser.parse_args()
    baseline, seconds, result = task(args.kind, args.lib, args.bundle, args.url)
    print(json.dumps({"baseline_mib": baseline, "peak_mib": peak_mib(), "vmhwm_mib": high_water_mib(),
                      "seconds": seconds, "result": result,
                      "bundle_bytes": args.bundle.stat().st_size}), flush=True)


if __name__ == "__main__":
    main()
