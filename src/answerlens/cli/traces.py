"""``answerlens import-trace`` (a retriever span of an OTLP JSON file or a running Phoenix → a sample file) and
``answerlens annotate`` (an assessment of that sample → annotations on the span in Phoenix). The Phoenix API key is
read from ``PHOENIX_API_KEY`` only."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.common import EXIT_BAD_INPUT, EXIT_OK, UsageError, fail

if TYPE_CHECKING:
    from answerlens.assessment import AnswerabilityAssessment
    from answerlens.traces.importer import SpanChoice

KEY_NOTE = "the API key, when Phoenix needs one, is read from PHOENIX_API_KEY (never a flag or a file)"


def add_commands(commands: Any) -> None:
    source = commands.add_parser(
        "import-trace", help="turn a retriever span (OTLP JSON file or Phoenix) into a sample file",
        description="Read a RETRIEVER span of a traced RAG pipeline (OpenInference attributes) and write an "
        f"answerlens sample: its documents as records, its question, an import block naming the span; {KEY_NOTE}.")
    source.add_argument("file", nargs="?", type=Path, help="OTLP JSON file (one document, or JSON lines of them)")
    source.add_argument("--phoenix", metavar="URL", help="read from a running Phoenix, e.g. http://127.0.0.1:6006")
    source.add_argument("--project", help="Phoenix project (default: default)")
    which = source.add_mutually_exclusive_group()
    which.add_argument("--trace-id", metavar="ID", help="the trace (hex): its only retriever span")
    which.add_argument("--span-id", metavar="ID", help="the retriever span itself (hex)")
    source.add_argument("--with-answer", action="store_true",
                        help="also take the trace's LLM output as the draft answer to check")
    source.add_argument("--reranker", action="store_true",
                        help="import a RERANKER span's output documents instead of a RETRIEVER's")
    source.add_argument("-q", "--question", help="the question, when the span and its trace record none")
    source.add_argument("-o", "--output", type=Path, required=True, metavar="SAMPLE.json")
    source.set_defaults(handler=run_import)

    annotate = commands.add_parser(
        "annotate", help="write an assessment's verdict onto its imported span in Phoenix",
        description="One span annotation (answerlens.answerability: the action, the supported fraction, why) and "
        f"one document annotation per retrieved document (accepted / discarded / not cited); {KEY_NOTE}.")
    annotate.add_argument("assessment", type=Path, help="assessment JSON of an imported sample (assess --json)")
    add_phoenix_options(annotate, required=True)
    annotate.set_defaults(handler=run_annotate)


def add_phoenix_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--phoenix", metavar="URL", required=required,
                        help="the Phoenix to write to, e.g. http://127.0.0.1:6006")
    parser.add_argument("--project", help="the span's Phoenix project (default: the import block's, else default)")


def run_import(args: argparse.Namespace) -> int:
    from answerlens.errors import TraceError
    from answerlens.traces.importer import Wanted, import_file, import_phoenix
    from answerlens.traces.phoenix import Phoenix

    if (args.file is None) == (args.phoenix is None):
        raise UsageError("give an OTLP JSON FILE or --phoenix URL (one of them)")
    if args.project and args.file is not None:
        raise UsageError("--project applies to --phoenix (a file's spans carry their project)")
    wanted = Wanted(args.trace_id, args.span_id, args.reranker, args.with_answer, args.question)
    try:
        if args.file is not None:
            imported = import_file(args.file, wanted)
        else:
            with Phoenix.connect(args.phoenix) as phoenix:
                imported = import_phoenix(phoenix, args.project or "default", wanted)
    except TraceError as exc:
        if not exc.choices:
            raise
        _print_choices(exc.choices)
        return fail(EXIT_BAD_INPUT, f"{exc}: pass --span-id (the table above lists them)")
    for note in imported.notes:
        print(f"answerlens: note: {note}", file=sys.stderr)
    sample = imported.sample
    args.output.write_text(json.dumps(sample.model_dump(mode="json", exclude_defaults=True), indent=2,
                                      ensure_ascii=False) + "\n", encoding="utf-8")
    block = sample.trace_import
    assert block is not None
    print(f"wrote {args.output}: {len(block.positions)} document(s) of span {block.span_id} of trace "
          f"{block.trace_id}; assess it with `answerlens assess {args.output} ...`")
    return EXIT_OK


def _print_choices(choices: tuple[SpanChoice, ...]) -> None:
    print(f"{'TRACE ID':32}  {'SPAN ID':16}  {'STARTED (UTC)':19}  DOCS  NAME / QUESTION")
    for choice in choices:
        started = choice.started.strftime("%Y-%m-%d %H:%M:%S") if choice.started else "-"
        question = " ".join((choice.question or "").split())
        question = question if len(question) <= 60 else question[:59] + "…"
        print(f"{choice.trace_id:32}  {choice.span_id:16}  {started:19}  {choice.documents:>4}  {choice.name}"
              + (f" / {question}" if question else ""))


def run_annotate(args: argparse.Namespace) -> int:
    assessment = _read_assessment(args.assessment)
    print(annotate(assessment, args.phoenix, args.project))
    return EXIT_OK


def annotate(assessment: AnswerabilityAssessment, url: str, project: str | None) -> str:
    """Write the verdict onto its span; the summary of what was written."""
    from answerlens.traces.phoenix import Phoenix
    from answerlens.traces.writeback import write_verdict

    with Phoenix.connect(url) as phoenix:
        written = write_verdict(phoenix, assessment, project=project)
    return written.summary()


def _read_assessment(path: Path) -> AnswerabilityAssessment:
    from pydantic import ValidationError

    from answerlens.assessment import AnswerabilityAssessment
    from answerlens.errors import describe_validation
    from answerlens.json_reader import read_json
    from answerlens.second_opinion.document import KEY, split_document

    data = read_json(path)
    if isinstance(data, dict) and KEY in data:
        data = split_document(data)[0]  # the audited assessment (a strict view on top is the opinion's)
    try:
        return AnswerabilityAssessment.model_validate(data)
    except ValidationError as exc:
        raise UsageError(f"{path}: not an assessment ({describe_validation(exc)})") from None
