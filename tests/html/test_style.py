"""The one stylesheet: the palette's custom properties on the root (so every element resolves them, legend
swatches and dots included), every class the renderers use, and a flagged citation that shows its underline."""

from __future__ import annotations

import re

from answerlens.html import palette
from answerlens.html.style import STYLESHEET, style_tag
from tests.paths import REPO


def test_the_palette_is_declared_on_the_root() -> None:
    root = re.match(r":root\{([^}]*)\}", STYLESHEET)
    assert root is not None and root.group(1) == palette.css_variables()
    declared = {name for name in re.findall(r"(--al-[a-z0-9-]+):", STYLESHEET)}
    used = set(re.findall(r"var\((--al-[a-z0-9-]+)\)", STYLESHEET))
    assert used <= declared


def test_a_flagged_citation_has_a_visible_underline_outline_and_flag() -> None:
    rule = re.search(r"\.al-cite\.al-flagged\{([^}]*)\}", STYLESHEET)
    assert rule is not None
    body = rule.group(1)
    assert "outline:2px solid var(--al-flagged)" in body
    assert "text-decoration-line:underline" in body and "text-decoration-thickness:2px" in body
    assert '.al-cite.al-flagged::after{content:"\\2691";color:var(--al-flagged)' in STYLESHEET


def test_the_style_tag_writes_the_sheet_once_with_page_rules_after_it() -> None:
    tag = style_tag(".x{}", ".y{}")
    assert tag.count("<style>") == 1 and tag.count(STYLESHEET) == 1 and tag.endswith(".x{}.y{}</style>")


def test_only_the_style_module_writes_a_style_element_for_the_pure_layers() -> None:
    """``html`` fragments and ``report`` pieces carry no stylesheet of their own; nothing strips one."""
    src = REPO / "src" / "answerlens"
    writers = sorted(str(path.relative_to(src)) for folder in ("html", "report") for path in (src / folder).glob("*.py")
                     if "<style" in path.read_text() or "replace(STYLE" in path.read_text())
    assert writers == ["html/style.py"]
