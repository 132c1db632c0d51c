import asyncio

import pytest

from answerlens import AnswerabilityConfig, MemoryBundle, derive_assessment, load_bundle
from answerlens.explanation import HASH_FIELDS, error_text, report_lines, why
from answerlens.prompts import NO_EVIDENCE_RAW
from answerlens.second_opinion.opinion import second_opinion_for
from tests.paths import PRME
from tests.second_opinion.builders import replayed

RAW = (PRME / "assessments" / "raw_output_reader_openai.json").read_text()
BUNDLE = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
CONFIG = AnswerabilityConfig(provider="replay", model="recorded")


def test_why_is_built_from_the_data() -> None:
    assessment = derive_assessment("What database and cache?", BUNDLE, RAW, config=CONFIG)
    text = why(assessment)
    assert text.startswith("Partial (action: answer partially): requirements 3 and 4 are missing")
    assert "Requirement 4 “Dashboard API owner”: the model claimed supported, but m99 was discarded (not a " \
           "citable reference in this context), and supported needs 1 valid citation, so it was downgraded." in text
    assert "Requirement 3 “Current primary database of the dashboard API”: the model claimed conflicting, but only m2 is valid" in text
    assert "Supported: requirement 1 “Cache used by the dashboard API” (m1)" in text


def test_why_leads_with_the_deciding_requirements_once_each() -> None:
    """Only what decided the verdict is spelled out, each requirement once, with the model's own words."""
    _, _, assessment = replayed("compact_citation_errors")
    text = why(assessment)
    assert text.startswith("Partial (action: answer partially): requirements 2, 3 and 4 are missing, so only part")
    for number, requirement in enumerate(assessment.requirements, 1):
        quoted = f"“{requirement.requirement}”"
        assert text.count(quoted) == 1, f"requirement {number} is named once"
        if requirement.status.value == "unsupported":
            assert f"Requirement {number} {quoted}: the model claimed" in text
            assert f"The model: “{requirement.explanation}" in text
    assert "[m2] was discarded (not a citable reference in this context)" in text
    assert "3 other discarded tokens did not change the verdict" in text
    assert "follows from their final statuses" not in text and "requirement 0" not in text


def test_why_gives_the_conflict_and_the_second_opinion() -> None:
    _, _, conflict = replayed("conflicting_deploy_freeze")
    assert why(conflict).startswith("Conflicting (action: surface conflict): the records disagree on requirement 1.")
    assert "Requirement 1 “" in why(conflict) and ": m1 and m2 disagree. The model: “" in why(conflict)
    item, bundle, plan = replayed("second_opinion_plan_as_fact")
    opinion = asyncio.run(second_opinion_for(plan, bundle, item.question, policy="strict"))
    text = why(plan, opinion)
    assert text.startswith("Answerable (action: answer): every requirement is supported — requirement 1 “")
    assert "The second opinion flags requirement 1: speech_act_mismatch on m1 (" in text
    assert text.endswith("The strict evidence policy demotes requirement 1 supported → unsupported, so the verdict "
                         "is insufficient (action: abstain).")


def test_the_command_line_numbers_from_1_and_shows_errors_under_their_requirement() -> None:
    """PRME's citation errors count from 0; the text output shows each under its 1-based requirement."""
    _, _, assessment = replayed("compact_citation_errors")
    lines = report_lines(assessment)
    assert "[1] supported: Redis version of session-store in production" in lines
    assert not any(line.startswith("[0]") for line in lines)
    second = lines.index("[2] unsupported (claimed supported): Who maintains session-store")
    assert lines[second + 2] == "      citation error: cited unknown context reference '[m2]'"
    assert "citation errors:" not in lines
    assert f"why: {why(assessment)}" in lines
    assert assessment.citation_errors[0] == "requirement[1] cited unknown context reference '[m2]'", "JSON verbatim"


@pytest.mark.parametrize(("error", "shown"), [
    pytest.param("requirement[0] cited unknown context reference 'm9'",
                 "requirement 1: cited unknown context reference 'm9'", id="unknown"),
    pytest.param("requirement[12] supported without 1 valid citation(s)",
                 "requirement 13: supported without 1 valid citation(s)", id="two_digits"),
    pytest.param("something else", "something else", id="not_prme_shaped"),
])
def test_a_citation_error_is_shown_under_its_1_based_requirement(error: str, shown: str) -> None:
    assert error_text(error) == shown


def test_why_without_a_model_call() -> None:
    assessment = derive_assessment("Q?", MemoryBundle(), NO_EVIDENCE_RAW, config=CONFIG, model_called=False)
    assert why(assessment).startswith("No model was called")
    assert "(no model call)" in report_lines(assessment)[1]


def test_report_lists_every_hash() -> None:
    assessment = derive_assessment("Q?", BUNDLE, RAW, config=CONFIG)
    text = "\n".join(report_lines(assessment))
    for name in HASH_FIELDS:
        assert f"  {name}" in text
