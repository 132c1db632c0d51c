"""What verify says of an import block: where the evidence came from; cited memories that are none of the span's
documents; against the sample it was made from, another span or other records."""

from __future__ import annotations

import json
from pathlib import Path

from answerlens.verification.imported import import_note, import_problems
from tests.traces.pipeline import otlp_json, provider, run_pipeline


def imported(tmp_path: Path) -> tuple[dict, dict]:
    from answerlens.assessment import derive_assessment
    from answerlens.config import AnswerabilityConfig
    from answerlens.traces.importer import import_file

    (tmp_path / "spans.json").write_text(json.dumps(otlp_json(run_pipeline(provider("rag")).spans)))
    sample = import_file(tmp_path / "spans.json").sample
    reply = json.dumps({"requirements": [{"requirement": "db", "status": "supported", "evidence_refs": ["m1"],
                                          "explanation": "e"}], "reasoning": "r"})
    assessment = derive_assessment(sample.question, sample.load(), reply,
                                   config=AnswerabilityConfig(provider="replay", model="recorded"))
    assessment = assessment.model_copy(update={"trace_import": sample.trace_import})
    return assessment.model_dump(mode="json"), sample.model_dump(mode="json")


def test_an_imported_assessment_says_where_its_evidence_came_from(tmp_path: Path) -> None:
    data, sample = imported(tmp_path)
    block = data["import"]
    assert import_note(data) == (f"evidence imported from an OTLP JSON file, project 'rag': trace {block['trace_id']}, "
                                 f"span {block['span_id']}, documents 0, 1, 2 "
                                 f"(span_sha256 {block['span_sha256'][:12]}…)")
    assert import_problems(data) == [] and import_problems(data, sample) == []
    hand_made = {key: value for key, value in data.items() if key != "import"}
    assert import_note(hand_made) is None and import_problems(hand_made) == []
    assert import_problems(hand_made, sample) == ["import: missing, but the sample given was imported from a trace"]


def test_an_import_block_that_does_not_fit_is_a_problem(tmp_path: Path) -> None:
    data, sample = imported(tmp_path)
    other = {**data, "import": {**data["import"], "record_ids": [data["import"]["record_ids"][1],
                                                                 data["import"]["record_ids"][0],
                                                                 data["import"]["record_ids"][2]]}}
    assert import_problems(other, sample) == ["import: differs from the sample's (record_ids)"]
    cited = data["requirements"][0]["evidence_ids"][0]
    stranger = {**data, "import": {**data["import"], "record_ids": [
        "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b",
        "00000000-0000-0000-0000-00000000000c"]}}
    assert import_problems(stranger) == [f"requirements[0].evidence_ids[0]: memory {cited} is none of the imported "
                                         "span's documents (import.record_ids)"]
    resampled = {**sample, "import": stranger["import"]}
    assert import_problems(stranger, resampled)[-1] == "import.record_ids: the sample's records are not the ones " \
                                                      "imported"
    assert import_problems(data, {k: v for k, v in sample.items() if k != "import"}) == [
        "import: the sample given was not imported from a trace (it has no import block)"]
