"""The printed document: strict verdict on top, audited assessment restorable, both parts verified."""

from typing import Any

from answerlens import verify_assessment
from answerlens.second_opinion.document import output_document, split_document
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.verification.opinion import verify_document
from tests.second_opinion.builders import replayed


async def document(name: str, **options: Any) -> tuple[dict[str, Any], Any, Any]:
    item, bundle, assessment = replayed(name)
    opinion = await second_opinion_for(assessment, bundle, item.question, **options)
    return output_document(assessment, opinion), assessment, bundle


async def test_standard_policy_prints_the_assessment_unchanged_plus_the_opinion() -> None:
    printed, assessment, bundle = await document("second_opinion_plan_as_fact")
    opinion = printed.pop("second_opinion")
    assert printed == assessment.model_dump(mode="json")
    assert [r["flags"][0]["code"] for r in opinion["requirements"]] == ["speech_act_mismatch"]
    assert set(opinion["requirements"][0]) == {"requirement", "status", "typed_evidence", "flags", "verifier"}
    assert opinion["requirements"][0]["verifier"] is None


async def test_strict_policy_prints_the_strict_verdict_and_still_verifies() -> None:
    printed, assessment, bundle = await document("second_opinion_plan_as_fact", policy="strict")
    assert (printed["verdict"], printed["recommended_action"]) == ("insufficient", "abstain")
    assert printed["missing_information"] == ["Message broker the notifications service uses in production"]
    assert printed["requirements"][0]["status"] == "supported"  # the audited, hashed status stays
    assert verify_document(printed, bundle=bundle) == ()
    audited, opinion, problems = split_document(printed)
    assert problems == [] and audited == assessment.model_dump(mode="json")
    assert verify_assessment(audited, bundle=bundle).ok


async def test_an_edited_strict_verdict_on_top_is_caught() -> None:
    printed, _, _ = await document("second_opinion_superseded_region", policy="strict")
    printed["verdict"], printed["recommended_action"] = "answerable", "answer"
    assert verify_document(printed) == (
        "verdict: 'answerable' is not the strict policy's ('insufficient')",
        "recommended_action: 'answer' is not the strict policy's ('abstain')",
    )


async def test_edits_inside_either_part_are_caught() -> None:
    printed, _, _ = await document("second_opinion_incident_count", policy="strict")
    printed["requirements"][0]["explanation"] += " (edited)"
    printed["second_opinion"]["requirements"][0]["flags"] = []
    problems = verify_document(printed)
    assert any(p.startswith("assessment_sha256") for p in problems)
    assert any(p.startswith("second_opinion.requirements[0].flags") for p in problems)


async def test_a_malformed_strict_block_is_a_problem_not_a_crash() -> None:
    printed, _, _ = await document("second_opinion_incident_count", policy="strict")
    printed["second_opinion"]["strict"] = {"verdict": "answerable"}
    problems = verify_document(printed)
    assert problems[0].startswith("second_opinion.strict: malformed")


async def test_a_null_second_opinion_is_a_problem() -> None:
    printed, _, _ = await document("second_opinion_incident_count")
    printed["second_opinion"] = None
    assert verify_document(printed) == ("second_opinion: not a second opinion (expected a JSON object)",)
