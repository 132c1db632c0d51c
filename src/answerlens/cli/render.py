"""``answerlens render``: a bundle's records in one context format, exactly as a model would see them; with a
budget (and a depth or chunk size), cut exactly as a sweep cuts it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from answerlens.cli.common import EXIT_OK, FORMATS, UsageError, load_source


def add_commands(commands: Any) -> None:
    render = commands.add_parser("render", help="render a bundle's records in a context format")
    render.add_argument("bundle")
    render.add_argument("--format", choices=list(FORMATS), required=True)
    render.add_argument("--citations", action="store_true", help="reader only: print [mN] references")
    render.add_argument("--budget", metavar="B",
                        help="cut as a sweep cuts: 'packed', a token count or NN%% of the packed context's tokens; "
                        "records are kept in packed order while the context fits (what was cut goes to stderr)")
    render.add_argument("--top-k", type=int, metavar="K", help="with --budget: keep the first K records")
    render.add_argument("--record-tokens", type=int, metavar="N",
                        help="with --budget: cut each record's text to its first N tokens")
    render.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from answerlens.render import render_bundle

    bundle = load_source(args.bundle)
    if args.budget is None and args.top_k is None and args.record_tokens is None:
        print(render_bundle(bundle, args.format, context_citations=args.citations).rendered_context)
        return EXIT_OK
    context = _cut(bundle, args)
    print(context.bundle.rendered_context)
    from answerlens.sweeps.view import cut_text

    why = f"; cannot be assessed: {context.reason}" if context.reason else ""
    print(cut_text(context, bundle) + why, file=sys.stderr)
    return EXIT_OK


def _cut(bundle: Any, args: argparse.Namespace) -> Any:
    from answerlens.sweeps.cut import cell_context
    from answerlens.sweeps.settings import PACKED, Setting, SweepFormat, parse_budget, parse_count

    if args.citations and args.format != "reader":
        raise UsageError("--citations applies only to --format reader")
    fmt = SweepFormat(args.format) if args.format != "reader" else \
        SweepFormat.READER_CITED if args.citations else SweepFormat.READER_PLAIN
    try:
        setting = Setting(format=fmt, budget=parse_budget(args.budget or PACKED),
                          top_k=parse_count(args.top_k, "top_k") if args.top_k is not None else None,
                          record_tokens=parse_count(args.record_tokens, "record_tokens")
                          if args.record_tokens is not None else None)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return cell_context(bundle, setting)
