"""docs/claims.md shows the real output of docs/claims_example.py; this keeps the two from drifting apart."""

import runpy

import pytest

from tests.paths import REPO


def test_the_documented_output_is_what_the_example_prints(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(REPO / "docs" / "claims_example.py"), run_name="__main__")
    printed = capsys.readouterr().out
    document = (REPO / "docs" / "claims.md").read_text(encoding="utf-8")
    sections = [section.split("\n", 1)[1].strip("\n") for section in printed.split("## ")[1:]]
    assert len(sections) == 5
    for section in sections:
        assert f"```\n{section}\n```" in document
