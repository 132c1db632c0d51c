"""``AnswerabilityConfig``: which model to ask and how, with PRME's field names.

The default model follows the provider (``DEFAULT_MODELS``, the one definition the CLI and the app read).
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from answerlens.providers.kinds import KINDS, provider_kind

Provider = Literal["ollama", "openai", "llamacpp", "replay"]
PromptName = Literal["answerlens", "prme"]

DEFAULT_PROVIDER: Provider = "ollama"
"""answerlens' default provider (PRME's is ``openai``): the product is a local inspection tool."""

DEFAULT_MODELS: dict[str, str] = {name: kind.default_model for name, kind in KINDS.items()}
"""The model used when a provider is chosen without one (defined per kind in ``providers.kinds``)."""


def default_model(provider: str) -> str:
    """The model ``provider`` uses when none is given."""
    return provider_kind(provider).default_model

DEFAULT_MAX_REPLY_BYTES = 8 * 1024 * 1024
"""Largest decoded reply body read when ``max_reply_bytes`` is unset (8 MiB)."""
MAX_REPLY_BYTES_LIMIT = 1024 * 1024 * 1024



CREDENTIALS_REMEDY = ("pass the key as api_key instead (CLI: --api-key-env VAR; app: the API key field); it is "
                      "sent as a header and never recorded")


_HOST_AFTER_AT = re.compile(r"(\[[0-9A-Fa-f:.]+\]|localhost|[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+)(:\d*)?([/?#]|$)")


def shown_url(url: str) -> str:
    """A URL for an error message: never one that holds an "@" (it may carry a password the checks could not
    tell from a path)."""
    return "the URL given (not repeated: it holds an '@')" if "@" in url else repr(url)


def refuse_userinfo(url: str) -> None:
    """Refuse a URL that carries a user name or password (``user:secret@``): base URLs are written into run.json,
    every sample, assessment and report, so a secret in one would leave the configuration. The message never
    repeats the URL."""
    rest = url.split("://", 1)[-1]
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    # A password holding "/", "?" or "#" ends the authority early; a host after the last "@" still shows it.
    if "@" in authority or _HOST_AFTER_AT.match(rest.rsplit("@", 1)[-1]) and "@" in rest:
        raise ValueError(f"a base URL must not carry a user name or password (user:secret@host); "
                         f"{CREDENTIALS_REMEDY}")


class EvidencePolicy(str, Enum):
    """How the second opinion's flags and verifier act on the verdict (answerlens only)."""

    STANDARD = "standard"
    """The model-derived verdict stands; flags and the verifier are shown beside it."""
    STRICT = "strict"
    """Support that a flag or the verifier contradicts is demoted and the verdict re-derived."""


UPSTREAM_FIELDS = frozenset(
    {"provider", "model", "api_key", "base_url", "max_retries", "timeout", "temperature", "reasoning_effort"}
)
"""PRME's fields; every other field is ours and is hashed only when set."""
PROMPT_FIELDS = frozenset({"prompt"})
"""Recorded through the prompt identity (``prompt_version``, ``prompt_sha256``), as PRME records its prompt, so
never in the hashed configuration: ``prompt="prme"`` keeps PRME's ``configuration_sha256``."""


class AnswerabilityConfig(BaseModel):
    """Provider settings. ``api_key`` never appears in repr, dumps used for hashing, errors or exports."""

    # hide_input_in_errors: a rejected api_key (or any value) is never echoed in a validation error.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, hide_input_in_errors=True)

    provider: Provider = DEFAULT_PROVIDER
    """``ollama`` (native API), ``openai`` (any OpenAI-compatible server), ``llamacpp`` (a llama.cpp server,
    e.g. ``answerlens serve-model``) or ``replay`` (a recorded reply)."""
    model: str = Field(default=DEFAULT_MODELS[DEFAULT_PROVIDER], min_length=1)
    """Unset: the provider's default (``DEFAULT_MODELS``)."""
    api_key: SecretStr | None = Field(default=None, repr=False)
    """Sent only as a header."""
    base_url: str | None = None
    """As users write it, e.g. ``http://127.0.0.1:11434/v1``; a trailing ``/`` is dropped. A user name or password
    in it (``http://user:secret@host/v1``) is refused: the URL is recorded in every result, the key never is."""
    max_retries: int = Field(default=2, ge=0, le=10)
    """How many times a reply that fails the schema is re-asked."""
    timeout: float = Field(default=30.0, gt=0)
    """Seconds for the whole assess call, retries included."""
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    reasoning_effort: Literal["none", "low", "medium", "high"] | None = None
    seed: int | None = None
    """answerlens: sampling seed, where the server honours one."""
    num_ctx: int | None = Field(default=None, gt=0)
    """answerlens: Ollama context window to request."""
    think: bool | None = None
    """answerlens: Ollama ``think``; unset sends ``false``."""
    max_tokens: int | None = Field(default=None, gt=0)
    """answerlens: bound on the reply length (OpenAI-compatible servers)."""
    max_reply_bytes: int | None = Field(default=None, gt=0, le=MAX_REPLY_BYTES_LIMIT)
    """answerlens: largest decoded HTTP body read from the server (default 8 MiB); past it the call fails."""
    prompt: PromptName = "answerlens"
    """answerlens: which prompt to send: ours (``answerlens``) or PRME 0.15.0's verbatim (``prme``), with its
    user message, reply schema and prompt identity. Not hashed into ``configuration_sha256``."""

    evidence_policy: EvidencePolicy | None = None
    """answerlens: ``strict`` demotes support the second opinion contradicts (``second_opinion_for(...,
    policy=config.evidence_policy)``). It changes outcomes, so it is hashed when set; ``standard`` is the default
    and is stored as None, so a standard configuration hashes as upstream's."""

    @model_validator(mode="before")
    @classmethod
    def _provider_default_model(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("model") is None:
            provider = data.get("provider", DEFAULT_PROVIDER)
            if provider in DEFAULT_MODELS:
                return {**data, "model": DEFAULT_MODELS[provider]}
        return data

    @field_validator("model")
    @classmethod
    def _strip_model(cls, value: str) -> str:
        normalized = value.strip()
        if not normalized:
            raise ValueError("must be nonempty")
        return normalized

    @field_validator("evidence_policy")
    @classmethod
    def _standard_is_default(cls, value: EvidencePolicy | None) -> EvidencePolicy | None:
        return None if value == EvidencePolicy.STANDARD else value

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        url = value.strip().rstrip("/")
        if not url:
            return None
        refuse_userinfo(url)
        if "://" not in url and re.match(r"[\w.-]+(:\d+)?(/|$)", url):  # localhost:11434, gpu-host:11434/v1
            example = url if url.endswith("/v1") else f"{url}/v1"
            raise ValueError(f"{shown_url(url)} has no http:// or https:// — write http://{example}")
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            if re.fullmatch(r"[^:\[\]]+:\d+", url.split("://", 1)[-1].split("/", 1)[0]):  # host:99999
                raise ValueError(f"{shown_url(url)} has an invalid port (1–65535)") from None
            raise ValueError(f"{shown_url(url)} is not a valid URL (check the host and port)") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{shown_url(url)} is not an http(s) URL such as http://127.0.0.1:11434/v1")
        if port is not None and not 0 < port < 65536:
            raise ValueError(f"{shown_url(url)} has an invalid port (1–65535)")
        return url

    @field_validator("api_key")
    @classmethod
    def _header_safe_key(cls, value: SecretStr | None) -> SecretStr | None:
        # The messages never quote the key: a key with a stray newline would otherwise be echoed back.
        if value is None:
            return None
        key = value.get_secret_value()
        if not key.isascii():
            raise ValueError("the API key must be ASCII (it is sent as an HTTP header)")
        if any(ord(char) < 32 or ord(char) == 127 for char in key):
            raise ValueError("the API key contains a control character (a line break or tab?); copy it again "
                             "without them")
        if key != key.strip():
            raise ValueError("the API key starts or ends with whitespace; remove it")
        if not key:
            raise ValueError("the API key is empty; leave it unset instead")
        return value

    @property
    def reply_limit(self) -> int:
        """The body size at which reading a reply stops."""
        return self.max_reply_bytes or DEFAULT_MAX_REPLY_BYTES

    @property
    def effective_base_url(self) -> str | None:
        """``base_url``, or the provider's default when unset."""
        return self.base_url or provider_kind(self.provider).default_base_url

    def public_dump(self) -> dict[str, Any]:
        """The non-secret settings that identify this configuration (what ``configuration_sha256`` hashes).

        Upstream fields are always present, so a configuration using only them hashes as PRME's does;
        answerlens' own fields appear only when set; the prompt choice never (its identity is recorded apart).
        """
        dump = self.model_dump(mode="json", exclude={"api_key", *PROMPT_FIELDS})
        return {key: value for key, value in dump.items() if key in UPSTREAM_FIELDS or value is not None}
