"""Fixtures shared by every test folder."""

import pytest

from tests.scripted_server import scripted_server_fixture  # noqa: F401  (the `scripted_server` fixture)


@pytest.fixture(autouse=True)
def _runs_in_a_temporary_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test keeps its stored runs (the app's history) in a folder of its own, never the user's."""
    monkeypatch.setenv("ANSWERLENS_DATA_DIR", str(tmp_path_factory.mktemp("answerlens-data")))
