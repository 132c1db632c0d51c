"""The upstream adapter: schemas 1–3, upstream's field names and unknown fields kept, the published blocks kept."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from answerlens import DatasetError
from answerlens.trials.log import AnswerLabel, QuestionLabel, ResultKind, UpstreamSample
from answerlens.trials.upstream import upstream_result
from tests.paths import PRME

UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"
PUBLISHED = json.loads(UPSTREAM.read_text())


def published() -> dict[str, Any]:
    return copy.deepcopy(PUBLISHED)


def test_schema_2_keeps_every_published_block() -> None:
    result = upstream_result(published(), "beam.json")
    assert result.kind == ResultKind.UPSTREAM and result.schema_version == 2 and result.repeats == 3
    upstream = result.upstream
    assert upstream is not None
    for block in ("registration", "registration_sha256", "source", "model", "answerability", "summary"):
        assert getattr(upstream, block) == PUBLISHED[block], block
    assert upstream.protocol.model_dump(exclude_unset=True) == PUBLISHED["protocol"]  # typed fields and the rest
    assert upstream.protocol.repeats == 3 and not upstream.drafts
    assert result.summary_matches is True
    assert result.dataset is None and result.configuration is None  # ours only


def test_samples_keep_upstream_names_and_unknown_fields() -> None:
    data = published()
    data["samples"][0]["reviewer"] = "added by a later runner"
    data["extra_block"] = {"kept": True}
    result = upstream_result(data, "beam.json")
    first = result.samples[0]
    assert isinstance(first, UpstreamSample)
    assert (first.cohort, first.artifact) == ("conversation_0", "100K_0_q0_abstention.json")
    assert first.model_dump(mode="json")["reviewer"] == "added by a later runner"
    assert first.label == QuestionLabel.UNANSWERABLE and first.error is None and first.case_id == first.question_id
    assert result.upstream is not None and result.upstream.model_extra == {"extra_block": {"kept": True}}


def test_schema_3_draft_runs_summarise_drafts_and_can_match_their_published_summary() -> None:
    data = published()
    data["schema_version"] = 3
    data["protocol"]["assessment_mode"] = "draft_answer"
    for index, sample in enumerate(data["samples"]):
        sample.update(assessment_mode="draft_answer", draft_answer_sha256="0" * 64,
                      answer_label="correct" if index % 2 else "incorrect")
    recomputed = upstream_result(data, "draft.json").summary
    assert recomputed.draft_answers is not None and recomputed.draft_answers.correct.samples == 60
    data["summary"] = {key: value for key, value in recomputed.model_dump(mode="json").items()
                       if key not in ("error_samples", "errors", "requirement_agreement")}
    result = upstream_result(data, "draft.json")
    assert result.summary_matches is True and result.drafts
    assert {sample.answer_label for sample in result.samples} == set(AnswerLabel)


def test_schema_1_has_no_gates_and_a_tampered_summary_is_detected() -> None:
    data = published()
    data["schema_version"] = 1
    del data["quality_gates"], data["answerability"]
    assert upstream_result(data, "v1.json").quality_gates is None
    data["summary"]["answerable"]["full_answer_count"] += 1
    assert upstream_result(data, "v1.json").summary_matches is False


@pytest.mark.parametrize(
    "edit, message",
    [
        pytest.param(lambda d: d.update(schema_version="2"), "unsupported upstream schema_version '2'", id="text"),
        pytest.param(lambda d: d["protocol"].update(repeats="three"), "$.protocol.repeats", id="protocol"),
        pytest.param(lambda d: d["samples"][5].pop("assessment"), "samples[5].assessment: Field required",
                     id="no_assessment"),
        pytest.param(lambda d: d["samples"][7]["assessment"].update(verdict="maybe"),
                     "samples[7].assessment.verdict", id="bad_verdict"),
    ],
)
def test_what_cannot_be_read_is_named(edit: Any, message: str) -> None:
    data = published()
    edit(data)
    with pytest.raises(DatasetError, match=message.replace("[", r"\[").replace("$", r"\$")):
        upstream_result(data, "beam.json")
