"""What can be reviewed, and what a label is worth: the stored runs of the run store, a trial's samples, or a sweep's
cells, each opened (and verified) before it is shown; and every label matched to the thing it was given for.

A label counts only when the thing it names is still there with the same ``evaluation_id`` and
``assessment_sha256`` and still verifies. Otherwise it is void (its run was assessed again with another output,
or no longer verifies: an edited run) or unmatched (nothing of these inputs in this source), and counted nowhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from answerlens.errors import RunStoreError
from answerlens.review import folders
from answerlens.review.agreement import MIN_LABELS, Agreement, Pair, agreement
from answerlens.review.labels import Label
from answerlens.review.shown import Item, Opened
from answerlens.run_store import RunStore, StoredRun
from answerlens.verdict import AnswerabilityVerdict


class Source(Protocol):
    """Where items come from: ``StoreSource`` or ``FolderSource``."""

    kind: str
    name: str

    def items(self) -> list[Item]: ...

    def open(self, item: Item) -> Opened: ...


class StoreSource:
    """The run store's runs, newest first; each opened (and re-derived) only when shown or matched."""

    kind = "store"

    def __init__(self, runs: RunStore) -> None:
        self.runs = runs
        self.name = str(runs.path)
        self._opened: dict[str, Opened] = {}

    def items(self) -> list[Item]:
        return [_run_item(run) for run in reversed(self.runs.runs())]

    def open(self, item: Item) -> Opened:
        """The run read whole and re-derived; kept for this source's life (a page keeps one per browser session, so
        a reload verifies afresh), and read again once the run is stored again (another ``created``)."""
        key = f"{item.key} {item.evaluation_id} {item.created}"
        if key not in self._opened:
            self._opened[key] = self._open(item)
        return self._opened[key]

    def _open(self, item: Item) -> Opened:
        assert item.number is not None
        try:
            opened = self.runs.open(item.number)
        except RunStoreError as exc:
            return Opened(item, None, None, problems=(exc.detail,))
        except KeyError:
            return Opened(item, None, None, problems=(f"run #{item.number} is no longer stored",))
        if opened.run.evaluation_id != item.evaluation_id:  # the history was cleared and the number reused
            return Opened(item, None, None, problems=(f"run #{item.number} is now another run",))
        return Opened(item, opened.assessment, opened.context, opened.opinion, unchecked=opened.unchecked)


def _run_item(run: StoredRun) -> Item:
    return Item(key=f"run {run.number}", title=f"#{run.number} · {run.verdict} · {' '.join(run.question.split())}",
                question=run.question, answer=run.answer, evaluation_id=run.evaluation_id,
                judge=AnswerabilityVerdict(run.verdict), source=run.label, created=run.created,
                link=f"?run={run.evaluation_id}", number=run.number, bundle=run.source)


class FolderSource:
    """A trial's or a sweep's samples (every assessed one), verified once when the folder is read."""

    def __init__(self, path: Path, *, cwd: Path | None = None, checked: folders.FolderCheck | None = None) -> None:
        checked = checked or folders.check_folder(path, cwd=cwd or Path.cwd())
        self.kind = checked.kind
        self.name = str(path)
        self.problems = checked.problems
        """Problems of the folder as a whole (its summary, a sample file): reported; they void no label."""
        self._opened = {opened.item.key: opened for opened in checked.samples}

    def items(self) -> list[Item]:
        return [opened.item for opened in self._opened.values()]

    def open(self, item: Item) -> Opened:
        return self._opened[item.key]


class Standing(StrEnum):
    """What a label is worth in a source."""

    VALID = "valid"
    VOID = "void"
    """Its run's output differs from what was labelled, or its run no longer verifies."""
    UNMATCHED = "unmatched"
    """Nothing with its ``evaluation_id`` in this source."""


@dataclass(frozen=True)
class Matched:
    """A label and what it matched: for a valid one, the judge's verdict it is compared with."""

    label: Label
    standing: Standing
    reason: str = ""
    judge: AnswerabilityVerdict | None = None
    opened: Opened | None = None


@dataclass(frozen=True)
class Matching:
    """Every label of a source, sorted by standing."""

    matched: tuple[Matched, ...] = field(default_factory=tuple)

    def of(self, standing: Standing) -> list[Matched]:
        return [item for item in self.matched if item.standing is standing]

    @property
    def valid(self) -> list[Matched]:
        return self.of(Standing.VALID)

    @property
    def void(self) -> list[Matched]:
        return self.of(Standing.VOID)

    @property
    def unmatched(self) -> list[Matched]:
        return self.of(Standing.UNMATCHED)


def match(source: Source, labels: Iterable[Label], items: Sequence[Item] | None = None) -> Matching:
    """Each label against the source's items (opened, and so verified, only for the items labels name)."""
    listed = source.items() if items is None else items
    by_id: dict[str, list[Item]] = {}
    for item in listed:
        by_id.setdefault(item.evaluation_id, []).append(item)
    return Matching(tuple(_match_one(source, label, by_id.get(label.evaluation_id, [])) for label in labels))


def _match_one(source: Source, label: Label, candidates: list[Item]) -> Matched:
    if not candidates:
        return Matched(label, Standing.UNMATCHED, f"no {_noun(source)} of these inputs (evaluation_id "
                       f"{label.evaluation_id[:12]}…) in {source.name}")
    same = [item for item in candidates if item.assessment_sha256 in (None, label.assessment_sha256)]
    if not same:
        return Matched(label, Standing.VOID, _differs(candidates[0], label))
    opened = source.open(same[0])
    if opened.assessment is None or opened.problems:
        return Matched(label, Standing.VOID, f"{same[0].key} does not verify: {'; '.join(opened.problems)}",
                       opened=opened)
    if opened.assessment.assessment_sha256 != label.assessment_sha256:
        return Matched(label, Standing.VOID, _differs(same[0], label), opened=opened)
    return Matched(label, Standing.VALID, judge=opened.assessment.verdict, opened=opened)


def _differs(item: Item, label: Label) -> str:
    return (f"{item.key} was assessed again with another output: its assessment_sha256 is not the "
            f"{label.assessment_sha256[:12]}… that was labelled")


def _noun(source: Source) -> str:
    return {"store": "stored run", "trial": "trial sample", "sweep": "sweep sample"}.get(source.kind, "item")


def agreement_of(matching: Matching, *, min_labels: int = MIN_LABELS) -> Agreement:
    """The judge against the valid labels, and people against each other over what several of them labelled."""
    pairs = []
    groups: dict[tuple[str, str], list[tuple[str, AnswerabilityVerdict]]] = {}
    for matched in matching.valid:
        assert matched.judge is not None and matched.opened is not None
        pairs.append(Pair(matched.judge, matched.label.verdict, matched.opened.item.link))
        groups.setdefault(matched.label.shown, []).append((matched.label.reviewer, matched.label.verdict))
    return agreement(pairs, humans=list(groups.values()), min_labels=min_labels)


SQLITE_MAGIC = b"SQLite format 3\x00"


def is_store_file(path: Path) -> bool:
    """Whether ``path`` is an SQLite file (a run store), told from its first bytes."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False
