import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from answerlens.cli import main
from tests.paths import FIXTURES, PRME, SAMPLES

QUESTION = "What database and cache does the dashboard API use, and what is Craig's background?"
RAW = PRME / "assessments" / "raw_output_reader_openai.json"
BUNDLE = PRME / "bundles" / "bundle_reader_citations.json"
TRIAL = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
PLANTED = "sk-PLANTED-cli-4242"


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_assess_replay_prints_a_readable_report(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, "assess", str(BUNDLE), "-q", QUESTION, "--provider", "replay",
                         "--replay-file", str(RAW))
    assert code == 0 and err == ""
    assert "verdict: partial    action: answer_partially" in out
    assert "(recorded response)" in out
    assert "discarded m99 (unknown_reference)" in out
    assert "[3] unsupported (claimed conflicting)" in out, "numbered from 1, as the app and the report number"
    assert "evaluation_id" in out and "assessment_sha256" in out


def test_assess_replay_reproduces_prme_with_its_prompt_identity(capsys) -> None:  # type: ignore[no-untyped-def]
    published = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
    code, out, _ = run(
        capsys, "assess", str(BUNDLE), "-q", QUESTION, "--provider", "replay", "--replay-file", str(RAW),
        "--model", "stub-model", "--json", "--prompt-version", published["prompt_version"],
        "--prompt-sha256", published["prompt_sha256"],
    )
    assert code == 0
    data = json.loads(out)
    assert data["citation_errors"] == published["citation_errors"]
    assert data["assessment_sha256"] != published["assessment_sha256"]  # provider 'replay' is hashed honestly
    assert data["provider_metadata"]["recorded"] is True


def test_verify_assessment_and_trial_files(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "verify", str(PRME / "assessments" / "assessment_reader_openai.json"))
    assert (code, out.strip().endswith("ok (1 assessment verified)")) == (0, True)
    code, out, _ = run(capsys, "verify", str(TRIAL))
    assert code == 0 and "ok (120 assessments verified)" in out


def test_verify_reports_problems_with_exit_1(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(TRIAL.read_text())
    data["samples"][3]["assessment"]["reasoning"] += " (edited)"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify", str(tampered))
    assert code == 1
    assert "samples[3]" in out and "1 problem(s) in upstream trial result of 120 assessment(s)" in out


def test_render_formats(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "render", str(PRME / "bundles" / "bundle_reader_plain.json"), "--format", "reader",
                       "--citations")
    assert code == 0
    assert out.splitlines()[2] == '- [m2] [valid 2023-01-01 to 2024-01-01] "The dashboard project used MySQL as its primary database."'


@pytest.mark.parametrize(
    "argv, message",
    [
        pytest.param(["render", "missing.json", "--format", "compact"], "missing.json: file not found", id="no_file"),
        pytest.param(["render", str(BUNDLE), "--format", "compact", "--citations"], "applies only to the reader",
                     id="citations_not_reader"),
        pytest.param(["assess", str(PRME / "bundles" / "bundle_reader_plain.json"), "-q", "x", "--provider",
                      "replay", "--replay-file", str(RAW)], "context_citations=True", id="reader_without_refs"),
        pytest.param(["assess", str(BUNDLE), "--provider", "replay", "--replay-file", str(RAW)], "a question is needed",
                     id="no_question"),
        pytest.param(["assess", str(BUNDLE), "-q", "x", "--provider", "replay"], "needs --replay-file",
                     id="replay_without_file"),
        pytest.param(["assess", str(BUNDLE), "-q", "x", "--api-key-env", "ANSWERLENS_TEST_UNSET_VAR"],
                     "ANSWERLENS_TEST_UNSET_VAR is not set", id="unset_key_var"),
        pytest.param(["assess", str(BUNDLE), "-q", "x", "--timeout", "-1"], "invalid configuration", id="bad_timeout"),
        pytest.param(["frobnicate"], "invalid choice", id="unknown_command"),
        pytest.param(["verify", str(BUNDLE)], "no assessment found", id="verify_a_bundle"),
        pytest.param(["assess", str(SAMPLES / "speech_act_eslint.json"), "-q", "", "--provider", "replay"],
                     "-q is empty", id="empty_question_is_not_the_samples"),
        pytest.param(["assess", str(SAMPLES / "speech_act_eslint.json"), "-q", " \t", "--provider", "replay"],
                     "-q is empty", id="blank_question"),
        pytest.param(["sweep", str(SAMPLES / "speech_act_eslint.json"), "-q", "", "--out", "never-made"],
                     "-q is empty", id="sweep_empty_question"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_provider_failure_is_exit_3_and_never_leaks_the_key() -> None:
    env = {**os.environ, "PLANTED_KEY": PLANTED}
    result = subprocess.run(
        [sys.executable, "-m", "answerlens.cli", "assess", str(BUNDLE), "-q", "x", "--provider", "openai",
         "--base-url", f"http://127.0.0.1:{_closed_port()}/v1", "--model", "m", "--api-key-env", "PLANTED_KEY",
         "--timeout", "5"],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert result.returncode == 3
    assert "is not reachable" in result.stderr and "/v1" in result.stderr
    assert PLANTED not in result.stdout + result.stderr


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("answerlens")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "assess" in result.stdout


def test_verify_with_the_bundle_rederives_decisions(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    sample = str(SAMPLES / "conflicting_deploy_freeze.json")
    code, out, _ = run(capsys, "assess", sample, "--provider", "replay", "--json")
    assert code == 0
    path = tmp_path / "assessment.json"
    path.write_text(out)
    code, out, _ = run(capsys, "verify", str(path), "--bundle", sample)
    assert code == 0 and "ok (1 assessment verified)" in out
    data = json.loads(path.read_text())
    data["requirements"][0]["citations"][0]["span"] = {"start": 0, "end": 1}
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify", str(path), "--bundle", sample)
    assert code == 1 and "requirements[0].citations[0].span" in out
    code, out, _ = run(capsys, "verify", str(path), "--bundle", str(PRME / "bundles" / "bundle_compact.json"))
    assert code == 1 and "context_sha256: the bundle given is not the one assessed" in out


@pytest.mark.parametrize("command", [pytest.param("assess", id="assess"), pytest.param("trial", id="trial")])
def test_model_help_names_each_providers_default(capsys, command: str) -> None:  # type: ignore[no-untyped-def]
    from answerlens.config import DEFAULT_MODELS

    code, out, _ = run(capsys, command, "--help")
    assert code == 0
    text = " ".join(out.split())
    for provider in ("ollama", "openai", "llamacpp"):
        assert f"{provider}: {DEFAULT_MODELS[provider]}" in text
    assert ("replay: recorded" in text) == (command == "assess")
    assert "--prompt {answerlens,prme}" in text


def test_assess_with_prmes_prompt_reproduces_prmes_published_run(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tests.scripted_server import ScriptedServer, openai_chat

    fixtures = Path(__file__).resolve().parent / "fixtures" / "prme"
    published = json.loads((fixtures / "assessments" / "assessment_reader_openai.json").read_text())
    monkeypatch.setenv("PRME_RUN_KEY", "sk-unused")
    with ScriptedServer(port=18765) as server:
        server.script("/v1/chat/completions",
                      openai_chat((fixtures / "assessments" / "raw_output_reader_openai.json").read_text()))
        code, out, err = run(capsys, "assess", str(fixtures / "bundles" / "bundle_reader_citations.json"),
                             "-q", QUESTION, "--provider", "openai", "--model", "stub-model",
                             "--base-url", server.base_url, "--max-retries", "0", "--timeout", "20",
                             "--temperature", "0", "--api-key-env", "PRME_RUN_KEY", "--prompt", "prme", "--json")
    assert (code, err) == (0, "")
    from answerlens import AnswerabilityAssessment

    assert AnswerabilityAssessment.model_validate_json(out).prme_dict() == published


def test_verify_reads_trial_files_through_the_typed_reader(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A trial file that does not read back as recorded is not verified (exit 1, as an assessment or report with
    a field out of shape is), naming the place (it would otherwise verify values it never held); a run directory
    verifies like its result.json."""
    data = json.loads(TRIAL.read_text())
    ids = data["samples"][3]["assessment"]["requirements"][0]["evidence_ids"]
    ids[0] = ids[0].upper().replace("-", "")  # the same UUID, written another way
    rewritten = tmp_path / "rewritten.json"
    rewritten.write_text(json.dumps(data))
    code, out, err = run(capsys, "verify", str(rewritten))
    assert code == 1 and "samples[3].assessment.requirements[0].evidence_ids[0] reads back as" in out
    folder = tmp_path / "run"
    folder.mkdir()
    result = json.loads((FIXTURES / "trials" / "drafts-run.json").read_text())["result"]
    (folder / "result.json").write_text(json.dumps({**result, "finished_at": "2026-01-01T00:00:00+00:00"}))
    code, out, _ = run(capsys, "verify", str(folder))
    summary = result["summary"]
    samples = summary["samples"] + summary["error_samples"]
    assert code == 0 and out == (f"{folder}: ok ({summary['samples']} assessments verified; {samples} of {samples} "
                                 f"samples, {summary['error_samples']} failed)\n")


def test_the_parser_is_built_without_pydantic_or_httpx() -> None:
    code = ("import sys; from answerlens.cli import build_parser; build_parser(); "
            "print(sorted(m for m in ('pydantic', 'httpx', 'answerlens.assessment', 'distributed', 'dask') "
            "if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_the_library_imports_nothing_of_dask() -> None:
    code = ("import sys, answerlens, answerlens.engine.sweep, answerlens.engine.cluster; "
            "print(sorted(m for m in ('distributed', 'dask') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_the_cli_s_light_constants_match_their_sources() -> None:
    from typing import get_args

    from answerlens.cli.common import FORMATS, PROMPTS
    from answerlens.config import PromptName
    from answerlens.records import ContextFormat

    assert PROMPTS == get_args(PromptName)
    assert FORMATS == tuple(item.value for item in ContextFormat)


def test_replay_of_a_sample_for_another_question_is_exit_2_naming_what_differs(capsys) -> None:  # type: ignore[no-untyped-def]
    sample = str(SAMPLES / "speech_act_eslint.json")
    code, out, err = run(capsys, "assess", sample, "-q", "Which formatter did I adopt?", "--provider", "replay")
    assert code == 2 and out == ""
    assert "answered another question" in err and "--force-replay" in err and "\n" not in err.strip()


def test_force_replay_is_marked_in_the_report_the_json_and_verify(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    sample = str(SAMPLES / "speech_act_eslint.json")
    argv = ["assess", sample, "-q", "Which formatter did I adopt?", "--provider", "replay", "--force-replay"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "WARNING: FORCED replay: recorded for another question" in out.splitlines()[1]
    code, out, _ = run(capsys, *argv, "--json")
    recording = json.loads(out)["provider_metadata"]["recording"]
    assert recording["match"] == "forced" and recording["forced"] == ["question"]
    path = tmp_path / "forced.json"
    path.write_text(out)
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 0 and "note: FORCED replay" in out
    data = json.loads(path.read_text())
    data["provider_metadata"]["recording"].update(forced=[], match="bound")  # hide the force
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify", str(path))
    assert code == 1 and "provider_metadata.recording.forced: the recording answered another question" in out


def test_a_bare_reply_file_is_replayed_and_marked_unbound(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "assess", str(BUNDLE), "-q", QUESTION, "--provider", "replay", "--replay-file",
                       str(RAW), "--json")
    assert code == 0 and json.loads(out)["provider_metadata"]["recording"]["match"] == "unbound"


def test_a_recording_written_by_the_app_replays_only_for_its_inputs(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    recording = Path(__file__).parents[1] / "docs" / "examples" / "recording.json"
    sample = str(SAMPLES / "answerable_billing_database.json")
    code, out, _ = run(capsys, "assess", sample, "--provider", "replay", "--replay-file", str(recording), "--json")
    assert code == 0 and json.loads(out)["provider_metadata"]["recording"]["match"] == "bound"
    code, _, err = run(capsys, "assess", str(SAMPLES / "speech_act_eslint.json"), "--provider", "replay",
                       "--replay-file", str(recording))
    assert code == 2 and "answered another question, context" in err


def test_a_bundle_given_as_the_replay_file_is_refused(capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, "assess", str(BUNDLE), "-q", QUESTION, "--provider", "replay", "--replay-file",
                       str(BUNDLE))
    assert code == 2 and "is a bundle (or sample) file, not a recorded reply" in err


def test_a_replayed_files_recording_names_the_file_not_its_folder(capsys) -> None:  # type: ignore[no-untyped-def]
    """The recording's source enters the assessment (and its provenance hash), which is shared: a file name, never
    the directories of the machine that ran it."""
    code, out, _ = run(capsys, "assess", str(BUNDLE), "-q", QUESTION, "--provider", "replay", "--replay-file",
                       str(RAW.resolve()), "--json")
    assert code == 0
    assert json.loads(out)["provider_metadata"]["recording"]["source"] == RAW.name
    assert str(RAW.parent.resolve()) not in out
