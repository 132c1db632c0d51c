"""The public API: one table of names, ``__all__`` derived from it, each name imported on first use (PEP 562)."""

import ast
import subprocess
import sys

import pytest

import answerlens
from tests.paths import REPO


def test_a_name_is_resolved_on_first_use_and_kept() -> None:
    code = ("import sys, answerlens; a = 'answerlens.loading' in sys.modules; load = answerlens.load_bundle; "
            "print(a, 'answerlens.loading' in sys.modules, vars(answerlens)['load_bundle'] is load)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() == ["False", "True", "True"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'answerlens' has no attribute 'load_bundel'"):
        answerlens.load_bundel  # noqa: B018


def test_importing_the_package_imports_no_name_yet() -> None:
    code = "import sys, answerlens; print('answerlens.assessment' in sys.modules, 'pydantic' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() == ["False", "False"]
    assert set(answerlens.__all__) <= set(dir(answerlens))


def test_all_is_the_table_and_every_name_lives_where_the_table_says() -> None:
    assert answerlens.__all__ == sorted(answerlens._EXPORTS)
    for name, module in answerlens._EXPORTS.items():
        value = getattr(answerlens, name)
        assert value is getattr(sys.modules[module], name), name
        if isinstance(value, type) or callable(value):
            assert value.__module__ == module, f"{name} is defined in {value.__module__}, not {module}"


def test_the_type_checkers_imports_are_the_table() -> None:
    tree = ast.parse((REPO / "src" / "answerlens" / "__init__.py").read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If))
    imported = {alias.name: node.module for node in block.body if isinstance(node, ast.ImportFrom)
                for alias in node.names if alias.asname == alias.name}
    assert imported == answerlens._EXPORTS


@pytest.mark.parametrize("package", ["claims", "second_opinion", "providers", "trials", "report", "ui", "verification",
                                     "engine"])
def test_a_sub_package_exports_nothing_of_its_own(package: str) -> None:
    tree = ast.parse((REPO / "src" / "answerlens" / package / "__init__.py").read_text())
    assert [type(node).__name__ for node in tree.body] == ["Expr"], "a docstring only"
