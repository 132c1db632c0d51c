"""The ``import`` block: its shape (DESIGN §13, plus the record ids that map cited memories back to documents), how
samples and assessments carry it under the key ``import`` outside every hash, and what it says."""

from __future__ import annotations

import json
from uuid import UUID

import pytest
from pydantic import ValidationError

from answerlens.assessment import derive_assessment
from answerlens.config import AnswerabilityConfig
from answerlens.loading import load_bundle
from answerlens.samples import Sample
from answerlens.trace_import import TraceImport, TraceSource, import_facts

BLOCK = {"source": "phoenix", "trace_id": "ab" * 16, "span_id": "cd" * 8, "project": "rag",
         "positions": [0, 1], "record_ids": [str(UUID(int=1)), str(UUID(int=2))], "span_sha256": "e" * 64}
BUNDLE = {"records": [{"text": "The API uses Postgres 16."}, {"text": "Redis 7 caches sessions."}]}
REPLY = json.dumps({"requirements": [{"requirement": "Which database", "status": "supported",
                                      "evidence_refs": ["m1"], "explanation": "m1 says so"}], "reasoning": "m1"})


def test_a_block_reads_and_maps_memories_back_to_positions() -> None:
    block = TraceImport.model_validate(BLOCK)
    assert block.source == TraceSource.PHOENIX
    assert (block.position_of(UUID(int=2)), block.position_of(UUID(int=9))) == (1, None)
    assert block.describe() == (f"Phoenix, project 'rag': trace {'ab' * 16}, span {'cd' * 8}, documents 0, 1")
    assert import_facts(block) == [("evidence from", block.describe())]
    assert import_facts(None) == []


@pytest.mark.parametrize("change", [
    pytest.param({"trace_id": "AB" * 16}, id="uppercase_trace_id"),
    pytest.param({"span_id": "cd" * 7}, id="short_span_id"),
    pytest.param({"positions": [0]}, id="misaligned"),
    pytest.param({"positions": [1, 1]}, id="repeated_position"),
    pytest.param({"positions": [-1, 0]}, id="negative_position"),
    pytest.param({"record_ids": [str(UUID(int=1))] * 2}, id="repeated_record"),
    pytest.param({"source": "jaeger"}, id="unknown_source"),
    pytest.param({"extra": 1}, id="unknown_field"),
])
def test_a_malformed_block_is_refused(change: dict) -> None:
    with pytest.raises(ValidationError):
        TraceImport.model_validate({**BLOCK, **change})


def test_a_sample_carries_the_block_under_import() -> None:
    sample = Sample.model_validate({"title": "t", "description": "d", "question": "Which database?",
                                    "bundle": BUNDLE, "import": BLOCK})
    assert sample.trace_import == TraceImport.model_validate(BLOCK)
    assert sample.model_dump(mode="json")["import"] == BLOCK


def test_an_assessment_carries_it_outside_every_hash_and_dumps_without_it_when_absent() -> None:
    plain = derive_assessment("Which database?", load_bundle(BUNDLE), REPLY,
                              config=AnswerabilityConfig(provider="replay", model="recorded"))
    imported = plain.model_copy(update={"trace_import": TraceImport.model_validate(BLOCK)})
    assert "import" not in plain.model_dump(mode="json")
    dumped = imported.model_dump(mode="json")
    assert dumped["import"] == BLOCK
    assert {k: v for k, v in dumped.items() if k != "import"} == plain.model_dump(mode="json")
    assert type(imported).model_validate(dumped) == imported
    assert "import" not in imported.prme_dict()
