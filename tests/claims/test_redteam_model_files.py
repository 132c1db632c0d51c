"""Adversarial variants of oversized or hostile NLI model files: the Hugging Face cache's ``refs/<revision>`` file
(read to find the snapshot) as a 1.5 GB sparse file or a FIFO, and config.json / tokenizer.json as a FIFO or a
symlink to a device. Each is refused quickly, by size (said in the error) or kind, before it is read."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from answerlens.claims.model_location import locate_model, snapshot_path
from answerlens.errors import ClaimVerificationError

MODEL = "cross-encoder/nli-deberta-v3-base"
COMMIT = "6c749ce3425cd33b46d187e45b92bbf96ee12ec7"
REPO = "models--cross-encoder--nli-deberta-v3-base"


def sparse(path: Path, size: int = 1_500_000_000) -> None:
    with path.open("wb") as handle:
        handle.truncate(size)


def test_an_oversized_refs_file_is_refused_by_its_size(tmp_path: Path) -> None:
    (tmp_path / REPO / "refs").mkdir(parents=True)
    sparse(tmp_path / REPO / "refs" / "main")
    tracemalloc.start()
    try:
        with pytest.raises(ClaimVerificationError) as caught:
            snapshot_path(tmp_path, MODEL, "main")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "1,500,000,000 bytes" in str(caught.value) and "main" in str(caught.value)
    assert peak < 8 * 2**20, f"{peak:,} bytes were allocated: the file was read"
    with pytest.raises(ClaimVerificationError, match="1,500,000,000 bytes"):
        locate_model(MODEL, "main", environ={"HF_HUB_CACHE": str(tmp_path)})


def test_a_refs_fifo_does_not_hang(tmp_path: Path) -> None:
    (tmp_path / REPO / "refs").mkdir(parents=True)
    os.mkfifo(tmp_path / REPO / "refs" / "main")
    assert snapshot_path(tmp_path, MODEL, "main") is None


@pytest.mark.parametrize("name", ["config.json", "tokenizer.json"])
@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_a_support_file_that_is_not_a_regular_file_is_refused(tmp_path: Path, name: str, kind: str) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    for file in ("model.onnx", "tokenizer.json", "config.json"):
        (folder / file).write_text("{}")
    (folder / name).unlink()
    if kind == "fifo":
        os.mkfifo(folder / name)
    else:
        (folder / name).symlink_to("/dev/zero")
    with pytest.raises(ClaimVerificationError, match=name):
        locate_model(MODEL, COMMIT, model_dir=folder)
