"""The default scorer against a tiny NLI model built in the test: real loading, tokenising, batching, softmax."""

import asyncio
import json
import shutil
import sys
import threading
from pathlib import Path

import pytest

from answerlens.claims.onnx_scorer import RUNTIME_MISSING, OnnxNliScorer, label_columns, softmax_rows
from answerlens.claims.verifier import ClaimVerifier
from answerlens.errors import ClaimVerificationError
from tests.claims.tiny_nli import build_model, expected_probabilities

REVISION = "0123456789abcdef0123456789abcdef01234567"
PAIRS = [("yes we use redis .", "we use redis"), ("no", "we use the cache"), ("maybe maybe unknown", "x"),
         ("yes true indeed", "yes"), ("the", "no never"), ("we use redis", "false")]


def close(rows: list[tuple[float, float, float]], expected: list[tuple[float, ...]]) -> bool:
    return len(rows) == len(expected) and all(
        abs(got - want) < 1e-5 for row, want_row in zip(rows, expected, strict=True)
        for got, want in zip(row, want_row, strict=True))


@pytest.mark.parametrize("order", [
    pytest.param(("contradiction", "entailment", "neutral"), id="deberta_order"),
    pytest.param(("entailment", "neutral", "contradiction"), id="entailment_first"),
    pytest.param(("neutral", "contradiction", "entailment"), id="neutral_first"),
])
def test_rows_follow_the_label_map_in_any_order(tmp_path: Path, order: tuple[str, str, str]) -> None:
    folder = build_model(tmp_path / "model", label_order=order)
    rows = OnnxNliScorer(folder).score(PAIRS)
    assert close(rows, expected_probabilities(PAIRS, folder))
    assert rows[0][0] > rows[0][1] and rows[1][1] > rows[1][0]  # "yes" entails, "no" contradicts


def test_labels_are_matched_case_insensitively(tmp_path: Path) -> None:
    folder = build_model(tmp_path / "model")
    (folder / "config.json").write_text(json.dumps(
        {"id2label": {"0": "CONTRADICTION", "1": "Entailment", "2": "neutral"}, "pad_token_id": 0}))
    assert close(OnnxNliScorer(folder).score(PAIRS[:2]), expected_probabilities(PAIRS[:2], folder))


@pytest.mark.parametrize("id2label", [
    pytest.param({"0": "contradiction", "1": "entailment", "2": "other"}, id="unknown_label"),
    pytest.param({"0": "contradiction", "1": "entailment"}, id="two_labels"),
    pytest.param({"0": "contradiction", "1": "entailment", "2": "neutral", "3": "neutral"}, id="repeated_label"),
    pytest.param({"0": "contradiction", "1": "entailment", "3": "neutral"}, id="gap_in_ids"),
    pytest.param({"a": "contradiction", "1": "entailment", "2": "neutral"}, id="non_numeric_id"),
    pytest.param(["contradiction", "entailment", "neutral"], id="not_a_mapping"),
    pytest.param(None, id="missing"),
])
def test_a_bad_label_map_is_a_clear_error(tmp_path: Path, id2label: object) -> None:
    folder = build_model(tmp_path / "model")
    (folder / "config.json").write_text(json.dumps({"id2label": id2label}))
    with pytest.raises(ClaimVerificationError, match="labels must be exactly contradiction, entailment, and neutral"):
        OnnxNliScorer(folder).score(PAIRS[:1])


def test_label_columns() -> None:
    assert label_columns({"id2label": {"0": "contradiction", "1": "entailment", "2": "neutral"}}) == (1, 0, 2)


@pytest.mark.parametrize("token_types", [pytest.param(True, id="declares_token_type_ids"),
                                         pytest.param(False, id="no_token_type_ids")])
def test_only_declared_inputs_are_fed(tmp_path: Path, token_types: bool) -> None:
    folder = build_model(tmp_path / "model", token_types=token_types)
    rows = OnnxNliScorer(folder).score(PAIRS)
    assert close(rows, expected_probabilities(PAIRS, folder, token_types=token_types))
    assert not close(rows, expected_probabilities(PAIRS, folder, token_types=not token_types))


def test_int32_inputs_are_fed_as_declared(tmp_path: Path) -> None:
    folder = build_model(tmp_path / "model", id_type="int32", token_types=True)
    assert close(OnnxNliScorer(folder).score(PAIRS), expected_probabilities(PAIRS, folder, token_types=True))


@pytest.mark.parametrize("batch_size", [pytest.param(size, id=f"batch_{size}") for size in (1, 2, 4, 6, 32)])
def test_pairs_run_in_batches_of_batch_size(tmp_path: Path, batch_size: int) -> None:
    # This graph adds a bias per pair in its batch, so the output reveals the batch each pair ran in.
    folder = build_model(tmp_path / "model", reveal_batch=True)
    rows = OnnxNliScorer(folder, batch_size=batch_size).score(PAIRS)
    assert close(rows, expected_probabilities(PAIRS, folder, batch_size=batch_size))


def test_padding_within_a_batch_does_not_change_a_pair(tmp_path: Path) -> None:
    folder = build_model(tmp_path / "model")
    alone = OnnxNliScorer(folder, batch_size=1).score(PAIRS)
    together = OnnxNliScorer(folder, batch_size=len(PAIRS)).score(PAIRS)
    assert close(together, [tuple(row) for row in alone])


def test_a_tokenizer_that_already_pads_is_kept(tmp_path: Path) -> None:
    folder = build_model(tmp_path / "model", padding=True)
    assert close(OnnxNliScorer(folder).score(PAIRS), expected_probabilities(PAIRS, folder))


def test_long_pairs_are_truncated_to_the_model_length(tmp_path: Path) -> None:
    folder = build_model(tmp_path / "model", config={"max_position_embeddings": 8})
    pairs = [("no " * 3 + "yes " * 40, "we use redis")]
    rows = OnnxNliScorer(folder).score(pairs)
    assert close(rows, expected_probabilities(pairs, folder, max_length=8))
    assert not close(rows, expected_probabilities(pairs, folder))
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 6}))
    assert close(OnnxNliScorer(folder).score(pairs), expected_probabilities(pairs, folder, max_length=6))
    assert close(OnnxNliScorer(folder, max_length=12).score(pairs), expected_probabilities(pairs, folder,
                                                                                           max_length=12))


@pytest.mark.parametrize("remove, missing", [
    pytest.param(["model.onnx"], "has no model.onnx or onnx/model.onnx", id="graph"),
    pytest.param(["tokenizer.json"], "has no tokenizer.json", id="tokenizer"),
    pytest.param(["config.json", "tokenizer.json"], "has no tokenizer.json, no config.json", id="two_files"),
])
def test_missing_files_are_named(tmp_path: Path, remove: list[str], missing: str) -> None:
    folder = build_model(tmp_path / "model")
    for name in remove:
        (folder / name).unlink()
    with pytest.raises(ClaimVerificationError) as caught:
        OnnxNliScorer(folder).score(PAIRS[:1])
    assert f"model_dir {folder} {missing}" in str(caught.value)
    assert "optimum-cli export onnx" in str(caught.value)


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(ClaimVerificationError, match="is not a folder"):
        OnnxNliScorer(tmp_path / "nowhere").score(PAIRS[:1])


@pytest.mark.parametrize("graph", [
    pytest.param({"extra_input": "position_ids"}, id="undeclared_feed"),
    pytest.param({"output_width": 2}, id="two_logits"),
])
def test_graphs_the_scorer_cannot_use_are_refused(tmp_path: Path, graph: dict[str, object]) -> None:
    folder = build_model(tmp_path / "model", **graph)
    with pytest.raises(ClaimVerificationError, match="position_ids|logits of shape"):
        OnnxNliScorer(folder).score(PAIRS[:2])


def test_a_corrupt_graph_is_a_load_error_naming_the_folder(tmp_path: Path) -> None:
    folder = build_model(tmp_path / "model")
    (folder / "model.onnx").write_bytes(b"not a graph")
    with pytest.raises(ClaimVerificationError, match="Could not load claim verification model") as caught:
        OnnxNliScorer(folder).score(PAIRS[:1])
    assert str(folder) in str(caught.value) and caught.value.__cause__ is not None


def test_the_environment_variable_names_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = build_model(tmp_path / "exported", graph_path="onnx/model.onnx")
    monkeypatch.setenv("ANSWERLENS_NLI_MODEL", str(folder))
    scorer = OnnxNliScorer()
    assert close(scorer.score(PAIRS), expected_probabilities(PAIRS, folder))
    assert scorer.folder is not None and scorer.folder.source == "ANSWERLENS_NLI_MODEL"
    assert scorer.resolved_revision is None


@pytest.mark.parametrize("revision", [pytest.param(REVISION, id="commit"), pytest.param("main", id="branch")])
def test_the_hugging_face_cache_snapshot_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  revision: str) -> None:
    repo = tmp_path / "hub" / "models--cross-encoder--nli-deberta-v3-base"
    folder = build_model(repo / "snapshots" / REVISION, graph_path="onnx/model.onnx")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(REVISION + "\n")
    monkeypatch.delenv("ANSWERLENS_NLI_MODEL", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    scorer = OnnxNliScorer(revision=revision)
    assert scorer.resolved_revision is None  # nothing loaded yet
    assert close(scorer.score(PAIRS), expected_probabilities(PAIRS, folder))
    assert scorer.resolved_revision == REVISION


def test_the_verifier_records_the_snapshot_revision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build_model(tmp_path / "home" / "hub" / "models--cross-encoder--nli-deberta-v3-base" / "snapshots" /
                "6c749ce3425cd33b46d187e45b92bbf96ee12ec7")
    monkeypatch.delenv("ANSWERLENS_NLI_MODEL", raising=False)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    result = asyncio.run(ClaimVerifier().verify("yes", [{"reference": "m1", "memory_id":
                                                         "00000000-0000-4000-8000-000000000001", "text": "yes yes"}]))
    assert result.model_called and result.resolved_revision == "6c749ce3425cd33b46d187e45b92bbf96ee12ec7"


def test_the_model_loads_once_even_under_concurrent_first_use(tmp_path: Path) -> None:
    folder = build_model(tmp_path / "model")
    scorer = OnnxNliScorer(folder)
    sessions = []
    threads = [threading.Thread(target=lambda: sessions.append(scorer.load())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(session) for session in sessions}) == 1
    shutil.rmtree(folder)  # loaded: the files are no longer needed
    assert len(scorer.score(PAIRS[:2])) == 2


def test_a_missing_runtime_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = build_model(tmp_path / "model")
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(ClaimVerificationError) as caught:
        OnnxNliScorer(folder).score(PAIRS[:1])
    assert str(caught.value) == RUNTIME_MISSING and "pip install 'answerlens[nli]'" in RUNTIME_MISSING


def test_softmax_rows_are_stable_for_large_logits() -> None:
    rows = softmax_rows([[1000.0, 1000.0, -1000.0]])
    assert rows.tolist() == [[0.5, 0.5, 0.0]]


def test_batch_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        OnnxNliScorer(batch_size=0)


SPARSE_BYTES = 1_500_000_000


def sparse(path: Path, size: int = SPARSE_BYTES) -> None:
    """A file of ``size`` bytes that takes no disk space (and whose reading would take seconds and gigabytes)."""
    with path.open("wb") as handle:
        handle.truncate(size)


@pytest.mark.parametrize("name, limit", [
    pytest.param("config.json", "1 MB", id="config"),
    pytest.param("tokenizer.json", "64 MB", id="tokenizer"),
    pytest.param("tokenizer_config.json", "16 MB", id="tokenizer_config"),
])
def test_an_oversized_model_file_is_refused_by_its_size_before_it_is_read(tmp_path: Path, name: str,
                                                                          limit: str) -> None:
    import tracemalloc

    import onnxruntime  # noqa: F401  (imported before memory is traced: only reading counts)
    import tokenizers  # noqa: F401

    folder = build_model(tmp_path / "model")
    sparse(folder / name)
    tracemalloc.start()
    try:
        with pytest.raises(ClaimVerificationError) as caught:
            OnnxNliScorer(folder).score(PAIRS[:1])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    assert f"{name} is 1430.5 MB (1,500,000,000 bytes); the limit is {limit}" in message and str(folder) in message
    assert peak < 32 * 2**20, f"{peak:,} bytes were allocated: the file was read"


def test_model_files_just_under_their_limits_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from answerlens.claims import model_location

    folder = build_model(tmp_path / "model")
    sizes = {name: (folder / name).stat().st_size for name in ("config.json", "tokenizer.json")}
    monkeypatch.setattr(model_location, "CONFIG_MAX_BYTES", sizes["config.json"])
    monkeypatch.setattr(model_location, "TOKENIZER_MAX_BYTES", sizes["tokenizer.json"])
    assert close(OnnxNliScorer(folder).score(PAIRS), expected_probabilities(PAIRS, folder))
    monkeypatch.setattr(model_location, "TOKENIZER_MAX_BYTES", sizes["tokenizer.json"] - 1)
    with pytest.raises(ClaimVerificationError, match=r"tokenizer\.json is .* the limit is"):
        OnnxNliScorer(folder).score(PAIRS)
