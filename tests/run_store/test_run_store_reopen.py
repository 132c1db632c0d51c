"""Reopening a stored run re-derives what the run shows from what is stored, and refuses the run when anything
differs: the context against ``context_sha256`` (and every citation span against that context), the question and
draft against their hashes, the listed summary and label against the assessment, the second opinion against its
own hashes and rules. The attacks edit runs.sqlite3 directly, as anyone with the file can, and recompute every
hash by its public formula (the store keeps no hash of its own; its ``bytes`` column is kept true too)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from answerlens import AnswerabilityConfig
from answerlens.audit import assessment_sha256, evaluation_id, provenance, provenance_sha256, sha256_text
from answerlens.config import EvidencePolicy
from answerlens.errors import RunStoreError
from answerlens.html.provenance import source_label
from answerlens.run_store import RunStore
from answerlens.second_opinion.audit import opinion_id, opinion_sha256
from answerlens.ui.common import history, runner
from tests.paths import SAMPLES
from tests.ui.conftest import opinion, recorded, sample

TARGET, OTHER = "second_opinion_plan_as_fact", "conflicting_deploy_freeze"

Row = dict[str, Any]


def keep(store: RunStore, stem: str, **extra: Any) -> int:
    found = sample(stem)
    assessment = recorded(stem)
    fields: Row = {"assessment": assessment, "question": found.question, "answer": found.answer,
                   "context": found.load().exact_context, "source": found.title, "label": source_label(assessment)[0],
                   "opinion": opinion(stem), **extra}
    return store.add(**fields).number


def stored(tmp_path: Path) -> Path:
    """Run #1 (the target, with its second opinion) and run #2, both real samples."""
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    assert keep(store, TARGET) == 1 and keep(store, OTHER) == 2
    return path


def rows(path: Path) -> dict[int, Row]:
    with sqlite3.connect(path) as db:
        db.row_factory = sqlite3.Row
        return {row["number"]: dict(row) for row in db.execute("SELECT * FROM runs")}


def write(path: Path, number: int, changes: Row) -> None:
    """Set the columns, then recompute the run's ``bytes`` as the store does, so nothing store-level tells."""
    with sqlite3.connect(path) as db:
        for column, value in changes.items():
            db.execute(f"UPDATE runs SET {column} = ? WHERE number = ?", (value, number))
        text = db.execute("SELECT assessment, context, question, answer, opinion FROM runs WHERE number = ?",
                          (number,)).fetchone()
        db.execute("UPDATE runs SET bytes = ? WHERE number = ?",
                   (sum(len((part or "").encode()) for part in text), number))


def rehash(document: Row) -> Row:
    """The assessment's own hashes recomputed by their public formulas (inputs, output, provenance)."""
    document["evaluation_id"] = evaluation_id(document)
    document["assessment_sha256"] = assessment_sha256(
        evaluation_id=document["evaluation_id"], verdict=document["verdict"],
        recommended_action=document["recommended_action"], requirements=document["requirements"],
        citation_errors=document["citation_errors"], reasoning=document["reasoning"])
    if document.get("provenance_sha256") is not None:
        document["provenance_sha256"] = provenance_sha256(provenance(document))
    return document


def reseal(opinion_dump: Row, document: Row) -> str:
    """The second opinion tied to the (edited) assessment, its two hashes recomputed."""
    opinion_dump["assessment_evaluation_id"] = document["evaluation_id"]
    opinion_dump["assessment_sha256"] = document["assessment_sha256"]
    opinion_dump["opinion_id"] = opinion_id(opinion_dump)
    opinion_dump["opinion_sha256"] = opinion_sha256(opinion_dump)
    return json.dumps(opinion_dump)


def swapped_context(mine: Row, other: Row) -> Row:
    return {"context": other["context"]}


def one_character(mine: Row, other: Row) -> Row:
    context = mine["context"]
    at = context.index("[m") + 2  # a citation label's digit: the line the model cited names another record
    return {"context": context[:at] + ("9" if context[at] != "9" else "8") + context[at + 1:]}


def swapped_context_rehashed(mine: Row, other: Row) -> Row:
    """The context of another run, and the assessment rewritten to claim it: its context_sha256, the recording's
    binding, evaluation_id, assessment_sha256 and provenance_sha256 all recomputed; the opinion resealed."""
    document = json.loads(mine["assessment"])
    document["context_sha256"] = sha256_text(other["context"])
    document["provider_metadata"]["recording"]["binding"]["context_sha256"] = document["context_sha256"]
    rehash(document)
    return {"context": other["context"], "assessment": json.dumps(document), "evaluation_id": document["evaluation_id"],
            "opinion": reseal(json.loads(mine["opinion"]), document)}


def shifted_span(mine: Row, other: Row) -> Row:
    """The highlight of an accepted citation moved to another line (spans are covered by no hash)."""
    document = json.loads(mine["assessment"])
    (decision, *_) = (c for r in document["requirements"] for c in r["citations"] if c["decision"] == "accepted")
    decision["span"] = {"start": decision["span"]["start"] + 40, "end": decision["span"]["end"] + 40}
    return {"assessment": json.dumps(document)}


def swapped_question(mine: Row, other: Row) -> Row:
    return {"question": other["question"]}


def added_draft(mine: Row, other: Row) -> Row:
    return {"answer": "The team adopted the plan."}


def relabelled(mine: Row, other: Row) -> Row:
    return {"label": "live model: openai gpt-4o at https://api.openai.com/v1"}


def relinked(mine: Row, other: Row) -> Row:
    return {"evaluation_id": "0" * 64}


def recounted(mine: Row, other: Row) -> Row:
    return {"requirements": 9}


def flag_dropped(mine: Row, other: Row) -> Row:
    """The second opinion's warning flags removed, its hashes recomputed."""
    dump = json.loads(mine["opinion"])
    assert any(item["flags"] for item in dump["requirements"]), "the target sample is flagged"
    for item in dump["requirements"]:
        item["flags"] = []
    return {"opinion": reseal(dump, json.loads(mine["assessment"]))}


ATTACKS: list[Any] = [
    pytest.param(swapped_context, "context: not the exact context assessed", id="swapped_context"),
    pytest.param(one_character, "context: not the exact context assessed", id="one_character_of_the_context"),
    pytest.param(swapped_context_rehashed, "requirements[0].citations[0]", id="swapped_context_every_hash_recomputed"),
    pytest.param(shifted_span, "requirements[0].citations[0].span", id="shifted_highlight"),
    pytest.param(swapped_question, "question: not the question assessed", id="swapped_question"),
    pytest.param(added_draft, "answer: the assessment checked no draft answer", id="added_draft"),
    pytest.param(relabelled, "its listed label", id="relabelled_as_live"),
    pytest.param(relinked, "its listed evaluation_id", id="link_to_another_id"),
    pytest.param(recounted, "its listed requirements", id="requirement_count"),
    pytest.param(flag_dropped, "second_opinion.requirements[0].flags", id="opinion_flags_dropped_rehashed"),
]


@pytest.mark.parametrize("attack, names", ATTACKS)
def test_an_edited_run_is_refused_naming_what_differs(tmp_path: Path, attack: Callable[[Row, Row], Row],
                                                      names: str) -> None:
    path = stored(tmp_path)
    before = rows(path)
    write(path, 1, attack(before[1], before[2]))
    state: dict = {history.STORE_KEY: RunStore(path)}
    evaluation = rows(path)[1]["evaluation_id"]
    assert history.by_id(state, evaluation) is None and history.find(state, 1) is None  # deep link and picker
    problem = history.take_problem(state)
    assert problem is not None and not problem.whole_file
    assert "Run #1 in the run history" in problem.detail and "does not verify" in problem.detail
    assert names in problem.detail and "assess it again" in problem.remedy
    other = history.find(state, 2)
    assert other is not None and other.assessment == recorded(OTHER) and history.problem(state) is None
    with pytest.raises(RunStoreError, match=r"Run #1 in the run history .* does not verify"):
        RunStore(path).open(1)


def test_every_sample_reopens_with_nothing_left_unchecked(tmp_path: Path) -> None:
    """No false alarm: every sample's run (with its second opinion) reopens as stored, fully re-derived."""
    store = RunStore(tmp_path / "runs.sqlite3")
    stems = [path.stem for path in sorted(SAMPLES.glob("*.json")) if path.stem != "reader_without_citations"]
    for stem in stems:
        opened = store.open(keep(store, stem))
        assert opened.assessment == recorded(stem) and opened.opinion == opinion(stem), stem
        assert opened.context == sample(stem).load().exact_context and opened.unchecked == (), stem


def test_a_legacy_run_without_provenance_sha256_opens_saying_what_was_not_checked(tmp_path: Path) -> None:
    path = stored(tmp_path)
    document = json.loads(rows(path)[1]["assessment"])
    del document["provenance_sha256"]  # made before answerlens recorded it: no hash was ever there to recompute
    write(path, 1, {"assessment": json.dumps(document)})
    opened = RunStore(path).open(1)
    (note,) = opened.unchecked
    assert "provenance_sha256 absent" in note and opened.assessment.provenance_sha256 is None
    entry = history.find({history.STORE_KEY: RunStore(path)}, 1)
    assert entry is not None and entry.unchecked == opened.unchecked


def test_a_context_that_names_no_format_opens_saying_its_highlights_were_not_re_derived(tmp_path: Path) -> None:
    """A bundle whose rendered context has no header line (a hand-made one) is assessed like any other; reopened,
    its citations cannot be placed by format, so it opens saying so rather than being refused."""
    found = sample("answerable_billing_database")
    bundle = found.load()
    headerless = "\n".join(line for line in bundle.exact_context.split("\n") if not line.startswith("Lines starting"))
    config = AnswerabilityConfig(provider="replay", model=found.recorded_model)
    run = runner.assess(config, bundle.model_copy(update={"rendered_context": headerless}), found.question,
                        recording=found.recording(source="answerable_billing_database.json"), force_replay=True)
    assert run.assessment is not None and any(item.evidence_refs for item in run.assessment.requirements)
    store = RunStore(tmp_path / "runs.sqlite3")
    number = store.add(assessment=run.assessment, question=found.question, context=headerless, source=found.title,
                       label=source_label(run.assessment)[0]).number
    opened = store.open(number)
    (note,) = opened.unchecked
    assert opened.context == headerless and "highlights" in note and "no header naming one" in note


def test_a_strict_run_reopens_with_its_strict_opinion(tmp_path: Path) -> None:
    found = sample(TARGET)
    config = AnswerabilityConfig(provider="replay", model=found.recorded_model, evidence_policy=EvidencePolicy.STRICT)
    run = runner.assess(config, found.load(), found.question, recording=found.recording(source=f"{TARGET}.json"))
    assert run.assessment is not None and run.opinion is not None and run.opinion.strict is not None
    store = RunStore(tmp_path / "runs.sqlite3")
    number = keep(store, TARGET, assessment=run.assessment, opinion=run.opinion,
                  label=source_label(run.assessment)[0])
    opened = store.open(number)
    assert opened.opinion == run.opinion and opened.unchecked == ()
