"""The second opinion's two hashes, by the same canonical JSON as every answerlens audit hash.

``opinion_id`` is the fixed-input identity (shared by repeats over the same assessment, verifier settings, flag
rules and policy); ``opinion_sha256`` is the identity of everything recorded, so any edit is caught.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from answerlens.audit import canonical_json_ascii, sha256_text

IDENTITY_FIELDS = (
    "assessment_evaluation_id",
    "assessment_sha256",
    "flag_rules_version",
    "policy",
    "schema_version",
    "verifier_configuration_sha256",
)


def opinion_id(fields: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the identity fields (a dump's values, so enums as their text)."""
    return sha256_text(canonical_json_ascii({name: fields[name] for name in IDENTITY_FIELDS}))


def opinion_sha256(dump: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the whole JSON dump except ``opinion_sha256`` itself."""
    return sha256_text(canonical_json_ascii({name: value for name, value in dump.items() if name != "opinion_sha256"}))
