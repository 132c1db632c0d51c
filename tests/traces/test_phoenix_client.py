"""The one seam between httpx and Phoenix's REST API: what each failure says (never the key), the key only as a
bearer header, and a server that answers but is not Phoenix. Phoenix itself is exercised in test_loop and
test_sources; here a loopback server plays the other side."""

from __future__ import annotations

import pytest

from answerlens.errors import PhoenixError
from answerlens.traces.phoenix import Phoenix
from tests.scripted_server import Reply, ScriptedServer, json_reply, text_reply

KEY = "sk-PLANTED-phoenix-client-31"
SPANS = "/v1/projects/rag/spans?limit=1000"
"""The request ``spans("rag")`` makes (the loopback server routes by path and query)."""


@pytest.mark.parametrize("url, message", [
    pytest.param("127.0.0.1:6006", "'127.0.0.1:6006' is not a Phoenix URL — give its address as http://HOST:PORT",
                 id="no_scheme"),
    pytest.param(f"http://user:{KEY}@127.0.0.1:6006", "a Phoenix URL must not carry a user name or password — give "
                 "the API key in PHOENIX_API_KEY instead", id="userinfo"),
])
def test_a_url_that_is_not_one_is_refused_before_any_request(url: str, message: str) -> None:
    with pytest.raises(PhoenixError) as caught:
        Phoenix(url)
    assert str(caught.value).startswith(message) and KEY not in str(caught.value)


def test_the_key_goes_only_in_the_bearer_header(scripted_server: ScriptedServer,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PHOENIX_API_KEY", KEY)
    path = "/v1/projects/rag/spans?span_kind=RETRIEVER&limit=5"
    scripted_server.script(path, json_reply({"data": [], "next_cursor": None}))
    with Phoenix.connect(scripted_server.root) as phoenix:
        assert phoenix.spans("rag", kinds=["RETRIEVER"], limit=5) == []
        assert KEY not in repr(phoenix) and "keyed=True" in repr(phoenix)
    (request,) = scripted_server.requests_to(path)
    assert request.header("authorization") == f"Bearer {KEY}"
    assert KEY not in request.path and request.body == b""


@pytest.mark.parametrize("reply, kind, message", [
    pytest.param(text_reply("<html>collector</html>"), "bad_reply", "answered, but not with JSON (to GET "
                 "/v1/projects/rag/spans) as "
                 "Phoenix writes it — check that the URL is Phoenix's", id="not_phoenix"),
    pytest.param(json_reply({"data": [{"name": "x"}], "next_cursor": None}), "bad_reply", "answered, but not with a "
                 "span as Phoenix writes it", id="not_a_span"),
    pytest.param(json_reply({"detail": f"bad key {KEY[:4]}"}, 403), "unauthorized", "refused the API key in "
                 "PHOENIX_API_KEY (403: bad key sk-P)", id="forbidden"),
    pytest.param(json_reply({"detail": "boom"}, 500), "refused", "refused GET /v1/projects/rag/spans (500: boom)",
                 id="server_error"),
    pytest.param(Reply(close=True), "unreachable", "Phoenix is not reachable at", id="hung_up"),
    pytest.param(json_reply({}, delay=3), "unreachable", "did not answer within 0.5 s", id="too_slow"),
])
def test_each_failure_says_what_it_is(scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch,
                                      reply: Reply, kind: str, message: str) -> None:
    monkeypatch.setenv("PHOENIX_API_KEY", KEY)
    scripted_server.script(SPANS, reply)
    with Phoenix.connect(scripted_server.root, timeout=0.5) as phoenix, pytest.raises(PhoenixError) as caught:
        phoenix.spans("rag")
    assert caught.value.kind == kind and message in str(caught.value)
    assert KEY not in str(caught.value)
