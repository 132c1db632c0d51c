"""``trial-report`` and ``verify`` print and exit exactly as the goldens say (from commit 27e2378's CLI over the
golden runs and the published upstream result; the text reports regenerated when they gained rates over a
stated minimum of samples and grouped errors), and the report's lines.

Regenerate (only when the printed report changes on purpose): ``python -m tests.trials.test_report``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens.cli import main
from answerlens.trials.reader import read_trial
from answerlens.trials.report import report_lines
from tests.paths import FIXTURES, PRME

UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
EXPECTED = json.loads((FIXTURES / "trials" / "reports.json").read_text(encoding="utf-8"))


def golden_result(name: str, folder: Path) -> Path:
    """The golden run's result.json, with a real time where the golden holds a placeholder."""
    result = json.loads((FIXTURES / "trials" / f"{name}-run.json").read_text(encoding="utf-8"))["result"]
    result["finished_at"] = "2026-01-01T00:00:00+00:00"
    path = folder / name / "result.json"
    path.parent.mkdir()
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("command", list(EXPECTED))
def test_cli_output_and_exit_code_are_unchanged(command: str, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    verb, name, *flags = command.split()
    path = UPSTREAM if name == "upstream" else golden_result(name, tmp_path)
    code = main([verb, str(path), *flags])
    out = capsys.readouterr().out.replace(str(path), "<source>")
    assert (code, out) == (EXPECTED[command]["exit"], EXPECTED[command]["stdout"])


def test_report_lines_name_their_source_and_say_whether_the_published_summary_is_reproduced() -> None:
    lines = report_lines(read_trial(UPSTREAM), "beam.json")
    assert lines[0] == "beam.json  (beam-answerability-execution)"
    assert "summary recomputed from the samples matches the published summary" in lines
    assert lines[lines.index("gates: FAILED") + 1].startswith("  FAIL  unsafe_full_answer_count_max")


if __name__ == "__main__":  # regenerate reports.json from the current CLI
    import contextlib
    import io
    import tempfile

    regenerated = {}
    for golden_command in EXPECTED:
        golden_verb, golden_name, *golden_flags = golden_command.split()
        with tempfile.TemporaryDirectory() as scratch:
            golden_path = UPSTREAM if golden_name == "upstream" else golden_result(golden_name, Path(scratch))
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exit_code = main([golden_verb, str(golden_path), *golden_flags])
        regenerated[golden_command] = {"exit": exit_code,
                                       "stdout": printed.getvalue().replace(str(golden_path), "<source>")}
    (FIXTURES / "trials" / "reports.json").write_text(json.dumps(regenerated, indent=2, ensure_ascii=False) + "\n",
                                                      encoding="utf-8")
    print(f"wrote {FIXTURES / 'trials' / 'reports.json'}")
