"""A record's detail: every field it arrived with, each marked as read by answerlens or kept for audit, escaped."""

from __future__ import annotations

import json

from answerlens import load_bundle
from answerlens.ui.packing.record_detail import KEPT, READ, detail_html, fields, record, record_choices
from tests.paths import PRME


def test_every_field_is_listed_and_marked_by_use() -> None:
    data = json.loads((PRME / "bundles" / "bundle_reader_citations.json").read_text())
    bundle = load_bundle(data)
    node = next(iter(data["sections"].values()))[0]["node"]
    found = record(bundle, node["id"])
    assert found is not None
    rows = {name: (value, use) for name, value, use in fields(found)}
    assert set(rows) == set(node)
    assert rows["salience"] == (json.dumps(node["salience"]), KEPT) and rows["node_type"][1] == READ
    assert record(bundle, "00000000-0000-0000-0000-000000000000") is None


def test_choices_are_titled_by_reference_and_text() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    titles = record_choices(bundle)
    refs = {str(memory): ref for ref, memory in bundle.context_references.items()}
    assert len(titles) == bundle.record_count
    assert all(title.startswith(refs[key] + " · ") for key, title in titles.items() if key in refs)


def test_hostile_values_are_escaped() -> None:
    data = json.loads((PRME / "bundles" / "bundle_auditable.json").read_text())
    node = next(iter(data["sections"].values()))[0]["node"]
    node["user_id"] = "<script>alert(1)</script>\u202e"
    found = record(load_bundle(data), node["id"])
    assert found is not None
    page = detail_html(found)
    assert "<script>" not in page and "&lt;script&gt;" in page and "\u202e" not in page
