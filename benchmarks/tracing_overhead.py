"""Tracing's cost, in processes of its own: ``sink`` is a local OTLP/HTTP collector that accepts and drops every
batch (prints its port); ``assess`` times replayed assessments in this process with whatever ``OTEL_*`` the
environment has (tracing on or off) and prints JSON; ``imports`` says what importing the CLI and assessing once
imports and what ``answerlens.tracing`` costs to import.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "sample_bundles" / "answerable_billing_database.json"


class _Sink(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def sink() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def assess(calls: int, rounds: int) -> None:
    from answerlens import tracing
    from answerlens.config import AnswerabilityConfig
    from answerlens.evaluator import AnswerabilityEvaluator
    from answerlens.samples import load_sample

    sample = load_sample(SAMPLE)
    bundle = sample.load()
    config = AnswerabilityConfig(provider="replay", model=sample.recorded_model)

    async def run() -> dict[str, object]:
        async with AnswerabilityEvaluator(config, recording=sample.recording()) as evaluator:
            for _ in range(max(calls // 4, 10)):  # warm-up: imports, caches, the exporter's first batch
                await evaluator.assess(sample.question, bundle)
            tracing.flush()
            walls, cpus, calls_ns = [], [], []
            for _ in range(rounds):
                wall, cpu = time.perf_counter_ns(), time.process_time_ns()
                for _ in range(calls):
                    began = time.perf_counter_ns()
                    await evaluator.assess(sample.question, bundle)
                    calls_ns.append(time.perf_counter_ns() - began)
                tracing.flush()  # the export's CPU (a background thread) is part of the cost
                walls.append((time.perf_counter_ns() - wall) / calls)
                cpus.append((time.process_time_ns() - cpu) / calls)
        return {"tracing": tracing.status().line, "wall_ns_per_call": walls, "cpu_ns_per_call": cpus,
                "call_ns_median": statistics.median(calls_ns)}

    print(json.dumps(asyncio.run(run())))


def imports() -> None:
    probe = ("import sys; from answerlens.cli import main; "
             f"main(['assess', {str(SAMPLE)!r}, '--provider', 'replay', '--json']); "
             "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'openinference'))), "
             "file=sys.stderr)")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", probe], capture_output=True, text=True,
                          check=True)
    lines = done.stderr.splitlines()
    otel = json.loads(lines[-1].replace("'", '"'))
    own = [int(line.split("|")[0].split(":")[1]) for line in lines if line.rstrip().split("|")[-1].strip()
           .startswith("answerlens.tracing")]
    print(json.dumps({"otel_modules_imported": otel, "tracing_import_us": sum(own)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", choices=("sink", "assess", "imports"))
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if args.mode == "sink":
        sink()
    elif args.mode == "assess":
        assess(args.calls, args.rounds)
    else:
        imports()


if __name__ == "__main__":
    main()
