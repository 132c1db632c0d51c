import json
from pathlib import Path
from uuid import UUID

import pytest

from answerlens import BundleError, ContextFormat, load_bundle
from answerlens.loading import MAX_BUNDLE_BYTES
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
    with pytest.raises(BundleError, match=r"file is 50 MB \(52,428,801 bytes\); the limit is 50 MB"):
        load_bundle(huge)


def test_deeply_nested_json_is_a_bundle_error() -> None:
    with pytest.raises(BundleError):
        load_bundle("[" * 100_000 + "]" * 100_000)


def test_unloadable_type() -> None:
    with pytest.raises(BundleError, match="cannot load a bundle from int"):
        load_bundle(42)


def test_times_that_cannot_be_expressed_in_utc_are_bundle_errors() -> None:
    data = json.loads((PRME / "bundles" / "bundle_auditable.json").read_text())
    data["sections"]["stable_facts"][0]["node"]["event_time"] = "0001-01-01T00:00:00+14:00"
    with pytest.raises(BundleError, match=r"event_time: .*cannot be expressed in UTC"):
        load_bundle(data)


# --- the one bounded JSON reader ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, where",
    [
        pytest.param('{"records": [{"text": "a\\ud800b"}]}', r"\$\.records\[0\]\.text: .*lone surrogate",
                     id="lone_surrogate"),
        pytest.param('{"records": [{"text": "x"}], "coverage_notice": "\\udc00"}', r"\$\.coverage_notice",
                     id="lone_low_surrogate"),
        pytest.param('{"sections": {}, "rendered_context": "", "tokens_used": 1e400}',
                     r"\$\.tokens_used: the number 1e400 is out of range", id="float_overflow"),
        pytest.param('{"sections": {}, "rendered_context": "", "tokens_used": ' + "9" * 5000 + "}",
                     r"\(5000 digits\) is out of range", id="huge_integer"),
    ],
)
def test_unrepresentable_json_is_a_bundle_error_naming_the_path(text: str, where: str) -> None:
    with pytest.raises(BundleError, match=where):
        load_bundle(text)


def test_paired_surrogate_escapes_are_text() -> None:
    bundle = load_bundle('{"records": [{"text": "ok"}], "coverage_notice": "\\ud83d\\ude00"}')
    assert bundle.coverage_notice == "\U0001f600"


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="is a directory"):
        load_bundle(tmp_path)


@pytest.mark.parametrize(
    "make, limit, message",
    [
        pytest.param(lambda n: [{"text": f"r{i}"} for i in range(n)], 50, r"holds 51 records; the limit is 50",
                     id="bare_list"),
        pytest.param(lambda n: {"records": [{"text": "x"}] * n}, 50, r"holds 51 records", id="simple"),
        pytest.param(lambda n: {"bundle": {"records": [{"text": "x"}] * n}, "question": "q"}, 50,
                     r"holds 51 records", id="sample_wrapper"),
        pytest.param(lambda n: [{"text": "x", "speaker": "A"} for _ in range(n * 40)], 50,
                     r"more than 1,500 JSON objects", id="object_cap_stops_parsing"),
    ],
)
def test_the_record_limit_refuses_huge_bundles_before_building_them(make, limit: int, message: str) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(make(limit + 1))
    with pytest.raises(BundleError, match=message):
        load_bundle(text, max_records=limit)
    assert load_bundle(json.dumps(make(1)) if "object_cap" not in message else "[]", max_records=limit) is not None


def test_the_record_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANSWERLENS_MAX_RECORDS", "3")
    with pytest.raises(BundleError, match="limit is 3 — pack fewer records, or raise it with ANSWERLENS_MAX_RECORDS"):
        load_bundle([{"text": "x"}] * 4)
    monkeypatch.setenv("ANSWERLENS_MAX_RECORDS", "many")
    with pytest.raises(BundleError, match="not a positive whole number"):
        load_bundle([{"text": "x"}])


def test_a_simple_record_id_may_be_any_text_and_stands_for_its_derived_uuid() -> None:
    from uuid import UUID

    from answerlens.loading import record_uuid

    given = "5f2b7d9e-1c3a-4b6d-8e0f-123456789abc"
    bundle = load_bundle({"records": [{"text": "a", "id": "kb-1"}, {"text": "b", "id": given.upper()}]})
    ids = [candidate.node.id for group in bundle.sections.values() for candidate in group]
    assert ids == [record_uuid("kb-1"), UUID(given)] and record_uuid("kb-1") == record_uuid("kb-1")
    with pytest.raises(BundleError, match="a record id is a UUID or non-blank text"):
        load_bundle({"records": [{"text": "a", "id": " "}]})
    with pytest.raises(BundleError, match="record ids must be unique"):
        load_bundle({"records": [{"text": "a", "id": "kb-1"}, {"text": "b", "id": "kb-1"}]})
