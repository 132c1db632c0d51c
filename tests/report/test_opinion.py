"""The second opinion in a report: badges, flags with their refs and reasons, the verifier's result and note,
typed evidence, the strict outcome, its hashes, and flagged citations marked in the context by the app's own mark
renderer (no style rule per reference)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from answerlens import ClaimVerifier
from answerlens.claims.onnx_scorer import OnnxNliScorer
from answerlens.report.opinion import flagged, section_html
from answerlens.second_opinion.models import SecondOpinion
from answerlens.second_opinion.opinion import second_opinion_for
from tests.report.builders import OPINION_SAMPLES, opinion_of, replayed, report_of, sample
from tests.report.inert import problems, visible_text


class Entails:
    """An injected NLI scorer: every pair is entailed."""

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        return [(0.9, 0.05, 0.05)] * len(pairs)


def opinion_with(name: str, verifier: ClaimVerifier, *, policy: str = "strict") -> SecondOpinion:
    bundle, assessment = replayed(name)
    return asyncio.run(second_opinion_for(assessment, bundle, sample(name).question, verifier=verifier,
                                          policy=policy))


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in OPINION_SAMPLES])
def test_each_flag_is_shown_with_its_refs_and_reason_and_marked_in_the_context(name: str) -> None:
    opinion = opinion_of(name)
    html = report_of(name, with_opinion=True)
    assert flagged(opinion) and problems(html) == []
    for index, item in enumerate(opinion.requirements):
        for flag in item.flags:
            assert f'data-flag="{flag.code.value}"' in html
            assert flag.reason.replace("'", "&#x27;").replace('"', "&quot;") in html
            for ref in flag.refs:
                assert (f'<mark class="al-cite al-flagged" data-citation="accepted" data-requirement="{index}" '
                        f'data-ref="{ref}" data-flagged="true"') in html
    assert 'data-badge="flags"' in html
    assert "but flagged by the second opinion (" in html, "the legend names the mark"


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in OPINION_SAMPLES])
def test_no_style_rule_is_built_per_reference(name: str) -> None:
    html = report_of(name, with_opinion=True)
    head = html[:html.index("</head>")]
    assert head.count("<style>") == 1 and "data-ref" not in head and "al-flagged" in head


def test_the_strict_outcome_and_the_unavailable_verifier_are_said(tmp_path: Path) -> None:
    opinion = opinion_with("second_opinion_plan_as_fact", ClaimVerifier(scorer=OnnxNliScorer(tmp_path / "none")))
    html = section_html(opinion)
    text = visible_text(html)
    assert "Claim verifier: NLI model not installed" in text
    assert opinion.verifier_note.remedy is not None and opinion.verifier_note.remedy in text
    assert 'data-strict-verdict="insufficient"' in html
    assert "changed: [1] supported → unsupported: speech_act_mismatch" in text, "requirements count from 1"


def test_a_verifier_result_is_shown_by_status_and_group() -> None:
    opinion = opinion_with("superseded_database_timeline", ClaimVerifier(scorer=Entails()), policy="standard")
    html = section_html(opinion)
    rows = re.findall(r'data-badge="([a-z_]+)"', html)
    assert rows == ["agrees", "verifier_disagrees"], "the verifier never takes support from a superseded record"
    assert "supported; supporting m" in html and "insufficient; limitations" in html
    assert "Claim verifier: checked 2 supported or conflicting requirement(s)" in visible_text(html)
    assert "The strict evidence policy" not in html


def test_typed_evidence_is_listed_per_requirement() -> None:
    opinion = opinion_of("second_opinion_superseded_region")
    html = section_html(opinion)
    (evidence,) = opinion.requirements[0].typed_evidence
    section = html[html.index("Typed evidence of requirement 1"):]
    for value in (evidence.ref, evidence.section, evidence.lifecycle_state.value, evidence.epistemic_type.value):
        assert f"<td>{value}</td>" in section
    assert '<code data-hash="opinion_sha256">' in html and opinion.opinion_sha256 in html


def test_record_text_in_typed_evidence_stays_inert() -> None:
    opinion = opinion_of("second_opinion_plan_as_fact")
    item = opinion.requirements[0]
    hostile = "<img src=x onerror=alert(1)><script>alert(2)</script>\u202e"
    evidence = item.typed_evidence[0].model_copy(update={"text": hostile, "speaker": "<b>Dana</b>"})
    forged = opinion.model_copy(update={"requirements": (item.model_copy(update={"typed_evidence": (evidence,)}),)})
    html = section_html(forged)
    assert "<img" not in html and "<script" not in html and "<b>" not in html
    assert "U+202E" in html
    text = visible_text(html)
    assert "<img src=x onerror=alert(1)><script>alert(2)</script>" in text and "<b>Dana</b>" in text
