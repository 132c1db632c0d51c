"""``AnswerabilityEvaluator`` and ``assess_answerability`` end to end, over a real loopback server.

Real PRME bundles go in; what reaches the server is read back from its record; what comes out is the
assessment a user would see.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from pydantic import SecretStr

from answerlens import (
    AnswerabilityConfig,
    AnswerabilityError,
    AnswerabilityEvaluator,
    assess_answerability,
    load_bundle,
)
from answerlens.prompts import prompt_for
from answerlens.recording import Recording, ReplyOrigin
from tests.paths import PRME  # noqa: E402
from tests.scripted_server import (
    ScriptedServer,
    closed_port,
    ollama_chat,
    openai_chat,
    scripted_server_fixture,  # noqa: F401  (provides the `scripted_server` fixture)
)

BUNDLES = PRME / "bundles"
READER = BUNDLES / "bundle_reader_citations.json"
PRME_QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"
PRME_RAW = (PRME / "assessments" / "raw_output_reader_openai.json").read_text()
SECRET = "sk-PLANTED-123"

CACHE_ID = "058174e2-f93c-468d-9e87-17703afc81da"


def raw(*requirements: tuple[str, str, list[str]], reasoning: str = "Checked each requirement.") -> str:
    return json.dumps({
        "requirements": [
            {"requirement": text, "status": status, "evidence_refs": refs, "explanation": f"{status} by {refs}"}
            for text, status, refs in requirements
        ],
        "reasoning": reasoning,
    })


CACHE_SUPPORTED = raw(("Cache used by the dashboard API", "supported", ["m1"]))
LINT_UNSUPPORTED = raw(("Lint rules the user enforced", "unsupported", ["m3"]),
                       reasoning="m3 is an attempt, not enforcement.")


def config(server: ScriptedServer, provider: str = "ollama", **overrides: Any) -> AnswerabilityConfig:
    settings: dict[str, Any] = {"provider": provider, "model": "qwen3.5:9b", "base_url": server.base_url,
                                "api_key": SecretStr(SECRET), "timeout": 3.0, "max_retries": 0}
    settings.update(overrides)
    return AnswerabilityConfig(**settings)


async def test_design_section_2_example_runs_verbatim(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat(LINT_UNSUPPORTED), ollama_chat(raw(
        ("Lint rules the user enforced", "unsupported", []),
        ("The user enforced the airbnb rules", "unsupported", ["m3"]),
    )))
    bundle = str(READER)
    question = "Which lint rules did I enforce?"
    seen: list[str] = []

    # --- DESIGN.md §2, verbatim except for the base_url, which points at the loopback server -----------
    from pydantic import SecretStr

    from answerlens import AnswerabilityConfig, AnswerabilityEvaluator

    evaluator = AnswerabilityEvaluator(AnswerabilityConfig(
        provider="ollama", model="qwen3.5:9b",
        base_url=scripted_server.base_url, api_key=SecretStr("ollama")))
    assessment = await evaluator.assess("Which lint rules did I enforce?", bundle)        # bundle: see §3
    seen.append(assessment.recommended_action.value)
    assessment = await evaluator.assess(question, bundle, answer="You enforced airbnb.")  # also checks a draft
    match assessment.recommended_action.value:
        case "answer" | "answer_partially" | "surface_conflict" | "abstain": ...
    # --- end of the example ------------------------------------------------------------------------------
    seen.append(assessment.recommended_action.value)
    await evaluator.aclose()

    assert seen == ["abstain", "abstain"]
    assert assessment.verdict.value == "insufficient"
    assert assessment.answer_sha256 is not None
    first, second = scripted_server.requests_to("/api/chat")
    assert first.header("Authorization") == "Bearer ollama"
    assert "DRAFT ANSWER" not in first.json["messages"][1]["content"]
    assert "DRAFT ANSWER TO VERIFY:\nYou enforced airbnb.\n" in second.json["messages"][1]["content"]


async def test_prme_reply_gives_prme_decisions(scripted_server: ScriptedServer) -> None:
    # The scripted reply PRME was run with, over an OpenAI-compatible wire: same validation, same verdict.
    published = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
    scripted_server.script("/v1/chat/completions", openai_chat(PRME_RAW))

    assessment = await assess_answerability(PRME_QUESTION, READER, config=config(scripted_server, "openai"))

    assert assessment.verdict.value == published["verdict"]
    assert assessment.recommended_action.value == published["recommended_action"]
    assert list(assessment.citation_errors) == published["citation_errors"]
    assert list(assessment.missing_information) == published["missing_information"]
    assert [(r.status.value, list(r.evidence_refs), [str(i) for i in r.evidence_ids])
            for r in assessment.requirements] == [
        (r["status"], r["evidence_refs"], r["evidence_ids"]) for r in published["requirements"]]
    assert assessment.raw_output == json.loads(PRME_RAW)
    assert assessment.query_sha256 == published["query_sha256"]
    assert assessment.context_sha256 == published["context_sha256"]


@pytest.mark.parametrize(
    ("name", "ref"),
    [
        pytest.param("bundle_reader_citations.json", "m1", id="reader"),
        pytest.param("bundle_compact.json", "m1", id="compact"),
        pytest.param("bundle_auditable.json", CACHE_ID, id="auditable"),
    ],
)
async def test_every_prme_format_is_assessed(scripted_server: ScriptedServer, name: str, ref: str) -> None:
    scripted_server.script("/api/chat", ollama_chat(raw(("Cache used by the dashboard API", "supported", [ref]))))
    path = BUNDLES / name

    assessment = await assess_answerability("What cache does the dashboard API use?", path,
                                            config=config(scripted_server))

    assert assessment.verdict.value == "answerable"
    assert [str(i) for i in assessment.requirements[0].evidence_ids] == [CACHE_ID]
    sent = scripted_server.requests[0].json["messages"][1]["content"]
    assert sent.endswith(load_bundle(path).render().strip())


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(lambda: READER, id="path"),
        pytest.param(lambda: str(READER), id="str_path"),
        pytest.param(lambda: json.loads(READER.read_text()), id="dict"),
        pytest.param(lambda: load_bundle(READER), id="memory_bundle"),
    ],
)
async def test_bundle_sources(scripted_server: ScriptedServer, source: Any) -> None:
    scripted_server.script("/api/chat", ollama_chat(CACHE_SUPPORTED))
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        assessment = await evaluator.assess("What cache does the dashboard API use?", source())
    assert assessment.verdict.value == "answerable"


def _auditable_without_exact_ids() -> dict[str, Any]:
    # Records are there, but no `"id":"<uuid>"` occurs in the exact context: nothing can be cited.
    data = json.loads((BUNDLES / "bundle_auditable.json").read_text())
    data["rendered_context"] = data["rendered_context"].replace('"id":"', '"id": "')
    return data


NO_EVIDENCE = [
    pytest.param({"sections": {}, "rendered_context": "", "context_format": "reader", "context_references": {}},
                 id="empty_bundle"),
    pytest.param({"records": []}, id="empty_simple_bundle"),
    pytest.param(_auditable_without_exact_ids(), id="no_valid_tokens"),
]


@pytest.mark.parametrize("bundle", NO_EVIDENCE)
async def test_no_evidence_is_insufficient_without_a_model_call(scripted_server: ScriptedServer,
                                                                bundle: dict[str, Any]) -> None:
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        assessment = await evaluator.assess("Which lint rules did I enforce?", bundle)

    assert scripted_server.requests == []
    assert (assessment.verdict.value, assessment.recommended_action.value) == ("insufficient", "abstain")
    assert assessment.model_called is False
    assert [r.requirement for r in assessment.requirements] == ["Evidence needed to answer the question"]
    assert assessment.provider_metadata is None


@pytest.mark.parametrize(
    ("query", "answer", "message"),
    [
        pytest.param("", None, "query", id="empty_query"),
        pytest.param(" \n\t", None, "query", id="blank_query"),
        pytest.param("Which cache?", "", "answer", id="empty_answer"),
        pytest.param("Which cache?", "   ", "answer", id="blank_answer"),
    ],
)
async def test_blank_inputs_raise_before_any_request(scripted_server: ScriptedServer, query: str,
                                                     answer: str | None, message: str) -> None:
    async with AnswerabilityEvaluator(config(scripted_server)) as evaluator:
        with pytest.raises(ValueError, match=message):
            await evaluator.assess(query, READER, answer=answer)
        with pytest.raises(ValueError, match=message):
            await evaluator.assess(query, {"records": []}, answer=answer)  # even with nothing to send
    assert scripted_server.requests == []


async def test_reader_bundle_without_citations_raises_before_any_request(scripted_server: ScriptedServer) -> None:
    with pytest.raises(ValueError, match="context_citations=True"):
        await assess_answerability("Which cache?", BUNDLES / "bundle_reader_plain.json",
                                   config=config(scripted_server))
    assert scripted_server.requests == []


async def test_one_client_is_reused_and_closed(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", *[ollama_chat(CACHE_SUPPORTED)] * 4)
    question = "What cache does the dashboard API use?"

    evaluator = AnswerabilityEvaluator(config(scripted_server))
    first = await evaluator.assess(question, READER)
    second = await evaluator.assess(question, READER)
    await evaluator.aclose()
    await evaluator.aclose()  # closing twice is harmless
    third = await evaluator.assess(question, READER)  # a closed evaluator opens a fresh client
    await evaluator.aclose()
    async with AnswerabilityEvaluator(config(scripted_server)) as scoped:
        await scoped.assess(question, READER)

    ports = [request.client_port for request in scripted_server.requests]
    assert ports[0] == ports[1]  # one keep-alive connection, so one client, served both calls
    assert len(set(ports)) == 3
    assert first.evaluation_id == second.evaluation_id == third.evaluation_id
    assert first.assessment_sha256 == second.assessment_sha256


async def test_evaluator_and_config_reprs_hide_the_key(scripted_server: ScriptedServer) -> None:
    evaluator = AnswerabilityEvaluator(config(scripted_server))
    assert SECRET not in repr(evaluator)
    assert "qwen3.5:9b" in repr(evaluator)


async def test_failure_never_becomes_a_verdict() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    cfg = AnswerabilityConfig(base_url=base_url, api_key=SecretStr(SECRET), timeout=2.0)
    with pytest.raises(AnswerabilityError) as info:
        await assess_answerability("Which cache?", READER, config=cfg)
    assert info.value.kind == "connection_refused"
    assert SECRET not in repr(info.value)


async def test_replay_provider_makes_no_request(scripted_server: ScriptedServer) -> None:
    recording = Recording.of(CACHE_SUPPORTED, author="demo-model", source="demo.json")
    async with AnswerabilityEvaluator(AnswerabilityConfig(provider="replay"), recording=recording) as evaluator:
        assessment = await evaluator.assess("What cache does the dashboard API use?", READER)
    assert assessment.verdict.value == "answerable"
    metadata = assessment.provider_metadata
    assert metadata is not None and scripted_server.requests == []
    assert (metadata.engine, metadata.origin, metadata.recorded) == ("replay", ReplyOrigin.RECORDED, True)
    assert metadata.recording == recording.ref and assessment.origin == ReplyOrigin.RECORDED
    assert assessment.raw_output_sha256 == recording.sha256
    dumped = assessment.model_dump(mode="json")
    assert dumped["provider_metadata"]["recorded"] is True  # kept in dumps for readers of older files
    assert type(assessment).model_validate(dumped) == assessment


async def test_replay_provider_without_a_recording_fails_clearly() -> None:
    async with AnswerabilityEvaluator(AnswerabilityConfig(provider="replay")) as evaluator:
        with pytest.raises(AnswerabilityError) as info:
            await evaluator.assess("What cache does the dashboard API use?", READER)
    assert info.value.kind == "no_recording"
    assert "recording=" in str(info.value)


# --- prompt="prme": PRME 0.15.0's prompt, schema and identity; a live call reproduces PRME's published run ----

FIXTURES = PRME
PRME_PROMPT_SHA256 = "51db73f014f22bf2c5b70a36b42fa5e7118b2d2ab8a7c5b6fca277ed09d65316"
PRME_BASE_URL = "http://127.0.0.1:18765/v1"
"""The recorded configuration's base URL: it is hashed into configuration_sha256, so the server listens there."""


def prme_run_config(**overrides: Any) -> AnswerabilityConfig:
    """The configuration recorded in shared/prme/README.md for the published run, with PRME's prompt."""
    settings: dict[str, Any] = {"provider": "openai", "model": "stub-model", "base_url": PRME_BASE_URL,
                                "max_retries": 0, "timeout": 20.0, "temperature": 0.0, "reasoning_effort": None,
                                "api_key": SecretStr(SECRET), "prompt": "prme", **overrides}
    return AnswerabilityConfig(**settings)


@pytest.fixture(name="prme_port_server")
def prme_port_server_fixture() -> Any:
    with ScriptedServer(port=18765) as server:
        yield server


async def test_live_call_with_prmes_prompt_reproduces_the_published_assessment(prme_port_server: ScriptedServer
                                                                                 ) -> None:
    published = json.loads((FIXTURES / "assessments" / "assessment_reader_openai.json").read_text())
    raw = (FIXTURES / "assessments" / "raw_output_reader_openai.json").read_text()
    prme_port_server.script("/v1/chat/completions", openai_chat(raw))
    bundle = FIXTURES / "bundles" / "bundle_reader_citations.json"

    async with AnswerabilityEvaluator(prme_run_config()) as evaluator:
        assessment = await evaluator.assess(PRME_QUESTION, bundle)

    assert prme_port_server.base_url == PRME_BASE_URL
    assert assessment.prme_dict() == published  # every field, evaluation_id and assessment_sha256 included
    assert assessment.provider_metadata is not None and not assessment.provider_metadata.recorded
    (request,) = prme_port_server.requests_to("/v1/chat/completions")
    system, user = request.json["messages"]
    assert system == {"role": "system", "content": prompt_for("prme").system}
    assert hashlib.sha256(system["content"].encode()).hexdigest() == PRME_PROMPT_SHA256
    context = load_bundle(bundle).render().strip()
    assert user == {"role": "user", "content": f"QUESTION:\n{PRME_QUESTION}\n\nRETRIEVED MEMORY DATA:\n{context}"}
    schema = json.loads((FIXTURES / "assessments" / "answerability_response_schema.json").read_text())
    assert request.json["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "_RawAssessment", "schema": schema, "strict": False}}


async def test_prmes_draft_message_and_ollama_format(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat(CACHE_SUPPORTED))
    cfg = config(scripted_server, prompt="prme")
    async with AnswerabilityEvaluator(cfg) as evaluator:
        assessment = await evaluator.assess(PRME_QUESTION, READER, answer="  The API uses MySQL.  ")
    (request,) = scripted_server.requests_to("/api/chat")
    context = load_bundle(READER).render().strip()
    assert request.json["messages"][1]["content"] == (
        f"QUESTION:\n{PRME_QUESTION}\n\nDRAFT ANSWER TO VERIFY:\nThe API uses MySQL.\n\nAlso decompose every "
        "factual claim in the draft. A question requirement the draft omits remains unsupported.\n\n"
        f"RETRIEVED MEMORY DATA:\n{context}")
    assert request.json["format"] == json.loads(
        (FIXTURES / "assessments" / "answerability_response_schema.json").read_text())
    assert (assessment.prompt_version, assessment.prompt_sha256) == ("answerability_requirements_v2",
                                                                     PRME_PROMPT_SHA256)


async def test_the_prompt_choice_is_recorded_by_its_identity_not_in_the_configuration_hash(
        scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat(CACHE_SUPPORTED), ollama_chat(CACHE_SUPPORTED))
    question = "What cache does the dashboard API use?"
    async with AnswerabilityEvaluator(config(scripted_server)) as ours:
        default = await ours.assess(question, READER)
    async with AnswerabilityEvaluator(config(scripted_server, prompt="prme")) as theirs:
        prme = await theirs.assess(question, READER)
    assert default.configuration_sha256 == prme.configuration_sha256
    assert (default.prompt_version, prme.prompt_version) == ("answerlens_requirements_v1",
                                                             "answerability_requirements_v2")
    assert default.evaluation_id != prme.evaluation_id
    first, second = scripted_server.requests_to("/api/chat")
    assert first.json["messages"][0]["content"] != second.json["messages"][0]["content"]


async def test_prmes_empty_bundle_assessment_is_reproduced_without_a_call() -> None:
    published = json.loads((FIXTURES / "assessments" / "assessment_empty_bundle.json").read_text())
    empty = {"sections": {}, "rendered_context": "", "context_format": "reader", "context_references": {}}
    async with AnswerabilityEvaluator(prme_run_config()) as evaluator:
        assessment = await evaluator.assess(PRME_QUESTION, empty)
    assert assessment.prme_dict() == published
