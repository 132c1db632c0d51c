"""The package's version, in a module of its own so that what names it (report files) imports nothing else."""

__version__ = "0.1.0"
"""Equal to ``pyproject.toml``'s ``project.version`` (a test pins them)."""
