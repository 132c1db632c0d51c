"""Preflight for the endpoint panel, against a real loopback server: models, versions, context windows."""

from __future__ import annotations

from typing import Any

import pytest

from answerlens import AnswerabilityConfig, AnswerabilityError
from answerlens.providers.preflight import Preflight, list_models, preflight
from tests.providers.helpers import HTML, MB, MODEL, SECRET, assert_failure, config, zeros
from tests.scripted_server import (
    FullBacklog,
    Reply,
    ScriptedServer,
    closed_port,
    json_reply,
    ollama_error,
    openai_error,
    scripted_server_fixture,  # noqa: F401  (provides the `scripted_server` fixture)
    text_reply,
)


def script_ollama_facts(server: ScriptedServer, show: dict[str, Any] | None = None) -> None:
    server.always("/api/tags", json_reply({"models": [{"name": MODEL, "size": 1}, {"name": "llama3:latest"}]}))
    server.always("/api/version", json_reply({"version": "0.12.3"}))
    if show is not None:
        server.always("/api/show", json_reply(show))


@pytest.mark.parametrize(
    ("provider", "path", "listing", "expected"),
    [
        pytest.param("ollama", "/api/tags", {"models": [{"name": MODEL}, {"name": "llama3:latest"}]},
                     [MODEL, "llama3:latest"], id="ollama_tags"),
        pytest.param("openai", "/v1/models", {"object": "list", "data": [{"id": "gpt-x"}, {"id": MODEL}]},
                     ["gpt-x", MODEL], id="openai_models"),
    ],
)
async def test_list_models(scripted_server: ScriptedServer, provider: str, path: str, listing: dict[str, Any],
                           expected: list[str]) -> None:
    scripted_server.script(path, json_reply(listing))
    assert await list_models(config(scripted_server, provider)) == expected
    (request,) = scripted_server.requests
    assert (request.method, request.path) == ("GET", path)
    assert request.header("Authorization") == f"Bearer {SECRET}"


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        pytest.param(ollama_error("unauthorized", 401), "unauthorized", id="401"),
        pytest.param(text_reply(HTML), "bad_body", id="html"),
        pytest.param(json_reply({"something": "else"}), "bad_body", id="no_models_key"),
        pytest.param(json_reply({"models": []}, delay=30), "read_timeout", id="read_timeout"),
    ],
)
async def test_list_models_failures(scripted_server: ScriptedServer, reply: Reply, kind: str) -> None:
    scripted_server.script("/api/tags", reply)
    with pytest.raises(AnswerabilityError) as info:
        await list_models(config(scripted_server), timeout=0.3)
    assert_failure(info.value, kind, scripted_server.base_url, provider=None)


async def test_list_models_connection_refused() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(AnswerabilityError) as info:
        await list_models(config(None, base_url=base_url))
    assert_failure(info.value, "connection_refused", base_url, provider=None)


async def test_list_models_replay_offers_none() -> None:
    assert await list_models(AnswerabilityConfig(provider="replay")) == []


@pytest.mark.parametrize(
    ("show", "overrides", "window"),
    [
        pytest.param({"model_info": {"qwen3.context_length": 40960, "general.architecture": "qwen3"}}, {}, 40960,
                     id="model_info_context_length"),
        pytest.param({"parameters": "temperature 0.6\nnum_ctx                        8192\nstop \"<|im_end|>\"",
                      "model_info": {"qwen3.context_length": 40960}}, {}, 8192, id="modelfile_num_ctx"),
        pytest.param({"model_info": {"qwen3.context_length": 40960}}, {"num_ctx": 2048}, 2048,
                     id="configured_num_ctx"),
        pytest.param({"license": "none"}, {}, None, id="server_does_not_tell"),
    ],
)
async def test_preflight_ollama(scripted_server: ScriptedServer, show: dict[str, Any],
                                overrides: dict[str, Any], window: int | None) -> None:
    script_ollama_facts(scripted_server, show)

    result = await preflight(config(scripted_server, **overrides), context_chars=4200)

    assert result == Preflight(
        reachable=True, server="Ollama 0.12.3", models=(MODEL, "llama3:latest"), model_found=True,
        context_window=window, context_tokens_estimate=1000, fits=None if window is None else window > 3000,
        problem=None if window is None or window > 3000 else result.problem,
        problem_kind=None if window is None or window > 3000 else "context_too_long",
    )
    if "num_ctx" not in overrides:
        (show_request,) = scripted_server.requests_to("/api/show")
        assert show_request.json == {"model": MODEL}


async def test_preflight_context_that_does_not_fit(scripted_server: ScriptedServer) -> None:
    script_ollama_facts(scripted_server, {"model_info": {"llama.context_length": 4096}})
    result = await preflight(config(scripted_server), context_chars=42_000)
    assert (result.context_window, result.context_tokens_estimate, result.fits) == (4096, 10_000, False)
    assert "4096" in result.problem and "num_ctx" in result.problem


@pytest.mark.parametrize(
    ("model", "found"),
    [
        pytest.param("llama3", True, id="implicit_latest_tag"),
        pytest.param("mistral:7b", False, id="missing"),
    ],
)
async def test_preflight_model_found(scripted_server: ScriptedServer, model: str, found: bool) -> None:
    script_ollama_facts(scripted_server)
    scripted_server.always("/api/show", ollama_error(f'model "{model}" not found', 404))
    result = await preflight(config(scripted_server, model=model))
    assert result.reachable is True
    assert result.model_found is found
    assert result.context_tokens_estimate is None and result.fits is None
    if found:
        assert result.problem is None
        assert [r.json for r in scripted_server.requests_to("/api/show")] == [{"model": model}]
    else:
        assert f"`ollama pull {model}`" in result.problem
        assert scripted_server.base_url in result.problem
        assert scripted_server.requests_to("/api/show") == []  # nothing to ask about a missing model


async def test_preflight_ollama_without_version_endpoint(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", json_reply({"models": [{"name": MODEL}]}))
    scripted_server.always("/api/version", text_reply("404 page not found", 404))
    scripted_server.always("/api/show", json_reply({}))
    result = await preflight(config(scripted_server))
    assert (result.reachable, result.server, result.model_found, result.context_window) == (
        True, "Ollama", True, None)


@pytest.mark.parametrize(
    ("routes", "server", "window", "slots"),
    [
        pytest.param({"/props": {"default_generation_settings": {"n_ctx": 16384}, "total_slots": 1}},
                     "llama.cpp (OpenAI-compatible)", 16384, 1, id="llama_cpp_props_one_slot"),
        pytest.param({"/props": {"default_generation_settings": {"n_ctx": 16384}, "total_slots": 4}},
                     "llama.cpp (OpenAI-compatible)", 16384, 4, id="llama_cpp_props_four_slots"),
        pytest.param({"/props": {"default_generation_settings": {"n_ctx": 16384}, "total_slots": "x"}},
                     "llama.cpp (OpenAI-compatible)", 16384, None, id="llama_cpp_props_bad_slots"),
        pytest.param({}, "OpenAI-compatible", 32768, None, id="models_meta_n_ctx_train"),
    ],
)
async def test_preflight_openai_compatible(scripted_server: ScriptedServer, routes: dict[str, Any], server: str,
                                           window: int, slots: int | None) -> None:
    scripted_server.always("/v1/models", json_reply(
        {"object": "list", "data": [{"id": MODEL, "object": "model", "meta": {"n_ctx_train": 32768}}]}))
    for path, body in routes.items():
        scripted_server.always(path, json_reply(body))

    result = await preflight(config(scripted_server, "openai"), context_chars=420)

    assert result == Preflight(reachable=True, server=server, models=(MODEL,), model_found=True,
                               context_window=window, context_tokens_estimate=100, fits=True, slots=slots)
    assert all(request.header("Authorization") == f"Bearer {SECRET}" for request in scripted_server.requests)


async def test_preflight_openai_that_tells_no_window(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/v1/models", json_reply({"data": [{"id": "gpt-x"}, {"id": "gpt-y"}]}))
    scripted_server.always("/props", openai_error("not found", 404))
    result = await preflight(config(scripted_server, "openai"), context_chars=100)
    assert (result.server, result.model_found, result.context_window, result.fits) == (
        "OpenAI-compatible", False, None, None)
    assert "pick a listed model" in result.problem


@pytest.mark.parametrize("provider", ["ollama", "openai"])
async def test_preflight_never_raises_when_unreachable(provider: str) -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    result = await preflight(config(None, provider, base_url=base_url), context_chars=10)
    assert result.reachable is False
    assert result.models == () and result.model_found is None and result.server is None
    assert result.context_tokens_estimate == 3
    assert base_url in result.problem
    assert ("`ollama serve`" if provider == "ollama" else "start the server") in result.problem


async def test_preflight_connect_timeout_is_unreachable() -> None:
    with FullBacklog() as backlog:
        result = await preflight(config(None, base_url=f"http://127.0.0.1:{backlog.port}/v1"), timeout=0.3)
    assert result.reachable is False
    assert "timed out" in result.problem


async def test_preflight_silent_server_is_unreachable(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", json_reply({"models": []}, delay=30))
    result = await preflight(config(scripted_server), timeout=0.3)
    assert result.reachable is False
    assert "did not answer in time" in result.problem


async def test_preflight_refused_listing_is_reachable_with_a_problem(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", ollama_error(f"invalid key {SECRET}", 401))
    result = await preflight(config(scripted_server))
    assert result.reachable is True
    assert "HTTP 401" in result.problem and "API key" in result.problem
    assert SECRET not in result.problem


async def test_preflight_replay() -> None:
    result = await preflight(AnswerabilityConfig(provider="replay"), context_chars=42)
    assert result == Preflight(reachable=True, server="recorded response", context_tokens_estimate=10)


# --- Hostile servers: a preflight is bounded as a model call is ----------------------------------------


async def test_preflight_listing_is_capped_too(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", Reply(stream=lambda: zeros(64 * MB)))
    result = await preflight(config(scripted_server), timeout=5)
    assert result.problem is not None and "larger than" in result.problem
    assert scripted_server.sent < 64 * MB


async def test_preflight_redirect_is_a_problem(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", Reply(status=302, body=b'{"models": []}',
                                              headers=(("Location", "https://example.invalid/"),)))
    result = await preflight(config(scripted_server), timeout=5)
    assert result.problem is not None and "HTTP 302" in result.problem


async def test_preflight_slow_drip_ends(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/api/tags", Reply(stream=lambda: zeros(MB, chunk=1), drip=0.05))
    result = await preflight(config(scripted_server), timeout=0.5)
    assert result.reachable is False and result.problem is not None
