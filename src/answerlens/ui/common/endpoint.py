"""The endpoint panel's model (pure): its settings as a configuration or a problem to show, the recorded-reply
choices, the model list, and what the preflight line says.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr, ValidationError

from answerlens.audit import sha256_text
from answerlens.config import DEFAULT_MODELS, DEFAULT_PROVIDER, AnswerabilityConfig
from answerlens.errors import describe_validation
from answerlens.html.markup import Notice, NoticeKind
from answerlens.providers.kinds import KINDS
from answerlens.providers.preflight import Preflight
from answerlens.recording import Recording, recording_from_text
from answerlens.samples import Sample

PROVIDERS = {kind.label: name for name, kind in KINDS.items()}
"""The panel's provider choices by label (``Ollama`` → ``ollama`` …), from the provider registry."""


def label_of(provider: str) -> str:
    """The panel's label for a provider name (``replay`` → ``Recorded response``)."""
    return KINDS[provider].label


PROMPTS = {"answerlens (default)": "answerlens", "PRME 0.15 (verbatim)": "prme"}
PROMPT_HELP = ("answerlens' own prompt, or PRME 0.15.0's exact prompt, user message and reply schema: its "
               "results carry PRME's prompt identity, so they compare with PRME's own runs.")
DEFAULT_TIMEOUTS = {"ollama": 120.0, "openai": 120.0, "llamacpp": 300.0}
"""Seconds for a whole assess call; small CPU-bound local models are slow on long contexts."""


@dataclass(frozen=True)
class Endpoint:
    """The endpoint panel's settings; ``provider`` is ``ollama``, ``openai``, ``llamacpp`` or ``replay``."""

    provider: str = DEFAULT_PROVIDER
    model: str = DEFAULT_MODELS[DEFAULT_PROVIDER]
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 60.0
    temperature: float = 0.0
    seed: int | None = None
    num_ctx: int | None = None
    max_tokens: int | None = None
    max_retries: int = 2
    prompt: str = "answerlens"


@dataclass(frozen=True)
class Choice:
    """What the panel hands the page: the configuration to assess with (or why there is none) and, for the
    recorded response, the recording to replay."""

    config: AnswerabilityConfig | None
    problem: str | None = None
    recording: Recording | None = None
    blocked: str | None = None
    """Why an assessment cannot run although the settings are valid (no server answers), with what to do."""

    @property
    def recorded(self) -> bool:
        return self.config is not None and self.config.provider == "replay"


def make_config(endpoint: Endpoint) -> AnswerabilityConfig:
    """An ``AnswerabilityConfig``; raises ``ValueError`` naming the setting that is wrong."""
    fields: dict[str, Any] = {"provider": endpoint.provider, "model": endpoint.model}
    if endpoint.provider != "replay":
        fields |= {
            "base_url": endpoint.base_url or None,
            "api_key": SecretStr(endpoint.api_key) if endpoint.api_key else None,
            "timeout": endpoint.timeout,
            "temperature": endpoint.temperature,
            "seed": endpoint.seed,
            "max_retries": endpoint.max_retries,
            "prompt": endpoint.prompt,
        }
        if endpoint.provider == "ollama":
            fields["num_ctx"] = endpoint.num_ctx
        if endpoint.provider == "llamacpp":
            fields["max_tokens"] = endpoint.max_tokens
    try:
        return AnswerabilityConfig(**fields)
    except ValidationError as exc:
        raise ValueError(settings_problem(exc)) from None


LABELS = {"model": "Model", "base_url": "Base URL", "api_key": "API key", "timeout": "Timeout (s, whole call)",
          "temperature": "Temperature", "seed": "Seed", "num_ctx": "Context window, num_ctx",
          "max_tokens": "Reply bound, max_tokens", "max_retries": "Re-asks after an invalid reply", "prompt": "Prompt"}
"""The panel's own label of each setting, as the sidebar shows it."""
_BOUNDS = {"less_than_equal": ("le", "must be at most {}"), "less_than": ("lt", "must be less than {}"),
           "greater_than_equal": ("ge", "must be at least {}"), "greater_than": ("gt", "must be more than {}")}


def settings_problem(exc: ValidationError) -> str:
    """What is wrong with the panel's settings, each by its label in the sidebar and in plain words (never
    pydantic's ``settings.base_url: Value error, …``)."""
    said = []
    for error in exc.errors(include_url=False):
        name = str(error["loc"][0]) if error["loc"] else ""
        bound = _BOUNDS.get(error["type"])
        context = error.get("ctx") or {}
        if bound is not None and bound[0] in context:
            message = bound[1].format(context[bound[0]])
        else:
            message = str(error["msg"]).removeprefix("Value error, ")
        said.append(f"{LABELS.get(name, name)}: {message}")
    return "; ".join(said) if said else describe_validation(exc, "settings")


def choose(endpoint: Endpoint) -> Choice:
    """The settings as a choice: a configuration, or none with the problem the panel shows."""
    try:
        return Choice(make_config(endpoint))
    except ValueError as exc:
        return Choice(None, str(exc))


def preflight_key(config: AnswerabilityConfig) -> str:
    """The preflight cache key: the non-secret settings plus a digest of the key (never the key itself), so a
    session with another key, or none, never sees this one's answer."""
    key = config.api_key.get_secret_value() if config.api_key is not None else ""
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return config.model_dump_json(exclude={"api_key"}) + digest


def model_options(current: str, listed: tuple[str, ...]) -> list[str]:
    """The model picker's options: what the server lists, with the current name first when it lists it not;
    empty when the server lists none (the panel then shows a text field prefilled with the default)."""
    if not listed:
        return []
    options = list(listed)
    if current and current not in options:
        options.insert(0, current)
    return options


# --- the recorded response ----------------------------------------------------------------------------


def from_sample(sample: Sample, source: str | None = None, *, source_sha256: str | None = None,
                context: str | None = None) -> Choice | None:
    """Replay the sample's own recorded reply (``source`` names its file, ``source_sha256`` the file's bytes, as
    the command line names them), bound to the sample's question, draft and the exact ``context`` of its bundle
    (loaded when not given); None when it has none."""
    recording = sample.recording(source=source, source_sha256=source_sha256, context=context)
    if recording is None:
        return None
    return Choice(AnswerabilityConfig(provider="replay", model=sample.recorded_model), recording=recording)


def from_reply_file(text: str, name: str) -> Choice:
    """Replay an uploaded reply file: a bare raw reply (kept as its exact text, unbound, author not stated), a
    recording answerlens wrote or an assessment JSON (bound to their inputs). A bundle file raises
    ``RecordingError``."""
    recording = recording_from_text(text, source=name, source_sha256=sha256_text(text))
    return Choice(AnswerabilityConfig(provider="replay"), recording=recording)


def assess_blocker(question: str | None, choice: Choice, *, busy: bool) -> str | None:
    """Why Assess cannot run now, in a few words shown beside the button; None when it can."""
    if busy:
        return "an assessment is running: wait for it, or Cancel it"
    if choice.config is None:
        return choice.problem or "set the endpoint in the sidebar first"
    if choice.blocked:
        return choice.blocked
    if not (question or "").strip():
        return "type a question first"
    return None


def choice_key(choice: Choice) -> str:
    """What of the endpoint a result depends on (never the API key): its settings and the recording replayed."""
    if choice.config is None:
        return "none"
    recording = choice.recording.sha256 if choice.recording is not None else ""
    return choice.config.model_dump_json(exclude={"api_key"}) + recording


def without_recording() -> Choice:
    """Replay with nothing to replay: fine for an empty bundle (no model is called), a shown failure otherwise."""
    return Choice(AnswerabilityConfig(provider="replay"))


# --- the preflight line -------------------------------------------------------------------------------

START_REMEDIES = {"ollama": "start it with `ollama serve`",
                  "llamacpp": "the embedded server stopped: press Stop, then Start"}
START_REMEDY = "start the server (e.g. `answerlens serve-model`), or correct the base URL"


def blocker(line: Notice) -> str | None:
    """Why Assess cannot run with these settings: no server answers (a warning still lets it try)."""
    if line.kind != NoticeKind.ERROR:
        return None
    return f"{line.title[0].lower()}{line.title[1:]}" + (f": {line.remedy}" if line.remedy else "")


def preflight_line(config: AnswerabilityConfig, check: Preflight) -> Notice:
    """The notice under the endpoint settings (``NoticeKind.OK``: ready; anything else offers the recorded
    response instead)."""
    where = config.effective_base_url
    if not check.reachable:
        remedy = START_REMEDIES.get(config.provider, START_REMEDY)
        return Notice(NoticeKind.ERROR, f"No server answers at {where}", check.problem, remedy)
    if check.problem:
        return Notice(NoticeKind.WARNING, f"{check.server or 'The server'} answers, but:", check.problem)
    facts = [f"{check.server or 'server'} answers at {where}"]
    if check.model_found:
        facts.append(f"model {config.model} is available")
    elif check.model_found is None:
        facts.append("the server does not list its models")
    if check.fits is True and check.request_size is not None:
        facts.append(f"the request ({check.request_size.describe()}) fits its {check.context_window:,}-token "
                     "window")
    elif check.fits is True:
        facts.append(f"the context (~{check.context_tokens_estimate:,} tokens) fits its "
                     f"{check.context_window:,}-token window")
    elif check.context_window is None and check.context_tokens_estimate is not None:
        facts.append(f"context ~{check.context_tokens_estimate:,} tokens (the server does not say its window)")
    return Notice(NoticeKind.OK, "Ready", "; ".join(facts))
