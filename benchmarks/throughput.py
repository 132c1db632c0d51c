"""Trial throughput worker: one ``run_trial`` at one concurrency against the delaying server, in a fresh process.

``python throughput.py --dataset D --url U --concurrency C --repeats R --out DIR`` prints one JSON line: the
wall time of the whole run (durable sample writes and the result file included), this process's CPU time per
sample (all threads), the sample count, errors, and the median per-sample latency the trial recorded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from answerlens import AnswerabilityConfig
from answerlens.engine.runner import run_trial
from answerlens.trials.dataset import load_dataset
from answerlens.trials.log import TrialSample


def question(index: int) -> str:
    return f"Question {index}: which database and cache does the API use?"


def write_dataset(path: Path, bundle: Path, cases: int) -> Path:
    """``cases`` labelled questions over one bundle file (referenced by path, as datasets usually do)."""
    items = [
        {"id": f"q{index:03d}", "question": question(index),
         "label": "answerable" if index % 2 else "unanswerable", "question_type": "bench", "bundle": bundle.name}
        for index in range(cases)
    ]
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


async def measure(dataset_path: Path, url: str, concurrency: int, repeats: int, out: Path) -> dict[str, object]:
    dataset = load_dataset(dataset_path)
    config = AnswerabilityConfig(provider="openai", model="bench", base_url=url, max_retries=0, timeout=30.0)
    started, cpu_started = time.perf_counter(), time.process_time()
    outcome = await run_trial(dataset, config, repeats=repeats, out=out, concurrency=concurrency)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    assert outcome.result is not None
    latencies = [sample.latency_ms for sample in outcome.result.samples if isinstance(sample, TrialSample)]
    return {
        "seconds": seconds,
        "cpu_ms_per_sample": cpu_seconds * 1000 / max(outcome.new_samples, 1),
        "samples": outcome.new_samples,
        "errors": outcome.errors,
        "median_sample_latency_ms": statistics.median(latencies),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    parser.add_argument("--repeats", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    result = asyncio.run(measure(args.dataset, args.url, args.concurrency, args.repeats, args.out))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
