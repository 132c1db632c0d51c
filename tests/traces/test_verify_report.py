"""An imported sample's assessment says where its evidence came from everywhere it goes: the command's printout, verify
(which tells it from a hand-made sample's, and checks its import block against the sample), and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens.cli import main
from tests.context_server import context_server
from tests.traces.pipeline import otlp_json, provider, run_pipeline

REQUIREMENTS = {"Which database does the dashboard API use?": "Postgres 16"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path, dict]:
    (tmp_path / "spans.json").write_text(json.dumps(otlp_json(run_pipeline(provider("rag")).spans)))
    assert run(capsys, "import-trace", str(tmp_path / "spans.json"), "-o", str(tmp_path / "sample.json"))[0] == 0
    sample = tmp_path / "sample.json"
    with context_server(REQUIREMENTS) as model:
        base = ["assess", str(sample), "--provider", "openai", "--base-url", model.base_url, "--model", "oracle"]
        code, printed, err = run(capsys, *base)
        assert code == 0, err
        code, out, err = run(capsys, *base, "--json")
    assert code == 0, err
    (tmp_path / "assessment.json").write_text(out)
    block = json.loads(out)["import"]
    assert f"evidence from: an OTLP JSON file, project 'rag': trace {block['trace_id']}, span {block['span_id']}, " \
           "documents 0, 1, 2" in printed
    return sample, tmp_path / "assessment.json", block


def test_verify_tells_an_imported_assessment_from_a_hand_made_one(
        imported: tuple[Path, Path, dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample, assessment, block = imported
    code, out, _ = run(capsys, "verify", str(assessment), "--bundle", str(sample))
    assert code == 0, out
    assert f"assessment: note: evidence imported from an OTLP JSON file, project 'rag': trace {block['trace_id']}" \
        in out and out.strip().endswith("ok (1 assessment verified)")
    hand_made = {k: v for k, v in json.loads(assessment.read_text()).items() if k != "import"}
    (tmp_path / "hand.json").write_text(json.dumps(hand_made))
    code, out, _ = run(capsys, "verify", str(tmp_path / "hand.json"))
    assert code == 0 and "evidence imported" not in out
    code, out, _ = run(capsys, "verify", str(tmp_path / "hand.json"), "--bundle", str(sample))
    assert code == 1 and "import: missing, but the sample given was imported from a trace" in out


def test_verify_catches_an_import_block_that_was_changed(
        imported: tuple[Path, Path, dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample, assessment, block = imported
    data = json.loads(assessment.read_text())
    data["import"]["span_id"] = "0" * 16
    (tmp_path / "moved.json").write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify", str(tmp_path / "moved.json"), "--bundle", str(sample))
    assert code == 1 and "import: differs from the sample's (span_id)" in out
    data["import"] = {**block, "record_ids": block["record_ids"][::-1]}
    (tmp_path / "swapped.json").write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify", str(tmp_path / "swapped.json"))
    assert code == 0  # without the sample, every cited memory is still one of the span's documents
    data["import"] = {**block, "record_ids": block["record_ids"][1:], "positions": block["positions"][1:]}
    (tmp_path / "short.json").write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify", str(tmp_path / "short.json"))
    assert code == 1 and "is none of the imported span's documents (import.record_ids)" in out


def test_the_report_shows_where_the_evidence_came_from_and_verifies(
        imported: tuple[Path, Path, dict], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample, assessment, block = imported
    code, _, err = run(capsys, "report", str(assessment), "--bundle", str(sample), "-o", str(tmp_path / "r.html"))
    assert code == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "evidence from" in page and block["span_id"] in page and block["span_sha256"] in page
    code, out, _ = run(capsys, "verify", str(tmp_path / "r.html"))
    assert code == 0, out
