"""Shards: a run split across machines by a stable hash of each sample's (case id, repeat).

Shard numbers are 1-based: ``--shard 2/3`` is the second of three. A sample belongs to shard
``int.from_bytes(sha256(canonical_json_ascii([case_id, repeat]))[:8], "big") % N + 1`` — canonical JSON as
``answerlens.audit`` writes it (sorted keys, no spaces, UTF-8), so the split depends only on the case ids, the
repeat numbers and N: never on the dataset's order, the machine or the Python version.
"""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, Field, model_validator

from answerlens.audit import canonical_json_ascii
from answerlens.trials.log import STRICT

MAX_SHARDS = 1_024


def shard_number(case_id: str, repeat: int, count: int) -> int:
    """The 1-based shard of ``count`` that holds (``case_id``, ``repeat``)."""
    digest = hashlib.sha256(canonical_json_ascii([case_id, repeat]).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


class Shard(BaseModel):
    """Shard ``index`` of ``count`` (1-based); in ``run.json`` and ``result.json`` of a sharded run.

    ``cases`` (``result.json`` only) lists every case id of the dataset in its order: what ``trial-merge``
    checks completeness against and orders the merged samples by.
    """

    model_config = STRICT

    index: int = Field(ge=1)
    count: int = Field(ge=1, le=MAX_SHARDS)
    cases: tuple[str, ...] | None = Field(default=None, exclude_if=lambda value: value is None)

    @model_validator(mode="after")
    def _index_within(self) -> Shard:
        if self.index > self.count:
            raise ValueError(f"shard {self.index}/{self.count}: the shard number must be at most {self.count}")
        return self

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"K/N"``; anything else is a ``ValueError`` that says what is expected."""
        index, slash, count = text.partition("/")
        if not slash or not index.strip().isdigit() or not count.strip().isdigit():
            raise ValueError(f"--shard {text!r}: expected K/N, e.g. 1/4 (the first of four shards)")
        number, total = int(index), int(count)
        if not 1 <= number <= total <= MAX_SHARDS:
            raise ValueError(f"--shard {text!r}: needs 1 ≤ K ≤ N ≤ {MAX_SHARDS:,}")
        return cls(index=number, count=total)

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_id: str, repeat: int) -> bool:
        return shard_number(case_id, repeat, self.count) == self.index

    def plain(self) -> Shard:
        """The shard without its case list (what ``run.json`` records)."""
        return Shard(index=self.index, count=self.count)
