"""What a label is worth: valid while the thing it names is there with the same hashes and verifies; void when its
run was assessed again with another output or no longer verifies (an edited run); unmatched when nothing of its
inputs is in the source. Sources: the run store, a trial run folder, a sweep folder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from answerlens.engine.runner import run_trial
from answerlens.engine.sweep import run_sweep
from answerlens.review.folders import check_folder
from answerlens.review.items import FolderSource, Standing, StoreSource, match
from answerlens.review.labels import Label
from answerlens.trials.dataset import load_dataset
from answerlens.verdict import AnswerabilityVerdict
from tests.context_server import context_server
from tests.oracle_server import oracle_server
from tests.review.helpers import edit_question, filled, label
from tests.sweeps.helpers import QUESTION, REQUIREMENTS, bundle_data
from tests.sweeps.helpers import config as sweep_config
from tests.trials.helpers import REPLIES, config, question_cases, write_dataset


def test_store_labels_are_valid_void_or_unmatched(tmp_path: Path) -> None:
    runs = filled(tmp_path / "runs.sqlite3")
    source = StoreSource(runs)
    items = source.items()
    assert [item.number for item in items] == [5, 4, 3, 2, 1], "newest first"
    labels = [label("answerable_billing_database", "answerable"),
              label("insufficient_table_tennis", "insufficient"),
              label("insufficient_table_tennis", "partial", "bob"),
              label("partial_checkout_migration", "partial").model_copy(update={"assessment_sha256": "0" * 64}),
              label("speech_act_eslint", "insufficient")]
    edit_question(runs.path, 3, "Which table tennis club did I join? (edited)")
    found = match(source, labels)
    assert [(m.label.reviewer, m.judge) for m in found.valid] == [("ann", AnswerabilityVerdict.ANSWERABLE)]
    void = {m.label.verdict.value: m.reason for m in found.void}
    assert set(void) == {"insufficient", "partial"} and len(found.void) == 3
    assert "run 3 does not verify" in found.void[0].reason and "question" in found.void[0].reason
    assert "assessed again with another output" in found.void[2].reason
    assert [m.label.evaluation_id for m in found.unmatched] == [labels[4].evaluation_id]
    assert "no stored run of these inputs" in found.unmatched[0].reason


def test_a_store_item_opens_with_what_inspect_shows(tmp_path: Path) -> None:
    source = StoreSource(filled(tmp_path / "runs.sqlite3", ("conflicting_deploy_freeze",)))
    [item] = source.items()
    opened = source.open(item)
    assert opened.reviewable and opened.context and opened.assessment is not None
    assert item.link == f"?run={item.evaluation_id}" and item.judge is AnswerabilityVerdict.CONFLICTING


def _trial(tmp_path: Path) -> Path:
    dataset = load_dataset(write_dataset(tmp_path / "cases.json", question_cases()))
    with oracle_server(REPLIES) as server:
        outcome = asyncio.run(run_trial(dataset, config(server.base_url), repeats=2, out=tmp_path / "run",
                                        preflight=False))
    assert outcome.result is not None
    return tmp_path / "run"


def _sample_label(opened_assessment, verdict: str) -> Label:  # type: ignore[no-untyped-def]
    return Label(evaluation_id=opened_assessment.evaluation_id, assessment_sha256=opened_assessment.assessment_sha256,
                 reviewer="ann", labelled_at="2026-01-01T00:00:00Z", verdict=AnswerabilityVerdict(verdict))


def test_trial_samples_are_items_with_their_case_context(tmp_path: Path) -> None:
    run = _trial(tmp_path)
    source = FolderSource(run, cwd=tmp_path)
    items = source.items()
    assert source.kind == "trial" and len(items) == 12 and not source.problems
    first = source.open(items[0])
    assert first.reviewable and first.bundle is not None and "Postgres" in (first.context or "")
    assert items[0].key == "a1 repeat 0" and items[1].key == "a1 repeat 1"
    one = _sample_label(first.assessment, "answerable")
    found = match(source, [one])
    assert [m.standing for m in found.matched] == [Standing.VALID]


def test_an_edited_trial_sample_voids_its_label(tmp_path: Path) -> None:
    run = _trial(tmp_path)
    source = FolderSource(run, cwd=tmp_path)
    target = source.open(source.items()[0]).assessment
    assert target is not None
    path = run / "result.json"
    data = json.loads(path.read_text())
    for sample in data["samples"]:
        if sample["assessment"] and sample["assessment"]["assessment_sha256"] == target.assessment_sha256:
            sample["assessment"]["reasoning"] = "edited afterwards"
    path.write_text(json.dumps(data))
    [matched] = match(FolderSource(run, cwd=tmp_path), [_sample_label(target, "answerable")]).matched
    assert matched.standing is Standing.VOID and "does not verify" in matched.reason


def test_a_trial_whose_dataset_moved_is_listed_without_contexts(tmp_path: Path) -> None:
    run = _trial(tmp_path)
    (tmp_path / "cases.json").rename(tmp_path / "moved.json")
    checked = check_folder(run, cwd=tmp_path)
    assert checked.problems and "not there any more" in checked.problems[0]
    assert all(opened.verified and not opened.reviewable for opened in checked.samples)
    assert checked.samples[0].missing is not None


def test_sweep_samples_are_items_over_their_cell_context(tmp_path: Path) -> None:
    with context_server(REQUIREMENTS) as server:
        asyncio.run(run_sweep(QUESTION, bundle_data(), sweep_config(server.base_url), out=tmp_path / "sweep",
                              formats=["reader_cited"], budgets=["packed", "90%"], repeats=1))
    source = FolderSource(tmp_path / "sweep")
    items = source.items()
    assert source.kind == "sweep" and [item.key for item in items] == ["reader_cited@packed repeat 0",
                                                                         "reader_cited@90% repeat 0"]
    opened = [source.open(item) for item in items]
    assert all(item.reviewable for item in opened)
    assert len(opened[1].context or "") < len(opened[0].context or ""), "the cut cell shows its own, shorter context"
    labels = [_sample_label(item.assessment, "answerable") for item in opened]
    assert [m.standing for m in match(source, labels).matched] == [Standing.VALID, Standing.VALID]
