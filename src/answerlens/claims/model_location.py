"""Where the local NLI model folder is: an explicit folder, ``ANSWERLENS_NLI_MODEL``, or the Hugging Face cache.

Nothing is ever downloaded; when no folder is complete the error says what is missing and how to make one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from answerlens.errors import ClaimVerificationError
from answerlens.json_reader import read_text

MODEL_ENV = "ANSWERLENS_NLI_MODEL"
"""Environment variable naming a local model folder."""
GRAPH_FILES = ("model.onnx", "onnx/model.onnx")
"""Where in a folder the ONNX graph may be, first found wins."""
SUPPORT_FILES = ("tokenizer.json", "config.json")
MB = 1024 * 1024
CONFIG_MAX_BYTES = 1 * MB
"""Largest ``config.json`` read: the pinned model's is about 1 KB, and a config with a thousand labels is still
under 100 KB."""
TOKENIZER_MAX_BYTES = 64 * MB
"""Largest ``tokenizer.json`` read: the pinned model's (DeBERTa-v3, 128k pieces) is about 8 MB and the largest in
common use (256k-piece vocabularies) about 33 MB; 64 MiB leaves room for those and refuses anything else."""
SETTINGS_MAX_BYTES = 16 * MB
"""Largest optional ``tokenizer_config.json`` read (only ``model_max_length`` is used; some carry every added
token, about 1 MB)."""
REF_MAX_BYTES = 4096
"""Largest ``refs/<revision>`` file of the Hugging Face cache read (it holds one commit hash)."""
_COMMIT = re.compile(r"[0-9a-f]{40}")
EXPORT_DIR = "nli-deberta-v3-base-onnx"


@dataclass(frozen=True)
class ModelFolder:
    """A complete local model: the graph, its tokenizer and its config (with the label map)."""

    path: Path
    graph: Path
    tokenizer: Path
    config: Path
    revision: str | None
    """The snapshot commit, when the folder is a Hugging Face cache snapshot."""
    source: str
    """How it was found: ``model_dir``, ``ANSWERLENS_NLI_MODEL`` or ``Hugging Face cache``."""


def locate_model(
    model: str, revision: str, *, model_dir: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ModelFolder:
    """The folder to load: ``model_dir`` if given, else ``$ANSWERLENS_NLI_MODEL``, else the cache snapshot.

    An explicitly named folder that is incomplete is an error; it never falls back to another one.
    """
    env = os.environ if environ is None else environ
    if model_dir is not None:
        return _complete(Path(model_dir), "model_dir", model, revision)
    if env.get(MODEL_ENV, "").strip():
        return _complete(Path(env[MODEL_ENV].strip()), MODEL_ENV, model, revision)
    cache = hub_cache(env)
    snapshot = snapshot_path(cache, model, revision)
    if snapshot is None or not snapshot.is_dir():
        where = snapshot or cache / _repo_folder(model) / "snapshots" / revision
        raise ClaimVerificationError(missing_model_message(
            model, revision, f"{MODEL_ENV} is not set and the Hugging Face cache has no snapshot {where}"))
    return _complete(snapshot, "Hugging Face cache", model, revision)


def hub_cache(environ: Mapping[str, str]) -> Path:
    """The Hugging Face hub cache as ``huggingface_hub`` finds it (HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME)."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if environ.get(name):
            return Path(environ[name]).expanduser()
    if environ.get("HF_HOME"):
        return Path(environ["HF_HOME"]).expanduser() / "hub"
    base = Path(environ["XDG_CACHE_HOME"]).expanduser() if environ.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "huggingface" / "hub"


def snapshot_path(cache: Path, model: str, revision: str) -> Path | None:
    """``<cache>/models--org--name/snapshots/<commit>``; a branch or tag is resolved through ``refs/``."""
    repo = cache / _repo_folder(model)
    if _COMMIT.fullmatch(revision):
        return repo / "snapshots" / revision
    ref = repo / "refs" / revision
    if not ref.is_file():  # absent, or a FIFO or device that would hang or never end
        return None
    check_size(ref, REF_MAX_BYTES)
    try:
        commit = read_model_text(ref, REF_MAX_BYTES).strip()
    except ClaimVerificationError:
        return None
    return repo / "snapshots" / commit if _COMMIT.fullmatch(commit) else None


def missing_model_message(model: str, revision: str, what: str) -> str:
    """What is missing, and the one command that makes the folder on a machine with internet access."""
    return (
        f"No local NLI model for claim verification: {what}. Nothing is downloaded at run time. On a machine "
        f"with internet access, export the pinned model to ONNX: "
        f"pip install 'optimum-onnx[onnxruntime]' sentencepiece && "
        f"hf download {model} --revision {revision} --local-dir {EXPORT_DIR}-src && "
        f"optimum-cli export onnx --model {EXPORT_DIR}-src --task text-classification {EXPORT_DIR} — "
        f"then copy the folder {EXPORT_DIR} (model.onnx, tokenizer.json, config.json) to this machine and set "
        f"{MODEL_ENV}=/path/to/{EXPORT_DIR} (or pass --model-dir / OnnxNliScorer(model_dir=...))."
    )


def _complete(path: Path, source: str, model: str, revision: str) -> ModelFolder:
    path = path.expanduser()
    if not path.is_dir():
        raise ClaimVerificationError(missing_model_message(model, revision, f"{source} {path} is not a folder"))
    graph = next((path / name for name in GRAPH_FILES if (path / name).is_file()), None)
    missing = [] if graph is not None else [" or ".join(GRAPH_FILES)]
    missing += [name for name in SUPPORT_FILES if not (path / name).is_file()]
    if graph is None or missing:
        raise ClaimVerificationError(missing_model_message(
            model, revision, f"{source} {path} has no {', no '.join(missing)}"))
    check_size(path / "config.json", CONFIG_MAX_BYTES)
    check_size(path / "tokenizer.json", TOKENIZER_MAX_BYTES)
    return ModelFolder(path=path, graph=graph, tokenizer=path / "tokenizer.json", config=path / "config.json",
                       revision=_snapshot_commit(path), source=source)


def check_size(path: Path, limit: int) -> None:
    """Refuse a model file larger than ``limit`` from its size alone, before a byte is read (a sparse file of
    gigabytes costs nothing to refuse)."""
    size = path.stat().st_size
    if size > limit:
        raise ClaimVerificationError(
            f"{path.parent}: {path.name} is {size / MB:.1f} MB ({size:,} bytes); the limit is "
            f"{f'{limit // MB} MB' if limit >= MB else f'{limit:,} bytes'} — "
            "this is not the NLI model's file: export the model folder again (see the claims documentation)")


def read_model_text(path: Path, limit: int) -> str:
    """A model folder's JSON text, refused past ``limit`` (checked from the size first, then while reading, for a
    file that grows or is not a regular file)."""
    check_size(path, limit)
    return read_text(path, max_bytes=limit, error=lambda message, label: ClaimVerificationError(f"{label}: {message}"))


def _snapshot_commit(path: Path) -> str | None:
    resolved = path.absolute()
    if resolved.parent.name == "snapshots" and _COMMIT.fullmatch(resolved.name):
        return resolved.name
    return None


def _repo_folder(model: str) -> str:
    return "models--" + model.replace("/", "--")
