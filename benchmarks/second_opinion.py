"""Second opinion on the shipped data: unsafe answers it catches and correct answers it flags, per flag.

Two sets, both replayed through the pure derivation path (no model server):

1. ``samples``: every sample bundle's recorded reply, labelled by the trial dataset case that asks the sample's own
   question (``sample_bundles/trials/questions.json``), else by the table below (the second-opinion samples).
2. ``trials``: the trial datasets (``questions.json``, ``drafts.jsonl``) with the hand-written replies in
   ``second_opinion_replies.json`` (the datasets carry no recorded replies; see that file's ``about``). A draft
   case is "must not answer" when its draft is incorrect.

An unsafe answer is the action ``answer`` where the label says it must not be given; it is caught when some
requirement is flagged (or, with ``--nli-model-dir``, the verifier disagrees). A false alarm is the same on a
correct answer. ``python benchmarks/second_opinion.py [--json] [--nli-model-dir DIR]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from answerlens import AnswerabilityConfig, ClaimVerifier, MemoryBundle, derive_assessment, render_bundle
from answerlens.claims.onnx_scorer import OnnxNliScorer
from answerlens.records import ContextFormat
from answerlens.samples import list_samples, load_sample
from answerlens.second_opinion.counts import OpinionCounts, count_opinions
from answerlens.second_opinion.opinion import second_opinion_for
from answerlens.trials.dataset import load_dataset

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bundles"
TRIALS = SAMPLES / "trials"
REPLIES = Path(__file__).with_name("second_opinion_replies.json")
SAMPLE_LABELS = {
    "second_opinion_plan_as_fact": "unanswerable",
    "second_opinion_superseded_region": "unanswerable",
    "second_opinion_incident_count": "unanswerable",
}
"""Samples whose own question no trial case asks; labelled from their descriptions."""
CONFIG = AnswerabilityConfig(provider="replay", model="hand-written")

Run = tuple[str, MemoryBundle, str, str | None, str, str]
"""(name, bundle, question, draft, reply JSON text, label)."""


def sample_runs() -> Iterator[Run]:
    labels = {(Path(case.bundle).name, case.question): case.label
              for case in (item.case for item in load_dataset(TRIALS / "questions.json").cases)
              if isinstance(case.bundle, str)}
    for name, path in list_samples(SAMPLES).items():
        sample = load_sample(path)
        label = labels.get((path.name, sample.question)) or SAMPLE_LABELS.get(name)
        bundle = sample.load(name)
        if sample.recorded_reply is None or label is None or _uncitable(bundle):
            continue
        yield name, bundle, sample.question, sample.answer, json.dumps(sample.recorded_reply), label


def trial_runs() -> Iterator[Run]:
    replies = json.loads(REPLIES.read_text(encoding="utf-8"))
    for dataset, key in (("questions.json", "questions"), ("drafts.jsonl", "drafts")):
        for item in load_dataset(TRIALS / dataset).cases:
            case = item.case
            if case.id not in replies[key]:
                continue  # the empty bundle: never reaches a model
            label = case.label if case.answer_label is None else (
                "answerable" if case.answer_label == "correct" else "unanswerable")
            reply = _reply(replies[key][case.id], item.bundle)
            yield case.id, item.bundle, case.question, case.answer, reply, label


def _reply(requirements: list[list[Any]], bundle: MemoryBundle) -> str:
    labels = _auditable_labels(bundle)
    return json.dumps({"requirements": [
        {"requirement": text, "status": "supported", "evidence_refs": [labels.get(ref, ref) for ref in refs],
         "explanation": "hand-written"} for text, refs in requirements], "reasoning": "hand-written"})


def _auditable_labels(bundle: MemoryBundle) -> dict[str, str]:
    """The README's ``mN`` labels of an auditable bundle (from reader rendering) as the record ids it cites by."""
    if bundle.context_format != ContextFormat.AUDITABLE:
        return {}
    reader = render_bundle(bundle, "reader", context_citations=True)
    return {label: str(memory_id) for label, memory_id in reader.context_references.items()}


def _uncitable(bundle: MemoryBundle) -> bool:
    try:
        bundle.ensure_citable()
    except ValueError:
        return True
    return False


async def measure(runs: Iterator[Run], verifier: ClaimVerifier | None) -> tuple[OpinionCounts, list[dict[str, Any]]]:
    triples, rows = [], []
    for name, bundle, question, answer, reply, label in runs:
        assessment = derive_assessment(question, bundle, reply, config=CONFIG, answer=answer)
        opinion = await second_opinion_for(assessment, bundle, question, verifier=verifier)
        triples.append((assessment, opinion, label))
        rows.append({"case": name, "label": label, "action": assessment.recommended_action.value,
                     "flags": sorted({flag.code.value for item in opinion.requirements for flag in item.flags})})
    return count_opinions(triples), rows  # type: ignore[arg-type]


def table(title: str, counts: OpinionCounts) -> list[str]:
    reasons = sorted(set(counts.caught_by) | set(counts.false_alarms_by))
    lines = [f"### {title}", "",
             f"unsafe answers: {counts.unsafe_answers}, caught {counts.unsafe_caught}; "
             f"correct answers: {counts.correct_answers}, flagged (false alarms) {counts.false_alarms}", "",
             "| flag | unsafe answers caught | correct answers flagged |", "|---|---|---|"]
    lines += [f"| `{reason}` | {counts.caught_by.get(reason, 0)} | {counts.false_alarms_by.get(reason, 0)} |"
              for reason in reasons]
    lines.append(f"| any | {counts.unsafe_caught} of {counts.unsafe_answers} | "
                 f"{counts.false_alarms} of {counts.correct_answers} |")
    return lines


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print counts and per-case rows as JSON")
    parser.add_argument("--nli-model-dir", type=Path, help="also run the claim verifier with this ONNX model")
    args = parser.parse_args(argv)
    verifier = ClaimVerifier(scorer=OnnxNliScorer(args.nli_model_dir)) if args.nli_model_dir else None
    results = {name: await measure(runs, verifier)
               for name, runs in (("samples", sample_runs()), ("trials", trial_runs()))}
    if args.json:
        print(json.dumps({name: {"counts": counts.model_dump(), "cases": rows}
                          for name, (counts, rows) in results.items()}, indent=1))
        return 0
    titles = {"samples": "Sample bundles' recorded replies", "trials": "Trial datasets with hand-written replies"}
    for name, (counts, rows) in results.items():
        print("\n".join(table(titles[name], counts)))
        missed = [row["case"] for row in rows if row["label"] == "unanswerable" and row["action"] == "answer"
                  and not row["flags"]]
        alarms = [f"{row['case']} ({', '.join(row['flags'])})" for row in rows
                  if row["label"] == "answerable" and row["action"] == "answer" and row["flags"]]
        print(f"\nmissed: {', '.join(missed) or 'none'}\nfalse alarms: {', '.join(alarms) or 'none'}\n")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
