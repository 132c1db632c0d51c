"""The bundle and record models: the exact context, citability, speakers."""

import json
from uuid import UUID

import pytest

from answerlens import ContextFormat, MemoryBundle, load_bundle
from answerlens.records import normalize_speaker
from tests.paths import PRME


@pytest.mark.parametrize(
    "rendered, exact",
    [
        pytest.param("\n  [facts]\n- x\n\n", "[facts]\n- x", id="padded"),
        pytest.param("", "", id="empty"),
        pytest.param(" \t\n", "", id="blank"),
    ],
)
def test_exact_context_is_the_stripped_render(rendered: str, exact: str) -> None:
    bundle = MemoryBundle(rendered_context=rendered)
    assert bundle.render() == rendered
    assert bundle.exact_context == exact


def test_exact_context_of_a_prme_bundle_matches_its_rendering() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    assert bundle.exact_context == (PRME / "bundles" / "rendered_reader_citations.txt").read_text().strip()


def test_reader_without_citations_is_not_citable() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_plain.json")
    with pytest.raises(ValueError, match=r"context_citations=True"):
        bundle.ensure_citable()
    MemoryBundle(context_format=ContextFormat.READER).ensure_citable()  # an empty reader bundle is fine


def test_speaker_is_read_as_prme_reads_it() -> None:
    data = json.loads((PRME / "packing" / "packed_reader_citations.json").read_text())
    node = data["sections"]["stable_facts"][0]["node"]
    node["metadata"] = {"prme_speaker_v1": "bad\nname"}
    bundle = load_bundle(data)
    first = next(bundle.candidates())[1]
    assert first.node.speaker is None  # malformed names are ignored, not fatal



@pytest.mark.parametrize(
    "name, problem",
    [
        pytest.param("  ", "non-empty", id="blank"),
        pytest.param("x" * 201, "at most 200", id="too_long"),
        pytest.param("Ann\u202eX", "bidirectional", id="bidi"),
        pytest.param("A\tB", "control", id="tab"),
    ],
)
def test_invalid_speaker_names_are_refused(name: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        normalize_speaker(name)


def test_speaker_names_are_trimmed() -> None:
    assert normalize_speaker("  Craig ") == "Craig"


@pytest.mark.parametrize(
    "name",
    [pytest.param("bundle_compact.json", id="compact"), pytest.param("bundle_reader_citations.json", id="reader")],
)
def test_resolve_context_ref_maps_each_reference_to_its_memory(name: str) -> None:
    bundle = load_bundle(PRME / "bundles" / name)
    data = json.loads((PRME / "bundles" / name).read_text())
    assert data["context_references"], "the fixture carries references"
    for ref, memory_id in data["context_references"].items():
        assert bundle.resolve_context_ref(ref) == UUID(memory_id)


@pytest.mark.parametrize(
    "ref",
    [
        pytest.param("m99", id="unknown"),
        pytest.param("[m1]", id="bracketed_is_not_a_key"),
        pytest.param(" m1", id="not_stripped"),
        pytest.param("M1", id="case_sensitive"),
    ],
)
def test_resolve_context_ref_refuses_anything_but_an_exact_reference(ref: str) -> None:
    # As PRME 0.15.0: ValueError("Unknown context reference: <ref>"), raised from the KeyError.
    bundle = load_bundle(PRME / "bundles" / "bundle_compact.json")
    with pytest.raises(ValueError) as info:
        bundle.resolve_context_ref(ref)
    assert str(info.value) == f"Unknown context reference: {ref}"
    assert isinstance(info.value.__cause__, KeyError)


def test_resolve_context_ref_on_a_bundle_without_references() -> None:
    with pytest.raises(ValueError, match="^Unknown context reference: m1$"):
        MemoryBundle().resolve_context_ref("m1")
