"""Compatibility: ``answerlens.preflight`` before the providers became a package (now
``answerlens.providers.preflight``); this module only re-exports its names."""

from answerlens.providers.preflight import Preflight, list_models, preflight

__all__ = ["Preflight", "list_models", "preflight"]
