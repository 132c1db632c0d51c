"""Layout rules of DESIGN §8: the core never imports the UI stack, no import cycles, small modules and
functions, a test module per source module; the public API is pinned."""

import ast
from pathlib import Path

import answerlens
from tests.paths import REPO

SRC = REPO / "src" / "answerlens"
UI_ONLY = {"streamlit", "plotly", "pandas"}
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


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
        "ClaimEvidence",
        "ClaimVerification",
        "ClaimVerificationConfig",
        "ClaimVerificationError",
        "ClaimVerifier",
        "ContextFormat",
        "DatasetError",
        "Decision",
        "DiscardReason",
        "EvidencePolicy",
        "FLAG_RULES_VERSION",
        "Flag",
        "FlagCode",
        "MemoryBundle",
        "PROMPT_SHA256",
        "PROMPT_VERSION",
        "PathCheck",
        "ProviderMetadata",
        "RequirementOpinion",
        "SYSTEM_PROMPT",
        "SecondOpinion",
        "Span",
        "StorageError",
        "SweepResult",
        "TrialError",
        "TrialResult",
        "TypedEvidence",
        "VerificationError",
        "VerificationReport",
        "assess_answerability",
        "bundle_evidence",
        "derive_assessment",
        "load_bundle",
        "render_bundle",
        "second_opinion_for",
        "should_abstain",
        "sweep",
        "verify_assessment",
        "verify_path",
        "verify_second_opinion",
    ]
    for name in answerlens.__all__:
        assert hasattr(answerlens, name), name


def test_every_source_module_has_its_test_module() -> None:
    modules = {path.stem for path in SRC.glob("*.py") if path.stem not in {"__init__", "__main__"}}
    missing = sorted(name for name in modules if not (REPO / "tests" / f"test_{name}.py").exists())
    assert missing == []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph() -> dict[str, set[str]]:
    """Every import between answerlens modules, deferred ones (inside functions) included."""
    modules = {_module_name(path): path for path in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    child = f"{node.module}.{alias.name}"
                    targets.add(child if child in modules else node.module)
        graph[name] = {target for target in targets if target in modules and target != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_in_the_package() -> None:
    assert _cycles(_import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _package(module: str) -> str:
    """``answerlens.run_store`` -> ``ui``; a top-level module is a package of its own; the root is ``answerlens``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = _package(module)
        packages.setdefault(source, set()).update(_package(target) for target in targets)
    return {source: targets - {source} for source, targets in packages.items()}


PACKAGE_CYCLES_FOR_NOW = [["config", "providers"]]
"""``config`` validates a provider against ``providers.kinds`` and the providers read ``config``; this list only
shrinks."""


def test_no_import_cycle_between_packages() -> None:
    """The module-level check cannot see ``report`` importing ``ui`` while ``ui`` imports ``report``."""
    assert _cycles(_package_graph(_import_graph())) == PACKAGE_CYCLES_FOR_NOW


def test_the_package_graph_sees_a_cycle_the_module_graph_does_not() -> None:
    modules = {"answerlens.report.page": {"answerlens.ui.common.markup"}, "answerlens.ui.common.markup": set(),
               "answerlens.ui.trials.view": {"answerlens.report.page"}}
    assert _cycles(modules) == [] and _cycles(_package_graph(modules)) == [["report", "ui"]]


LAYERS = {
    "html": {"ui", "report"},
    "report": {"ui", "verification", "engine"},
    "verification": {"ui", "engine", "cli"},
    "ui": {"report"},
}
"""Packages each package must never import: ``ui`` draws with Streamlit on top of ``html``; ``report`` renders a
report's data and findings with ``html`` alone; ``verification`` (every check, and report files made and checked)
sits above ``report`` and below the ``engine`` that resumes runs with it; nothing in ``ui`` checks anything
through ``report``."""


def test_html_and_report_never_import_the_layers_above_them() -> None:
    packages = _package_graph(_import_graph())
    assert {source: sorted(packages[source] & forbidden) for source, forbidden in LAYERS.items()} == {
        source: [] for source in LAYERS}


def test_nothing_outside_ui_imports_ui() -> None:
    packages = _package_graph(_import_graph())
    assert sorted(source for source, targets in packages.items() if "ui" in targets and source != "ui") == []


def test_html_imports_no_ui_stack_at_all() -> None:
    """Not even deferred: the reports and the command line use ``html`` without streamlit, plotly or pandas."""
    html = SRC / "html"
    assert {str(path.relative_to(SRC)): sorted(_imports(path) & UI_ONLY)
            for path in html.rglob("*.py") if _imports(path) & UI_ONLY} == {}


def test_every_html_module_has_its_test_module() -> None:
    modules = sorted(path.stem for path in (SRC / "html").glob("*.py") if path.stem != "__init__")
    assert [name for name in modules if not (REPO / "tests" / "html" / f"test_{name}.py").exists()] == []


def _sizes() -> dict[str, int]:
    sizes = {}
    for path in [*SRC.rglob("*.py"), *(REPO / "pages").glob("*.py"), REPO / "app.py"]:
        label = str(path.relative_to(SRC if SRC in path.parents else REPO))
        text = path.read_text()
        sizes[label] = len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sizes[f"{label}:{node.name}"] = (node.end_lineno or node.lineno) - node.lineno + 1
    return sizes


def test_modules_and_functions_stay_small() -> None:
    too_big = {
        name: size
        for name, size in _sizes().items()
        if size > (MAX_FUNCTION_LINES if ":" in name else MAX_MODULE_LINES)
    }
    assert too_big == {}


def test_pages_stay_thin() -> None:
    lines = {path.name: len(path.read_text().splitlines()) for path in (REPO / "pages").glob("*.py")}
    assert {name: count for name, count in lines.items() if count > 150} == {}


def test_the_core_installs_without_the_ui_stack() -> None:
    import re
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0].lower() for spec in project["dependencies"]}
    assert {"pydantic", "httpx"} <= names and not names & UI_ONLY
    app = {re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0].lower() for spec in project["optional-dependencies"]["app"]}
    assert UI_ONLY <= app
    assert "answerlens[app]" in project["optional-dependencies"]["dev"]


UI = SRC / "ui"


def _shipped() -> list:  # type: ignore[type-arg]
    return [REPO / "app.py", *sorted((REPO / "pages").glob("*.py")), *sorted(SRC.rglob("*.py"))]


def test_streamlit_is_drawn_only_by_the_entry_point_the_pages_and_view_modules() -> None:
    def may_draw(path) -> bool:  # type: ignore[no-untyped-def]
        return path.parent in (REPO, REPO / "pages") or (UI in path.parents and path.stem.endswith("view"))

    offenders = [str(path.relative_to(REPO)) for path in _shipped()
                 if "streamlit" in _imports(path) and not may_draw(path)]
    assert offenders == []


def test_plotly_and_pandas_only_under_ui() -> None:
    offenders = [str(path.relative_to(REPO)) for path in _shipped()
                 if _imports(path) & {"plotly", "pandas"} and UI not in path.parents]
    assert offenders == []


def test_every_pure_ui_module_has_its_test_module() -> None:
    pure = [path.relative_to(UI) for path in UI.rglob("*.py")
            if path.stem != "__init__" and not path.stem.endswith("view")]
    missing = sorted(str(module) for module in pure
                     if not (REPO / "tests" / "ui" / module.parent / f"test_{module.stem}.py").exists())
    assert missing == []


# --- sub-packages and tests -----------------------------------------------------------------------------------


def test_the_size_rule_walks_every_sub_package_and_the_entry_point() -> None:
    walked = {name.split(":")[0].split("/")[0] for name in _sizes() if "/" in name.split(":")[0]}
    packages = {path.name for path in SRC.iterdir() if (path / "__init__.py").exists()}
    assert packages <= walked and {"ui/trials/run_view.py", "app.py"} <= set(_sizes())


def test_no_test_module_imports_another() -> None:
    """Shared test code lives in helper modules (``helpers.py``, ``conftest.py``, servers), never in a test module,
    so running or deleting one test module never changes another."""
    offenders = []
    for path in (REPO / "tests").rglob("test_*.py"):
        if any(part.startswith(".venv") for part in path.parts):
            continue  # the Phoenix virtualenv the suite runs, not our tests
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            offenders += [f"{path.relative_to(REPO)}: {name}" for name in names
                          if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")]
    assert offenders == []


def _httpx_exceptions() -> list[Exception]:
    """An instance of every exception class httpx exports (its constructors differ: tried in turn)."""
    import httpx

    request = httpx.Request("POST", "http://model.test/v1/chat/completions")
    response = httpx.Response(500, request=request)
    found = []
    for name in httpx.__all__:
        cls = getattr(httpx, name)
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            continue
        for args, kwargs in ((("boom",), {}), ((), {}), (("boom",), {"request": request, "response": response})):
            try:
                found.append(cls(*args, **kwargs))
                break
            except TypeError:
                continue
    return found


def _hostile_handlers() -> dict[str, object]:
    """What a transport may do instead of answering well: raise anything, answer junk or a refusal, break off."""
    import errno

    import httpx

    def raising(exc: Exception) -> object:
        def handler(request: httpx.Request) -> httpx.Response:
            raise exc
        return handler

    def answering(**response: object) -> object:
        return lambda request: httpx.Response(**response)  # type: ignore[arg-type]

    def breaking_off(exc: Exception) -> object:
        async def body():  # type: ignore[no-untyped-def]
            yield b'{"choices": ['
            raise exc
        return lambda request: httpx.Response(200, content=body(), headers={"content-type": "application/json"})

    handlers: dict[str, object] = {f"raises {type(exc).__name__}": raising(exc) for exc in _httpx_exceptions()}
    for exc in (RuntimeError("bug"), TypeError("bad"), KeyError("k"), AttributeError("a"), UnicodeError("u"),
                OSError(errno.ECONNRESET, "reset"), AssertionError("no")):
        handlers[f"raises {type(exc).__name__}"] = raising(exc)
    handlers |= {
        "pre-read array": answering(status_code=200, json=[]),
        "pre-read object without the reply": answering(status_code=200, json={"choices": []}),
        "pre-read text": answering(status_code=200, text="<html>502</html>"),
        "pre-read invalid utf-8": answering(status_code=200, content=b"\xff\xfe{"),
        "pre-read bad gzip": answering(status_code=200, content=b"not gzip", headers={"content-encoding": "gzip"}),
        "pre-read unknown encoding": answering(status_code=200, content=b"x", headers={"content-encoding": "br2"}),
        "refused 500": answering(status_code=500, json={"error": "down"}),
        "redirect": answering(status_code=302, headers={"location": "http://elsewhere.test/"}),
        "informational": answering(status_code=101),
        "breaks off with ReadError": breaking_off(httpx.ReadError("cut")),
        "breaks off with RuntimeError": breaking_off(RuntimeError("cut")),
    }
    return handlers


async def test_nothing_but_answerability_error_leaves_assess() -> None:
    """Whatever the transport given does, ``assess`` returns an assessment or raises ``AnswerabilityError``; the only
    ``ValueError`` s are the documented ones about the inputs (a blank question, a reader bundle without
    citations), raised before any provider work."""
    import httpx

    from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, load_bundle
    from tests.paths import PRME

    bundle = load_bundle(PRME / "bundles" / "bundle_reader_citations.json")
    escaped: dict[str, str] = {}
    for provider in ("ollama", "openai", "llamacpp"):
        config = AnswerabilityConfig(provider=provider, model="m", base_url="http://model.test:1/v1", timeout=5,
                                     max_retries=0)
        for name, handler in _hostile_handlers().items():
            async with AnswerabilityEvaluator(config, transport=httpx.MockTransport(handler)) as evaluator:
                try:
                    await evaluator.assess("What cache does the dashboard API use?", bundle)
                except AnswerabilityError:
                    continue
                except Exception as exc:  # noqa: BLE001 - collected: the assertion names every escape
                    escaped[f"{provider}: {name}"] = f"{type(exc).__module__}.{type(exc).__name__}: {exc}"
    assert escaped == {}
    async with AnswerabilityEvaluator(AnswerabilityConfig(provider="openai", model="m")) as evaluator:
        for question, case in (("  ", bundle), ("q?", load_bundle(PRME / "bundles" / "bundle_reader_plain.json"))):
            try:
                await evaluator.assess(question, case)
            except ValueError as exc:
                assert type(exc) is ValueError, exc
            else:
                raise AssertionError(f"{question!r}: no ValueError")
