from pathlib import Path

import pytest

from answerlens.claims.model_location import hub_cache, locate_model, missing_model_message, snapshot_path
from answerlens.errors import ClaimVerificationError

MODEL = "cross-encoder/nli-deberta-v3-base"
COMMIT = "6c749ce3425cd33b46d187e45b92bbf96ee12ec7"


@pytest.mark.parametrize("environ, expected", [
    pytest.param({"HF_HUB_CACHE": "/a", "HF_HOME": "/b"}, "/a", id="hub_cache_first"),
    pytest.param({"HUGGINGFACE_HUB_CACHE": "/old", "HF_HOME": "/b"}, "/old", id="legacy_name"),
    pytest.param({"HF_HOME": "/b", "XDG_CACHE_HOME": "/x"}, "/b/hub", id="hf_home"),
    pytest.param({"XDG_CACHE_HOME": "/x"}, "/x/huggingface/hub", id="xdg"),
    pytest.param({}, str(Path.home() / ".cache" / "huggingface" / "hub"), id="default"),
])
def test_hub_cache_follows_huggingface_hub(environ: dict[str, str], expected: str) -> None:
    assert hub_cache(environ) == Path(expected)


def test_snapshot_paths(tmp_path: Path) -> None:
    repo = tmp_path / "models--cross-encoder--nli-deberta-v3-base"
    assert snapshot_path(tmp_path, MODEL, COMMIT) == repo / "snapshots" / COMMIT
    assert snapshot_path(tmp_path, MODEL, "main") is None
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    assert snapshot_path(tmp_path, MODEL, "main") == repo / "snapshots" / COMMIT
    (repo / "refs" / "broken").write_text("not a commit")
    assert snapshot_path(tmp_path, MODEL, "broken") is None


def _complete(folder: Path, graph: str = "model.onnx") -> Path:
    (folder / graph).parent.mkdir(parents=True, exist_ok=True)
    for name in (graph, "tokenizer.json", "config.json"):
        (folder / name).write_text("{}")
    return folder


def test_an_explicit_folder_wins_and_never_falls_back(tmp_path: Path) -> None:
    env_folder = _complete(tmp_path / "env")
    given = _complete(tmp_path / "given", "onnx/model.onnx")
    found = locate_model(MODEL, COMMIT, model_dir=given, environ={"ANSWERLENS_NLI_MODEL": str(env_folder)})
    assert (found.graph, found.source, found.revision) == (given / "onnx" / "model.onnx", "model_dir", None)
    (given / "tokenizer.json").unlink()
    with pytest.raises(ClaimVerificationError, match="has no tokenizer.json"):
        locate_model(MODEL, COMMIT, model_dir=given, environ={"ANSWERLENS_NLI_MODEL": str(env_folder)})


def test_the_root_graph_is_preferred_and_a_snapshot_records_its_commit(tmp_path: Path) -> None:
    snapshot = _complete(_complete(tmp_path / "hub" / "models--x--y" / "snapshots" / COMMIT), "onnx/model.onnx")
    found = locate_model("x/y", COMMIT, environ={"HF_HUB_CACHE": str(tmp_path / "hub"),
                                                 "ANSWERLENS_NLI_MODEL": "  "})
    assert (found.graph, found.source, found.revision) == (snapshot / "model.onnx", "Hugging Face cache", COMMIT)


def test_the_message_names_the_pinned_export_and_where_to_put_it() -> None:
    message = missing_model_message(MODEL, COMMIT, "nothing found")
    assert message.startswith("No local NLI model for claim verification: nothing found. ")
    assert f"hf download {MODEL} --revision {COMMIT}" in message
    assert "optimum-cli export onnx --model nli-deberta-v3-base-onnx-src --task text-classification" in message
    assert "ANSWERLENS_NLI_MODEL=/path/to/nli-deberta-v3-base-onnx" in message
