"""Compatibility: the names ``answerlens.provider`` held before the providers became a package.

New code imports from ``answerlens.providers.*`` (``http`` for the seam and failures, one module per engine,
``ask`` for the re-ask loop); this module only re-exports them for code written against the earlier layout.
"""

from answerlens.providers.ask import RawReply, make_engine, request_raw_assessment
from answerlens.providers.engine import ChatReply, Engine
from answerlens.providers.failures import EXCERPT_CHARS, Failures, failures_for
from answerlens.providers.http import as_int, auth_headers, client_timeout, json_body, make_client, ollama_root
from answerlens.providers.llamacpp import LlamaCppEngine
from answerlens.providers.ollama import OllamaEngine
from answerlens.providers.openai import OpenAIEngine
from answerlens.providers.replay import ReplayEngine

__all__ = [
    "EXCERPT_CHARS",
    "ChatReply",
    "Engine",
    "Failures",
    "LlamaCppEngine",
    "OllamaEngine",
    "OpenAIEngine",
    "RawReply",
    "ReplayEngine",
    "as_int",
    "auth_headers",
    "client_timeout",
    "failures_for",
    "json_body",
    "make_client",
    "make_engine",
    "ollama_root",
    "request_raw_assessment",
]
