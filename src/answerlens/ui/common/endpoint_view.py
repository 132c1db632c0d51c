"""The endpoint panel: provider, server, model picker, key and sampling settings, and a preflight line.

Returns a ``Choice`` (see ``endpoint``): the configuration to assess with (or why there is none) and, for the
recorded response, the reply to replay and how to label it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

from answerlens import tracing
from answerlens.config import DEFAULT_PROVIDER, AnswerabilityConfig
from answerlens.errors import BundleError, RecordingError
from answerlens.html.markup import Notice, NoticeKind, notice_html, remedy_html
from answerlens.providers.kinds import provider_kind
from answerlens.providers.preflight import Preflight
from answerlens.providers.request_size import Request
from answerlens.ui.common import endpoint, examples, inputs, local_model_view, runner, sources
from answerlens.ui.common.endpoint import (
    DEFAULT_MODELS,
    DEFAULT_TIMEOUTS,
    PROMPT_HELP,
    PROMPTS,
    PROVIDERS,
    Choice,
    Endpoint,
)
from answerlens.ui.common.examples import reply_format_html
from answerlens.ui.common.local_model import State
from answerlens.ui.common.sources import Source


@st.cache_data(ttl=15, show_spinner=False, max_entries=32)
def _preflight(config_key: str, context_chars: int | None, request_key: tuple[str, str, str | None] | None,
               _config: AnswerabilityConfig, _request: Request | None) -> Preflight:
    # Keyed by endpoint.preflight_key (never the API key itself) and the request's question, draft and context hash.
    return runner.check_endpoint(_config, context_chars, _request)


def _check(config: AnswerabilityConfig, source: Source | None, prefix: str | None = None) -> Preflight:
    """The preflight; for the embedded model (given the page's prefix) it counts the very request Assess would
    send: this page's question and draft over the bundle's context."""
    context_chars = len(source.context) if source is not None else None
    request = key = None
    if prefix is not None and source is not None and config.provider == "llamacpp":
        question = str(st.session_state.get(f"{prefix}.question") or source.question or "")
        answer = str(st.session_state.get(f"{prefix}.answer") or "") or None
        if question.strip():
            request = Request(question, source.context, answer)
            key = (question, source.context_sha256, answer)
    return _preflight(endpoint.preflight_key(config), context_chars, key, config, request)


def panel(prefix: str, source: Source | None, *, recorded: bool = True) -> Choice:
    """Draw the panel (in the sidebar) and return the choice; ``recorded=False`` leaves out the recorded
    response (a trial asks new questions, which no recording answers)."""
    with st.sidebar:
        _tracing()
        st.subheader("Endpoint")
        if recorded:
            _first_choice(prefix, source)
        labels = [label for label, provider in PROVIDERS.items() if recorded or provider != "replay"]
        label = st.radio("Provider", labels, key=f"{prefix}.provider")
        provider = PROVIDERS[label]
        if provider != "replay":
            st.session_state.pop(f"{prefix}.{OPENED_RECORDED}", None)
        if provider == "replay":
            return _recorded(prefix, source)
        if provider == "llamacpp":
            return _embedded(prefix, source, recorded)
        return _live(prefix, provider, source, recorded)


def _tracing() -> None:
    """Whether assessments are traced (OpenTelemetry, docs/tracing.md) and where to; this app's address goes
    into each verdict span as the link that reopens the run."""
    url = urlsplit(st.context.url or "")
    tracing.set_app_url(f"{url.scheme}://{url.netloc}" if url.scheme and url.netloc else None)
    st.caption(tracing.status().line, help="Set by the standard OpenTelemetry variables (OTEL_EXPORTER_OTLP_ENDPOINT,"
               " OTEL_SDK_DISABLED …) when the app starts; needs `pip install 'answerlens[otel]'`.")


OPENED_RECORDED = "opened_recorded"
"""``{prefix}.opened_recorded``: the default server's address, when the page opened on the recorded response
because no server answered there."""
RECORDED = endpoint.label_of("replay")
EMBEDDED = endpoint.label_of("llamacpp")
DEFAULT_LABEL = endpoint.label_of(DEFAULT_PROVIDER)


def _first_choice(prefix: str, source: Source | None) -> None:
    """The session's first draw: a sample with a recorded reply opens on it when no server answers at the default
    endpoint (a fresh machine has no Ollama), so the first Assess shows a verdict instead of a failure."""
    key = f"{prefix}.provider"
    if key in st.session_state or source is None or source.recorded_reply is None:
        return
    config = endpoint.make_config(Endpoint())
    if _check(config, source).reachable:
        return
    inputs.seed(st.session_state, key, RECORDED)
    st.session_state[f"{prefix}.{OPENED_RECORDED}"] = config.effective_base_url


def _use(prefix: str, label: str) -> None:
    inputs.seed(st.session_state, f"{prefix}.provider", label)
    st.session_state.pop(f"{prefix}.{OPENED_RECORDED}", None)


def _use_recorded(prefix: str) -> None:
    _use(prefix, RECORDED)


def _offer_embedded(prefix: str, why: str) -> None:
    """A bundle with no recorded reply: one click to the embedded model, which needs no server of its own."""
    st.button("Use the embedded model", key=f"{prefix}.use_embedded", on_click=_use, args=(prefix, EMBEDDED),
              icon=":material/memory:", help=f"{why}; the embedded llama.cpp model runs inside this app (its bundled "
              "model only checks the wiring)")


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
            max_tokens = st.number_input("Reply bound, max_tokens (empty: sized from the question)", min_value=16,
                                         value=None, step=256, key=f"{prefix}.max_tokens")
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
    fields = _settings(prefix, provider)
    current = st.session_state.get(model_key, DEFAULT_MODELS[provider])
    settings = Endpoint(provider=provider, model=current or "unset", base_url=base_url.strip() or None,
                        api_key=api_key or None, **fields)
    probe = _choose(settings)
    if probe.config is None:  # the Model field stays as typed while another setting is fixed
        with model_slot:
            _model_picker(model_key, current, ())
        return probe
    check = _check(probe.config, source)
    with model_slot:
        model = _model_picker(model_key, current, check.models)
    if not model:
        st.html(notice_html("warning", "Choose a model", remedy="pick one the server lists, or type its name"))
        return Choice(None, "no model chosen")
    config = endpoint.make_config(replace(settings, model=model))
    if model != current:
        check = _check(config, source)
    line = _preflight_line(prefix, config, check, source, recorded)
    return Choice(config, blocked=endpoint.blocker(line))


def _choose(settings: Endpoint) -> Choice:
    """The settings as a choice, showing why they are invalid when they are."""
    choice = endpoint.choose(settings)
    if choice.config is None:
        st.html(notice_html("error", "Invalid endpoint settings", choice.problem))
    return choice


def _embedded(prefix: str, source: Source | None, recorded: bool) -> Choice:
    status = local_model_view.panel(prefix)
    if status is None or status.state != State.RUNNING:
        return Choice(None, "start the embedded model first (the Start button in the sidebar)")
    choice = _choose(Endpoint(provider="llamacpp", model=status.model, base_url=status.base_url,
                              **_settings(prefix, "llamacpp")))
    if choice.config is not None:
        line = _preflight_line(prefix, choice.config, _check(choice.config, source, prefix), source, recorded)
        return replace(choice, blocked=endpoint.blocker(line))
    return choice


def _model_picker(key: str, current: str, listed: tuple[str, ...]) -> str:
    options = endpoint.model_options(current, listed)
    if not options:
        return st.text_input("Model", value=current, key=key,
                             placeholder=f"model name, e.g. {DEFAULT_MODELS['ollama']}").strip()
    if key in st.session_state and st.session_state[key] not in options:
        del st.session_state[key]
    value = st.selectbox("Model", options, index=options.index(current) if current in options else 0, key=key,
                         accept_new_options=True, help="Listed by the server; type a name to use another.")
    return (value or "").strip()


def _preflight_line(prefix: str, config: AnswerabilityConfig, check: Preflight, source: Source | None,
                    recorded: bool) -> Notice:
    line = endpoint.preflight_line(config, check)
    st.html(line.html())
    if recorded and line.kind != NoticeKind.OK:
        has_recording = source is not None and (source.recorded_reply is not None)
        if not has_recording and config.provider != "llamacpp":
            _offer_embedded(prefix, "this bundle has no recorded reply")
        st.button("Use the recorded response instead", key=f"{prefix}.use_recorded",
                  on_click=_use_recorded, args=(prefix,),
                  help=None if has_recording else "this bundle has no recorded reply; you can upload one")
    st.button("Check again", key=f"{prefix}.recheck", on_click=_preflight.clear)
    return line


def _recorded(prefix: str, source: Source | None) -> Choice:
    sample = source.sample if source is not None else None
    choice = None
    if source is not None and sample is not None:
        choice = endpoint.from_sample(sample, source.name, source_sha256=source.sha256, context=source.context)
    if sample is not None and choice is not None and choice.recording is not None:
        _opened_recorded(prefix)
        st.html(notice_html("warning", "Recorded response",
                            f"{choice.recording.ref.note}; model label: {sample.recorded_model}. It answers this "
                            "sample's own question and draft over its own bundle: for anything else it is refused.",
                            remedy=None))
        return choice
    upload = st.file_uploader(UPLOAD_LABEL, type=["json"], key=f"{prefix}.reply_upload", help=UPLOAD_HELP)
    reply_format(prefix)
    if upload is None:
        st.html(notice_html("info", "This bundle has no recorded reply",
                            remedy="upload a reply file, or use the embedded model or a live provider; an empty "
                            "bundle needs no reply (no model is called)"))
        _offer_embedded(prefix, "this bundle has no recorded reply")
        return endpoint.without_recording()
    try:
        text = sources.reply_text(upload.getvalue(), upload.name)
        choice = endpoint.from_reply_file(text, upload.name)
    except (BundleError, RecordingError) as exc:
        st.html(notice_html("error", "This file is not a recorded reply", str(exc),
                            remedy="load a bundle above under Bundle; here give the model's raw reply, a recording "
                            "downloaded from a run, or an assessment JSON"))
        return Choice(None, str(exc))
    assert choice.recording is not None
    st.html(notice_html("warning", "Recorded response", choice.recording.ref.note))
    return choice


def _opened_recorded(prefix: str) -> None:
    where = st.session_state.get(f"{prefix}.{OPENED_RECORDED}")
    if not where:
        return
    st.html('<div data-opened-recorded="true">' + notice_html(
        "info", "No model server answers, so this sample opened on its recorded response",
        f"Nothing answers at {where}. The verdict you get is the one recorded for this sample's own question, "
        "not a live model's judgement.", remedy="start a server and switch back with one click") + "</div>")
    st.button("Use a live model", key=f"{prefix}.use_live_model", on_click=_use, args=(prefix, DEFAULT_LABEL),
              icon=":material/smart_toy:", type="primary")


UPLOAD_LABEL = "Recorded reply (JSON, up to 50 MB)"
UPLOAD_HELP = ("The model's raw reply ({\"requirements\": [...], \"reasoning\": ...}), replayed as an *unbound* "
               "recording; or a recording downloaded from a run, or an assessment JSON, replayed only for the inputs "
               "they answered.")


def reply_format(prefix: str) -> None:
    """The reply file formats, beside the uploader, with the example files to download."""
    with st.expander("Reply file format"):
        st.html(reply_format_html())
        for label, path in examples.EXAMPLES.items():
            st.download_button(label, path.read_bytes() if path.exists() else b"", file_name=path.name,
                               mime="application/json", key=f"{prefix}.example.{path.stem}", on_click="ignore",
                               icon=":material/download:", disabled=not path.exists())


def blocked_html(reason: str) -> str:
    """Why Assess cannot run, beside the button (``data-assess-blocked`` for tests)."""
    return (f'<p class="al-muted" data-assess-blocked="true" style="margin:0">'
            f"Cannot assess yet: {remedy_html(reason)}</p>")
