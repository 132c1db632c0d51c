"""The default scorer: the pinned NLI cross-encoder run with ONNX Runtime and ``tokenizers`` from a local folder.

No torch, no download. ``onnxruntime``, ``tokenizers`` and numpy are imported on first use
(``pip install 'answerlens[nli]'``), so importing answerlens never needs them.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from answerlens.claims import model_location
from answerlens.claims.model_location import ModelFolder, locate_model, read_model_text
from answerlens.claims.models import DEFAULT_NLI_MODEL, DEFAULT_NLI_REVISION
from answerlens.errors import ClaimVerificationError

RUNTIME_MISSING = (
    "onnxruntime and tokenizers are required for claim verification; install them with pip install 'answerlens[nli]'"
)
LABELS = ("entailment", "contradiction", "neutral")
"""The order of every row the scorer returns."""
FED_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
"""The graph inputs the scorer can feed; a graph declaring any other input is refused."""
_DTYPES = {"tensor(int64)": "int64", "tensor(int32)": "int32"}
DEFAULT_MAX_LENGTH = 512


def label_columns(config: Mapping[str, Any]) -> tuple[int, int, int]:
    """The logit columns of entailment, contradiction and neutral from ``config.json``'s ``id2label``.

    The labels must be exactly contradiction, entailment and neutral (any order, any case) on ids 0, 1, 2.
    """
    raw = config.get("id2label")
    problem = "model labels must be exactly contradiction, entailment, and neutral"
    if not isinstance(raw, Mapping):
        raise ValueError(f"{problem}; config.json has no id2label mapping")
    try:
        labels = {str(label).casefold(): int(index) for index, label in raw.items()}
    except (TypeError, ValueError):
        raise ValueError(f"{problem}; config.json id2label is {dict(raw)!r}") from None
    if len(labels) != len(raw) or set(labels) != set(LABELS) or set(labels.values()) != {0, 1, 2}:
        raise ValueError(f"{problem}; config.json id2label is {dict(raw)!r}")
    return labels["entailment"], labels["contradiction"], labels["neutral"]


def softmax_rows(logits: Any) -> Any:
    """Row-wise softmax in float64, shifted by the row maximum."""
    import numpy as np

    values = np.asarray(logits, dtype=np.float64)
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class _Session:
    """A loaded model: the runtime session, the configured tokenizer and how to feed and read them."""

    folder: ModelFolder
    session: Any
    tokenizer: Any
    inputs: tuple[tuple[str, str], ...]
    """(name, numpy dtype) of every input the graph declares."""
    output: str
    columns: tuple[int, int, int]

    def run(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, float]]:
        import numpy as np

        encodings = self.tokenizer.encode_batch([(premise, hypothesis) for premise, hypothesis in pairs])
        tensors = {
            "input_ids": [encoding.ids for encoding in encodings],
            "attention_mask": [encoding.attention_mask for encoding in encodings],
            "token_type_ids": [encoding.type_ids for encoding in encodings],
        }
        feeds = {name: np.asarray(tensors[name], dtype=dtype) for name, dtype in self.inputs}
        logits = np.asarray(self.session.run([self.output], feeds)[0])
        if logits.shape != (len(pairs), 3):
            raise ClaimVerificationError(
                f"the model in {self.folder.path} returned logits of shape {logits.shape}; expected ({len(pairs)}, 3)"
            )
        entailment, contradiction, neutral = self.columns
        return [(float(row[entailment]), float(row[contradiction]), float(row[neutral]))
                for row in softmax_rows(logits)]


class OnnxNliScorer:
    """Scores (premise, hypothesis) pairs with a local ONNX export of an NLI cross-encoder.

    The folder is ``model_dir``, else ``$ANSWERLENS_NLI_MODEL``, else the Hugging Face cache snapshot of
    ``model`` at ``revision``. It is loaded once, on first use, under a lock. Pairs run in batches of
    ``batch_size``; rows come back as softmax probabilities in (entailment, contradiction, neutral) order.
    """

    def __init__(
        self, model_dir: str | os.PathLike[str] | None = None, *, model: str = DEFAULT_NLI_MODEL,
        revision: str = DEFAULT_NLI_REVISION, batch_size: int = 32, max_length: int | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.model_dir = None if model_dir is None else Path(model_dir)
        self.model = model
        self.revision = revision
        self.batch_size = batch_size
        self.max_length = max_length
        self._environ = environ
        self._lock = threading.Lock()
        self._loaded: _Session | None = None

    @property
    def resolved_revision(self) -> str | None:
        """The snapshot commit of the loaded folder, when known; None before loading."""
        return None if self._loaded is None else self._loaded.folder.revision

    @property
    def folder(self) -> ModelFolder | None:
        return None if self._loaded is None else self._loaded.folder

    def score(self, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
        loaded = self.load()
        rows: list[tuple[float, float, float]] = []
        for start in range(0, len(pairs), self.batch_size):
            rows.extend(loaded.run(pairs[start:start + self.batch_size]))
        return rows

    def premise_read(self, premise: str, hypothesis: str) -> int:
        """How many characters of ``premise`` the model reads beside ``hypothesis``: its tokenizer cuts a pair to
        the model's length (``len(premise)``, or near it, when nothing was cut)."""
        encoding = self.load().tokenizer.encode(premise, hypothesis)
        return max((end for (_, end), sequence in zip(encoding.offsets, encoding.sequence_ids, strict=True)
                    if sequence == 0), default=0)

    def load(self) -> _Session:
        """Load the model now (it is otherwise loaded on the first ``score``); idempotent and thread-safe."""
        with self._lock:
            if self._loaded is None:
                self._loaded = self._open()
            return self._loaded

    def _open(self) -> _Session:
        try:
            import numpy  # noqa: F401  (onnxruntime's own dependency; used by every batch)
            import onnxruntime
            import tokenizers
        except ImportError as exc:
            raise ClaimVerificationError(RUNTIME_MISSING) from exc
        folder = locate_model(self.model, self.revision, model_dir=self.model_dir, environ=self._environ)
        try:  # sizes are checked again at reading: the folder may have changed since it was located
            config = json.loads(read_model_text(folder.config, model_location.CONFIG_MAX_BYTES))
            if not isinstance(config, dict):
                raise ValueError("config.json is not a JSON object")
            columns = label_columns(config)
            tokenizer = tokenizers.Tokenizer.from_str(read_model_text(folder.tokenizer,
                                                                      model_location.TOKENIZER_MAX_BYTES))
            _configure_tokenizer(tokenizer, folder, config, self.max_length)
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 3
            session = onnxruntime.InferenceSession(str(folder.graph), options, providers=["CPUExecutionProvider"])
            inputs, output = _graph_signature(session)
        except ClaimVerificationError:
            raise
        except Exception as exc:  # a broken file, tokenizer or graph: one clear error naming the folder
            raise ClaimVerificationError(
                f"Could not load claim verification model {self.model!r} from {folder.path}: {exc}"
            ) from exc
        return _Session(folder=folder, session=session, tokenizer=tokenizer, inputs=inputs, output=output,
                        columns=columns)


def _configure_tokenizer(
    tokenizer: Any, folder: ModelFolder, config: Mapping[str, Any], max_length: int | None
) -> None:
    """Pad to the longest pair and truncate to the model's length, unless tokenizer.json already says how."""
    if tokenizer.truncation is None:
        tokenizer.enable_truncation(max_length or _model_max_length(folder, config))
    if tokenizer.padding is None:
        pad_id = config.get("pad_token_id")
        if not isinstance(pad_id, int) or isinstance(pad_id, bool):
            pad_id = tokenizer.token_to_id("[PAD]") or 0
        tokenizer.enable_padding(pad_id=pad_id, pad_token=tokenizer.id_to_token(pad_id) or "[PAD]")


def _model_max_length(folder: ModelFolder, config: Mapping[str, Any]) -> int:
    settings = folder.path / "tokenizer_config.json"
    if settings.is_file():
        value = json.loads(read_model_text(settings, model_location.SETTINGS_MAX_BYTES)).get("model_max_length")
        if isinstance(value, int) and 0 < value <= 100_000:  # transformers writes 1e30 for "unbounded"
            return value
    value = config.get("max_position_embeddings")
    return value if isinstance(value, int) and value > 0 else DEFAULT_MAX_LENGTH


def _graph_signature(session: Any) -> tuple[tuple[tuple[str, str], ...], str]:
    """The inputs the graph declares (each fed by name, in its declared integer type) and the logits output."""
    inputs = []
    for declared in session.get_inputs():
        if declared.name not in FED_INPUTS:
            raise ValueError(f"the graph declares input {declared.name!r}; only {', '.join(FED_INPUTS)} can be fed")
        if declared.type not in _DTYPES:
            raise ValueError(f"graph input {declared.name!r} has type {declared.type}; expected int64 or int32")
        inputs.append((declared.name, _DTYPES[declared.type]))
    if "input_ids" not in {name for name, _ in inputs}:
        raise ValueError("the graph declares no input_ids input")
    outputs = [declared.name for declared in session.get_outputs()]
    return tuple(inputs), "logits" if "logits" in outputs else outputs[0]
