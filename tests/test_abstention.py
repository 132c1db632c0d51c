"""``should_abstain``: the legacy Boolean helper, fail-open, over a real loopback server."""

from __future__ import annotations

import json
import logging

import pytest
from pydantic import SecretStr

from answerlens import AnswerabilityConfig, AnswerabilityError, should_abstain
from tests.paths import PRME
from tests.scripted_server import (
    Reply,
    ScriptedServer,
    closed_port,
    ollama_chat,
    ollama_error,
    scripted_server_fixture,  # noqa: F401  (provides the `scripted_server` fixture)
)

READER = PRME / "bundles" / "bundle_reader_citations.json"
QUESTION = "What cache does the dashboard API use, and what is Craig's background?"
SECRET = "sk-PLANTED-123"


def config(server: ScriptedServer) -> AnswerabilityConfig:
    return AnswerabilityConfig(base_url=server.base_url, api_key=SecretStr(SECRET), timeout=3.0, max_retries=0)


def reply(*statuses: tuple[str, list[str]]) -> str:
    return json.dumps({
        "requirements": [{"requirement": f"requirement {index}", "status": status, "evidence_refs": refs,
                          "explanation": "as cited"} for index, (status, refs) in enumerate(statuses)],
        "reasoning": "Checked.",
    })


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(reply(("supported", ["m1"]), ("supported", ["m4"])), False, id="answerable"),
        pytest.param(reply(("supported", ["m1"]), ("unsupported", [])), False, id="partial"),
        pytest.param(reply(("unsupported", []), ("unsupported", ["m3"])), True, id="insufficient"),
        pytest.param(reply(("conflicting", ["m1", "m2"])), True, id="conflicting"),
        pytest.param(reply(("supported", ["m99"])), True, id="invented_citation_downgraded"),
    ],
)
async def test_follows_the_recommended_action(scripted_server: ScriptedServer, raw: str, expected: bool) -> None:
    scripted_server.script("/api/chat", ollama_chat(raw))
    assert await should_abstain(QUESTION, READER, config=config(scripted_server)) is expected
    assert len(scripted_server.requests) == 1


async def test_no_evidence_abstains_without_a_request(scripted_server: ScriptedServer) -> None:
    assert await should_abstain(QUESTION, {"records": []}, config=config(scripted_server)) is True
    assert scripted_server.requests == []


async def test_draft_answer_is_sent(scripted_server: ScriptedServer) -> None:
    scripted_server.script("/api/chat", ollama_chat(reply(("supported", ["m1"]))))
    await should_abstain(QUESTION, READER, answer="Redis.", config=config(scripted_server))
    assert "DRAFT ANSWER TO VERIFY:\nRedis." in scripted_server.requests[0].json["messages"][1]["content"]


FAILURES = [
    pytest.param(ollama_error(f"boom {SECRET}", 500), id="server_error"),
    pytest.param(ollama_chat("not json"), id="unparseable_reply"),
]


@pytest.mark.parametrize("failure", FAILURES)
async def test_fails_open_and_logs_without_the_key(scripted_server: ScriptedServer, failure: Reply,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    scripted_server.script("/api/chat", failure)
    caplog.set_level(logging.WARNING, logger="answerlens")

    assert await should_abstain(QUESTION, READER, config=config(scripted_server)) is False

    (record,) = [r for r in caplog.records if r.name == "answerlens.abstention"]
    assert "failed open" in record.getMessage()
    assert scripted_server.base_url in record.getMessage()
    assert SECRET not in caplog.text


@pytest.mark.parametrize("failure", FAILURES)
async def test_raise_on_error(scripted_server: ScriptedServer, failure: Reply) -> None:
    scripted_server.script("/api/chat", failure)
    with pytest.raises(AnswerabilityError):
        await should_abstain(QUESTION, READER, config=config(scripted_server), raise_on_error=True)


async def test_unreachable_server_fails_open() -> None:
    cfg = AnswerabilityConfig(base_url=f"http://127.0.0.1:{closed_port()}/v1", timeout=2.0)
    assert await should_abstain(QUESTION, READER, config=cfg) is False
    with pytest.raises(AnswerabilityError) as info:
        await should_abstain(QUESTION, READER, config=cfg, raise_on_error=True)
    assert info.value.kind == "connection_refused"


async def test_blank_query_fails_open_unless_asked_to_raise(scripted_server: ScriptedServer) -> None:
    assert await should_abstain("  ", READER, config=config(scripted_server)) is False
    with pytest.raises(ValueError, match="query"):
        await should_abstain("  ", READER, config=config(scripted_server), raise_on_error=True)
    assert scripted_server.requests == []
