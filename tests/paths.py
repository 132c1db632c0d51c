"""Where the test data lives: the repository, and the shared/ folder beside the checkout."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
PRME = SHARED / "prme"
SAMPLES = REPO / "sample_bundles"
