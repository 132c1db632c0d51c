"""The embedded llama.cpp server: real start-up, and the clear errors around it."""

import asyncio
import re
import socket
import time
from pathlib import Path

import httpx
import pytest

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, load_bundle, verify_assessment
from answerlens.errors import LocalModelError
from answerlens.local_model import bundled_gguf, check_gguf, start_server, thread_counts, usable_cpus
from answerlens.providers.engine import CallProgress, Stage
from answerlens.samples import load_sample
from answerlens.verdict import derive_verdict
from tests import embedded
from tests.paths import REPO, SAMPLES


@pytest.mark.local_model
def test_bundled_model_is_installed_by_the_setup() -> None:
    path = bundled_gguf()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert check_gguf(path) == path


@pytest.mark.local_model
@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param(None, "GGUF file not found", id="missing"),
        pytest.param(b"not a model at all", "is not a GGUF model file", id="not_gguf"),
    ],
)
def test_bad_gguf_is_refused_before_loading(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(LocalModelError, match=message):
        start_server(path)


@pytest.mark.local_model
def test_truncated_gguf_fails_cleanly(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(bundled_gguf().read_bytes()[:4096])
    with pytest.raises(LocalModelError, match="could not load"):
        start_server(broken)


@pytest.mark.local_model
def test_busy_port_is_reported() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        with pytest.raises(LocalModelError, match=f"port {port} on 127.0.0.1 is already in use"):
            start_server(port=port)


@pytest.mark.local_model
def test_server_starts_answers_and_stops() -> None:
    server = start_server(ctx=2048)
    try:
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        assert httpx.get(server.base_url.removesuffix("/v1") + "/health", timeout=5).json()["status"] == "ok"
        assert httpx.get(server.base_url + "/models", timeout=5).status_code == 200
    finally:
        server.stop()
    assert not server.running


def test_generation_leaves_a_cpu_free_and_the_prompt_takes_them_all() -> None:
    assert thread_counts(3) == (3, 3)
    cpus = usable_cpus()
    assert thread_counts() == (max(1, cpus - 1), cpus)


# --- live assessments through the real embedded server ------------------------------------------------

TOO_LONG = {"large_platform_history": "exceeds the available context size (8192 tokens)"}
"""Samples beyond SmolLM2's 8192-token window (llama.cpp caps --ctx at the model's own): a clear error."""
NO_CALL = {"reader_without_citations"}
"""Refused before any model call (a reader bundle without citations)."""
SAMPLE_NAMES = sorted(path.stem for path in SAMPLES.glob("*.json"))


@pytest.fixture(scope="module")
def live_server():  # type: ignore[no-untyped-def]
    server = start_server(ctx=8192)  # as the app starts it
    yield server
    server.stop()


def _live_config(server, seed: int = 7) -> AnswerabilityConfig:  # type: ignore[no-untyped-def]
    return AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, timeout=120,
                               max_retries=2, seed=seed)


async def _assess(server, question: str, bundle, answer: str | None = None, **kwargs):  # type: ignore[no-untyped-def]
    async with AnswerabilityEvaluator(_live_config(server)) as evaluator:
        return await evaluator.assess(question, bundle, answer=answer, **kwargs)


def _check(assessment, bundle) -> None:  # type: ignore[no-untyped-def]
    assert assessment.model_called and assessment.provider_metadata is not None
    assert assessment.provider_metadata.engine == "llamacpp"
    assert assessment.provider_metadata.finish_reason == "stop"
    assert verify_assessment(assessment).ok
    references = bundle.context_references or {c.node.id.hex: c.node.id for _, c in bundle.candidates()}
    known = set(references.values())
    for requirement in assessment.requirements:
        assert set(requirement.evidence_ids) <= known
        if requirement.status.value == "supported":
            assert requirement.evidence_ids
    assert derive_verdict(r.status for r in assessment.requirements) == (
        assessment.verdict, assessment.recommended_action)


@pytest.mark.local_model
@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", SAMPLE_NAMES)
async def test_every_shipped_sample_gives_a_verifying_assessment(live_server, name: str) -> None:  # type: ignore[no-untyped-def]
    sample = load_sample(SAMPLES / f"{name}.json")
    bundle = sample.load()
    if name in NO_CALL:
        with pytest.raises(ValueError, match="no citation references"):
            await _assess(live_server, sample.question, bundle, sample.answer)
        return
    if name in TOO_LONG:
        with pytest.raises(AnswerabilityError) as info:
            await _assess(live_server, sample.question, bundle, sample.answer)
        assert info.value.kind == "context_too_long" and TOO_LONG[name] in str(info.value)
        assert "--ctx" in (info.value.remedy or "")
        return
    assessment = await _assess(live_server, sample.question, bundle, sample.answer)
    if assessment.model_called:
        _check(assessment, bundle)
    else:
        assert verify_assessment(assessment).ok  # the empty bundle: insufficient without a call


def sixteen_records() -> dict:  # type: ignore[type-arg]
    """A reader bundle of 16 records about services, owners and versions (the size the issue reported)."""
    services = ["billing-api", "search-indexer", "checkout", "dashboard"]
    facts = ["runs PostgreSQL {v}", "is owned by team {t}", "moved to Kubernetes in March {y}",
             "has a p99 latency of {v}0 ms"]
    records = []
    for index in range(16):
        service, fact = services[index % 4], facts[index // 4]
        text = f"{service} " + fact.format(v=12 + index, t=["Atlas", "Nova", "Orion", "Vega"][index % 4],
                                           y=2020 + index % 5)
        records.append({"text": text, "speaker": ["Maya", "Craig"][index % 2],
                        "event_time": f"2024-0{1 + index % 9}-1{index % 10}T09:00:00Z"})
    return {"records": records, "packing": {"context_format": "reader", "context_citations": True}}


@pytest.mark.local_model
@pytest.mark.timeout(300)
async def test_a_sixteen_record_bundle_gives_a_verifying_assessment(live_server) -> None:  # type: ignore[no-untyped-def]
    bundle = load_bundle(sixteen_records())
    assert bundle.included_count == 16
    assessment = await _assess(live_server, "Which database does billing-api run, and who owns checkout?", bundle)
    _check(assessment, bundle)


@pytest.mark.local_model
@pytest.mark.timeout(300)
async def test_a_repeat_with_the_same_seed_is_byte_identical(live_server) -> None:  # type: ignore[no-untyped-def]
    sample = load_sample(SAMPLES / "compact_citation_errors.json")
    first, second = [await _assess(live_server, sample.question, sample.load()) for _ in range(2)]
    assert first.raw_output_text is not None
    assert first.raw_output_text.encode() == second.raw_output_text.encode()
    assert (first.assessment_sha256, first.evaluation_id) == (second.assessment_sha256, second.evaluation_id)


@pytest.mark.local_model
@pytest.mark.timeout(300)
async def test_cancelling_stops_the_server_generating(live_server) -> None:  # type: ignore[no-untyped-def]
    sample = load_sample(SAMPLES / "speech_act_eslint.json")
    seen: list[CallProgress] = []
    started = asyncio.Event()

    def progress(step: CallProgress) -> None:
        seen.append(step)
        if step.generated >= 5:
            started.set()

    task = asyncio.create_task(_assess(live_server, sample.question, sample.load(), progress=progress))
    await asyncio.wait_for(started.wait(), 120)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stages = [step.stage for step in seen]
    assert Stage.PROMPT in stages and stages[-1] == Stage.GENERATING
    slots = live_server.base_url.removesuffix("/v1") + "/slots"
    deadline = time.monotonic() + 10
    while httpx.get(slots, timeout=5).json()[0]["is_processing"]:  # a condition with a deadline, not a pause
        assert time.monotonic() < deadline, "the server kept generating after the client hung up"
        await asyncio.sleep(0.05)


# --- where the embedded model is not installed ------------------------------------------------------------------


def test_without_the_runtime_its_tests_skip_saying_what_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(embedded.REQUIRE, raising=False)
    monkeypatch.setattr(embedded, "runtime_installed", lambda: False)
    reason = embedded.skip_reason()
    assert reason is not None and reason.startswith("the llama.cpp runtime (xllamacpp) ")
    assert "make local-model" in reason and "pip install xllamacpp" in reason


def test_make_test_requires_them_so_a_missing_runtime_fails_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded, "runtime_installed", lambda: False)
    monkeypatch.setenv(embedded.REQUIRE, "1")
    assert embedded.skip_reason() is None
    target = re.search(r"^test: (.*)\n\t(.*)$", (REPO / "Makefile").read_text(), re.M)
    assert target is not None and "dev" in target[1].split()  # dev installs the embedded model
    assert target[2].startswith(f"{embedded.REQUIRE}=1 ")
