"""Trials and sweeps on a real Dask cluster (``--dask``): a ``dask scheduler`` and three named ``dask worker``
processes on 127.0.0.1, loopback model servers. The result equals a one-machine run's, verifies, ran on several
nodes; ``--node-local-endpoint`` reaches each node's own server and leaves out a node that fails its preflight; a
worker killed mid-run is retried with nothing lost or duplicated; Ctrl-C leaves a folder that resumes; a worker
without this answerlens is named before anything runs."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from answerlens.cli import main
from answerlens.engine.cluster import plan_shards
from answerlens.engine.cluster_task import node_endpoint
from answerlens.errors import TrialError
from answerlens.trials.dataset import load_dataset
from answerlens.trials.shard import shard_number
from tests.context_server import context_server
from tests.engine.dask_cluster import LoopbackCluster, loopback_cluster
from tests.oracle_server import OracleServer, judgement, oracle_server
from tests.paths import REPO
from tests.scripted_server import closed_port
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data
from tests.trials.helpers import REPLIES, question_cases, write_dataset

TIMING = {"latency_ms", "finished_at", "wall_seconds"}
NODES = ("w1", "w2", "w3")


def comparable(value: Any) -> Any:
    """A run's JSON without what may differ between a cluster and one machine: timings, where a sample ran."""
    if isinstance(value, dict):
        return {key: "<timing>" if key in TIMING else comparable(item) for key, item in value.items() if key != "node"}
    if isinstance(value, list):
        return [comparable(item) for item in value]
    return value


def sample_files(out: Path) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted((out / "samples").glob("*.json"))]


def multiset(samples: list[dict[str, Any]]) -> Counter[str]:
    return Counter(json.dumps(comparable(sample), sort_keys=True) for sample in samples)


def node_replies(name: str) -> dict[str, Any]:
    return {f"Q {case_id}": judgement(("Database", "supported", ["m1"]), reasoning=f"answered on {name}")
            for case_id in ("a1", "a2", "a3", "u1", "u2", "u3")}


@dataclass
class Lab:
    folder: Path
    cluster: LoopbackCluster
    shared: OracleServer
    nodes: dict[str, OracleServer]
    dataset: Path

    def trial(self, out: str, *extra: str, base_url: str | None = None) -> list[str]:
        return ["trial", str(self.dataset), "--repeats", "3", "--concurrency", "2", "--out", str(self.folder / out),
                "--provider", "openai", "--model", "oracle", "--base-url", base_url or self.shared.base_url,
                "--timeout", "10", "--max-retries", "0", *extra]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """One shared model server; w1 and w2 each have a server of their own on their node (the port in their
    environment, as a job script would set it); w3's names a port nobody listens on."""
    folder = tmp_path_factory.mktemp("dask")
    with ExitStack() as stack:
        shared = stack.enter_context(oracle_server(REPLIES, models=("oracle",)))
        nodes = {name: stack.enter_context(oracle_server(node_replies(name), models=("oracle",)))
                 for name in ("w1", "w2")}
        ports = {name: str(server.server_address[1]) for name, server in nodes.items()} | {"w3": str(closed_port())}
        cluster = stack.enter_context(loopback_cluster(folder / "dask-processes",
                                                       {name: {"MODEL_PORT": ports[name]} for name in NODES}))
        yield Lab(folder, cluster, shared, nodes, write_dataset(folder / "cases.json", question_cases()))


def test_every_process_of_the_cluster_listens_on_loopback_only(lab: Lab) -> None:
    assert set(lab.cluster.processes) == {"scheduler", *NODES}
    assert lab.cluster.listening() == {"127.0.0.1"}


def test_a_trial_on_the_cluster_equals_a_one_machine_run(lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    one = main(lab.trial("one"))
    code = main(lab.trial("cluster", "--dask", lab.cluster.address))
    err = capsys.readouterr().err
    assert code == one
    assert "3 worker(s); w1 (127.0.0.1), w2 (127.0.0.1), w3 (127.0.0.1) with answerlens " in err
    single, spread = (json.loads((lab.folder / name / "result.json").read_text()) for name in ("one", "cluster"))
    assert json.dumps(comparable(spread), indent=2) == json.dumps(comparable(single), indent=2)  # key order too
    assert multiset(sample_files(lab.folder / "cluster")) == multiset(sample_files(lab.folder / "one"))
    ran = Counter(sample["node"]["name"] for sample in spread["samples"])
    assert len(ran) > 1 and sum(ran.values()) == 18 and set(ran) <= set(NODES)
    assert all("node" not in sample for sample in single["samples"])
    assert "samples per node:" in err and "w1 (127.0.0.1)" in err.split("samples per node:")[1]
    assert main(["verify", str(lab.folder / "cluster"), "--dataset", str(lab.dataset)]) == 0
    assert main(lab.trial("cluster", "--dask", lab.cluster.address)) == code  # a rerun resumes: nothing left to do
    assert "0 new, 18 resumed" in capsys.readouterr().err


def test_a_second_opinion_is_given_on_the_nodes(lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    """The verifier is rebuilt on each node from its configuration (a loaded verifier does not travel)."""
    assert main(lab.trial("opinion-one", "--second-opinion")) == main(
        lab.trial("opinion-cluster", "--second-opinion", "--dask", lab.cluster.address, "--shards", "2"))
    capsys.readouterr()
    single, spread = (json.loads((lab.folder / name / "result.json").read_text())
                      for name in ("opinion-one", "opinion-cluster"))
    assert json.dumps(comparable(spread), indent=2) == json.dumps(comparable(single), indent=2)
    assert all(sample["second_opinion"] for sample in spread["samples"] if sample["assessment"])


def test_a_sweep_on_the_cluster_equals_a_one_machine_sweep(lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = lab.folder / "sweep-bundle.json"
    bundle.write_text(json.dumps(bundle_data()))
    with context_server(REQUIREMENTS) as server:
        def sweep(out: str, *extra: str) -> int:
            return main(["sweep", str(bundle), "-q", QUESTION, "--provider", "openai", "--model", "context-oracle",
                         "--base-url", server.base_url, "--out", str(lab.folder / out), "--repeats", "2",
                         "--format", "compact", "--format", "auditable", "--budget", "packed", "--budget", "90%",
                         *extra])

        assert sweep("sweep-one") == 0
        assert sweep("sweep-cluster", "--dask", lab.cluster.address, "--shards", "4") == 0
    capsys.readouterr()
    single, spread = (json.loads((lab.folder / name / "result.json").read_text())
                      for name in ("sweep-one", "sweep-cluster"))
    assert json.dumps(comparable(spread), indent=2) == json.dumps(comparable(single), indent=2)
    assert multiset(sample_files(lab.folder / "sweep-cluster")) == multiset(sample_files(lab.folder / "sweep-one"))
    assert len({sample["node"]["name"] for sample in sample_files(lab.folder / "sweep-cluster")}) > 1
    assert main(["verify", str(lab.folder / "sweep-cluster")]) == 0


def test_node_local_endpoints_reach_each_node_s_own_server(lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    local = ["--dask", lab.cluster.address, "--node-local-endpoint", "http://127.0.0.1:${MODEL_PORT}/v1"]
    refused = main(lab.trial("all-nodes", *local, "--all-nodes", base_url="http://node-local/v1"))
    err = capsys.readouterr().err
    assert refused == 3 and "w3" in err and "--all-nodes" in err
    assert not (lab.folder / "all-nodes").exists()  # refused before the folder was made

    main(lab.trial("node-local", *local, base_url="http://node-local/v1"))
    err = capsys.readouterr().err
    left_out = re.search(r"worker w3 \(127\.0\.0\.1\) left out: http://127\.0\.0\.1:(\d+)/v1: ", err)
    assert left_out is not None and left_out.group(1) not in (lab.nodes["w1"].base_url + lab.nodes["w2"].base_url)
    result = json.loads((lab.folder / "node-local" / "result.json").read_text())
    assert result["configuration"]["base_url"] == "http://node-local/v1"
    ran = Counter(sample["node"]["name"] for sample in result["samples"])
    assert set(ran) == {"w1", "w2"} and sum(ran.values()) == 18
    for sample in result["samples"]:
        node = sample["node"]["name"]
        assert sample["assessment"]["reasoning"] == f"answered on {node}"
        assert sample["assessment"]["provider_metadata"]["base_url"] == lab.nodes[node].base_url
    assert main(["verify", str(lab.folder / "node-local"), "--dataset", str(lab.dataset)]) == 0


def test_ctrl_c_cancels_the_shards_and_the_folder_resumes(lab: Lab, tmp_path: Path) -> None:
    with oracle_server(REPLIES, models=("oracle",), hold_after=4) as server:
        args = lab.trial("interrupted", "--dask", lab.cluster.address, base_url=server.base_url)
        # Ctrl-C as at a terminal: a test run started from a shell's background job (CI scripts) inherits SIGINT
        # ignored, and a child keeps an ignored SIGINT ignored.
        driver = subprocess.Popen([sys.executable, "-m", "answerlens.cli", *args], cwd=REPO,
                                  stderr=subprocess.PIPE, text=True,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        assert server.wait_held(2, timeout=120)
        driver.send_signal(signal.SIGINT)
        _, err = driver.communicate(timeout=120)
        assert driver.returncode == 130, err
        assert "rerun the same command to resume" in err
        saved = len(sample_files(lab.folder / "interrupted"))
        assert saved <= 4
        server.release.set()
        assert main(args) in (0, 1)
    assert len(sample_files(lab.folder / "interrupted")) == 18
    assert main(["verify", str(lab.folder / "interrupted"), "--dataset", str(lab.dataset)]) == 0


def test_the_early_stop_sees_every_node_s_failures(lab: Lab, capsys: pytest.CaptureFixture[str]) -> None:
    """The driver counts the samples as they arrive from all nodes: the first calls all failing alike stop every
    shard, with the one-machine exit code and message and no result; the rerun resumes."""
    failing = {question: 500 for question in REPLIES}
    with oracle_server(failing, models=("oracle",)) as server:
        args = lab.trial("stopped", "--dask", lab.cluster.address, "--early-stop", "3", base_url=server.base_url)
        assert main(args) == 3 and "stopped early" in capsys.readouterr().err
        assert not (lab.folder / "stopped" / "result.json").exists()
        server.replies.update(REPLIES)  # the server is fixed
        assert main(args) in (0, 1)
    assert main(["verify", str(lab.folder / "stopped"), "--dataset", str(lab.dataset)]) == 0


def test_a_worker_killed_mid_run_is_retried_and_nothing_is_lost_or_duplicated(tmp_path: Path) -> None:
    """Shard 2 of 2 holds its last case until its worker is killed; Dask reruns the shard on the other worker,
    which asks only for what had not arrived: every sample once, the killed node's samples kept."""
    held = next(f"h{n}" for n in range(1000) if all(shard_number(f"h{n}", r, 2) == 2 for r in range(3)))
    cases = [*question_cases(), {"id": held, "question": f"Q {held}", "label": "answerable", "bundle": {
        "records": [{"text": "The API uses Postgres 16."}]}}]
    dataset = write_dataset(tmp_path / "cases.json", cases)
    out = tmp_path / "out"
    with oracle_server(REPLIES, models=("oracle",), hold=frozenset({f"Q {held}"})) as server, \
            loopback_cluster(tmp_path / "cluster", {"w1": {}, "w2": {}}) as cluster:
        args = ["trial", str(dataset), "--repeats", "3", "--concurrency", "1", "--out", str(out), "--provider",
                "openai", "--model", "oracle", "--base-url", server.base_url, "--max-retries", "0", "--dask",
                cluster.address]
        codes: list[int] = []
        driver = threading.Thread(target=lambda: codes.append(main(args)))
        driver.start()
        assert server.wait_held(1, timeout=120)
        killed = cluster.running("-shard-2")
        cluster.kill(killed)
        server.release.set()
        driver.join(timeout=240)
    assert codes and codes[0] in (0, 1)
    result = json.loads((out / "result.json").read_text())
    keys = Counter((sample["case_id"], sample["repeat"]) for sample in result["samples"])
    assert len(keys) == 21 and set(keys.values()) == {1}
    assert sum(server.requests.values()) == 21 + 1  # only the held request, lost with its worker, was asked again
    ran = {(sample["case_id"], sample["repeat"]): sample["node"]["name"] for sample in result["samples"]}
    shard_two = [key for key in ran if shard_number(*key, 2) == 2]
    assert {ran[key] for key in shard_two if key[0] != held} == {killed}  # what arrived before the kill is kept
    assert {ran[key] for key in shard_two if key[0] == held} == {"w1", "w2"} - {killed}
    assert main(["verify", str(out), "--dataset", str(dataset)]) == 0


def test_a_worker_without_this_answerlens_is_named_and_left_out(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other_version.py"
    other.write_text("import answerlens.version\nanswerlens.version.__version__ = '0.0.1'\n")
    missing = tmp_path / "no_answerlens.py"
    missing.write_text("import sys\nfor name in [m for m in sys.modules if m.startswith('answerlens')]:\n"
                       "    del sys.modules[name]\nsys.modules['answerlens'] = None\n")
    dataset = write_dataset(tmp_path / "cases.json", question_cases()[:2])
    with oracle_server(REPLIES, models=("oracle",)) as server, loopback_cluster(
            tmp_path / "cluster", {"good": {}, "older": {}, "bare": {}},
            preloads={"older": other, "bare": missing}) as cluster:
        args = ["trial", str(dataset), "--repeats", "2", "--out", str(tmp_path / "out"), "--provider", "openai",
                "--model", "oracle", "--base-url", server.base_url, "--dask", cluster.address]
        assert main([*args, "--all-nodes"]) == 3
        err = capsys.readouterr().err
        assert "older (127.0.0.1) left out: answerlens 0.0.1 (the driver runs 0.1.0)" in err
        assert "bare (127.0.0.1) left out: answerlens is not installed or cannot be imported" in err
        assert not (tmp_path / "out").exists()
        assert main(args) in (0, 1)
    result = json.loads((tmp_path / "out" / "result.json").read_text())
    assert {sample["node"]["name"] for sample in result["samples"]} == {"good"}


def test_dask_options_are_checked_before_anything_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    base = ["trial", str(dataset), "--out", str(tmp_path / "out")]
    assert main([*base, "--shards", "3"]) == 2
    assert "--shards needs --dask" in capsys.readouterr().err
    assert main([*base, "--shards", "3", "--all-nodes"]) == 2
    assert "--shards and --all-nodes need --dask" in capsys.readouterr().err
    assert main([*base, "--dask", "tcp://127.0.0.1:1", "--shard", "1/2"]) == 2
    assert main([*base, "--dask", "tcp://127.0.0.1:1", "--node-local-endpoint", "http://127.0.0.1:${P}/v1"]) == 2
    assert "pass --base-url" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_without_distributed_dask_says_how_to_install_it(tmp_path: Path) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    code = ("import sys; sys.modules['distributed'] = None; from answerlens.cli import main; "
            f"sys.exit(main(['trial', {str(dataset)!r}, '--out', {str(tmp_path / 'out')!r}, '--dask', 'tcp://x:1']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 2
    assert "pip install 'answerlens[dask]'" in done.stderr


def test_an_unreachable_scheduler_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset = write_dataset(tmp_path / "cases.json", question_cases())
    address = f"tcp://127.0.0.1:{closed_port()}"
    assert main(["trial", str(dataset), "--out", str(tmp_path / "out"), "--dask", address]) == 3
    assert f"cannot reach the Dask scheduler at {address}" in capsys.readouterr().err


def test_shards_split_what_is_left_by_the_stable_hash(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    todo = [(item, repeat) for item in dataset.cases for repeat in range(3)]
    shards = plan_shards(todo[1:], 4)
    keys = [key for work in shards for key in work.keys]
    assert sorted(keys) == sorted((item.case.id, repeat) for item, repeat in todo[1:])
    for work in shards:
        assert all(shard_number(case_id, repeat, 4) == work.index for case_id, repeat in work.keys)
        assert {item.case.id for item in work.cases} == {case_id for case_id, _ in work.keys}


def test_a_node_local_url_takes_the_worker_s_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL_PORT", "8001")
    assert node_endpoint("http://127.0.0.1:${MODEL_PORT}/v1") == "http://127.0.0.1:8001/v1"
    assert node_endpoint("http://127.0.0.1:11434/v1") == "http://127.0.0.1:11434/v1"
    monkeypatch.delenv("MODEL_PORT")
    with pytest.raises(TrialError, match="does not set"):
        node_endpoint("http://127.0.0.1:$MODEL_PORT/v1")
    assert os.environ.get("MODEL_PORT") is None
