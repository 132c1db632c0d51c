"""``TrialResult``: complete for its kind, written as result.json, exported as ``answerlens.TrialResult``."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

import answerlens
from answerlens.trials.log import ResultKind
from answerlens.trials.reader import parse_trial, read_trial
from answerlens.trials.result import RunManifest, TrialResult
from tests.paths import FIXTURES, PRME

GOLDEN = json.loads((FIXTURES / "trials" / "drafts-run.json").read_text())
UPSTREAM = PRME / "trials" / "beam-100k-answerability-dev-v2-results.json"


def golden() -> TrialResult:
    return parse_trial({**GOLDEN["result"], "finished_at": "2026-01-01T00:00:00+00:00"}, "result.json")


def test_the_public_name_is_the_log_model() -> None:
    assert answerlens.TrialResult is TrialResult
    assert "upstream" in (TrialResult.__doc__ or "") and "Ours:" in (TrialResult.__doc__ or "")


def test_result_json_is_written_with_our_fields_in_order_and_without_secrets() -> None:
    result = golden()
    written = result.file_json()
    assert list(written) == list(GOLDEN["result"])
    assert written["finished_at"] == "2026-01-01T00:00:00+00:00"
    assert "api_key" not in written["configuration"] and written["configuration"]["base_url"] == "http://127.0.0.1:9/v1"
    assert result.drafts and result.summary.draft_answers is not None


def test_only_a_finished_run_is_written() -> None:
    with pytest.raises(ValueError, match="not beam-answerability-execution"):
        read_trial(UPSTREAM).file_json()


@pytest.mark.parametrize(
    "change, message",
    [
        pytest.param({"configuration": None}, "records its dataset, configuration", id="ours_without_config"),
        pytest.param({"kind": ResultKind.UPSTREAM}, "keeps its published blocks", id="upstream_without_blocks"),
    ],
)
def test_a_result_is_complete_for_its_kind(change: dict[str, object], message: str) -> None:
    data = {**golden().model_dump(), **change}
    with pytest.raises(ValidationError, match=message):
        TrialResult.model_validate(data)


def test_the_manifest_dumps_as_run_json() -> None:
    manifest = RunManifest.model_validate(GOLDEN["run"])
    assert manifest.model_dump(mode="json") == GOLDEN["run"] and list(manifest.model_dump(mode="json")) == list(
        GOLDEN["run"])
    assert manifest.identity.configuration_sha256 == GOLDEN["run"]["configuration_sha256"]
