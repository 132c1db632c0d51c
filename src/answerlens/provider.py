"""Talking to models over plain httpx: Ollama's native API, OpenAI-compatible servers, recorded replies.

Every failure becomes an ``AnswerabilityError`` in one place (``Failures``) with a message that names the
base URL and model and says what to do. The API key is sent only as a header and redacted from anything a
server sends back. ``list_models`` and ``preflight`` serve the app's endpoint panel.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import ssl
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.prompts import RawAssessment, ReplyError, parse_reply, prompt_for

EXCERPT_CHARS = 500

_SERVER_NAMES = {
    "ollama": "Ollama",
    "openai": "the OpenAI-compatible server",
    "llamacpp": "the llama.cpp server",
    "replay": "the recorded response",
}


@dataclass(frozen=True)
class ChatReply:
    """The text of one completion and what the server reported about it."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    response_format: str | None = None


@dataclass(frozen=True)
class RawReply:
    """A validated raw assessment with the exact text it came from."""

    raw: RawAssessment
    text: str
    last: ChatReply
    attempts: int
    latency_ms: float


class Engine(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def base_url(self) -> str | None: ...

    async def chat(self, messages: list[dict[str, str]]) -> ChatReply: ...


@dataclass
class Failures:
    """The one seam where foreign failures become ``AnswerabilityError``.

    Text that came from elsewhere (a response body, a transport error, the model's reply) is redacted
    before it is cut or quoted; our own wording is not, so a placeholder key such as ``ollama`` cannot
    mangle a remedy like ``ollama serve``.
    """

    engine: str
    base_url: str | None
    model: str
    secret: str | None = field(default=None, repr=False)
    operation: str | None = "Answerability assessment"
    """What failed, as upstream words it; every message starts ``{operation} failed for provider 'openai': ``
    (PRME's exact sentence) before our detail. None (preflight) leaves the detail alone."""

    def error(self, kind: str, message: str, remedy: str, raw: str | None = None) -> AnswerabilityError:
        if self.operation is not None:
            message = f"{self.operation} failed for provider {self.engine!r}: {message}"
        return AnswerabilityError(
            message,
            kind=kind,
            remedy=remedy,
            base_url=self.base_url,
            model=self.model,
            raw_excerpt=self.redact(raw)[:EXCERPT_CHARS] if raw is not None else None,
        )

    def redact(self, text: str) -> str:
        return text.replace(self.secret, "***") if self.secret else text

    @property
    def server(self) -> str:
        """The server as prose: ``Ollama at http://…/v1``."""
        return f"{_SERVER_NAMES.get(self.engine, self.engine)} at {self.base_url}"

    @property
    def where(self) -> str:
        return f"{self.server} (model {self.model!r})"

    def transport(self, exc: httpx.TransportError) -> AnswerabilityError:
        detail = self.redact(str(exc) or type(exc).__name__)
        if isinstance(exc, httpx.ConnectTimeout):
            return self.error("connect_timeout", f"connecting to {self.where} timed out",
                              "check the base URL and that the server is up")
        if isinstance(exc, httpx.TimeoutException):
            return self.error("read_timeout", f"{self.where} did not answer in time ({type(exc).__name__})",
                              "raise the timeout, use a smaller model, or shorten the context")
        if isinstance(exc, httpx.ConnectError):
            if self.engine == "ollama":
                remedy = "start it with `ollama serve`, or use the recorded response"
            else:
                remedy = "start the server (or `answerlens serve-model`), or correct the base URL"
            return self.error("connection_refused", f"{self.where} is not reachable ({detail})", remedy)
        return self.error("transport",
                          f"the connection to {self.where} failed ({type(exc).__name__}: {detail})",
                          "check that the server is healthy and retry")

    def status(self, response: httpx.Response) -> AnswerabilityError:
        code = response.status_code
        body = self.redact(_error_text(response))
        lowered = body.lower()
        if code == 404 and self.engine == "ollama" and _is_missing_model(lowered):
            return self.error("model_not_found", f"model {self.model!r} is not on Ollama at {self.base_url}",
                              f"pull it with `ollama pull {self.model}` or pick another model", body)
        if code == 404:
            return self.error("not_found", f"{self.where} answered HTTP 404: {body[:200]}",
                              "check the base URL (it should end in /v1) and the model name", body)
        if code == 400 and ("exceeds the available context size" in lowered or "context length" in lowered):
            return self.error("context_too_long", f"{self.where} cannot take this context: {body[:200]}",
                              "raise the server's context window (`answerlens serve-model --ctx N`, or num_ctx), "
                              "or pack a smaller bundle", body)
        if code == 400 and "does not support thinking" in lowered:
            return self.error("thinking_unsupported", f"{self.where} does not support thinking ({body[:200]})",
                              "turn thinking off (think=false, no reasoning_effort)", body)
        if code in (401, 403):
            return self.error("unauthorized", f"{self.where} refused the request (HTTP {code}: {body[:200]})",
                              "check the API key (set it in the environment variable you pass)", body)
        if code == 429:
            retry_after = response.headers.get("Retry-After", "").strip()
            wait = f"wait {retry_after} s" if retry_after.isdigit() else "wait"
            return self.error("rate_limited", f"{self.where} is rate limiting (HTTP 429: {body[:200]})",
                              f"{wait} and retry, or lower the concurrency", body)
        if code >= 500:
            return self.error("server_error", f"{self.where} failed with HTTP {code}: {body[:200]}",
                              "check the server's log; retry once it is healthy", body)
        return self.error("http_error", f"{self.where} rejected the request with HTTP {code}: {body[:200]}",
                          "check the model name and the server's supported options", body)

    def reply(self, exc: ReplyError, text: str, attempts: int) -> AnswerabilityError:
        if exc.kind == "empty":
            return self.error("empty_content", f"{self.where} returned empty content ({attempts} attempt(s))",
                              "retry, or use a model that supports structured output", text)
        return self.error(exc.kind, f"the reply of {self.where} did not fit the answerability schema after "
                          f"{attempts} attempt(s): {self.redact(exc.reason)}",
                          "use a larger or instruction-tuned model, or raise max_retries", text)

    def body(self, response: httpx.Response, problem: str) -> AnswerabilityError:
        return self.error("bad_body",
                          f"{self.where} returned {self.redact(problem)} (HTTP {response.status_code})",
                          "check that the base URL points at the API (…/v1) of the right kind of server",
                          response.text)

    def truncated(self, reason: str, text: str) -> AnswerabilityError:
        return self.error("truncated", f"the output of {self.where} was truncated ({reason})",
                          "raise num_ctx/max_tokens, or shorten the context", text)

    def timeout(self, seconds: float, attempts: int) -> AnswerabilityError:
        return self.error("timeout", f"{self.where} did not finish within {seconds:g} s (the whole call, "
                          f"retries included; {attempts} request(s) started)",
                          "raise the timeout, or use a faster model")


def _is_missing_model(lowered_body: str) -> bool:
    # Ollama says `model "x" not found, try pulling it first`; a bare "404 page not found" is a wrong URL.
    return "model" in lowered_body and "not found" in lowered_body


def _error_text(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            return str(error.get("message") or error)
        if error:
            return str(error)
    return response.text.strip()


def json_body(response: httpx.Response, failures: Failures) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        excerpt = failures.redact(response.text)[:200]
        raise failures.body(response, f"a body that is not JSON: {excerpt!r}") from None
    if not isinstance(data, dict):
        raise failures.body(response, "a JSON body that is not an object")
    return data


async def _post(client: httpx.AsyncClient, url: str, payload: dict[str, Any], headers: dict[str, str],
                failures: Failures) -> httpx.Response:
    try:
        return await client.post(url, json=payload, headers=headers)
    except httpx.TransportError as exc:
        raise failures.transport(exc) from exc
    except (httpx.HTTPError, httpx.InvalidURL, ValueError, OverflowError, OSError) as exc:
        raise failures.error("transport", f"the request to {failures.where} could not be sent "
                             f"({type(exc).__name__}: {failures.redact(str(exc))})",
                             "check the base URL (scheme, host and port) and the API key") from exc


def ollama_root(base_url: str) -> str:
    """Ollama's native API root from a base URL as users write it (``…:11434/v1``)."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


class OllamaEngine:
    """``POST {root}/api/chat`` with a JSON-schema ``format``, explicit ``think`` and ``stream: false``."""

    name = "ollama"

    def __init__(self, config: AnswerabilityConfig, client: httpx.AsyncClient, failures: Failures) -> None:
        self.config = config
        self.client = client
        self.failures = failures
        self.base_url = config.effective_base_url
        self._send_think = True

    def _payload(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        config = self.config
        options: dict[str, Any] = {"temperature": config.temperature}
        if config.seed is not None:
            options["seed"] = config.seed
        if config.num_ctx is not None:
            options["num_ctx"] = config.num_ctx
        if config.max_tokens is not None:
            options["num_predict"] = config.max_tokens
        payload: dict[str, Any] = {
            "model": config.model,
            "messages": messages,
            "stream": False,
            "format": prompt_for(config.prompt).schema,
            "options": options,
        }
        if self._send_think:
            payload["think"] = _ollama_think(config)
        return payload

    async def chat(self, messages: list[dict[str, str]]) -> ChatReply:
        assert self.base_url is not None
        url = f"{ollama_root(self.base_url)}/api/chat"
        headers = auth_headers(self.config)
        response = await _post(self.client, url, self._payload(messages), headers, self.failures)
        if (
            response.status_code == 400
            and "does not support thinking" in _error_text(response).lower()
            and self.config.think is None
            and self.config.reasoning_effort is None
        ):
            # We only sent think=false to be explicit; servers that reject the field get it left out.
            self._send_think = False
            response = await _post(self.client, url, self._payload(messages), headers, self.failures)
        if response.status_code >= 400:
            raise self.failures.status(response)
        data = json_body(response, self.failures)
        message = data.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise self.failures.body(response, "no message.content")
        return ChatReply(
            text=self.failures.redact(message["content"]),
            finish_reason=data.get("done_reason"),
            prompt_tokens=as_int(data.get("prompt_eval_count")),
            completion_tokens=as_int(data.get("eval_count")),
            response_format="json_schema",
        )


def _ollama_think(config: AnswerabilityConfig) -> bool | str:
    if config.think is not None:
        return config.think
    if config.reasoning_effort in ("low", "medium", "high"):
        return config.reasoning_effort
    return False


class OpenAIEngine:
    """``POST {base_url}/chat/completions`` with a strict ``json_schema`` response format.

    Falls back to ``json_object`` (and remembers it) when the server rejects ``json_schema``.
    """

    name = "openai"

    def __init__(self, config: AnswerabilityConfig, client: httpx.AsyncClient, failures: Failures) -> None:
        self.config = config
        self.client = client
        self.failures = failures
        self.base_url = config.effective_base_url
        self.response_format = "json_schema"

    def _payload(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        config = self.config
        payload: dict[str, Any] = {
            "model": config.model,
            "messages": messages,
            "temperature": config.temperature,
        }
        if self.response_format == "json_schema":
            prompt = prompt_for(config.prompt)
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": prompt.schema_name, "schema": prompt.schema, "strict": prompt.strict_schema},
            }
        else:
            payload["response_format"] = {"type": "json_object"}
        if config.seed is not None:
            payload["seed"] = config.seed
        if config.max_tokens is not None:
            payload["max_tokens"] = config.max_tokens
        if config.reasoning_effort is not None:
            payload["reasoning_effort"] = config.reasoning_effort
        return payload

    async def chat(self, messages: list[dict[str, str]]) -> ChatReply:
        url = f"{self.base_url}/chat/completions"
        headers = auth_headers(self.config)
        response = await _post(self.client, url, self._payload(messages), headers, self.failures)
        if self.response_format == "json_schema" and _rejects_json_schema(response):
            self.response_format = "json_object"
            response = await _post(self.client, url, self._payload(messages), headers, self.failures)
        if response.status_code >= 400:
            raise self.failures.status(response)
        data = json_body(response, self.failures)
        try:
            choice = data["choices"][0]
            content = choice["message"].get("content")
        except (KeyError, IndexError, TypeError, AttributeError):
            raise self.failures.body(response, "no choices[0].message") from None
        usage = data.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        return ChatReply(
            text=self.failures.redact(content) if isinstance(content, str) else "",
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=as_int(usage.get("prompt_tokens")),
            completion_tokens=as_int(usage.get("completion_tokens")),
            response_format=self.response_format,
        )


LLAMACPP_MAX_TOKENS = 1024
"""Reply bound for llama.cpp servers when none is configured: a looping small model stops here."""


class LlamaCppEngine(OpenAIEngine):
    """llama.cpp's OpenAI-compatible server (the embedded one, or any ``llama-server``).

    Sends what only this engine understands: ``repeat_penalty`` 1.1 (at 1.0 long prompts looped until the
    token bound), ``cache_prompt: false`` (prompt-cache reuse changed otherwise identical outputs), and a
    bounded ``max_tokens``. Any finish reason but ``stop`` means the JSON was cut short.
    """

    name = "llamacpp"
    truncates_unless_stopped = True

    def _payload(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        payload = super()._payload(messages)
        payload["repeat_penalty"] = 1.1
        payload["cache_prompt"] = False
        payload["max_tokens"] = self.config.max_tokens or LLAMACPP_MAX_TOKENS
        return payload


def _rejects_json_schema(response: httpx.Response) -> bool:
    if response.status_code not in (400, 404, 415, 422, 501):
        return False
    text = _error_text(response).lower()
    return "response_format" in text or "json_schema" in text or "schema" in text


class ReplayEngine:
    """Returns a recorded reply (a demo with no model, or a test); results are labelled recorded."""

    name = "replay"
    base_url = None

    def __init__(self, recorded: str | dict[str, Any]) -> None:
        self.text = recorded if isinstance(recorded, str) else json.dumps(recorded, ensure_ascii=False)

    async def chat(self, messages: list[dict[str, str]]) -> ChatReply:
        return ChatReply(text=self.text, finish_reason="stop", response_format="recorded")


def auth_headers(config: AnswerabilityConfig) -> dict[str, str]:
    if config.api_key is None:
        return {}
    return {"Authorization": f"Bearer {config.api_key.get_secret_value()}"}


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def request_raw_assessment(
    engine: Engine, failures: Failures, system: str, user: str, *, max_retries: int, timeout: float
) -> RawReply:
    """Ask, validate, and re-ask at most ``max_retries`` times with the validation error; all within
    ``timeout`` seconds."""
    started = time.perf_counter()
    progress = _Progress()
    try:
        async with asyncio.timeout(timeout) as deadline:
            return await _ask(engine, failures, system, user, max_retries, started, progress)
    except TimeoutError:
        if not deadline.expired():
            raise
        raise failures.timeout(timeout, progress.requests) from None


@dataclass
class _Progress:
    requests: int = 0


async def _ask(engine: Engine, failures: Failures, system: str, user: str, max_retries: int,
               started: float, progress: _Progress) -> RawReply:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    if engine.name == "replay":
        max_retries = 0  # a recording says the same thing however often it is asked
    for attempt in range(1, max_retries + 2):
        progress.requests = attempt
        reply = await engine.chat(messages)
        strict = getattr(engine, "truncates_unless_stopped", False)
        if reply.finish_reason == "length" or (strict and reply.finish_reason != "stop"):
            raise failures.truncated(f"finish reason {reply.finish_reason!r}", reply.text)
        try:
            raw = parse_reply(reply.text)
        except ReplyError as exc:
            if attempt > max_retries:
                raise failures.reply(exc, reply.text, attempt) from exc
            messages = [
                *messages,
                {"role": "assistant", "content": reply.text},
                {
                    "role": "user",
                    "content": f"That reply was invalid: {exc.reason}. Reply again with only a JSON object "
                    "matching the schema: requirements (each with requirement, status, evidence_refs, "
                    "explanation) and reasoning.",
                },
            ]
            continue
        return RawReply(raw=raw, text=reply.text, last=reply, attempts=attempt,
                        latency_ms=(time.perf_counter() - started) * 1000)
    raise AssertionError("unreachable")


def make_engine(config: AnswerabilityConfig, client: httpx.AsyncClient, failures: Failures,
                recorded: str | dict[str, Any] | None = None) -> Engine:
    if config.provider == "replay":
        if recorded is None:
            raise failures.error("no_recording", "the replay provider has no recorded reply",
                                 "pass recorded_reply=… (CLI: --replay-file RAW.json)")
        return ReplayEngine(recorded)
    if config.provider == "ollama":
        return OllamaEngine(config, client, failures)
    if config.provider == "llamacpp":
        return LlamaCppEngine(config, client, failures)
    return OpenAIEngine(config, client, failures)


def failures_for(config: AnswerabilityConfig, *, operation: str | None = "Answerability assessment") -> Failures:
    return Failures(
        engine=config.provider,
        base_url=config.effective_base_url,
        model=config.model,
        secret=config.api_key.get_secret_value() if config.api_key is not None else None,
        operation=operation,
    )


def client_timeout(config: AnswerabilityConfig) -> httpx.Timeout:
    """Per-request httpx limits under the whole-call deadline of ``request_raw_assessment``.

    Connecting may take at most half the budget (and 10 s), so an unreachable host reads as a connect
    timeout; reads get a second more than the budget, so a slow server always meets the whole-call deadline
    (kind ``timeout``) rather than racing it.
    """
    return httpx.Timeout(config.timeout + 1.0, connect=min(config.timeout / 2, 10.0))


def make_client(config: AnswerabilityConfig, timeout: float | httpx.Timeout,
                transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The httpx client for one configured server.

    A loopback server is reached directly: an ``HTTP_PROXY`` from the environment must not carry requests
    for a local Ollama to a proxy that cannot see it. The TLS context is built once per process, because
    building it costs tens of milliseconds and preflight makes a client per call.
    """
    return httpx.AsyncClient(timeout=timeout, transport=transport, verify=_ssl_context(),
                             trust_env=not _is_loopback(config.effective_base_url))


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def _is_loopback(url: str | None) -> bool:
    host = httpx.URL(url).host if url else ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
