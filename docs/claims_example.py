"""The worked examples of docs/claims.md, run with a keyword stand-in for the NLI model.

``python docs/claims_example.py`` prints what docs/claims.md shows. The stand-in is NOT the pinned NLI model:
it returns fixed probabilities when a premise contains every word of a rule, so the examples run anywhere and
show what the verifier's own rules do with the model's numbers.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from answerlens import ClaimEvidence, ClaimVerification, ClaimVerifier, bundle_evidence, load_bundle
from answerlens.claims.report import report_lines

BUNDLE = Path(__file__).resolve().parents[1] / "tests/fixtures/prme/bundles/bundle_reader_citations.json"


class KeywordScorer:
    """(entailment, contradiction, neutral) from the first rule whose words all occur in the premise."""

    resolved_revision = "keyword-stand-in"

    def __init__(self, rules: list[tuple[list[str], tuple[float, float, float]]]) -> None:
        self.rules = rules

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        return [next((row for words, row in self.rules if all(word in premise for word in words)),
                     (0.05, 0.05, 0.90)) for premise, _claim in pairs]


def show(title: str, result: ClaimVerification, evidence: list[ClaimEvidence] | tuple[ClaimEvidence, ...]) -> None:
    print(f"## {title}")
    print("\n".join(report_lines(result, evidence)[:-5]))  # the five hashes are shown once, below
    for score in result.group_scores:
        print(f"  scored {'+'.join(score.references)}: entailment {score.entailment:.2f}, "
              f"contradiction {score.contradiction:.2f}")
    for recheck in result.localized_assessments:
        print(f"  localized recheck of {'+'.join(recheck.references)}: kept segments "
              f"{[list(numbers) for numbers in recheck.included_segment_numbers]}, model called: "
              f"{recheck.model_called}")
    print()


async def main() -> None:
    together = [
        {"reference": "m1", "memory_id": "00000000-0000-4000-8000-000000000001",
         "text": "Craig maintains the dashboard API."},
        {"reference": "m2", "memory_id": "00000000-0000-4000-8000-000000000002",
         "text": "The dashboard API caches sessions in Redis."},
        {"reference": "m3", "memory_id": "00000000-0000-4000-8000-000000000003",
         "text": "The office moved to Leeds in 2023."},
    ]
    verifier = ClaimVerifier(scorer=KeywordScorer([(["Craig", "Redis"], (0.91, 0.02, 0.07))]))
    result = await verifier.verify("Craig maintains an API that caches sessions in Redis.", together)
    show("1. Two passages that support the claim only together", result, [ClaimEvidence(**item) for item in together])

    negated = [{"reference": "m1", "memory_id": "00000000-0000-4000-8000-000000000004",
                "text": "The dashboard no longer uses Redis for caching."}]
    fooled = ClaimVerifier(scorer=KeywordScorer([(["Redis"], (0.85, 0.05, 0.10))]))
    result = await fooled.verify("The dashboard uses Redis for caching.", negated)
    show("2. A negated passage", result, [ClaimEvidence(**item) for item in negated])

    bundle = load_bundle(BUNDLE)
    evidence = bundle_evidence(bundle)
    eager = ClaimVerifier(scorer=KeywordScorer([(["ESLint"], (0.90, 0.03, 0.07))]))
    result = await eager.verify_bundle("I set up ESLint with the airbnb rules.", bundle, evidence_refs=["m3"])
    show("3. An attempt is not an achievement (a real PRME bundle)", result, evidence)

    mixed = [{"reference": "m1", "memory_id": "00000000-0000-4000-8000-000000000005",
              "text": "We use Redis for the dashboard cache. We plan to add Memcached next year."}]
    result = await ClaimVerifier(scorer=KeywordScorer([(["Redis"], (0.88, 0.02, 0.10))])).verify(
        "We use Redis for the dashboard cache.", mixed)
    show("3b. A plan beside a fact: the recheck keeps the fact", result, [ClaimEvidence(**item) for item in mixed])

    result = await eager.verify_bundle("There are exactly two dashboard caches.", bundle, requires_complete_set=True)
    show("4. An exhaustive count", result, evidence)
    for name in ("configuration_sha256", "claim_sha256", "evidence_sha256", "evaluation_id", "result_sha256"):
        print(f"{name}: {getattr(result, name)}")


if __name__ == "__main__":
    asyncio.run(main())
