"""The bounds of a trial run, checked up front (before a dataset is read or a request sent) by the CLI, the
library and the Trials page alike, so a typo such as ``--repeats 99999999999`` is a one-line error, not an
out-of-memory traceback.

Why these numbers: ``result.json`` holds every sample (about 5 kB each with a small bundle), and the whole run is
summarised in memory, so ``MAX_SAMPLES`` keeps a run's file near half a gigabyte at most; a sharded run counts
whole, because its shards merge into one such file. ``MAX_CONCURRENCY`` is per endpoint: more requests in flight
than that to one model server only queue inside it.
"""

from __future__ import annotations

from answerlens.errors import TrialError

MAX_REPEATS = 1_000
MAX_CONCURRENCY = 256
"""Requests in flight per endpoint."""
MAX_ENDPOINTS = 64
MAX_SAMPLES = 100_000
"""Cases × repeats of the whole run (every shard together)."""
MAX_EARLY_STOP = 1_000
"""``early_stop`` at most: the first calls that must all fail alike before a run stops."""
MAX_RUN_REPLY_BYTES = 8 * 1024 * 1024
"""``max_reply_bytes`` of a trial or sweep at most (the default): every reply is kept in its sample file, and a
sample file is read back up to ``trials.folder.SAMPLE_MAX_BYTES`` (64 MB) — a reply kept as escaped text and parsed
must fit it, or the run could write samples its own ``verify`` refuses."""


def _within(name: str, value: int, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        shown = f"{value:,}" if isinstance(value, int) else repr(value)
        raise TrialError(f"{name} must be a whole number from {low:,} to {high:,} (got {shown})")


def check_counts(*, repeats: int, concurrency: int | None, endpoints: int = 1, early_stop: int = 0,
                 max_reply_bytes: int | None = None) -> None:
    """The bounds that need no dataset; a value out of bounds is a ``TrialError`` naming it and its bounds
    (``concurrency`` None: left to the endpoint; ``max_reply_bytes``: the configuration's, ``check_reply_bytes``)."""
    _within("repeats", repeats, 1, MAX_REPEATS)
    if concurrency is not None:
        _within("concurrency", concurrency, 1, MAX_CONCURRENCY)
    _within("the number of endpoints", endpoints, 1, MAX_ENDPOINTS)
    _within("early stop", early_stop, 0, MAX_EARLY_STOP)
    check_reply_bytes(max_reply_bytes)


def check_reply_bytes(max_reply_bytes: int | None) -> None:
    """A run's reply limit: at most ``MAX_RUN_REPLY_BYTES`` (None: the default, which is that)."""
    if max_reply_bytes is not None and max_reply_bytes > MAX_RUN_REPLY_BYTES:
        raise TrialError(f"max_reply_bytes must be at most {MAX_RUN_REPLY_BYTES:,} for a trial or sweep (got "
                         f"{max_reply_bytes:,}): every reply is kept in its sample file, which is read back up to "
                         "64 MB — lower it, or assess that question alone with the larger limit")


def check_samples(cases: int, repeats: int) -> None:
    """The size of the whole run: cases × repeats at most ``MAX_SAMPLES``."""
    if cases * repeats > MAX_SAMPLES:
        raise TrialError(f"{cases:,} cases × {repeats:,} repeats = {cases * repeats:,} samples; a run holds at most "
                         f"{MAX_SAMPLES:,} (fewer repeats, or split the dataset)")
