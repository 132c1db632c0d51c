"""``should_abstain``: the older Boolean helper, kept small for callers that only want yes or no.

Legacy and **fail-open**: any failure returns ``False`` (do not abstain) unless ``raise_on_error=True``.
It offers no citation details, partial coverage or conflicts; use ``AnswerabilityEvaluator`` for those.
"""

from __future__ import annotations

import logging
from typing import Any

from answerlens.config import AnswerabilityConfig
from answerlens.evaluator import assess_answerability

logger = logging.getLogger(__name__)


async def should_abstain(
    query: str,
    bundle: Any,
    *,
    answer: str | None = None,
    config: AnswerabilityConfig | None = None,
    raise_on_error: bool = False,
) -> bool:
    """True when the assessment's action is ``abstain`` or ``surface_conflict``; False on any error."""
    try:
        assessment = await assess_answerability(query, bundle, answer=answer, config=config)
    except Exception as exc:
        if raise_on_error:
            raise
        # Our errors are already redacted, so their text is safe to log and says what to fix.
        logger.warning("should_abstain failed open (returned False): %s: %s", type(exc).__name__, exc)
        return False
    return assessment.should_abstain
