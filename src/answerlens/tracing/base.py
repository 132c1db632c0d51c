"""The do-nothing span every tracing function hands back when tracing is off, and the app's address for the
verdict spans' links: all that an untraced process imports of tracing."""

from __future__ import annotations

import os
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from answerlens.assessment import AnswerabilityAssessment, ProviderMetadata
    from answerlens.config import AnswerabilityConfig
    from answerlens.second_opinion.models import SecondOpinion
    from answerlens.tracing.attributes import Gates, Sample

APP_URL_VARIABLE = "ANSWERLENS_APP_URL"
LOCAL_APP_URL = "http://127.0.0.1:8501"
"""Where ``make run`` (and ``streamlit run app.py``) serves the app by default."""
_app_url: str | None = None


class AssessmentSpan:
    """What the pipeline tells a span (an assessment's, a model call's, a sample's, a run's). This base does
    nothing: it is ``NO_SPAN``, what every function hands back when tracing is off (``tracing.spans`` records)."""

    def __enter__(self) -> AssessmentSpan:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        return None

    def current(self, config: AnswerabilityConfig | None = None) -> AssessmentSpan:
        """``with span.current():`` makes a started span the parent of what runs inside (a trial sample)."""
        return self

    def assessed(self, assessment: AnswerabilityAssessment) -> None:
        """The verdict, its identity and the app's link to it."""

    def replied(self, text: str, metadata: ProviderMetadata) -> None:
        """The model's reply and what the server said about the call."""

    def opinion(self, second: SecondOpinion | None) -> None:
        """The second opinion's flag codes."""

    def sampled(self, sample: Sample) -> None:
        """A trial sample's outcome; ends the span ``sample`` started."""

    def finished(self, gates: Gates | None, **counts: Any) -> None:
        """A run's counts and gates."""


NO_SPAN = AssessmentSpan()


def set_app_url(url: str | None) -> None:
    """The app's address, for the ``answerlens.run_url`` links (``ANSWERLENS_APP_URL`` wins when set)."""
    global _app_url
    _app_url = url


def app_url() -> str | None:
    return os.environ.get(APP_URL_VARIABLE) or _app_url
