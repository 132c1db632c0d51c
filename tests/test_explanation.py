from answerlens import AnswerabilityConfig, MemoryBundle, derive_assessment, load_bundle
from answerlens.explanation import HASH_FIELDS, report_lines, why
from answerlens.prompts import NO_EVIDENCE_RAW
from tests.paths import PRME

RAW = (PRME / "assessments" / "raw_output_reader_openai.json").read_text()
BUNDLE = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
CONFIG = AnswerabilityConfig(provider="replay", model="recorded")


def test_why_is_built_from_the_data() -> None:
    assessment = derive_assessment("What database and cache?", BUNDLE, RAW, config=CONFIG)
    text = why(assessment)
    assert "4 requirements" in text and "partial" in text
    assert "“Cache used by the dashboard API” by m1" in text
    assert "“Dashboard API owner” (the model claimed supported, but it had no valid citation, so it was" in text
    assert "m99 in requirement 3 (not a citable reference in this context)" in text
    assert "m4 in requirement 1 (the same token again, skipped)" in text


def test_why_without_a_model_call() -> None:
    assessment = derive_assessment("Q?", MemoryBundle(), NO_EVIDENCE_RAW, config=CONFIG, model_called=False)
    assert why(assessment).startswith("No model was called")
    assert "(no model call)" in report_lines(assessment)[1]


def test_report_lists_every_hash() -> None:
    assessment = derive_assessment("Q?", BUNDLE, RAW, config=CONFIG)
    text = "\n".join(report_lines(assessment))
    for name in HASH_FIELDS:
        assert f"  {name}" in text


def test_why_numbers_requirements_from_first() -> None:
    assessment = derive_assessment("What database and cache?", BUNDLE, RAW, config=CONFIG)
    text = why(assessment, first=1)
    assert "m99 in requirement 4 (not a citable reference in this context)" in text
    assert "m4 in requirement 2 (the same token again, skipped)" in text
