"""What runs on a Dask worker: the version check, the preflight on the worker's own node, and one shard of a run
assessed by the trial engine (``runner.assess_samples``), each finished sample put on the run's queue for the driver,
which writes it. Nothing here writes a file: the run folder is the driver's.

Dask is imported only inside these functions, which only a worker calls.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from answerlens.claims.models import ClaimVerificationConfig
from answerlens.config import AnswerabilityConfig
from answerlens.engine.runner import SecondOpinionSetting, assess_samples
from answerlens.errors import AnswerabilityError, ClusterError, TrialError
from answerlens.trials.dataset import LoadedCase
from answerlens.trials.endpoints import normalise_endpoints
from answerlens.trials.log import NodeRef, TrialSample
from answerlens.trials.preflight import check_endpoints
from answerlens.trials.result import RunIdentity

HANDSHAKE_S = 120.0
"""How long a shard waits for the driver to say which of its samples are already saved."""
STOP_CHECK_S = 0.5
"""How often a shard asks whether the driver stopped the run (cancel, early stop, fail fast)."""


@dataclass(frozen=True)
class OpinionSpec:
    """A run's second opinion as the data a worker rebuilds it from (a verifier holds locks and a loaded model):
    the verifier's configuration and model folder (as each node sees it), or no verifier (the flags only)."""

    config: ClaimVerificationConfig | None
    model_dir: str | None

    @classmethod
    def of(cls, setting: SecondOpinionSetting | None) -> OpinionSpec | None:
        if setting is None or setting.verifier is None:
            return None if setting is None else cls(None, None)
        model_dir = getattr(setting.verifier.scorer, "model_dir", False)
        if model_dir is False:
            raise ClusterError("a second opinion whose verifier has a scorer of its own cannot be sent to the nodes; "
                               "use the default scorer (each node loads the model from its own folder)")
        return cls(setting.verifier.config, str(model_dir) if model_dir is not None else None)

    def setting(self) -> SecondOpinionSetting:
        if self.config is None:
            return SecondOpinionSetting()
        from answerlens.claims.verifier import ClaimVerifier

        return SecondOpinionSetting(ClaimVerifier(self.config, model_dir=self.model_dir))


@dataclass(frozen=True)
class RunSpec:
    """What every shard of one run shares."""

    queue: str
    """The Dask queue the driver reads samples from (one per invocation)."""
    stop: str
    """The Dask event the driver sets to stop the shards (cancel, early stop)."""
    identity: RunIdentity
    config: AnswerabilityConfig
    """With its API key, if any: the worker calls the server."""
    urls: tuple[str, ...]
    node_local: str | None
    """The node-local endpoint as given, resolved on each node (``node_endpoint``); else ``urls`` everywhere."""
    concurrency: int
    second_opinion: OpinionSpec | None


@dataclass(frozen=True)
class ShardWork:
    """One shard's share of what is left to do: its (case id, repeat) keys and the cases they name."""

    index: int
    count: int
    cases: tuple[LoadedCase, ...]
    keys: tuple[tuple[str, int], ...]


def installed_version() -> str:
    """The answerlens version this worker runs (unpickling this function fails on a worker without answerlens)."""
    from answerlens.version import __version__

    return __version__


def node_endpoint(url: str) -> str:
    """The node-local endpoint as this node sees it: ``$NAME`` and ``${NAME}`` taken from the worker's environment
    (a node whose server listens on a port of its own), refused when one is unset."""
    expanded = os.path.expandvars(url)
    if "$" in expanded:
        raise TrialError(f"the node-local endpoint {url!r} names a variable this worker's environment does not set")
    return expanded


def endpoints_here(spec_urls: Sequence[str], node_local: str | None) -> list[str]:
    return [node_endpoint(node_local)] if node_local is not None else list(spec_urls)


async def node_preflight(config: AnswerabilityConfig, urls: Sequence[str], node_local: str | None) -> dict[str, Any]:
    """The trial's preflight from this node: ``{"warnings": [...]}``, or ``{"problem": text}`` when this node
    cannot run it (plain data: it travels back to the driver)."""
    try:
        here = normalise_endpoints(config, endpoints_here(urls, node_local))
        return {"warnings": list(await check_endpoints(config, here)), "endpoints": here}
    except (AnswerabilityError, TrialError) as exc:  # the node is left out, not the trial refused: say what failed
        return {"problem": str(exc).removeprefix("the trial was not started: ")}


def run_shard(work: ShardWork, spec: RunSpec) -> dict[str, int]:
    """Assess one shard on this worker, putting each finished sample on the run's queue as it finishes. A retried
    shard (its worker died) first asks the driver which of its samples arrived, and does only the others."""
    from distributed import Event, Queue, Variable, get_client, get_worker

    worker, client = get_worker(), get_client()
    queue = Queue(spec.queue, client=client)
    stop = Event(spec.stop, client=client)
    node = NodeRef(name=str(worker.name), host=urlsplit(worker.address).hostname or "")
    token = f"{spec.queue}-start-{uuid.uuid4().hex}"
    queue.put({"start": work.index, "token": token})
    answer = Variable(token, client=client)
    saved = {(case_id, repeat) for case_id, repeat in answer.get(timeout=HANDSHAKE_S)}
    answer.delete()
    cases = {item.case.id: item for item in work.cases}
    todo = [(cases[case_id], repeat) for case_id, repeat in work.keys if (case_id, repeat) not in saved]
    cancel = threading.Event()
    checked = [time.monotonic()]

    async def deliver(sample: TrialSample) -> None:
        text = sample.model_copy(update={"node": node}).model_dump_json()
        await asyncio.to_thread(queue.put, {"sample": text})
        # A scheduler round trip: after a failure (the driver may be stopping early), else at most twice a second.
        if sample.error is not None or time.monotonic() - checked[0] >= STOP_CHECK_S:
            checked[0] = time.monotonic()
            if await asyncio.to_thread(stop.is_set):
                cancel.set()  # no new requests; the ones in flight finish and are delivered

    if todo and not stop.is_set():
        asyncio.run(assess_samples(todo, spec.identity, spec.config, urls=endpoints_here(spec.urls, spec.node_local),
                                   concurrency=spec.concurrency, sink=deliver, cancel=cancel,
                                   second_opinion=spec.second_opinion.setting() if spec.second_opinion else None))
    return {"shard": work.index, "assessed": len(todo)}
