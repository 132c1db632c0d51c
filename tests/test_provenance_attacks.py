"""Where a reply came from cannot be laundered or relabelled: a recording made from a forced or unbound run keeps
the original binding and marks through every round trip, and ``provenance_sha256`` covers the fields that say
where the reply came from, so relabelling them fails verify (JSON, command line and report)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from answerlens import AnswerabilityAssessment, verify_assessment
from answerlens.cli import main
from answerlens.recording import recording_from_text
from answerlens.samples import load_sample
from answerlens.verification.report import assessment_report, verify_report
from tests.paths import PRME, SAMPLES

SAMPLE = SAMPLES / "speech_act_eslint.json"
OTHER = "Which formatter did I adopt?"
BUNDLE = PRME / "bundles" / "bundle_reader_citations.json"
RAW = PRME / "assessments" / "raw_output_reader_openai.json"
QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assessed(capsys: Any, tmp_path: Path, name: str, *argv: str) -> Path:
    code, out, err = run(capsys, "assess", *argv, "--json")
    assert code == 0, err
    path = tmp_path / name
    path.write_text(out)
    return path


def forced_run(capsys: Any, tmp_path: Path) -> Path:
    return assessed(capsys, tmp_path, "forced.json", str(SAMPLE), "-q", OTHER, "--provider", "replay",
                    "--force-replay")


def test_a_forced_output_replayed_again_is_refused_not_laundered(capsys: Any, tmp_path: Path) -> None:
    forced = forced_run(capsys, tmp_path)
    code, out, err = run(capsys, "assess", str(SAMPLE), "-q", OTHER, "--provider", "replay",
                         "--replay-file", str(forced), "--json")
    assert code == 2 and out == "" and "answered another question" in err


def test_a_forced_output_forced_again_stays_forced_through_report_and_verify(capsys: Any, tmp_path: Path) -> None:
    forced = forced_run(capsys, tmp_path)
    again = assessed(capsys, tmp_path, "again.json", str(SAMPLE), "-q", OTHER, "--provider", "replay",
                     "--replay-file", str(forced), "--force-replay")
    recording = json.loads(again.read_text())["provider_metadata"]["recording"]
    assert (recording["match"], recording["forced"]) == ("forced", ["question"])
    code, out, _ = run(capsys, "verify", str(again))
    assert code == 0 and "note: FORCED replay" in out
    sample = load_sample(SAMPLE)
    html = assessment_report(json.loads(again.read_text()), question=OTHER, context=sample.load().exact_context)
    assert "FORCED replay" in html and verify_report(html).ok
    report = tmp_path / "again.html"
    report.write_text(html)
    code, out, _ = run(capsys, "verify", str(report))
    assert code == 0 and "note: FORCED replay: recorded for another question" in out


def test_an_unbound_output_replayed_stays_unbound(capsys: Any, tmp_path: Path) -> None:
    unbound = assessed(capsys, tmp_path, "unbound.json", str(BUNDLE), "-q", QUESTION, "--provider", "replay",
                       "--replay-file", str(RAW))
    again = assessed(capsys, tmp_path, "again.json", str(BUNDLE), "-q", QUESTION, "--provider", "replay",
                     "--replay-file", str(unbound))
    assert json.loads(again.read_text())["provider_metadata"]["recording"]["match"] == "unbound"
    code, out, _ = run(capsys, "verify", str(again))
    assert code == 0 and "note: unbound recording" in out


def test_the_apps_download_recording_keeps_the_original_binding(capsys: Any, tmp_path: Path) -> None:
    from answerlens.ui.common.exports import recording_json

    forced = AnswerabilityAssessment.model_validate_json(forced_run(capsys, tmp_path).read_text())
    download = recording_json(forced, OTHER, None)
    assert download is not None
    written = json.loads(download.data)
    sample = load_sample(SAMPLE)
    original = sample.recording()
    assert original is not None and original.ref.binding is not None
    assert written["binding"] == original.ref.binding.model_dump(mode="json")
    assert written["question"] is None  # the forced run's question is not the one the reply answered
    replayed_path = tmp_path / "recording.json"
    replayed_path.write_text(download.data)
    code, _, err = run(capsys, "assess", str(SAMPLE), "-q", OTHER, "--provider", "replay",
                       "--replay-file", str(replayed_path))
    assert code == 2 and "answered another question" in err


def test_the_apps_download_recording_of_an_unbound_run_is_unbound(capsys: Any, tmp_path: Path) -> None:
    from answerlens.ui.common.exports import recording_json

    unbound = assessed(capsys, tmp_path, "unbound.json", str(BUNDLE), "-q", QUESTION, "--provider", "replay",
                       "--replay-file", str(RAW))
    download = recording_json(AnswerabilityAssessment.model_validate_json(unbound.read_text()), QUESTION, None)
    assert download is not None and json.loads(download.data)["binding"] is None
    assert recording_from_text(download.data).ref.binding is None


# --- provenance_sha256 ------------------------------------------------------------------------------------

LIVE = {"engine": "openai", "base_url": "https://api.openai.com/v1", "origin": "live", "recording": None,
        "recorded": False}


def relabel(data: dict[str, Any]) -> None:
    """A forced replay dressed up as a live call to a named server (assessment_sha256 and evaluation_id kept)."""
    data.update(provider="openai", model="gpt-4o")
    data["provider_metadata"].update(LIVE)


@pytest.mark.parametrize("change", [
    pytest.param(relabel, id="relabelled_live"),
    pytest.param(lambda d: d["provider_metadata"].update(base_url="http://10.0.0.9:11434/v1"), id="base_url"),
    pytest.param(lambda d: d["provider_metadata"]["recording"].update(author="gpt-4o"), id="author"),
    pytest.param(lambda d: d["provider_metadata"]["recording"].update(source="other.json"), id="source"),
    pytest.param(lambda d: d.update(model="llama3"), id="model"),
])
def test_relabelled_provenance_fails_verify(capsys: Any, tmp_path: Path, change: Any) -> None:
    data = json.loads(forced_run(capsys, tmp_path).read_text())
    assert data["provenance_sha256"] and verify_assessment(data).ok
    edited = copy.deepcopy(data)
    change(edited)
    problems = verify_assessment(edited).problems
    assert any(problem.startswith("provenance_sha256") for problem in problems), problems
    assert edited["assessment_sha256"] == data["assessment_sha256"]
    path = tmp_path / "relabelled.json"
    path.write_text(json.dumps(edited))
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 1 and "provenance_sha256" in out


def test_a_removed_provenance_hash_is_said_plainly(capsys: Any, tmp_path: Path) -> None:
    """Older results carry no provenance_sha256 and must still verify; verify says their provenance is covered
    by no hash (so removing it together with a relabel is not silent)."""
    data = json.loads(forced_run(capsys, tmp_path).read_text())
    relabel(data)
    data["model_called"] = True  # a careful forger: a hand-written replay records no model call
    data.pop("provenance_sha256")
    path = tmp_path / "stripped.json"
    path.write_text(json.dumps(data))
    code, out, err = run(capsys, "verify", str(path))
    assert code == 0 and "1 of 1 assessment(s) carry no provenance_sha256" in err


def test_a_relabelled_report_fails_verify(capsys: Any, tmp_path: Path) -> None:
    from tests.report.builders import with_data

    data = json.loads(forced_run(capsys, tmp_path).read_text())
    html = assessment_report(data, question=OTHER, context=load_sample(SAMPLE).load().exact_context)
    assert verify_report(html).ok

    def change(raw: dict[str, Any]) -> None:
        relabel(raw["report"]["document"])

    check = verify_report(with_data(html, change))
    assert any(problem.startswith("provenance_sha256") for problem in check.problems), check.problems


def test_the_report_and_the_printout_say_which_hash_covers_what(capsys: Any, tmp_path: Path) -> None:
    from answerlens.audit import HASH_COVERAGE

    data = json.loads(forced_run(capsys, tmp_path).read_text())
    html = assessment_report(data, question=OTHER, context=load_sample(SAMPLE).load().exact_context)
    assert 'id="hash-coverage"' in html
    for name in ("evaluation_id", "assessment_sha256", "provenance_sha256"):
        assert name in HASH_COVERAGE and f"<code>{name}</code>" in html
    code, out, _ = run(capsys, "assess", str(SAMPLE), "--provider", "replay")
    assert code == 0 and "provenance_sha256" in out and "covers" in out


def test_parity_hashes_are_unchanged_by_provenance(capsys: Any, tmp_path: Path) -> None:
    data = json.loads(forced_run(capsys, tmp_path).read_text())
    prme = AnswerabilityAssessment.model_validate(data).prme_dict()
    assert "provenance_sha256" not in prme


@pytest.mark.parametrize("strip_hash", [pytest.param(False, id="hash_kept"), pytest.param(True, id="hash_removed")])
def test_a_forced_output_relabelled_live_does_not_replay_as_bound(capsys: Any, tmp_path: Path,
                                                                   strip_hash: bool) -> None:
    """The forced run's recording removed from its JSON (origin set live) before replaying it: refused while the
    provenance hash says otherwise, and never bound once no hash covers where the reply came from."""
    forced = forced_run(capsys, tmp_path)
    data = json.loads(forced.read_text())
    data["provider_metadata"].update(origin="live", recorded=False, recording=None)
    if strip_hash:
        data.pop("provenance_sha256")
    forced.write_text(json.dumps(data))
    code, out, err = run(capsys, "assess", str(SAMPLE), "-q", OTHER, "--provider", "replay",
                         "--replay-file", str(forced), "--json")
    if strip_hash:
        assert code == 0 and json.loads(out)["provider_metadata"]["recording"]["match"] == "unbound"
    else:
        assert code == 2 and "provenance_sha256" in err
