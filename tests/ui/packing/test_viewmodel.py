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
    Rendering,
    assessable_detail,
    budget_cut,
    bundle_budget,
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
    assert [r.format.key for r in renderings] == [f.key for f in FORMATS]
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
    renderings = {r.format.key: r for r in render_all(sample("reader_without_citations").load())}
    plain = renderings["reader_plain"]
    assert plain.as_packed and not plain.assessable and plain.references == 0
    assert plain.problem is not None and plain.problem.startswith("This reader-format bundle has no citation")
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
    (rendering,) = [r for r in render_all(sample(stem).load()) if r.format.key == key]
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


# --- where a token budget cuts -------------------------------------------------------------------------------

FIXTURES = PRME


def _packed(name: str) -> Rendering:
    (packed,) = [r for r in render_all(load_bundle(FIXTURES / "bundles" / f"{name}.json")) if r.as_packed]
    return packed


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in ("bundle_reader_citations", "bundle_compact",
                                                                   "bundle_auditable", "bundle_reader_plain")])
def test_a_budget_of_prmes_own_count_holds_every_record_and_one_less_cuts(name: str) -> None:
    rendering = _packed(name)
    bundle = load_bundle(FIXTURES / "bundles" / f"{name}.json")
    full = budget_cut(rendering, bundle.tokens_used)
    assert full is not None and full.fits and full.records == bundle.record_count
    assert full.kept_tokens == bundle.tokens_used and full.first_cut is None
    short = budget_cut(rendering, bundle.tokens_used - 1)
    assert short is not None and short.kept == short.records - 1
    assert short.first_cut == rendering.text.split("\n")[-1]  # the last record is the one cut
    assert short.kept_tokens <= bundle.tokens_used - 1


def test_budget_cut_is_the_longest_prefix_that_fits() -> None:
    rendering = _packed("bundle_reader_citations")
    lines = rendering.text.split("\n")
    records = [index for index, line in enumerate(lines) if line.startswith("- ")]
    for budget in range(0, len(rendering.text) + 2, 7):
        cut = budget_cut(rendering, budget, count=len)  # characters, so every boundary is easy to check
        assert cut is not None
        fits = [k for k in range(len(records) + 1) if k == 0 or len("\n".join(lines[: records[k - 1] + 1])) <= budget]
        assert cut.kept == max(fits), budget
        assert cut.first_cut == (lines[records[cut.kept]] if cut.kept < len(records) else None)


def test_nothing_rendered_has_no_cut() -> None:
    (rendering,) = [r for r in render_all(load_bundle({"records": []})) if r.format.key == "compact"]
    assert budget_cut(rendering, 100) is None


def test_bundle_budget_is_the_packers_or_prmes_default() -> None:
    bundle = load_bundle(FIXTURES / "bundles" / "bundle_reader_citations.json")
    assert bundle_budget(bundle) == bundle.tokens_used + bundle.budget_remaining
    assert bundle_budget(load_bundle({"records": [{"text": "x"}]})) == 4096




@pytest.mark.parametrize(
    "data", [pytest.param({"records": [{"text": "a"}]}, id="bundle"), pytest.param([{"text": "a"}], id="records"),
             pytest.param({"question": "q", "bundle": {"records": []}}, id="sample")],
)
def test_a_bundle_given_as_the_reply_is_refused_saying_so(data: object) -> None:
    with pytest.raises(ValueError, match="bundle \\(or sample\\) file, not a reply"):
        reply_from(data)
