"""Where the test data lives: all of it inside the repository, so a plain clone runs the suite."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
PRME = FIXTURES / "prme"
"""Real PRME 0.15.0 outputs (see tests/fixtures/README.md)."""
SAMPLES = REPO / "sample_bundles"
