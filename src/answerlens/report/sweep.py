"""The sweep report: what was swept, the grid coloured by action with its legend, what changed and why, and
every cell's numbers and requirements. Rendered from the sweep's recorded data alone (``sweeps.reader``)."""

from __future__ import annotations

from collections.abc import Sequence

from answerlens.html.markup import caveats_html, notice_html
from answerlens.html.sweep_grid import cells_table, changes_html, grid_html, requirement_tables
from answerlens.report.page import header, heading, key_values, muted, section
from answerlens.sweeps.reader import Recorded
from answerlens.sweeps.result import SweepResult
from answerlens.sweeps.view import failure_lines, labels_of


def title(result: SweepResult, source: str | None) -> str:
    return f"answerlens · sweep · {source or 'packing sweep'}"


def sheets(recorded: Recorded, result: SweepResult, source: str | None, problems: Sequence[str],
           generator: str, caveats: Sequence[str] = ()) -> list[str]:
    """Printed pages: the sweep, its grid and changes; every cell in detail."""
    manifest = recorded.manifest
    origin = f" from {source}" if source else ""
    top = header("answerlens report: packing sweep", f"Made with {generator}{origin}.",
                 [("sweep_sha256", manifest.sweep_sha256), ("bundle_sha256", manifest.bundle_sha256),
                  ("configuration_sha256", manifest.configuration_sha256)],
                 "This file carries the sweep (its bundle and every sample with its assessment) as data. Checking "
                 "the file cuts every cell again, re-derives every assessment over its cell's context, recomputes "
                 "the grid and the changes, and confirms that this page is exactly what they render to:")
    if problems:
        check = notice_html("error", f"The embedded sweep does not verify ({len(problems)} problem(s))",
                            remedy="do not rely on this report; re-create it from the sweep folder",
                            code="\n".join(problems))
    else:
        check = notice_html("ok", "The embedded sweep verifies", f"{len(result.samples)} samples re-derived over "
                            "their cells' contexts; grid and changes recomputed from them.")
    config = manifest.configuration.public_dump()
    facts = [("question", manifest.question), ("draft answer", manifest.answer), ("bundle", manifest.bundle),
             ("provider", config.get("provider")), ("model", config.get("model")), ("repeats", manifest.repeats),
             ("cells", len(result.cells)), ("samples", len(result.samples)),
             ("prompt", f"{manifest.prompt_version} ({manifest.prompt_sha256[:12]}…)")]
    failed = failure_lines(result)
    failures = notice_html("warning", failed[0], items=[line.strip() for line in failed[1:]]) if failed else ""
    first = "\n".join([top, check, caveats_html(caveats), failures,
                       section("sweep", "What was swept", key_values(facts)),
                       section("grid", "Grid: formats × budgets, coloured by action", grid_html(result),
                               muted("A budget keeps records in the bundle's packed order while the re-rendered "
                                     "context fits, tokens counted as PRME counts (cl100k_base); a percentage is of "
                                     "the packed context's tokens.")),
                       section("changes", "What changed", changes_html(result, labels_of(recorded.bundle)))])
    return [first, "\n".join([_details(result), _requirements(result)])]


def _details(result: SweepResult) -> str:
    return section("cells", "Every cell", cells_table(result))


def _requirements(result: SweepResult) -> str:
    parts = [part for setting, table in requirement_tables(result) for part in (heading(setting), table)]
    return section("requirements", "Requirements by cell (over repeats)", *parts) if parts else ""
