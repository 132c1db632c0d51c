"""Trials on a local Dask cluster against one machine (docs/scale.md): throughput at the same total concurrency,
and the driver's peak memory for 10,000 samples.

    .venv/bin/python benchmarks/cluster.py [--samples 1200] [--delay 0.2] [--concurrency 24] [--workers 3]
                                           [--shards N] [--memory-samples 10000]

Every part is its own process: the delaying model server (``server.py``), the ``dask scheduler`` and the named
``dask worker`` processes (the tests' loopback cluster, ``tests/engine/dask_cluster.py``: 127.0.0.1, no
dashboard), and each ``answerlens trial`` driver, which reports its own peak resident set (``ru_maxrss``) as it
exits. One machine runs ``--concurrency C``; the cluster runs ``--concurrency C/W`` on each of W workers, so both
have C requests in flight. Prints one JSON document (also written to ``--out``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO)]

from trial_cli import delaying_server  # noqa: E402

from tests.engine.dask_cluster import loopback_cluster  # noqa: E402 - the benchmark reuses the tests' cluster

BUNDLE = {"records": [{"text": "The API uses Postgres 16."}, {"text": "The cache is Redis 7."},
                      {"text": "The API is owned by the platform team."}]}


def dataset(folder: Path, samples: int, repeats: int) -> Path:
    cases = [{"id": f"c{index:05d}", "question": f"Which database does service {index} use?", "label": "answerable",
              "bundle": BUNDLE} for index in range(samples // repeats)]
    path = folder / f"cases-{samples}.json"
    path.write_text(json.dumps(cases))
    return path


def driver(args: list[str]) -> None:
    """``cluster.py driver TRIAL-ARGS...``: run the command, then print its exit code and peak RSS as JSON."""
    from answerlens.cli import main

    started = time.perf_counter()
    code = main(args)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"code": code, "seconds": round(time.perf_counter() - started, 2), "peak_mib": round(peak, 1)}))


def trial(data: Path, out: Path, url: str, repeats: int, concurrency: int, *extra: str) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__)), "driver", "trial", str(data), "--repeats", str(repeats),
               "--concurrency", str(concurrency), "--out", str(out), "--provider", "openai", "--model", "bench",
               "--base-url", url, "--early-stop", "0", *extra]
    # Through a shell, so the driver's ru_maxrss is its own, not inherited from this process.
    done = subprocess.run(["sh", "-c", 'exec "$@"', "sh", *command], capture_output=True, text=True, check=False)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    samples = json.loads((out / "result.json").read_text())["samples"] if (out / "result.json").exists() else []
    nodes: dict[str, int] = {}
    for sample in samples:
        if "node" in sample:
            nodes[sample["node"]["name"]] = nodes.get(sample["node"]["name"], 0) + 1
    return {**report, "samples": len(samples), "per_second": round(len(samples) / report["seconds"], 1),
            "nodes": nodes}


def measure(options: argparse.Namespace) -> dict[str, Any]:
    repeats = 3
    names = [f"w{index}" for index in range(1, options.workers + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with delaying_server(options.delay) as server, \
                loopback_cluster(folder / "cluster", {name: {} for name in names}) as cluster:
            data = dataset(folder, options.samples, repeats)
            per_worker = max(options.concurrency // options.workers, 1)
            one = trial(data, folder / "one", server.url, repeats, options.concurrency)
            shards = ("--shards", str(options.shards)) if options.shards else ()
            spread = trial(data, folder / "spread", server.url, repeats, per_worker, "--dask", cluster.address, *shards)
        with delaying_server(0.0) as instant, \
                loopback_cluster(folder / "cluster2", {name: {} for name in names}) as cluster:
            big = dataset(folder, options.memory_samples, repeats)
            small = dataset(folder, 300, repeats)
            memory = {label: trial(path, folder / f"memory-{label}", instant.url, repeats, per_worker, *where)
                      for label, path, where in (
                          ("cluster 300", small, ("--dask", cluster.address)),
                          (f"cluster {options.memory_samples}", big, ("--dask", cluster.address)),
                          (f"one machine {options.memory_samples}", big, ()))}
    ideal = options.concurrency / options.delay
    return {"throughput": {"samples": options.samples, "delay_s": options.delay, "total_concurrency":
                           options.concurrency, "workers": options.workers, "shards": options.shards,
                           "ideal_per_second": round(ideal, 1),
                           "one_machine": one, "cluster": spread},
            "driver_memory": memory}


def main() -> None:
    if sys.argv[1:2] == ["driver"]:
        driver(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=1200)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=24)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--shards", type=int, help="shards of the cluster run (default: one per worker)")
    parser.add_argument("--memory-samples", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "cluster.json")
    options = parser.parse_args()
    found = measure(options)
    text = json.dumps(found, indent=2)
    options.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
