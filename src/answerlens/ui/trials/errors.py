"""Error samples as the Trials page shows them (pure): the engine's groups of identical errors
(``answerlens.trials.failures.group_errors``) placed in the run, and each message with the remedy that applies to a
trial.

Provider errors end with a remedy written for a single assessment ("… — start it with `ollama serve`, or use the
recorded response"); a trial cannot use a recorded response (it asks questions no recording answers), so that
advice is removed here and the page says what does apply: rerun into the same folder, or change a setting and
start a fresh one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from answerlens.trials.failures import ErrorGroup

RESUME = ("run the trial again into the same output directory: error samples are retried, finished ones are "
          "kept")
FRESH = ("a changed setting is another configuration, so start it in a fresh output directory (this one keeps "
         "its samples)")
TRIAL_REMEDIES = {
    "preflight": "start the model server (Ollama: ollama serve), pull the model, or correct the base URL or API key "
                 "in the sidebar, then start the trial again (nothing was written: any output directory will do, "
                 "the same output directory included)",
    "connection_refused": f"start the model server (Ollama: ollama serve) or correct the base URL, then {RESUME}",
    "connect_timeout": f"check the base URL and that the server is up, then {RESUME}",
    "read_timeout": f"lower the concurrency (a busy server answers late) or raise the timeout; {FRESH}",
    "timeout": f"lower the concurrency or raise the timeout, or use a smaller model; {FRESH}",
    "rate_limited": f"wait, then {RESUME}; or lower the concurrency ({FRESH})",
    "server_error": f"check the server's log, then {RESUME}",
    "model_not_found": f"pull the model on the server, then {RESUME}; or pick another model ({FRESH})",
    "unauthorized": f"set a valid API key, then {RESUME}",
    "context_too_long": f"these cases do not fit the model's context window: use a model with a larger one ({FRESH})",
    "truncated": f"the model ran out of tokens before finishing its reply: use a larger or more capable model "
                 f"({FRESH})",
    "schema": f"the model's replies do not follow the answer format: use a more capable model ({FRESH})",
}
DEFAULT_REMEDY = f"fix what the message says, then {RESUME}"
_NOT_HERE = (
    re.compile(r",?\s*or\s+use\s+the\s+recorded\s+response(\s+instead)?", re.IGNORECASE),
    re.compile(r"use\s+the\s+recorded\s+response(\s+instead)?(,\s*or\s+|\s+or\s+|[,;]\s*|\.?$)", re.IGNORECASE),
)
"""Advice that only applies to one assessment on the Inspect page."""


def trial_message(message: str) -> str:
    """The recorded message without advice the Trials page cannot follow."""
    for pattern in _NOT_HERE:
        message = pattern.sub("", message)
    return re.sub(r"\s*—\s*$", "", message)  # no dash left dangling where the advice was all the remedy


def trial_remedy(kind: str) -> str:
    """What to do about an error of this kind in a trial."""
    return TRIAL_REMEDIES.get(kind, DEFAULT_REMEDY)


def where(group: ErrorGroup) -> str:
    """Where a group of identical errors starts and stops, in the run's order."""
    first = f"{group.first_question_id} · repeat {group.first_repeat}"
    return first if group.count == 1 else f"{first} … {group.last_question_id} · repeat {group.last_repeat}"


def every_call_failed_alike(groups: Sequence[ErrorGroup], called: int) -> bool:
    """True when no model call succeeded (``called``: assessed samples that called the model) and all error
    samples share one kind and message: the endpoint, not the questions, failed, and no figure measures the model.
    Samples decided without a call (an empty bundle) do not count: they never reached the model."""
    return called == 0 and len(groups) == 1
