"""The Packing page's view-model: every format rendered, assessable or not and why, and a reply's citations under
each format judged exactly as the engine judges them."""

from __future__ import annotations

import json
import re

import pytest

from answerlens import load_bundle
from answerlens.prompts import RawAssessment
from answerlens.ui.common.runner import READER_FIX
from answerlens.ui.packing.viewmodel import (
    FORMATS,
    assessable_detail,
    citation_matrix,
    counts_text,
    matrix_html,
    render_all,
    reply_from,
)
from tests.paths import PRME, SAMPLES
from tests.ui.conftest import recorded, sample

RAW = json.loads((PRME / "assessments" / "raw_output_reader_openai.json").read_text())
PRME_ASSESSMENT = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
SAMPLE_STEMS = sorted(path.stem for path in SAMPLES.glob("*.json"))


@pytest.mark.parametrize("stem", SAMPLE_STEMS)
def test_every_sample_renders_in_every_format(stem: str) -> None:
    renderings = render_all(sample(stem).load())
    assert [r.format for r in renderings] == list(FORMATS)
    assert all(r.error is None for r in renderings)
    assert sum(r.as_packed for r in renderings) == 1
    reader_plain = renderings[1]
    assert not reader_plain.assessable or not reader_plain.text


@pytest.mark.parametrize("name", ["bundle_reader_citations", "bundle_auditable", "bundle_compact",
                                  "bundle_reader_plain"])
def test_the_packed_format_shows_the_packed_text_and_matches_it(name: str) -> None:
    bundle = load_bundle(PRME / "bundles" / f"{name}.json")
    (packed,) = [r for r in render_all(bundle) if r.as_packed]
    assert packed.matches_packed is True and packed.text == bundle.exact_context
    assert all(r.matches_packed is None for r in render_all(bundle) if not r.as_packed)


def test_reader_without_citations_cannot_be_assessed_and_says_how_to_fix_it() -> None:
    renderings = {r.format.value: r for r in render_all(sample("reader_without_citations").load())}
    plain = renderings["reader_plain"]
    assert plain.as_packed and not plain.assessable and plain.references == 0
    assert plain.problem is not None and "This reader-format bundle has no citation" in plain.problem
    assert plain.fix == READER_FIX
    assert [key for key, r in renderings.items() if r.assessable] == ["reader_cited", "auditable", "compact"]


def test_counts_as_prme_counts() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    packed, *_ = render_all(bundle)
    assert packed.as_packed and packed.chars == len(packed.text) > 0
    text = counts_text(packed, bundle)
    assert text.startswith(f"{packed.chars:,} characters · {packed.tokens:,} tokens (cl100k_base, as PRME counts)")
    assert text.endswith("the packer counted 238 tokens with cl100k_base (exact, as packed)")
    assert "packer counted" not in counts_text(render_all(bundle)[2], bundle)


@pytest.mark.parametrize(
    "stem, key, detail",
    [
        pytest.param("prme_reader_citations", "reader_cited", "5 citable references", id="several"),
        pytest.param("empty_bundle", "compact", "empty context: the verdict would be insufficient", id="empty"),
    ],
)
def test_assessable_detail(stem: str, key: str, detail: str) -> None:
    (rendering,) = [r for r in render_all(sample(stem).load()) if r.format.value == key]
    assert rendering.assessable and assessable_detail(rendering).startswith(detail)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(RAW, id="raw_reply"),
        pytest.param(PRME_ASSESSMENT, id="prme_assessment"),
        pytest.param(recorded("prme_reader_citations").model_dump(mode="json"), id="answerlens_assessment"),
    ],
)
def test_reply_from_raw_and_assessments(data: object) -> None:
    reply = reply_from(data)
    assert [r.requirement for r in reply.requirements][0] == "Cache used by the dashboard API"


def test_an_answerlens_assessment_gives_back_its_raw_reply() -> None:
    assessment = recorded("compact_citation_errors")
    assert reply_from(assessment.model_dump(mode="json")) == RawAssessment.model_validate(assessment.raw_output)


def test_a_prme_assessment_is_rebuilt_from_its_accepted_refs() -> None:
    reply = reply_from(PRME_ASSESSMENT)
    assert [list(r.evidence_refs) for r in reply.requirements] == [
        list(item["evidence_refs"]) for item in PRME_ASSESSMENT["requirements"]]


@pytest.mark.parametrize(
    "data",
    [pytest.param({"hello": 1}, id="unrelated_object"), pytest.param([1, 2], id="list"),
     pytest.param({"requirements": [], "reasoning": "r"}, id="no_requirements")],
)
def test_anything_else_is_not_a_reply(data: object) -> None:
    with pytest.raises(ValueError, match="not a raw reply or an assessment"):
        reply_from(data)


def test_matrix_follows_the_engine_on_prme_data() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    rows, verdicts = citation_matrix(render_all(bundle), reply_from(RAW))
    assert verdicts == {"reader_cited": "partial", "reader_plain": "cannot be assessed", "auditable": "insufficient",
                        "compact": "partial"}
    cited = [(row["token"], row["reader_cited"].text) for row in rows]
    assert cited[:3] == [("[m1]", "accepted → m1"), ("m4", "accepted → m4"), ("m4", "discarded: duplicate_memory")]
    assert ("m99", "discarded: unknown_reference") in cited
    assert all(row["reader_plain"].text == "cannot be assessed" for row in rows)


def test_a_requirement_without_citations_is_one_row_with_its_status() -> None:
    bundle = sample("speech_act_eslint").load()
    reply = RawAssessment.model_validate({"requirements": [
        {"requirement": "r", "status": "unsupported", "evidence_refs": [], "explanation": "e"}], "reasoning": "x"})
    (row,), verdicts = citation_matrix(render_all(bundle), reply)
    assert row["token"] == "(no citation)" and row["reader_cited"].text == "→ unsupported"
    assert row["reader_cited"].accepted is None and verdicts["reader_cited"] == "insufficient"


def test_matrix_table_carries_format_and_ref_and_escapes_tokens() -> None:
    bundle = sample("answerable_billing_database").load()
    hostile = '"><img src=x onerror=alert(1)>'
    reply = RawAssessment.model_validate({"requirements": [
        {"requirement": "<b>r</b>", "status": "supported", "evidence_refs": ["m1", hostile], "explanation": "e"}],
        "reasoning": "x"})
    html = matrix_html(render_all(bundle), reply)
    assert "<img" not in html and "<b>" not in html
    assert re.search(r'data-format="auditable" data-ref="m1"[^>]*>discarded: unknown_reference<', html)
    assert re.search(r'data-format="compact" data-ref="m1"[^>]*>accepted → m1<', html)
    assert 'data-format="compact" data-ref="&quot;&gt;&lt;img' in html  # the attribute holds, quotes escaped
    assert dict(re.findall(r'data-format-verdict="(\w+)">([^<]+)<', html)) == {
        "reader_cited": "answerable", "reader_plain": "cannot be assessed", "auditable": "insufficient",
        "compact": "answerable"}  # the invented token is discarded; m1 still supports the requirement


def test_a_packed_context_whose_header_differs_is_flagged() -> None:
    # Headers are PRME's byte for byte now, so the comparison covers the header line too.
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    header, rest = bundle.rendered_context.split("\n", 1)
    edited = bundle.model_copy(update={"rendered_context": header.replace("source data", "data") + "\n" + rest})
    (packed,) = [r for r in render_all(edited) if r.as_packed]
    assert packed.matches_packed is False


# --- the page's setting is a sweep cell's ------------------------------------------------------------------


def test_at_a_budget_a_citation_of_a_cut_record_is_discarded_as_the_sweep_discards_it() -> None:
    item = sample("sweep_budget_cut")
    renderings = render_all(item.load(), "240")
    cited = {r.format.value: r for r in renderings}["reader_cited"]
    assert [str(record)[-1] for record in cited.context.cut] == ["6"] and cited.assessable
    assert assessable_detail(cited) == "5 citable references"
    rows, verdicts = citation_matrix(renderings, reply_from(item.recorded_reply))
    m6 = next(row["reader_cited"] for row in rows if row["token"] == "m6")
    assert (m6.text, m6.accepted, m6.cut) == ("discarded: unknown_reference (m6 was cut by this setting)", False, True)
    assert verdicts["reader_cited"] == "partial"
    html = matrix_html(renderings, reply_from(item.recorded_reply))
    assert 'data-format-verdict="reader_cited">partial<div class="al-muted" data-format-action="answer_partially">' \
        "answer partially</div>" in html
    assert re.search(r'data-format="reader_cited" data-ref="m6" data-cut="true"', html)


def test_as_packed_every_record_is_kept_and_the_citations_hold() -> None:
    item = sample("sweep_budget_cut")
    renderings = render_all(item.load())
    assert all(not r.context.cut for r in renderings)
    assert citation_matrix(renderings, reply_from(item.recorded_reply))[1]["reader_cited"] == "answerable"


def test_a_depth_and_a_chunk_size_cut_the_renderings_too() -> None:
    bundle = sample("sweep_budget_cut").load()
    deep = {r.format.value: r for r in render_all(bundle, top_k=2)}
    assert all(len(r.context.kept) == 2 for r in deep.values() if r.error is None)
    short = {r.format.value: r for r in render_all(bundle, record_tokens=4)}
    assert "cut to its first 4 tokens" in short["compact"].text and short["compact"].context.shortened


def test_a_budget_that_keeps_nothing_cannot_be_assessed_and_says_so() -> None:
    renderings = render_all(sample("sweep_budget_cut").load(), "0")
    assert all(not r.assessable and r.context.kept == () for r in renderings)
    assert "keeps no record" in (renderings[0].problem or "")


@pytest.mark.parametrize(
    "data", [pytest.param({"records": [{"text": "a"}]}, id="bundle"), pytest.param([{"text": "a"}], id="records"),
             pytest.param({"question": "q", "bundle": {"records": []}}, id="sample")],
)
def test_a_bundle_given_as_the_reply_is_refused_saying_so(data: object) -> None:
    with pytest.raises(ValueError, match="bundle \\(or sample\\) file, not a reply"):
        reply_from(data)
