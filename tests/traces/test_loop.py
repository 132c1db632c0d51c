"""The whole loop against a real Phoenix: a small RAG pipeline traced with OpenInference attributes (CHAIN root,
RETRIEVER child with documents, LLM child), imported through Phoenix's REST API and through an OTLP JSON file,
assessed by the command line against a loopback model, written back, and read back from Phoenix's own APIs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from answerlens.assessment import AnswerabilityAssessment
from answerlens.audit import canonical_json_ascii, sha256_text
from answerlens.cli import main
from answerlens.explanation import why
from tests.context_server import context_server
from tests.phoenix_server import Phoenix
from tests.traces.phoenix_reads import document_annotations, send, span_annotations
from tests.traces.pipeline import ANSWER, QUESTION, OtlpJsonLines, provider, run_pipeline

REQUIREMENTS = {"Which database does the dashboard API use?": "Postgres 16",
                "Who owns billing?": "owns billing"}
"""What the loopback model judges: the first is stated by the Postgres document (position 0), the second by none."""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assess(capsys: pytest.CaptureFixture[str], sample: Path, base_url: str, *extra: str) -> tuple[int, str, str]:
    return run(capsys, "assess", str(sample), "--provider", "openai", "--base-url", base_url, "--model",
               "context-oracle", "--json", *extra)


def test_import_from_phoenix_assess_and_write_back(phoenix: Phoenix, project: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSWERLENS_APP_URL", raising=False)  # the run link names the app `make run` serves
    traced = send(phoenix, project)
    sample_path = tmp_path / "sample.json"

    code, out, err = run(capsys, "import-trace", "--phoenix", phoenix.url, "--project", project, "-o",
                         str(sample_path))
    assert code == 0, err
    assert f"span {traced.retriever_span_id} of trace {traced.trace_id}" in out
    sample = json.loads(sample_path.read_text())
    assert sample["question"] == QUESTION and "answer" not in sample
    assert [record["text"] for record in sample["bundle"]["records"]] == [
        "The dashboard API stores its data in Postgres 16.", "Redis 7 caches the dashboard's sessions.",
        "The billing team moved to the third floor in March."]
    assert [record["id"] for record in sample["bundle"]["records"]] == ["kb-postgres", "kb-redis", "kb-floor"]
    assert sample["bundle"]["records"][0]["metadata"]["document"] == {
        "position": 0, "score": 0.91,
        "metadata": {"source": "runbook.md", "section": "storage"}}
    (listed,) = [s for s in phoenix.spans(project) if s["context"]["span_id"] == traced.retriever_span_id]
    assert sample["import"] | {"record_ids": None} == {
        "source": "phoenix", "trace_id": traced.trace_id, "span_id": traced.retriever_span_id, "project": project,
        "positions": [0, 1, 2], "record_ids": None,
        "span_sha256": sha256_text(canonical_json_ascii(listed["attributes"]))}

    with context_server(REQUIREMENTS) as model:
        code, out, err = assess(capsys, sample_path, model.base_url, "--annotate", "--phoenix", phoenix.url)
    assert code == 0, err
    assessment = AnswerabilityAssessment.model_validate_json(out)
    assert assessment.trace_import is not None and assessment.trace_import.span_id == traced.retriever_span_id
    assert (assessment.verdict.value, assessment.recommended_action.value) == ("partial", "answer_partially")
    assert "wrote the verdict (answer_partially, score 0.50)" in err and "1 accepted, 2 not cited" in err
    assert f"{phoenix.url}/projects/" in err and f"/traces/{traced.trace_id}?selectedSpanNodeId=" in err

    (annotation,) = span_annotations(phoenix, project, traced.retriever_span_id)
    assert {key: annotation[key] for key in ("name", "annotator_kind", "identifier", "source")} == {
        "name": "answerlens.answerability", "annotator_kind": "CODE", "identifier": assessment.evaluation_id,
        "source": "API"}
    assert annotation["result"] == {"label": "answer_partially", "score": 0.5, "explanation": why(assessment)}
    assert annotation["metadata"] == {"evaluation_id": assessment.evaluation_id, "verdict": "partial",
                                      "assessment_sha256": assessment.assessment_sha256,
                                      "span_sha256": sample["import"]["span_sha256"],
                                      "run_url": f"http://127.0.0.1:8501/?run={assessment.evaluation_id}"}
    documents = document_annotations(phoenix, project, traced.retriever_span_id)
    assert [(d["documentPosition"], d["name"], d["label"], d["score"], d["annotatorKind"]) for d in documents] == [
        (0, "answerlens.answerability", "accepted", 1.0, "CODE"),
        (1, "answerlens.answerability", "not cited", 0.0, "CODE"),
        (2, "answerlens.answerability", "not cited", 0.0, "CODE")]
    assert documents[0]["explanation"] == "accepted by requirement 1 (m1)"
    assert documents[0]["metadata"]["requirements"] == [1]

    # Written again (the command on its own): updated in place, not duplicated.
    (tmp_path / "assessment.json").write_text(out)
    code, out, err = run(capsys, "annotate", str(tmp_path / "assessment.json"), "--phoenix", phoenix.url)
    assert code == 0, err
    assert [a["id"] for a in span_annotations(phoenix, project, traced.retriever_span_id)] == [annotation["id"]]
    assert len(document_annotations(phoenix, project, traced.retriever_span_id)) == 3


def test_import_from_an_otlp_json_file_with_the_draft_answer(phoenix: Phoenix, project: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    file = tmp_path / "spans.jsonl"
    tracer_provider = provider(project, OTLPSpanExporter(endpoint=f"{phoenix.url}/v1/traces"), OtlpJsonLines(file))
    traced = run_pipeline(tracer_provider)
    tracer_provider.shutdown()
    assert len(file.read_text().splitlines()) == 3  # one exported batch per span: JSON lines
    phoenix.wait_for_spans(lambda spans: len(spans) >= 3, project)

    code, out, err = run(capsys, "import-trace", str(file), "--with-answer", "-o", str(tmp_path / "sample.json"))
    assert code == 0, err
    sample = json.loads((tmp_path / "sample.json").read_text())
    assert (sample["question"], sample["answer"]) == (QUESTION, ANSWER)
    assert sample["import"]["source"] == "otlp-file" and sample["import"]["project"] == project
    assert sample["bundle"]["records"][1]["metadata"]["document"]["metadata"] == {"source": "runbook.md"}

    with context_server(REQUIREMENTS) as model:
        code, out, err = assess(capsys, tmp_path / "sample.json", model.base_url)
    assert code == 0, err
    assert json.loads(out)["answer_sha256"] == sha256_text(ANSWER)  # the draft was checked too
    (tmp_path / "assessment.json").write_text(out)
    code, _, err = run(capsys, "annotate", str(tmp_path / "assessment.json"), "--phoenix", phoenix.url)
    assert code == 0, err
    labels = [d["label"] for d in document_annotations(phoenix, project, traced.retriever_span_id)]
    assert labels == ["accepted", "not cited", "not cited"]


def test_nothing_is_written_for_a_failed_assessment(phoenix: Phoenix, project: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from tests.scripted_server import ScriptedServer, openai_error

    traced = send(phoenix, project)
    assert run(capsys, "import-trace", "--phoenix", phoenix.url, "--project", project, "--trace-id",
               traced.trace_id, "-o", str(tmp_path / "sample.json"))[0] == 0
    with ScriptedServer() as server:
        server.script("/v1/chat/completions", openai_error("the model is overloaded", 500))
        code, out, err = assess(capsys, tmp_path / "sample.json", server.base_url, "--annotate", "--phoenix",
                                phoenix.url, "--max-retries", "0")
    assert code == 3 and out == "" and "wrote" not in err
    assert span_annotations(phoenix, project, traced.retriever_span_id) == []
    assert document_annotations(phoenix, project, traced.retriever_span_id) == []


def test_an_edited_assessment_is_not_written(phoenix: Phoenix, project: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    traced = send(phoenix, project)
    run(capsys, "import-trace", "--phoenix", phoenix.url, "--project", project, "-o", str(tmp_path / "s.json"))
    with context_server(REQUIREMENTS) as model:
        _, out, _ = assess(capsys, tmp_path / "s.json", model.base_url)
    edited: dict[str, Any] = json.loads(out)
    edited["recommended_action"] = "answer"
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    code, _, err = run(capsys, "annotate", str(tmp_path / "edited.json"), "--phoenix", phoenix.url)
    assert code == 2 and "does not verify, so nothing was written" in err
    assert span_annotations(phoenix, project, traced.retriever_span_id) == []
