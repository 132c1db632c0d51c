"""The table ``make bench`` prints from its results file: every section is drawn (a section that returned
nothing once crashed the run after the figures were written)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _report_module():
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "benchmarks" / "report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_results_print_every_section() -> None:
    results = json.loads((ROOT / "benchmarks" / "results" / "latest.json").read_text(encoding="utf-8"))
    text = _report_module().table(results)
    for heading in ("1. Per-assessment overhead", "2. Trial throughput", "2b. `answerlens trial`", "2c. Start times",
                    "3. Render + validate", "4. Peak RSS", "4b. Packing sweep", "5. Claim verification", "6. Embedded model"):
        assert heading in text


def test_a_reply_row_is_compared_with_the_reply_and_a_skipped_model_is_named() -> None:
    report = _report_module()
    row = {"what": "assess against a 200 MB reply (refused)", "lib": "answerlens", "baseline_mib": 39.0,
           "peak_mib": 51.0, "seconds": 0.4, "result": "AnswerabilityError: too big", "bundle_bytes": 838_098,
           "input_bytes": 200 * 2**20}
    assert report._ratio(row) == "0.06× of the 200 MiB reply"
    assert report.embedded_table({"skipped": "no runtime"}) == ["6. Embedded model: skipped (no runtime)", ""]
    bundle = {key: value for key, value in row.items() if key != "input_bytes"} | {"bundle_bytes": 6 * 2**20}
    assert report._ratio(bundle) == "2.0×"


def test_the_committed_tracing_figures_print_their_section() -> None:
    results = json.loads((ROOT / "benchmarks" / "results" / "tracing.json").read_text(encoding="utf-8"))
    text = _report_module().table(results)
    assert "7. Tracing" in text and "OpenTelemetry modules imported by `answerlens assess`: none" in text


def test_the_page_load_section_prints_each_page_against_its_targets() -> None:
    report = _report_module()
    pages = {"viewport": "1280x900", "warm_runs": 5, "load_average": "0.5 0.4 0.3", "pages": {
        "inspect": {"cold_s": 2.4, "cold_script_s": 1.4, "warm_median_s": 1.2, "warm_max_s": 1.4,
                    "warm_script_median_s": 0.5},
        "trials": {"cold_s": 5.9, "cold_script_s": 4.0, "warm_median_s": 2.6, "warm_max_s": 3.6,
                   "warm_script_median_s": 1.3}}}
    text = "\n".join(report.pages_table(pages))
    assert text.startswith("8. Page load in headless Chromium at 1280x900")
    inspect, trials = [line for line in text.splitlines() if line.startswith(("| inspect", "| trials"))]
    assert inspect.endswith("| ok |") and trials.endswith("| MISSED |")
    assert report.pages_table({"skipped": "no Chromium"}) == ["8. Page load: skipped (no Chromium)", ""]


def test_the_sweep_section_shows_the_floor_and_judges_the_sweeps_own_time_above_it() -> None:
    report = _report_module()
    over = {"cells": 8, "calls": 24, "assessed_cells": 8, "concurrency": 4, "delay_s": 0.2, "records": 40,
            "ideal_s": 1.2, "seconds": 1.265, "floor_s": 1.26, "overhead_fraction": 0.051, "fractions": [0.051],
            "own_fraction": 0.004, "own_fractions": [0.004], "cpu_ms_per_call": 3.1, "tokenizer_load_s": 0.09,
            "http_stack_load_s": 0.03}
    memory = {"records": 2000, "bundle_bytes": 3 * 2**20, "cells": 6, "peak_mib": 104.0, "baseline_mib": 42.0,
              "seconds": 0.5, "records_kept": [2000, 1000]}
    row = next(line for line in report.sweep_table({"overhead": over, "memory": memory}) if line.startswith("| 1.20"))
    assert "| 1.26 |" in row and "**5.1%**" in row and "0.4%" in row and row.endswith("| ok |")
    slow = {**over, "own_fraction": 0.06, "own_fractions": [0.06]}
    row = next(line for line in report.sweep_table({"overhead": slow, "memory": memory}) if line.startswith("| 1.20"))
    assert row.endswith("| MISSED |")


def test_the_committed_embedded_sweep_figures_print_their_section() -> None:
    import json

    from tests.paths import REPO

    report = _report_module()
    found = json.loads((REPO / "benchmarks" / "results" / "embedded-sweep.json").read_text())
    lines = report.embedded_sweep_table(found)
    assert lines[0].startswith("6b. Sweep on the embedded model")
    assert any("defaults (fitted)" in line and "| none |" in line for line in lines)
    assert any("old defaults" in line and "timeout 4" in line for line in lines)
    assert report.embedded_sweep_table({"skipped": "no runtime"})[0].endswith("skipped (no runtime)")
