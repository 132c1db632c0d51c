"""The one HTTP seam for model calls and preflight: one httpx client per server, sending, bounded reading and
body checks; every failure is raised as ``providers.failures`` maps it.

Only a 2xx answer is a reply; redirects are never followed (a model call is not re-sent to wherever a proxy
points). Bodies are streamed and decoded in bounded steps, and reading stops past ``max_reply_bytes`` of decoded
content, so a huge or inflating body costs a bounded amount of memory. The API key is sent only as a header.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import ssl
import zlib
from collections.abc import AsyncIterator
from typing import Any

import httpx

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.providers.failures import Failures, HttpReply

ERROR_BODY_BYTES = 64 * 1024
"""How much of a refusal's body is read for its message."""


class HttpEngine:
    """What every HTTP engine holds: its configuration, the shared client, the failure map and the base URL."""

    truncates_unless_stopped = False

    def __init__(self, config: AnswerabilityConfig, client: httpx.AsyncClient, failures: Failures) -> None:
        self.config = config
        self.client = client
        self.failures = failures
        self.base_url = config.effective_base_url


async def send(client: httpx.AsyncClient, failures: Failures, method: str, url: str, *,
               headers: dict[str, str], payload: dict[str, Any] | None = None, max_bytes: int,
               deadline: float | None = None) -> HttpReply:
    """One request, its body streamed and capped; transport problems and unsendable requests raise
    ``AnswerabilityError``; any status returns (callers check it). ``deadline`` bounds the whole exchange."""
    try:
        async with asyncio.timeout(deadline):
            async with client.stream(method, url, json=payload, headers=headers) as response:
                ok = 200 <= response.status_code < 300
                body = await _read_capped(response, max_bytes if ok else ERROR_BODY_BYTES, failures, strict=ok)
                return HttpReply(response.status_code, response.headers,
                                 body.decode(response.encoding or "utf-8", errors="replace"))
    except TimeoutError:
        if deadline is None:
            raise
        raise failures.transport(httpx.ReadTimeout(f"no complete answer within {deadline:g} s")) from None
    except httpx.TransportError as exc:
        raise failures.transport(exc) from exc
    except AnswerabilityError:
        raise
    except Exception as exc:  # whatever a transport raises (a test transport's handler …) is the call's failure
        raise failures.unsendable(exc) from exc


@contextlib.asynccontextmanager
async def open_stream(client: httpx.AsyncClient, failures: Failures, method: str, url: str, *,
                      headers: dict[str, str], payload: dict[str, Any]) -> AsyncIterator[httpx.Response]:
    """One request whose body the caller reads as it arrives (server-sent events). Transport problems raise
    ``AnswerabilityError`` while connecting and while reading; leaving the block closes the connection, which is
    how a server learns that nobody waits for the rest (llama.cpp then stops generating)."""
    try:
        response = await client.send(client.build_request(method, url, json=payload, headers=headers), stream=True)
    except httpx.TransportError as exc:
        raise failures.transport(exc) from exc
    except Exception as exc:  # an unsendable request, or whatever a transport raises
        raise failures.unsendable(exc) from exc
    try:
        yield response
    except httpx.TransportError as exc:
        raise failures.transport(exc) from exc
    finally:
        await response.aclose()


async def read_whole(response: httpx.Response, failures: Failures, max_bytes: int) -> HttpReply:
    """The rest of a streamed response, read as ``send`` reads a body: capped, and strict only for a reply."""
    ok = 200 <= response.status_code < 300
    body = await _read_capped(response, max_bytes if ok else ERROR_BODY_BYTES, failures, strict=ok)
    return HttpReply(response.status_code, response.headers, body.decode(response.encoding or "utf-8",
                                                                           errors="replace"))


async def _read_capped(response: httpx.Response, limit: int, failures: Failures, *, strict: bool) -> bytes:
    """The decoded body up to ``limit`` bytes: past it a reply is refused (``strict``), an error body cut."""
    chunks, total = [], 0
    async for chunk in decoded(response, failures):
        total += len(chunk)
        if total > limit:
            if strict:
                raise failures.too_large(limit)
            chunks.append(chunk[: len(chunk) - (total - limit)])
            break
        chunks.append(chunk)
    return b"".join(chunks)


async def decoded_lines(response: httpx.Response, failures: Failures, limit: int) -> AsyncIterator[str]:
    """The body's lines (server-sent events) as they arrive, decoded; past ``limit`` bytes a reply is refused."""
    pending: list[bytes] = []  # the line being read, in pieces (a long one is never copied over and over)
    total = 0
    async for chunk in decoded(response, failures):
        total += len(chunk)
        if total > limit:
            raise failures.too_large(limit)
        *lines, rest = chunk.split(b"\n")
        if lines:
            lines[0], pending = b"".join([*pending, lines[0]]), []
        for line in lines:
            yield line.removesuffix(b"\r").decode("utf-8", errors="replace")
        if rest:
            pending.append(rest)
    if pending:
        yield b"".join(pending).decode("utf-8", errors="replace")


DECODE_STEP = 64 * 1024
"""Most bytes one decompression step yields: a small compressed chunk never inflates all at once."""
_WBITS = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
ACCEPT_ENCODING = "gzip, deflate"
"""The encodings asked for: the ones ``decoded`` reads (httpx adds br and zstd when their packages are installed)."""


async def decoded(response: httpx.Response, failures: Failures) -> AsyncIterator[bytes]:
    """The body as it arrives, decoded (``gzip`` or ``deflate``) in steps of at most ``DECODE_STEP`` bytes.

    httpx's own decoder inflates each network chunk whole (64 KiB of a gzip bomb is ~64 MiB), so the raw stream
    is decoded here, where the caller's cap applies after every step.
    """
    if response.is_stream_consumed:
        # A response built with its body (``httpx.Response(200, json=...)``, as ``httpx.MockTransport`` handlers
        # return them): httpx read and decoded it then; it is handed on in steps, so the caller's cap still applies.
        async for chunk in response.aiter_bytes(DECODE_STEP):
            yield chunk
        return
    coding = response.headers.get("content-encoding", "").strip().lower()
    if coding in ("", "identity"):
        async for chunk in _raw(response, failures):
            yield chunk
        return
    if coding not in _WBITS:
        raise failures.error("bad_body", f"{failures.where} sent a body in Content-Encoding {coding!r}",
                             "configure the server (or proxy) to send gzip, deflate or no encoding")
    decoder = zlib.decompressobj(_WBITS[coding])
    try:
        async for chunk in _raw(response, failures):
            while chunk:
                yield decoder.decompress(chunk, DECODE_STEP)
                chunk = decoder.unconsumed_tail
        yield decoder.flush()
    except zlib.error as exc:
        raise failures.error("bad_body", f"{failures.where} sent a {coding} body that does not decode ({exc})",
                             "check the server, or the proxy in front of it") from None


async def _raw(response: httpx.Response, failures: Failures) -> AsyncIterator[bytes]:
    """The body's bytes as the transport gives them; what the transport raises while giving them is the call's
    failure (``AnswerabilityError``), whatever transport the caller passed."""
    chunks = response.aiter_raw()
    while True:
        try:
            chunk = await anext(chunks)
        except StopAsyncIteration:
            return
        except httpx.TransportError as exc:
            raise failures.transport(exc) from exc
        except Exception as exc:
            raise failures.unsendable(exc) from exc
        yield chunk


def json_body(response: HttpReply, failures: Failures) -> dict[str, Any]:
    """The reply as a JSON object; any status but 2xx, or any other body, raises ``AnswerabilityError``."""
    if not response.ok:
        raise failures.status(response)
    try:
        data = response.json()
    except (ValueError, RecursionError):
        excerpt = failures.redact(response.text)[:200]
        raise failures.body(response, f"a body that is not JSON: {excerpt!r}") from None
    if not isinstance(data, dict):
        raise failures.body(response, "a JSON body that is not an object")
    return data


def auth_headers(config: AnswerabilityConfig) -> dict[str, str]:
    if config.api_key is None:
        return {}
    return {"Authorization": f"Bearer {config.api_key.get_secret_value()}"}


def as_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def ollama_root(base_url: str) -> str:
    """Ollama's native API root from a base URL as users write it (``…:11434/v1``)."""
    return base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url


def client_timeout(config: AnswerabilityConfig) -> httpx.Timeout:
    """Per-request httpx limits under the whole-call deadline of ``request_raw_assessment``.

    Connecting may take at most half the budget (and 10 s), so an unreachable host reads as a connect timeout;
    reads get a second more than the budget, so a slow server always meets the whole-call deadline (kind
    ``timeout``) rather than racing it.
    """
    return httpx.Timeout(config.timeout + 1.0, connect=min(config.timeout / 2, 10.0))


POOL_CONNECTIONS = 10
"""Connections kept open when no concurrency is given (preflight, one assessment at a time)."""


def make_client(config: AnswerabilityConfig, timeout: float | httpx.Timeout,
                transport: httpx.AsyncBaseTransport | None = None, *,
                connections: int | None = None) -> httpx.AsyncClient:
    """The httpx client for one configured server, on httpx's own transport (``transport`` replaces it in tests
    and benchmarks).

    ``connections`` is how many requests may be in flight at once (a trial's concurrency): the pool keeps that
    many connections open and alive between requests, where httpx's default keeps 20 alive and closes the rest
    after every request. A loopback server is reached directly: an ``HTTP_PROXY`` from the environment must not
    carry requests for a local Ollama to a proxy that cannot see it, nor over TLS when its URL says ``http``: its
    client gets a context that trusts nothing (TLS would fail closed) rather than the CA bundle, whose loading
    costs tens of milliseconds of a trial's start. Other clients share one verifying context per process.
    """
    base_url = config.effective_base_url
    loopback = _is_loopback(base_url)
    plain = loopback and base_url is not None and base_url.startswith("http://")
    size = connections or POOL_CONNECTIONS
    # An idle connection stays open for httpx's 5 s: a longer expiry cost a third more CPU per request at
    # concurrency 32 (httpcore scans its pool on every request).
    limits = httpx.Limits(max_connections=size, max_keepalive_connections=size, keepalive_expiry=5.0)
    verify = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if plain else _ssl_context()
    return httpx.AsyncClient(timeout=timeout, transport=transport, limits=limits, verify=verify,
                             headers={"Accept-Encoding": ACCEPT_ENCODING}, follow_redirects=False,
                             trust_env=not loopback)


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
