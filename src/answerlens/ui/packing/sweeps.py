"""Sweeps as the Packing page keeps them (pure: no streamlit): one folder per sweep under the app's data folder,
beside the run store, named by the sweep's identity so a deep link (``?sweep=<id>``) reopens it after a restart;
each cell's typical assessment added to the run store so Inspect opens it; exports as CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from answerlens.config import AnswerabilityConfig
from answerlens.errors import RunStoreError
from answerlens.html.provenance import source_label
from answerlens.records import MemoryBundle
from answerlens.run_store import RunStore, data_dir
from answerlens.sweeps import folder
from answerlens.sweeps.cut import contexts_of
from answerlens.sweeps.reader import Recorded, read_recorded, recompute
from answerlens.sweeps.result import SweepManifest, SweepResult
from answerlens.sweeps.run import manifest_for
from answerlens.sweeps.settings import grid
from answerlens.verification.samples import SampleCount
from answerlens.verification.sweep import check

SWEEPS = "sweeps"
_ID = re.compile(r"[0-9a-f]{12}")
_EXAMPLE = re.compile(r"[a-z][a-z0-9_]{0,60}")
"""A shipped example's name (``sample_bundles/sweeps/<name>``)."""


def sweeps_dir() -> Path:
    return data_dir() / SWEEPS


def sweep_id(manifest: SweepManifest) -> str:
    """One sweep (its manifest: question, draft, bundle, settings, repeats, configuration, prompt, second opinion),
    one id, one folder: the engine refuses a folder of another manifest."""
    assert manifest.manifest_sha256 is not None
    return manifest.manifest_sha256[:12]


@dataclass(frozen=True)
class Plan:
    id: str
    out: Path
    cells: int
    """Cells that will be assessed (a reader without citations, a budget that keeps no record: not)."""
    total_cells: int


def plan(question: str, answer: str | None, bundle: MemoryBundle, config: AnswerabilityConfig,
         formats: Sequence[str], budgets: Sequence[str], repeats: int, name: str, root: Path, *,
         second_opinion: bool = False, top_k: Sequence[str] = (), record_tokens: Sequence[str] = ()) -> Plan:
    """Where the sweep goes and how many calls it makes; ``ValueError`` for bad settings."""
    settings = grid(formats, budgets, top_k, record_tokens)
    manifest = manifest_for(question, answer, bundle, settings, config, repeats, name, second_opinion)
    contexts = contexts_of(bundle, settings)
    ident = sweep_id(manifest)
    return Plan(ident, root / ident, sum(1 for context in contexts if context.assessable), len(contexts))


def parse_budgets(text: str) -> list[str]:
    """``"packed, 75%, 1200"`` -> its budgets (each checked when the grid is built); depths and chunk sizes are
    typed the same way (``"8, 4"``)."""
    return [part.strip() for part in re.split(r"[,\s]+", text) if part.strip()]


@dataclass(frozen=True)
class StoredSweep:
    id: str
    question: str
    bundle: str
    cells: int
    finished: bool
    modified: float


def stored(root: Path, examples: Path | None = None) -> list[StoredSweep]:
    """Every sweep kept under ``root``, newest first, then the shipped examples (folders that are not sweeps
    are skipped)."""
    return _listed(root, _ID) + (_listed(examples, _EXAMPLE) if examples is not None else [])


def _listed(root: Path, names: re.Pattern[str]) -> list[StoredSweep]:
    found = []
    for path in root.glob("*/" + folder.MANIFEST) if root.is_dir() else ():
        if not names.fullmatch(path.parent.name):
            continue
        try:
            manifest = folder.read_manifest(path.parent)
        except Exception:  # noqa: BLE001 - a damaged folder is left out of the list, never breaks the page
            continue
        found.append(StoredSweep(path.parent.name, manifest.question, manifest.bundle, len(manifest.settings),
                                 (path.parent / folder.RESULT).exists(), path.stat().st_mtime))
    return sorted(found, key=lambda item: item.modified, reverse=True)


def folder_for(root: Path, ident: str, examples: Path | None = None) -> Path | None:
    """The folder of sweep ``ident`` (a stored sweep's id, or a shipped example's name), or None when it is
    malformed or unknown (never a path outside ``root`` and ``examples``)."""
    for base, names in ((root, _ID), (examples, _EXAMPLE)):
        if base is not None and names.fullmatch(ident or "") and (base / ident / folder.MANIFEST).exists():
            return base / ident
    return None


@dataclass(frozen=True)
class Opened:
    recorded: Recorded
    result: SweepResult
    contexts: tuple[str, ...]
    """Each cell's exact context, in cell order."""
    problems: tuple[str, ...] = ()
    """What ``verify`` finds in the folder (the page shows nothing of it as valid when there is any)."""
    samples: SampleCount | None = None


def stamp(path: Path) -> tuple[float, int]:
    """What changes when a sweep folder does: its newest sample or result, and how many samples it holds."""
    files = [path / folder.RESULT, *(path / folder.SAMPLES).glob("*.json")]
    times = [file.stat().st_mtime for file in files if file.exists()]
    return max(times, default=0.0), len(times)


def open_sweep(path: Path) -> Opened:
    """A stored sweep, verified as ``answerlens verify`` verifies it; a stored sweep's folder is also the one its id
    names (the id is its manifest's hash: a folder moved under another sweep's id is not that sweep)."""
    from answerlens.verification.folder import stray_files

    recorded = read_recorded(path)
    checked = check(recorded)
    contexts = recompute(recorded).contexts
    problems = [*checked.problems, *stray_files(path)]
    own = recorded.manifest.manifest_sha256
    if _ID.fullmatch(path.name) and (own is None or own[:12] != path.name):
        problems.append(f"this folder is stored as sweep {path.name}, and its {folder.MANIFEST} is of sweep "
                        f"{(own or 'unrecorded')[:12]}: it is not the sweep the link names")
    return Opened(recorded, checked.result, tuple(context.bundle.exact_context for context in contexts),
                  tuple(problems), checked.samples)


def cell_runs(opened: Opened, runs: RunStore, title: str) -> tuple[dict[int, str], RunStoreError | None]:
    """Each assessed cell's first sample with the cell's most frequent action, kept in the run store (added when
    missing) so Inspect opens it with its context: cell index -> ``evaluation_id``; and the store's failure, if it
    failed. A store that cannot be used costs the cells their links, never the grid: one that fails as a whole is
    not asked again, one that cannot keep a run (full, too big) still links the cells it holds."""
    result, manifest = opened.result, opened.recorded.manifest
    links: dict[int, str] = {}
    problem: RunStoreError | None = None
    for index, cell in enumerate(result.cells):
        sample = next((item for item in result.samples_of(index) if item.assessment is not None
                       and item.assessment.recommended_action == cell.action), None)
        if sample is None or sample.assessment is None:
            continue
        assessment = sample.assessment
        try:
            if runs.by_id(assessment.evaluation_id) is None:
                runs.add(assessment=assessment, question=manifest.question, answer=manifest.answer,
                         context=opened.contexts[index], source=f"{title} · sweep {cell.key}",
                         label=f"{source_label(assessment)[0]} (sweep cell {cell.key})",
                         note=f"a cell of the packing sweep of {title}: {cell.key}", seconds=sample.latency_ms / 1000)
        except RunStoreError as exc:
            problem = problem or exc
            if exc.whole_file:
                break
            continue
        links[index] = assessment.evaluation_id
    return links, problem


CSV_COLUMNS = ("format", "budget", "top_k", "record_tokens", "budget_tokens", "tokens_used", "records_kept",
               "records_cut", "records_shortened", "assessable", "reason", "action", "actions", "verdicts", "stable",
               "errors", "median_latency_ms", "second_opinion_flags")


def csv_text(result: SweepResult) -> str:
    """One row per cell."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for cell in result.cells:
        writer.writerow([cell.format, cell.budget, _blank(cell.top_k), _blank(cell.record_tokens), cell.budget_tokens,
                         cell.tokens_used, len(cell.records_kept), len(cell.records_cut), len(cell.records_shortened),
                         cell.assessable, cell.reason or "",
                         cell.action.value if cell.action else "", json.dumps(cell.actions), json.dumps(cell.verdicts),
                         cell.stable, cell.errors, cell.latency_ms if cell.latency_ms is not None else "",
                         json.dumps(cell.flags) if cell.flags is not None else ""])
    return out.getvalue()


def _blank(value: int | None) -> int | str:
    return "" if value is None else value
