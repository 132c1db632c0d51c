"""The trial results the Trials page's tests use, for the trial rows and charts they share with the report."""

from tests.ui.trials.conftest import golden, upstream, with_errors  # noqa: F401
