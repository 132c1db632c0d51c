"""Sample files: a bundle with its question, optional draft answer and a recorded model reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from answerlens.errors import BundleError, describe_validation
from answerlens.json_reader import read_json
from answerlens.loading import load_bundle
from answerlens.recording import HAND_WRITTEN, Recording, RecordingBinding
from answerlens.records import MemoryBundle
from answerlens.trace_import import IMPORT_KEY, TraceImport


class ExpectedSecondOpinion(BaseModel):
    """What the second opinion should say about the recorded reply (no NLI model needed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    flags: list[list[str]]
    """Per requirement, in order, the flag codes raised (in the order they are listed)."""
    strict_verdict: str
    """The verdict under ``evidence_policy="strict"``."""


class Expected(BaseModel):
    """What the recorded reply should lead to; the tests hold the samples to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict: str | None = None
    error: str | None = None
    second_opinion: ExpectedSecondOpinion | None = None


class Sample(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True)

    title: str
    description: str
    question: str
    answer: str | None = None
    bundle: dict[str, Any] | list[Any]
    recorded_reply: dict[str, Any] | None = None
    recorded_reply_source: str = Field(
        default=HAND_WRITTEN,
        description="Who wrote the recorded reply: 'hand-written', or the model that produced it",
    )
    recorded_model: str = "recorded"
    expected: Expected = Expected()
    trace_import: TraceImport | None = Field(default=None, alias=IMPORT_KEY)
    """Where the bundle's records were read from (``answerlens import-trace``); its assessments carry it."""

    def recording(self, source: str | None = None, source_sha256: str | None = None, *,
                  context: str | None = None) -> Recording | None:
        """The recorded reply as a ``Recording`` (None when the sample has none); ``source`` names its file.

        It is bound to what it answered: the sample's question and draft over the sample bundle's exact context
        (``context``, when the caller has rendered it already; else the bundle is loaded), and to no prompt.
        """
        if self.recorded_reply is None:
            return None
        exact = context if context is not None else self.load().exact_context
        binding = RecordingBinding.of(self.question, exact, self.answer)
        return Recording.of(self.recorded_reply, author=self.recorded_reply_source, source=source,
                            source_sha256=source_sha256, binding=binding, question=self.question, answer=self.answer)

    def load(self, name: str | None = None) -> MemoryBundle:
        return load_bundle(self.bundle, name=name)


def is_sample(data: Any) -> bool:
    return isinstance(data, dict) and "bundle" in data and "question" in data


def load_sample(path: Path) -> Sample:
    data = read_json(path)
    try:
        return Sample.model_validate(data)
    except ValidationError as exc:
        raise BundleError(describe_validation(exc), source=str(path)) from None


def list_samples(directory: Path) -> dict[str, Path]:
    """Sample files in a directory by stem, sorted."""
    return {path.stem: path for path in sorted(directory.glob("*.json"))}
