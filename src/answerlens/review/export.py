"""Labels in and out as JSON lines (DESIGN §14's shape, hashes included, so teams can merge reviews), and reviewed
runs out as a trial dataset, so a reviewed set becomes a regression set for ``answerlens trial`` and its gates.

The human verdict becomes the dataset's label: *answerable* → ``answerable``; *partial*, *insufficient* and
*conflicting* → ``unanswerable`` (the records do not establish every part of the question, which is what the
trial's label says). A run with a draft answer keeps it, with ``answer_label`` ``correct`` when the human verdict is
answerable and ``incorrect`` otherwise. The human verdict itself is kept as the case's ``question_type``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from answerlens.audit import canonical_json_ascii, sha256_text
from answerlens.errors import AnswerlensError, LabelError
from answerlens.json_reader import read_text
from answerlens.loading import load_bundle
from answerlens.records import MemoryBundle
from answerlens.review.items import Matched, Matching
from answerlens.review.labels import Label, json_line, parse_label
from answerlens.review.shown import Opened
from answerlens.trials.dataset import TrialCase
from answerlens.trials.log import AnswerLabel, QuestionLabel
from answerlens.verdict import AnswerabilityVerdict

DATASET_LABEL = {AnswerabilityVerdict.ANSWERABLE: QuestionLabel.ANSWERABLE,
                 AnswerabilityVerdict.PARTIAL: QuestionLabel.UNANSWERABLE,
                 AnswerabilityVerdict.INSUFFICIENT: QuestionLabel.UNANSWERABLE,
                 AnswerabilityVerdict.CONFLICTING: QuestionLabel.UNANSWERABLE}
"""The human verdict on the dataset's label vocabulary (see the module docstring)."""


def write_labels(labels: Iterable[Label], out: TextIO) -> int:
    """Labels as JSON lines; returns how many were written."""
    count = 0
    for label in labels:
        out.write(label.line() + "\n")
        count += 1
    return count


def read_labels(path: Path) -> list[Label]:
    """A JSON-lines file of labels (blank lines skipped); the first bad line is a ``LabelError`` naming it."""
    text = read_text(path, error=lambda message, where: LabelError(f"{where}: {message}"))
    labels = []
    for number, line in enumerate(text.split("\n"), start=1):  # JSON lines end at \n only
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            if line.strip().startswith("["):  # a pretty-printed array
                data = []
            else:
                raise LabelError(f"{path}: line {number} is not JSON ({exc})") from None
        if isinstance(data, list):
            raise LabelError(f"{path}: line {number}: expected one label object per line (JSON lines), got an array")
        labels.append(parse_label(data, f"{path}: line {number}"))
    return labels


class BundleIndex:
    """Bundle files (or folders of them: bundles and sample files) by the sha256 of their exact context, so a
    stored run — which keeps its context, not its bundle — finds the bundle it was assessed over."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = tuple(paths)
        self._by_context: dict[str, tuple[MemoryBundle, Path]] | None = None

    def find(self, context_sha256: str) -> tuple[MemoryBundle, Path] | None:
        if self._by_context is None:
            self._by_context = {}
            for file in self._files():
                try:
                    bundle = load_bundle(file)
                except (AnswerlensError, ValueError, OSError):
                    continue  # not a bundle (a dataset, a result): nothing to find in it
                self._by_context.setdefault(sha256_text(bundle.exact_context), (bundle, file.resolve()))
        return self._by_context.get(context_sha256)

    def _files(self) -> list[Path]:
        found: list[Path] = []
        for path in self.paths:
            found += sorted(path.glob("*.json")) if path.is_dir() else [path]
        return found


@dataclass(frozen=True)
class Exported:
    """A dataset's cases (each a ``TrialCase`` as JSON), and each reviewed thing left out with the reason."""

    cases: tuple[dict[str, Any], ...]
    skipped: tuple[str, ...] = ()
    labels: int = 0
    """Valid labels the cases rest on."""


@dataclass
class _Case:
    opened: Opened
    labels: list[Label] = field(default_factory=list)


def dataset_cases(matching: Matching, *, out: Path, bundles: BundleIndex | None = None,
                  by_path: bool = False) -> Exported:
    """The valid labels' runs as dataset cases, one per set of inputs (question, draft, context): its bundle
    inline, or (``by_path``) as a path relative to ``out``'s folder when the bundle came from a file."""
    groups: dict[str, _Case] = {}
    for matched in matching.valid:
        assert matched.opened is not None and matched.opened.assessment is not None
        a = matched.opened.assessment
        inputs = sha256_text(canonical_json_ascii([a.query_sha256, a.answer_sha256, a.context_sha256]))
        groups.setdefault(inputs, _Case(matched.opened)).labels.append(matched.label)
    cases, skipped, used = [], [], 0
    for inputs, group in groups.items():
        case = _case(inputs, group, out=out, bundles=bundles, by_path=by_path)
        if isinstance(case, str):
            skipped.append(f"{group.opened.item.key}: {case}")
            continue
        cases.append(case)
        used += len(group.labels)
    return Exported(tuple(cases), tuple(skipped), used)


def _case(inputs: str, group: _Case, *, out: Path, bundles: BundleIndex | None,
          by_path: bool) -> dict[str, Any] | str:
    opened = group.opened
    assert opened.assessment is not None
    verdicts = sorted({label.verdict for label in group.labels}, key=list(AnswerabilityVerdict).index)
    labels = {DATASET_LABEL[verdict] for verdict in verdicts}
    if len(labels) > 1:
        said = ", ".join(f"{label.reviewer}: {label.verdict.value}" for label in group.labels)
        return f"the reviewers disagree ({said}); settle it (relabel) to export it"
    bundle, file = opened.bundle, opened.bundle_file
    if bundle is None and bundles is not None:
        bundle, file = bundles.find(opened.assessment.context_sha256) or (None, None)
    if bundle is None and opened.missing is not None:
        return f"its bundle was not found ({opened.missing}): pass the bundle's file or folder (--bundles)"
    if bundle is None:
        return ("its bundle was not found (a stored run keeps its context, not its bundle): pass the bundle's file "
                "or folder (--bundles)")
    if sha256_text(bundle.exact_context) != opened.assessment.context_sha256:
        return "its bundle does not render the context that was reviewed"
    label = labels.pop()
    case: dict[str, Any] = {"id": f"review-{inputs[:12]}", "question": opened.item.question.strip(),
                            "label": label.value, "question_type": "/".join(verdict.value for verdict in verdicts)}
    case["bundle"] = os.path.relpath(file, out.parent) if by_path and file is not None else bundle.model_dump(
        mode="json")
    if opened.assessment.answer_sha256 is not None:
        if opened.item.answer is None:
            return "it checked a draft answer that was not stored with it"
        case["answer"] = opened.item.answer.strip()
        correct = label is QuestionLabel.ANSWERABLE
        case["answer_label"] = (AnswerLabel.CORRECT if correct else AnswerLabel.INCORRECT).value
    TrialCase.model_validate(case)
    return case


def write_dataset(exported: Exported, out: Path) -> None:
    """The cases as a dataset file: JSON lines for ``.jsonl``, else one JSON list."""
    if out.suffix.lower() == ".jsonl":
        text = "".join(json_line(case) + "\n" for case in exported.cases)
    else:
        text = json.dumps(list(exported.cases), ensure_ascii=False, indent=1) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")


def matched_lines(items: Sequence[Matched]) -> list[str]:
    """One line per label that does not count: who labelled what, and why it is void or unmatched."""
    return [f"{item.standing.value}: {item.label.reviewer} {item.label.verdict.value} "
            f"{item.label.evaluation_id[:12]}…: {item.reason}" for item in items]
