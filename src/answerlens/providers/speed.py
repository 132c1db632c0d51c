"""How fast a llama.cpp server reads a prompt and writes a reply, learnt from one short call over a real request
(the server's own ``timings``), so a run can give its calls a timeout that covers its largest prompt.

Only llama.cpp servers report their timings; any other server, and any failure, gives None: the caller keeps its
configured timeout.
"""

from __future__ import annotations

from dataclasses import dataclass

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.providers.failures import failures_for
from answerlens.providers.http import as_int, auth_headers, json_body, make_client, send
from answerlens.providers.request_size import Request, messages_for

PROBE_TOKENS = 16
"""Reply tokens the measuring call asks for: enough to time generation, few enough to cost little."""
PROBE_DEADLINE = 900.0
"""The measuring call's own limit (it reads the run's largest prompt, however slow the server)."""
MAX_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Speed:
    """What one call over a request showed: its prompt's tokens and how fast they were read, and how fast the
    reply's tokens came."""

    prompt_tokens: int
    prompt_per_second: float
    reply_per_second: float

    def seconds(self, prompt_tokens: int, reply_tokens: int) -> float:
        """How long a call reading ``prompt_tokens`` and writing ``reply_tokens`` takes at this speed."""
        return prompt_tokens / self.prompt_per_second + reply_tokens / self.reply_per_second

    def describe(self) -> str:
        """``1,204 prompt tokens read at 310 tokens/s; replies at 24 tokens/s``."""
        return (f"{self.prompt_tokens:,} prompt tokens read at {self.prompt_per_second:,.0f} tokens/s; replies at "
                f"{self.reply_per_second:,.1f} tokens/s")


async def measure(config: AnswerabilityConfig, request: Request) -> Speed | None:
    """One call over ``request`` asking for ``PROBE_TOKENS`` reply tokens, timed by the server itself; None when
    the server does not report its timings (not llama.cpp) or the call fails."""
    base_url = config.effective_base_url
    if base_url is None:
        return None
    failures = failures_for(config, operation=None)
    payload = {"model": config.model, "messages": messages_for(config, request), "max_tokens": PROBE_TOKENS,
               "temperature": 0.0, "cache_prompt": False, "stream": False}
    try:
        async with make_client(config, PROBE_DEADLINE) as client:
            reply = await send(client, failures, "POST", f"{base_url}/chat/completions", headers=auth_headers(config),
                               payload=payload, max_bytes=MAX_BYTES, deadline=PROBE_DEADLINE)
            timings = json_body(reply, failures).get("timings")
    except AnswerabilityError:
        return None
    return speed_of(timings)


def speed_of(timings: object) -> Speed | None:
    """A llama.cpp reply's ``timings`` as a ``Speed`` (None when they are missing or say nothing usable)."""
    if not isinstance(timings, dict):
        return None
    prompt = as_int(timings.get("prompt_n"))
    rates = [_rate(timings.get(key)) for key in ("prompt_per_second", "predicted_per_second")]
    if prompt is None or prompt <= 0 or rates[0] is None or rates[1] is None:
        return None
    return Speed(prompt_tokens=prompt, prompt_per_second=rates[0], reply_per_second=rates[1])


def _rate(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e9 \
        else None
