"""Every source the import refuses gets its own message, saying what to change; and choosing a span: by id, the
only one, or a list to choose from. Files come from the test pipeline's own OTLP JSON exporter; Phoenix is real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens.cli import main
from tests.paths import SAMPLES
from tests.phoenix_server import ADMIN_SECRET, Phoenix, free_port
from tests.traces.phoenix_reads import send
from tests.traces.pipeline import Document, OtlpJsonLines, otlp_json, provider, run_pipeline

FIXTURES = Path(__file__).parent / "fixtures"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, " ".join(err.split())


def traced_file(tmp_path: Path, **options: object) -> Path:
    file = tmp_path / "spans.jsonl"
    tracer_provider = provider("rag", OtlpJsonLines(file))
    run_pipeline(tracer_provider, **options)  # type: ignore[arg-type]
    tracer_provider.shutdown()
    return file


def refused(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> str:
    code, out, err = run(capsys, "import-trace", *argv, "-o", str(tmp_path / "sample.json"))
    assert (code, out) == (2, ""), err
    assert not (tmp_path / "sample.json").exists()
    return err


@pytest.mark.parametrize("options, message", [
    pytest.param({"retrieve": False}, "has no RETRIEVER span (its spans: CHAIN ×1, LLM ×1); import a trace with a "
                 "retrieval step, or pass --reranker for a RERANKER span", id="no_retriever_span"),
    pytest.param({"documents": ()}, "RETRIEVER span 'retrieve' ({span}) has no documents "
                 "(retrieval.documents.N.document.*): nothing to assess", id="no_documents"),
    pytest.param({"documents": (Document("Postgres 16.", id="a"), Document(None, id="b"), Document(" ", id="c"))},
                 "documents 1, 2 of RETRIEVER span 'retrieve' ({span}) have no content "
                 "(retrieval.documents.N.document.content)", id="documents_without_content"),
])
def test_a_span_that_gives_no_fair_bundle_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     options: dict, message: str) -> None:
    file = traced_file(tmp_path, **options)
    spans = [span for line in file.read_text().splitlines() for resource in json.loads(line)["resourceSpans"]
             for scope in resource["scopeSpans"] for span in scope["spans"] if span["name"] == "retrieve"]
    err = refused(capsys, tmp_path, str(file))
    assert message.format(span=spans[0]["spanId"] if spans else "") in err


def test_content_cut_by_the_attribute_length_limit_is_refused_with_how_to_raise_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "40")  # read by the SDK's SpanLimits
    err = refused(capsys, tmp_path, str(traced_file(tmp_path)))
    assert "documents 0, 1, 2 of RETRIEVER span 'retrieve'" in err
    assert "end at exactly 40 characters, the attribute value length limit set here and as long as the trace's " \
           "longest text: their content looks cut by an attribute length limit: OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT" \
           in err
    assert "raise or unset it in the traced application" in err


def test_content_cut_at_a_typical_limit_elsewhere_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "128")  # the traced application's, not the importer's
    long = [Document(f"Document {n}: " + "the billing service keeps its invoices in Postgres 16. " * 4, id=f"k{n}")
            for n in range(2)]
    file = traced_file(tmp_path, documents=long)
    monkeypatch.delenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT")
    err = refused(capsys, tmp_path, str(file))
    assert "documents 0, 1 of RETRIEVER span 'retrieve'" in err
    assert "end at exactly 128 characters, a usual length limit reached by 3 texts of the trace" in err


@pytest.mark.parametrize("name", ["samelen_as_question.json", "fixed_chunks.json", "jsoninput.json"])
def test_complete_documents_of_one_length_are_not_taken_for_cut_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.delenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", raising=False)
    code, _, err = run(capsys, "import-trace", str(FIXTURES / name), "-o", str(tmp_path / "sample.json"))
    assert code == 0, err
    assert json.loads((tmp_path / "sample.json").read_text())["import"]["positions"]


def test_one_short_document_is_not_taken_for_a_cut_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = traced_file(tmp_path, documents=(Document("The dashboard API stores its data in Postgres 16."),),
                       question="Which database?")
    code, _, err = run(capsys, "import-trace", str(file), "-o", str(tmp_path / "sample.json"))
    assert code == 0, err
    assert "note: document 0 has no id: it is named doc0" in err
    record = json.loads((tmp_path / "sample.json").read_text())["bundle"]["records"][0]
    assert record["id"] == "doc0" and record["metadata"]["document"] == {"position": 0}


def test_dropped_attributes_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # The SDK drops the oldest attributes first: the retriever's kind goes first, so it is no retriever any more.
    monkeypatch.setenv("OTEL_ATTRIBUTE_COUNT_LIMIT", "6")
    err = refused(capsys, tmp_path, str(traced_file(tmp_path)))
    assert "has no RETRIEVER span (its spans: CHAIN ×1, UNKNOWN ×2)" in err
    assert "The tracer dropped attributes of 2 span(s) (the span kind and documents among them, perhaps): raise " \
           "OTEL_ATTRIBUTE_COUNT_LIMIT (default 128)" in err


def _write(tmp_path: Path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    return str(tmp_path / name)


def _protobuf_mapping(tmp_path: Path) -> str:
    """The spans written with protobuf's own JSON mapping (base64 ids), which OTLP/JSON is not."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    traced = run_pipeline(provider("rag"))
    document = MessageToDict(encode_spans(traced.spans), use_integers_for_enums=True)
    return _write(tmp_path, "protobuf.json", json.dumps(document))


def _enum_names(tmp_path: Path) -> str:
    """OTLP JSON with an enum written by its name (OTLP/JSON writes numbers)."""
    document = otlp_json(run_pipeline(provider("rag")).spans)
    document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["kind"] = "SPAN_KIND_INTERNAL"
    return _write(tmp_path, "names.json", json.dumps(document))


def test_a_file_that_is_not_otlp_json_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = SAMPLES / "answerable_billing_database.json"
    assert "not OTLP JSON: expected an object with \"resourceSpans\" (OTLP/HTTP JSON, or a collector's file " \
           "exporter); found an object with keys: bundle, description, expected" in refused(capsys, tmp_path,
                                                                                         str(sample))
    listing = _write(tmp_path, "listing.json", json.dumps({"data": [], "next_cursor": None}))
    assert "this looks like Phoenix's span listing: import from Phoenix itself (--phoenix URL --project NAME)" \
        in refused(capsys, tmp_path, listing)
    assert "Invalid hex string for field 'trace_id'" in refused(capsys, tmp_path, _protobuf_mapping(tmp_path))
    assert "Field 'kind' expected <class 'int'>, got str (trace and span ids are hex, enums are numbers" in refused(
        capsys, tmp_path, _enum_names(tmp_path))
    good = json.dumps(otlp_json(run_pipeline(provider("rag")).spans))
    assert "lines.jsonl, line 2: not OTLP JSON: invalid JSON at line 1 column 1" in refused(
        capsys, tmp_path, _write(tmp_path, "lines.jsonl", good + "\nnot json\n"))
    assert "the file is empty" in refused(capsys, tmp_path, _write(tmp_path, "empty.json", "\n"))
    assert "garbage.txt: not OTLP JSON: invalid JSON at line 1 column 1" in refused(
        capsys, tmp_path, str(FIXTURES / "garbage.txt"))
    assert "file not found" in refused(capsys, tmp_path, str(tmp_path / "missing.json"))


def test_a_file_with_several_retriever_spans_lists_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "spans.jsonl"
    tracer_provider = provider("rag", OtlpJsonLines(file))
    first = run_pipeline(tracer_provider, question="Which database?")
    second = run_pipeline(tracer_provider, question="Which cache?")
    code, out, err = run(capsys, "import-trace", str(file), "-o", str(tmp_path / "sample.json"))
    assert code == 2 and "has 2 RETRIEVER spans: choose one by its span id: pass --span-id" in err
    rows = out.splitlines()
    assert rows[0].split() == ["TRACE", "ID", "SPAN", "ID", "STARTED", "(UTC)", "DOCS", "NAME", "/", "QUESTION"]
    assert [row.split()[:2] for row in rows[1:]] == [[first.trace_id, first.retriever_span_id],
                                                      [second.trace_id, second.retriever_span_id]]
    assert rows[2].endswith("retrieve / Which cache?") and rows[2].split()[4] == "3"
    for wanted in (["--span-id", second.retriever_span_id.upper()], ["--trace-id", second.trace_id]):
        code, _, err = run(capsys, "import-trace", str(file), *wanted, "-o", str(tmp_path / "chosen.json"))
        assert code == 0, err
        assert json.loads((tmp_path / "chosen.json").read_text())["question"] == "Which cache?"
    err = refused(capsys, tmp_path, str(file), "--span-id", second.llm_span_id)
    assert f"span {second.llm_span_id} ('generate') of {file} is a LLM span, not a RETRIEVER" in err
    assert "span id 'xyz' is not 16 hex digits" in refused(capsys, tmp_path, str(file), "--span-id", "xyz")


def test_a_reranker_span_gives_its_output_documents_in_their_new_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = traced_file(tmp_path, reranked=[2, 0])
    code, _, err = run(capsys, "import-trace", str(file), "--reranker", "-o", str(tmp_path / "sample.json"))
    assert code == 0, err
    sample = json.loads((tmp_path / "sample.json").read_text())
    assert [r["id"] for r in sample["bundle"]["records"]] == ["kb-floor", "kb-postgres"]
    assert sample["import"]["positions"] == [0, 1]


def test_a_phoenix_that_does_not_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    code, out, err = run(capsys, "import-trace", "--phoenix", url, "-o", str(tmp_path / "sample.json"))
    assert (code, out) == (3, "")
    assert f"Phoenix is not reachable at {url} (ConnectError) — start it (`phoenix serve`) or check the URL" in err


def test_an_unknown_project_says_so(phoenix: Phoenix, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "import-trace", "--phoenix", phoenix.url, "--project", "no-such-project", "-o",
                       str(tmp_path / "sample.json"))
    assert code == 3 and f"Phoenix at {phoenix.url} has no project 'no-such-project'" in err


def test_a_phoenix_that_refuses_the_key(phoenix_with_key: Phoenix, project: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    traced = send(phoenix_with_key, project)
    argv = ["import-trace", "--phoenix", phoenix_with_key.url, "--project", project, "-o", str(tmp_path / "s.json")]
    monkeypatch.delenv("PHOENIX_API_KEY", raising=False)
    code, _, err = run(capsys, *argv)
    assert code == 3 and f"Phoenix at {phoenix_with_key.url} requires an API key (401" in err
    assert "export PHOENIX_API_KEY=… with a key from its Settings → API Keys" in err
    wrong = "sk-PLANTED-wrong-phoenix-key-77"
    monkeypatch.setenv("PHOENIX_API_KEY", wrong)
    code, out, err = run(capsys, *argv)
    assert code == 3 and "refused the API key in PHOENIX_API_KEY (401" in err
    assert wrong not in out + err
    monkeypatch.setenv("PHOENIX_API_KEY", ADMIN_SECRET)
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    assert json.loads((tmp_path / "s.json").read_text())["import"]["span_id"] == traced.retriever_span_id
    assert ADMIN_SECRET not in (tmp_path / "s.json").read_text()


def test_a_project_with_several_retriever_spans_offers_its_latest(
        phoenix: Phoenix, project: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    older, newer = send(phoenix, project, question="Which database?"), send(phoenix, project, question="Which cache?")
    code, out, err = run(capsys, "import-trace", "--phoenix", phoenix.url, "--project", project, "-o",
                         str(tmp_path / "sample.json"))
    assert code == 2 and "(its latest 2 RETRIEVER spans) has 2 RETRIEVER spans" in err
    assert [row.split()[1] for row in out.splitlines()[1:]] == [newer.retriever_span_id, older.retriever_span_id]
    code, _, err = run(capsys, "import-trace", "--phoenix", phoenix.url, "--project", project, "--span-id",
                       older.retriever_span_id, "--with-answer", "-o", str(tmp_path / "sample.json"))
    assert code == 0, err
    sample = json.loads((tmp_path / "sample.json").read_text())
    assert sample["question"] == "Which database?" and sample["answer"].startswith("The dashboard API uses")
    code, _, err = run(capsys, "import-trace", "--phoenix", phoenix.url, "--project", project, "--trace-id",
                       newer.trace_id, "--span-id", newer.retriever_span_id, "-o", str(tmp_path / "x.json"))
    assert code == 2 and "not allowed with argument" in err
