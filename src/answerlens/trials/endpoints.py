"""Several replicas of one model server at once: requests spread over them, each with its own concurrency, and a
transport failure retried on another replica before it becomes an error sample.

How endpoints are recorded: the configuration (and so ``configuration_sha256``, every sample's and every
assessment's) keeps one ``base_url`` — ``--base-url`` when given, else the first endpoint — whichever replica
served a sample; the replica that did is in its assessment's ``provider_metadata.base_url``, outside every hash.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from answerlens.config import AnswerabilityConfig, refuse_userinfo, shown_url
from answerlens.errors import AnswerabilityError, TrialError
from answerlens.evaluator import Answer, AnswerabilityEvaluator
from answerlens.json_reader import MB, read_text
from answerlens.providers.engine import ProgressCallback

EvaluatorFactory = Callable[..., AnswerabilityEvaluator]
"""Called as ``factory(config, base_url=URL or None, connections=N)``; ``AnswerabilityEvaluator`` by default."""

FAILOVER_KINDS = frozenset({"connection_refused", "connect_timeout", "transport"})
"""Failures that say the replica, not the request, is at fault: retried on another replica. A slow reply
(``timeout``, ``read_timeout``) is not: the request reached a server that was working on it."""
COOL_DOWN_S = 10.0
"""A replica that failed a transport is passed over for this long while another one is up."""


@dataclass
class _Endpoint:
    url: str
    evaluator: AnswerabilityEvaluator
    free: int
    down_until: float = 0.0

    def up(self, now: float) -> bool:
        return self.down_until <= now


class EndpointPool:
    """The replicas of one run: ``async with EndpointPool(...) as pool: await pool.assess(...)``."""

    def __init__(self, config: AnswerabilityConfig, urls: Sequence[str], concurrency: int,
                 factory: EvaluatorFactory = AnswerabilityEvaluator) -> None:
        own = config.effective_base_url
        self.endpoints = [
            _Endpoint(url, factory(config, base_url=None if url == own else url, connections=concurrency), concurrency)
            for url in (urls or [own or ""])]
        self._waiters = 0
        self._changed = asyncio.Condition()

    @property
    def capacity(self) -> int:
        """Requests in flight at most: the concurrency of every replica together."""
        return sum(endpoint.free for endpoint in self.endpoints)

    async def __aenter__(self) -> EndpointPool:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        for endpoint in self.endpoints:
            await endpoint.evaluator.aclose()

    async def ask(self, question: str, bundle: Any, answer: str | None,
                  progress: ProgressCallback | None = None) -> Answer:
        """One model call on a free replica (derive the answer later); a transport failure is tried on each
        other replica once. ``progress`` hears the call's stages (sent, reading the prompt, generating)."""
        tried: set[str] = set()
        while True:
            endpoint = await self._acquire(tried)
            try:
                return await endpoint.evaluator.ask(question, bundle, answer=answer, progress=progress)
            except AnswerabilityError as exc:
                if exc.kind not in FAILOVER_KINDS or len(tried) + 1 >= len(self.endpoints):
                    raise
                endpoint.down_until = time.monotonic() + COOL_DOWN_S
                tried.add(endpoint.url)
            finally:
                await self._release(endpoint)

    def _pick(self, tried: set[str]) -> _Endpoint | None:
        now = time.monotonic()
        untried = [endpoint for endpoint in self.endpoints if endpoint.url not in tried]
        healthy = [endpoint for endpoint in untried if endpoint.up(now)] or untried  # all down: probe one
        free = [endpoint for endpoint in healthy if endpoint.free > 0]
        return max(free, key=lambda endpoint: endpoint.free) if free else None

    async def _acquire(self, tried: set[str]) -> _Endpoint:
        endpoint = self._pick(tried)
        if endpoint is None:
            async with self._changed:
                self._waiters += 1
                try:
                    await self._changed.wait_for(lambda: self._pick(tried) is not None)
                finally:
                    self._waiters -= 1
                endpoint = self._pick(tried)
                assert endpoint is not None
        endpoint.free -= 1
        return endpoint

    async def _release(self, endpoint: _Endpoint) -> None:
        endpoint.free += 1
        if self._waiters:
            async with self._changed:
                self._changed.notify_all()


_COMMENT = re.compile(r"(?:^|\s)#")
"""A comment starts a line or follows a blank: a "#" inside a URL (a password's, say) is the URL's."""


def read_endpoints(path: Path) -> list[str]:
    """An endpoints file: one base URL a line; blank lines and ``#`` comments are skipped. A URL with a user name
    or password is refused (naming the line, never repeating it)."""
    lines = read_text(path, max_bytes=MB, remedy="an endpoints file lists base URLs, one a line",
                      error=lambda message, label: TrialError(f"{label}: cannot read the endpoints file ({message})"),
                      ).splitlines()
    urls = [_COMMENT.split(line, maxsplit=1)[0].strip() for line in lines]
    for number, url in enumerate(urls, start=1):
        try:
            refuse_userinfo(url)
        except ValueError as exc:
            raise TrialError(f"{path}, line {number}: {exc}") from None
    found = [url for url in urls if url]
    if not found:
        raise TrialError(f"{path}: no endpoint in the file (one base URL a line, e.g. http://10.0.0.5:8000/v1)")
    return found


def normalise_endpoints(config: AnswerabilityConfig, urls: Sequence[str]) -> list[str]:
    """Each URL checked as ``base_url`` is (a bad one is a ``TrialError`` naming it), duplicates refused."""
    from pydantic import ValidationError

    checked = []
    for number, url in enumerate(urls, start=1):
        try:
            refuse_userinfo(url)
        except ValueError as exc:
            raise TrialError(f"endpoint {number}: {exc}") from None
        try:
            checked.append(AnswerabilityConfig(provider=config.provider, base_url=url).base_url)
        except ValidationError:
            raise TrialError(f"endpoint {number}, {shown_url(url)}, is not an http(s) base URL such as "
                             "http://10.0.0.5:8000/v1") from None
    seen = [url for index, url in enumerate(checked) if url in checked[:index]]
    if seen:
        raise TrialError(f"endpoint {seen[0]} is listed twice")
    return [url for url in checked if url is not None]
