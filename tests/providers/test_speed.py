"""How fast a server reads a prompt and replies, learnt from one short call to a real loopback server."""

from __future__ import annotations

import pytest

from answerlens.providers.request_size import Request
from answerlens.providers.speed import PROBE_TOKENS, Speed, measure, speed_of
from tests.providers.helpers import config
from tests.scripted_server import (
    ScriptedServer,
    json_reply,
    openai_chat,
    openai_error,
    scripted_server_fixture,  # noqa: F401  (provides the `scripted_server` fixture)
)

REQUEST = Request(question="Which region?", context="- [m1] \"eu-central-1\"")
TIMINGS = {"prompt_n": 1200, "prompt_ms": 4000.0, "prompt_per_second": 300.0, "predicted_n": 16,
           "predicted_ms": 800.0, "predicted_per_second": 20.0}


async def test_one_short_call_over_the_request_gives_the_servers_own_timings(scripted_server: ScriptedServer) -> None:
    body = {"choices": [{"message": {"content": "{"}, "finish_reason": "length"}], "timings": TIMINGS}
    scripted_server.script("/v1/chat/completions", json_reply(body))
    found = await measure(config(scripted_server, "llamacpp"), REQUEST)
    assert found == Speed(prompt_tokens=1200, prompt_per_second=300.0, reply_per_second=20.0)
    assert found.seconds(1200, 40) == pytest.approx(4.0 + 2.0)
    assert found.describe() == "1,200 prompt tokens read at 300 tokens/s; replies at 20.0 tokens/s"
    (request,) = scripted_server.requests
    sent = request.json
    assert (sent["max_tokens"], sent["stream"], sent["cache_prompt"]) == (PROBE_TOKENS, False, False)
    assert [message["role"] for message in sent["messages"]] == ["system", "user"]
    assert "eu-central-1" in sent["messages"][1]["content"]


@pytest.mark.parametrize("reply", [
    pytest.param(openai_chat("{}"), id="no_timings_not_llama_cpp"),
    pytest.param(openai_error("busy", 503), id="refused"),
])
async def test_a_server_that_does_not_tell_gives_none(scripted_server: ScriptedServer, reply: object) -> None:
    scripted_server.script("/v1/chat/completions", reply)
    assert await measure(config(scripted_server, "openai"), REQUEST) is None


@pytest.mark.parametrize("timings", [
    pytest.param(None, id="missing"), pytest.param({"prompt_n": 0, "prompt_per_second": 1.0,
                                                    "predicted_per_second": 1.0}, id="no_prompt"),
    pytest.param({**TIMINGS, "predicted_per_second": 0}, id="zero_rate"),
    pytest.param({**TIMINGS, "prompt_per_second": True}, id="boolean_rate"),
    pytest.param({**TIMINGS, "prompt_per_second": "fast"}, id="text_rate"),
])
def test_timings_that_say_nothing_usable_are_none(timings: object) -> None:
    assert speed_of(timings) is None
