"""Claim verification speed: claims verified per second with the tiny ONNX NLI model, and the overhead per claim.

The tiny model (``tests/claims/tiny_nli.py``: embedding, mean pooling, linear layer) is built in a temporary
folder and run by the real ``OnnxNliScorer``, so loading, tokenising, batching and softmax are all measured;
its own compute is negligible, so this is the pipeline's ceiling, not the pinned DeBERTa model's speed.
The overhead is measured with a trivial injected scorer (constant rows): everything but the model. Each claim
checks five passages none of which decides alone, so it scores 5 singles and then 10 pairs (two scorer calls).
``python claims.py`` prints one JSON line. Needs the dev extras (onnx, onnxruntime, tokenizers).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.claims.tiny_nli builds the model

from answerlens import ClaimEvidence, ClaimVerifier  # noqa: E402
from answerlens.claims.onnx_scorer import OnnxNliScorer  # noqa: E402

PASSAGES = 5
ROUNDS = 7
SECONDS_PER_ROUND = 0.6
TEXTS = ["we use redis for the cache .", "the cache is maybe redis .", "we use the cache .",
         "redis is indeed fast .", "the team uses the cache daily ."]


class ConstantScorer:
    """No model at all: every pair is neutral, so every claim goes through singles and pairs."""

    resolved_revision = None

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        return [(0.2, 0.1, 0.7)] * len(pairs)


def evidence(index: int) -> list[ClaimEvidence]:
    return [ClaimEvidence(reference=f"m{slot + 1}", memory_id=f"00000000-0000-4000-8000-{index:06d}{slot:06d}",
                          text=f"{TEXTS[slot]} note {index}") for slot in range(PASSAGES)]


async def _rate(verifier: ClaimVerifier, seconds: float) -> tuple[int, float]:
    done, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds or done == 0:
        result = await verifier.verify(f"we use redis {done}", evidence(done))
        assert len(result.group_scores) == PASSAGES + PASSAGES * (PASSAGES - 1) // 2, result.status
        done += 1
    return done, elapsed


def measure(verifier: ClaimVerifier) -> dict[str, Any]:
    asyncio.run(_rate(verifier, 0.2))  # warm-up: model load, imports, caches
    runs = [asyncio.run(_rate(verifier, SECONDS_PER_ROUND)) for _ in range(ROUNDS)]
    per_claim = [elapsed / done * 1000 for done, elapsed in runs]
    return {"claims_per_s": statistics.median(done / elapsed for done, elapsed in runs),
            "ms_per_claim": statistics.median(per_claim), "ms_per_claim_min": min(per_claim),
            "ms_per_claim_max": max(per_claim), "claims": sum(done for done, _ in runs)}


def main() -> None:
    from tests.claims.tiny_nli import build_model

    with tempfile.TemporaryDirectory(prefix="answerlens-tiny-nli-") as name:
        folder = build_model(Path(name) / "model")
        tiny = measure(ClaimVerifier(scorer=OnnxNliScorer(folder)))
    overhead = measure(ClaimVerifier(scorer=ConstantScorer()))
    print(json.dumps({"passages": PASSAGES, "pairs_per_claim": PASSAGES + PASSAGES * (PASSAGES - 1) // 2,
                      "rounds": ROUNDS, "tiny_model": tiny, "overhead": overhead}))


if __name__ == "__main__":
    main()
