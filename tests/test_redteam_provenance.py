"""Adversarial variants of the replay-mark and provenance attacks, on other samples and other fields, with
``provenance_sha256`` recomputed by the attacker wherever that is the attack."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from answerlens import verify_assessment
from answerlens.audit import provenance, provenance_sha256
from answerlens.cli import main
from answerlens.samples import load_sample
from answerlens.verification.report import assessment_report, verify_report
from tests.paths import SAMPLES

CASES = [("auditable_uuid_citations", "Which database is current?"),
         ("compact_citation_errors", "What changed last week?"),
         ("conflicting_deploy_freeze", "When does the freeze end?")]


def run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assess(capsys: Any, path: Path, *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, "assess", *argv, "--provider", "replay", "--json")
    assert code == 0, err
    path.write_text(out)
    return json.loads(out)


def rehash_provenance(data: dict[str, Any]) -> dict[str, Any]:
    data["provenance_sha256"] = provenance_sha256(provenance(data))
    return data


def recording(data: dict[str, Any]) -> dict[str, Any]:
    return data["provider_metadata"]["recording"]


def contradictions() -> dict[str, Any]:
    return {
        "forced_list_emptied_match_kept": lambda d: recording(d).update(forced=[]),
        "forced_list_emptied_match_bound": lambda d: recording(d).update(forced=[], match="bound"),
        "match_unbound_binding_kept": lambda d: recording(d).update(forced=[], match="unbound"),
        "binding_removed_match_kept": lambda d: recording(d).update(binding=None),
        "forced_field_swapped": lambda d: recording(d).update(forced=["answer"]),
        "forced_list_grown": lambda d: recording(d).update(forced=["question", "context"]),
        "origin_live_recording_kept": lambda d: d["provider_metadata"].update(origin="live", recorded=False),
        "provider_replay_origin_live": lambda d: d["provider_metadata"].update(origin="live", recorded=False,
                                                                               recording=None),
    }


@pytest.mark.parametrize(("name", "other"), CASES)
@pytest.mark.parametrize("attack", list(contradictions()))
def test_a_forced_replay_cannot_lose_its_mark(capsys: Any, tmp_path: Path, name: str, other: str,
                                             attack: str) -> None:
    """Every contradiction in a forced replay's marks is refused even with provenance_sha256 recomputed."""
    forced = assess(capsys, tmp_path / "forced.json", str(SAMPLES / f"{name}.json"), "-q", other, "--force-replay")
    assert recording(forced)["match"] == "forced" and verify_assessment(forced).ok
    data = copy.deepcopy(forced)
    contradictions()[attack](data)
    report = verify_assessment(rehash_provenance(data))
    assert not report.ok, attack
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    assert run(capsys, "verify", str(path))[0] == 1
    sample = load_sample(SAMPLES / f"{name}.json")
    try:
        html = assessment_report(data, question=other, context=sample.load().exact_context)
    except Exception:  # noqa: BLE001  (refused to render at all: also not laundered)
        return
    assert not verify_report(html).ok


@pytest.mark.parametrize(("name", "other"), CASES)
def test_a_forced_replay_stays_forced_through_every_round_trip(capsys: Any, tmp_path: Path, name: str,
                                                                other: str) -> None:
    source = str(SAMPLES / f"{name}.json")
    assess(capsys, tmp_path / "forced.json", source, "-q", other, "--force-replay")
    code, out, err = run(capsys, "assess", source, "-q", other, "--provider", "replay", "--replay-file",
                         str(tmp_path / "forced.json"), "--json")
    assert code == 2 and out == "", "replaying a forced output as bound must be refused"
    again = assess(capsys, tmp_path / "again.json", source, "-q", other, "--replay-file",
                   str(tmp_path / "forced.json"), "--force-replay")
    assert recording(again)["match"] == "forced" and recording(again)["forced"] == ["question"]
    code, out, _ = run(capsys, "verify", str(tmp_path / "again.json"))
    assert code == 0 and "FORCED" in out
    html = assessment_report(again, question=other, context=load_sample(SAMPLES / source).load().exact_context)
    check = verify_report(html)
    assert check.ok and any("FORCED" in note for note in check.notes)
    assert "FORCED" in html


@pytest.mark.parametrize(("name", "other"), CASES)
def test_a_bare_reply_stays_unbound_through_every_round_trip(capsys: Any, tmp_path: Path, name: str,
                                                             other: str) -> None:
    sample = load_sample(SAMPLES / f"{name}.json")
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(sample.recorded_reply))
    source = str(SAMPLES / f"{name}.json")
    first = assess(capsys, tmp_path / "first.json", source, "-q", other, "--replay-file", str(bare))
    assert recording(first)["match"] == "unbound"
    second = assess(capsys, tmp_path / "second.json", source, "-q", other, "--replay-file",
                    str(tmp_path / "first.json"))
    assert recording(second)["match"] == "unbound"
    code, out, _ = run(capsys, "verify", str(tmp_path / "second.json"))
    assert code == 0 and "unbound" in out.lower(), out


@pytest.mark.parametrize(("name", "other"), CASES)
@pytest.mark.parametrize("relabel", [False, True])
def test_the_apps_download_of_a_forced_run_keeps_its_original_binding(capsys: Any, tmp_path: Path, name: str,
                                                                      other: str, relabel: bool) -> None:
    """The app's Download recording of a forced run (also one relabelled as a model's, hash recomputed) replays
    only for the inputs the reply answered."""
    from answerlens import AnswerabilityAssessment
    from answerlens.ui.common.exports import recording_json

    source = str(SAMPLES / f"{name}.json")
    data = assess(capsys, tmp_path / "forced.json", source, "-q", other, "--force-replay")
    if relabel:
        recording(data)["author"] = "gpt-4o"
        data["model"] = "gpt-4o"
        rehash_provenance(data)
    download = recording_json(AnswerabilityAssessment.model_validate(data), other, None)
    assert download is not None
    written = json.loads(download.data)
    assert written["binding"] == recording(data)["binding"] and written["question"] is None
    path = tmp_path / "recording.json"
    path.write_text(download.data)
    code, out, err = run(capsys, "assess", source, "-q", other, "--provider", "replay", "--replay-file", str(path))
    assert code == 2 and out == "" and "answered another question" in err


@pytest.mark.parametrize(("name", "other"), CASES)
def test_a_consistent_relabel_passes_and_the_readme_says_it_can(capsys: Any, tmp_path: Path, name: str,
                                                                 other: str) -> None:
    """The documented limit: a relabel with provenance_sha256 recomputed by the public formula is a consistent
    forgery verify cannot catch (here: a bound replay relabelled as a live call to a named server); the README's
    Integrity section says so."""
    from tests.paths import REPO

    data = assess(capsys, tmp_path / "bound.json", str(SAMPLES / f"{name}.json"))
    data.update(provider="openai", model="gpt-4o", model_called=True)
    data["provider_metadata"].update(engine="openai", base_url="https://api.openai.com/v1", origin="live",
                                     recorded=False, recording=None)
    assert verify_assessment(rehash_provenance(data)).ok
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "relabel it and recompute `provenance_sha256`" in readme
    assert "It cannot prove that a live reply came from the server or model named" in readme
