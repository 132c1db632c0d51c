"""What is built from many assessments verifies like one verdict (issue 29): each attack an adversarial reviewer
tried with answerlens' own summary code, and no hash formula recomputed, is refused or visibly marked."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from answerlens.cli import main
from answerlens.engine.interface import SecondOpinionSetting
from answerlens.engine.runner import run_trial
from answerlens.engine.sweep import run_sweep
from answerlens.prompts import prompt_for
from answerlens.sweeps import folder as sweep_folder
from answerlens.sweeps.reader import read_recorded, recompute
from answerlens.sweeps.result import SweepManifest
from answerlens.sweeps.run import assemble, contexts_of
from answerlens.sweeps.settings import Setting, SweepFormat
from answerlens.trials import folder as trial_folder
from answerlens.trials.dataset import load_dataset
from answerlens.trials.gates import evaluate_gates
from answerlens.trials.reader import read_trial
from answerlens.trials.summary import summarize
from answerlens.verification.path import verify_path
from tests.oracle_server import judgement, oracle_server
from tests.sweeps.helpers import QUESTION, bundle_data
from tests.trials.helpers import config, write_dataset

PRME_PROMPT = prompt_for("prme")
ANSWER = judgement(("production version", "supported", ["m1"]))
ABSTAIN = judgement(("production version", "unsupported", []))


def edit_json(path: Path, change: Any) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def sweep_folder_of(tmp_path: Path, replies: list[Any] | int, repeats: int = 3, cells: int = 1) -> Path:
    """A finished sweep of ``cells`` compact cells × ``repeats``, asked in order (repeat 0 gets the first reply)."""
    out = tmp_path / "sweep"
    budgets = ["packed", "90%", "60%", "30%"][:cells]
    with oracle_server({QUESTION: replies}) as server:
        asyncio.run(run_sweep(QUESTION, bundle_data("compact"), config(server.base_url), out=out,
                              formats=["compact"], budgets=budgets, repeats=repeats, concurrency=1, early_stop=0))
    return out


def rebuild_sweep_result(out: Path, manifest: SweepManifest) -> None:
    """result.json written again by answerlens' own code, from the samples on disk that ``manifest`` counts."""
    samples = [trial_folder.read_sample(path) for path in sorted((out / "samples").glob("*.json"))]
    settings = [Setting(format=SweepFormat(item.format), budget=item.budget) for item in manifest.settings]
    bundle = sweep_folder.read_bundle(out, manifest)
    kept = [sample for sample in samples if sample.repeat < manifest.repeats]
    sweep_folder.write_result(out, assemble(manifest, contexts_of(bundle, settings), kept, 1.0))


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_lowering_a_sweeps_repeats_and_rebuilding_its_result_is_refused(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER, ABSTAIN, ABSTAIN])
    assert recompute(read_recorded(out)).result.cells[0].actions == {"abstain": 2, "answer": 1}
    edit_json(out / "run.json", lambda data: data.update(repeats=1))
    manifest = SweepManifest.model_validate_json((out / "run.json").read_text())
    rebuild_sweep_result(out, manifest)
    assert json.loads((out / "result.json").read_text())["cells"][0]["actions"] == {"answer": 1}  # the forgery
    check = verify_path(out)
    assert not check.ok and any("manifest_sha256" in problem for problem in check.problems), check.problems
    code, printed, _ = cli(capsys, "verify", str(out))
    assert code == 1 and "not that of its fields" in printed


def test_deleting_a_sweeps_inconvenient_samples_and_rebuilding_its_result_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER, ABSTAIN, ABSTAIN])
    for path in sorted((out / "samples").glob("*.json"))[1:]:
        path.unlink()
    manifest = read_recorded(out).manifest
    rebuild_sweep_result(out, manifest)
    check = verify_path(out)
    assert check.samples is not None and (check.samples.found, check.samples.expected) == (1, 3)
    assert not check.ok and any("samples it counted are gone" in problem for problem in check.problems)
    assert cli(capsys, "verify", str(out))[0] == 1
    (out / "result.json").unlink()  # an honest unfinished sweep: it says so, and never verifies as complete
    code, printed, _ = cli(capsys, "verify", str(out))
    assert code == 5 and "unfinished: 1 of 3 samples" in printed
    code, printed, _ = cli(capsys, "verify", str(out), "--allow-unfinished")
    assert code == 0 and "unfinished: 1 of 3 samples" in printed
    report = tmp_path / "sweep.html"
    assert cli(capsys, "report", str(out), "-o", str(report))[0] == 0
    assert "unfinished: 1 of 3 samples" in report.read_text(encoding="utf-8")  # on the page, next to its verdict
    assert cli(capsys, "verify", str(report))[0] == 5


def test_a_sample_file_left_out_of_a_sweeps_result_is_reported(tmp_path: Path) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER], repeats=2)
    [first, second] = sorted((out / "samples").glob("*.json"))
    copy = first.with_name("copy-" + first.name)
    copy.write_bytes(first.read_bytes())  # the same sample under another name would count twice
    assert any("belongs in" in problem or "twice" in problem for problem in verify_path(out).problems)


def trial_run(tmp_path: Path, replies: list[Any], repeats: int) -> tuple[Path, Path]:
    """One unanswerable case asked ``repeats`` times in order (repeat 0 gets the first reply)."""
    return trial_of(tmp_path, "run", replies, repeats)


def test_lowering_a_trials_repeats_and_rebuilding_summary_and_gates_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset, out = trial_run(tmp_path, [ABSTAIN, ANSWER], repeats=2)
    result = read_trial(out)
    assert result.quality_gates is not None and not result.quality_gates.passed  # the unsafe answer in repeat 1
    kept = tuple(sample for sample in result.samples if sample.repeat == 0)
    summary = summarize(kept, drafts=False)
    gates = evaluate_gates(summary, {name: gate.required for name, gate in result.quality_gates.results.items()})
    forged = result.model_copy(update={"repeats": 1, "samples": kept, "summary": summary, "quality_gates": gates})
    assert forged.quality_gates is not None and forged.quality_gates.passed  # the forgery passes its gates
    trial_folder.write_result(out, forged)
    edit_json(out / "run.json", lambda data: data.update(repeats=1))
    code, printed, _ = cli(capsys, "verify", str(out), "--dataset", str(dataset))
    assert code == 1 and "manifest_sha256" in printed and "is not counted in result.json" in printed, printed


@pytest.mark.parametrize("field, value", [
    pytest.param("prompt_version", PRME_PROMPT.version, id="prompt_version"),
    pytest.param("prompt_sha256", PRME_PROMPT.sha256, id="prompt_sha256"),
    pytest.param("bundle", "prme_reader_citations.json", id="bundle_name"),
])
def test_a_sweeps_prompt_identity_or_bundle_name_edited_in_run_json_is_refused(tmp_path: Path, field: str,
                                                                               value: str) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER], repeats=1)
    edit_json(out / "run.json", lambda data: data.update({field: value}))
    check = verify_path(out)
    assert not check.ok and any("run.json" in problem and "edited" in problem for problem in check.problems), \
        check.problems


@pytest.mark.parametrize("field", ["prompt_version", "prompt_sha256"])
def test_a_trial_results_prompt_identity_edited_is_refused(tmp_path: Path, field: str) -> None:
    _, out = trial_run(tmp_path, [ABSTAIN], repeats=1)
    edit_json(out / "result.json", lambda data: data.update({field: getattr(PRME_PROMPT, field.split("_")[1])}))
    problems = verify_path(out / "result.json").problems
    assert any("prompt" in problem for problem in problems) and any("manifest_sha256" in p for p in problems)


def test_verify_of_a_sweep_prints_the_provenance_caveat_and_the_replay_notes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER], repeats=1)
    [sample] = (out / "samples").glob("*.json")

    original = sample.read_text(encoding="utf-8")
    edit_json(sample, lambda data: data["assessment"].update(model="gpt-4o"))
    code, printed, _ = cli(capsys, "verify", str(out))
    assert code == 1 and "assessment names openai 'gpt-4o', the run's configuration openai 'oracle'" in printed
    sample.write_text(original, encoding="utf-8")
    edit_json(sample, lambda data: data["assessment"].pop("provenance_sha256"))
    code, _, err = cli(capsys, "verify", str(out))
    assert code == 0 and "1 of 1 assessment(s) carry no provenance_sha256" in err
    report = tmp_path / "sweep.html"
    assert cli(capsys, "report", str(out), "-o", str(report))[0] == 0
    page = report.read_text(encoding="utf-8")
    assert "What this check cannot prove" in page and "carry no provenance_sha256" in page


@pytest.mark.parametrize("option", ["--dataset", "--bundle"])
def test_an_option_that_does_not_apply_to_a_sweep_is_refused(tmp_path: Path, option: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER], repeats=1)
    real = tmp_path / "cases.json"
    real.write_text("[]")
    code, _, err = cli(capsys, "verify", str(out), option, str(real))
    assert code == 2 and "sweep carries its bundle" in err
    code, _, err = cli(capsys, "verify", str(out), option, str(tmp_path / "missing.json"))
    assert code == 2 and "missing.json: no such file" in err


def test_a_sweep_whose_cells_all_failed_says_so_and_exits_4(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    bundle = tmp_path / "bundle.json"
    bundle.write_text(json.dumps(bundle_data("compact")))
    with oracle_server({QUESTION: [ANSWER, 500, 500, 500]}) as server:
        code, printed, _ = cli(capsys, "sweep", str(bundle), "-q", QUESTION, "--format", "compact", "--budget",
                               "packed", "--budget", "90%", "--repeats", "2", "--concurrency", "1", "--early-stop",
                               "0", "--out", str(tmp_path / "sweep"), "--provider", "openai", "--model", "oracle",
                               "--base-url", server.base_url, "--no-preflight", "--max-retries", "0")
    assert code == 4, printed
    assert printed.startswith("FAILED SAMPLES: 3 of 4 sample(s) failed") and "3 × server_error" in printed
    assert "every format keeps its action" not in printed
    assert "have no result (1 whose every sample failed)" in printed


def test_sweep_report_says_what_verify_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER, ABSTAIN], repeats=2)
    assert cli(capsys, "sweep-report", str(out))[0] == 0
    [first, _] = sorted((out / "samples").glob("*.json"))
    edit_json(first, lambda data: data["assessment"].update(verdict="insufficient", recommended_action="abstain"))
    code, printed, _ = cli(capsys, "sweep-report", str(out))
    assert code == 1 and printed.startswith("NOT VERIFIED: ") and "answerlens verify" in printed
    first.unlink()
    (out / "result.json").unlink()
    code, printed, _ = cli(capsys, "sweep-report", str(out))
    assert code == 5 and printed.startswith("unfinished: 1 of 2 samples")


# --- what each sample was asked, against the run's manifest (found by an adversarial review) ------------------


def trial_of(tmp_path: Path, name: str, replies: list[Any], repeats: int, **extra: object) -> tuple[Path, Path]:
    """``trial_run`` with configuration fields of its own, into ``tmp_path/name``."""
    dataset = write_dataset(tmp_path / "cases.json", [{"id": "u1", "question": "Q u1", "label": "unanswerable",
                                                       "bundle": bundle_data("compact")}])
    out = tmp_path / name
    second_opinion = extra.pop("second_opinion", None)
    with oracle_server({"Q u1": replies}) as server:
        asyncio.run(run_trial(load_dataset(dataset), config(server.base_url, **extra), repeats=repeats, out=out,
                              concurrency=1, early_stop=0, second_opinion=second_opinion))  # type: ignore[arg-type]
    return dataset, out


def test_an_honest_trial_with_prmes_prompt_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset, out = trial_of(tmp_path, "prme", [ABSTAIN, ANSWER], repeats=2, prompt="prme")
    assert read_trial(out).prompt_version == PRME_PROMPT.version
    code, printed, _ = cli(capsys, "verify", str(out), "--dataset", str(dataset))
    assert code == 0, printed


def test_a_sample_asked_with_another_prompt_is_refused_even_with_the_runs_hashes(tmp_path: Path) -> None:
    """Samples of a PRME-prompt trial moved into an answerlens-prompt trial of the same dataset, given the run's
    manifest hash by hand and counted by a result rebuilt with answerlens' own code."""
    _, prme = trial_of(tmp_path, "prme", [ABSTAIN], repeats=1, prompt="prme")
    _, ours = trial_of(tmp_path, "ours", [ANSWER], repeats=1)
    result = read_trial(ours)
    foreign = [sample.model_copy(update={"manifest_sha256": result.manifest_sha256,
                                         "configuration_sha256": result.samples[0].configuration_sha256})
               for sample in read_trial(prme).samples]
    summary = summarize(tuple(foreign), drafts=False)
    assert result.quality_gates is not None
    gates = evaluate_gates(summary, {name: gate.required for name, gate in result.quality_gates.results.items()})
    for sample in foreign:
        trial_folder.write_sample(ours / "samples", sample)
    trial_folder.write_result(ours, result.model_copy(update={"samples": tuple(foreign), "summary": summary,
                                                              "quality_gates": gates}))
    problems = verify_path(ours).problems
    assert any(f"assessment names prompt {PRME_PROMPT.version}" in problem for problem in problems), problems


def test_a_second_opinion_stripped_from_a_sample_or_added_to_one_is_refused(tmp_path: Path) -> None:
    _, out = trial_of(tmp_path, "opinions", [ANSWER], repeats=1, second_opinion=SecondOpinionSetting())
    (path,) = (out / "samples").glob("*.json")
    opinion = json.loads(path.read_text(encoding="utf-8"))["second_opinion"]
    assert verify_path(out).ok
    edit_json(path, lambda data: data.pop("second_opinion"))
    edit_json(out / "result.json", lambda data: data["samples"][0].pop("second_opinion"))
    assert any("no second opinion, and the run gives every assessed sample one" in problem
               for problem in verify_path(out).problems)
    _, plain = trial_of(tmp_path, "plain", [ANSWER], repeats=1)  # the same assessment, asked without one
    (path,) = (plain / "samples").glob("*.json")
    edit_json(path, lambda data: data.update(second_opinion=opinion))
    edit_json(plain / "result.json", lambda data: data["samples"][0].update(second_opinion=opinion))
    assert any("a second opinion, and the run gives none" in problem for problem in verify_path(plain).problems)


def test_a_finished_trial_result_with_samples_taken_out_is_refused_not_unfinished(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset, out = trial_run(tmp_path, [ABSTAIN, ANSWER], repeats=2)
    result = read_trial(out)
    kept = tuple(sample for sample in result.samples if sample.repeat == 0)
    summary = summarize(kept, drafts=False)
    assert result.quality_gates is not None
    gates = evaluate_gates(summary, {name: gate.required for name, gate in result.quality_gates.results.items()})
    trial_folder.write_result(out, result.model_copy(update={"samples": kept, "summary": summary,
                                                             "quality_gates": gates}))
    (out / "samples" / trial_folder.sample_filename("u1", 1)).unlink()
    for args in ([str(out)], [str(out), "--allow-unfinished"], [str(out / "result.json"), "--allow-unfinished"]):
        code, printed, _ = cli(capsys, "verify", *args, "--dataset", str(dataset))
        assert code == 1 and "written as finished, but it holds 1 of 2 samples" in printed, printed
    (out / "result.json").unlink()  # an honest unfinished run: the count, exit 5
    code, printed, _ = cli(capsys, "verify", str(out), "--dataset", str(dataset))
    assert code == 5 and "unfinished: 1 of 2 samples" in printed, printed


def test_an_unfinished_run_with_problems_says_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER, ABSTAIN], repeats=2)
    (out / "result.json").unlink()
    first, second = sorted((out / "samples").glob("*.json"))
    second.unlink()
    edit_json(first, lambda data: data["assessment"].update(recommended_action="abstain"))
    code, printed, _ = cli(capsys, "verify", str(out))
    assert code == 1 and "problem(s)" in printed and "unfinished: 1 of 2 samples" in printed, printed


def test_allow_unfinished_on_one_assessment_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER], repeats=1)
    (sample,) = (out / "samples").glob("*.json")
    assessment = tmp_path / "assessment.json"
    assessment.write_text(json.dumps(json.loads(sample.read_text())["assessment"]), encoding="utf-8")
    assert cli(capsys, "verify", str(assessment))[0] == 0
    code, _, error = cli(capsys, "verify", str(assessment), "--allow-unfinished")
    assert code == 2 and "--allow-unfinished applies to a trial or sweep" in error, error


def test_trial_report_says_what_verify_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = trial_run(tmp_path, [ABSTAIN, ABSTAIN, 500], repeats=3)
    code, printed, _ = cli(capsys, "trial-report", str(out))
    assert code == 4 and "error" in printed  # a failed sample: 4, as `trial` exits
    (out / "result.json").unlink()
    first = sorted((out / "samples").glob("*.json"))[0]
    first.unlink()
    code, printed, _ = cli(capsys, "trial-report", str(out))
    assert code == 5 and printed.startswith("unfinished: 2 of 3 samples: the figures count the samples saved"), printed
    second = sorted((out / "samples").glob("*.json"))[0]
    edit_json(second, lambda data: data["assessment"].update(recommended_action="answer"))
    code, printed, _ = cli(capsys, "trial-report", str(out))
    assert code == 1 and printed.startswith("NOT VERIFIED: "), printed
    code, printed, error = cli(capsys, "trial-report", str(out), "--json")
    assert code == 1 and error.startswith("NOT VERIFIED: ") and json.loads(printed)["samples"] >= 0


def test_sweep_report_of_a_sweep_with_failed_samples_exits_as_the_sweep_did(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER, 500], repeats=2)
    code, printed, _ = cli(capsys, "sweep-report", str(out))
    assert code == 4 and printed.startswith("FAILED SAMPLES"), printed


def test_a_whole_run_passed_off_as_a_shard_is_refused_and_a_shard_says_it_is_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from answerlens.trials.shard import Shard, shard_number

    dataset, out = trial_run(tmp_path, [ABSTAIN, ANSWER, ABSTAIN, ABSTAIN], repeats=4)
    result = read_trial(out)
    unsafe = next(sample.repeat for sample in result.samples if sample.assessment is not None
                  and sample.assessment.recommended_action.value == "answer")
    shard = Shard.parse(f"{3 - shard_number('u1', unsafe, 2)}/2")  # the shard without the unsafe answer
    kept = tuple(sample for sample in result.samples if shard.holds(sample.case_id, sample.repeat))
    summary = summarize(kept, drafts=False)
    assert result.quality_gates is not None
    gates = evaluate_gates(summary, {name: gate.required for name, gate in result.quality_gates.results.items()})
    trial_folder.write_result(out, result.model_copy(update={"samples": kept, "summary": summary,
                                                             "quality_gates": gates, "shard": shard}))
    for sample in result.samples:
        if sample not in kept:
            (out / "samples" / trial_folder.sample_filename(sample.case_id, sample.repeat)).unlink()
    code, printed, _ = cli(capsys, "verify", str(out), "--dataset", str(dataset))
    assert code == 1 and f"holds shard {shard.label}, and run.json records the whole run" in printed, printed
    # The result file alone cannot be told from a real shard's: it says it is one part of a run, everywhere.
    alone = tmp_path / "sent" / "result.json"
    alone.parent.mkdir()
    alone.write_bytes((out / "result.json").read_bytes())
    code, printed, error = cli(capsys, "verify", str(alone), "--dataset", str(dataset))
    assert code == 0 and f"of shard {shard.label}, one part of the run" in printed, printed
    assert f"shard {shard.label}: one part of a run" in error
    report = tmp_path / "shard.html"
    assert cli(capsys, "report", str(alone), "-o", str(report))[0] == 0
    assert f"shard {shard.label}: one part of a run" in report.read_text(encoding="utf-8")


def test_a_live_sample_copied_under_another_repeat_number_is_refused(tmp_path: Path) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER, ABSTAIN], repeats=2)
    first, second = sorted((out / "samples").glob("*.json"))
    copy = json.loads(first.read_text(encoding="utf-8")) | {"repeat": 1}
    second.write_text(json.dumps(copy, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    rebuild_sweep_result(out, read_recorded(out).manifest)
    assert any("a copy of repeat 0" in problem for problem in verify_path(out).problems)
    _, trial = trial_of(tmp_path, "trial", [ANSWER, 500], repeats=2)  # a good sample stands in for a failed one
    good, failed = (trial / "samples" / trial_folder.sample_filename("u1", repeat) for repeat in (0, 1))
    assert "error" in json.loads(failed.read_text(encoding="utf-8"))
    failed.write_text(json.dumps(json.loads(good.read_text(encoding="utf-8")) | {"repeat": 1}), encoding="utf-8")
    result = read_trial(trial)
    samples = tuple(trial_folder.read_sample(path) for path in (good, failed))
    summary = summarize(samples, drafts=False)
    trial_folder.write_result(trial, result.model_copy(update={"samples": samples, "summary": summary}))
    assert any("a copy of repeat 0" in problem for problem in verify_path(trial).problems)


@pytest.mark.parametrize("name", ["compact_packed.json.orig", "COMPACT.JSON", ".hidden.json", "old"])
def test_what_samples_holds_besides_sample_files_is_reported(tmp_path: Path, name: str) -> None:
    out = sweep_folder_of(tmp_path, [ANSWER, ABSTAIN], repeats=2)
    second = sorted((out / "samples").glob("*.json"))[1]
    if name == "old":  # a subfolder of samples set aside
        (out / "samples" / "old").mkdir()
        second.rename(out / "samples" / "old" / second.name)
    else:
        second.rename(out / "samples" / name)
    problems = verify_path(out).problems
    if name == ".hidden.json":  # a *.json file, read as a sample: under a name the runner does not give it
        assert any(".hidden.json" in problem for problem in problems), problems
    else:
        assert any(f"samples/{name}: not a sample file" in problem for problem in problems), problems
    leftover = out / "samples" / f".{second.name}.123.456.tmp"  # a crash's half-written sample: not a problem
    leftover.write_text("{", encoding="utf-8")
    assert not any(leftover.name in problem for problem in verify_path(out).problems)
    _, trial = trial_run(tmp_path, [ABSTAIN], repeats=1)
    (trial / "samples" / name).mkdir() if name == "old" else (trial / "samples" / name).write_text("{}")
    assert any(f"samples/{name}" in problem for problem in verify_path(trial).problems)


def test_relabelled_cases_are_caught_by_a_plain_verify_while_the_runs_dataset_is_there(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dataset, out = trial_run(tmp_path, [ANSWER], repeats=1)
    code, _, error = cli(capsys, "verify", str(out))
    assert code == 0 and f"checked against the dataset the run names, {dataset}" in error, error

    def relabel(data: dict[str, Any]) -> None:
        data["label"] = "answerable"

    (sample,) = (out / "samples").glob("*.json")
    edit_json(sample, relabel)
    result = read_trial(out)  # the summary and gates rebuilt over the relabelled sample: an unsafe answer is gone
    samples = tuple(trial_folder.read_sample(path) for path in (sample,))
    summary = summarize(samples, drafts=False)
    assert result.quality_gates is not None
    gates = evaluate_gates(summary, {name: gate.required for name, gate in result.quality_gates.results.items()})
    questions = tuple(record.model_copy(update={"label": samples[0].label}) for record in result.questions)
    trial_folder.write_result(out, result.model_copy(update={"samples": samples, "summary": summary,
                                                             "quality_gates": gates, "questions": questions}))
    code, printed, _ = cli(capsys, "verify", str(out))
    assert code == 1 and "label differs from the dataset's" in printed, printed
    dataset.rename(tmp_path / "elsewhere.json")  # gone: said, never silently passed over
    code, _, error = cli(capsys, "verify", str(out))
    assert "labels and cases were not checked" in error and "pass --dataset FILE" in error, error


def test_loosened_gates_are_said_wherever_the_verdict_is_read(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    dataset, out = trial_run(tmp_path, [ANSWER], repeats=1)
    code, _, error = cli(capsys, "verify", str(out))
    assert code == 0 and "gates at thresholds" not in error  # the defaults: nothing to say
    result = read_trial(out)
    assert result.quality_gates is not None and not result.quality_gates.passed  # the unsafe answer
    loose = {name: gate.required for name, gate in result.quality_gates.results.items()} | {
        "unsafe_full_answer_count_max": 1000}
    trial_folder.write_result(out, result.model_copy(update={"quality_gates": evaluate_gates(result.summary, loose)}))
    code, _, error = cli(capsys, "trial-report", str(out))
    assert code == 0 and "(default ≤ 0)" in error  # the thresholds are the runner's to choose ...
    code, _, error = cli(capsys, "verify", str(out), "--dataset", str(dataset))
    assert code == 0 and "unsafe_full_answer_count_max ≤ 1000 (default ≤ 0)" in error, error  # ... and said
    report = tmp_path / "loose.html"
    assert cli(capsys, "report", str(out), "-o", str(report))[0] == 0
    assert "unsafe_full_answer_count_max ≤ 1000 (default ≤ 0)" in report.read_text(encoding="utf-8")


def test_a_trial_folders_unreadable_result_or_manifest_gets_advice_for_that_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = trial_run(tmp_path, [ANSWER], repeats=1)
    (out / "result.json").write_text((out / "result.json").read_text(encoding="utf-8")[:200], encoding="utf-8")
    code, _, error = cli(capsys, "verify", str(out))
    assert code == 2 and "rerunning the same command writes it again" in error, error  # not JSON: 2, as documented
    assert "delete it to rerun that sample" not in error
    (out / "result.json").unlink()
    (out / "run.json").write_text("{", encoding="utf-8")
    code, _, error = cli(capsys, "verify", str(out))
    assert code == 2 and "use a fresh --out directory" in error and "rerun that sample" not in error, error


def test_without_the_dataset_samples_asked_with_another_configuration_or_question_are_refused(
        tmp_path: Path) -> None:
    """Checks that need no dataset: the run's dataset is moved away, as when a folder is sent elsewhere."""
    dataset, warm = trial_of(tmp_path, "warm", [ANSWER], repeats=1, temperature=0.5)
    _, cold = trial_of(tmp_path, "cold", [ABSTAIN], repeats=1)
    dataset.rename(tmp_path / "away.json")
    result = read_trial(cold)
    foreign = tuple(sample.model_copy(update={"manifest_sha256": result.manifest_sha256})
                    for sample in read_trial(warm).samples)
    summary = summarize(foreign, drafts=False)
    assert result.quality_gates is not None
    gates = evaluate_gates(summary, {name: gate.required for name, gate in result.quality_gates.results.items()})
    for sample in foreign:
        trial_folder.write_sample(cold / "samples", sample)
    trial_folder.write_result(cold, result.model_copy(update={"samples": foreign, "summary": summary,
                                                              "quality_gates": gates}))
    problems = verify_path(cold).problems
    assert any("configuration_sha256 is not the run's configuration's" in problem for problem in problems), problems
    _, asked = trial_of(tmp_path, "asked", [ABSTAIN], repeats=1)
    edit_json(asked / "result.json", lambda data: data["questions"][0].update(question="Is it safe to deploy?"))
    problems = verify_path(asked / "result.json").problems
    assert any("question is not the one its samples were asked" in problem for problem in problems), problems


@pytest.mark.parametrize("repeats", [1_000_000_000, 0])
def test_an_impossible_repeats_in_a_result_is_refused_at_once(tmp_path: Path, repeats: int,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    _, out = trial_run(tmp_path, [ABSTAIN], repeats=1)
    edit_json(out / "result.json", lambda data: data.update(repeats=repeats))
    code, printed, _ = cli(capsys, "verify", str(out / "result.json"))
    assert code == 1 and "no run is written so" in printed, printed


def test_report_refuses_a_run_that_verify_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What only the folder shows (the dataset its run names, a stray file) refuses the report as it fails verify:
    the page never says "verifies" of a run verify refuses."""
    _, out = trial_run(tmp_path, [ANSWER], repeats=1)
    (sample,) = (out / "samples").glob("*.json")
    edit_json(sample, lambda data: data.update(label="answerable"))
    edit_json(out / "result.json", lambda data: data["samples"][0].update(label="answerable"))
    rebuilt = read_trial(out)
    trial_folder.write_result(out, rebuilt.model_copy(update={"summary": summarize(rebuilt.samples, drafts=False)}))
    assert cli(capsys, "verify", str(out))[0] == 1
    page = tmp_path / "page.html"
    code, printed, _ = cli(capsys, "report", str(out), "-o", str(page))
    assert code == 1 and "not written" in printed and not page.exists(), printed
    sweep = sweep_folder_of(tmp_path, [ANSWER], repeats=1)
    (sweep / "samples" / "kept.json.orig").write_text("{}", encoding="utf-8")
    code, printed, _ = cli(capsys, "report", str(sweep), "-o", str(page))
    assert code == 1 and "not a sample file" in printed and not page.exists(), printed


def test_the_endpoints_that_answered_are_said_when_they_are_not_the_configured_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Endpoints are recorded per sample (its assessment's base URL), not in the manifest: trial-report names them
    whenever they are not simply the configuration's."""
    dataset = write_dataset(tmp_path / "cases.json", [{"id": "u1", "question": "Q u1", "label": "unanswerable",
                                                       "bundle": bundle_data("compact")}])
    out = tmp_path / "run"
    with oracle_server({"Q u1": [ABSTAIN]}) as configured, oracle_server({"Q u1": [ABSTAIN]}) as replica:
        asyncio.run(run_trial(load_dataset(dataset), config(configured.base_url), repeats=2, out=out,
                              concurrency=1, early_stop=0, endpoints=[replica.base_url], preflight=False))
        served = replica.base_url
    code, _, error = cli(capsys, "trial-report", str(out))
    assert code == 0 and f"served by: {served} 2" in error, error
