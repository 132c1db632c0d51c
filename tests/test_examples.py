"""The shipped examples the Trials and Compare pages open first: they verify, they hold what the pages are meant
to show, and ``make_example.py`` regenerates them byte for byte from the hand-written replies."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from answerlens.cli import main
from answerlens.recording import HAND_WRITTEN
from answerlens.second_opinion.document import split_document
from answerlens.trials.reader import read_trial
from answerlens.verification.opinion import verify_document
from tests.paths import REPO, SAMPLES

EXAMPLE = SAMPLES / "trials" / "example"
PAIR = sorted((SAMPLES / "compare").glob("*.json"))
MAX_BYTES = 1_000_000


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_example", EXAMPLE / "make_example.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", [EXAMPLE / "result.json", *PAIR], ids=lambda path: path.name)
def test_every_example_verifies_and_stays_small(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert path.stat().st_size < MAX_BYTES
    assert main(["verify", str(path)]) == 0
    assert ": ok (" in capsys.readouterr().out


def test_the_example_trial_is_a_finished_run_of_hand_written_replies() -> None:
    result = read_trial(EXAMPLE / "result.json")
    summary = result.summary
    assert result.dataset is not None and result.dataset.path == "sample_bundles/trials/questions.json"
    assert (summary.questions, summary.samples, summary.error_samples) == (33, 64, 2)
    assert summary.unanswerable.unsafe_full_answer_count > 0 and summary.citation_errors > 0  # worth showing
    assert {error.kind for error in summary.errors} == {"read_timeout"}
    called = [sample.assessment for sample in result.samples
              if sample.assessment is not None and sample.assessment.raw_output is not None]
    assert not any(sample.assessment.model_called for sample in result.samples if sample.assessment is not None)
    assert called and all(assessment.provider_metadata is not None and assessment.provider_metadata.recorded
                          and assessment.provider_metadata.recording is not None
                          and assessment.provider_metadata.recording.author == HAND_WRITTEN for assessment in called)


def test_the_compare_pair_is_two_repeats_of_one_question_with_second_opinions() -> None:
    first, second = (json.loads(path.read_text(encoding="utf-8")) for path in PAIR)
    assert first["evaluation_id"] == second["evaluation_id"]  # the same inputs
    assert first["assessment_sha256"] != second["assessment_sha256"]  # two different replies
    for document in (first, second):
        assert verify_document(document) == ()
    (audited, opinion, _), _ = split_document(first), split_document(second)
    assert audited["verdict"] == "answerable" and opinion["strict"]["verdict"] == "partial"


def test_the_examples_regenerate_byte_for_byte(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script()
    monkeypatch.setattr(script, "RESULT", tmp_path / "result.json")
    monkeypatch.setattr(script, "COMPARE", tmp_path / "compare")
    monkeypatch.chdir(REPO)
    assert script.main() == 0
    hint = "run: .venv/bin/python sample_bundles/trials/example/make_example.py"
    assert (tmp_path / "result.json").read_bytes() == (EXAMPLE / "result.json").read_bytes(), hint
    for path in PAIR:
        assert (tmp_path / "compare" / path.name).read_bytes() == path.read_bytes(), hint
