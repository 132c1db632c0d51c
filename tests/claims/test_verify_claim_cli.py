"""``answerlens verify-claim`` with the tiny NLI model from ``tiny_nli`` (no download)."""

import json
from pathlib import Path

import pytest

from answerlens.cli import main
from tests.claims.fixtures import PRME
from tests.claims.tiny_nli import build_model

RECORDS = [{"text": "yes yes yes yes yes yes yes yes"}, {"text": "We plan yes yes yes yes yes yes yes yes yes yes yes."},
           {"text": "Line one.\u2028Line two."}]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(RECORDS))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_status_group_basis_limitations_and_hashes(capsys: pytest.CaptureFixture[str], bundle: Path,
                                                          model_dir: Path) -> None:
    code, out, err = run(capsys, "verify-claim", str(bundle), "yes", "--model-dir", str(model_dir))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == ['claim: "yes"', "status: supported", "supporting group (model_entailment):",
                         '  [m1] "yes yes yes yes yes yes yes yes"']
    assert "limitations: uncorroborated_model_entailment" in lines  # m2 entails too, but it is a plan
    assert "refuting group: none" in lines
    assert any(line.startswith("model: cross-encoder/nli-deberta-v3-base @ 6c749ce") for line in lines)
    for name in ("configuration_sha256", "claim_sha256", "evidence_sha256", "evaluation_id", "result_sha256"):
        assert any(line.startswith(f"{name}: ") and len(line.split(": ")[1]) == 64 for line in lines)


def test_json_is_the_full_result(capsys: pytest.CaptureFixture[str], bundle: Path, model_dir: Path) -> None:
    code, out, _ = run(capsys, "verify-claim", str(bundle), "yes", "--ref", "m2", "--ref", "m1", "--json",
                       "--model-dir", str(model_dir))
    data = json.loads(out)
    assert code == 0 and data["schema_version"] == 3 and data["status"] == "supported"
    assert [score["references"] for score in data["group_scores"]] == [["m2"], ["m1"]]
    assert data["model_called"] is True and data["resolved_revision"] is None
    assert set(data) >= {"supporting_group", "supporting_basis", "limitations", "localized_assessments",
                         "evaluation_id", "result_sha256"}


def test_passage_text_cannot_break_a_line(capsys: pytest.CaptureFixture[str], bundle: Path, model_dir: Path) -> None:
    code, out, _ = run(capsys, "verify-claim", str(bundle), "Line one.", "--ref", "m3", "--model-dir", str(model_dir))
    assert code == 0 and "\u2028" not in out


def test_complete_set_needs_no_model(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "verify-claim", str(PRME / "bundles" / "bundle_reader_citations.json"),
                       "There are exactly two dashboard caches.", "--complete-set", "--model-dir",
                       str(tmp_path / "no-model-here"), "--json")
    recorded = json.loads((PRME / "claims" / "claim_verifier_no_model.json").read_text())["requires_complete_set"]
    assert code == 0 and json.loads(out) == recorded


@pytest.mark.parametrize("argv, message", [
    pytest.param(["--ref", "m9"], "Unknown context reference: m9", id="unknown_ref"),
    pytest.param(["--bundle", "bundle_reader_plain.json"], "has no citation references", id="reader_without_citations"),
    pytest.param(["--claim", "  "], "claim must be nonempty", id="blank_claim"),
    pytest.param(["--bundle", "missing.json"], "file not found", id="missing_file"),
])
def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str], model_dir: Path, argv: list[str],
                           message: str) -> None:
    bundle, claim, rest = "bundle_reader_citations.json", "The dashboard used MySQL.", list(argv)
    if rest[:1] == ["--bundle"]:
        bundle, rest = rest[1], rest[2:]
    if rest[:1] == ["--claim"]:
        claim, rest = rest[1], rest[2:]
    code, out, err = run(capsys, "verify-claim", str(PRME / "bundles" / bundle), claim, *rest,
                         "--model-dir", str(model_dir))
    assert (code, out) == (2, "") and message in err and err.count("\n") == 1


def test_a_missing_model_exits_3_with_the_remedy(capsys: pytest.CaptureFixture[str], bundle: Path,
                                                 tmp_path: Path) -> None:
    code, out, err = run(capsys, "verify-claim", str(bundle), "yes", "--model-dir", str(tmp_path / "nowhere"))
    assert (code, out) == (3, "")
    assert err.startswith("answerlens: No local NLI model for claim verification: model_dir ")
    assert "optimum-cli export onnx" in err and err.count("\n") == 1


def test_a_broken_model_exits_3(capsys: pytest.CaptureFixture[str], bundle: Path, tmp_path: Path) -> None:
    folder = build_model(tmp_path / "model")
    (folder / "config.json").write_text(json.dumps({"id2label": {"0": "yes", "1": "no", "2": "maybe"}}))
    code, _, err = run(capsys, "verify-claim", str(bundle), "yes", "--model-dir", str(folder))
    assert code == 3 and "labels must be exactly contradiction, entailment, and neutral" in err
