"""``answerlens agreement`` (the judge against people's labels) and ``answerlens labels`` (export, import, and a
trial dataset of the reviewed runs). SOURCE is a trial folder or result, a sweep folder, a run store file, or
``store`` for the run store in the data folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.cli.common import EXIT_OK, UsageError

if TYPE_CHECKING:
    from answerlens.review.agreement import Agreement, Figures
    from answerlens.review.items import Matching, Source
    from answerlens.review.labels import Label
    from answerlens.run_store import RunStore

SOURCE_HELP = ("a trial run folder or result.json, a sweep folder, a run store file (runs.sqlite3), or `store` for "
               "the run store in the data folder ($ANSWERLENS_DATA_DIR)")


def add_commands(commands: Any) -> None:
    agree = commands.add_parser("agreement", help="how far the judge's verdicts agree with people's labels")
    agree.add_argument("source", help=SOURCE_HELP)
    agree.add_argument("--labels", type=Path, help="labels from this JSON-lines file instead of the run store's")
    agree.add_argument("--json", action="store_true", help="print one JSON object")
    agree.add_argument("--min-labels", type=int, help="below this many labels the figures are marked too few "
                       "(default 20)")
    agree.set_defaults(handler=run_agreement)
    labels = commands.add_parser("labels", help="review labels: export, import, or turn reviewed runs into a "
                                 "trial dataset")
    actions = labels.add_subparsers(dest="action", required=True, parser_class=type(labels))
    export = actions.add_parser("export", help="the run store's labels as JSON lines")
    export.add_argument("--store", type=Path, help="a run store file (default: the one in the data folder)")
    export.add_argument("-o", "--out", type=Path, help="write here instead of standard output")
    export.set_defaults(handler=run_export)
    load = actions.add_parser("import", help="merge a JSON-lines file of labels into the run store (newer wins)")
    load.add_argument("file", type=Path)
    load.add_argument("--store", type=Path, help="a run store file (default: the one in the data folder)")
    load.set_defaults(handler=run_import)
    dataset = actions.add_parser("dataset", help="the labelled runs of SOURCE as a trial dataset (the people's "
                                 "verdicts as its labels)")
    dataset.add_argument("source", help=SOURCE_HELP)
    dataset.add_argument("--out", type=Path, required=True, help="the dataset file (.json, or .jsonl)")
    dataset.add_argument("--labels", type=Path, help="labels from this JSON-lines file instead of the run store's")
    dataset.add_argument("--bundles", type=Path, action="append", default=[], metavar="PATH",
                         help="a bundle or sample file, or a folder of them, where a stored run's bundle is found "
                         "by its context's sha256 (repeatable; a trial's or sweep's bundles are its own)")
    dataset.add_argument("--by-path", action="store_true", help="name bundles that came from a file by their path "
                         "(relative to the dataset) instead of writing them inline")
    dataset.set_defaults(handler=run_dataset)


def _store(path: Path | None) -> RunStore:
    from answerlens.run_store import RunStore, default_path

    return RunStore(path if path is not None else default_path())


def open_source(text: str, cwd: Path) -> tuple[Source, RunStore]:
    """The source SOURCE names, and the run store whose labels apply by default."""
    from answerlens.review.items import FolderSource, StoreSource, is_store_file

    path = Path(text)
    if text == "store" and not path.exists():
        runs = _store(None)
        return StoreSource(runs), runs
    if not path.exists():
        raise UsageError(f"{text}: no such file or folder ({SOURCE_HELP})")
    if path.is_file() and is_store_file(path):
        runs = _store(path)
        return StoreSource(runs), runs
    return FolderSource(path, cwd=cwd), _store(None)


def _labels(file: Path | None, runs: RunStore) -> list[Label]:
    from answerlens.review.export import read_labels
    from answerlens.review.labels import LabelStore, newest

    return newest(read_labels(file)) if file is not None else LabelStore(runs).labels()


def _matching(args: argparse.Namespace) -> tuple[Source, Matching]:
    from answerlens.review.items import match

    source, runs = open_source(args.source, Path.cwd())
    return source, match(source, _labels(args.labels, runs))


def run_agreement(args: argparse.Namespace) -> int:
    from answerlens.review.agreement import MIN_LABELS
    from answerlens.review.items import agreement_of

    if args.min_labels is not None and args.min_labels < 1:
        raise UsageError("--min-labels must be at least 1")
    source, matching = _matching(args)
    result = agreement_of(matching, min_labels=args.min_labels or MIN_LABELS)
    if args.json:
        print(json.dumps(agreement_json(source, matching, result), ensure_ascii=False, indent=1))
    else:
        print("\n".join(agreement_text(source, matching, result)))
    return EXIT_OK


def agreement_json(source: Source, matching: Matching, result: Agreement) -> dict[str, Any]:
    """``--json``: the figures, then what was counted and what was not (void and unmatched labels, with why)."""
    def left_out(items: Any) -> list[dict[str, Any]]:
        return [{**item.label.model_dump(mode="json"), "reason": item.reason} for item in items]

    return {"source": source.name, "kind": source.kind, **result.model_dump(mode="json"),
            "labels": {"valid": len(matching.valid), "void": len(matching.void), "unmatched": len(matching.unmatched)},
            "void": left_out(matching.void), "unmatched": left_out(matching.unmatched)}


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _kappa(figures: Agreement | Figures) -> str:
    if figures.kappa is None:
        return f"κ {figures.kappa_undefined}"
    assert figures.kappa_ci is not None
    return f"κ {figures.kappa:.2f}, 95% interval [{figures.kappa_ci[0]:.2f}, {figures.kappa_ci[1]:.2f}]"


def agreement_text(source: Source, matching: Matching, result: Agreement) -> list[str]:
    from answerlens.review.agreement import VERDICTS

    few = f" — too few labels (under {result.min_labels}): do not rely on these figures" if result.too_few else ""
    agreed = sum(result.confusion[verdict.value][verdict.value] for verdict in VERDICTS)
    lines = [f"{source.kind} {source.name}: {result.n} label(s) counted{few}",
             f"  raw agreement {_percent(result.agreement)} ({agreed} of {result.n}); {_kappa(result)}",
             f"  ({result.interval})", "  confusion, judge (rows) × people (columns):",
             "    " + " " * 13 + "".join(f"{verdict.value:>13}" for verdict in VERDICTS)]
    lines += ["    " + f"{judge.value:<13}" + "".join(f"{result.confusion[judge.value][human.value]:>13}"
                                                      for human in VERDICTS) for judge in VERDICTS]
    lines.append("  per verdict: judge rate / people rate / precision / recall")
    lines += [f"    {item.verdict.value:<13} {_percent(item.judge_rate):>5} {_percent(item.human_rate):>5} "
              f"{_percent(item.precision):>5} {_percent(item.recall):>5}" for item in result.classes]
    lines.append(f"  unsafe (judge answerable or partial, people insufficient): {result.unsafe.count} (of which "
                 f"answered in full: {result.unsafe_full.count})")
    lines += [f"    {case}" for case in result.unsafe.cases]
    humans = result.humans
    lines.append(f"  people with people: {humans.items} thing(s) labelled by several reviewers, {humans.pairs} "
                 f"pair(s), agreement {_percent(humans.agreement)}")
    lines += [f"    {pair.reviewers[0]} – {pair.reviewers[1]}: {pair.figures.n} shared, agreement "
              f"{_percent(pair.figures.agreement)}, {_kappa(pair.figures)}"
              + (" (too few labels)" if pair.figures.too_few else "") for pair in humans.by_reviewers]
    from answerlens.review.export import matched_lines

    for name, items in (("void", matching.void), ("not in this source", matching.unmatched)):
        if items:
            lines.append(f"  {len(items)} label(s) {name}, counted nowhere:")
            lines += [f"    {line}" for line in matched_lines(items)]
    return lines


def run_export(args: argparse.Namespace) -> int:
    from answerlens.review.export import write_labels
    from answerlens.review.labels import LabelStore

    labels = LabelStore(_store(args.store)).labels()
    if args.out is None:
        write_labels(labels, sys.stdout)
    else:
        with args.out.open("w", encoding="utf-8") as out:
            write_labels(labels, out)
        print(f"{len(labels)} label(s) written to {args.out}", file=sys.stderr)
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from answerlens.review.export import read_labels
    from answerlens.review.labels import LabelStore

    runs = _store(args.store)
    merged = LabelStore(runs).merge(read_labels(args.file))
    print(f"{args.file}: {merged.added} added, {merged.replaced} replaced by newer ones, {merged.kept} kept (the "
          f"stored label was as new or newer) in {runs.path}")
    return EXIT_OK


def run_dataset(args: argparse.Namespace) -> int:
    from answerlens.review.export import BundleIndex, dataset_cases, write_dataset

    source, matching = _matching(args)
    exported = dataset_cases(matching, out=args.out, bundles=BundleIndex(args.bundles), by_path=args.by_path)
    for reason in exported.skipped:
        print(f"answerlens: left out: {reason}", file=sys.stderr)
    if not exported.cases:
        raise UsageError(f"{source.name}: no labelled run could be exported ({len(matching.valid)} valid label(s), "
                         f"{len(exported.skipped)} left out)")
    write_dataset(exported, args.out)
    print(f"{len(exported.cases)} case(s) from {exported.labels} label(s) written to {args.out}; run it with "
          f"`answerlens trial {args.out} …`")
    return EXIT_OK
