"""Layout rules of DESIGN §8: the core never imports the UI stack; the public API is pinned."""

import ast

import answerlens
from tests.paths import REPO

SRC = REPO / "src" / "answerlens"
UI_ONLY = {"streamlit", "plotly", "pandas"}


def _imports(path) -> set[str]:  # type: ignore[no-untyped-def]
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_the_ui_stack() -> None:
    offenders = {
        str(path.relative_to(SRC)): sorted(_imports(path) & UI_ONLY)
        for path in SRC.rglob("*.py")
        if "ui" not in path.relative_to(SRC).parts and _imports(path) & UI_ONLY
    }
    assert offenders == {}


def test_no_vendor_llm_sdks() -> None:
    vendors = {"openai", "ollama", "instructor", "litellm", "anthropic"}
    assert not any(_imports(path) & vendors for path in SRC.rglob("*.py"))


def test_public_api_is_pinned() -> None:
    assert answerlens.__all__ == [
        "PROMPT_SHA256",
        "PROMPT_VERSION",
        "SYSTEM_PROMPT",
        "AnswerabilityAction",
        "AnswerabilityAssessment",
        "AnswerabilityConfig",
        "AnswerabilityError",
        "AnswerabilityEvaluator",
        "AnswerabilityRequirement",
        "AnswerabilityStatus",
        "AnswerabilityVerdict",
        "AnswerlensError",
        "BundleError",
        "CitationDecision",
        "ContextFormat",
        "DatasetError",
        "Decision",
        "DiscardReason",
        "MemoryBundle",
        "ProviderMetadata",
        "Span",
        "TrialError",
        "TrialResult",
        "VerificationReport",
        "assess_answerability",
        "derive_assessment",
        "load_bundle",
        "render_bundle",
        "should_abstain",
        "verify_assessment",
    ]
    for name in answerlens.__all__:
        assert hasattr(answerlens, name), name


def test_every_source_module_has_its_test_module() -> None:
    modules = {path.stem for path in SRC.glob("*.py") if path.stem not in {"__init__", "__main__"}}
    missing = sorted(name for name in modules if not (REPO / "tests" / f"test_{name}.py").exists())
    assert missing == []
