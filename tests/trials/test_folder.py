"""The run folder: file names, the one file layout, atomic writes, and saved samples that cannot be resumed from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answerlens import TrialError
from answerlens.audit import sha256_text
from answerlens.trials import folder
from answerlens.trials.log import TrialSample
from tests.paths import FIXTURES

GOLDEN = json.loads((FIXTURES / "trials" / "questions-run.json").read_text())["result"]
SAMPLE = next(sample for sample in GOLDEN["samples"] if sample["assessment"])


def test_sample_file_names_are_safe_stable_and_distinct() -> None:
    assert folder.sample_filename("billing-db", 2) == f"billing-db-{sha256_text('billing-db')[:8]}-r002.json"
    assert folder.sample_filename("../../etc/passwd", 0).startswith("etc_passwd-")
    assert folder.sample_filename("a b", 0) != folder.sample_filename("a_b", 0)


def test_a_sample_is_written_whole_in_the_one_layout(tmp_path: Path) -> None:
    sample = TrialSample.model_validate(SAMPLE)
    folder.write_sample(tmp_path, sample)
    (written,) = tmp_path.iterdir()
    assert written.name == folder.sample_filename(sample.case_id, sample.repeat)
    assert written.read_text(encoding="utf-8") == json.dumps(SAMPLE, indent=2, ensure_ascii=False) + "\n"
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    "content, message",
    [
        pytest.param(json.dumps({**SAMPLE, "latency_ms": 3}), "was edited", id="edited"),
        pytest.param(json.dumps({**SAMPLE, "kind": "other"}), "not a sample of an answerlens run", id="other_kind"),
        pytest.param("{", "unreadable saved file", id="truncated"),
    ],
)
def test_a_saved_sample_that_cannot_be_trusted_is_not_resumed_from(tmp_path: Path, content: str,
                                                                   message: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(content)
    with pytest.raises(TrialError, match=message):
        folder.read_sample(path)
