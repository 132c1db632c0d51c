"""Trials and sweeps on a Dask cluster (``--dask tcp://HOST:PORT``): the driver.

It connects to a running Dask scheduler, checks every worker (answerlens installed, the same version; the preflight
from each node), plans the run's remaining samples into shards (one per usable worker by default), runs each shard
as a Dask task on a checked worker (``cluster_task.run_shard``: the trial engine there) and writes each sample that
comes back through the run's own writer, so the folder, lock, resume, early stop and result are a one-machine run's
(``runner.run_trial(..., cluster=...)``). Samples travel on a Dask queue. A shard whose worker dies is retried by
Dask (its ``allowed-failures``, 3 by default), skipping the samples that already arrived. Dask is imported only
here and on the workers, never to start the command line.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from answerlens.config import AnswerabilityConfig
from answerlens.engine import cluster_task
from answerlens.engine.runner import SampleSink, SecondOpinionSetting
from answerlens.errors import AnswerabilityError, ClusterError
from answerlens.trials.dataset import LoadedCase
from answerlens.trials.folder import sample_label, sample_mismatches
from answerlens.trials.log import TrialSample
from answerlens.trials.nodes import node_label
from answerlens.trials.result import RunIdentity
from answerlens.trials.shard import shard_number
from answerlens.version import __version__

if TYPE_CHECKING:
    from distributed import Client, Future, Queue

INSTALL = "pip install 'answerlens[dask]'"
CONNECT_TIMEOUT_S = 10
SHARD_RETRIES = 2
"""Retries of a shard whose task raised (a worker that dies is Dask's ``allowed-failures``)."""
WATCH_S = 5.0
"""How often the driver checks that a checked worker is still connected while shards run."""


class ClusterRun(Protocol):
    """What the driver sees of a run (``runner._Run``)."""

    todo: tuple[tuple[LoadedCase, int], ...]
    identity: RunIdentity
    concurrency: int
    second_opinion: SecondOpinionSetting | None
    finished: dict[tuple[str, int], TrialSample]

    def stopping(self) -> bool: ...

    async def deliver(self, sink: SampleSink, sample: TrialSample) -> None: ...


@dataclass(frozen=True)
class Node:
    """A Dask worker: its address, its name (``dask worker --name``), its host."""

    address: str
    name: str
    host: str

    @property
    def label(self) -> str:
        return node_label(self.name, self.host)


class DaskCluster:
    """``async with DaskCluster("tcp://10.0.0.5:8786") as cluster: await run_trial(..., cluster=cluster)``.

    ``shards``: tasks to plan (default one per usable worker); ``node_local``: each node calls this URL as it sees
    it (``http://127.0.0.1:11434/v1``; ``$NAME`` from the worker's environment) instead of the run's endpoints;
    ``all_nodes``: refuse the run when a worker fails a check, instead of leaving it out; ``say`` hears what the
    driver finds (workers, nodes left out) before any shard starts.
    """

    def __init__(self, address: str, *, shards: int | None = None, node_local: str | None = None,
                 all_nodes: bool = False, say: Callable[[str], None] = lambda _: None) -> None:
        self.address = address
        self.shards = shards
        self.node_local = node_local
        self.all_nodes = all_nodes
        self.say = say
        self.nodes: list[Node] = []
        """The workers that passed every check so far."""
        self.left_out: dict[str, str] = {}
        """Worker name -> why it takes no shard."""
        self._client: Client | None = None
        self._config: AnswerabilityConfig | None = None

    async def __aenter__(self) -> DaskCluster:
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError(f"--dask needs Dask's distributed scheduler, which is not installed here: {INSTALL}") \
                from None
        try:
            self._client = await Client(self.address, asynchronous=True, timeout=CONNECT_TIMEOUT_S,
                                        set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {self.address} ({exc}); start it with `dask "
                               "scheduler` and pass the address it prints (tcp://HOST:8786)") from None
        try:
            await self._check_versions()
        except BaseException:
            await self._client.close()
            raise
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._client is not None:
            await self._client.close()

    @property
    def client(self) -> Client:
        assert self._client is not None, "use the cluster in `async with`"
        return self._client

    async def _workers(self) -> list[Node]:
        info = await self.client.scheduler.identity()
        nodes = [Node(address, str(worker.get("name", address)), str(worker.get("host", "")))
                 for address, worker in info["workers"].items()]
        return sorted(nodes, key=lambda node: (node.name, node.address))

    async def _check_versions(self) -> None:
        """Every worker runs this answerlens version, or is named and left out (refused with ``all_nodes``)."""
        workers = await self._workers()
        if not workers:
            raise ClusterError(f"the Dask scheduler at {self.address} has no workers: start them with `dask worker "
                               f"{self.address}` on each machine (answerlens {__version__} installed)")
        found = await self.client.run(cluster_task.installed_version, on_error="return")
        for node in workers:
            version = found.get(node.address)
            if isinstance(version, str) and version == __version__:
                self.nodes.append(node)
            else:
                why = (f"answerlens {version} (the driver runs {__version__})" if isinstance(version, str) else
                       f"answerlens is not installed or cannot be imported ({version})")
                self._leave_out(node, f"{why}; install answerlens {__version__} (with its [dask] extra) there")
        self.say(f"Dask cluster {self.address}: {len(workers)} worker(s); "
                 f"{', '.join(node.label for node in self.nodes) or 'none'} with answerlens {__version__} (each is "
                 "checked against the model next)")
        self._refuse_if_needed(ClusterError)

    def _leave_out(self, node: Node, why: str) -> None:
        self.left_out[node.name] = why
        self.nodes = [kept for kept in self.nodes if kept.address != node.address]
        self.say(f"worker {node.label} left out: {why}")

    def _refuse_if_needed(self, error: type[Exception], **extra: Any) -> None:
        reasons = "; ".join(f"{name}: {why}" for name, why in self.left_out.items())
        if self.left_out and (self.all_nodes or not self.nodes):
            why = "--all-nodes asks for every worker" if self.nodes else "no worker can run it"
            raise error(f"the run was not started ({why}): {reasons}", **extra)

    async def check(self, config: AnswerabilityConfig, urls: Sequence[str]) -> tuple[str, ...]:
        """The trial's preflight on every usable node (node-local: each against its own server); a node that fails
        is named and left out. The warnings, each naming its node; ``AnswerabilityError`` (kind ``preflight``)
        when no node passes, or one fails under ``all_nodes``."""
        self._config = config
        reports = await self.client.run(cluster_task.node_preflight, config, list(urls), self.node_local,
                                        workers=[node.address for node in self.nodes], on_error="return")
        warnings: list[str] = []
        for node in list(self.nodes):
            report = reports.get(node.address)
            if not isinstance(report, dict) or "problem" in report:
                self._leave_out(node, report["problem"] if isinstance(report, dict) else f"the preflight failed "
                                f"there ({type(report).__name__}: {report})")
                continue
            warnings += [f"{node.name}: {warning}" for warning in report["warnings"]]
        self._refuse_if_needed(AnswerabilityError, kind="preflight",
                               remedy="fix those nodes' servers" + (" (or leave out --all-nodes)" if self.all_nodes
                                                                    else "") + " and run it again")
        return tuple(warnings)

    async def run(self, run: ClusterRun, sink: SampleSink, config: AnswerabilityConfig,
                  urls: Sequence[str]) -> None:
        """Run the samples left as shards on the usable workers; every sample that arrives is delivered to the run
        (saved, counted); ``ClusterError`` (unfinished) when a shard failed past its retries or every checked
        worker is gone — what arrived is saved and rerunning resumes."""
        from distributed import Event, Queue

        if not self.nodes:
            raise ClusterError("no worker of the cluster can run the trial (see the lines above)")
        token = f"answerlens-{uuid.uuid4().hex[:12]}"
        queue = await Queue(token, client=self.client)
        stop = Event(f"{token}-stop", client=self.client)
        spec = cluster_task.RunSpec(queue=token, stop=f"{token}-stop", identity=run.identity, config=config,
                                    urls=tuple(urls), node_local=self.node_local, concurrency=run.concurrency,
                                    second_opinion=cluster_task.OpinionSpec.of(run.second_opinion))
        shards = plan_shards(run.todo, self.shards or len(self.nodes))
        futures = {self.client.submit(cluster_task.run_shard, work, spec, key=f"{token}-shard-{work.index}",
                                      workers=[node.address for node in self.nodes], allow_other_workers=False,
                                      retries=SHARD_RETRIES, pure=False): work for work in shards}
        watcher = asyncio.ensure_future(self._end_when_settled(list(futures), queue))
        receiver = _Receiver(self.client, run, sink, {work.index: work for work in shards})
        try:
            lost = await receiver.receive(queue, stop)
        except BaseException:  # cancelled (Ctrl-C) or a refused sample: stop every shard, keep what was saved
            await stop.set()
            await self.client.cancel(list(futures))
            raise
        finally:
            watcher.cancel()
        failed = [f"shard {work.index}/{work.count}: {future.exception()}" for future, work in futures.items()
                  if future.status == "error"]
        if (failed or lost) and not run.stopping():
            why = "; ".join(failed) or "every checked worker left the cluster"
            raise ClusterError(f"the run did not finish ({why}); the samples that arrived are saved: rerun the same "
                               "command to resume", unfinished=True)

    async def _end_when_settled(self, futures: list[Future], queue: Queue) -> None:
        """Put the end mark on the queue once every shard has settled (after its samples, which each shard put
        before returning), or once no checked worker is left to run the others."""
        waiting = {asyncio.ensure_future(_settled(future)) for future in futures}
        lost = False
        while waiting:
            _, waiting = await asyncio.wait(waiting, timeout=WATCH_S)
            if waiting:
                alive = {node.address for node in await self._workers()}
                if not alive & {node.address for node in self.nodes}:
                    lost = True
                    break
        for task in waiting:
            task.cancel()
        await queue.put({"end": True, "lost": lost})


async def _settled(future: Future) -> None:
    try:
        await future
    except BaseException:  # a failed shard is read from its future once every shard has settled
        pass


def plan_shards(todo: Sequence[tuple[LoadedCase, int]], count: int) -> list[cluster_task.ShardWork]:
    """The samples left, split by the stable shard hash (``trials.shard``) into at most ``count`` non-empty shards."""
    keys: dict[int, list[tuple[str, int]]] = defaultdict(list)
    cases: dict[int, dict[str, LoadedCase]] = defaultdict(dict)
    for item, repeat in todo:
        index = shard_number(item.case.id, repeat, count)
        keys[index].append((item.case.id, repeat))
        cases[index][item.case.id] = item
    return [cluster_task.ShardWork(index, count, tuple(cases[index].values()), tuple(keys[index]))
            for index in sorted(keys)]


class _Receiver:
    """The driver's side of the queue: samples delivered to the run, retried shards told what already arrived."""

    def __init__(self, client: Client, run: ClusterRun, sink: SampleSink,
                 shards: dict[int, cluster_task.ShardWork]) -> None:
        self.client = client
        self.run = run
        self.sink = sink
        self.shards = shards
        self.planned = {(item.case.id, repeat): item for item, repeat in run.todo}
        self.stopped = False

    async def receive(self, queue: Queue, stop: Any) -> bool:
        """Until the end mark; True when it says every checked worker was lost."""
        while True:
            batch = [await queue.get(), *await queue.get(batch=True)]
            samples = [self._sample(message["sample"]) for message in batch if "sample" in message]
            # A shard retried while its first attempt's last samples were in flight may send one twice: keep one.
            fresh = {(sample.case_id, sample.repeat): sample for sample in samples
                     if (sample.case_id, sample.repeat) not in self.run.finished}
            await asyncio.gather(*(self.run.deliver(self.sink, sample) for sample in fresh.values()))
            for message in batch:
                if "start" in message:
                    await self._tell_saved(message)
            if self.run.stopping() and not self.stopped:
                self.stopped = True
                await stop.set()
            end = next((message for message in batch if message.get("end")), None)
            if end is not None:
                return bool(end["lost"])

    def _sample(self, text: str) -> TrialSample:
        sample = TrialSample.model_validate_json(text)
        where = f"from worker {sample.node.name}" if sample.node is not None else "from an unnamed worker"
        item = self.planned.get((sample.case_id, sample.repeat))
        if item is None:
            raise ClusterError(f"{sample_label(sample)} arrived {where}, and this run did not ask for it")
        identity = self.run.identity
        problems = sample_mismatches(sample, item, dataset_sha256=identity.dataset_sha256,
                                     configuration_sha256=identity.configuration_sha256,
                                     manifest=identity.manifest_sha256)
        if problems:
            raise ClusterError(f"{sample_label(sample)} arrived {where} and is not this run's ({'; '.join(problems)}); "
                               "check that every worker runs the same answerlens and the same data")
        return sample

    async def _tell_saved(self, message: dict[str, Any]) -> None:
        """A shard starting (again): which of its samples the run already has."""
        from distributed import Variable

        work = self.shards[message["start"]]
        saved = [[case_id, repeat] for case_id, repeat in work.keys if (case_id, repeat) in self.run.finished]
        await Variable(message["token"], client=self.client).set(saved)
