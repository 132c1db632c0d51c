"""The Packing page (AppTest): renderings, assessability, citations under each format (the pure stage is tested
in tests/ui/packing)."""

from __future__ import annotations

import html as html_lib
import json
import re

from answerlens.ui.packing.viewmodel import FORMATS
from tests.app.conftest import assert_clean, choose_sample, html, notices, start
from tests.paths import PRME, SAMPLES

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
    assert [key for key, _ in counts] == [f.value for f in FORMATS]
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


def test_the_page_shows_where_the_budget_cuts() -> None:
    at = start(PAGE)
    choose_sample(at, "large_platform_history", prefix="packing")
    assert at.text_input(key="packing.budget").value == "packed"  # the bundle as it is, as a sweep's default
    at.text_input(key="packing.budget").set_value("4096").run()
    cuts = {key: (int(kept), int(total)) for key, kept, total in
            re.findall(r'data-budget-cut="(\w+)" data-kept="(\d+)" data-records="(\d+)"', html(at))}
    assert list(cuts) == [f.value for f in FORMATS]
    assert all(0 < kept < total == 200 for kept, total in cuts.values())  # 200 records do not fit 4096 tokens
    assert cuts["reader_plain"][0] > cuts["compact"][0] > cuts["auditable"][0]
    assert "of 4,096 tokens); cut: m" in html(at)
    at.text_input(key="packing.budget").set_value("100000").run()
    assert_clean(at)
    kept = re.findall(r'data-budget-cut="\w+" data-kept="(\d+)" data-records="200"', html(at))
    assert kept == ["200"] * 4


def test_budget_240_cuts_m6_and_the_table_and_box_follow_it() -> None:
    at = start(PAGE)
    choose_sample(at, "sweep_budget_cut", prefix="packing")
    assert dict(re.findall(r'data-format-verdict="(\w+)">(\w+)', html(at)))["reader_cited"] == "answerable"
    at.text_input(key="packing.budget").set_value("240").run()
    assert_clean(at)
    page = html(at)
    assert re.search(r'data-budget-cut="reader_cited" data-kept="5" data-records="6">keeps 5 of 6 records '
                     r"\(\d+ of 240 tokens\); cut: m6<", page)
    assert re.search(r'data-ref="m6" data-cut="true"[^>]*>discarded: unknown_reference \(m6 was cut by this '
                     r"setting\)<", page)
    assert 'data-format-verdict="reader_cited">partial<div class="al-muted" data-format-action="answer_partially">' \
        in page
    assert "5 citable references" in page and "6 citable references" not in " ".join(notices(at.main, "ok")[:1])


def test_a_bad_budget_says_so_and_shows_the_bundle_as_packed() -> None:
    at = start(PAGE)
    choose_sample(at, "sweep_budget_cut", prefix="packing")
    at.text_input(key="packing.budget").set_value("lots").run()
    assert_clean(at)
    assert any("expected 'packed'" in error for error in notices(at.main, "error"))
    assert 'data-kept="6" data-records="6"' in html(at)


def test_a_records_detail_shows_every_field_prme_wrote() -> None:
    at = start(PAGE)
    choose_sample(at, "prme_reader_citations", prefix="packing")
    bundle = json.loads((SAMPLES / "prme_reader_citations.json").read_text())["bundle"]
    node = next(iter(bundle["sections"].values()))[0]["node"]
    at.selectbox(key="packing.record").set_value(node["id"]).run()
    assert_clean(at)
    page = html(at)
    detail = re.search(rf'<div data-record-detail="{node["id"]}" data-kept-fields="(\d+)">(.*?)</table>', page, re.S)
    assert detail is not None and detail.group(1) == "13"
    rows = re.findall(r"<tr><td[^>]*>([^<]+)</td><td[^>]*>([^<]*)</td><td[^>]*>([^<]+)</td></tr>", detail.group(2))
    assert sorted(name for name, _, _ in rows) == sorted(node) and len(rows) == 26  # every field PRME wrote
    shown = {name: (value, use) for name, value, use in rows}
    assert shown["user_id"] == (html_lib.escape(json.dumps(node["user_id"])), "kept for audit")
    assert shown["confidence"][0] == json.dumps(node["confidence"]) and shown["content"][1] == "read by answerlens"
