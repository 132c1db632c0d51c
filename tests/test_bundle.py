import json
from pathlib import Path
from uuid import UUID

import pytest

from answerlens import BundleError, ContextFormat, MemoryBundle, load_bundle
from answerlens.bundle import MAX_BUNDLE_BYTES
from tests.paths import PRME

PRME_BUNDLES = sorted([*PRME.glob("bundles/*.json"), *PRME.glob("packing/*.json")])


@pytest.mark.parametrize("path", PRME_BUNDLES, ids=lambda p: p.stem)
def test_loads_every_prme_bundle(path: Path) -> None:
    bundle = load_bundle(path)
    data = json.loads(path.read_text())
    assert bundle.rendered_context == data["rendered_context"]
    assert bundle.render() == data["rendered_context"]
    assert bundle.context_format.value == data["context_format"]
    assert {ref: str(uuid) for ref, uuid in bundle.context_references.items()} == data["context_references"]
    assert bundle.record_count == data["included_count"]


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(lambda p: p, id="path"),
        pytest.param(lambda p: str(p), id="path_text"),
        pytest.param(lambda p: json.loads(p.read_text()), id="dict"),
        pytest.param(lambda p: p.read_text(), id="json_text"),
        pytest.param(lambda p: p.read_bytes(), id="bytes"),
        pytest.param(lambda p: {"bundle": json.loads(p.read_text())}, id="sample_wrapper"),
    ],
)
def test_accepts_every_source_kind(source) -> None:  # type: ignore[no-untyped-def]
    path = PRME / "bundles" / "bundle_compact.json"
    assert load_bundle(source(path)) == load_bundle(path)


def test_accepts_a_prme_like_object() -> None:
    class PrmeBundle:  # duck-typed: render(), context_format, context_references, sections
        def __init__(self, data: dict) -> None:
            self.data = data
            self.sections = data["sections"]
            self.context_format = data["context_format"]
            self.context_references = data["context_references"]

        def render(self) -> str:
            return self.data["rendered_context"]

        def model_dump(self, mode: str = "python") -> dict:
            return self.data

    path = PRME / "bundles" / "bundle_reader_citations.json"
    assert load_bundle(PrmeBundle(json.loads(path.read_text()))) == load_bundle(path)


def test_prme_extra_fields_are_tolerated() -> None:
    data = json.loads((PRME / "bundles" / "bundle_auditable.json").read_text())
    data["a_future_field"] = 1
    data["sections"]["stable_facts"][0]["node"]["another_new_field"] = {"x": 1}
    assert load_bundle(data).record_count == 5


def test_simple_format_renders_reader_with_citations_by_default() -> None:
    bundle = load_bundle(
        [
            {"text": "We moved the API to Postgres 16.", "speaker": "Dana", "event_time": "2024-05-02T10:00:00Z"},
            {"text": "Redis is the cache.", "lifecycle": "contested", "epistemic": "hypothetical"},
        ]
    )
    assert bundle.context_format == ContextFormat.READER
    lines = bundle.rendered_context.split("\n")
    assert lines[1] == "[passages]"
    assert lines[2] == '- [m1] [2024-05-02 10:00] "Dana": "We moved the API to Postgres 16."'
    assert lines[3] == '- [m2] [contested, hypothetical] "Redis is the cache."'
    assert bundle.context_references == {"m1": UUID(int=1), "m2": UUID(int=2)}


def test_simple_format_keeps_given_ids_and_packing() -> None:
    record_id = "6f1c2a2e-8d9b-4c8a-9f00-0123456789ab"
    bundle = load_bundle(
        {
            "records": [{"id": record_id, "text": "x", "type": "fact", "section": "facts"}],
            "packing": {"context_format": "auditable", "context_citations": False},
        }
    )
    assert bundle.context_references == {}
    assert f'{{"id":"{record_id}","type":"fact"' in bundle.rendered_context
    assert "[facts]" in bundle.rendered_context


@pytest.mark.parametrize(
    "source, message",
    [
        pytest.param("{not json", "invalid JSON at line 1 column 2", id="broken_json"),
        pytest.param("[1, 2]", "$[0]", id="list_of_numbers"),
        pytest.param('{"hello": 1}', "not a bundle", id="unknown_object"),
        pytest.param('"text"', "got a string", id="json_string"),
        pytest.param('{"sections": {"s": [{"node": {"id": "nope"}}]}}', "$.sections.s[0].node.id", id="bad_uuid"),
        pytest.param('{"sections": [], "rendered_context": ""}', "$.sections", id="sections_wrong_type"),
        pytest.param('{"records": [{"text": "a", "colour": "red"}]}', "$.records[0].colour", id="simple_extra_field"),
        pytest.param('{"records": [{"text": "a", "speaker": "  "}]}', "speaker must be a non-empty name",
                     id="blank_speaker"),
        pytest.param(
            '{"records": [{"text": "a", "id": "00000000-0000-0000-0000-000000000001"}, '
            '{"text": "b", "id": "00000000-0000-0000-0000-000000000001"}]}',
            "record ids must be unique",
            id="duplicate_ids",
        ),
        pytest.param(
            '{"records": [{"text": "a"}], "packing": {"context_format": "compact", "context_citations": true}}',
            "applies only to the reader format",
            id="citations_with_compact",
        ),
        pytest.param("   ", "empty", id="blank_text"),
    ],
)
def test_invalid_input_names_the_problem_and_place(source: str, message: str) -> None:
    with pytest.raises(BundleError) as info:
        load_bundle(source)
    assert message in str(info.value)
    assert "Traceback" not in str(info.value)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"sections": {')
    with pytest.raises(BundleError, match=r"broken\.json: invalid JSON"):
        load_bundle(broken)
    with pytest.raises(BundleError, match="file not found"):
        load_bundle(tmp_path / "missing.json")
    with pytest.raises(BundleError, match="not UTF-8"):
        binary = tmp_path / "binary.json"
        binary.write_bytes(b"\xff\xfe\x00{")
        load_bundle(binary)
    with pytest.raises(BundleError, match="is a directory"):
        load_bundle(tmp_path)


def test_oversized_file_is_refused_before_reading(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(MAX_BUNDLE_BYTES + 1)  # sparse: no 50 MB written
    with pytest.raises(BundleError, match="file is 50.0 MB; the limit is 50 MB"):
        load_bundle(huge)


def test_deeply_nested_json_is_a_bundle_error() -> None:
    with pytest.raises(BundleError):
        load_bundle("[" * 100_000 + "]" * 100_000)


def test_unloadable_type() -> None:
    with pytest.raises(BundleError, match="cannot load a bundle from int"):
        load_bundle(42)


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


def test_times_that_cannot_be_expressed_in_utc_are_bundle_errors() -> None:
    data = json.loads((PRME / "bundles" / "bundle_auditable.json").read_text())
    data["sections"]["stable_facts"][0]["node"]["event_time"] = "0001-01-01T00:00:00+14:00"
    with pytest.raises(BundleError, match=r"event_time: .*cannot be expressed in UTC"):
        load_bundle(data)


FIXTURES = Path(__file__).resolve().parent / "fixtures" / "prme"


@pytest.mark.parametrize(
    "name",
    [pytest.param("bundle_compact.json", id="compact"), pytest.param("bundle_reader_citations.json", id="reader")],
)
def test_resolve_context_ref_maps_each_reference_to_its_memory(name: str) -> None:
    bundle = load_bundle(FIXTURES / "bundles" / name)
    data = json.loads((FIXTURES / "bundles" / name).read_text())
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
    bundle = load_bundle(FIXTURES / "bundles" / "bundle_compact.json")
    with pytest.raises(ValueError) as info:
        bundle.resolve_context_ref(ref)
    assert str(info.value) == f"Unknown context reference: {ref}"
    assert isinstance(info.value.__cause__, KeyError)


def test_resolve_context_ref_on_a_bundle_without_references() -> None:
    with pytest.raises(ValueError, match="^Unknown context reference: m1$"):
        MemoryBundle().resolve_context_ref("m1")
