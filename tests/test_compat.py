"""The compatibility modules: earlier import paths re-export today's objects, and hold nothing of their own."""

import ast
import importlib

import pytest

from tests.paths import REPO

COMPAT = {
    "answerlens.bundle": ("answerlens.records", "answerlens.loading", "answerlens.json_reader"),
    "answerlens.provider": ("answerlens.providers",),
    "answerlens.preflight": ("answerlens.providers.preflight",),
    "answerlens.localmodel": ("answerlens.local_model",),
}


@pytest.mark.parametrize("name", sorted(COMPAT))
def test_every_name_is_today_s_object(name: str) -> None:
    module = importlib.import_module(name)
    for exported in module.__all__:
        value = getattr(module, exported)
        home = getattr(value, "__module__", None)
        if home is not None and not isinstance(value, (int, str)):
            assert home.startswith(COMPAT[name]), (exported, home)


@pytest.mark.parametrize("name", sorted(COMPAT))
def test_a_compatibility_module_defines_nothing(name: str) -> None:
    path = REPO / "src" / (name.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text())
    kinds = {type(node).__name__ for node in tree.body}
    assert kinds <= {"Expr", "ImportFrom", "Assign"}, kinds
    assigned = [target.id for node in tree.body if isinstance(node, ast.Assign) for target in node.targets
                if isinstance(target, ast.Name)]
    assert assigned == ["__all__"]


def test_the_upstream_adapter_s_names_resolve() -> None:
    from answerlens.bundle import (  # noqa: F401
        MAX_SPEAKER_LENGTH,
        SPEAKER_METADATA_KEY,
        Candidate,
        LifecycleState,
        MemoryRecord,
        NodeType,
        RepresentationLevel,
        normalize_speaker,
    )
    from answerlens.citations import valid_references  # noqa: F401
    from answerlens.prompts import RawAssessment, RawRequirement  # noqa: F401
    from answerlens.render import quote  # noqa: F401
