"""Typed evidence per requirement: each accepted citation's record and its typed fields, read from the bundle."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from answerlens.records import Candidate, MemoryBundle
from answerlens.second_opinion.models import TypedEvidence
from answerlens.second_opinion.timeframes import as_utc


def packed_records(bundle: MemoryBundle) -> dict[UUID, tuple[str, Candidate]]:
    """Each packed memory once (its first section), by id."""
    found: dict[UUID, tuple[str, Candidate]] = {}
    for section, candidate in bundle.candidates():
        found.setdefault(candidate.node.id, (section, candidate))
    return found


def typed_evidence(refs: Sequence[str], ids: Sequence[UUID],
                   records: dict[UUID, tuple[str, Candidate]]) -> tuple[TypedEvidence, ...]:
    """The accepted citations (``evidence_refs`` with their ``evidence_ids``) as typed evidence, in order.

    A memory the bundle does not hold is a ``ValueError``: the bundle is not the one assessed.
    """
    evidence = []
    for ref, memory_id in zip(refs, ids, strict=True):
        if memory_id not in records:
            raise ValueError(f"the bundle holds no record {memory_id} (cited as {ref}); is it the one assessed?")
        section, candidate = records[memory_id]
        node = candidate.node
        evidence.append(TypedEvidence(
            ref=ref, memory_id=memory_id, section=section, node_type=node.node_type,
            text=candidate.rendered_text if candidate.rendered_text is not None else node.content,
            source_type=node.source_type, epistemic_type=node.epistemic_type, lifecycle_state=node.lifecycle_state,
            event_time=node.event_time, valid_from=node.valid_from, valid_to=node.valid_to,
            superseded_by=node.superseded_by, speaker=node.speaker,
        ))
    return tuple(evidence)


def evidence_as_of(bundle: MemoryBundle) -> datetime | None:
    """The latest event or validity-start time of any packed record (UTC): how far the bundle's own clock goes."""
    times = [as_utc(moment) for _, candidate in bundle.candidates()
             for moment in (candidate.node.event_time, candidate.node.valid_from) if moment is not None]
    return max(times, default=None)
