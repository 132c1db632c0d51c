"""A stored second opinion verifies against its assessment, and every edit is caught and named."""

from collections.abc import Callable
from typing import Any

import pytest

from answerlens import ClaimVerifier, verify_second_opinion
from answerlens.second_opinion.opinion import second_opinion_for
from tests.second_opinion.builders import replayed
from tests.second_opinion.helpers import Fixed

Edit = Callable[[dict[str, Any]], None]


async def stored(name: str = "second_opinion_superseded_region", **options: Any) -> tuple[dict, Any, Any]:  # type: ignore[type-arg]
    item, bundle, assessment = replayed(name)
    opinion = await second_opinion_for(assessment, bundle, item.question, **options)
    return opinion.model_dump(mode="json"), assessment, bundle


async def test_an_intact_opinion_verifies_with_and_without_the_bundle() -> None:
    for options in ({}, {"policy": "strict"}, {"verifier": ClaimVerifier(scorer=Fixed((0.9, 0.05, 0.05)))}):
        data, assessment, bundle = await stored(**options)
        assert verify_second_opinion(data, assessment) == ()
        assert verify_second_opinion(data, assessment, bundle=bundle) == ()


def _set(path: str, value: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        target: Any = data
        *parents, last = path.split(".")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return edit


@pytest.mark.parametrize("edit, expected", [
    pytest.param(_set("requirements.0.flags.0.reason", "looks fine"),
                 ["second_opinion.opinion_sha256", "second_opinion.requirements[0].flags"], id="flag_reason"),
    pytest.param(_set("requirements.0.flags", []),
                 ["second_opinion.opinion_sha256", "second_opinion.requirements[0].flags"], id="flag_removed"),
    pytest.param(_set("requirements.0.typed_evidence.0.lifecycle_state", "stable"),
                 ["second_opinion.opinion_sha256", "second_opinion.requirements[0].flags",
                  "second_opinion.requirements[0].typed_evidence[0]: lifecycle_state differ"], id="typed_field"),
    pytest.param(_set("requirements.0.requirement", "Something else"),
                 ["second_opinion.requirements[0]: requirement or status differs"], id="requirement_text"),
    pytest.param(_set("question", "Which region was it?"), ["second_opinion.question: not the question assessed"],
                 id="question"),
    pytest.param(_set("assessment_sha256", "0" * 64),
                 ["second_opinion.opinion_id", "second_opinion.assessment_sha256"], id="other_assessment"),
    pytest.param(_set("policy", "strict"), ["second_opinion.opinion_id", "second_opinion.strict: must be present"],
                 id="policy_without_strict"),
    pytest.param(_set("evidence_as_of", "2030-01-01T00:00:00Z"),
                 ["second_opinion.opinion_sha256", "second_opinion.evidence_as_of"], id="as_of"),
    pytest.param(_set("verifier_note", {"state": "checked"}), ["second_opinion.opinion_sha256"], id="note"),
    pytest.param(_set("colour", "red"), ["second_opinion.colour: Extra inputs are not permitted"], id="unknown_field"),
])
async def test_every_edit_is_caught_and_named(edit: Edit, expected: list[str]) -> None:
    data, assessment, bundle = await stored()
    edit(data)
    problems = verify_second_opinion(data, assessment, bundle=bundle)
    for fragment in expected:
        assert any(fragment in problem for problem in problems), (fragment, problems)


async def test_a_strict_outcome_that_does_not_follow_is_caught() -> None:
    data, assessment, _ = await stored(policy="strict")
    data["strict"]["verdict"] = "answerable"
    data["strict"]["recommended_action"] = "answer"
    problems = verify_second_opinion(data, assessment)
    assert any(p.startswith("second_opinion.strict: does not follow") for p in problems)


async def test_an_edited_verifier_result_is_caught_by_its_own_hashes() -> None:
    data, assessment, _ = await stored(verifier=ClaimVerifier(scorer=Fixed((0.9, 0.05, 0.05))))
    assert data["requirements"][0]["verifier"]["status"] == "insufficient"  # the guards: superseded never supports
    data["requirements"][0]["verifier"]["status"] = "refuted"
    problems = verify_second_opinion(data, assessment)
    assert any(p.startswith("second_opinion.requirements[0].verifier: result_sha256") for p in problems)


async def test_not_an_object() -> None:
    _, assessment, _ = await stored()
    assert verify_second_opinion([], assessment) == ("second_opinion: not a second opinion (expected a JSON object)",)  # type: ignore[arg-type]
