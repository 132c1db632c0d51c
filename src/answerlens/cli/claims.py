"""``answerlens verify-claim``: one declarative claim against a bundle's passages with the pinned NLI model."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from answerlens.cli.common import EXIT_OK, EXIT_PROVIDER, fail, load_source


def add_commands(commands: Any) -> None:
    claim = commands.add_parser("verify-claim", help="check one claim against a bundle's passages with the NLI model")
    claim.add_argument("bundle", help="bundle or sample JSON file")
    claim.add_argument("claim", help="one declarative claim")
    claim.add_argument("--ref", action="append", dest="refs", metavar="REF", help="only this passage (repeatable)")
    claim.add_argument("--complete-set", action="store_true",
                       help="the claim is an exhaustive count or list: reported incomplete, no model call")
    claim.add_argument("--model-dir", type=Path, help="local ONNX model folder (default: $ANSWERLENS_NLI_MODEL, "
                       "else the Hugging Face cache)")
    claim.add_argument("--json", action="store_true", help="print the result JSON")
    claim.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from answerlens.claims.report import report_lines
    from answerlens.claims.verifier import ClaimVerifier, bundle_evidence
    from answerlens.errors import ClaimVerificationError

    bundle = load_source(args.bundle)
    verifier = ClaimVerifier(model_dir=args.model_dir)
    try:
        result = asyncio.run(verifier.verify_bundle(args.claim, bundle, evidence_refs=args.refs,
                                                    requires_complete_set=args.complete_set))
    except ClaimVerificationError as exc:
        return fail(EXIT_PROVIDER, str(exc))
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print("\n".join(report_lines(result, bundle_evidence(bundle))))
    return EXIT_OK
