"""Span attributes from answerlens' typed values (pure): OpenInference's names where it has them, ``answerlens.*``
for the rest. Content (questions, prompts, replies) is included only as ``Capture`` allows."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from answerlens.recording import RecordingMatch, ReplyOrigin
from answerlens.tracing.settings import Capture

if TYPE_CHECKING:
    from answerlens.assessment import AnswerabilityAssessment, ProviderMetadata
    from answerlens.config import AnswerabilityConfig
    from answerlens.second_opinion.models import SecondOpinion

Attributes = dict[str, str | bool | int | float | list[str]]


class SampleError(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def message(self) -> str: ...


class Sample(Protocol):
    """What a span reads of a trial sample (``trials.log.TrialSample``; structural, so tracing does not
    depend on the trials package, which depends on it)."""

    @property
    def case_id(self) -> str: ...

    @property
    def repeat(self) -> int: ...

    @property
    def assessment(self) -> AnswerabilityAssessment | None: ...

    @property
    def error(self) -> SampleError | None: ...

    @property
    def second_opinion(self) -> SecondOpinion | None: ...


class GateResult(Protocol):
    @property
    def passed(self) -> bool: ...

    @property
    def observed(self) -> int | float: ...

    @property
    def required(self) -> int | float: ...


class Gates(Protocol):
    """A run's gate report (``trials.gates.GateReport``), structurally."""

    @property
    def passed(self) -> bool: ...

    @property
    def failed(self) -> list[str]: ...

    @property
    def results(self) -> Mapping[str, GateResult]: ...

KIND = "openinference.span.kind"
EVALUATOR = "EVALUATOR"
LLM = "LLM"
CHAIN = "CHAIN"


def source(metadata: ProviderMetadata | None) -> str:
    """live, recorded, forced replay or unbound (a recording that does not say which inputs it answered);
    ``no model call`` when the context had no citable evidence."""
    if metadata is None:
        return "no model call"
    if metadata.origin == ReplyOrigin.LIVE or metadata.recording is None:
        return metadata.origin.value
    return {RecordingMatch.FORCED: "forced replay", RecordingMatch.UNBOUND: "unbound"}.get(
        metadata.recording.match, "recorded")


def run_url(app_url: str | None, evaluation_id: str) -> str | None:
    """The app's link that reopens this run (``?run=``), when the app's address is known."""
    if not app_url:
        return None
    return f"{app_url.rstrip('/')}/?run={quote(evaluation_id)}"


def starting(config: AnswerabilityConfig, query: str, capture: Capture) -> Attributes:
    attributes: Attributes = {KIND: EVALUATOR, "answerlens.provider": config.provider,
                              "answerlens.model": config.model}
    if capture.inputs:
        attributes |= {"input.value": query, "input.mime_type": "text/plain"}
    return attributes


def assessed(assessment: AnswerabilityAssessment, capture: Capture, app_url: str | None) -> Attributes:
    """The verdict and its identity: what a reviewer filters on, and the link back to the app."""
    attributes: Attributes = {
        "answerlens.verdict": assessment.verdict.value,
        "answerlens.action": assessment.recommended_action.value,
        "answerlens.evaluation_id": assessment.evaluation_id,
        "answerlens.assessment_sha256": assessment.assessment_sha256,
        "answerlens.configuration_sha256": assessment.configuration_sha256,
        "answerlens.requirements": len(assessment.requirements),
        "answerlens.citation_errors": len(assessment.citation_errors),
        "answerlens.source": source(assessment.provider_metadata),
        "answerlens.model_called": assessment.model_called,
    }
    link = run_url(app_url, assessment.evaluation_id)
    if link is not None:
        attributes["answerlens.run_url"] = link
    if capture.outputs:
        summary = {"verdict": assessment.verdict.value, "action": assessment.recommended_action.value,
                   "missing_information": list(assessment.missing_information),
                   "conflicts": list(assessment.conflicts)}
        attributes |= {"output.value": json.dumps(summary, ensure_ascii=False),
                       "output.mime_type": "application/json"}
    return attributes


def opinion(second: SecondOpinion) -> Attributes:
    """The second opinion's flag codes (each once, sorted) and its strict verdict and action when the policy is
    strict: the same attributes on a single assessment's span and on a trial sample's."""
    codes = sorted({flag.code.value for requirement in second.requirements for flag in requirement.flags})
    attributes: Attributes = {"answerlens.second_opinion.flags": codes} if codes else {}
    if second.strict is not None:
        attributes["answerlens.second_opinion.strict_verdict"] = second.strict.verdict.value
        attributes["answerlens.second_opinion.strict_action"] = second.strict.recommended_action.value
    return attributes


def model_call(config: AnswerabilityConfig, engine: str, system: str, user: str, capture: Capture) -> Attributes:
    attributes: Attributes = {KIND: LLM, "llm.model_name": config.model, "llm.provider": engine,
                              "llm.system": engine}
    if capture.invocation_parameters:
        parameters = {name: value for name, value in (("temperature", config.temperature), ("seed", config.seed))
                      if value is not None}
        attributes["llm.invocation_parameters"] = json.dumps(parameters)
    if capture.inputs:
        attributes |= {"input.value": user, "input.mime_type": "text/plain"}
        if capture.input_messages:
            attributes |= _messages("llm.input_messages", (("system", system), ("user", user)), capture.input_text)
    return attributes


def replied(text: str, metadata: ProviderMetadata, capture: Capture) -> Attributes:
    attributes: Attributes = {"answerlens.attempts": metadata.attempts, "answerlens.source": source(metadata)}
    if metadata.latency_ms is not None:
        attributes["answerlens.latency_ms"] = metadata.latency_ms
    if metadata.finish_reason is not None:
        attributes["answerlens.finish_reason"] = metadata.finish_reason
    if metadata.prompt_tokens is not None:
        attributes["llm.token_count.prompt"] = metadata.prompt_tokens
    if metadata.completion_tokens is not None:
        attributes["llm.token_count.completion"] = metadata.completion_tokens
    if metadata.prompt_tokens is not None and metadata.completion_tokens is not None:
        attributes["llm.token_count.total"] = metadata.prompt_tokens + metadata.completion_tokens
    if capture.outputs:
        attributes |= {"output.value": text, "output.mime_type": "application/json"}
        if capture.output_messages:
            attributes |= _messages("llm.output_messages", (("assistant", text),), capture.output_text)
    return attributes


def _messages(prefix: str, messages: tuple[tuple[str, str], ...], text: bool) -> Attributes:
    attributes: Attributes = {}
    for index, (role, content) in enumerate(messages):
        attributes[f"{prefix}.{index}.message.role"] = role
        if text:
            attributes[f"{prefix}.{index}.message.content"] = content
    return attributes


def sample(item: Sample) -> Attributes:
    attributes: Attributes = {"answerlens.case_id": item.case_id, "answerlens.repeat": item.repeat}
    if item.error is not None:
        attributes["answerlens.error_kind"] = item.error.kind
    return attributes


def trial(gates: Gates | None, counts: Mapping[str, Any]) -> Attributes:
    """A trial run's counts and, when it finished, its gates: passed overall, and each gate's figures."""
    attributes: Attributes = {f"answerlens.trial.{name}": value for name, value in counts.items()
                              if isinstance(value, (str, bool, int, float))}
    if gates is not None:
        attributes["answerlens.gates.passed"] = gates.passed
        attributes["answerlens.gates.failed"] = gates.failed
        for name, gate in gates.results.items():
            attributes[f"answerlens.gate.{name}.passed"] = gate.passed
            attributes[f"answerlens.gate.{name}.observed"] = gate.observed
            attributes[f"answerlens.gate.{name}.required"] = gate.required
    return attributes
