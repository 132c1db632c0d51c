"""The trials package and its page keep DESIGN §8's shape: small modules, short functions, no import cycle, and
the core trial modules never import the UI stack (pandas included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.paths import REPO

SRC = REPO / "src" / "answerlens"
MODULES = sorted([*(SRC / "trials").glob("*.py"), *(SRC / "ui" / "trials").glob("*.py")])


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(SRC)))
def test_modules_and_functions_stay_small(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) < 400
    long = [f"{node.name}: {node.end_lineno - node.lineno + 1} lines" for node in ast.walk(_tree(path))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 >= 60]
    assert long == []


def _trial_imports(path: Path) -> set[str]:
    """Modules of ``answerlens.trials`` this one imports, anywhere in it (a deferred import is an edge too)."""
    found = set()
    for node in ast.walk(_tree(path)):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.ImportFrom) and node.module == "answerlens.trials":
            names = [f"answerlens.trials.{alias.name}" for alias in node.names]
        found |= {name.split(".")[2] for name in names if name.startswith("answerlens.trials.")}
    return found


def test_the_trials_package_has_no_import_cycle() -> None:
    graph = {path.stem: _trial_imports(path) for path in (SRC / "trials").glob("*.py")}
    visiting: list[str] = []

    def visit(module: str, done: set[str]) -> None:
        assert module not in visiting, " -> ".join([*visiting[visiting.index(module):], module])
        if module in done:
            return
        visiting.append(module)
        for imported in graph.get(module, ()):
            visit(imported, done)
        visiting.pop()
        done.add(module)

    done: set[str] = set()
    for module in graph:
        visit(module, done)


def test_core_trial_modules_never_import_the_ui_stack() -> None:
    for path in (SRC / "trials").glob("*.py"):
        imported = {node.module.split(".")[0] for node in ast.walk(_tree(path))
                    if isinstance(node, ast.ImportFrom) and node.module} | {
            alias.name.split(".")[0] for node in ast.walk(_tree(path)) if isinstance(node, ast.Import)
            for alias in node.names}
        assert not imported & {"streamlit", "plotly", "pandas"}, path.name
