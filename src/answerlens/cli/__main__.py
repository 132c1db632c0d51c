"""``python -m answerlens.cli``."""

import sys

from answerlens.cli import main

sys.exit(main())
