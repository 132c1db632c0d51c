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


PROVENANCE_FIELDS = ("provider", "model", "model_called", "engine", "base_url", "origin", "recording")
"""What ``provenance_sha256`` hashes: where the reply came from (answerlens only; upstream has no such hash)."""

HASH_COVERAGE = {
    "query_sha256": "the question, whitespace-stripped",
    "answer_sha256": "the draft answer, whitespace-stripped (null: no draft)",
    "context_sha256": "the exact context the model saw (render().strip())",
    "configuration_sha256": "every non-secret setting of the configuration (provider, model, base URL, "
                            "temperature, ...), as configured; not recomputable from the assessment alone",
    "prompt_sha256": "the system prompt's text",
    "evaluation_id": "the five input hashes above and prompt_version (upstream's formula)",
    "assessment_sha256": "the validated output: verdict, action, each requirement's text, status, evidence refs "
                         "and ids and explanation, the citation errors, the reasoning and evaluation_id "
                         "(upstream's formula)",
    "raw_output_sha256": "the model's reply text exactly as received",
    "provenance_sha256": "where the reply came from: provider, model, model_called, engine, base URL as recorded, "
                         "origin (live or recorded) and the recording (author, source file and its sha256, "
                         "binding, forced fields, match) (answerlens only)",
}
"""Which fields each recorded hash covers, in words, for the page, the report and the printout. Latency, attempts,
token counts, finish reason and response format are covered by none; citation decisions and spans are
re-derived by verify instead of hashed."""


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


def manifest_sha256(manifest: Mapping[str, Any]) -> str:
    """A trial's or sweep's identity: everything that shapes what it asked and how it is summarised (its question
    or cases, bundle or dataset, settings, repeats, prompt, configuration, second opinion), in canonical JSON. Every
    sample and result of the run records it; a sample recording another is not of this run."""
    return sha256_text(canonical_json_ascii(dict(manifest)))


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


def provenance(data: Mapping[str, Any]) -> dict[str, Any]:
    """The fields ``provenance_sha256`` covers, from an assessment's JSON (``PROVENANCE_FIELDS``)."""
    meta = data.get("provider_metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return {"provider": data.get("provider"), "model": data.get("model"), "model_called": data.get("model_called"),
            "engine": meta.get("engine"), "base_url": meta.get("base_url"), "origin": meta.get("origin"),
            "recording": meta.get("recording")}


def provenance_sha256(provenance: Mapping[str, Any]) -> str:
    """Identity of where a reply came from (``PROVENANCE_FIELDS``), so relabelling it is caught."""
    return sha256_text(canonical_json_ascii({name: provenance[name] for name in PROVENANCE_FIELDS}))


def _hashed_requirement(item: Mapping[str, Any]) -> dict[str, Any]:
    hashed = {name: list(item[name]) if name.startswith("evidence") else item[name]
              for name in HASHED_REQUIREMENT_FIELDS}
    hashed["evidence_ids"] = [str(memory_id) for memory_id in hashed["evidence_ids"]]
    return hashed
