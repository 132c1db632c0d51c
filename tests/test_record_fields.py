"""Every field a PRME record arrives with is kept (the 13 answerlens does not read and unknown ones too), written
back unchanged when the bundle is dumped, and never changes what is rendered or hashed."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from answerlens import load_bundle
from answerlens.audit import sha256_text
from answerlens.claims.audit import evidence_sha256
from answerlens.claims.verifier import bundle_evidence
from answerlens.records import MemoryRecord
from answerlens.render import render_bundle
from tests.paths import PRME

BUNDLES = sorted((PRME / "bundles").glob("bundle_*.json"))
PRME_ONLY = ("user_id", "session_id", "updated_at", "confidence", "salience", "evidence_refs", "decay_profile",
             "last_reinforced_at", "reinforcement_boost", "salience_base", "confidence_base", "pinned", "ttl_days")


def nodes(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [candidate["node"] for candidates in data["sections"].values() for candidate in candidates]


@pytest.mark.parametrize("path", BUNDLES, ids=[path.stem for path in BUNDLES])
def test_every_field_prme_writes_is_kept_and_dumped_back_unchanged(path: Path) -> None:
    data = json.loads(path.read_text())
    assert all(set(PRME_ONLY) <= set(node) and len(node) == 26 for node in nodes(data))  # the real export's shape
    bundle = load_bundle(data)
    records = [candidate.node for _, candidate in bundle.candidates()]
    assert [record.model_dump(mode="json") for record in records] == nodes(data)
    assert nodes(bundle.model_dump(mode="json")) == nodes(data)
    assert all(record.prme_fields == {name: node[name] for name in PRME_ONLY}
               for record, node in zip(records, nodes(data), strict=True))


def test_an_unknown_field_is_kept_too(tmp_path: Path) -> None:
    data = json.loads((PRME / "bundles" / "bundle_auditable.json").read_text())
    node = nodes(data)[0]
    node["future_field"] = {"nested": [1, "two", None]}
    node["speaker"] = "not the speaker"  # a field named like a property: stored, the property still reads metadata
    bundle = load_bundle(data)
    record = next(bundle.candidates())[1].node
    assert record.prme_fields["future_field"] == {"nested": [1, "two", None]}
    assert record.model_dump(mode="json") == node
    assert record.speaker == MemoryRecord.model_validate({**node, "speaker": None}).speaker


@pytest.mark.parametrize("path", BUNDLES, ids=[path.stem for path in BUNDLES])
def test_the_extra_fields_change_no_rendering_and_no_hash(path: Path) -> None:
    data = json.loads(path.read_text())
    bare = copy.deepcopy(data)
    for node in nodes(bare):
        for name in PRME_ONLY:
            del node[name]
    full, stripped = load_bundle(data), load_bundle(bare)
    assert sha256_text(full.exact_context) == sha256_text(stripped.exact_context)  # context_sha256
    assert full.context_references == stripped.context_references
    if full.context_references or full.context_format.value != "reader":  # a plain reader bundle is not citable
        assert evidence_sha256(bundle_evidence(full)) == evidence_sha256(bundle_evidence(stripped))  # the verifier's
    for citations in (True, False) if full.context_format.value == "reader" else (False,):
        ours, theirs = (render_bundle(bundle, context_format=full.context_format, context_citations=citations)
                        for bundle in (full, stripped))
        assert (ours.rendered_context, ours.context_references) == (theirs.rendered_context,
                                                                    theirs.context_references)
