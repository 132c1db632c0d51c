"""An assessment of an imported sample → Phoenix's annotation bodies: the span's (action, supported fraction, why,
evaluation_id as identifier) and each document's label (accepted / discarded / not cited) with the requirement
numbers and reason codes."""

from __future__ import annotations

import json

from answerlens.assessment import derive_assessment
from answerlens.config import AnswerabilityConfig
from answerlens.explanation import why
from answerlens.loading import load_bundle
from answerlens.trace_import import TraceImport
from answerlens.traces.annotations import (
    DocumentLabel,
    document_annotations,
    document_verdicts,
    span_annotation,
    supported_fraction,
)

UUIDS = ["5f2b7d9e-1c3a-4b6d-8e0f-12345678900" + str(i) for i in range(4)]
BUNDLE = {"records": [{"id": UUIDS[i], "text": text} for i, text in enumerate(
    ["The API uses Postgres 16.", "Redis 7 caches sessions.", "Billing moved floors.", "Craig writes Go."])]}


def assessed(requirements: list[tuple[str, str, list[str]]]):  # type: ignore[no-untyped-def]
    reply = {"requirements": [{"requirement": text, "status": status, "evidence_refs": refs, "explanation": "e"}
                              for text, status, refs in requirements], "reasoning": "r"}
    bundle = load_bundle(BUNDLE)
    assessment = derive_assessment("Which database, cache and owner?", bundle, json.dumps(reply),
                                   config=AnswerabilityConfig(provider="replay", model="recorded"))
    ids = tuple(candidate.node.id for group in bundle.sections.values() for candidate in group)
    block = TraceImport(source="phoenix", trace_id="ab" * 16, span_id="cd" * 8, project="rag",
                        positions=(3, 4, 5, 6), record_ids=ids, span_sha256="e" * 64)
    return assessment, block, bundle


def test_each_document_is_labelled_by_what_the_requirements_did_with_it() -> None:
    # m-labels follow the ids' order: m1..m4 are the documents at positions 3..6.
    assessment, block, _ = assessed([("database", "supported", ["m1"]),
                                     ("cache", "supported", ["m2", "m1", UUIDS[2]]),
                                     ("owner", "unsupported", [])])
    verdicts = document_verdicts(assessment, block)
    assert [(v.position, v.label, v.requirements) for v in verdicts] == [
        (3, DocumentLabel.ACCEPTED, (1, 2)), (4, DocumentLabel.ACCEPTED, (2,)),
        (5, DocumentLabel.DISCARDED, (2,)), (6, DocumentLabel.NOT_CITED, ())]
    assert [v.explanation for v in verdicts] == [
        "accepted by requirement 1 (m1), requirement 2 (m1)", "accepted by requirement 2 (m2)",
        "discarded by requirement 2 (unknown_reference)", "no requirement cites it"]
    bodies = [annotation.body() for annotation in document_annotations(assessment, block)]
    assert bodies[2] == {"span_id": "cd" * 8, "name": "answerlens.answerability", "annotator_kind": "CODE",
                         "document_position": 5, "identifier": "",
                         "result": {"label": "discarded", "score": 0.0,
                                    "explanation": "discarded by requirement 2 (unknown_reference)"},
                         "metadata": {"evaluation_id": assessment.evaluation_id,
                                      "assessment_sha256": assessment.assessment_sha256, "requirements": [2]}}
    assert [body["result"]["score"] for body in bodies] == [1.0, 1.0, 0.0, 0.0]


def test_the_span_annotation_carries_the_action_the_supported_fraction_and_why() -> None:
    assessment, block, _ = assessed([("database", "supported", ["m1"]), ("cache", "supported", ["m2"]),
                                     ("owner", "unsupported", [])])
    body = span_annotation(assessment, block, run_url="http://app/?run=x").body()
    assert body == {"span_id": "cd" * 8, "name": "answerlens.answerability", "annotator_kind": "CODE",
                    "identifier": assessment.evaluation_id,
                    "result": {"label": "answer_partially", "score": 2 / 3, "explanation": why(assessment)},
                    "metadata": {"evaluation_id": assessment.evaluation_id, "verdict": "partial",
                                 "assessment_sha256": assessment.assessment_sha256, "span_sha256": "e" * 64,
                                 "run_url": "http://app/?run=x"}}
    assert "run_url" not in span_annotation(assessment, block).body()["metadata"]
    assert supported_fraction(assessment) == 2 / 3
