"""Fixtures shared by every test folder."""

from tests.scripted_server import scripted_server_fixture  # noqa: F401  (the `scripted_server` fixture)
