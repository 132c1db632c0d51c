"""Canonical JSON in its two encodings and the audit hashes, by PRME's formulas (verification of stored
assessments: ``verification``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

IDENTITY_FIELDS = (
    "answer_sha256",
    "context_sha256",
    "configuration_sha256",
    "prompt_sha256",
    "prompt_version",
    "query_sha256",
)
"""The recorded inputs ``evaluation_id`` hashes."""

HASHED_REQUIREMENT_FIELDS = ("evidence_ids", "evidence_refs", "explanation", "requirement", "status")
"""The fields of each requirement that ``assessment_sha256`` hashes (ids as text)."""


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json_ascii(value: Any) -> str:
    """Canonical JSON with non-ASCII characters escaped (``"é"`` -> ``"\\u00e9"``): sorted keys, no spaces.

    Every answerability hash uses it (``evaluation_id``, ``assessment_sha256``, the configuration, the second
    opinion, trial cases and shards), because PRME's answerability module hashes ``json.dumps``'s default output.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def canonical_json_utf8(value: Any) -> str:
    """Canonical JSON with non-ASCII characters kept as they are (``ensure_ascii=False``): sorted keys, no spaces.

    Only the claim verifier's hashes use it (``claims.audit``), because PRME 0.15.0's claim verification hashes
    that encoding. Both exist so that each hash equals upstream's byte for byte: the same value with a non-ASCII
    character gives different bytes, hence a different hash, in the two encodings.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def configuration_sha256(public_dump: Mapping[str, Any]) -> str:
    """The configuration's identity: its non-secret settings in canonical JSON."""
    return sha256_text(canonical_json_ascii(public_dump))


def evaluation_id(identity: Mapping[str, Any]) -> str:
    """Fixed-input identity shared by repeats: a hash of the six input hashes and the prompt version."""
    return sha256_text(canonical_json_ascii({field: identity[field] for field in IDENTITY_FIELDS}))


def assessment_sha256(
    *,
    evaluation_id: str,
    verdict: str,
    recommended_action: str,
    requirements: Sequence[Mapping[str, Any]],
    citation_errors: Sequence[str],
    reasoning: str,
) -> str:
    """Identity of the validated output, so repeats sharing an ``evaluation_id`` can be compared."""
    result = {
        "citation_errors": list(citation_errors),
        "evaluation_id": evaluation_id,
        "reasoning": reasoning,
        "recommended_action": recommended_action,
        "requirements": [_hashed_requirement(item) for item in requirements],
        "verdict": verdict,
    }
    return sha256_text(canonical_json_ascii(result))


def _hashed_requirement(item: Mapping[str, Any]) -> dict[str, Any]:
    hashed = {name: list(item[name]) if name.startswith("evidence") else item[name]
              for name in HASHED_REQUIREMENT_FIELDS}
    hashed["evidence_ids"] = [str(memory_id) for memory_id in hashed["evidence_ids"]]
    return hashed
