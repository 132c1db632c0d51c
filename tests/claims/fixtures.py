"""Where the claim verifier tests find their data: copies of real PRME 0.15.0 output inside tests/fixtures."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PRME = FIXTURES / "prme"
