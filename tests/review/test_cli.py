"""``answerlens agreement`` and ``answerlens labels`` end to end: real stores, real files, the exit-code table."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from answerlens.cli import main
from answerlens.review.labels import LabelStore
from answerlens.run_store import RunStore, default_path
from answerlens.trials.dataset import load_dataset
from tests.paths import SAMPLES
from tests.review.helpers import edit_question, filled, label

PEOPLE = {"answerable_billing_database": "answerable", "partial_checkout_migration": "partial",
          "insufficient_table_tennis": "insufficient", "conflicting_deploy_freeze": "conflicting",
          "second_opinion_plan_as_fact": "insufficient"}


def _store(path: Path) -> RunStore:
    runs = filled(path)
    labels = LabelStore(runs)
    for stem, verdict in PEOPLE.items():
        labels.save(label(stem, verdict))
    labels.save(label("insufficient_table_tennis", "partial", "bob"))
    return runs


def test_agreement_json_has_the_contract_keys_and_reports_void_labels(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    runs = _store(tmp_path / "runs.sqlite3")
    assert main(["agreement", str(runs.path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"n", "agreement", "kappa", "kappa_ci", "confusion", "unsafe"} <= set(data)
    assert data["n"] == 6 and data["agreement"] == 4 / 6  # the plan cited as fact, and bob's partial
    assert data["confusion"]["answerable"]["insufficient"] == 1
    assert data["unsafe"]["count"] == 1 and data["unsafe"]["cases"][0].startswith("?run=")
    assert data["humans"]["pairs"] == 1 and data["humans"]["agreement"] == 0.0
    assert data["labels"] == {"valid": 6, "void": 0, "unmatched": 0}
    edit_question(runs.path, 3, "edited")
    assert main(["agreement", str(runs.path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["labels"] == {"valid": 4, "void": 2, "unmatched": 0} and data["n"] == 4
    assert all("does not verify" in item["reason"] for item in data["void"])


def test_agreement_text_says_too_few_and_names_the_interval(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    runs = _store(tmp_path / "runs.sqlite3")
    assert main(["agreement", str(runs.path)]) == 0
    out = capsys.readouterr().out
    assert "too few labels (under 20)" in out and "Fleiss, Cohen & Everitt (1969)" in out
    assert "unsafe (judge answerable or partial, people insufficient): 1 (of which answered in full: 1)" in out
    assert "?run=" in out
    assert "ann – bob: 1 shared, agreement 0%, κ 0.00, 95% interval [0.00, 0.00] (too few labels)" in out
    assert main(["agreement", str(runs.path), "--min-labels", "5"]) == 0
    assert "too few labels (under" not in capsys.readouterr().out


def test_store_names_the_data_folder_s_run_store(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _store(default_path())
    assert main(["agreement", "store", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 6


def test_labels_export_and_import_merge_two_reviewers(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    ours = _store(tmp_path / "ours.sqlite3")
    theirs = RunStore(tmp_path / "theirs.sqlite3")
    LabelStore(theirs).save(label("conflicting_deploy_freeze", "partial", "cy"))
    assert main(["labels", "export", "--store", str(theirs.path), "-o", str(tmp_path / "cy.jsonl")]) == 0
    assert main(["labels", "import", str(tmp_path / "cy.jsonl"), "--store", str(ours.path)]) == 0
    assert "1 added, 0 replaced" in capsys.readouterr().out
    assert main(["labels", "export", "--store", str(ours.path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7 and all(json.loads(line)["assessment_sha256"] for line in lines)
    assert main(["agreement", str(ours.path), "--labels", str(tmp_path / "cy.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 1


def test_labels_dataset_writes_a_trial_dataset(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    runs = _store(tmp_path / "runs.sqlite3")
    out = tmp_path / "reviewed.jsonl"
    assert main(["labels", "dataset", str(runs.path), "--out", str(out), "--bundles", str(SAMPLES)]) == 0
    captured = capsys.readouterr()
    assert "5 case(s) from 6 label(s)" in captured.out and captured.err == ""
    types = {item.case.question_type for item in load_dataset(out).cases}
    assert "partial/insufficient" in types, "two reviewers, two verdicts, one dataset label (unanswerable)"


def test_bad_input_exits_2(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["agreement", str(tmp_path / "nothing")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    (tmp_path / "bad.jsonl").write_text("{}\n")
    runs = _store(tmp_path / "runs.sqlite3")
    assert main(["agreement", str(runs.path), "--labels", str(tmp_path / "bad.jsonl")]) == 2
    assert "line 1" in capsys.readouterr().err
    assert main(["labels", "dataset", str(runs.path), "--out", str(tmp_path / "d.json")]) == 2
    assert "no labelled run could be exported" in capsys.readouterr().err


def test_a_file_s_superseded_labels_count_once_the_newest_as_import_keeps(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    runs = filled(tmp_path / "runs.sqlite3")
    early, late = datetime(2026, 1, 2, tzinfo=UTC), datetime(2026, 1, 3, tzinfo=UTC)
    file = tmp_path / "ann.jsonl"
    file.write_text("".join(item.line() + "\n" for item in (
        label("answerable_billing_database", "answerable", at=late),
        label("answerable_billing_database", "insufficient", at=early),
        label("insufficient_table_tennis", "insufficient", at=early))))
    assert main(["agreement", str(runs.path), "--labels", str(file), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n"] == 2 and data["agreement"] == 1.0 and data["labels"]["valid"] == 2
    assert main(["labels", "dataset", str(runs.path), "--labels", str(file), "--out", str(tmp_path / "d.jsonl"),
                 "--bundles", str(SAMPLES)]) == 0
    assert "2 case(s) from 2 label(s)" in capsys.readouterr().out
    assert main(["labels", "import", str(file), "--store", str(runs.path)]) == 0
    capsys.readouterr()
    stored = LabelStore(runs).labels()
    assert sorted(item.verdict.value for item in stored) == ["answerable", "insufficient"]


def test_a_labels_file_that_is_a_json_array_says_what_is_expected(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    runs = filled(tmp_path / "runs.sqlite3")
    (tmp_path / "array.json").write_text(json.dumps([label("insufficient_table_tennis", "insufficient")
                                                     .model_dump(mode="json")]))
    assert main(["agreement", str(runs.path), "--labels", str(tmp_path / "array.json")]) == 2
    assert "expected one label object per line (JSON lines), got an array" in capsys.readouterr().err


def _trial_labels(folder: Path, file: Path, count: int) -> None:
    from answerlens.review.labels import Label
    from answerlens.trials.reader import read_trial

    samples = [sample for sample in read_trial(folder).samples if sample.assessment is not None][:count]
    file.write_text("".join(Label(evaluation_id=s.assessment.evaluation_id,  # type: ignore[union-attr]
                                  assessment_sha256=s.assessment.assessment_sha256,  # type: ignore[union-attr]
                                  reviewer="ann", labelled_at=datetime(2026, 1, 2, tzinfo=UTC),
                                  verdict=s.assessment.verdict).line() + "\n"  # type: ignore[union-attr]
                            for s in samples))


def test_labels_dataset_of_a_trial_folder_finds_the_trial_s_dataset_from_anywhere(tmp_path: Path, capsys,  # type: ignore[no-untyped-def]
                                                                                  monkeypatch) -> None:
    import shutil

    example = SAMPLES / "trials" / "example"
    _trial_labels(example, tmp_path / "ann.jsonl", 3)
    monkeypatch.chdir(tmp_path)  # not where the trial ran: its dataset path is relative to the repository
    assert main(["labels", "dataset", str(example), "--labels", "ann.jsonl", "--out", "d.jsonl"]) == 0
    assert "case(s) from" in capsys.readouterr().out
    shutil.copytree(example, tmp_path / "copy")  # a copy far from its dataset: said as such
    assert main(["labels", "dataset", "copy", "--labels", "ann.jsonl", "--out", "e.jsonl"]) == 2
    err = capsys.readouterr().err
    assert "the dataset sample_bundles/trials/questions.json is not there any more" in err
    assert "keeps its context, not its bundle" not in err and "(--bundles)" in err
