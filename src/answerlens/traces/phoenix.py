"""A running Arize Phoenix through its REST API (checked against arize-phoenix 20.26.1): spans read from
``GET /v1/projects/{project}/spans``, annotations written with ``POST /v1/span_annotations`` and
``POST /v1/document_annotations`` and read back with ``GET /v1/projects/{project}/span_annotations``.

A few httpx calls, not Phoenix's client package (which brings OpenTelemetry's gRPC exporter and more for the same
four requests). The API key comes only from ``PHOENIX_API_KEY`` (Phoenix's own variable), is sent only as a bearer
header and is never part of a message. Every failure is a ``PhoenixError`` that says what to do.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from answerlens.config import refuse_userinfo
from answerlens.errors import PhoenixError
from answerlens.traces.spans import TraceSpan

API_KEY_ENV = "PHOENIX_API_KEY"
"""The only place the API key is read from."""
PAGE = 1000
"""Phoenix's largest page of spans."""
TIMEOUT = 30.0


class _Context(BaseModel):
    model_config = ConfigDict(extra="ignore")

    trace_id: str
    span_id: str


class _Span(BaseModel):
    """A span as ``GET /v1/projects/{project}/spans`` lists it (the fields read; others are ignored)."""

    model_config = ConfigDict(extra="ignore")

    id: str = ""
    name: str
    context: _Context
    span_kind: str
    parent_id: str | None = None
    start_time: datetime | None = None
    attributes: dict[str, Any] = {}


class _Page(BaseModel):
    model_config = ConfigDict(extra="ignore")

    data: list[Any]
    next_cursor: str | None = None


class Phoenix:
    """One Phoenix server; use as a context manager (it holds one ``httpx.Client``)."""

    def __init__(self, url: str, *, api_key: str | None = None, timeout: float = TIMEOUT,
                 transport: httpx.BaseTransport | None = None) -> None:
        url = url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise PhoenixError(f"{url!r} is not a Phoenix URL", kind="bad_url",
                               remedy="give its address as http://HOST:PORT, e.g. http://127.0.0.1:6006")
        try:
            refuse_userinfo(url)
        except ValueError:
            raise PhoenixError("a Phoenix URL must not carry a user name or password", kind="bad_url",
                               remedy=f"give the API key in {API_KEY_ENV} instead") from None
        self.url = url
        self.keyed = bool(api_key)
        headers = {"accept": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(base_url=url, headers=headers, timeout=timeout, transport=transport)

    @classmethod
    def connect(cls, url: str, **options: Any) -> Phoenix:
        """A client for ``url`` with the key from ``PHOENIX_API_KEY`` (none when unset or empty)."""
        return cls(url, api_key=os.environ.get(API_KEY_ENV) or None, **options)

    def __enter__(self) -> Phoenix:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def __repr__(self) -> str:
        return f"Phoenix({self.url!r}, keyed={self.keyed})"

    # --- reading ----------------------------------------------------------------------------------------------

    def spans(self, project: str, *, trace_ids: Sequence[str] = (), span_ids: Sequence[str] = (),
              kinds: Sequence[str] = (), limit: int | None = None) -> list[TraceSpan]:
        """The project's spans, newest first, filtered as asked (all pages, or the first ``limit``)."""
        params: dict[str, Any] = {"trace_id": list(trace_ids), "span_id": list(span_ids), "span_kind": list(kinds)}
        path = f"/v1/projects/{_segment(project)}/spans"
        spans: list[TraceSpan] = []
        cursor = None
        while limit is None or len(spans) < limit:
            page_size = PAGE if limit is None else min(PAGE, limit - len(spans))
            body = self._json("GET", path, params={**params, "limit": page_size,
                                                   **({"cursor": cursor} if cursor else {})}, project=project)
            page = self._parse(_Page, body, "its span listing")
            spans += [_span(self._parse(_Span, item, "a span"), project) for item in page.data]
            cursor = page.next_cursor
            if not cursor or not page.data:
                break
        return spans

    def project_id(self, project: str) -> str:
        """Phoenix's id of a project (for links into its UI)."""
        body = self._json("GET", f"/v1/projects/{_segment(project)}", project=project)
        try:
            return str(body["data"]["id"])
        except (KeyError, TypeError):
            raise self._bad_reply("its project") from None

    def projects(self) -> list[str]:
        body = self._json("GET", "/v1/projects", params={"limit": 100})
        data = body.get("data") if isinstance(body, dict) else None
        return [str(item.get("name")) for item in data if isinstance(item, dict)] if isinstance(data, list) else []

    def span_annotations(self, project: str, span_id: str) -> list[dict[str, Any]]:
        """The span's annotations as Phoenix returns them (newest first)."""
        body = self._json("GET", f"/v1/projects/{_segment(project)}/span_annotations",
                          params={"span_ids": [span_id], "limit": 1000}, project=project)
        return list(self._parse(_Page, body, "its annotation listing").data)

    def trace_link(self, project_id: str, trace_id: str, span: TraceSpan | None = None) -> str:
        """The trace in Phoenix's UI, with the span selected when its node id is known."""
        link = f"{self.url}/projects/{quote(project_id, safe='')}/traces/{trace_id}"
        return link + (f"?selectedSpanNodeId={quote(span.node_id, safe='')}" if span and span.node_id else "")

    # --- writing ----------------------------------------------------------------------------------------------

    def post(self, path: str, data: list[dict[str, Any]]) -> int:
        """Insert (or, by identifier, update) annotations at once (``sync``): a missing span is an error here,
        not a silent drop later. Returns how many Phoenix wrote."""
        body = self._json("POST", path, params={"sync": "true"}, json={"data": data})
        written = body.get("data") if isinstance(body, dict) else None
        if not isinstance(written, list):
            raise self._bad_reply(f"its reply to {path}")
        return len(written)

    # --- the one seam where httpx and Phoenix's statuses become PhoenixError ----------------------------------

    def _json(self, method: str, path: str, *, project: str | None = None, **options: Any) -> Any:
        try:
            response = self._client.request(method, path, **options)
        except httpx.TimeoutException:
            raise PhoenixError(f"Phoenix at {self.url} did not answer within {self._client.timeout.read} s",
                               kind="unreachable", remedy="check that it is running and not overloaded") from None
        except httpx.TransportError as exc:
            raise PhoenixError(f"Phoenix is not reachable at {self.url} ({type(exc).__name__})", kind="unreachable",
                               remedy="start it (`phoenix serve`) or check the URL and port") from None
        if response.status_code >= 400:
            raise self._refusal(method, path, response, project)
        try:
            return response.json()
        except ValueError:
            raise self._bad_reply(f"JSON (to {method} {path})") from None

    def _refusal(self, method: str, path: str, response: httpx.Response, project: str | None) -> PhoenixError:
        status = response.status_code
        detail = _detail(response)
        if status in (401, 403):
            if self.keyed:
                return PhoenixError(f"Phoenix at {self.url} refused the API key in {API_KEY_ENV} ({status}: {detail})",
                                    kind="unauthorized", remedy=f"set {API_KEY_ENV} to a valid key of this Phoenix "
                                    "(its Settings → API Keys)")
            return PhoenixError(f"Phoenix at {self.url} requires an API key ({status}: {detail})",
                                kind="unauthorized", remedy=f"export {API_KEY_ENV}=… with a key from its Settings → "
                                "API Keys")
        if status == 404 and project is not None and path.startswith(f"/v1/projects/{_segment(project)}"):
            return PhoenixError(f"Phoenix at {self.url} has no project {project!r} ({detail})", kind="not_found",
                                remedy="name one of its projects with --project (Phoenix files spans without "
                                "openinference.project.name under 'default')")
        return PhoenixError(f"Phoenix at {self.url} refused {method} {path} ({status}: {detail})",
                            kind="not_found" if status == 404 else "refused")

    def _parse(self, model: type[Any], body: Any, what: str) -> Any:
        try:
            return model.model_validate(body)
        except ValidationError:
            raise self._bad_reply(what) from None

    def _bad_reply(self, what: str) -> PhoenixError:
        return PhoenixError(f"{self.url} answered, but not with {what} as Phoenix writes it", kind="bad_reply",
                            remedy="check that the URL is Phoenix's (e.g. http://127.0.0.1:6006), not a collector")


def _segment(name: str) -> str:
    return quote(name, safe="")


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return " ".join(response.text.split())[:300] or response.reason_phrase
    detail = body.get("detail") if isinstance(body, dict) else None
    return " ".join(str(detail if detail is not None else body).split())[:300]


def _span(span: _Span, project: str) -> TraceSpan:
    return TraceSpan(trace_id=span.context.trace_id, span_id=span.context.span_id, name=span.name,
                     kind=span.span_kind.upper(), attributes=span.attributes, parent_id=span.parent_id,
                     start_time=span.start_time, project=project, node_id=span.id or None)
