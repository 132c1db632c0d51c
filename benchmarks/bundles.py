"""Synthetic PRME-format bundles for the benchmarks: reader format with citations, rendered by answerlens.

Records are built as PRME dumps them (``MemoryNode`` with ``user_id``, ``RetrievalCandidate`` with scores), then
rendered with ``answerlens.render_bundle``, so both libraries read the very same ``rendered_context`` and
``context_references`` from one file. Deterministic: the same size always gives the same bytes.
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from answerlens import load_bundle, render_bundle
from answerlens.records import MemoryBundle

SECTIONS = ("stable_facts", "recent_events", "preferences", "notes")
_SUBJECTS = ("The billing API", "The dashboard", "Craig", "The search service", "Maya", "The deploy pipeline",
             "The mobile app", "The data team", "The checkout flow", "The staging cluster")
_VERBS = ("uses", "moved to", "prefers", "stopped using", "is evaluating", "was migrated to", "depends on",
          "asked about", "reported problems with", "documented")
_OBJECTS = ("Postgres 16", "Redis 7 as its cache", "a nightly backup at 02:00 UTC", "Kafka for events",
            "the blue-green rollout", "Python 3.12 and FastAPI", "an S3 bucket in eu-west-1", "GraphQL",
            "a 30-second request timeout", "feature flags from LaunchDarkly", "ClickHouse for analytics")
_TAILS = ("", " after the outage in March", " because the old setup was too slow to restore",
          " according to the incident review", ", but only in staging so far",
          " and the team wants to keep it that way for the next two quarters")
_SPEAKERS = ("Craig", "Maya", "Assistant")
_EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _candidate(rng: random.Random, index: int) -> dict[str, Any]:
    text = f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}{rng.choice(_TAILS)}."
    speaker = rng.choice(_SPEAKERS) if index % 3 == 0 else None
    event_time = _EPOCH + timedelta(days=rng.randrange(700), minutes=30 * rng.randrange(48)) if index % 2 else None
    created = _EPOCH + timedelta(days=index % 900, seconds=index)
    # PRME always stores valid_from (the creation time unless a window is known); only a closed window prints.
    windowed = index % 5 == 0
    valid_from = _EPOCH + timedelta(days=rng.randrange(300)) if windowed else created
    valid_to = valid_from + timedelta(days=rng.randrange(30, 400)) if windowed else None
    lifecycle = ("superseded", "contested", "stable")[index % 3] if index % 10 == 0 else "tentative"
    epistemic = ("inferred", "hypothetical", "observed")[index % 3] if index % 7 == 0 else "asserted"
    score = round(rng.random(), 6)
    return {
        "node": {
            "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "user_id": "bench",
            "session_id": None,
            "scope": "personal",
            "created_at": _iso(created),
            "updated_at": _iso(created),
            "node_type": rng.choice(("fact", "event", "note", "decision", "preference")),
            "content": text,
            "metadata": {"prme_speaker_v1": speaker} if speaker else None,
            "confidence": 0.8,
            "salience": 0.5,
            "epistemic_type": epistemic,
            "source_type": "user_stated",
            "lifecycle_state": lifecycle,
            "event_time": _iso(event_time),
            "valid_from": _iso(valid_from),
            "valid_to": _iso(valid_to),
            "superseded_by": None,
            "evidence_refs": [str(uuid.UUID(int=rng.getrandbits(128), version=4))],
            "decay_profile": "medium",
            "last_reinforced_at": _iso(created),
            "reinforcement_boost": 0.0,
            "salience_base": 0.5,
            "confidence_base": 0.8,
            "pinned": False,
            "ttl_days": None,
        },
        "paths": ["VECTOR", "LEXICAL"],
        "path_count": 2,
        "semantic_score": score,
        "lexical_score": 1.0 - score,
        "graph_proximity": 0.0,
        "composite_score": score,
        "reranker_score": None,
        "score_trace": {
            "semantic_similarity": score, "lexical_relevance": 1.0 - score, "graph_proximity": 0.0,
            "recency_factor": 0.0, "salience": 0.0, "confidence": 0.0, "epistemic_weight": 0.9,
            "path_score": 0.6666666666666666, "temporal_affinity": 0.0, "node_type_boost": 1.0,
            "composite_score": score,
        },
        "representation": "full",
        "token_cost": len(text) // 4,
        "rendered_text": text,
        "conflict_flag": False,
        "contradicts_id": None,
    }


def unrendered(records: int, *, seed: int = 0) -> dict[str, Any]:
    """A PRME bundle dump of ``records`` packed records, not yet rendered (no context, no references)."""
    rng = random.Random(seed)
    sections: dict[str, list[dict[str, Any]]] = {}
    for index in range(records):
        sections.setdefault(SECTIONS[index * len(SECTIONS) // max(records, 1)], []).append(_candidate(rng, index))
    return {
        "sections": sections,
        "included_count": records,
        "excluded_ids": [],
        "tokens_used": 0,
        "token_budget": 1_000_000,
        "budget_remaining": 1_000_000,
        "min_fidelity": "reference",
        "rendered_context": "",
        "tokenizer": None,
        "coverage_notice": None,
        "context_guidance": None,
        "context_format": "reader",
        "context_references": {},
    }


def rendered(dump: dict[str, Any]) -> dict[str, Any]:
    """The dump with answerlens' reader rendering (with citations) filled in, PRME's fields kept."""
    bundle = render_bundle(load_bundle(dump), "reader", context_citations=True)
    return {
        **dump,
        "rendered_context": bundle.rendered_context,
        "context_references": {ref: str(memory_id) for ref, memory_id in bundle.context_references.items()},
        "included_count": bundle.included_count,
        "tokens_used": bundle.tokens_used,
        "budget_remaining": bundle.budget_remaining,
    }


def prme_bundle(records: int, *, seed: int = 0) -> dict[str, Any]:
    return rendered(unrendered(records, seed=seed))


def write_bundle(path: Path, records: int, *, seed: int = 0) -> Path:
    path.write_text(json.dumps(prme_bundle(records, seed=seed)), encoding="utf-8")
    return path


def records_for_chars(chars: int, *, seed: int = 0) -> int:
    """How many records render to about ``chars`` characters of context."""
    header = len(prme_bundle(1, seed=seed)["rendered_context"])
    count = max(2, chars // 90)
    for _ in range(3):
        size = len(prme_bundle(count, seed=seed)["rendered_context"])
        per_record = (size - header) / max(count - 1, 1)
        count = max(2, round((chars - header) / per_record) + 1)
    return count


def unrendered_bundle_for_chars(chars: int, *, seed: int = 0) -> MemoryBundle:
    """An answerlens bundle of records that render to about ``chars`` characters (for the scaling bench)."""
    return load_bundle(unrendered(records_for_chars(chars, seed=seed), seed=seed))


def write_bundle_near(path: Path, max_bytes: int, *, fill: float = 0.985, seed: int = 0) -> Path:
    """A rendered PRME bundle file of between ``fill`` × ``max_bytes`` and ``max_bytes`` bytes."""
    probe = 200
    per_record = len(json.dumps(prme_bundle(probe, seed=seed)).encode()) / probe
    count = int(max_bytes * (fill + 1) / 2 / per_record)
    for _ in range(5):
        data = json.dumps(prme_bundle(count, seed=seed)).encode()
        if fill * max_bytes <= len(data) < max_bytes:
            path.write_bytes(data)
            return path
        count = int(count * max_bytes * (fill + 1) / 2 / len(data))
    raise RuntimeError(f"could not size a bundle between {fill:.1%} and 100% of {max_bytes} bytes")


def write_tiny_records(path: Path, records: int) -> Path:
    """A simple-format bundle of ``records`` one-word records: the shape that once took 3.1 GB to load."""
    with path.open("w", encoding="utf-8") as handle:
        handle.write("[")
        handle.write(",".join(f'{{"text":"r{index}"}}' for index in range(records)))
        handle.write("]")
    return path
