"""The second opinion's markup: badges, per-requirement detail, the verifier's note, strict changes, legend."""

from __future__ import annotations

import asyncio
import re

import pytest

from answerlens import AnswerabilityConfig
from answerlens.html import opinion as opinion_html
from answerlens.second_opinion.badges import Badge, badge
from answerlens.second_opinion.models import VerifierNote, VerifierState
from answerlens.second_opinion.opinion import second_opinion_for
from tests.second_opinion.builders import assess, replayed

HOSTILE = "<script>alert(1)</script>\u202e"


def opinion(name: str, policy: str | None = None):  # type: ignore[no-untyped-def]
    item, bundle, assessment = replayed(name, **({"evidence_policy": policy} if policy else {}))
    return assessment, asyncio.run(second_opinion_for(assessment, bundle, item.question, policy=policy))


@pytest.mark.parametrize(
    "name, expected",
    [pytest.param("second_opinion_plan_as_fact", "flags", id="flagged"),
     pytest.param("answerable_billing_database", "agrees", id="agrees")],
)
def test_badge_carries_the_second_opinions_badge(name: str, expected: str) -> None:
    _a, found = opinion(name)
    html = opinion_html.badge_html(found.requirements[0])
    assert f'data-badge="{expected}"' in html and badge(found.requirements[0]).value == expected


def test_every_badge_has_an_icon_and_words() -> None:
    assert set(opinion_html.BADGES) == set(Badge)
    assert len({icon for icon, *_ in opinion_html.BADGES.values()}) == len(Badge)


def test_detail_lists_flags_verifier_and_typed_evidence() -> None:
    _a, found = opinion("second_opinion_plan_as_fact")
    index = next(i for i, item in enumerate(found.requirements) if item.flags)
    html = opinion_html.detail_html(index, found.requirements[index], found.verifier_note)
    assert f"requirement {index + 1}" in html and 'data-flag="speech_act_mismatch"' in html
    assert 'data-verifier-result="none"' in html and "not asked for" in html
    assert "data-typed-evidence" in html and 'data-flagged="true"' in html


def test_flagged_refs_as_codes_for_inline_marks() -> None:
    _a, found = opinion("second_opinion_plan_as_fact")
    codes = [opinion_html.flags_by_ref_codes(item) for item in found.requirements]
    assert any("speech_act_mismatch" in flags for by_ref in codes for flags in by_ref.values())


def test_the_note_says_nli_model_not_installed_with_the_remedy_as_code() -> None:
    note = VerifierNote(state=VerifierState.UNAVAILABLE, message="NLI model not installed",
                        remedy="pip install 'answerlens[nli]'")
    html = opinion_html.note_html(note)
    assert html is not None and "NLI model not installed" in html and "flags still show" in html
    assert opinion_html.note_html(VerifierNote(state=VerifierState.CHECKED)) is None
    coded = opinion_html.note_html(note.model_copy(update={"remedy": "run `make nli`"}))
    assert coded is not None and "<code>make nli</code>" in coded and "`" not in coded


def test_strict_says_what_it_changed() -> None:
    assessment, found = opinion("second_opinion_plan_as_fact", "strict")
    html = opinion_html.strict_html(found, assessment.verdict.value)
    assert html is not None and 'data-strict="changed"' in html
    assert f'data-audited-verdict="{assessment.verdict.value}"' in html
    assert found.strict is not None and found.strict.verdict.value.upper() in html
    assert opinion_html.strict_html(opinion("second_opinion_plan_as_fact")[1], "answerable") is None


def legend_of(name: str) -> str:
    from answerlens.html.highlight import highlight, uncounted
    from tests.ui.conftest import sample

    assessment, found = opinion(name)
    context = sample(name).load().exact_context
    flagged = {index: opinion_html.flags_by_ref_codes(item) for index, item in enumerate(found.requirements)}
    marks = highlight(context, [r.citations for r in assessment.requirements], flagged=flagged,
                      uncounted=uncounted(assessment.requirements))
    return opinion_html.legend_html(marks, context)


def test_the_legend_uses_the_runs_own_labels_and_only_the_states_that_occur() -> None:
    html = legend_of("compact_citation_errors")
    samples = dict(re.findall(r'<mark class="al-cite([^"]*)"[^>]*>(m\d+)</mark>', html))
    assert samples == {"": "m1", " al-uncounted": "m3"}  # m3 is the one that did not count here
    assert "requirement 3 ended unsupported" in html
    assert "flagged" not in html and "discarded" not in html and "U+" not in html  # none occur in this context


def test_a_flagged_citation_is_shown_with_its_own_label_and_flag() -> None:
    html = legend_of("second_opinion_plan_as_fact")
    flagged = re.search(r'<mark class="al-cite al-flagged"[^>]*>(m\d+)</mark> <span class="al-muted">([^<]*)<', html)
    assert flagged is not None and flagged.group(1) == "m1" and "speech_act_mismatch" in flagged.group(2)


def test_nothing_marked_is_no_legend_and_a_hidden_character_shows_its_own_code() -> None:
    from answerlens.html.highlight import highlight

    assert opinion_html.legend_html(highlight("- plain line", []), "- plain line") == ""
    hidden = "- a \u2066hidden\u2069 line"
    assert "U+2066" in opinion_html.legend_html(highlight(hidden, []), hidden)


def test_hostile_text_stays_inert_in_the_detail() -> None:
    bundle, assessment = assess([{"text": f"I plan to use Redis {HOSTILE}", "speaker": "<b>Eve</b>"}],
                                [{"requirement": f"uses Redis {HOSTILE}", "evidence_refs": ["m1"]}],
                                f"Which cache do I use {HOSTILE}?")
    found = asyncio.run(second_opinion_for(assessment, bundle, f"Which cache do I use {HOSTILE}?"))
    html = opinion_html.detail_html(0, found.requirements[0], found.verifier_note)
    html += opinion_html.badge_html(found.requirements[0])
    assert "<script>" not in html and "<b>" not in html and "\u202e" not in html and "U+202E" in html


def test_config_of_the_builders_is_a_replay() -> None:
    assert AnswerabilityConfig(provider="replay").provider == "replay"
