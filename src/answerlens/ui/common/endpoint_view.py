"""The endpoint panel: provider, server, model picker, key and sampling settings, and a preflight line.

Returns a ``Choice``: the configuration to assess with (or why there is none) and, for the recorded
response, the reply to replay and how to label it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any

import streamlit as st

from answerlens.audit import sha256_text
from answerlens.config import DEFAULT_MODELS, AnswerabilityConfig
from answerlens.errors import BundleError
from answerlens.providers.kinds import provider_kind
from answerlens.providers.preflight import Preflight
from answerlens.recording import Recording
from answerlens.ui.common import local_model_view, runner, sources
from answerlens.ui.common.local_model import State
from answerlens.ui.common.markup import notice_html
from answerlens.ui.common.runner import Endpoint
from answerlens.ui.common.sources import Source

PROVIDERS = {"Ollama": "ollama", "OpenAI-compatible server": "openai", "Embedded model (llama.cpp)": "llamacpp",
             "Recorded response": "replay"}
PROMPTS = {"answerlens (default)": "answerlens", "PRME 0.15 (verbatim)": "prme"}
PROMPT_HELP = ("answerlens' own prompt, or PRME 0.15.0's exact prompt, user message and reply schema: its "
               "results carry PRME's prompt identity, so they compare with PRME's own runs.")
DEFAULT_TIMEOUTS = {"ollama": 120.0, "openai": 120.0, "llamacpp": 300.0}
"""Seconds for a whole assess call; small CPU-bound local models are slow on long contexts."""


@dataclass(frozen=True)
class Choice:
    config: AnswerabilityConfig | None
    problem: str | None = None
    recording: Recording | None = None

    @property
    def recorded(self) -> bool:
        return self.config is not None and self.config.provider == "replay"


@st.cache_data(ttl=15, show_spinner=False, max_entries=32)
def _preflight(config_json: str, context_chars: int | None, _config: AnswerabilityConfig) -> Preflight:
    # Keyed by the non-secret settings plus a digest of the key (never the key itself), so a session with
    # another key, or none, never sees this one's answer.
    return runner.check_endpoint(_config, context_chars)


def _cache_key(config: AnswerabilityConfig) -> str:
    key = config.api_key.get_secret_value() if config.api_key is not None else ""
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return config.model_dump_json(exclude={"api_key"}) + digest


def panel(prefix: str, source: Source | None, *, recorded: bool = True) -> Choice:
    """Draw the panel (in the sidebar) and return the choice; ``recorded=False`` leaves out the recorded
    response (a trial asks new questions, which no recording answers)."""
    with st.sidebar:
        st.subheader("Endpoint")
        labels = [label for label, provider in PROVIDERS.items() if recorded or provider != "replay"]
        label = st.radio("Provider", labels, key=f"{prefix}.provider")
        provider = PROVIDERS[label]
        if provider == "replay":
            return _recorded(prefix, source)
        if provider == "llamacpp":
            return _embedded(prefix, source, recorded)
        return _live(prefix, provider, source, recorded)


def _use_recorded(prefix: str) -> None:
    st.session_state[f"{prefix}.provider"] = "Recorded response"


def _settings(prefix: str, provider: str) -> dict[str, Any]:
    """The prompt choice and the "Sampling and limits" expander, as ``Endpoint`` fields."""
    prompt = PROMPTS[st.radio("Prompt", list(PROMPTS), horizontal=True, key=f"{prefix}.prompt", help=PROMPT_HELP)]
    with st.expander("Sampling and limits"):
        timeout = st.number_input("Timeout (s, whole call)", min_value=1.0, max_value=3600.0,
                                  value=DEFAULT_TIMEOUTS[provider], step=10.0, key=f"{prefix}.timeout.{provider}")
        temperature = st.number_input("Temperature", min_value=0.0, max_value=2.0, value=0.0, step=0.1,
                                      key=f"{prefix}.temperature")
        seed = st.number_input("Seed (empty: none)", min_value=0, value=None, step=1, key=f"{prefix}.seed")
        num_ctx = max_tokens = None
        if provider == "ollama":
            num_ctx = st.number_input("Context window, num_ctx (empty: server default)", min_value=256,
                                      value=None, step=1024, key=f"{prefix}.num_ctx")
        if provider == "llamacpp":
            max_tokens = st.number_input("Reply bound, max_tokens (empty: 1024)", min_value=16, value=None,
                                         step=256, key=f"{prefix}.max_tokens")
        retries = st.number_input("Re-asks after an invalid reply", min_value=0, max_value=10, value=2,
                                  key=f"{prefix}.retries")
    return {"prompt": prompt, "timeout": timeout, "temperature": temperature,
            "seed": int(seed) if seed is not None else None,
            "num_ctx": int(num_ctx) if num_ctx is not None else None,
            "max_tokens": int(max_tokens) if max_tokens is not None else None, "max_retries": int(retries)}


def _live(prefix: str, provider: str, source: Source | None, recorded: bool) -> Choice:
    base_url = st.text_input("Base URL", value=provider_kind(provider).default_base_url or "",
                             key=f"{prefix}.base_url.{provider}")
    model_key = f"{prefix}.model.{provider}"
    model_slot = st.empty()
    api_key = st.text_input("API key", type="password", key=f"{prefix}.api_key.{provider}",
                            help="Sent only as a header; never shown, stored in results, hashed or logged.")
    settings = _settings(prefix, provider)
    current = st.session_state.get(model_key, DEFAULT_MODELS[provider])
    endpoint = Endpoint(provider=provider, model=current or "unset", base_url=base_url.strip() or None,
                        api_key=api_key or None, **settings)
    probe = _config_or_problem(endpoint)
    if isinstance(probe, Choice):
        return probe
    context_chars = len(source.context) if source is not None else None
    check = _preflight(_cache_key(probe), context_chars, probe)
    with model_slot:
        model = _model_picker(model_key, current, check.models)
    if not model:
        st.html(notice_html("warning", "Choose a model", remedy="pick one the server lists, or type its name"))
        return Choice(None, "no model chosen")
    config = runner.make_config(replace(endpoint, model=model))
    if model != current:
        check = _preflight(_cache_key(config), context_chars, config)
    _preflight_line(prefix, config, check, source, recorded)
    return Choice(config)


def _config_or_problem(endpoint: Endpoint) -> AnswerabilityConfig | Choice:
    """The endpoint as a configuration, or a failed choice after showing why the settings are invalid."""
    try:
        return runner.make_config(endpoint)
    except ValueError as exc:
        st.html(notice_html("error", "Invalid endpoint settings", str(exc)))
        return Choice(None, str(exc))


def _embedded(prefix: str, source: Source | None, recorded: bool) -> Choice:
    status = local_model_view.panel(prefix)
    if status is None or status.state != State.RUNNING:
        return Choice(None, "start the embedded model first (the Start button in the sidebar)")
    endpoint = Endpoint(provider="llamacpp", model=status.model, base_url=status.base_url,
                        **_settings(prefix, "llamacpp"))
    config = _config_or_problem(endpoint)
    if isinstance(config, Choice):
        return config
    context_chars = len(source.context) if source is not None else None
    check = _preflight(_cache_key(config), context_chars, config)
    _preflight_line(prefix, config, check, source, recorded)
    return Choice(config)


def _model_picker(key: str, current: str, listed: tuple[str, ...]) -> str:
    """A text field prefilled with the provider's default when the server lists no models; else the listed
    models, with the current choice first when the server does not list it (the preflight flags it)."""
    if not listed:
        return st.text_input("Model", value=current, key=key,
                             placeholder=f"model name, e.g. {DEFAULT_MODELS['ollama']}").strip()
    options = list(listed)
    if current and current not in options:
        options.insert(0, current)
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]
    value = st.selectbox("Model", options, index=options.index(current) if current in options else 0, key=key,
                         accept_new_options=True, help="Listed by the server; type a name to use another.")
    return (value or "").strip()


def _preflight_line(prefix: str, config: AnswerabilityConfig, check: Preflight, source: Source | None,
                    recorded: bool) -> None:
    where = config.effective_base_url
    if not check.reachable:
        start = {"ollama": "start it with `ollama serve`",
                 "llamacpp": "the embedded server stopped: press Stop, then Start"}.get(
            config.provider, "start the server (e.g. `answerlens serve-model`), or correct the base URL")
        st.html(notice_html("error", f"No server answers at {where}", check.problem, remedy=start))
    elif check.problem:
        st.html(notice_html("warning", f"{check.server or 'The server'} answers, but:", check.problem))
    else:
        facts = [f"{check.server or 'server'} answers at {where}"]
        if check.model_found:
            facts.append(f"model {config.model} is available")
        elif check.model_found is None:
            facts.append("the server does not list its models")
        if check.fits is True:
            facts.append(f"the context (~{check.context_tokens_estimate:,} tokens) fits its "
                         f"{check.context_window:,}-token window")
        elif check.context_window is None and check.context_tokens_estimate is not None:
            facts.append(f"context ~{check.context_tokens_estimate:,} tokens (the server does not say its window)")
        st.html(notice_html("ok", "Ready", "; ".join(facts)))
    if recorded and (not check.reachable or check.problem):
        has_recording = source is not None and (source.recorded_reply is not None)
        st.button("Use the recorded response instead", key=f"{prefix}.use_recorded",
                  on_click=_use_recorded, args=(prefix,),
                  help=None if has_recording else "this bundle has no recorded reply; you can upload one")
    st.button("Check again", key=f"{prefix}.recheck", on_click=_preflight.clear)


def _recorded(prefix: str, source: Source | None) -> Choice:
    sample = source.sample if source is not None else None
    if sample is not None and sample.recorded_reply is not None:
        recording = sample.recording(source=source.name if source is not None else None)
        assert recording is not None
        st.html(notice_html("warning", "Recorded response",
                            f"{recording.ref.note}; model label: {sample.recorded_model}", remedy=None))
        config = AnswerabilityConfig(provider="replay", model=sample.recorded_model)
        return Choice(config, recording=recording)
    upload = st.file_uploader("Recorded reply (the model's raw JSON reply)", type=["json"],
                              key=f"{prefix}.reply_upload")
    if upload is None:
        st.html(notice_html("info", "This bundle has no recorded reply",
                            remedy="upload a raw reply file, or choose a live provider; an empty bundle needs "
                            "no reply (no model is called)"))
        return Choice(AnswerabilityConfig(provider="replay"))
    try:
        text = sources.reply_text(upload.getvalue(), upload.name)
    except BundleError as exc:
        st.html(notice_html("error", "The reply file cannot be read", str(exc)))
        return Choice(None, str(exc))
    recording = Recording.of(text, author=None, source=upload.name, source_sha256=sha256_text(text))
    st.html(notice_html("warning", "Recorded response", recording.ref.note))
    return Choice(AnswerabilityConfig(provider="replay"), recording=recording)
