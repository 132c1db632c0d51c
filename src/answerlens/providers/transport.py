"""A small HTTP/1.1 transport for plain-``http`` model servers: keep-alive connections over asyncio streams.

httpx's default transport (httpcore over anyio) spends about 2 ms of CPU per request on a loopback call; a trial
at concurrency 32 against a 0.2 s server leaves the event loop about 6 ms per request, so that overhead alone
held runs to 0.6–0.8 of ideal. This transport does only what model calls need — one request per connection at a
time, ``Content-Length`` or chunked bodies, keep-alive reuse, per-phase timeouts — and hands httpx a response whose
body httpx decodes (gzip and the rest) and reads as usual. ``https`` servers keep httpx's own transport.

``stream`` goes one step further for the model calls themselves (``providers.http.send``): the same connections
without building httpx's ``Request`` and ``Response`` around them (half of what remained per request). It sends
no ``Accept-Encoding``, and still decodes a gzip or deflate body a server sends anyway.

Failures are raised as httpx's exceptions (``ConnectError``, ``ConnectTimeout``, ``ReadTimeout``,
``RemoteProtocolError`` …) so the one error seam (``providers.http.Failures``) maps them as before.
"""

from __future__ import annotations

import asyncio
import json
import logging
import zlib
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

log = logging.getLogger(__name__)

HEAD_LIMIT = 64 * 1024
"""Longest status line plus headers read."""
_CHUNK = 64 * 1024


class _Connection:
    def __init__(self, key: tuple[str, int], reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.key = key
        self.reader = reader
        self.writer = writer
        self.reused = False

    @property
    def usable(self) -> bool:
        # Bytes waiting on an idle connection (a late error, a close notice) mean it is not clean to reuse.
        waiting = getattr(self.reader, "_buffer", b"")
        return not self.reader.at_eof() and not self.writer.is_closing() and not waiting

    def close(self) -> None:
        self.writer.close()


class PlainHttpTransport(httpx.AsyncBaseTransport):
    """``httpx.AsyncClient(transport=PlainHttpTransport(connections=N))`` for an ``http://`` server."""

    def __init__(self, connections: int | None = None) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = defaultdict(list)
        self._slots = asyncio.Semaphore(connections) if connections else None
        self._open: set[_Connection] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme != "http":
            raise httpx.UnsupportedProtocol(f"{request.url.scheme!r} URLs need httpx's own transport")
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        body = await request.aread()
        status, headers, stream = await self._exchange(
            (request.url.host, request.url.port or 80), request.method, _request_head(request) + body, timeouts)
        return httpx.Response(status, headers=headers, request=request, stream=stream,
                              extensions={"http_version": b"HTTP/1.1"})

    @asynccontextmanager
    async def stream(self, method: str, url: str, *, headers: dict[str, str], payload: dict[str, Any] | None,
                     timeout: httpx.Timeout) -> AsyncIterator[DirectResponse]:
        """One request as ``providers.http.send`` makes it (JSON body), straight over a pooled connection."""
        target = httpx.URL(url)
        if target.scheme != "http":
            raise httpx.UnsupportedProtocol(f"{target.scheme!r} URLs need httpx's own transport")
        body = b"" if payload is None else json.dumps(
            payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        fields = {"Host": target.netloc.decode("ascii"), "Accept": "*/*", "Connection": "keep-alive",
                  "User-Agent": "answerlens", **headers}
        if payload is not None:
            fields |= {"Content-Type": "application/json", "Content-Length": str(len(body))}
        head = b"\r\n".join([f"{method} ".encode() + target.raw_path + b" HTTP/1.1",
                              *(f"{name}: {value}".encode("latin-1") for name, value in fields.items())])
        status, raw_headers, stream = await self._exchange(
            (target.host, target.port or 80), method, head + b"\r\n\r\n" + body, timeout.as_dict())
        log.debug("HTTP request: %s %s -> %d", method, url, status)  # as httpx logs its requests; never a header
        try:
            yield DirectResponse(status, httpx.Headers(raw_headers), stream)
        finally:
            await stream.aclose()

    async def _exchange(self, key: tuple[str, int], method: str, data: bytes,
                        timeouts: dict[str, float | None]) -> tuple[int, list[tuple[bytes, bytes]], _Body]:
        if self._slots is not None:
            await _within(self._slots.acquire(), timeouts.get("pool"), httpx.PoolTimeout)
        try:
            while True:
                connection = await self._connection(key, timeouts.get("connect"))
                try:
                    connection.writer.write(data)
                    await _within(connection.writer.drain(), timeouts.get("write"), httpx.WriteTimeout)
                    status, headers = await _read_head(connection.reader, timeouts.get("read"))
                except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
                    self._drop(connection)
                    if connection.reused:  # the server closed an idle connection: once more on a fresh one
                        continue
                    raise
                except BaseException:
                    self._drop(connection)
                    raise
                return status, headers, _Body(self, connection, method, status, headers, timeouts.get("read"))
        except BaseException:
            if self._slots is not None:
                self._slots.release()
            raise

    async def _connection(self, key: tuple[str, int], timeout: float | None) -> _Connection:
        idle = self._idle[key]
        while idle:
            connection = idle.pop()
            if connection.usable:
                connection.reused = True
                return connection
            self._drop(connection)
        try:
            reader, writer = await _within(asyncio.open_connection(key[0], key[1], limit=HEAD_LIMIT), timeout,
                                           httpx.ConnectTimeout)
        except OSError as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__) from exc
        connection = _Connection(key, reader, writer)
        self._open.add(connection)
        return connection

    def _drop(self, connection: _Connection) -> None:
        connection.close()
        self._open.discard(connection)

    def _done(self, connection: _Connection, reusable: bool) -> None:
        if reusable and connection.usable:
            connection.reused = False
            self._idle[connection.key].append(connection)
        else:
            self._drop(connection)
        if self._slots is not None:
            self._slots.release()

    async def aclose(self) -> None:
        for connection in list(self._open):
            self._drop(connection)
        self._idle.clear()


class DirectResponse:
    """What ``stream`` yields: the status, the headers and the decoded body, as ``providers.http`` reads them."""

    def __init__(self, status_code: int, headers: httpx.Headers, body: _Body) -> None:
        self.status_code = status_code
        self.headers = headers
        self._body = body
        content_type = headers.get("content-type", "")
        charset = content_type.partition("charset=")[2].split(";", 1)[0].strip().strip('"')
        self.encoding = charset or "utf-8"

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        coding = self.headers.get("content-encoding", "identity").strip().lower()
        if coding in ("", "identity"):
            async for piece in self._body:
                yield piece
            return
        if coding not in ("gzip", "x-gzip", "deflate"):
            raise httpx.DecodingError(f"unsupported Content-Encoding {coding!r}")
        decoder = zlib.decompressobj(zlib.MAX_WBITS | 32 if coding != "deflate" else zlib.MAX_WBITS)
        try:
            async for piece in self._body:
                while piece:  # bounded steps: a small bomb never inflates in one call
                    yield decoder.decompress(piece, _CHUNK)
                    piece = decoder.unconsumed_tail
            yield decoder.flush()
        except zlib.error as exc:
            raise httpx.DecodingError(f"the {coding} body does not decode ({exc})") from None


class _Body(httpx.AsyncByteStream):
    """The response body as it arrives; the connection goes back to the pool once the body was read whole."""

    def __init__(self, pool: PlainHttpTransport, connection: _Connection, method: str, status: int,
                 headers: list[tuple[bytes, bytes]], timeout: float | None) -> None:
        self._pool = pool
        self._connection = connection
        self._timeout = timeout
        fields = {name.lower(): value for name, value in headers}
        self._keep = fields.get(b"connection", b"").lower() != b"close"
        self._chunked = b"chunked" in fields.get(b"transfer-encoding", b"").lower()
        length = fields.get(b"content-length")
        self._length: int | None = None
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            self._length = 0
        elif not self._chunked:
            try:
                self._length = int(length) if length is not None else None
            except ValueError:
                raise httpx.RemoteProtocolError(f"bad Content-Length {length!r}") from None
        self._keep = self._keep and (self._chunked or self._length is not None)
        self._complete = False
        self._released = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        reader = self._connection.reader
        if self._chunked:
            async for piece in self._chunks(reader):
                yield piece
        elif self._length is not None:
            left = self._length
            while left:
                piece = await _read(reader.read(min(left, _CHUNK)), self._timeout)
                if not piece:
                    raise httpx.RemoteProtocolError("the server closed the connection before the body's end")
                left -= len(piece)
                yield piece
        else:
            while piece := await _read(reader.read(_CHUNK), self._timeout):
                yield piece
        self._complete = True

    async def _chunks(self, reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
        while True:
            line = await _read(reader.readuntil(b"\r\n"), self._timeout)
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise httpx.RemoteProtocolError(f"bad chunk size {line[:20]!r}") from None
            if size == 0:
                while await _read(reader.readuntil(b"\r\n"), self._timeout) != b"\r\n":
                    pass  # trailers
                return
            yield await _read(reader.readexactly(size), self._timeout)
            await _read(reader.readexactly(2), self._timeout)

    async def aclose(self) -> None:
        if not self._released:
            self._released = True
            self._pool._done(self._connection, self._complete and self._keep)


def _request_head(request: httpx.Request) -> bytes:
    target = request.url.raw_path
    lines = [b"%s %s HTTP/1.1" % (request.method.encode("ascii"), target)]
    lines += [name + b": " + value for name, value in request.headers.raw]
    return b"\r\n".join(lines) + b"\r\n\r\n"


async def _read_head(reader: asyncio.StreamReader, timeout: float | None) -> tuple[int, list[tuple[bytes, bytes]]]:
    while True:
        head = await _read(reader.readuntil(b"\r\n\r\n"), timeout)
        lines = head[:-4].split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise httpx.RemoteProtocolError(f"not an HTTP/1.1 status line: {lines[0][:40]!r}")
        status = int(parts[1])
        headers = []
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            if not colon:
                raise httpx.RemoteProtocolError(f"malformed header line {line[:40]!r}")
            headers.append((name.strip(), value.strip()))
        if status != 100:  # a "100 Continue" is followed by the real answer
            return status, headers


async def _read(operation: Any, timeout: float | None) -> Any:
    try:
        return await _within(operation, timeout, httpx.ReadTimeout)
    except asyncio.IncompleteReadError as exc:
        raise httpx.RemoteProtocolError("the server closed the connection mid-answer") from exc
    except asyncio.LimitOverrunError as exc:
        raise httpx.RemoteProtocolError("the server sent a header or chunk line that is too long") from exc
    except ValueError as exc:  # readuntil past the stream's limit
        raise httpx.RemoteProtocolError(str(exc)) from exc
    except (ConnectionError, OSError) as exc:
        raise httpx.ReadError(str(exc) or type(exc).__name__) from exc


async def _within(operation: Any, timeout: float | None, error: type[httpx.TimeoutException]) -> Any:
    try:
        async with asyncio.timeout(timeout):
            return await operation
    except TimeoutError:
        raise error(f"no answer within {timeout:g} s" if timeout is not None else "timed out") from None
