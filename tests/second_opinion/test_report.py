"""The text report: strict verdict first, badges, flags, verifier results and notes, one line each."""

from answerlens import ClaimVerifier
from answerlens.explanation import report_lines
from answerlens.second_opinion.opinion import second_opinion_for
from tests.second_opinion.builders import replayed
from tests.second_opinion.helpers import Fixed, Raises


async def test_strict_report_leads_with_the_strict_verdict() -> None:
    item, bundle, assessment = replayed("second_opinion_superseded_region")
    opinion = await second_opinion_for(assessment, bundle, item.question, policy="strict")
    lines = report_lines(assessment, opinion)
    assert lines[0] == ("verdict: insufficient    action: abstain    (strict evidence policy; model-derived: "
                        "answerable, answer)")
    start = lines.index("second opinion (flag rules answerlens-flags-2, policy strict):")
    assert lines[start + 1:start + 6] == [
        "  verifier: not requested",
        '[1] flags: "AWS region hosting the orders database"',
        "      flag superseded_for_present (m1): m1 is superseded; the requirement asks about the present",
        "  strict policy: verdict insufficient, action abstain",
        "    [1] supported -> unsupported: superseded_for_present",
    ]


async def test_verifier_results_and_failures() -> None:
    item, bundle, assessment = replayed("answerable_billing_database")
    checked = await second_opinion_for(assessment, bundle, item.question,
                                       verifier=ClaimVerifier(scorer=Fixed((0.9, 0.05, 0.05))))
    lines = report_lines(assessment, checked)
    assert "  verifier: checked 2 supported or conflicting requirement(s)" in lines
    assert "      verifier: supported; supporting m1 (model_entailment)" in lines
    failed = await second_opinion_for(assessment, bundle, item.question,
                                      verifier=ClaimVerifier(scorer=Raises(RuntimeError("boom"))))
    assert ("  verifier: the claim verifier failed on requirement 1: Claim verification inference failed"
            in report_lines(assessment, failed))


async def test_no_text_can_break_a_line() -> None:
    item, bundle, assessment = replayed("hostile_record_text")
    opinion = await second_opinion_for(assessment, bundle, item.question)
    for line in report_lines(assessment, opinion):
        assert "\u2028" not in line and "\u2029" not in line and "\n" not in line
