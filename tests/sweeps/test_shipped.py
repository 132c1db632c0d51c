"""The shipped example: ``sample_bundles/sweep_budget_cut.json`` and its recorded sweep (docs/sweep.md)."""

import pytest

from answerlens.cli import main
from answerlens.samples import load_sample
from answerlens.sweeps.folder import bundle_sha256
from answerlens.sweeps.reader import read_recorded, read_sweep
from tests.paths import SAMPLES
from tests.sweeps.helpers import verified

SWEEP = SAMPLES / "sweeps" / "sweep_budget_cut"
HANDOFF = "00000000-0000-0000-0000-000000000006"


def test_the_recorded_sweep_is_of_the_shipped_sample_and_verifies() -> None:
    sample = load_sample(SAMPLES / "sweep_budget_cut.json")
    recorded = read_recorded(SWEEP)
    assert recorded.manifest.question == sample.question
    assert recorded.manifest.bundle_sha256 == bundle_sha256(sample.load())
    assert verified(SWEEP) == (24, [])


def test_the_verdict_flips_where_the_budget_cuts_the_handoff_record() -> None:
    result = read_sweep(SWEEP)
    by_key = {cell.key: cell for cell in result.cells}
    assert by_key["reader_cited@packed"].actions == {"answer": 3}
    assert by_key["reader_cited@90%"].actions == {"answer_partially": 3}
    assert by_key["reader_cited@90%"].records_cut == (HANDOFF,)
    first = result.changes[0]
    assert result.cells[first.from_].key == "reader_cited@packed" and result.cells[first.to].key == "reader_cited@90%"
    assert first.records_lost == (HANDOFF,)
    assert not by_key["reader_plain@packed"].assessable


def test_sweep_report_prints_the_recorded_grid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep-report", str(SWEEP)]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[1].split()[:6] == ["reader,", "citations", "on", "answer", "3/3", "·"]
    assert ("reader, citations on: as packed -> 90% (245 tokens): answer -> answer partially; requirement "
            in printed)
    assert f"the cut removed m6 ({HANDOFF}), which the fuller setting's accepted citations used" in printed
