"""``answerlens serve-model``: the embedded llama.cpp server, until interrupted."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any

from answerlens.cli.common import EXIT_OK


def add_commands(commands: Any) -> None:
    serve = commands.add_parser("serve-model", help="serve a GGUF model with the embedded llama.cpp server")
    serve.add_argument("--gguf", type=Path, help="model file (default: the bundled SmolLM2-135M, a wiring check)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, help="default: a free port")
    serve.add_argument("--ctx", type=int, default=8192,
                       help="context window in tokens (llama.cpp caps it at the model's own)")
    serve.add_argument("--threads", type=int,
                       help="CPU threads (default: all cores read the prompt, one fewer generates)")
    serve.set_defaults(handler=run)


def _port(text: str) -> int:
    port = int(text)
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"{text} is not a port (1-65535)")
    return port


def run(args: argparse.Namespace) -> int:
    from answerlens.local_model import start_server

    server = start_server(args.gguf, host=args.host, port=args.port, ctx=args.ctx, threads=args.threads)
    print(f"serving {server.model_name} ({server.model_path}) at {server.base_url} — started in "
          f"{server.started_in:.1f} s", flush=True)
    print(f"use: answerlens assess BUNDLE -q QUESTION --provider llamacpp --base-url {server.base_url}", flush=True)
    if args.gguf is None:
        print("note: the bundled 135M model only checks the wiring; its verdicts mean nothing", flush=True)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    stop.wait()
    server.stop()
    print("stopped", flush=True)
    return EXIT_OK
