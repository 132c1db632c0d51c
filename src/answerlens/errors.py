"""The one exception tree of answerlens.

Expected outcomes (an insufficient verdict, a discarded citation) are data; these are the failures::

    AnswerlensError                  root of everything answerlens raises on purpose
    ├── BundleError (ValueError)     a bundle could not be loaded: says what is wrong and where
    ├── DatasetError (ValueError)    a trial dataset or result file is invalid: names the case and field
    ├── TrialError                   a trial run cannot proceed (e.g. resuming into another run's samples)
    │   ├── TrialLockError           another runner holds the run folder's lock (names its pid and start time)
    │   └── ClusterError             a Dask cluster cannot run it: scheduler unreachable, no usable worker, a shard
    │                                lost past its retries (``unfinished``: the folder resumes)
    ├── LocalModelError              the embedded llama.cpp server cannot start (runtime, GGUF, port)
    ├── ReportError (ValueError)     a file is not an answerlens HTML report, or its embedded data cannot be read
    ├── VerificationError (ValueError)
    │                                ``verify_path`` was given what it does not verify, or an option that does not
    │                                apply to it (a file that does not verify is a finding, never this)
    ├── RecordingError (ValueError)  a reply file is not a recording (e.g. a bundle), or is malformed
    ├── RunStoreError                the app's run history file cannot be read or written: names it and the remedy
    │   └── RunStoreStorageError     ... because the machine refused the write (also a StorageError)
    ├── StorageError (OSError)       the machine refused a write: disk or quota full, read-only, no permission;
    │                                names the file, what was kept and how to resume (CLI exit 6)
    ├── TraceError (ValueError)      a trace cannot be imported: not OTLP JSON, no retriever span, no documents,
    │                                documents without (or with cut) content; or a span must be chosen
    ├── PhoenixError (RuntimeError)  Phoenix did not answer, refused the API key, or refused a request
    ├── LabelError (ValueError)      a review label, or a labels file (JSON lines), is invalid: names the line
    ├── AnswerabilityError (RuntimeError)
    │   │                            the provider failed or returned no valid assessment; never a verdict
    │   └── RecordingMismatchError   a recording answered other inputs (question, draft, context, prompt)
    │                                than the ones it was replayed for; nothing was asked, no verdict
    └── ClaimVerificationError (RuntimeError)
                                     the NLI runtime, model or scorer output is missing or invalid; never support

A blank query or answer, or a reader bundle packed without citations, raises a plain ``ValueError``
exactly as upstream PRME does.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only for annotations: the error tree itself imports nothing heavy
    from pydantic import ValidationError


class AnswerlensError(Exception):
    """Root of every error answerlens raises deliberately."""


class BundleError(AnswerlensError, ValueError):
    """A bundle source is invalid; the message names the file and JSON path."""

    def __init__(self, message: str, *, source: str | None = None, path: str | None = None) -> None:
        self.source = source
        self.path = path
        where = ", ".join(part for part in (source, f"at {path}" if path else None) if part)
        super().__init__(f"{where}: {message}" if where else message)


class DatasetError(AnswerlensError, ValueError):
    """A trial dataset (or a trial result file) is invalid."""


class TrialError(AnswerlensError):
    """A trial run cannot proceed as asked."""


class ClusterError(TrialError):
    """A run on a Dask cluster (``--dask``) cannot start or did not finish; names the worker and what to do.
    ``unfinished``: samples were saved and rerunning the same command resumes."""

    def __init__(self, message: str, *, unfinished: bool = False) -> None:
        self.unfinished = unfinished
        super().__init__(message)


class TrialLockError(TrialError):
    """Another process holds the run folder's lock; ``pid`` and ``started`` name it (None when not yet recorded)."""

    def __init__(self, message: str, *, pid: int | None = None, started: str | None = None) -> None:
        self.pid = pid
        self.started = started
        super().__init__(message)


class LocalModelError(AnswerlensError):
    """The embedded model server cannot start; the message says what to install or change."""


class ReportError(AnswerlensError, ValueError):
    """A file is not an answerlens HTML report, or the data embedded in it cannot be read (or a report cannot be
    made from the inputs given); the message says which."""


class AnswerabilityError(AnswerlensError, RuntimeError):
    """The provider failed or returned no valid assessment.

    ``kind`` is a short machine-readable code (``connection_refused``, ``timeout``, ``schema`` …),
    ``remedy`` says what to do, ``raw_excerpt`` holds the start of the model's text when there was one.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "provider",
        remedy: str | None = None,
        base_url: str | None = None,
        model: str | None = None,
        raw_excerpt: str | None = None,
    ) -> None:
        self.kind = kind
        self.remedy = remedy
        self.base_url = base_url
        self.model = model
        self.raw_excerpt = raw_excerpt
        self.detail = message
        text = message if remedy is None else f"{message} — {remedy}"
        super().__init__(text)


class VerificationError(AnswerlensError, ValueError):
    """``verify_path`` cannot verify this path as asked: it is none of the things verify reads, or an option (a
    bundle, a dataset) does not apply to what it is."""


class RecordingError(AnswerlensError, ValueError):
    """A file given as a recorded reply is not one (a bundle, a sample), or its recording fields are invalid."""


class RecordingMismatchError(AnswerabilityError):
    """A recording was about to be replayed for inputs other than the ones it answered.

    ``differences`` names them (``question``, ``draft``, ``context``, ``prompt``); ``restorable`` says whether
    the recording carries the question (and draft) it answered, so a caller can offer to restore them.
    """

    def __init__(self, differences: tuple[str, ...], *, restorable: bool = False) -> None:
        self.differences = differences
        self.restorable = restorable
        what = ", ".join(differences)
        super().__init__(
            f"the recorded reply answered another {what}: replaying it here would show a verdict for other inputs",
            kind="recording_mismatch",
            remedy="replay it for the inputs it was recorded for (restore the recorded question), or run a model; "
            "to replay it anyway, force it (CLI: --force-replay), which marks the result as forced",
        )


class LabelError(AnswerlensError, ValueError):
    """A review label, or a file of them (JSON lines, DESIGN §14), is invalid; the message names the line."""


class RunStoreError(AnswerlensError):
    """The run store (the app's history file) cannot be read or written; ``path`` names the file, ``remedy`` says
    what to do; ``whole_file`` is False when only one run (unreadable, or too big to keep) is the problem. The app
    then works without history: a new result is still shown, only not kept."""

    def __init__(self, message: str, *, path: str, remedy: str, whole_file: bool = True) -> None:
        self.path = path
        self.remedy = remedy
        self.whole_file = whole_file
        self.detail = message
        super().__init__(f"{message} — {remedy}")


class StorageError(AnswerlensError, OSError):
    """The machine refused a write: the disk or the quota is full, the file system is read-only, or writing there
    is not permitted. ``path`` names the file, ``reason`` the refusal in words, ``kept`` what is safe (every write
    goes to a temporary file first, so nothing already written is lost or truncated) and ``resume`` what to do;
    ``errno`` is the system's code. An ``OSError`` too, so code that stops on a failed write stops on it."""

    def __init__(self, path: str, reason: str, *, errno: int | None = None, kept: str, resume: str) -> None:
        self.path = path
        self.reason = reason
        self.kept = kept
        self.resume = resume
        super().__init__(f"cannot write {path}: {reason}; {kept} — {resume}")
        self.errno = errno

    def carrying(self, *, kept: str, resume: str) -> StorageError:
        """The same refusal, with what its caller knows was kept and how to resume."""
        return StorageError(self.path, self.reason, errno=self.errno, kept=kept, resume=resume)


class RunStoreStorageError(RunStoreError, StorageError):
    """The run history could not be written because the machine refused (full, read-only, no permission): the
    file itself is fine and its runs are still read, so the remedy frees space or grants the write, never deletes
    it (``whole_file`` is False: only new runs are not kept)."""

    def __init__(self, path: str, reason: str, *, errno: int | None, remedy: str) -> None:
        self.path = path
        self.remedy = remedy
        self.whole_file = False
        self.reason = reason
        self.kept = "its stored runs are intact"
        self.resume = remedy
        self.detail = f"The run history {path} cannot be written: {reason}"
        AnswerlensError.__init__(self, f"{self.detail} — {remedy}")
        self.errno = errno


class TraceError(AnswerlensError, ValueError):
    """A trace (an OTLP JSON file, or spans read from Phoenix) cannot become a sample; the message says why and
    what to do. ``choices`` lists the retriever spans to pick from when several fit and none was named."""

    def __init__(self, message: str, *, choices: Sequence[Any] = ()) -> None:
        self.choices = tuple(choices)
        super().__init__(message)


class PhoenixError(AnswerlensError, RuntimeError):
    """A Phoenix server did not answer, refused the API key, or refused a request. ``kind`` is a short code
    (``unreachable``, ``unauthorized``, ``not_found``, ``refused``, ``bad_reply``), ``remedy`` says what to do.
    Messages never hold the API key (it is sent only as a header)."""

    def __init__(self, message: str, *, kind: str, remedy: str | None = None) -> None:
        self.kind = kind
        self.remedy = remedy
        self.detail = message
        super().__init__(message if remedy is None else f"{message} — {remedy}")


class ClaimVerificationError(AnswerlensError, RuntimeError):
    """A claim verifier dependency, model, or inference result was missing or invalid (PRME's name)."""


def json_path(prefix: str, loc: Sequence[Any]) -> str:
    """A pydantic location as a JSON path such as ``$.sections.stable_facts[0].node.id``."""
    path = prefix
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with a JSON text, as a whole phrase: Python's message can end in "at" with the position
    given apart ("Unterminated string starting at"), which printed on its own reads as cut off."""
    message = exc.msg
    return f"{message[:-3]} here" if message.endswith(" at") else message


def describe_validation(exc: ValidationError, prefix: str = "$", *, drop_first: str | None = None) -> str:
    """The first few problems of a validation error, each as ``JSON path: message``.

    ``drop_first`` removes a leading location part the user never wrote (a wrapper we added).
    """
    errors = exc.errors(include_url=False)
    lines = []
    for error in errors[:5]:
        loc = list(error["loc"])
        if drop_first is not None and loc[:1] == [drop_first]:
            loc = loc[1:]
        lines.append(f"{json_path(prefix, loc)}: {error['msg']}")
    more = f" (and {len(errors) - 5} more problems)" if len(errors) > 5 else ""
    return "; ".join(lines) + more
