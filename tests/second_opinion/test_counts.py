"""Run-level counts from (assessment, second opinion, label) triples."""

from typing import Any

from answerlens import ClaimVerifier
from answerlens.second_opinion.counts import count_opinions, questioned_by
from answerlens.second_opinion.opinion import second_opinion_for
from tests.second_opinion.builders import replayed
from tests.second_opinion.helpers import Fixed


async def run(name: str, **options: Any) -> tuple[Any, Any]:
    item, bundle, assessment = replayed(name)
    return assessment, await second_opinion_for(assessment, bundle, item.question, **options)


async def test_unsafe_answers_caught_and_false_alarms_per_reason() -> None:
    plan = await run("second_opinion_plan_as_fact", policy="strict")
    region = await run("second_opinion_superseded_region")
    timeline = await run("superseded_database_timeline")
    billing = await run("answerable_billing_database")
    eslint = await run("speech_act_eslint")
    counts = count_opinions([
        (*plan, "unanswerable"), (*region, "unanswerable"), (*timeline, "answerable"), (*billing, "answerable"),
        (*eslint, "unanswerable"), (billing[0], None, "answerable"),
    ])
    assert counts.assessments == 5  # the one without an opinion is skipped
    assert (counts.unsafe_answers, counts.unsafe_caught) == (2, 2)
    assert counts.caught_by == {"speech_act_mismatch": 1, "superseded_for_present": 1}
    assert (counts.correct_answers, counts.false_alarms, counts.false_alarms_by) == (2, 0, {})
    assert counts.requirements_checked == 6 and counts.requirements_flagged == 2
    assert counts.flags == {"speech_act_mismatch": 1, "superseded_for_present": 1}
    assert counts.strict_changed == 1
    assert counts.verifier_checked == 0 and counts.verifier_agreement_rate is None  # never 0.0 for no data


async def test_verifier_agreement_and_unlabelled_runs() -> None:
    agreeing = await run("answerable_billing_database", verifier=ClaimVerifier(scorer=Fixed((0.9, 0.05, 0.05))))
    doubting = await run("answerable_billing_database", verifier=ClaimVerifier(scorer=Fixed((0.1, 0.1, 0.8))))
    assert questioned_by(doubting[1]) == {"verifier_disagrees"}
    counts = count_opinions([(*agreeing, None), (*doubting, "answerable")])
    # Even the always-entailing scorer is refused on m2 ("… needs his review"): the verifier's speech-act guard
    # has no per-clause recheck, so it answers insufficient there; only m1 agrees.
    assert (counts.verifier_checked, counts.verifier_agreements, counts.verifier_agreement_rate) == (4, 1, 0.25)
    assert (counts.unsafe_answers, counts.correct_answers, counts.false_alarms) == (0, 1, 1)
    assert counts.false_alarms_by == {"verifier_disagrees": 1}
    assert count_opinions([]).model_dump()["verifier_agreement_rate"] is None
