"""Preflight for the endpoint panel and runs: which models a server has, whether the context fits its window, and
how many requests it serves at once (llama.cpp's slots).

Never raises for an unreachable server; the report's ``problem`` says what went wrong and what to do.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import httpx

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.prompts import prompt_for
from answerlens.providers import request_size
from answerlens.providers.failures import Failures, failures_for
from answerlens.providers.http import as_int, auth_headers, json_body, make_client, ollama_root, send
from answerlens.providers.kinds import Wire, provider_kind
from answerlens.providers.request_size import Request, RequestSize

CHARS_PER_TOKEN = 4.2
"""A rough, model-independent ratio for estimating tokens from characters (preflight only)."""
PREFLIGHT_MAX_BYTES = 8 * 1024 * 1024
"""Largest model listing or model card read (a listing of thousands of models is far smaller)."""
REPLY_RESERVE_TOKENS = 1024
"""Room kept for the model's reply when judging whether a context fits (``max_tokens`` when set)."""


@dataclass(frozen=True)
class Preflight:
    """What a server said before any assessment: reachable, which models, how large a context fits.

    ``fits`` compares the context estimate plus the system prompt and a reply reserve with the context
    window; it is None when either side is unknown. ``problem`` is the first thing that would make an
    assessment fail (unreachable server, refused listing, missing model, context too large), with its remedy.
    """

    reachable: bool
    server: str | None = None
    models: tuple[str, ...] = ()
    model_found: bool | None = None
    context_window: int | None = None
    context_tokens_estimate: int | None = None
    fits: bool | None = None
    problem: str | None = None
    problem_kind: str | None = None
    """What ``problem`` is, as a code: an ``AnswerabilityError`` kind (``connection_refused``, ``unauthorized`` …),
    ``model_not_found`` or ``context_too_long``."""
    request_size: RequestSize | None = None
    """The request counted by the model's own tokenizer (a llama.cpp server, given the request); ``fits`` then
    compares its total, not the estimate."""
    slots: int | None = None
    """Requests the server serves at once (llama.cpp's ``total_slots``); more in flight wait in its queue."""


async def _get(client: httpx.AsyncClient, url: str, headers: dict[str, str], failures: Failures,
               payload: dict[str, Any] | None = None) -> dict[str, Any]:
    method = "GET" if payload is None else "POST"
    # httpx bounds each phase (connect, each read); the deadline bounds a server that drips its answer.
    deadline = 2 * (client.timeout.read or 3.0)
    reply = await send(client, failures, method, url, headers=headers, payload=payload,
                       max_bytes=PREFLIGHT_MAX_BYTES, deadline=deadline)
    return json_body(reply, failures)


async def _list_models(
    client: httpx.AsyncClient, config: AnswerabilityConfig, failures: Failures
) -> list[str]:
    base_url = config.effective_base_url
    assert base_url is not None
    headers = auth_headers(config)
    if provider_kind(config.provider).wire == Wire.OLLAMA:
        data = await _get(client, f"{ollama_root(base_url)}/api/tags", headers, failures)
        entries, key = data.get("models"), "name"
    else:
        data = await _get(client, f"{base_url}/models", headers, failures)
        entries, key = data.get("data"), "id"
    if not isinstance(entries, list):
        raise failures.error("bad_body", f"{failures.where} listed no models (no {key!r} entries)",
                             "check that the base URL points at the API (…/v1) of the right kind of server")
    return [entry[key] for entry in entries if isinstance(entry, dict) and isinstance(entry.get(key), str)]


async def list_models(config: AnswerabilityConfig, *, timeout: float = 3.0) -> list[str]:
    """The model names the configured server offers (Ollama ``/api/tags``, OpenAI-compatible ``/models``).

    The replay provider offers none. Failures raise ``AnswerabilityError`` as chat calls do.
    """
    if provider_kind(config.provider).wire == Wire.RECORDED:
        return []
    async with make_client(config, timeout) as client:
        return await _list_models(client, config, failures_for(config, operation=None))


_NO_ANSWER = frozenset({"connection_refused", "connect_timeout", "read_timeout", "transport"})


def _has_model(models: list[str], model: str) -> bool:
    # Ollama lists `llama3:latest` for a model pulled as `llama3`.
    return model in models or (":" not in model and f"{model}:latest" in models)


async def preflight(
    config: AnswerabilityConfig, *, context_chars: int | None = None, timeout: float = 3.0,
    request: Request | None = None,
) -> Preflight:
    """Ask the configured server what it is, which models it has and how large a context it takes.

    Never raises for an unreachable or refusing server: the returned ``problem`` says what went wrong and
    what to do. Optional facts the server does not tell (version, context window) are None. Given the
    ``request``, a llama.cpp server counts it with the model's tokenizer (``request_size``).
    """
    if request is not None and context_chars is None:
        context_chars = len(request.context)
    estimate = math.ceil(context_chars / CHARS_PER_TOKEN) if context_chars is not None else None
    kind = provider_kind(config.provider)
    if kind.wire == Wire.RECORDED:
        return Preflight(reachable=True, server="recorded response", context_tokens_estimate=estimate)
    failures = failures_for(config, operation=None)
    async with make_client(config, timeout) as client:
        try:
            models = await _list_models(client, config, failures)
        except AnswerabilityError as exc:
            # Reachable means an HTTP answer came back, even a refusal; silence is not reachable.
            reachable = exc.kind not in _NO_ANSWER
            return Preflight(reachable=reachable, context_tokens_estimate=estimate, problem=str(exc),
                             problem_kind=exc.kind)
        # A llama.cpp server answers with the one model it loaded, whatever name is asked for.
        listed = models and kind.lists_models
        found = _has_model(models, config.model) if listed or kind.wire == Wire.OLLAMA else None
        size = slots = None
        if kind.wire == Wire.OLLAMA:
            server, window = await _ollama_facts(client, config, failures, found is True)
        else:
            server, window, slots = await _openai_facts(client, config, failures)
            if request is not None and server.startswith("llama.cpp"):
                size = await request_size.count(client, config, failures, request)
    fits = None
    if size is not None and window is not None:
        fits = size.total <= window
    elif estimate is not None and window is not None:
        reserve = config.max_tokens or REPLY_RESERVE_TOKENS
        fits = estimate + math.ceil(len(prompt_for(config.prompt).system) / CHARS_PER_TOKEN) + reserve <= window
    problem = kind_of_problem = None
    if found is False:
        kind_of_problem = "model_not_found"
        remedy = "pick a listed model"
        if kind.wire == Wire.OLLAMA:
            remedy = f"pull it with `ollama pull {config.model}` or pick a listed model"
        problem = f"model {config.model!r} is not on {failures.server} — {remedy}"
    elif fits is False:
        kind_of_problem = "context_too_long"
        larger = {"ollama": "num_ctx", "llamacpp": "the server's context (`answerlens serve-model --ctx N`)"}.get(
            config.provider, "the server's context window")
        what = (f"the request ({size.describe()})" if size is not None else
                f"the context (about {estimate} tokens, plus the prompt and room for the reply)")
        problem = (f"{what} does not fit the context window of {window} tokens — raise {larger}, or pack a "
                   "smaller bundle")
    return Preflight(reachable=True, server=server, models=tuple(models), model_found=found,
                     context_window=window, context_tokens_estimate=estimate, fits=fits, problem=problem,
                     problem_kind=kind_of_problem, request_size=size, slots=slots)


async def _optional(client: httpx.AsyncClient, url: str, config: AnswerabilityConfig, failures: Failures,
                    payload: dict[str, Any] | None = None) -> dict[str, Any] | None:
    # Version and context facts are extras: a server that does not offer them is still usable.
    try:
        return await _get(client, url, auth_headers(config), failures, payload)
    except AnswerabilityError:
        return None


async def _ollama_facts(client: httpx.AsyncClient, config: AnswerabilityConfig, failures: Failures,
                        model_found: bool) -> tuple[str, int | None]:
    assert config.effective_base_url is not None
    root = ollama_root(config.effective_base_url)
    version = await _optional(client, f"{root}/api/version", config, failures)
    server = "Ollama"
    if version is not None and isinstance(version.get("version"), str):
        server = f"Ollama {version['version']}"
    if config.num_ctx is not None:
        # The request asks for this window explicitly, so it is the one that applies.
        return server, config.num_ctx
    if not model_found:
        return server, None
    show = await _optional(client, f"{root}/api/show", config, failures, {"model": config.model})
    return server, _ollama_context(show) if show is not None else None


_NUM_CTX_RE = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def _ollama_context(show: dict[str, Any]) -> int | None:
    # A Modelfile's num_ctx is what Ollama runs with; the trained length is the fallback.
    parameters = show.get("parameters")
    if isinstance(parameters, str) and (match := _NUM_CTX_RE.search(parameters)):
        return int(match.group(1))
    info = show.get("model_info")
    if isinstance(info, dict):
        for key, value in info.items():
            if key.endswith(".context_length") and as_int(value) is not None:
                return int(value)
    return None


async def _openai_facts(client: httpx.AsyncClient, config: AnswerabilityConfig,
                        failures: Failures) -> tuple[str, int | None, int | None]:
    """(server, context window, slots): llama.cpp's ``/props`` tells all three; other servers their model's
    trained length at most."""
    base_url = config.effective_base_url
    assert base_url is not None
    props = await _optional(client, f"{ollama_root(base_url)}/props", config, failures)
    settings = props.get("default_generation_settings") if props is not None else None
    if isinstance(settings, dict) and as_int(settings.get("n_ctx")) is not None:
        slots = as_int(props.get("total_slots")) if props is not None else None
        return "llama.cpp (OpenAI-compatible)", int(settings["n_ctx"]), slots if slots and slots > 0 else None
    listing = await _optional(client, f"{base_url}/models", config, failures)
    entries = listing.get("data") if listing is not None else None
    if not isinstance(entries, list):
        entries = []
    for entry in entries:
        meta = entry.get("meta") if isinstance(entry, dict) else None
        if isinstance(meta, dict) and as_int(meta.get("n_ctx_train")) is not None:
            if entry.get("id") == config.model or len(entries) == 1:
                return "OpenAI-compatible", int(meta["n_ctx_train"]), None
    return "OpenAI-compatible", None, None
