"""The second opinion's hashes use the one canonical JSON and cover what they say they cover."""

from answerlens.audit import canonical_json_ascii, sha256_text
from answerlens.second_opinion.audit import IDENTITY_FIELDS, opinion_id, opinion_sha256


def test_opinion_id_hashes_exactly_the_identity_fields() -> None:
    fields = {name: f"value-{name}" for name in IDENTITY_FIELDS}
    assert opinion_id({**fields, "requirements": ["ignored"]}) == sha256_text(canonical_json_ascii(fields))
    assert opinion_id({**fields, "policy": "strict"}) != opinion_id(fields)


def test_opinion_sha256_covers_everything_but_itself() -> None:
    dump = {"a": 1, "b": [1, "é"], "opinion_sha256": "x"}
    assert opinion_sha256(dump) == sha256_text(canonical_json_ascii({"a": 1, "b": [1, "é"]}))
    assert opinion_sha256({**dump, "opinion_sha256": "y"}) == opinion_sha256(dump)
    assert opinion_sha256({**dump, "a": 2}) != opinion_sha256(dump)
