"""Lazy package exports: a name's module is imported on first use, an unknown name is an AttributeError."""

import subprocess
import sys

import pytest

import answerlens
from answerlens.lazy import lazy_exports


def test_a_name_is_resolved_once_and_kept() -> None:
    namespace: dict[str, object] = {}
    getattr_, dir_ = lazy_exports("pkg", {"dumps": "json"}, namespace)
    import json

    assert getattr_("dumps") is json.dumps and namespace["dumps"] is json.dumps
    assert dir_() == ["dumps"]
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'loads'"):
        getattr_("loads")


def test_importing_the_package_imports_no_name_yet() -> None:
    code = "import sys, answerlens; print('answerlens.assessment' in sys.modules, 'pydantic' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split() == ["False", "False"]
    assert set(answerlens.__all__) <= set(dir(answerlens))
