"""Labels out and in as JSON lines (hashes included), and reviewed runs out as a trial dataset that round-trips
through ``answerlens trial`` against a loopback model server: the gates judge the model against the people's
labels."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from answerlens.cli import main
from answerlens.errors import LabelError
from answerlens.review.export import BundleIndex, dataset_cases, read_labels, write_dataset, write_labels
from answerlens.review.items import StoreSource, match
from answerlens.review.labels import LabelStore
from answerlens.trials.dataset import load_dataset
from answerlens.trials.reader import read_trial
from tests.oracle_server import oracle_server
from tests.paths import SAMPLES
from tests.review.helpers import STEMS, filled, label
from tests.ui.conftest import sample

PEOPLE = {"answerable_billing_database": "answerable", "partial_checkout_migration": "partial",
          "insufficient_table_tennis": "insufficient", "conflicting_deploy_freeze": "conflicting",
          "second_opinion_plan_as_fact": "insufficient"}
"""What a careful reader says: the plan cited as fact does not establish the answer the judge gave."""


def test_labels_round_trip_through_json_lines(tmp_path: Path) -> None:
    labels = [label(stem, verdict, note="é ✓ \u2028 line") for stem, verdict in PEOPLE.items()]
    out = io.StringIO()
    assert write_labels(labels, out) == 5
    path = tmp_path / "labels.jsonl"
    path.write_text(out.getvalue() + "\n")
    assert read_labels(path) == labels
    assert all(len(line.splitlines()) == 1 for line in out.getvalue().splitlines())


@pytest.mark.parametrize(("text", "where"), [
    pytest.param("{}\n", "line 1", id="not_a_label"),
    pytest.param("\n\n{not json\n", "line 3", id="not_json"),
])
def test_a_bad_labels_file_names_the_line(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text(text)
    with pytest.raises(LabelError, match=where):
        read_labels(path)


def _reviewed(tmp_path: Path, people: dict[str, str], *, extra: list | None = None):  # type: ignore[no-untyped-def]
    runs = filled(tmp_path / "runs.sqlite3")
    store = LabelStore(runs)
    for stem, verdict in people.items():
        store.save(label(stem, verdict))
    for found in extra or []:
        store.save(found)
    return match(StoreSource(runs), store.labels())


def _trial(dataset: Path, out: Path, capsys) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    replies = {sample(stem).question: sample(stem).recorded_reply for stem in STEMS}
    with oracle_server(replies, models=("oracle",)) as server:
        code = main(["trial", str(dataset), "--repeats", "1", "--out", str(out), "--provider", "openai",
                     "--model", "oracle", "--base-url", server.base_url])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("by_path", [pytest.param(False, id="inline"), pytest.param(True, id="by_path")])
def test_reviewed_runs_become_a_dataset_whose_trial_gates_follow_the_people(tmp_path: Path, capsys,  # type: ignore[no-untyped-def]
                                                                            by_path: bool) -> None:
    exported = dataset_cases(_reviewed(tmp_path, PEOPLE), out=tmp_path / "reviewed.json",
                             bundles=BundleIndex([SAMPLES]), by_path=by_path)
    assert exported.skipped == () and exported.labels == 5 and len(exported.cases) == 5
    write_dataset(exported, tmp_path / "reviewed.json")
    dataset = load_dataset(tmp_path / "reviewed.json")
    by_question = {item.case.question: item.case for item in dataset.cases}
    for stem, verdict in PEOPLE.items():
        case = by_question[sample(stem).question]
        assert case.label.value == ("answerable" if verdict == "answerable" else "unanswerable")
        assert case.question_type == verdict
        assert isinstance(case.bundle, str) == by_path
    code, _ = _trial(tmp_path / "reviewed.json", tmp_path / "run", capsys)
    result = read_trial(tmp_path / "run")
    assert code == 1, "the gates fail: the model answers a question people found unanswerable"
    gates = result.quality_gates
    assert gates is not None and not gates.passed
    failed = [name for name, gate in gates.results.items() if not gate.passed]
    assert failed == ["unsafe_full_answer_count_max"]


def test_when_the_people_agree_with_the_answers_the_gates_pass(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    people = {**PEOPLE, "second_opinion_plan_as_fact": "answerable"}
    exported = dataset_cases(_reviewed(tmp_path, people), out=tmp_path / "reviewed.jsonl",
                             bundles=BundleIndex([SAMPLES]))
    write_dataset(exported, tmp_path / "reviewed.jsonl")
    code, _ = _trial(tmp_path / "reviewed.jsonl", tmp_path / "run", capsys)
    assert code == 0
    assert read_trial(tmp_path / "run").quality_gates.passed  # type: ignore[union-attr]


def test_what_cannot_be_exported_is_said(tmp_path: Path) -> None:
    reviewed = _reviewed(tmp_path, PEOPLE, extra=[label("partial_checkout_migration", "answerable", "bob")])
    exported = dataset_cases(reviewed, out=tmp_path / "reviewed.json", bundles=None)
    assert exported.cases == ()
    reasons = "\n".join(exported.skipped)
    assert "the reviewers disagree (ann: partial, bob: answerable)" in reasons
    assert reasons.count("its bundle was not found") == 4


def test_a_draft_answer_keeps_its_draft_with_the_people_s_label(tmp_path: Path) -> None:
    from tests.review.helpers import keep

    runs = filled(tmp_path / "runs.sqlite3", ())
    keep(runs, "draft_answer_unsupported_claim")
    store = LabelStore(runs)
    store.save(label("draft_answer_unsupported_claim", "partial"))
    exported = dataset_cases(match(StoreSource(runs), store.labels()), out=tmp_path / "d.json",
                             bundles=BundleIndex([SAMPLES / "draft_answer_unsupported_claim.json"]))
    [case] = exported.cases
    assert case["answer"] == sample("draft_answer_unsupported_claim").answer
    assert (case["label"], case["answer_label"]) == ("unanswerable", "incorrect")
    json.dumps(case)
