"""Recorded model replies: the reply text, who wrote it and where it came from, the inputs it answered, and how
a result records it.

A result says whether its reply came from a live call or from a recording as typed data (``ReplyOrigin`` and
``RecordingRef``); nothing downstream parses prose to find out. A recording is bound to the exact inputs it
answered (``RecordingBinding``: the question, draft, exact-context and prompt hashes); replaying it for other
inputs is refused (``RecordingMismatchError``) unless forced, and a forced or unbound replay says so in its
``RecordingRef.match``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, computed_field, model_validator

from answerlens.audit import provenance, provenance_sha256, sha256_text
from answerlens.errors import RecordingMismatchError

HAND_WRITTEN = "hand-written"
"""The author of a recording that no model produced."""


class ReplyOrigin(str, Enum):
    """Where the reply behind a result came from."""

    LIVE = "live"
    """A model answered this call."""
    RECORDED = "recorded"
    """A recorded reply was replayed; no model was asked."""


class BindingField(str, Enum):
    """One input a recording is bound to; a replay names the ones that differ."""

    QUESTION = "question"
    DRAFT = "draft"
    CONTEXT = "context"
    PROMPT = "prompt"


class RecordingMatch(str, Enum):
    """How a replayed recording relates to the inputs it was replayed for."""

    BOUND = "bound"
    """The recording is bound to these exact inputs."""
    UNBOUND = "unbound"
    """The recording does not say which inputs it answered (a bare reply file): replayed, and marked."""
    FORCED = "forced"
    """The recording answered other inputs and was replayed anyway (``force_replay``): its verdict is not theirs."""


class RecordingBinding(BaseModel):
    """The inputs a recorded reply answered, as the assessment hashes them (``query_sha256`` …)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query_sha256: str
    answer_sha256: str | None = None
    """None: the reply answered the question alone, with no draft."""
    context_sha256: str
    prompt_version: str | None = None
    """None: bound to no prompt (a hand-written reply answered none); else the prompt that asked for it."""
    prompt_sha256: str | None = None

    @classmethod
    def of(cls, question: str, context: str, answer: str | None = None, *, prompt_version: str | None = None,
           prompt_sha256: str | None = None) -> RecordingBinding:
        """The binding of inputs given as text (stripped as the assessment strips them)."""
        return cls(query_sha256=sha256_text(question.strip()),
                   answer_sha256=sha256_text(answer.strip()) if answer is not None else None,
                   context_sha256=sha256_text(context), prompt_version=prompt_version, prompt_sha256=prompt_sha256)

    def differences(self, actual: RecordingBinding) -> tuple[BindingField, ...]:
        """The inputs of ``actual`` that are not the ones this recording answered, in a fixed order."""
        found = []
        if self.query_sha256 != actual.query_sha256:
            found.append(BindingField.QUESTION)
        if self.answer_sha256 != actual.answer_sha256:
            found.append(BindingField.DRAFT)
        if self.context_sha256 != actual.context_sha256:
            found.append(BindingField.CONTEXT)
        if self.prompt_version is not None and (
            self.prompt_version != actual.prompt_version
            or (self.prompt_sha256 is not None and self.prompt_sha256 != actual.prompt_sha256)
        ):
            found.append(BindingField.PROMPT)
        return tuple(found)


class RecordingRef(BaseModel):
    """What a result keeps of the recording it replayed (the reply text itself is ``raw_output_text``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    author: str | None = HAND_WRITTEN
    """``hand-written``, the model that produced the reply, or None when the recording does not say."""
    source: str | None = None
    """Where the recording was read from (a sample or reply file name), for display."""
    source_sha256: str | None = None
    """sha256 of that file's bytes, where there was a file."""
    binding: RecordingBinding | None = None
    """The inputs the recording answered; None for a bare reply that does not say (an unbound recording)."""
    forced: tuple[BindingField, ...] = ()
    """The inputs that differed from ``binding`` when the replay was forced; empty for an honest replay."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def match(self) -> RecordingMatch:
        """bound, unbound or forced: whether the verdict belongs to the inputs it is shown with."""
        if self.forced:
            return RecordingMatch.FORCED
        return RecordingMatch.BOUND if self.binding is not None else RecordingMatch.UNBOUND

    @model_validator(mode="before")
    @classmethod
    def _read_dumps(cls, data: Any) -> Any:
        # Dumps carry the computed ``match``; it must agree with the fields it is computed from.
        if not isinstance(data, dict) or "match" not in data:
            return data
        data = dict(data)
        match = data.pop("match")
        expected = (RecordingMatch.FORCED if data.get("forced") else
                    RecordingMatch.BOUND if data.get("binding") is not None else RecordingMatch.UNBOUND)
        if match != expected.value:
            raise ValueError(f"match={match!r} contradicts the binding and forced fields ({expected.value!r})")
        return data

    @property
    def hand_written(self) -> bool:
        return self.author == HAND_WRITTEN

    @property
    def mark(self) -> str | None:
        """The warning a result carries when its recording is not bound to its inputs (None when it is)."""
        if self.match == RecordingMatch.FORCED:
            return f"FORCED replay: recorded for another {', '.join(field.value for field in self.forced)}"
        if self.match == RecordingMatch.UNBOUND:
            return "unbound recording: it does not say which question and context it answered"
        return None

    @property
    def note(self) -> str:
        """One line for people: who wrote the reply, and from where it was read."""
        if self.author is None:
            who = "recorded reply (its author is not stated)"
        elif self.hand_written:
            who = "hand-written recorded reply (not produced by a model)"
        else:
            who = f"recorded reply produced by {self.author}"
        line = f"{who}, from {self.source}" if self.source else who
        return f"{line}; {self.mark}" if self.mark else line


class Recording(BaseModel):
    """A recorded reply to replay, with where it came from and the inputs it answered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    """The reply exactly as recorded."""
    ref: RecordingRef = RecordingRef()
    question: str | None = None
    """The question it answered, as text, when the recording carries it (to restore it); its hash is checked."""
    answer: str | None = None
    """The draft it answered, as text, when the recording carries it."""

    @classmethod
    def of(cls, reply: str | Mapping[str, Any], *, author: str | None = HAND_WRITTEN, source: str | None = None,
           source_sha256: str | None = None, binding: RecordingBinding | None = None,
           question: str | None = None, answer: str | None = None) -> Recording:
        """A recording of reply text, or of a parsed reply (kept as its JSON text, non-ASCII as written)."""
        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        ref = RecordingRef(author=author, source=source, source_sha256=source_sha256, binding=binding)
        return cls(text=text, ref=ref, question=question, answer=answer)

    @property
    def sha256(self) -> str:
        return sha256_text(self.text)

    @property
    def restorable(self) -> tuple[str, str | None] | None:
        """The question and draft this recording answered, when it carries them and they match its binding."""
        binding = self.ref.binding
        if binding is None or self.question is None:
            return None
        answer = self.answer.strip() if self.answer is not None else None
        if sha256_text(self.question.strip()) != binding.query_sha256 or (
                (sha256_text(answer) if answer is not None else None) != binding.answer_sha256):
            return None
        return self.question.strip(), answer

    def replayed_for(self, actual: RecordingBinding, *, force: bool = False) -> RecordingRef:
        """The ``RecordingRef`` a result records when this recording is replayed for ``actual``.

        A recording bound to other inputs raises ``RecordingMismatchError`` naming what differs, unless
        ``force``: then the ref says so (``forced``), and so does every view of the result.
        """
        binding = self.ref.binding
        differing = binding.differences(actual) if binding is not None else ()
        if not differing:
            return self.ref
        if not force:
            raise RecordingMismatchError(tuple(field.value for field in differing),
                                         restorable=self.restorable is not None)
        return self.ref.model_copy(update={"forced": differing})


RECORDING_FORMAT = "answerlens_recording"
"""The key (version 1) that marks a recording file answerlens wrote: the reply with the inputs it answered."""
_BUNDLE_KEYS = frozenset({"sections", "records", "rendered_context", "context_references", "bundle"})


def looks_like_bundle(data: Any) -> bool:
    """Whether parsed JSON is a bundle or a sample (a list of records, or an object with a bundle's keys), not a
    reply: the reply uploaders refuse it with where it belongs."""
    if isinstance(data, list):
        return bool(data) and all(isinstance(item, dict) for item in data[:8])
    return isinstance(data, dict) and bool(_BUNDLE_KEYS & set(data)) and "requirements" not in data


def recording_file(recording: Recording) -> dict[str, Any]:
    """A recording as the file answerlens writes (``recording_from_text`` reads it back)."""
    return {RECORDING_FORMAT: 1, "author": recording.ref.author,
            "binding": recording.ref.binding.model_dump(mode="json") if recording.ref.binding else None,
            "question": recording.question, "answer": recording.answer, "reply": recording.text}


def recording_from_text(text: str, *, source: str | None = None, source_sha256: str | None = None) -> Recording:
    """A reply file as a ``Recording``: a recording file (bound), an assessment JSON (bound by its input hashes),
    or a bare raw reply, kept as its exact text (unbound). A bundle or sample file is a ``RecordingError``."""
    from answerlens.errors import RecordingError

    try:
        data = json.loads(text)
    except ValueError:
        data = None  # not JSON: replayed as it is, and refused as a reply that does not fit the schema
    if looks_like_bundle(data):
        raise RecordingError(f"{source or 'this file'} is a bundle (or sample) file, not a recorded reply: load it "
                             "as the bundle, and give the model's raw reply (or a recording answerlens wrote) here")
    if isinstance(data, dict) and RECORDING_FORMAT in data:
        return _from_recording_file(data, source, source_sha256)
    if isinstance(data, dict) and "evaluation_id" in data and "query_sha256" in data:
        return _from_assessment(data, source, source_sha256)
    return Recording.of(text, author=None, source=source, source_sha256=source_sha256)


def _from_recording_file(data: dict[str, Any], source: str | None, source_sha256: str | None) -> Recording:
    from pydantic import ValidationError

    from answerlens.errors import RecordingError, describe_validation

    if data.get(RECORDING_FORMAT) != 1 or not isinstance(data.get("reply"), str):
        raise RecordingError(f"{source or 'recording'}: expected {RECORDING_FORMAT}: 1 and the reply as a string")
    try:
        binding = RecordingBinding.model_validate(data["binding"]) if data.get("binding") is not None else None
        author, question, answer = (data.get(key) for key in ("author", "question", "answer"))
        return Recording.of(data["reply"], author=author, source=source, source_sha256=source_sha256,
                            binding=binding, question=question, answer=answer)
    except ValidationError as exc:
        raise RecordingError(f"{source or 'recording'}: {describe_validation(exc)}") from None


def _from_assessment(data: dict[str, Any], source: str | None, source_sha256: str | None) -> Recording:
    return recording_of_assessment(data, source=source, source_sha256=source_sha256)


def recording_of_assessment(data: Mapping[str, Any], *, question: str | None = None, answer: str | None = None,
                            source: str | None = None, source_sha256: str | None = None) -> Recording:
    """The recording of an assessment's reply (assessment JSON): the one place a result becomes a recording.

    A live reply is bound to the inputs the assessment hashes. A replayed one keeps the recording it replayed:
    its author and its ORIGINAL binding, so a forced replay's reply stays bound to the inputs it really
    answered (replaying it for the forced inputs is refused again, or forced and marked again), and an unbound
    one stays unbound. An assessment whose provenance or reply was edited (its ``provenance_sha256`` or
    ``raw_output_sha256`` no longer matches) is a ``RecordingError``; one whose provenance no hash covers cannot
    prove it was not replayed, so its recording is unbound. ``question`` and ``answer`` are kept only when they
    hash to the binding.
    """
    from pydantic import ValidationError

    from answerlens.errors import RecordingError, describe_validation

    where = source or "assessment"
    text = data.get("raw_output_text")
    if not isinstance(text, str):
        if not isinstance(data.get("raw_output"), dict):
            raise RecordingError(f"{where}: this assessment holds no model reply to replay")
        text = json.dumps(data["raw_output"], ensure_ascii=False)
    _check_hashes(data, text, where)
    meta = data.get("provider_metadata")
    replayed = meta.get("recording") if isinstance(meta, Mapping) else None
    covered = data.get("provenance_sha256") is not None
    try:
        if replayed is None and not covered:
            author, binding = data.get("model"), None
        elif replayed is not None:
            ref = RecordingRef.model_validate(replayed)
            author, binding = ref.author, ref.binding
        else:
            author = data.get("model")
            binding = RecordingBinding(query_sha256=data["query_sha256"], answer_sha256=data.get("answer_sha256"),
                                       context_sha256=data["context_sha256"],
                                       prompt_version=data.get("prompt_version"),
                                       prompt_sha256=data.get("prompt_sha256"))
    except ValidationError as exc:
        raise RecordingError(f"{where}: its recording does not read ({describe_validation(exc)})") from None
    except KeyError as exc:
        raise RecordingError(f"{where}: not an assessment (no {exc.args[0]})") from None
    recording = Recording.of(text, author=author, source=source, source_sha256=source_sha256, binding=binding,
                             question=question, answer=answer)
    if question is not None and recording.restorable is None:
        recording = recording.model_copy(update={"question": None, "answer": None})
    return recording


def _check_hashes(data: Mapping[str, Any], text: str, where: str) -> None:
    from answerlens.errors import RecordingError

    recorded = data.get("provenance_sha256")
    if recorded is not None and provenance_sha256(provenance(data)) != recorded:
        raise RecordingError(f"{where}: its provenance_sha256 does not match where the reply is recorded to come "
                             "from (provider, model, origin, recording): not replayed, as its binding cannot be "
                             "trusted; verify it with `answerlens verify`")
    raw_sha = data.get("raw_output_sha256")
    if isinstance(data.get("raw_output_text"), str) and raw_sha is not None and sha256_text(text) != raw_sha:
        raise RecordingError(f"{where}: its raw_output_text does not match raw_output_sha256 (the reply was edited)")
