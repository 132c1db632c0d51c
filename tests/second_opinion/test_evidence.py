"""Typed evidence per requirement comes from the bundle's records, never from the model."""

from uuid import UUID

import pytest

from answerlens import load_bundle
from answerlens.records import EpistemicType, LifecycleState, NodeType, SourceType
from answerlens.second_opinion.evidence import evidence_as_of, packed_records, typed_evidence
from tests.paths import PRME
from tests.second_opinion.builders import replayed, utc


def test_prme_records_carry_their_typed_fields() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    (item,) = typed_evidence(["m2"], [bundle.context_references["m2"]], packed_records(bundle))
    assert item.ref == "m2" and item.section == "stable_facts" and item.node_type == NodeType.FACT
    assert item.text == "The dashboard project used MySQL as its primary database."
    assert (item.source_type, item.epistemic_type, item.lifecycle_state) == (
        SourceType.USER_STATED, EpistemicType.ASSERTED, LifecycleState.TENTATIVE)
    assert (item.valid_from, item.valid_to, item.event_time, item.superseded_by) == (utc(2023), utc(2024), None, None)
    assert item.speaker is None


def test_the_speaker_and_each_accepted_citation_in_order() -> None:
    _, bundle, assessment = replayed("answerable_billing_database")
    records = packed_records(bundle)
    cited = [typed_evidence(r.evidence_refs, r.evidence_ids, records) for r in assessment.requirements]
    assert [[(item.ref, item.speaker) for item in items] for items in cited] == [[("m1", "Marcus")],
                                                                                [("m2", "Dana")]]


def test_a_memory_the_bundle_does_not_hold_is_refused() -> None:
    _, bundle, _ = replayed("answerable_billing_database")
    with pytest.raises(ValueError, match="holds no record 00000000-0000-0000-0000-0000000000ff"):
        typed_evidence(["m9"], [UUID(int=255)], packed_records(bundle))


def test_the_bundles_latest_time() -> None:
    _, bundle, _ = replayed("superseded_database_timeline")
    assert evidence_as_of(bundle) == utc(2024, 5, 20)  # m3's event time
    assert evidence_as_of(load_bundle({"records": [{"text": "no times"}]})) is None
