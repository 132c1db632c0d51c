"""A real Dask cluster on this machine for the tests: the ``dask scheduler`` command and named ``dask worker``
processes (no nanny: killing one loses its node), every one bound to 127.0.0.1 with no dashboard. Each worker may get
environment variables of its own (its node's model server) and a preload script."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil

DASK = str(Path(sys.executable).with_name("dask"))
LOOPBACK = ["--host", "127.0.0.1", "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
STARTUP_S = 120.0


@dataclass
class LoopbackCluster:
    folder: Path
    address: str = ""
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    """``scheduler`` and each worker by name."""

    def start_scheduler(self) -> None:
        path = self.folder / "scheduler.json"
        self._spawn("scheduler", [DASK, "scheduler", "--port", "0", *LOOPBACK, "--scheduler-file", str(path)], {})
        deadline = time.monotonic() + STARTUP_S
        while not path.exists() or not path.read_text().strip():
            self._alive("scheduler")
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        self.address = json.loads(path.read_text())["address"]

    def start_worker(self, name: str, env: Mapping[str, str] | None = None, preload: Path | None = None) -> None:
        command = [DASK, "worker", self.address, "--name", name, *LOOPBACK, "--nthreads", "1", "--no-nanny",
                   "--local-directory", str(self.folder / name), "--death-timeout", "60"]
        self._spawn(name, command + (["--preload", str(preload)] if preload else []), dict(env or {}))

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=STARTUP_S, set_as_default=False) as client:
            client.wait_for_workers(count, timeout=STARTUP_S)

    def running(self, key_part: str) -> str:
        """The name of the worker processing the task whose key contains ``key_part``."""
        from distributed import Client

        with Client(self.address, timeout=STARTUP_S, set_as_default=False) as client:
            names = {address: info["name"] for address, info in client.scheduler_info()["workers"].items()}
            return next(names[address] for address, keys in client.processing().items()
                        if any(key_part in str(key) for key in keys))

    def kill(self, name: str) -> None:
        process = self.processes.pop(name)
        process.send_signal(signal.SIGKILL)
        process.wait()

    def listening(self) -> set[str]:
        """The addresses every process of the cluster listens on."""
        found = set()
        for process in self.processes.values():
            for connection in psutil.Process(process.pid).net_connections(kind="inet"):
                if connection.status == psutil.CONN_LISTEN:
                    found.add(connection.laddr.ip)
        return found

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def stop(self) -> None:
        """Every process killed outright: a graceful close is not what the tests are about."""
        for process in self.processes.values():
            process.kill()
        for process in self.processes.values():
            process.wait()
        self.processes.clear()

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> None:
        log = open(self.folder / f"{name}.log", "wb")  # noqa: SIM115 - the process owns it
        self.processes[name] = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                                env={**os.environ, **env})

    def _alive(self, name: str) -> None:
        if self.processes[name].poll() is not None:
            raise AssertionError(f"{name} exited: {self.log(name)[-2000:]}")


@contextmanager
def loopback_cluster(folder: Path, workers: Mapping[str, Mapping[str, str]],
                     preloads: Mapping[str, Path] | None = None) -> Iterator[LoopbackCluster]:
    """A scheduler and the ``workers`` (name -> extra environment), all registered before it is handed over."""
    folder.mkdir(parents=True, exist_ok=True)
    cluster = LoopbackCluster(folder)
    try:
        cluster.start_scheduler()
        for name, env in workers.items():
            cluster.start_worker(name, env, (preloads or {}).get(name))
        cluster.wait_for_workers(len(workers))
        yield cluster
    finally:
        cluster.stop()
