"""``trial`` and ``sweep`` on a Dask cluster: the options, the cluster they describe, its exit codes.

Only the standard library at module level (the parser is built without Dask, pydantic or httpx).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from answerlens.cli.common import EXIT_PROVIDER, EXIT_UNFINISHED, UsageError, fail

if TYPE_CHECKING:
    from answerlens.engine.cluster import DaskCluster
    from answerlens.errors import ClusterError

T = TypeVar("T")


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dask", metavar="tcp://HOST:PORT",
                        help="run the shards as tasks on the Dask cluster whose scheduler is at this address "
                        "(pip install 'answerlens[dask]'); samples are written here as they arrive")
    parser.add_argument("--shards", type=int, metavar="N", help="with --dask: shards to plan (default: one per worker)")
    parser.add_argument("--node-local-endpoint", metavar="URL",
                        help="with --dask: each task calls the model server on its own node, this URL as that node "
                        "sees it (e.g. http://127.0.0.1:11434/v1; $NAME is read from the worker's environment)")
    parser.add_argument("--all-nodes", action="store_true",
                        help="with --dask: refuse the run when a worker fails its checks, instead of leaving it out")


def cluster_from(args: argparse.Namespace, endpoints: list[str]) -> DaskCluster | None:
    """The cluster the options name (None without ``--dask``); a combination that makes no sense is a
    ``UsageError``. With ``--node-local-endpoint`` and no ``--base-url``, the URL as given names the server in the
    configuration (the same on every node, so every sample has one configuration hash)."""
    given = [name for name, value in (("--shards", args.shards), ("--node-local-endpoint", args.node_local_endpoint),
                                      ("--all-nodes", args.all_nodes)) if value]
    if args.dask is None:
        if given:
            named = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
            raise UsageError(f"{named} need{'s' if len(given) == 1 else ''} --dask tcp://HOST:PORT")
        return None
    try:
        import distributed  # noqa: F401 - only with --dask
    except ImportError:
        raise UsageError("--dask needs Dask's distributed scheduler, which is not installed here: "
                         "pip install 'answerlens[dask]'") from None
    if getattr(args, "shard", None):
        raise UsageError("--shard K/N runs one shard here; with --dask the cluster runs every shard (use --shards N)")
    if args.shards is not None and not 1 <= args.shards <= 1_024:
        raise UsageError("--shards must be between 1 and 1,024")
    if args.node_local_endpoint:
        if endpoints:
            raise UsageError("--node-local-endpoint replaces --endpoint/--endpoints: each node calls its own server")
        if not args.base_url:
            if "$" in args.node_local_endpoint:
                raise UsageError("a node-local endpoint with $NAME in it names no one server: pass --base-url URL "
                                 "(recorded in the configuration, e.g. http://node-local:11434/v1)")
            args.base_url = args.node_local_endpoint
    from answerlens.engine.cluster import DaskCluster

    return DaskCluster(args.dask, shards=args.shards, node_local=args.node_local_endpoint, all_nodes=args.all_nodes,
                       say=lambda line: print(f"answerlens: {line}", file=sys.stderr, flush=True))


async def on_cluster(cluster: DaskCluster | None, start: Callable[[Any], Awaitable[T]]) -> T:
    """``start(cluster)`` inside the cluster's connection (``start(None)`` without one)."""
    if cluster is None:
        return await start(None)
    async with cluster:
        return await start(cluster)


def cluster_exit(exc: ClusterError) -> int:
    """A run that did not finish on the cluster resumes (5); one that could not start is 3, as a preflight."""
    return fail(EXIT_UNFINISHED if exc.unfinished else EXIT_PROVIDER, str(exc))


def node_progress(nodes: tuple[tuple[str, int], ...]) -> str:
    return "  nodes " + " · ".join(f"{name} {count}" for name, count in nodes) if nodes else ""
