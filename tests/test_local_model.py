"""The embedded llama.cpp server: real start-up, and the clear errors around it."""

import socket
from pathlib import Path

import httpx
import pytest

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, verify_assessment
from answerlens.errors import LocalModelError
from answerlens.local_model import bundled_gguf, check_gguf, start_server
from answerlens.samples import load_sample
from answerlens.verdict import derive_verdict
from tests.paths import SAMPLES

pytestmark = pytest.mark.local_model


def test_bundled_model_is_installed_by_the_setup() -> None:
    path = bundled_gguf()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert check_gguf(path) == path


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


def test_truncated_gguf_fails_cleanly(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(bundled_gguf().read_bytes()[:4096])
    with pytest.raises(LocalModelError, match="could not load"):
        start_server(broken)


def test_busy_port_is_reported() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        with pytest.raises(LocalModelError, match=f"port {port} on 127.0.0.1 is already in use"):
            start_server(port=port)


def test_server_starts_answers_and_stops() -> None:
    server = start_server(ctx=2048)
    try:
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        assert httpx.get(server.base_url.removesuffix("/v1") + "/health", timeout=5).json()["status"] == "ok"
        assert httpx.get(server.base_url + "/models", timeout=5).status_code == 200
    finally:
        server.stop()
    assert not server.running


# --- live assessments through the real embedded server ------------------------------------------------

# Kept to three short samples: on 2 cores each call takes seconds to a minute (see the README's numbers).
LIVE_SAMPLES = ["speech_act_eslint", "auditable_uuid_citations", "compact_citation_errors"]


@pytest.fixture(scope="module")
def live_server():  # type: ignore[no-untyped-def]
    server = start_server(ctx=4096)
    yield server
    server.stop()


def _live_config(server) -> AnswerabilityConfig:  # type: ignore[no-untyped-def]
    return AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, timeout=180,
                               max_retries=1, seed=7)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", LIVE_SAMPLES)
async def test_live_assessment_is_valid_or_a_clean_error(live_server, name: str) -> None:  # type: ignore[no-untyped-def]
    sample = load_sample(SAMPLES / f"{name}.json")
    bundle = sample.load()
    try:
        async with AnswerabilityEvaluator(_live_config(live_server)) as evaluator:
            assessment = await evaluator.assess(sample.question, bundle, answer=sample.answer)
    except AnswerabilityError as exc:
        assert exc.kind in {"schema", "not_json", "empty_content", "truncated", "timeout", "context_too_long"}, exc
        assert exc.model == "smollm2" and exc.remedy
        return
    assert assessment.model_called and assessment.provider_metadata is not None
    assert assessment.provider_metadata.engine == "llamacpp"
    assert verify_assessment(assessment).ok
    references = bundle.context_references or {c.node.id.hex: c.node.id for _, c in bundle.candidates()}
    known = set(references.values())
    for requirement in assessment.requirements:
        assert set(requirement.evidence_ids) <= known
        if requirement.status.value == "supported":
            assert requirement.evidence_ids
    assert derive_verdict(r.status for r in assessment.requirements) == (
        assessment.verdict, assessment.recommended_action)


@pytest.mark.timeout(900)
async def test_identical_live_calls_give_identical_raw_output(live_server) -> None:  # type: ignore[no-untyped-def]
    sample = load_sample(SAMPLES / "compact_citation_errors.json")
    hashes = []
    for _ in range(2):
        try:
            async with AnswerabilityEvaluator(_live_config(live_server)) as evaluator:
                assessment = await evaluator.assess(sample.question, sample.load())
            hashes.append(assessment.raw_output_sha256)
        except AnswerabilityError as exc:
            hashes.append(f"error:{exc.kind}:{exc.raw_excerpt}")
    assert hashes[0] == hashes[1]
