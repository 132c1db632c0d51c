"""Where foreign failures become ``AnswerabilityError``: a server's answer read whole, and every way a call can
fail mapped to a message that names the server and model and says what to do.

The API key is redacted, in its escaped forms too, from anything a server sends.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, quote_plus

import httpx

from answerlens.config import AnswerabilityConfig
from answerlens.errors import AnswerabilityError
from answerlens.providers.kinds import KINDS

EXCERPT_CHARS = 500


@dataclass(frozen=True)
class HttpReply:
    """A server's answer, read whole but bounded: status, headers and the decoded body text."""

    status_code: int
    headers: httpx.Headers
    text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300

    def json(self) -> Any:
        return json.loads(self.text)


@dataclass
class Failures:
    """Where foreign failures become ``AnswerabilityError``.

    Text that came from elsewhere (a response body, a transport error, the model's reply) is redacted before it
    is cut or quoted; our own wording is not, so a placeholder key such as ``ollama`` cannot mangle a remedy like
    ``ollama serve``.
    """

    engine: str
    base_url: str | None
    model: str
    secret: str | None = field(default=None, repr=False)
    operation: str | None = "Answerability assessment"
    """What failed, as upstream words it; every message starts ``{operation} failed for provider 'openai': ``
    (PRME's exact sentence) before our detail. None (preflight) leaves the detail alone."""

    def error(self, kind: str, message: str, remedy: str, raw: str | None = None) -> AnswerabilityError:
        if self.operation is not None:
            message = f"{self.operation} failed for provider {self.engine!r}: {message}"
        return AnswerabilityError(
            message,
            kind=kind,
            remedy=remedy,
            base_url=self.base_url,
            model=self.model,
            raw_excerpt=self.redact(raw)[:EXCERPT_CHARS] if raw is not None else None,
        )

    def redact(self, text: str) -> str:
        """The text with the key, and the key as ``repr``, JSON and URLs escape it, replaced by ``***``."""
        if not self.secret:
            return text
        for form in secret_forms(self.secret):
            text = text.replace(form, "***")
        return text

    @property
    def server(self) -> str:
        """The server as prose: ``Ollama at http://…/v1``."""
        kind = KINDS.get(self.engine)
        return f"{kind.server if kind else self.engine} at {self.base_url}"

    @property
    def where(self) -> str:
        return f"{self.server} (model {self.model!r})"

    def transport(self, exc: httpx.TransportError) -> AnswerabilityError:
        detail = self.redact(str(exc) or type(exc).__name__)
        if isinstance(exc, httpx.ConnectTimeout):
            return self.error("connect_timeout", f"connecting to {self.where} timed out",
                              "check the base URL and that the server is up")
        if isinstance(exc, httpx.TimeoutException):
            return self.error("read_timeout", f"{self.where} did not answer in time ({type(exc).__name__})",
                              "raise the timeout, use a smaller model, or shorten the context")
        if isinstance(exc, httpx.ConnectError):
            if self.engine == "ollama":
                # Not "use the recorded response": a trial cannot, and the Inspect page offers it by a button.
                remedy = "start it with `ollama serve`, or correct the base URL"
            else:
                remedy = "start the server (or `answerlens serve-model`), or correct the base URL"
            return self.error("connection_refused", f"{self.where} is not reachable ({detail})", remedy)
        return self.error("transport",
                          f"the connection to {self.where} failed ({type(exc).__name__}: {detail})",
                          "check that the server is healthy and retry")

    def unsendable(self, exc: Exception) -> AnswerabilityError:
        return self.error("transport", f"the request to {self.where} could not be sent "
                          f"({type(exc).__name__}: {self.redact(str(exc))})",
                          "check the base URL (scheme, host and port) and the API key")

    def status(self, response: HttpReply) -> AnswerabilityError:
        code = response.status_code
        body = self.redact(error_text(response))
        lowered = body.lower()
        if 300 <= code < 400:
            target = self.redact(response.headers.get("Location", "") or "nowhere stated")
            return self.error("redirect", f"{self.where} answered HTTP {code}, a redirect to {target}; answerlens "
                              "does not follow redirects for model calls",
                              "set the base URL to the final address (check the scheme: http vs https)", body)
        if code < 200:
            return self.error("http_error", f"{self.where} answered HTTP {code}, which is not a reply",
                              "check that the base URL points at the model server's API", body)
        if code == 404 and self.engine == "ollama" and _is_missing_model(lowered):
            return self.error("model_not_found", f"model {self.model!r} is not on Ollama at {self.base_url}",
                              f"pull it with `ollama pull {self.model}` or pick another model", body)
        if code == 404:
            return self.error("not_found", f"{self.where} answered HTTP 404: {body[:200]}",
                              "check the base URL (it should end in /v1) and the model name", body)
        if code == 400 and ("exceeds the available context size" in lowered or "context length" in lowered):
            return self.error("context_too_long", f"{self.where} cannot take this context: {body[:200]}",
                              "raise the server's context window (`answerlens serve-model --ctx N`, or num_ctx), "
                              "or pack a smaller bundle", body)
        if code == 400 and "does not support thinking" in lowered:
            return self.error("thinking_unsupported", f"{self.where} does not support thinking ({body[:200]})",
                              "turn thinking off (think=false, no reasoning_effort)", body)
        if code in (401, 403):
            return self.error("unauthorized", f"{self.where} refused the request (HTTP {code}: {body[:200]})",
                              "check the API key (set it in the environment variable you pass)", body)
        if code == 429:
            retry_after = response.headers.get("Retry-After", "").strip()
            wait = f"wait {retry_after} s" if retry_after.isdigit() else "wait"
            return self.error("rate_limited", f"{self.where} is rate limiting (HTTP 429: {body[:200]})",
                              f"{wait} and retry, or lower the concurrency", body)
        if code >= 500:
            return self.error("server_error", f"{self.where} failed with HTTP {code}: {body[:200]}",
                              "check the server's log; retry once it is healthy", body)
        return self.error("http_error", f"{self.where} rejected the request with HTTP {code}: {body[:200]}",
                          "check the model name and the server's supported options", body)

    def too_large(self, limit: int) -> AnswerabilityError:
        return self.error("reply_too_large", f"{self.where} sent a body larger than {limit / 1048576:g} MB; "
                          "reading stopped there", "check the server, or raise max_reply_bytes if the reply is "
                          "genuinely that large")

    def body(self, response: HttpReply, problem: str) -> AnswerabilityError:
        return self.error("bad_body",
                          f"{self.where} returned {self.redact(problem)} (HTTP {response.status_code})",
                          "check that the base URL points at the API (…/v1) of the right kind of server",
                          response.text)

    def truncated(self, reason: str, text: str) -> AnswerabilityError:
        return self.error("truncated", f"the output of {self.where} was truncated ({reason})",
                          "raise num_ctx/max_tokens, or shorten the context", text)

    def timeout(self, seconds: float, attempts: int) -> AnswerabilityError:
        return self.error("timeout", f"{self.where} did not finish within {seconds:g} s (the whole call, "
                          f"retries included; {attempts} request(s) started)",
                          "raise the timeout, or use a faster model")


def failures_for(config: AnswerabilityConfig, *, operation: str | None = "Answerability assessment") -> Failures:
    return Failures(
        engine=config.provider,
        base_url=config.effective_base_url,
        model=config.model,
        secret=config.api_key.get_secret_value() if config.api_key is not None else None,
        operation=operation,
    )


def _is_missing_model(lowered_body: str) -> bool:
    # Ollama says `model "x" not found, try pulling it first`; a bare "404 page not found" is a wrong URL.
    return "model" in lowered_body and "not found" in lowered_body


def secret_forms(secret: str) -> list[str]:
    """The key as it may appear in text that leaves the process: raw, ``repr``-, JSON- and URL-escaped."""
    forms = {secret, repr(secret)[1:-1], json.dumps(secret)[1:-1], quote(secret, safe=""), quote_plus(secret)}
    return sorted((form for form in forms if form), key=len, reverse=True)


def error_text(response: HttpReply) -> str:
    """The error message a server put in its body (``{"error": …}`` shapes), or the body text."""
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            return str(error.get("message") or error)
        if error:
            return str(error)
    return response.text.strip()
