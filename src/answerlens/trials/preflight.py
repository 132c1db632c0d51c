"""Before a trial starts: is every endpoint there, and does it have the model? A run that cannot work is refused
with the reason and the remedy, instead of filling a folder with identical error samples.

Refused: no endpoint answers; an endpoint answers without the configured model; an endpoint refuses the key.
Let through, with a warning: an endpoint that does not answer while another one does (failover covers it), and
a server that offers no model listing (many proxies do not; the first calls will tell).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.providers.preflight import Preflight, preflight

REFUSED_KINDS = frozenset({"model_not_found", "unauthorized"})


async def check_endpoints(config: AnswerabilityConfig, urls: Sequence[str], *,
                          timeout: float = 5.0) -> tuple[str, ...]:
    """The warnings of a usable set of endpoints; ``AnswerabilityError`` (kind ``preflight``) when refused."""
    targets = list(urls) or [config.effective_base_url or ""]
    reports = await asyncio.gather(*(preflight(config.model_copy(update={"base_url": url}), timeout=timeout)
                                     for url in targets))
    refusals = [f"{url}: {report.problem}" for url, report in zip(targets, reports, strict=True)
                if report.reachable and _kind(report) in REFUSED_KINDS]
    silent = [f"{url}: {report.problem}" for url, report in zip(targets, reports, strict=True) if not report.reachable]
    if refusals or len(silent) == len(targets):
        reason = (refusals or silent)[0]
        raise AnswerabilityError(f"the trial was not started: {reason}", kind="preflight",
                                 remedy="fix the endpoint (start the server, pull the model or set the key) and run "
                                        "the trial again (saved samples are kept)")
    warnings = [f"not answering, requests go to the others: {item}" for item in silent]
    warnings += [f"{url}: {report.problem} (the trial goes ahead)" for url, report in zip(targets, reports, strict=True)
                 if report.reachable and report.problem and _kind(report) not in REFUSED_KINDS]
    return tuple(warnings)


def _kind(report: Preflight) -> str | None:
    return report.problem_kind
