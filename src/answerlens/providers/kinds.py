"""The provider kinds answerlens talks to, in one table: wire format, defaults and how each is named (pure data).

Adding a kind of server is one entry here plus, for a new wire format, one engine in this package.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Wire(str, Enum):
    """How a provider is spoken to."""

    OLLAMA = "ollama"
    """Ollama's native ``POST /api/chat`` with a JSON-schema ``format``."""
    OPENAI = "openai"
    """``POST {base_url}/chat/completions`` with a ``json_schema`` response format."""
    RECORDED = "recorded"
    """No server: a recorded reply is replayed."""


@dataclass(frozen=True)
class ProviderKind:
    """One kind of server: its wire format, defaults and names."""

    name: str
    """The ``provider`` value in a configuration."""
    label: str
    """How the app's endpoint panel names it."""
    server: str
    """How messages name the server: ``Ollama at http://…``."""
    wire: Wire
    default_base_url: str | None
    default_model: str
    """The model used when this provider is chosen without one."""
    lists_models: bool
    """Whether the server's model listing names the models it can run (llama.cpp answers with its one model)."""


KINDS: dict[str, ProviderKind] = {
    kind.name: kind
    for kind in (
        ProviderKind("ollama", "Ollama", "Ollama", Wire.OLLAMA, "http://127.0.0.1:11434/v1", "qwen3.5:9b", True),
        # PRME's default model for its OpenAI provider.
        ProviderKind("openai", "OpenAI-compatible server", "the OpenAI-compatible server", Wire.OPENAI,
                     "https://api.openai.com/v1", "gpt-4o-mini", True),
        # A llama.cpp server answers with the one GGUF it loaded whatever name is asked: this only labels results.
        ProviderKind("llamacpp", "Embedded model (llama.cpp)", "the llama.cpp server", Wire.OPENAI,
                     "http://127.0.0.1:8080/v1", "local-gguf", False),
        ProviderKind("replay", "Recorded response", "the recorded response", Wire.RECORDED, None, "recorded", False),
    )
}


def provider_kind(name: str) -> ProviderKind:
    """The kind called ``name``; ``KeyError`` for an unknown one (configurations are validated before)."""
    return KINDS[name]
