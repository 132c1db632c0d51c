"""A tiny NLI "cross-encoder" built in a temporary folder, so the real ONNX scorer runs with no download.

The graph is an embedding lookup, masked mean pooling and a linear layer to three logits, over a word-level
``tokenizers`` tokenizer saved as tokenizer.json, with a config.json carrying ``id2label``. Each word's
embedding is written directly in (entailment, contradiction, neutral) space, so ``expected_probabilities``
can compute the right answer independently with numpy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

LABELS = ("entailment", "contradiction", "neutral")
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
WORDS = {
    "yes": (4.0, 0.0, 0.0), "true": (3.0, 0.0, 0.0), "indeed": (2.0, 0.0, 0.0),
    "no": (0.0, 4.0, 0.0), "false": (0.0, 3.0, 0.0), "never": (0.0, 2.0, 0.0),
    "maybe": (0.0, 0.0, 3.0), "redis": (0.5, 0.0, 0.5), "we": (0.0, 0.0, 0.2), "use": (0.1, 0.0, 0.1),
    "cache": (0.2, 0.0, 0.0), "the": (0.0, 0.0, 0.0), ".": (0.0, 0.0, 0.0),
}
VOCAB = {token: index for index, token in enumerate(SPECIAL + list(WORDS))}
TYPE_VECTORS = ((0.0, 0.0, 0.0), (0.5, 0.0, 0.0))
"""Added per token by segment (premise 0, hypothesis 1) when the graph declares token_type_ids."""
BATCH_BIAS = (0.0, 0.0, 0.25)
"""With ``reveal_batch``, added to the logits once per pair in the batch, so batch sizes show in the output."""


def embedding_table() -> np.ndarray:
    table = np.zeros((len(VOCAB), 3), dtype=np.float32)
    table[VOCAB["[UNK]"]] = (0.0, 0.0, 1.0)
    for word, vector in WORDS.items():
        table[VOCAB[word]] = vector
    return table


def write_tokenizer(path: Path, *, padding: bool = False) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tokenizer = Tokenizer(models.WordLevel(vocab=VOCAB, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", VOCAB["[CLS]"]), ("[SEP]", VOCAB["[SEP]"])],
    )
    if padding:
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    tokenizer.save(str(path))


def write_graph(path: Path, *, label_order: Sequence[str] = ("contradiction", "entailment", "neutral"),
                token_types: bool = False, reveal_batch: bool = False, id_type: str = "int64",
                extra_input: str | None = None, output_width: int = 3) -> None:
    """Save the ONNX graph; its logit columns follow ``label_order`` (as config.json's id2label will say)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    elem = {"int64": TensorProto.INT64, "int32": TensorProto.INT32}[id_type]
    # Column j of the logits is the label label_order[j]: W maps (e, c, n) space onto that order.
    weights = np.zeros((3, output_width), dtype=np.float32)
    for column, label in enumerate(label_order[:output_width]):
        weights[LABELS.index(label), column] = 1.0
    inputs = [helper.make_tensor_value_info("input_ids", elem, ["batch", "sequence"]),
              helper.make_tensor_value_info("attention_mask", elem, ["batch", "sequence"])]
    initializers = [numpy_helper.from_array(embedding_table(), "embeddings"),
                    numpy_helper.from_array(weights, "weights"),
                    numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
                    numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1")]
    nodes = [helper.make_node("Gather", ["embeddings", "input_ids"], ["tokens"])]
    summed_input = "tokens"
    if token_types:
        inputs.append(helper.make_tensor_value_info("token_type_ids", elem, ["batch", "sequence"]))
        initializers.append(numpy_helper.from_array(np.array(TYPE_VECTORS, dtype=np.float32), "type_embeddings"))
        nodes += [helper.make_node("Gather", ["type_embeddings", "token_type_ids"], ["types"]),
                  helper.make_node("Add", ["tokens", "types"], ["typed_tokens"])]
        summed_input = "typed_tokens"
    if extra_input:
        inputs.append(helper.make_tensor_value_info(extra_input, elem, ["batch", "sequence"]))
    nodes += [
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask", "axis2"], ["mask3"]),
        helper.make_node("Mul", [summed_input, "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "axis1"], ["sums"], keepdims=0),
        helper.make_node("ReduceSum", ["mask3", "axis1"], ["counts"], keepdims=0),
        helper.make_node("Div", ["sums", "counts"], ["means"]),
        helper.make_node("MatMul", ["means", "weights"], ["pooled_logits"]),
    ]
    logits = "pooled_logits"
    if reveal_batch:
        bias = np.zeros(output_width, dtype=np.float32)
        for column, label in enumerate(label_order[:output_width]):
            bias[column] = BATCH_BIAS[LABELS.index(label)]
        initializers += [numpy_helper.from_array(bias, "batch_bias"),
                         numpy_helper.from_array(np.array([0], dtype=np.int64), "first")]
        nodes += [helper.make_node("Shape", ["input_ids"], ["shape"]),
                  helper.make_node("Gather", ["shape", "first"], ["batch_size"]),
                  helper.make_node("Cast", ["batch_size"], ["batch_float"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", ["batch_bias", "batch_float"], ["scaled_bias"]),
                  helper.make_node("Add", ["pooled_logits", "scaled_bias"], ["biased_logits"])]
        logits = "biased_logits"
    nodes.append(helper.make_node("Identity", [logits], ["logits"]))
    graph = helper.make_graph(nodes, "tiny_nli", inputs,
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", output_width])],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))


def write_config(path: Path, id2label: Any, **extra: Any) -> None:
    path.write_text(json.dumps({"model_type": "tiny-nli", "id2label": id2label, "pad_token_id": 0, **extra}))


def build_model(folder: Path, *, label_order: Sequence[str] = ("contradiction", "entailment", "neutral"),
                graph_path: str = "model.onnx", config: dict[str, Any] | None = None, padding: bool = False,
                **graph: Any) -> Path:
    """A complete model folder: graph, tokenizer.json and config.json (whose id2label follows ``label_order``)."""
    folder.mkdir(parents=True, exist_ok=True)
    write_graph(folder / graph_path, label_order=label_order, **graph)
    write_tokenizer(folder / "tokenizer.json", padding=padding)
    write_config(folder / "config.json", {str(index): label for index, label in enumerate(label_order)},
                 **(config or {}))
    return folder


def expected_probabilities(pairs: Sequence[tuple[str, str]], folder: Path, *, token_types: bool = False,
                           batch_size: int | None = None, max_length: int | None = None) -> list[tuple[float, ...]]:
    """The right answer, computed with numpy from the tokenizer and the embedding table alone."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    if max_length is not None:
        tokenizer.enable_truncation(max_length)
    table = embedding_table()
    rows = []
    for index, (premise, hypothesis) in enumerate(pairs):
        encoding = tokenizer.encode(premise, hypothesis)
        vectors = table[encoding.ids].astype(np.float64)
        if token_types:
            vectors = vectors + np.array(TYPE_VECTORS)[encoding.type_ids]
        logits = vectors.mean(axis=0)
        if batch_size is not None:
            start = index - index % batch_size
            logits = logits + np.array(BATCH_BIAS) * min(batch_size, len(pairs) - start)
        exp = np.exp(logits - logits.max())
        rows.append(tuple(float(value) for value in exp / exp.sum()))
    return rows
