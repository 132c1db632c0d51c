"""Compatibility: ``answerlens.localmodel`` under its one name now, ``answerlens.local_model``; this module only
re-exports its names for code written against the earlier spelling."""

from answerlens.local_model import (
    BUNDLED_FILE,
    BUNDLED_NAME,
    BUNDLED_PACKAGE,
    INSTALL_HINT,
    LocalServer,
    bundled_gguf,
    check_gguf,
    free_port,
    runtime_installed,
    start_server,
)

__all__ = [
    "BUNDLED_FILE",
    "BUNDLED_NAME",
    "BUNDLED_PACKAGE",
    "INSTALL_HINT",
    "LocalServer",
    "bundled_gguf",
    "check_gguf",
    "free_port",
    "runtime_installed",
    "start_server",
]
