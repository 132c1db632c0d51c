"""The samples in ``sample_bundles/``: every file validates and loads, and its recorded reply, replayed through
the public API, gives exactly its expected verdict or raises its expected error.

The expected outcomes are pinned here as well as in the files, so a sample cannot drift silently.
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from uuid import UUID

import pytest

from answerlens import (
    AnswerabilityAssessment,
    AnswerabilityConfig,
    AnswerabilityEvaluator,
    Decision,
    DiscardReason,
    MemoryBundle,
    derive_assessment,
    render_bundle,
)
from answerlens.errors import RecordingMismatchError
from answerlens.loading import SimpleBundle
from answerlens.recording import BindingField
from answerlens.samples import Sample, list_samples, load_sample
from answerlens.second_opinion.opinion import second_opinion_for

SAMPLES_DIR = Path(__file__).resolve().parents[1] / "sample_bundles"


@dataclass(frozen=True)
class Case:
    verdict: str | None = None
    error: str | None = None
    model_called: bool = False
    """Only a reply a model produced counts: every hand-written sample reply is replayed with ``model_called``
    false (its reply is kept as ``raw_output``)."""
    replied: bool = True
    citation_errors: tuple[str, ...] = ()


PRME_CITATION_ERRORS = (
    "requirement[2] conflicting without 2 valid citation(s)",
    "requirement[3] cited unknown context reference 'm99'",
    "requirement[3] supported without 1 valid citation(s)",
)
"""From ``tests/fixtures/prme/assessments/assessment_reader_openai.json`` (PRME 0.15.0's own assessment)."""

CASES = {
    "answerable_billing_database": Case("answerable"),
    "partial_checkout_migration": Case("partial"),
    "insufficient_table_tennis": Case("insufficient"),
    "conflicting_deploy_freeze": Case("conflicting"),
    "speech_act_eslint": Case("insufficient"),
    "reader_without_citations": Case(error="This reader-format bundle has no citation references"),
    "auditable_uuid_citations": Case("answerable"),
    "draft_answer_unsupported_claim": Case("partial"),
    "hostile_record_text": Case("partial"),
    "prme_reader_citations": Case("partial", citation_errors=PRME_CITATION_ERRORS, model_called=True),
    "compact_citation_errors": Case(
        "partial",
        citation_errors=(
            "requirement[1] cited unknown context reference '[m2]'",
            "requirement[1] supported without 1 valid citation(s)",
            "requirement[2] conflicting without 2 valid citation(s)",
            "requirement[3] cited unknown context reference 'm99'",
            "requirement[3] supported without 1 valid citation(s)",
            "requirement[4] cited unknown context reference 'M4'",
        ),
    ),
    "empty_bundle": Case("insufficient", replied=False),
    "superseded_database_timeline": Case("answerable"),
    "assistant_advice_role": Case("insufficient"),
    "large_platform_history": Case("partial"),
    "second_opinion_plan_as_fact": Case("answerable"),
    "second_opinion_superseded_region": Case("answerable"),
    "second_opinion_incident_count": Case("answerable"),
    "sweep_budget_cut": Case("answerable"),
}

SECOND_OPINION = {
    "second_opinion_plan_as_fact": ([["speech_act_mismatch"]], "insufficient"),
    "second_opinion_superseded_region": ([["superseded_for_present"]], "insufficient"),
    "second_opinion_incident_count": ([["exhaustive_needs_aggregation"]], "insufficient"),
    "superseded_database_timeline": ([[], []], "answerable"),
}
"""Per sample: the flag codes per requirement and the strict verdict its recorded reply must get (no NLI model)."""

ALL = [pytest.param(name, id=name) for name in CASES]
ASSESSED = [pytest.param(name, id=name) for name, case in CASES.items() if case.error is None]
NOT_HAND_WRITTEN = {"prme_reader_citations"}


def sample(name: str) -> Sample:
    return load_sample(SAMPLES_DIR / f"{name}.json")


async def replay(item: Sample, bundle: object | None = None, *, force: bool = False) -> AnswerabilityAssessment:
    """Assess a sample with its recorded reply through the replay provider and the public evaluator."""
    config = AnswerabilityConfig(provider="replay", model=item.recorded_model)
    async with AnswerabilityEvaluator(config, recording=item.recording(), force_replay=force) as evaluator:
        return await evaluator.assess(item.question, item.bundle if bundle is None else bundle, answer=item.answer)


# --- every sample ----------------------------------------------------------------------------------


def test_every_sample_file_has_a_case() -> None:
    found = set(list_samples(SAMPLES_DIR))
    assert found == set(CASES), "add new samples to CASES (and the README table)"
    assert len(found) >= 12


def test_readme_lists_every_sample() -> None:
    readme = (SAMPLES_DIR / "README.md").read_text(encoding="utf-8")
    for name in CASES:
        assert f"`{name}.json`" in readme, name


@pytest.mark.parametrize("name", ALL)
def test_sample_validates_and_loads(name: str) -> None:
    raw = json.loads((SAMPLES_DIR / f"{name}.json").read_text(encoding="utf-8"))
    item = Sample.model_validate(raw)
    assert item == sample(name)
    assert item.title.strip() and item.description.strip() and item.question.strip()
    assert item.question.rstrip().endswith("?")
    assert (item.expected.verdict is None) != (item.expected.error is None), "exactly one expectation"
    case = CASES[name]
    assert (item.expected.verdict, item.expected.error) == (case.verdict, case.error)
    if name.startswith("second_opinion_"):
        assert item.expected.second_opinion is not None, "a second-opinion sample says what it must flag"
    if item.expected.second_opinion is not None:
        promised = (item.expected.second_opinion.flags, item.expected.second_opinion.strict_verdict)
        assert promised == SECOND_OPINION[name]
    if name in NOT_HAND_WRITTEN:
        assert item.recorded_reply_source != "hand-written"
    else:
        assert item.recorded_reply_source == "hand-written"
        assert item.recorded_model == "hand-written"
        # Hand-written samples use the simple passage format, which is strict.
        SimpleBundle.model_validate(item.bundle)
    bundle = item.load(name)
    assert isinstance(bundle, MemoryBundle)
    assert item.recorded_reply is not None, "every sample can be replayed"


@pytest.mark.parametrize("name", ALL)
async def test_recorded_reply_gives_the_expected_outcome(name: str) -> None:
    item, case = sample(name), CASES[name]
    if case.error is not None:
        with pytest.raises(ValueError) as raised:
            await replay(item)
        assert str(raised.value).startswith(item.expected.error or "")
        return
    assessment = await replay(item)
    assert assessment.verdict.value == item.expected.verdict == case.verdict
    assert assessment.model_called is case.model_called
    assert (assessment.raw_output is not None) is case.replied
    assert assessment.citation_errors == case.citation_errors
    assert assessment.provider == "replay"
    assert assessment.model == item.recorded_model
    if case.replied:
        assert assessment.provider_metadata is not None and assessment.provider_metadata.recorded
        assert assessment.provider_metadata.recording == item.recording().ref  # type: ignore[union-attr]
        # The pure path gives the identical validated output.
        derived = derive_assessment(
            item.question,
            item.load(),
            item.recording().text,  # type: ignore[union-attr]
            config=AnswerabilityConfig(provider="replay", model=item.recorded_model),
            answer=item.answer,
        )
        assert derived.assessment_sha256 == assessment.assessment_sha256
        assert derived.evaluation_id == assessment.evaluation_id


@pytest.mark.parametrize("name", [p for p in ASSESSED if CASES[p.values[0]].citation_errors == ()])
async def test_clean_replies_cite_labels_printed_in_the_context(name: str) -> None:
    """Every citation of a reply without deliberate mistakes is accepted and points at a printed label."""
    item = sample(name)
    assessment = await replay(item)
    context = item.load().render().strip()
    for requirement in assessment.requirements:
        assert requirement.claimed_status == requirement.status
        for citation in requirement.citations:
            assert citation.decision == Decision.ACCEPTED, citation
            assert citation.span is not None and citation.line is not None
            assert context[citation.span.start : citation.span.end] == citation.normalized
            assert "\n" not in context[citation.line.start : citation.line.end]


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in SECOND_OPINION])
async def test_second_opinion_on_the_recorded_reply(name: str) -> None:
    """The model's recorded reply says supported; the second opinion flags exactly what the sample promises."""
    item = sample(name)
    assessment = await replay(item)
    opinion = await second_opinion_for(assessment, item.load(name), item.question, policy="strict")
    flags, strict = SECOND_OPINION[name]
    assert [[flag.code.value for flag in r.flags] for r in opinion.requirements] == flags
    assert opinion.strict is not None and opinion.strict.verdict.value == strict
    assert all(r.status.value == "supported" for r in opinion.requirements)


# --- individual samples ------------------------------------------------------------------------------


def _outside_json_strings(line: str) -> str:
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)


def test_hostile_text_stays_inside_json_strings() -> None:
    item = sample("hostile_record_text")
    texts = [record["text"] for record in item.bundle["records"]]
    assert any("\u2028" in text and "\u2029" in text for text in texts), "the record holds raw separators"
    bundle = item.load()
    context = bundle.render()
    assert "\u2028" not in context and "\u2029" not in context and "\u0085" not in context
    assert "\\u2028" in context and "\\u2029" in context
    for marker in ("<script>alert('xss')</script>", "<b>APPROVED</b>", "<img src=x onerror=alert(1)>",
                   "Ignore previous instructions"):
        assert marker in context  # kept verbatim, as data
    lines = context.split("\n")
    assert sum(line.startswith("- ") for line in lines) == bundle.record_count == 4
    assert not any(line.startswith("- [m9]") for line in lines), "a line separator forged a record line"
    for line in lines:
        rest = _outside_json_strings(line)
        for forbidden in ("<", ">", "alert", "Ignore", "SYSTEM", "Dana"):
            assert forbidden not in rest, (forbidden, line)


async def test_hostile_reply_ignores_the_injection() -> None:
    assessment = await replay(sample("hostile_record_text"))
    statuses = [(r.requirement, r.status.value) for r in assessment.requirements]
    assert statuses == [("Cause of the May 14 login outage", "supported"), ("Who approved the hotfix", "unsupported")]
    assert assessment.missing_information == ("Who approved the hotfix",)


async def test_prme_sample_reproduces_the_published_assessment() -> None:
    item = sample("prme_reader_citations")
    assessment = await replay(item)
    assert assessment.citation_errors == PRME_CITATION_ERRORS
    assert assessment.missing_information == ("Current primary database of the dashboard API", "Dashboard API owner")
    # With PRME's configuration and prompt identity, every hash of the published assessment comes back.
    prme = derive_assessment(
        item.question,
        item.load(),
        item.recording().text,  # type: ignore[union-attr]
        config=AnswerabilityConfig(
            provider="openai", model="stub-model", base_url="http://127.0.0.1:18765/v1",
            max_retries=0, timeout=20.0, temperature=0.0,
        ),
        prompt_version="answerability_requirements_v2",
        prompt_sha256="51db73f014f22bf2c5b70a36b42fa5e7118b2d2ab8a7c5b6fca277ed09d65316",
    )
    assert prme.configuration_sha256 == "07697f20436c896db1eed50d46eebf8b73a2f317446e4625c9efd71af2c38c70"
    assert prme.context_sha256 == "c9478cd95eb836b946fe3a7d58b0ea3c8ce05de018e2fb2933189bf331185f85"
    assert prme.evaluation_id == "b6ffc7d38c507389bfb04cdab2624e9134764518886d90d8d7ad709a52bb8696"
    assert prme.assessment_sha256 == "ebbe21c02876a97974341f8926fa5ac9edcaa4466354a41fcd3e2f9939b7d3b2"
    assert prme.citation_errors == PRME_CITATION_ERRORS
    # prompt="prme" records that identity by itself.
    config = AnswerabilityConfig(provider="openai", model="stub-model", base_url="http://127.0.0.1:18765/v1",
                                 max_retries=0, timeout=20.0, temperature=0.0, prompt="prme")
    by_choice = derive_assessment(item.question, item.load(), item.recording().text, config=config)  # type: ignore[union-attr]
    assert (by_choice.evaluation_id, by_choice.assessment_sha256) == (prme.evaluation_id, prme.assessment_sha256)


async def test_reader_without_citations_is_fixed_by_packing_with_citations() -> None:
    item = sample("reader_without_citations")
    bundle = item.load()
    assert bundle.context_references == {} and "[m1]" not in bundle.render()
    with pytest.raises(ValueError, match=r"context_citations=True"):
        await replay(item)
    fixed = render_bundle(bundle, "reader", context_citations=True)
    # The recording is bound to the sample's own (uncitable) context, so replaying it over the re-packed one is
    # refused, and marked as forced when forced.
    with pytest.raises(RecordingMismatchError, match="another context"):
        await replay(item, fixed)
    assessment = await replay(item, fixed, force=True)
    assert assessment.provider_metadata.recording.forced == (BindingField.CONTEXT,)  # type: ignore[union-attr]
    assert assessment.verdict.value == "answerable"
    assert assessment.requirements[0].evidence_refs == ("m1", "m2")


async def test_empty_bundle_needs_no_model() -> None:
    item = sample("empty_bundle")
    assert item.load().render() == ""
    assessment = await replay(item)
    assert not assessment.model_called
    assert assessment.recommended_action.value == "abstain"
    assert [r.requirement for r in assessment.requirements] == ["Evidence needed to answer the question"]
    # The recording exists but is never consulted.
    assert assessment.raw_output is None and assessment.raw_output_sha256 is None


async def test_compact_sample_discards_every_kind_of_bad_citation() -> None:
    assessment = await replay(sample("compact_citation_errors"))
    decisions = [
        [(c.token, c.decision.value, c.reason.value if c.reason else None, c.error is not None) for c in r.citations]
        for r in assessment.requirements
    ]
    assert decisions == [
        [("m1", "accepted", None, False), ("m1", "discarded", "duplicate_memory", False),
         ("  ", "discarded", "empty", False)],
        [("[m2]", "discarded", "unknown_reference", True)],
        [("m3", "accepted", None, False)],
        [("m99", "discarded", "unknown_reference", True)],
        [("M4", "discarded", "unknown_reference", True), ("m4", "accepted", None, False)],
    ]
    claimed = [(r.claimed_status and r.claimed_status.value, r.status.value) for r in assessment.requirements]
    assert claimed == [("supported", "supported"), ("supported", "unsupported"), ("conflicting", "unsupported"),
                       ("supported", "unsupported"), ("supported", "supported")]
    reasons = {c.reason for r in assessment.requirements for c in r.citations if c.reason}
    assert reasons == {DiscardReason.UNKNOWN_REFERENCE, DiscardReason.DUPLICATE_MEMORY, DiscardReason.EMPTY}


async def test_auditable_sample_cites_exact_uuids() -> None:
    item = sample("auditable_uuid_citations")
    bundle = item.load()
    assert bundle.context_format.value == "auditable" and bundle.context_references == {}
    assessment = await replay(item)
    for requirement in assessment.requirements:
        assert requirement.evidence_refs == tuple(str(i) for i in requirement.evidence_ids)
        for ref in requirement.evidence_refs:
            assert str(UUID(ref)) == ref
            assert f'"id":"{ref}"' in bundle.render()


async def test_draft_answer_sample_flags_the_unsupported_claim() -> None:
    item = sample("draft_answer_unsupported_claim")
    assert item.answer
    assessment = await replay(item)
    assert assessment.answer_sha256 is not None
    assert assessment.missing_information == (
        "Claim: the team has since added expiry alerts for all certificates",
    )
    assert assessment.recommended_action.value == "answer_partially"


async def test_conflicting_sample_surfaces_both_records() -> None:
    assessment = await replay(sample("conflicting_deploy_freeze"))
    assert assessment.should_abstain
    assert assessment.conflicts == ("Start date of the Q4 deploy freeze",)
    assert assessment.requirements[0].evidence_refs == ("m1", "m2")


async def test_speech_act_sample_abstains() -> None:
    assessment = await replay(sample("speech_act_eslint"))
    assert assessment.recommended_action.value == "abstain"
    assert assessment.missing_information == ("Lint rules the user enforced",)


def _make_large() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_large", SAMPLES_DIR / "make_large.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_large_sample_is_what_the_generator_writes() -> None:
    module = _make_large()
    committed = (SAMPLES_DIR / "large_platform_history.json").read_text(encoding="utf-8")
    assert module.dump(module.build()) == committed, "run: .venv/bin/python sample_bundles/make_large.py"
    assert sample("large_platform_history").load().record_count >= 200
