"""``answerlens assess --second-opinion / --evidence-policy strict / --nli-model-dir`` and ``verify`` of the
printed document: JSON shape, exit codes, and a tampered second opinion caught by field."""

import json
from pathlib import Path

import pytest

from answerlens.cli import main
from tests.claims.tiny_nli import build_model
from tests.paths import SAMPLES

PLAN = str(SAMPLES / "second_opinion_plan_as_fact.json")
TIMELINE = str(SAMPLES / "superseded_database_timeline.json")


@pytest.fixture(autouse=True)
def no_installed_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ANSWERLENS_NLI_MODEL", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assess_json(capsys: pytest.CaptureFixture[str], sample: str, *options: str) -> dict:  # type: ignore[type-arg]
    code, out, err = run(capsys, "assess", sample, "--provider", "replay", "--json", *options)
    assert (code, err) == (0, "")
    return json.loads(out)  # type: ignore[no-any-return]


def test_second_opinion_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    data = assess_json(capsys, TIMELINE, "--second-opinion")
    opinion = data["second_opinion"]
    assert [r["requirement"] for r in opinion["requirements"]] == [r["requirement"] for r in data["requirements"]]
    for item in opinion["requirements"]:
        assert item["flags"] == [] and item["verifier"] is None
        assert set(item["typed_evidence"][0]) >= {"ref", "source_type", "epistemic_type", "lifecycle_state",
                                                  "event_time", "valid_from", "valid_to", "speaker"}
    assert opinion["verifier_note"]["state"] == "unavailable"
    assert opinion["verifier_note"]["message"] == "NLI model not installed"
    assert (data["verdict"], data["recommended_action"]) == ("answerable", "answer")
    assert opinion["policy"] == "standard" and opinion["strict"] is None


def test_flags_are_code_reason_refs(capsys: pytest.CaptureFixture[str]) -> None:
    flags = assess_json(capsys, PLAN, "--second-opinion")["second_opinion"]["requirements"][0]["flags"]
    assert flags == [{"code": "speech_act_mismatch", "refs": ["m1"],
                      "reason": "m1 states a plan, which the requirement does not"}]


def test_strict_prints_the_strict_verdict_and_the_file_verifies(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    default = assess_json(capsys, PLAN)
    data = assess_json(capsys, PLAN, "--evidence-policy", "strict")
    assert (data["verdict"], data["recommended_action"]) == ("insufficient", "abstain")
    assert data["second_opinion"]["strict"]["changes"][0]["flags"] == ["speech_act_mismatch"]
    assert data["configuration_sha256"] != default["configuration_sha256"]  # strict enters the hash
    assert assess_json(capsys, PLAN, "--second-opinion")["configuration_sha256"] == default["configuration_sha256"]
    path = tmp_path / "strict.json"
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify", str(path), "--bundle", PLAN)
    assert (code, out.strip()) == (0, f"{path}: ok (1 assessment verified)")


@pytest.mark.parametrize("edit, problem", [
    pytest.param(lambda d: d["second_opinion"]["requirements"][0]["flags"].clear(),
                 "assessment: second_opinion.requirements[0].flags: differ", id="flag_removed"),
    pytest.param(lambda d: d["second_opinion"]["requirements"][0]["flags"][0].update(reason="fine"),
                 "assessment: second_opinion.opinion_sha256", id="reason_edited"),
    pytest.param(lambda d: d.update(verdict="answerable"),
                 "assessment: verdict: 'answerable' is not the strict policy's ('insufficient')", id="strict_verdict"),
])
def test_verify_catches_a_tampered_second_opinion(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  edit, problem: str) -> None:  # type: ignore[no-untyped-def]
    data = assess_json(capsys, PLAN, "--evidence-policy", "strict")
    edit(data)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 1
    assert any(line.startswith(problem) for line in out.splitlines()), out
    assert out.strip().endswith("problem(s) in assessment of 1 assessment(s)")


def test_the_text_report_shows_flags_per_requirement(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "assess", PLAN, "--provider", "replay", "--evidence-policy", "strict")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("verdict: insufficient    action: abstain    (strict evidence policy")
    assert "      flag speech_act_mismatch (m1): m1 states a plan, which the requirement does not" in lines
    assert any(line.startswith("  verifier: NLI model not installed — export ") for line in lines)


def test_the_nli_model_dir_runs_the_verifier(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    model = build_model(tmp_path / "tiny")
    data = assess_json(capsys, PLAN, "--second-opinion", "--nli-model-dir", str(model))
    opinion = data["second_opinion"]
    assert opinion["verifier_note"]["state"] == "checked"
    result = opinion["requirements"][0]["verifier"]
    assert result["model_called"] is True and result["claim"] == data["requirements"][0]["requirement"]
    assert result["status"] in {"supported", "refuted", "contested", "insufficient"}


def test_an_unknown_policy_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "assess", PLAN, "--provider", "replay", "--evidence-policy", "lenient")
    assert code == 2 and "invalid choice: 'lenient'" in err
