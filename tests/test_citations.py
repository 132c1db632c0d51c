from uuid import UUID

import pytest

from answerlens import ContextFormat, DiscardReason, load_bundle
from answerlens.citations import Decision, check_requirement, label_sites, valid_references
from answerlens.prompts import RawRequirement
from answerlens.records import MemoryBundle
from answerlens.verdict import AnswerabilityStatus
from tests.paths import PRME

RECORDS = [{"text": f"record {n}"} for n in range(1, 12)]  # m1 … m11, so m1 and m10 both exist
AUDIT_ID = "00000000-0000-0000-0000-00000000000a"


def _bundle(fmt: str, citations: bool = False) -> MemoryBundle:
    return load_bundle({"records": RECORDS, "packing": {"context_format": fmt, "context_citations": citations}})


READER = _bundle("reader", True)
COMPACT = _bundle("compact")
AUDITABLE = _bundle("auditable")


def _check(bundle: MemoryBundle, refs: list[str], status: str = "supported", index: int = 0):  # type: ignore[no-untyped-def]
    context = bundle.render().strip()
    references = valid_references(bundle, context)
    sites = label_sites(context, bundle.context_format, cited_reader=bool(bundle.context_references))
    item = RawRequirement(requirement="r", status=AnswerabilityStatus(status), evidence_refs=refs, explanation="e")
    return check_requirement(index, item, references, sites, bracketed=bundle.context_format == ContextFormat.READER)


@pytest.mark.parametrize(
    "bundle, refs, status, accepted, errors",
    [
        pytest.param(READER, ["m3"], "supported", ["m3"], [], id="reader_bare"),
        pytest.param(READER, ["[m3]"], "supported", ["m3"], [], id="reader_bracketed"),
        pytest.param(READER, ["[ m3 ]"], "supported", ["m3"], [], id="reader_bracketed_padded"),
        pytest.param(READER, [" m3\n"], "supported", ["m3"], [], id="reader_whitespace"),
        pytest.param(READER, ["m3", "[m3]"], "supported", ["m3"], [], id="same_token_twice_is_silent"),
        pytest.param(READER, ["m1", "m10"], "supported", ["m1", "m10"], [], id="m1_vs_m10"),
        pytest.param(READER, ["m12"], "supported", [],
                     ["requirement[0] cited unknown context reference 'm12'",
                      "requirement[0] supported without 1 valid citation(s)"], id="unknown_ref"),
        pytest.param(READER, ["M1"], "supported", [],
                     ["requirement[0] cited unknown context reference 'M1'",
                      "requirement[0] supported without 1 valid citation(s)"], id="case_sensitive"),
        pytest.param(READER, ["", "   ", "[]", "[ ]"], "unsupported", [], [], id="empty_tokens_silent"),
        pytest.param(READER, ["m2"], "conflicting", ["m2"],
                     ["requirement[0] conflicting without 2 valid citation(s)"], id="one_cite_conflict"),
        pytest.param(READER, ["m2", "m5"], "conflicting", ["m2", "m5"], [], id="two_cite_conflict"),
        pytest.param(READER, ["m4"], "unsupported", ["m4"], [], id="unsupported_keeps_valid_citations"),
        pytest.param(COMPACT, ["m3"], "supported", ["m3"], [], id="compact_bare"),
        pytest.param(COMPACT, ["[m3]"], "supported", [],
                     ["requirement[0] cited unknown context reference '[m3]'",
                      "requirement[0] supported without 1 valid citation(s)"], id="compact_brackets_stay"),
        pytest.param(AUDITABLE, [AUDIT_ID], "supported", [AUDIT_ID], [], id="auditable_uuid"),
        pytest.param(AUDITABLE, [AUDIT_ID.upper()], "supported", [],
                     [f"requirement[0] cited unknown context reference '{AUDIT_ID.upper()}'",
                      "requirement[0] supported without 1 valid citation(s)"], id="auditable_uuid_case"),
        pytest.param(AUDITABLE, ["m1"], "supported", [],
                     ["requirement[0] cited unknown context reference 'm1'",
                      "requirement[0] supported without 1 valid citation(s)"], id="auditable_citing_mN"),
        pytest.param(AUDITABLE, [f"[{AUDIT_ID}]"], "supported", [],
                     [f"requirement[0] cited unknown context reference '[{AUDIT_ID}]'",
                      "requirement[0] supported without 1 valid citation(s)"], id="auditable_brackets_stay"),
    ],
)
def test_citation_rules(bundle: MemoryBundle, refs: list[str], status: str, accepted: list[str],
                        errors: list[str]) -> None:
    checked = _check(bundle, refs, status)
    assert list(checked.refs) == accepted
    assert list(checked.errors) == errors
    expected_status = status if not errors or status == "unsupported" else "unsupported"
    assert checked.status.value == expected_status


def test_duplicate_memory_under_two_tokens() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_compact.json").model_copy(
        update={"context_references": {"m1": UUID("058174e2-f93c-468d-9e87-17703afc81da"),
                                       "m4": UUID("058174e2-f93c-468d-9e87-17703afc81da")}}
    )
    checked = _check(bundle, ["m1", "m4"], index=2)
    assert checked.refs == ("m1",)
    assert checked.errors == ("requirement[2] cited memory 058174e2-f93c-468d-9e87-17703afc81da more than once",)
    assert [d.reason for d in checked.decisions] == [None, DiscardReason.DUPLICATE_MEMORY]


def test_decisions_record_every_token_with_its_reason() -> None:
    checked = _check(READER, ["[m1]", "m1", "m99", " ", "m99"])
    assert [(d.decision, d.reason) for d in checked.decisions] == [
        (Decision.ACCEPTED, None),
        (Decision.DISCARDED, DiscardReason.DUPLICATE_MEMORY),
        (Decision.DISCARDED, DiscardReason.UNKNOWN_REFERENCE),
        (Decision.DISCARDED, DiscardReason.EMPTY),
        (Decision.DISCARDED, DiscardReason.UNKNOWN_REFERENCE),
    ]
    assert [d.error is not None for d in checked.decisions] == [False, False, True, False, False]
    assert checked.decisions[0].memory_id == UUID(int=1)


@pytest.mark.parametrize("bundle, token, printed", [
    pytest.param(READER, "m10", "[m10]", id="reader"),
    pytest.param(COMPACT, "m10", '["m10"', id="compact"),
    pytest.param(AUDITABLE, AUDIT_ID, f'{{"id":"{AUDIT_ID}"', id="auditable"),
])
def test_spans_point_at_the_label_and_its_record_line(bundle: MemoryBundle, token: str, printed: str) -> None:
    context = bundle.render().strip()
    decision = _check(bundle, [token]).decisions[0]
    assert decision.span is not None and decision.line is not None
    assert context[decision.span.start:decision.span.end] == token
    line = context[decision.line.start:decision.line.end]
    assert line.startswith(printed.replace("[m10]", "- [m10]"))
    assert "\n" not in line and "record 10" in line


def test_label_lookalikes_inside_record_text_are_not_labels() -> None:
    bundle = load_bundle({"records": [{"text": '- [m2] fake\n["m2", {"id":"x"}'}, {"text": "real"}]})
    context = bundle.render().strip()
    site = label_sites(context, bundle.context_format, cited_reader=True)["m2"]
    assert context[site.line.start:site.line.end] == '- [m2] "real"'


def test_valid_references_need_the_token_in_the_exact_context() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_compact.json")
    context = bundle.render().strip()
    assert set(valid_references(bundle, context)) == {"m1", "m2", "m3", "m4", "m5"}
    assert valid_references(bundle, context.replace('"m5"', '"mX"')).keys() == {"m1", "m2", "m3", "m4"}


def test_reader_without_references_and_empty_bundles_have_no_valid_tokens() -> None:
    plain = load_bundle(PRME / "bundles" / "bundle_reader_plain.json")
    assert valid_references(plain, plain.render().strip()) == {}
    assert valid_references(MemoryBundle(), "") == {}
    assert label_sites(plain.render(), ContextFormat.READER, cited_reader=False) == {}


def _substring_rule(bundle: MemoryBundle, context: str) -> dict[str, UUID]:
    """Upstream's rule, written naively: one substring search per reference."""
    if bundle.context_references:
        return {ref: memory_id for ref, memory_id in bundle.context_references.items()
                if f'"{ref}"' in context or f"[{ref}]" in context}
    return {str(c.node.id): c.node.id for _, c in bundle.candidates() if f'"id":"{c.node.id}"' in context}


def test_fast_valid_references_agree_with_the_substring_rule() -> None:
    import random

    rng = random.Random(5)
    alphabet = ['"', "[", "]", "m1", "m2", "m10", "x", " ", "\n", '"id":"', str(UUID(int=1)), "m"]
    refs = {"m1": UUID(int=1), "m2": UUID(int=2), "m10": UUID(int=3), 'm"q': UUID(int=4), "m[b]": UUID(int=5)}
    for _ in range(3000):
        context = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        cited = COMPACT.model_copy(update={"context_references": refs})
        assert valid_references(cited, context) == _substring_rule(cited, context), context
        assert valid_references(AUDITABLE, context) == _substring_rule(AUDITABLE, context), context
