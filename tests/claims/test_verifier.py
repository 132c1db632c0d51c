import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from answerlens import (
    ClaimEvidence,
    ClaimVerificationConfig,
    ClaimVerificationError,
    ClaimVerifier,
    bundle_evidence,
    load_bundle,
)
from answerlens.claims.models import ClaimVerificationStatus
from answerlens.claims.onnx_scorer import RUNTIME_MISSING, OnnxNliScorer
from tests.claims.fixtures import PRME

NO_MODEL = json.loads((PRME / "claims" / "claim_verifier_no_model.json").read_text())
READER = PRME / "bundles" / "bundle_reader_citations.json"


class KeywordScorer:
    """Entailment when every keyword of a rule is in the premise; otherwise neutral. Logs every call."""

    def __init__(self, rules: list[tuple[list[str], tuple[float, float, float]]],
                 resolved_revision: str | None = None) -> None:
        self.rules = rules
        self.calls: list[list[tuple[str, str]]] = []
        self.resolved_revision = resolved_revision

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        self.calls.append(pairs)
        return [next((row for words, row in self.rules if all(word in premise for word in words)),
                     (0.1, 0.1, 0.8)) for premise, _ in pairs]


ENTAIL, CONTRA = (0.95, 0.03, 0.02), (0.03, 0.95, 0.02)


def passage(ref: str, text: str, **typed: Any) -> dict[str, Any]:
    return {"reference": ref, "memory_id": f"00000000-0000-4000-8000-0000000000{ref[1:]:0>2}", "text": text, **typed}


def verify(scorer: Any, claim: str, evidence: list[Any], **options: Any) -> Any:
    return asyncio.run(ClaimVerifier(options.pop("config", None), scorer=scorer).verify(claim, evidence, **options))


# --- upstream's no-model outputs, field for field --------------------------------------------------------------


def test_bundle_evidence_is_upstreams() -> None:
    extracted = bundle_evidence(load_bundle(READER))
    assert [item.model_dump(mode="json") for item in extracted] == NO_MODEL["bundle_evidence_reader_citations"]
    assert ClaimVerifier.bundle_evidence(READER) == extracted  # upstream's spelling; a path is loaded


def test_complete_set_and_no_evidence_are_upstreams_without_a_model_call() -> None:
    scorer = KeywordScorer([])
    verifier = ClaimVerifier(scorer=scorer)
    incomplete = asyncio.run(verifier.verify_bundle("There are exactly two dashboard caches.", READER,
                                                    requires_complete_set=True))
    insufficient = asyncio.run(verifier.verify("Anything.", []))
    assert incomplete.model_dump(mode="json") == NO_MODEL["requires_complete_set"]
    assert insufficient.model_dump(mode="json") == NO_MODEL["no_evidence"]
    assert scorer.calls == []


def test_reader_bundle_without_citations_is_upstreams_error() -> None:
    with pytest.raises(ValueError) as caught:
        asyncio.run(ClaimVerifier(scorer=KeywordScorer([])).verify_bundle(
            "x", PRME / "bundles" / "bundle_reader_plain.json"))
    assert f"{type(caught.value).__name__}: {caught.value}" == NO_MODEL["reader_without_citations"]


def test_missing_runtime_is_upstreams_error_with_our_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # Upstream names its own dependency and extra; ours are onnxruntime + tokenizers and answerlens[nli].
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    evidence = bundle_evidence(READER)
    with pytest.raises(ClaimVerificationError) as caught:
        asyncio.run(ClaimVerifier().verify("The dashboard uses MySQL.", evidence))
    ours = f"{type(caught.value).__name__}: {caught.value}"
    assert ours == NO_MODEL["model_needed_error"].replace("sentence-transformers is", "onnxruntime and tokenizers are") \
        .replace("install prme[verification]", "install them with pip install 'answerlens[nli]'")
    assert str(caught.value) == RUNTIME_MISSING


def test_missing_model_says_what_is_missing_and_how_to_get_it(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    monkeypatch.delenv("ANSWERLENS_NLI_MODEL", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(ClaimVerificationError) as caught:
        asyncio.run(ClaimVerifier().verify("The dashboard uses MySQL.", bundle_evidence(READER)))
    message = str(caught.value)
    assert "ANSWERLENS_NLI_MODEL is not set" in message
    assert str(tmp_path / "hub" / "models--cross-encoder--nli-deberta-v3-base" / "snapshots") in message
    assert "--revision 6c749ce3425cd33b46d187e45b92bbf96ee12ec7" in message
    assert "optimum-cli export onnx" in message and "Nothing is downloaded" in message


# --- the worked examples of docs/claims.md -----------------------------------------------------------------


def test_two_passages_support_a_claim_only_together() -> None:
    scorer = KeywordScorer([(["[E1]", "Redis", "Craig"], ENTAIL)], resolved_revision="abc")
    evidence = [passage("m1", "Craig maintains the dashboard API."), passage("m2", "The dashboard API caches in Redis."),
                passage("m3", "The office is in Leeds.")]
    result = verify(scorer, "Craig maintains an API that caches in Redis.", evidence)
    assert result.status == ClaimVerificationStatus.SUPPORTED
    assert [str(memory_id)[-2:] for memory_id in result.supporting_group] == ["01", "02"]
    assert result.supporting_basis == "model_entailment"
    assert [len(pairs) for pairs in scorer.calls] == [3, 3]  # three singles, then the three pairs
    assert scorer.calls[1][0][0] == "[E1] Craig maintains the dashboard API.\n[E2] The dashboard API caches in Redis."
    assert result.resolved_revision == "abc" and result.model_called


def test_a_negated_passage_refutes_a_positive_claim_even_when_the_model_is_neutral() -> None:
    result = verify(KeywordScorer([]), "The dashboard uses Redis.",
                    [passage("m1", "The dashboard no longer uses Redis.")])
    assert result.status == ClaimVerificationStatus.REFUTED
    assert result.refuting_basis == "explicit_negation_overlap"


def test_a_negated_passage_never_supports_a_positive_claim() -> None:
    result = verify(KeywordScorer([(["Redis"], ENTAIL)]), "The dashboard uses Redis.",
                    [passage("m1", "The dashboard does not use Redis.")])
    assert result.status == ClaimVerificationStatus.REFUTED
    assert [item.value for item in result.limitations] == ["uncorroborated_model_entailment"]
    assert len(result.localized_assessments) == 1 and not result.localized_assessments[0].model_called


def test_an_exhaustive_count_is_incomplete_without_scoring() -> None:
    scorer = KeywordScorer([])
    result = verify(scorer, "We use exactly two caches.", [passage("m1", "We use Redis.")],
                    requires_complete_set=True)
    assert (result.status, result.model_called, scorer.calls) == (ClaimVerificationStatus.INCOMPLETE, False, [])


# --- inputs and the scorer seam ----------------------------------------------------------------------------------


def test_plain_dicts_and_objects_give_the_same_result() -> None:
    scorer = KeywordScorer([(["Redis"], ENTAIL)])
    evidence = [passage("m1", "We use Redis.", lifecycle_state="stable")]
    assert verify(scorer, "We use Redis.", evidence) == verify(scorer, "We use Redis.",
                                                                [ClaimEvidence(**evidence[0])])


@pytest.mark.parametrize("claim, evidence, config, message", [
    pytest.param(" ", [], None, "claim must be nonempty", id="blank_claim"),
    pytest.param("x", [passage("m1", "a"), passage("m2", "b")], {"max_evidence": 1},
                 "evidence count exceeds configured maximum 1", id="over_limit"),
    pytest.param("x", [passage("m1", "a"), {**passage("m2", "b"), "reference": "m1"}], None,
                 "duplicate evidence reference: m1", id="duplicate_reference"),
    pytest.param("x", [passage("m1", "a"), {**passage("m1", "b"), "reference": "m2"}], None,
                 "duplicate evidence memory: 00000000-0000-4000-8000-000000000001", id="duplicate_memory"),
])
def test_bad_input_is_a_value_error(claim: str, evidence: list[Any], config: Any, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        verify(KeywordScorer([]), claim, evidence, config=config)
    assert str(caught.value) == message


def test_non_string_claims_and_foreign_evidence_are_type_errors() -> None:
    with pytest.raises(TypeError):
        verify(KeywordScorer([]), None, [])
    with pytest.raises(TypeError):
        verify(KeywordScorer([]), "x", [("m1", "text")])


def test_model_and_requested_revision_come_from_the_config() -> None:
    config = ClaimVerificationConfig(model="my/nli", revision="v1")
    result = verify(KeywordScorer([], resolved_revision="sha-of-v1"), "x", [passage("m1", "a")], config=config)
    assert (result.model, result.requested_revision, result.resolved_revision) == ("my/nli", "v1", "sha-of-v1")


def test_a_scorer_without_a_revision_attribute_records_none() -> None:
    class Bare:
        def score(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
            return [[0.1, 0.1, 0.8]] * len(pairs)

    assert verify(Bare(), "x", [passage("m1", "a")]).resolved_revision is None


def test_a_non_text_revision_attribute_is_refused() -> None:
    with pytest.raises(ClaimVerificationError, match="resolved_revision"):
        verify(KeywordScorer([], resolved_revision=42), "x", [passage("m1", "a")])  # type: ignore[arg-type]


def test_bad_rows_never_become_support() -> None:
    class Overconfident:
        def score(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
            return [[1.0, 0.0, 0.0001]] * len(pairs)

    with pytest.raises(ClaimVerificationError, match=r"normalized to \[0, 1\]"):
        verify(Overconfident(), "We use Redis.", [passage("m1", "We use Redis.")])


def test_concurrent_verifications_share_one_scorer_one_call_at_a_time() -> None:
    active, peak = 0, 0
    lock = threading.Lock()

    class Slow:
        def score(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
            nonlocal active, peak
            with lock:
                active += 1
                peak = max(peak, active)
            threading.Event().wait(0.01)
            with lock:
                active -= 1
            return [[0.1, 0.1, 0.8]] * len(pairs)

    verifier = ClaimVerifier(scorer=Slow())

    async def many() -> list[Any]:
        return await asyncio.gather(*(verifier.verify(f"claim {index}", [passage("m1", "a"), passage("m2", "b")])
                                      for index in range(6)))

    results = asyncio.run(many())
    assert len({result.evaluation_id for result in results}) == 6 and peak == 1


def test_the_default_scorer_is_the_onnx_scorer_for_the_configured_model() -> None:
    verifier = ClaimVerifier({"model": "org/other", "revision": "r1", "batch_size": 7})
    assert isinstance(verifier.scorer, OnnxNliScorer)
    assert (verifier.scorer.model, verifier.scorer.revision, verifier.scorer.batch_size) == ("org/other", "r1", 7)


def test_verify_bundle_selects_refs_in_the_given_order() -> None:
    scorer = KeywordScorer([])
    result = asyncio.run(ClaimVerifier(scorer=scorer).verify_bundle("x", READER, evidence_refs=["m3", "m1"]))
    assert [pairs[0] for pairs in scorer.calls[0]] == [
        "I'm trying to set up ESLint with the airbnb rules, but I'm not sure the config is right.",
        "I switched our dashboard API cache to Redis and response time dropped to 250 ms."]
    assert [score.references for score in result.group_scores] == [("m3",), ("m1",), ("m3", "m1")]
    with pytest.raises(ValueError, match="^Unknown context reference: m9$"):
        asyncio.run(ClaimVerifier(scorer=scorer).verify_bundle("x", READER, evidence_refs=["m9"]))


def test_configs_are_read_from_dicts_and_from_other_pydantic_models() -> None:
    from pydantic import BaseModel

    class UpstreamLike(BaseModel):  # the shape of PRME's own (unfrozen) ClaimVerificationConfig
        model: str = "cross-encoder/nli-deberta-v3-base"
        revision: str = "6c749ce3425cd33b46d187e45b92bbf96ee12ec7"
        max_group_size: int = 3

    from_model = ClaimVerifier(UpstreamLike(), scorer=KeywordScorer([])).config
    from_dict = ClaimVerifier({"max_group_size": 3}, scorer=KeywordScorer([])).config
    assert from_model == from_dict == ClaimVerificationConfig(max_group_size=3)
