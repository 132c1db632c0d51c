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
