"""The version a report names is the package's."""

import tomllib

import answerlens
from answerlens.version import __version__
from tests.paths import REPO


def test_the_version_is_the_projects() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert __version__ == project["version"] == answerlens.__version__
