"""Runs that fit their endpoint: no more requests in flight than the server serves at once (llama.cpp's slots), and
a timeout that covers reading the run's largest prompt and writing the longest reply it allows, at the speed the
server showed on one short call over that prompt. A run whose own timeout cannot cover even reading that prompt is
refused before it starts, saying what would.

Only what is left unset follows the endpoint: an explicit ``concurrency`` is kept (a warning says when it exceeds
the slots), an explicit ``timeout`` is kept (checked). A resumed run keeps the timeout its folder recorded, so its
configuration (and every sample's hash) stays the same. Servers that tell neither (Ollama, hosted APIs) keep the
defaults: no call is spent measuring them.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.providers.preflight import preflight
from answerlens.providers.request_size import Request, reply_tokens
from answerlens.providers.speed import PROBE_TOKENS, Speed, measure

DEFAULT_CONCURRENCY = 4
"""Requests in flight per endpoint when neither the caller nor the server says otherwise."""
DEFAULT_TIMEOUT: float = AnswerabilityConfig.model_fields["timeout"].default
MARGIN = 1.5
"""A timeout is this many times the longest call the measured speed predicts (the machine may be busier later)."""
MANIFEST = "run.json"


@dataclass(frozen=True)
class Fit:
    """What a run uses, and why, in words said before it starts."""

    config: AnswerabilityConfig
    concurrency: int
    notes: tuple[str, ...] = ()
    slots: int | None = None
    speed: Speed | None = None


def timeout_given(config: AnswerabilityConfig) -> bool:
    """Whether the caller set the timeout (left unset, it follows the endpoint)."""
    return "timeout" in config.model_fields_set


def decide(config: AnswerabilityConfig, *, concurrency: int | None, slots: int | None, speed: Speed | None,
           reply: int, saved_timeout: float | None = None) -> Fit:
    """The run's concurrency and configuration from what the endpoint told (pure). ``reply``: the largest request's
    reply bound in tokens; ``saved_timeout``: the timeout a resumed run's folder recorded. Raises
    ``AnswerabilityError`` (kind ``preflight``) when an explicit timeout cannot cover reading the largest prompt."""
    notes: list[str] = []
    if concurrency is None:
        concurrency = min(DEFAULT_CONCURRENCY, slots) if slots else DEFAULT_CONCURRENCY
        if slots:
            notes.append(f"{concurrency} request{'s' if concurrency != 1 else ''} in flight: the server serves "
                         f"{slots} at a time")
    elif slots and concurrency > slots:
        notes.append(f"{concurrency} requests in flight, but the server serves {slots} at a time: the others wait in "
                     f"its queue while their timeout runs — use --concurrency {slots}")
    if timeout_given(config):
        _check(config, speed, reply, notes)
    elif saved_timeout is not None:
        config = config.model_copy(update={"timeout": saved_timeout})
    elif speed is not None:
        longest = speed.seconds(speed.prompt_tokens, reply)
        timeout = _fitting(longest)
        config = config.model_copy(update={"timeout": timeout})
        notes.append(f"timeout {timeout:g} s a call: {speed.describe()}, so a reply over the largest context that "
                     f"runs to its bound ({reply:,} tokens) takes {longest:,.0f} s; ×{MARGIN:g}")
    return Fit(config, concurrency, tuple(notes), slots, speed)


def _fitting(longest: float) -> float:
    """A timeout with room for the longest reply (``MARGIN`` of it, whole 5 s, never below the default). A re-ask
    after a reply that ran to its bound may not fit: such a reply rarely validates anyway, and a timeout of every
    attempt at its bound would let a hung server hold a call for an hour."""
    return max(DEFAULT_TIMEOUT, 5.0 * math.ceil(MARGIN * longest / 5.0))


def _check(config: AnswerabilityConfig, speed: Speed | None, reply: int, notes: list[str]) -> None:
    if speed is None:
        return
    least = speed.seconds(speed.prompt_tokens, PROBE_TOKENS)
    longest = speed.seconds(speed.prompt_tokens, reply)
    fits = _fitting(longest)
    if config.timeout < least:
        raise AnswerabilityError(
            f"the run cannot finish in time: one call over its largest context needs at least {least:,.0f} s "
            f"({speed.describe()}), and the timeout is {config.timeout:g} s", kind="preflight",
            remedy=f"raise --timeout to {fits:g} (or leave it unset: the run then takes a timeout that fits the "
                   "server), or lower the budget")
    if config.timeout < longest:
        notes.append(f"a reply that runs to its bound ({reply:,} tokens) takes about {longest:,.0f} s here, longer "
                     f"than the timeout of {config.timeout:g} s: such a call fails ({speed.describe()}; "
                     f"--timeout {fits:g} would fit)")


async def fit_or_default(config: AnswerabilityConfig, urls: Sequence[str], *, concurrency: int | None,
                         largest: Request | None, out: Path, asked: bool,
                         announce: Callable[[str], None] | None = None) -> Fit:
    """``fit_run`` when the endpoints may be ``asked`` (the run's preflight is on), else the defaults; ``announce``
    hears the notes."""
    if not asked:
        return Fit(config, DEFAULT_CONCURRENCY if concurrency is None else concurrency)
    fitted = await fit_run(config, urls, concurrency=concurrency, largest=largest, out=out)
    if announce is not None:
        for note in fitted.notes:
            announce(note)
    return fitted


async def fit_run(config: AnswerabilityConfig, urls: Sequence[str], *, concurrency: int | None,
                  largest: Request | None, out: Path) -> Fit:
    """Ask the endpoints what they serve, measure the first llama.cpp server on the run's largest request when the
    timeout is to be chosen or checked (a fresh run only), and ``decide``."""
    targets = list(urls) or [config.effective_base_url or ""]
    reports = await asyncio.gather(*(preflight(config.model_copy(update={"base_url": url})) for url in targets))
    slots = min((report.slots for report in reports if report.slots), default=None)
    saved = None if timeout_given(config) else saved_timeout(out)
    speed = None
    llama = next((url for url, report in zip(targets, reports, strict=True)
                  if (report.server or "").startswith("llama.cpp")), None)
    if largest is not None and llama is not None and saved is None:
        speed = await measure(config.model_copy(update={"base_url": llama}), largest)
    reply = reply_tokens(config, largest) if largest is not None else 0
    return decide(config, concurrency=concurrency, slots=slots, speed=speed, reply=reply, saved_timeout=saved)


def saved_timeout(out: Path) -> float | None:
    """The timeout a run folder's ``run.json`` recorded (None for a fresh folder, or one that does not say)."""
    try:
        data = json.loads((Path(out) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    configuration = data.get("configuration") if isinstance(data, dict) else None
    timeout = configuration.get("timeout") if isinstance(configuration, dict) else None
    return float(timeout) if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0 \
        else None
