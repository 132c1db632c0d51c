"""``answerlens`` with ``os.fsync`` made a no-op: the bench's comparison arm for durable writes (never for use)."""

from __future__ import annotations

import os
import sys

os.fsync = lambda descriptor: None  # type: ignore[assignment]

from answerlens.cli import main  # noqa: E402 - after the patch, as a real run would import it

sys.exit(main(sys.argv[1:]))
