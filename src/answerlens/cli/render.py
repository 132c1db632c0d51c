"""``answerlens render``: a bundle's records in one context format, exactly as a model would see them."""

from __future__ import annotations

import argparse
from typing import Any

from answerlens.cli.common import EXIT_OK, FORMATS, load_source


def add_commands(commands: Any) -> None:
    render = commands.add_parser("render", help="render a bundle's records in a context format")
    render.add_argument("bundle")
    render.add_argument("--format", choices=list(FORMATS), required=True)
    render.add_argument("--citations", action="store_true", help="reader only: print [mN] references")
    render.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from answerlens.render import render_bundle

    rendered = render_bundle(load_source(args.bundle), args.format, context_citations=args.citations)
    print(rendered.rendered_context)
    return EXIT_OK
