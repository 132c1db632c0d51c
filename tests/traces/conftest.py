"""A project of each test's own, in the session's real Phoenix (``phoenix``, or ``phoenix_with_key``: see
tests/phoenix_server.py); helpers in tests/traces/phoenix_reads.py."""

from __future__ import annotations

import uuid

import pytest


@pytest.fixture
def project() -> str:
    """A project of the test's own, so what it reads back is its own."""
    return f"rag-{uuid.uuid4().hex[:8]}"
