"""Adversarial variants of PRME's extra record fields: other values (floats that do not round-trip naively, huge
integers, nested and Unicode values, nulls) and other names, in every PRME fixture bundle and the compact and
auditable formats: each is kept exactly, dumped back unchanged, and changes no rendering and no hash."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from answerlens import load_bundle
from answerlens.audit import sha256_text
from tests.paths import PRME

BUNDLES = sorted((PRME / "bundles").glob("bundle_*.json")) + sorted((PRME / "packing").glob("packed_*.json"))
ODD_VALUES: dict[str, Any] = {
    "confidence": 0.30000000000000004, "salience": 1e-07, "ttl_days": 2**70, "pinned": False,
    "evidence_refs": ["m1", {"nested": [None, 1.5, "\u202eevil"]}], "decay_profile": None,
    "future_field": "appr\u034foved", "__proto__": {"x": 1}, "sections": "not the bundle's",
}


def nodes(data: dict[str, Any]) -> list[dict[str, Any]]:
    if "sections" not in data:
        data = data.get("bundle", data)
    return [candidate["node"] for candidates in data["sections"].values() for candidate in candidates]


@pytest.mark.parametrize("path", BUNDLES, ids=[path.stem for path in BUNDLES])
def test_odd_extra_fields_are_kept_exactly_and_change_no_hash(path: Path) -> None:
    data = json.loads(path.read_text())
    try:
        plain = load_bundle(copy.deepcopy(data))
    except Exception:  # noqa: BLE001  (a fixture that is not a bundle on its own)
        pytest.skip("not a loadable bundle")
    for node in nodes(data):
        node.update(copy.deepcopy(ODD_VALUES))
    bundle = load_bundle(copy.deepcopy(data))
    records = [candidate.node for _, candidate in bundle.candidates()]
    assert records
    for record, node in zip(records, nodes(data), strict=True):
        assert json.dumps(record.model_dump(mode="json"), sort_keys=True) == json.dumps(node, sort_keys=True)
        assert record.prme_fields["ttl_days"] == 2**70 and record.prme_fields["confidence"] == 0.30000000000000004
    assert sha256_text(bundle.exact_context) == sha256_text(plain.exact_context)
    assert bundle.context_references == plain.context_references
