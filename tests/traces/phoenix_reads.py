"""Helpers the trace tests share (and the Inspect page's): a pipeline run traced into a real Phoenix, and what
Phoenix then holds, read back through its own APIs."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.phoenix_server import Phoenix
from tests.traces.pipeline import Traced, provider, run_pipeline


def send(server: Phoenix, project: str, **options: Any) -> Traced:
    """One pipeline run traced into Phoenix (OTLP/HTTP, with its key when it needs one), waited for until Phoenix
    lists all its spans."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    headers = {"authorization": f"Bearer {server.key}"} if server.key else None
    tracer_provider = provider(project, OTLPSpanExporter(endpoint=f"{server.url}/v1/traces", headers=headers))
    traced = run_pipeline(tracer_provider, **options)
    tracer_provider.shutdown()
    server.wait_for_spans(lambda spans: sum(s["context"]["trace_id"] == traced.trace_id for s in spans)
                          >= len(traced.spans), project)
    return traced


def request(server: Phoenix, path: str, body: Any | None = None) -> Any:
    headers = {"content-type": "application/json",
               **({"authorization": f"Bearer {server.key}"} if server.key else {})}
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(server.url + path, data=data, headers=headers),
                                timeout=30) as response:
        return json.loads(response.read())


def span_annotations(server: Phoenix, project: str, span_id: str) -> list[dict[str, Any]]:
    """Through ``GET /v1/projects/{project}/span_annotations``."""
    return list(request(server, f"/v1/projects/{project}/span_annotations?span_ids={span_id}&limit=100")["data"])


def document_annotations(server: Phoenix, project: str, span_id: str) -> list[dict[str, Any]]:
    """Phoenix 20.26 has no REST route that lists document annotations: its GraphQL API (what its UI reads)."""
    (span,) = request(server, f"/v1/projects/{project}/spans?span_id={span_id}")["data"]
    query = ("query ($id: ID!) { node(id: $id) { ... on Span { documentEvaluations { documentPosition name label "
             "score explanation annotatorKind metadata } } } }")
    reply = request(server, "/graphql", {"query": query, "variables": {"id": span["id"]}})
    assert "errors" not in reply, reply
    return sorted(reply["data"]["node"]["documentEvaluations"], key=lambda item: item["documentPosition"])
