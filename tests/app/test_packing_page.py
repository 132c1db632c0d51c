"""The Packing page (AppTest) and its pure stage: renderings, assessability, citations under each format."""

from __future__ import annotations

import json
import re

import pytest

from answerlens import load_bundle
from answerlens.samples import load_sample
from answerlens.ui.packing.viewmodel import (
    FORMATS,
    Rendering,
    budget_cut,
    bundle_budget,
    citation_matrix,
    render_all,
    reply_from,
)
from tests.app.conftest import assert_clean, choose_sample, html, notices, start
from tests.paths import PRME, REPO, SAMPLES

PAGE = "pages/packing.py"


def test_reader_without_citations_shows_the_exact_error_and_the_fix() -> None:
    at = start(PAGE)
    choose_sample(at, "reader_without_citations", prefix="packing")
    (error,) = notices(at.main, "error")
    assert "This reader-format bundle has no citation references" in error
    assert "PackingConfig(context_format='reader', context_citations=True)" in error
    assert "PRME_PACKING__CONTEXT_CITATIONS=true" in error and "auditable" in error
    assert len(notices(at.main, "ok")) == 3
    assert [c.value for c in at.code][1].startswith("Lines starting with")
    counts = re.findall(r'data-counts="(\w+)"[^>]*>([^<]+)<', html(at))
    assert [key for key, _ in counts] == [f.key for f in FORMATS]
    # Counted as PRME's packer counts (cl100k_base), not estimated.
    assert all("tokens (cl100k_base, as PRME counts)" in text and "estimate" not in text for _, text in counts)


def test_prme_bundle_reports_the_packers_exact_count_and_matches_byte_for_byte() -> None:
    at = start(PAGE)
    choose_sample(at, "prme_reader_citations", prefix="packing")
    page = html(at)
    assert "counted 238 tokens with cl100k_base" in page
    assert "Differs from the packed context" not in page and 'data-matches-packed="true"' in page


def test_recorded_reply_citations_under_each_format() -> None:
    at = start(PAGE)
    choose_sample(at, "answerable_billing_database", prefix="packing")
    page = html(at)
    verdicts = dict(re.findall(r'data-format-verdict="(\w+)">([^<]+)<', page))
    assert verdicts == {"reader_cited": "answerable", "reader_plain": "cannot be assessed",
                        "auditable": "insufficient", "compact": "answerable"}
    assert re.search(r'data-format="auditable" data-ref="m1"[^>]*>discarded: unknown_reference<', page)


def test_reply_from_an_uploaded_prme_assessment() -> None:
    at = start(PAGE)
    at.radio(key="packing.source_kind").set_value("Upload a file").run()
    bundle = (PRME / "bundles" / "bundle_reader_citations.json").read_bytes()
    at.file_uploader(key="packing.upload").set_value(("bundle.json", bundle, "application/json")).run()
    at.radio(key="packing.reply_kind").set_value("Upload a raw reply or an assessment").run()
    assessment = (PRME / "assessments" / "assessment_reader_openai.json").read_bytes()
    at.file_uploader(key="packing.reply_file").set_value(("a.json", assessment, "application/json")).run()
    assert_clean(at)
    verdicts = dict(re.findall(r'data-format-verdict="(\w+)">([^<]+)<', html(at)))
    assert verdicts["reader_cited"] == "partial"


def test_a_file_that_is_no_reply_says_so() -> None:
    at = start(PAGE)
    choose_sample(at, "answerable_billing_database", prefix="packing")
    at.radio(key="packing.reply_kind").set_value("Upload a raw reply or an assessment").run()
    at.file_uploader(key="packing.reply_file").set_value(("x.json", b'{"hello": 1}', "application/json")).run()
    assert_clean(at)
    assert any("not a raw reply or an assessment" in error for error in notices(at.main, "error"))


def test_every_sample_renders_in_every_format() -> None:
    for path in sorted(SAMPLES.glob("*.json")):
        renderings = render_all(load_sample(path).load())
        assert [r.format.key for r in renderings] == [f.key for f in FORMATS]
        assert all(r.error is None for r in renderings), path.stem
        reader_plain = renderings[1]
        assert not reader_plain.assessable or not reader_plain.text, path.stem


def test_packed_formats_match_their_bundles() -> None:
    for name in ("bundle_reader_citations", "bundle_auditable", "bundle_compact", "bundle_reader_plain"):
        bundle = load_bundle(PRME / "bundles" / f"{name}.json")
        (packed,) = [r for r in render_all(bundle) if r.as_packed]
        assert packed.matches_packed is True, name


def test_a_packed_context_whose_header_differs_is_flagged() -> None:
    # Headers are PRME's byte for byte now, so the comparison covers the header line too.
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    header, rest = bundle.rendered_context.split("\n", 1)
    edited = bundle.model_copy(update={"rendered_context": header.replace("source data", "data") + "\n" + rest})
    (packed,) = [r for r in render_all(edited) if r.as_packed]
    assert packed.matches_packed is False


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(json.loads((PRME / "assessments" / "raw_output_reader_openai.json").read_text()), id="raw"),
        pytest.param(json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text()), id="prme"),
    ],
)
def test_reply_from_raw_and_assessment(data) -> None:
    reply = reply_from(data)
    assert [r.requirement for r in reply.requirements][0] == "Cache used by the dashboard API"


def test_matrix_follows_the_engine_on_prme_data() -> None:
    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    raw = reply_from(json.loads((PRME / "assessments" / "raw_output_reader_openai.json").read_text()))
    rows, verdicts = citation_matrix(render_all(bundle), raw)
    assert verdicts["reader_cited"] == "partial"  # PRME's own verdict for this reply
    cited = [(row["token"], row["reader_cited"].text) for row in rows]
    assert cited[:3] == [("[m1]", "accepted → m1"), ("m4", "accepted → m4"), ("m4", "discarded: duplicate_memory")]
    assert ("m99", "discarded: unknown_reference") in cited


# --- where a token budget cuts -------------------------------------------------------------------------------

FIXTURES = REPO / "tests" / "fixtures" / "prme"


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


def test_the_page_shows_where_the_budget_cuts() -> None:
    at = start(PAGE)
    choose_sample(at, "large_platform_history", prefix="packing")
    assert at.number_input(key="packing.budget").value == 4096  # no budget of its own: PRME's default
    cuts = {key: (int(kept), int(total)) for key, kept, total in
            re.findall(r'data-budget-cut="(\w+)" data-kept="(\d+)" data-records="(\d+)"', html(at))}
    assert list(cuts) == [f.key for f in FORMATS]
    assert all(0 < kept < total == 200 for kept, total in cuts.values())  # 200 records do not fit 4096 tokens
    assert cuts["reader_plain"][0] > cuts["compact"][0] > cuts["auditable"][0]
    assert "a budget of 4,096 tokens ends after record" in html(at)
    at.number_input(key="packing.budget").set_value(100_000).run()
    assert_clean(at)
    kept = re.findall(r'data-budget-cut="\w+" data-kept="(\d+)" data-records="200"', html(at))
    assert kept == ["200"] * 4
