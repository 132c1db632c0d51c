"""``answerlens sweep``, ``verify DIR`` and ``report DIR`` against a context-dependent loopback server."""

import json
from pathlib import Path

import pytest

from answerlens.cli import main
from answerlens.cli.sweep import FORMAT_CHOICES
from answerlens.sweeps.settings import SweepFormat
from tests.context_server import context_server
from tests.oracle_server import oracle_server
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data


@pytest.fixture
def bundle_file(tmp_path: Path) -> Path:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle_data()))
    return path


def sweep_args(bundle_file: Path, base_url: str, out: Path, *extra: str) -> list[str]:
    return ["sweep", str(bundle_file), "-q", QUESTION, "--provider", "openai", "--model", "context-oracle",
            "--base-url", base_url, "--out", str(out), "--repeats", "2", *extra]


def test_format_choices_are_the_sweep_formats() -> None:
    assert FORMAT_CHOICES == tuple(item.value for item in SweepFormat)


def test_sweep_prints_the_grid_and_the_change_then_verify_and_report_work(
        bundle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        code = main(sweep_args(bundle_file, server.base_url, out, "--format", "compact", "--format", "reader_plain",
                               "--budget", "packed", "--budget", "90%"))
    printed = capsys.readouterr().out
    assert code == 0
    lines = printed.splitlines()
    assert lines[0].split() == ["format", "packed", "90%"]
    assert lines[1].startswith("compact") and "answer 2/2 · 4/4 records" in lines[1]
    assert "answer partially 2/2 · " in lines[1]
    assert lines[2].startswith("reader, citations off") and lines[2].count("not assessed") == 2
    assert "not assessed: reader with citations off" in printed
    change = next(line.strip() for line in lines if line.strip().startswith("compact: as packed -> 90% ("))
    assert ": answer -> answer partially; requirement 'migration owner' supported -> unsupported; the cut removed m" \
        in change and "which the fuller setting's accepted citations used" in change
    assert (out / "result.json").exists()

    assert main(["verify", str(out)]) == 0
    assert "ok (sweep: 4 samples re-derived, summary recomputed; 4 of 4 samples)" in capsys.readouterr().out
    report = tmp_path / "sweep.html"
    assert main(["report", str(out), "-o", str(report)]) == 0
    html = report.read_text()
    assert 'data-report="sweep"' in html and 'data-legend="sweep"' in html
    assert 'data-format="compact" data-budget="packed" data-action="answer"' in html
    assert main(["verify", str(report)]) == 0
    report.write_text(html.replace("answer 2/2", "abstain 2/2", 1))
    assert main(["verify", str(report)]) == 1


def test_an_edited_sample_fails_verify(bundle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep"
    with context_server(REQUIREMENTS) as server:
        assert main(sweep_args(bundle_file, server.base_url, out, "--format", "auditable")) == 0
    sample = sorted((out / "samples").glob("*.json"))[0]
    data = json.loads(sample.read_text())
    data["assessment"]["verdict"] = "insufficient"
    sample.write_text(json.dumps(data, indent=2))
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    assert "verdict" in capsys.readouterr().out


def test_bad_settings_are_bad_input(bundle_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(sweep_args(bundle_file, "http://127.0.0.1:9/v1", tmp_path / "s", "--budget", "half")) == 2
    assert "expected 'packed', a whole number of tokens" in capsys.readouterr().err
    assert main(sweep_args(bundle_file, "http://127.0.0.1:9/v1", tmp_path / "s", "--format", "reader")) == 2


def test_a_provider_failure_stops_early_with_the_trial_exit_code(bundle_file: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    with oracle_server({QUESTION: 500}) as server:
        code = main(sweep_args(bundle_file, server.base_url, tmp_path / "s", "--no-preflight", "--early-stop", "2",
                               "--concurrency", "1"))
    assert code == 3
    assert "stopped early" in capsys.readouterr().err
