"""Adversarial variants of the verify attacks: forgeries with every hash recomputed, over other samples, other
formats and other fields, must be NOT VERIFIED (never ok), as JSON with the bundle and as a report."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from answerlens import verify_assessment
from answerlens.citations import valid_references
from answerlens.report.embedded import extract
from answerlens.samples import load_sample
from answerlens.verification.report import assessment_report, render, verify_report
from tests.forgery import rehashed
from tests.paths import SAMPLES
from tests.report.builders import replayed

FOREIGN = "5b1f3f8e-6d0a-4c1e-9a57-0c6f7b0f2a11"
NAMES = ["answerable_billing_database", "compact_citation_errors", "auditable_uuid_citations",
         "prme_reader_citations", "conflicting_deploy_freeze"]
OURS = ("raw_output", "raw_output_text", "raw_output_sha256", "provider_metadata", "provenance_sha256")


def prme_shaped(data: dict[str, Any], *, keep_decisions: bool = False) -> dict[str, Any]:
    data = copy.deepcopy(data)
    for key in OURS:
        data.pop(key, None)
    for item in data["requirements"]:
        item["claimed_status"] = None
        if not keep_decisions:
            item["citations"] = []
    return data


def report(name: str, document: dict[str, Any]) -> str:
    bundle, _ = replayed(name)
    sample = load_sample(SAMPLES / f"{name}.json")
    return assessment_report(document, question=sample.question, context=bundle.exact_context, answer=sample.answer)


def forged_report(html: str, edit: Any) -> str:
    """A careful forger edits the embedded data and renders the page from it again."""
    raw = extract(html)
    edit(raw)
    return render(raw)


def variants(refs: dict[str, Any]) -> dict[str, tuple[list[str], list[str], str]]:
    (r1, u1), (r2, u2) = list(refs.items())[:2]
    return {
        "ref_names_other_memory": ([r1], [str(u2)], "supported"),
        "upper_case_ref": ([r1.upper()], [str(u1)], "supported"),
        "padded_ref": ([f" {r1} "], [str(u1)], "supported"),
        "bracketed_ref": ([f"[{r1}]"], [str(u1)], "supported"),
        "m0": (["m0"], [FOREIGN], "supported"),
        "uuid_not_in_context": ([FOREIGN], [FOREIGN], "supported"),
        "conflict_on_one_memory": ([r1, r1], [str(u1), str(u1)], "conflicting"),
        "conflict_one_unknown": ([r1, "M1"], [str(u1), FOREIGN], "conflicting"),
        "supported_without_refs": ([], [], "supported"),
    }


@pytest.mark.parametrize("name", NAMES)
def test_prme_shaped_support_the_context_does_not_give_is_refused(name: str) -> None:
    bundle, assessment = replayed(name)
    base = prme_shaped(assessment.model_dump(mode="json"))
    assert verify_assessment(base, bundle=bundle).ok
    for variant, (refs, ids, status) in variants(valid_references(bundle, bundle.exact_context)).items():
        for index in range(len(base["requirements"])):
            data = copy.deepcopy(base)
            data["requirements"][index].update(status=status, evidence_refs=refs, evidence_ids=ids)
            assert not verify_assessment(rehashed(data), bundle=bundle).ok, (variant, index)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("field", ["span", "line", "memory_id", "decision", "ref"])
def test_decisions_without_a_raw_reply_are_not_taken_as_verified(name: str, field: str) -> None:
    """A PRME-shaped assessment that still carries citation decisions (which the report highlights) with a
    highlight moved onto another record: nothing re-derives those decisions, so they are NOT VERIFIED."""
    bundle, assessment = replayed(name)
    data = prme_shaped(assessment.model_dump(mode="json"), keep_decisions=True)
    decision = next(c for item in data["requirements"] for c in item["citations"] if c.get("memory_id"))
    moved = {"span": {"start": 0, "end": 5}, "line": {"start": 0, "end": 10}, "memory_id": FOREIGN,
             "decision": "discarded", "ref": "m999"}
    decision[field] = moved[field]
    assert not verify_assessment(data, bundle=bundle).ok
    assert not verify_assessment(data).ok
    assert not verify_report(report(name, data)).ok


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("stated", [None, "reader", "compact", "auditable"])
def test_a_report_states_no_check_it_did_not_make(name: str, stated: str | None) -> None:
    """Whatever format a report states, a forged citation in its embedded data is caught."""
    bundle, assessment = replayed(name)
    html = report(name, assessment.model_dump(mode="json"))

    def edit(raw: dict[str, Any]) -> None:
        raw["report"]["context_format"] = stated
        document = raw["report"]["document"]
        decision = next(c for item in document["requirements"] for c in item["citations"] if c.get("memory_id"))
        decision["span"] = {"start": 0, "end": 3}

    assert not verify_report(forged_report(html, edit)).ok


def test_decisions_on_an_assessment_no_model_made_are_refused() -> None:
    _, assessment = replayed("empty_bundle")
    _, other = replayed("answerable_billing_database")
    data = assessment.model_dump(mode="json")
    data["requirements"][0]["citations"] = other.model_dump(mode="json")["requirements"][0]["citations"]
    problems = verify_assessment(data).problems
    assert any("citations: present although no model was called" in problem for problem in problems), problems


HEADERS = {name: replayed(name)[0].exact_context.split("\n", 1)[0]
           for name in ("answerable_billing_database", "compact_citation_errors", "auditable_uuid_citations")}


def with_context(document: dict[str, Any], context: str) -> dict[str, Any]:
    """The assessment re-hashed for another context, as a careful forger would: context and evaluation ids, the
    recording's binding, provenance and output hashes."""
    from answerlens.audit import evaluation_id, provenance, provenance_sha256, sha256_text

    data = copy.deepcopy(document)
    data["context_sha256"] = sha256_text(context)
    data["evaluation_id"] = evaluation_id(data)
    recording = (data.get("provider_metadata") or {}).get("recording")
    if recording and recording.get("binding"):
        recording["binding"]["context_sha256"] = data["context_sha256"]
    if data.get("provenance_sha256"):
        data["provenance_sha256"] = provenance_sha256(provenance(data))
    return rehashed(data)


@pytest.mark.parametrize("name", ["answerable_billing_database", "compact_citation_errors",
                                  "auditable_uuid_citations", "conflicting_deploy_freeze"])
@pytest.mark.parametrize("header", [*HEADERS, "none"])
@pytest.mark.parametrize("shape", ["ours", "prme"])
def test_a_report_whose_context_header_was_swapped_is_not_verified(name: str, header: str, shape: str) -> None:
    bundle, assessment = replayed(name)
    own = bundle.exact_context.split("\n", 1)[0]
    if HEADERS.get(header) == own:
        pytest.skip("the sample's own header")
    rest = bundle.exact_context.split("\n", 1)[1]
    context = rest if header == "none" else f"{HEADERS[header]}\n{rest}"
    document = assessment.model_dump(mode="json")
    if shape == "prme":
        document = prme_shaped(document)
    html = report(name, document)

    def edit(raw: dict[str, Any]) -> None:
        raw["report"]["context"] = context
        raw["report"]["context_format"] = None if header == "none" else {
            "answerable_billing_database": "reader", "compact_citation_errors": "compact",
            "auditable_uuid_citations": "auditable"}[header]
        raw["report"]["document"] = with_context(raw["report"]["document"], context)

    check = verify_report(forged_report(html, edit))
    assert not check.ok, check


def _cli(*argv: str) -> int:
    from answerlens.cli import main

    return main(list(argv))


@pytest.mark.parametrize("edit", [
    pytest.param(lambda r: r["report"].update(context_format="Reader"), id="format_case"),
    pytest.param(lambda r: r["report"].update(context_format=" reader"), id="format_padded"),
    pytest.param(lambda r: r["report"].update(extra=1), id="unknown_field"),
    pytest.param(lambda r: r["report"].pop("question"), id="question_removed"),
    pytest.param(lambda r: r["report"].update(kind="trial"), id="kind_changed"),
    pytest.param(lambda r: r["report"]["document"].pop("verdict"), id="verdict_removed"),
])
def test_an_edited_report_is_not_verified_exit_1(tmp_path: Any, capsys: Any, edit: Any) -> None:
    """Exit codes: 1 for anything recognisably a report (or assessment) that does not verify, 2 only for what
    is not one at all (unreadable, no data block, not JSON)."""
    from answerlens.report.embedded import OPEN, encode

    _, assessment = replayed("compact_citation_errors")
    html = report("compact_citation_errors", assessment.model_dump(mode="json"))
    raw = extract(html)
    edit(raw)
    start = html.index(OPEN) + len(OPEN)
    path = tmp_path / "edited.html"
    path.write_text(html[:start] + encode(raw) + html[html.index("</script>", start):])
    assert _cli("verify", str(path)) == 1
    assert not verify_report(path.read_text()).ok
    (tmp_path / "none.html").write_text("<!doctype html><html></html>")
    assert _cli("verify", str(tmp_path / "none.html")) == 2
    capsys.readouterr()


@pytest.mark.parametrize("field", ["verdict", "requirements", "evaluation_id", "reasoning", "citation_errors"])
def test_an_assessment_with_a_field_removed_is_not_verified_exit_1(tmp_path: Any, capsys: Any, field: str) -> None:
    import json

    _, assessment = replayed("auditable_uuid_citations")
    data = assessment.model_dump(mode="json")
    data.pop(field)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    assert _cli("verify", str(path)) == 1
    path.write_text("{not json")
    assert _cli("verify", str(path)) == 2
    path.write_text("[1, 2]")
    assert _cli("verify", str(path)) == 2
    capsys.readouterr()


@pytest.mark.parametrize("name", ["compact_citation_errors", "auditable_uuid_citations", "prme_reader_citations"])
@pytest.mark.parametrize(("edit", "place"), [
    pytest.param(lambda h: h + "X", "after the document", id="text_after_html"),
    pytest.param(lambda h: h + "\n<p>injected</p>\n", "after the document", id="markup_after_html"),
    pytest.param(lambda h: "X" + h, "before the document", id="text_before_doctype"),
    pytest.param(lambda h: "\ufeff" + h, "before the document", id="bom_before_doctype"),
    pytest.param(lambda h: "  \n" + h, "before the document", id="blank_before_doctype"),
    pytest.param(lambda h: h.replace("</body>", "</body>X", 1), "at the end of the page", id="between_body_and_html"),
])
def test_verify_names_the_real_place_of_an_edit(name: str, edit: Any, place: str) -> None:
    _, assessment = replayed(name)
    check = verify_report(edit(report(name, assessment.model_dump(mode="json"))))
    assert not check.ok and place in check.problems[-1], check.problems
    assert "in the embedded data block" not in check.problems[-1]


RESOLVABLE_ONLY_WITH_BUNDLE = {"ref_names_other_memory"}  # reader/compact contexts do not print the memory id


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("shape", ["ours", "prme"])
def test_forged_support_in_a_report_is_not_verified(name: str, shape: str) -> None:
    """The same forgeries embedded in a report (page re-rendered): refused against the embedded context; the one
    only a bundle can catch in a reader or compact context is caught with --bundle."""
    bundle, assessment = replayed(name)
    base = assessment.model_dump(mode="json")
    if shape == "prme":
        base = prme_shaped(base)
    html = report(name, base)
    assert verify_report(html).ok
    auditable = bundle.context_format.value == "auditable"
    for variant, (refs, ids, status) in variants(valid_references(bundle, bundle.exact_context)).items():
        def edit(raw: dict[str, Any], refs: list[str] = refs, ids: list[str] = ids, status: str = status) -> None:
            document = raw["report"]["document"]
            document["requirements"][0].update(status=status, evidence_refs=refs, evidence_ids=ids)
            rehashed(document)

        forged = forged_report(html, edit)
        if variant in RESOLVABLE_ONLY_WITH_BUNDLE and not auditable and shape == "prme":
            assert not verify_report(forged, bundle=bundle).ok, variant
            continue
        assert not verify_report(forged).ok, variant
