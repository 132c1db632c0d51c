"""``answerlens report`` and ``answerlens verify REPORT.html``: what is written, what is refused (and then
nothing is written), exit codes, and edits caught by field or by place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens.cli import main
from tests.paths import SAMPLES
from tests.report.builders import UPSTREAM, golden_result, unfinished_run

PLAN = SAMPLES / "second_opinion_plan_as_fact.json"
DRAFT = SAMPLES / "draft_answer_unsupported_claim.json"
HOSTILE = SAMPLES / "hostile_record_text.json"


@pytest.fixture(autouse=True)
def no_installed_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ANSWERLENS_NLI_MODEL", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    out, err = capsys.readouterr()
    return code, out, err


def printed(capsys: pytest.CaptureFixture[str], folder: Path, sample: Path, *options: str) -> Path:
    code, out, err = run(capsys, "assess", sample, "--provider", "replay", "--json", *options)
    assert (code, err) == (0, "")
    path = folder / f"{sample.stem}.json"
    path.write_text(out, encoding="utf-8")
    return path


def test_an_assessment_report_is_written_and_verifies(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assessment = printed(capsys, tmp_path, DRAFT)
    out_file = tmp_path / "report.html"
    code, out, err = run(capsys, "report", assessment, "--bundle", DRAFT, "-o", out_file)
    assert (code, err) == (0, "")
    assert out.startswith(f"{out_file}: assessment report written (") and "answerlens verify" in out
    html = out_file.read_text(encoding="utf-8")
    assert json.loads(DRAFT.read_text(encoding="utf-8"))["answer"] in html, "the sample's draft, by its hash"
    code, out, _ = run(capsys, "verify", out_file)
    assert (code, out) == (0, f"{out_file}: ok (assessment report: embedded data verified, page re-rendered "
                              "identically)\n")
    assert run(capsys, "verify", out_file, "--bundle", DRAFT)[0] == 0


def test_a_printed_second_opinion_is_reported_with_its_question(capsys: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    """The bundle alone (not the sample) carries no question: the second opinion's is used, as its hash allows."""
    assessment = printed(capsys, tmp_path, PLAN, "--evidence-policy", "strict")
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(json.loads(PLAN.read_text(encoding="utf-8"))["bundle"]), encoding="utf-8")
    out_file = tmp_path / "plan.html"
    assert run(capsys, "report", assessment, "--bundle", bundle, "-o", out_file)[0] == 0
    html = out_file.read_text(encoding="utf-8")
    assert 'data-verdict="insufficient"' in html and 'data-badge="flags"' in html
    assert run(capsys, "verify", out_file)[0] == 0


@pytest.mark.parametrize(("options", "message"), [
    pytest.param([], "pass the bundle it was made over with --bundle", id="no_bundle"),
    pytest.param(["--bundle", SAMPLES / "speech_act_eslint.json"], "check that --bundle is the file assessed",
                 id="wrong_bundle"),
    pytest.param(["--bundle", HOSTILE, "-q", "Who wrote it?"], "question: not the question assessed",
                 id="wrong_question"),
    pytest.param(["--bundle", HOSTILE, "--answer", "The CTO."], "answer: the assessment checked no draft",
                 id="answer_not_assessed"),
])
def test_inputs_that_do_not_match_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                              options: list[object], message: str) -> None:
    assessment = printed(capsys, tmp_path, HOSTILE)
    out_file = tmp_path / "report.html"
    code, out, err = run(capsys, "report", assessment, *options, "-o", out_file)
    assert code == 2 and message in err and out == ""
    assert not out_file.exists()


def test_a_tampered_assessment_is_not_reported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assessment = printed(capsys, tmp_path, HOSTILE)
    data = json.loads(assessment.read_text(encoding="utf-8"))
    data["requirements"][1]["status"] = "supported"
    assessment.write_text(json.dumps(data), encoding="utf-8")
    out_file = tmp_path / "report.html"
    code, out, _ = run(capsys, "report", assessment, "--bundle", HOSTILE, "-o", out_file)
    assert code == 1 and not out_file.exists()
    assert "assessment report: requirements[1].status: 'supported' does not follow from its citations" in out
    assert out.rstrip().endswith("not written (6 problem(s) in the data it would carry)")


@pytest.mark.parametrize("source", [pytest.param("upstream", id="upstream"), pytest.param("run_folder", id="folder"),
                                    pytest.param("unfinished", id="unfinished_folder")])
def test_a_trial_report_is_written_and_verifies(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                source: str) -> None:
    paths = {"upstream": lambda: UPSTREAM, "run_folder": lambda: golden_result("questions", tmp_path).parent,
             "unfinished": lambda: unfinished_run(tmp_path)}
    path = paths[source]()
    out_file = tmp_path / "trial.html"
    code, out, _ = run(capsys, "report", path, "-o", out_file)
    assert code == 0 and "trial report written" in out
    assert out_file.read_text(encoding="utf-8").count('<svg class="rp-chart"') >= 3
    code, out, _ = run(capsys, "verify", out_file)
    if source == "unfinished":  # an unfinished run's report never verifies as a complete run
        assert code == 5 and "unfinished: 30 of 66 samples" in out and "--allow-unfinished" in out, out
        code, out, _ = run(capsys, "verify", out_file, "--allow-unfinished")
    assert (code, out.endswith(("identically)\n", "allowed by --allow-unfinished\n")) or out) == (0, True)
    code, _, err = run(capsys, "report", path, "--bundle", HOSTILE, "-o", out_file)
    assert code == 2 and "apply to an assessment" in err


def test_verify_locates_an_edit_to_the_page_and_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assessment = printed(capsys, tmp_path, HOSTILE)
    out_file = tmp_path / "report.html"
    run(capsys, "report", assessment, "--bundle", HOSTILE, "-o", out_file)
    html = out_file.read_text(encoding="utf-8")
    out_file.write_text(html.replace(">PARTIAL<", ">ANSWERABLE<"), encoding="utf-8")
    code, out, _ = run(capsys, "verify", out_file)
    assert code == 1
    first, last = out.splitlines()
    assert first.startswith("assessment report: page: differs from what its embedded data renders to at line ")
    assert "(in section 'verdict')" in first and "ANSWERABLE" in first and "PARTIAL" in first
    assert last == f"{out_file}: 1 problem(s)"
    out_file.write_text(html, encoding="utf-8")
    code, out, _ = run(capsys, "verify", out_file, "--bundle", SAMPLES / "speech_act_eslint.json")
    assert code == 1 and "context: not the exact context of the bundle given" in out


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("<!DOCTYPE html><html><body>hello</body></html>", "not an answerlens report", id="other_html"),
    pytest.param('\ufeff  <html><script type="application/json" id="answerlens-report-data">[1]</script>',
                 "not a JSON object", id="bom_and_bad_data"),
])
def test_verify_refuses_html_that_is_no_report(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str,
                                               message: str) -> None:
    path = tmp_path / "page.html"
    path.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "verify", path)
    assert code == 2 and message in err and out == ""


def test_report_refuses_a_file_that_is_no_assessment(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"hello": "world"}', encoding="utf-8")
    code, _, err = run(capsys, "report", path, "--bundle", HOSTILE, "-o", tmp_path / "x.html")
    assert code == 2 and "not an assessment" in err


def test_a_sample_draft_that_is_not_the_one_assessed_is_left_out(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path) -> None:
    # Another draft than the recording's: the replay is forced (and marked so).
    assessment = printed(capsys, tmp_path, DRAFT, "--answer", "Redis 7.2 runs it; Marcus maintains it.",
                         "--force-replay")
    out_file = tmp_path / "report.html"
    assert run(capsys, "report", assessment, "--bundle", DRAFT, "-o", out_file)[0] == 0
    html = out_file.read_text(encoding="utf-8")
    assert "its text was not available when this report was made" in html
    code, _, _ = run(capsys, "report", assessment, "--bundle", DRAFT, "--answer",
                     "Redis 7.2 runs it; Marcus maintains it.", "-o", out_file)
    assert code == 0 and "Draft answer:</strong> Redis 7.2 runs it; Marcus maintains it." in out_file.read_text()
