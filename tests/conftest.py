"""Fixtures shared by every test folder."""

import pytest

from tests.embedded import skip_reason
from tests.phoenix_server import phoenix, phoenix_with_key  # noqa: F401  (one Phoenix of each kind per session)
from tests.scripted_server import scripted_server_fixture  # noqa: F401  (the `scripted_server` fixture)


@pytest.fixture(autouse=True)
def _runs_in_a_temporary_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test keeps its stored runs (the app's history) in a folder of its own, never the user's."""
    monkeypatch.setenv("ANSWERLENS_DATA_DIR", str(tmp_path_factory.mktemp("answerlens-data")))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``local_model`` skip, with the reason and the command, where the embedded model is not installed
    (and ``make test`` has not required it): see tests/embedded.py."""
    reason = skip_reason()
    if reason is not None:
        for item in items:
            if item.get_closest_marker("local_model") is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
