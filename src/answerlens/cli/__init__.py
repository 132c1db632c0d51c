"""The ``answerlens`` command line: one module per command family, each imported only when its command runs.

Exit codes: the table in ``answerlens.cli.common`` (0 ok, 1 problems, 2 bad input, 3 provider, 4 failed samples,
5 unfinished, 6 the machine refused a write). Errors are one line on stderr. Only the standard library is imported
to build the parser, so ``--help`` starts at once.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from answerlens.cli.common import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, EXIT_PROVIDER, UsageError, fail

COMMANDS = ("assess", "verify", "report", "render", "trial", "sweep", "review", "claims", "model", "traces")
"""The command modules under ``answerlens.cli``, in the order ``--help`` lists them."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"answerlens: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="answerlens", description="Grounded abstention: does the evidence establish the answer?")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"answerlens.cli.{name}").add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already printed as one line
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    from answerlens.errors import (
        AnswerabilityError,
        AnswerlensError,
        PhoenixError,
        RecordingMismatchError,
        StorageError,
    )

    try:
        return int(args.handler(args))
    except RecordingMismatchError as exc:  # the inputs are wrong for this recording: nothing was called
        return fail(EXIT_BAD_INPUT, str(exc))
    except (AnswerabilityError, PhoenixError) as exc:  # the model, or Phoenix, could not be asked
        return fail(EXIT_PROVIDER, str(exc))
    except StorageError as exc:  # the machine refused a write: not the input's fault
        return fail(EXIT_ENVIRONMENT, str(exc))
    except OSError as exc:
        return fail(_os_exit(exc), str(exc))
    except (AnswerlensError, UsageError, ValueError) as exc:
        return fail(EXIT_BAD_INPUT, str(exc))
    except KeyboardInterrupt:
        return fail(130, "interrupted")


def _os_exit(exc: OSError) -> int:
    """A refused write that reached here unmapped is still the machine's doing (exit 6); other OS errors are about
    the input named (a missing file …)."""
    from answerlens.storage import refusal

    return EXIT_ENVIRONMENT if refusal(exc) is not None else EXIT_BAD_INPUT


__all__ = ["build_parser", "main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
