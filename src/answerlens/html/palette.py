"""The app's one palette, in both themes, and the WCAG contrast arithmetic that checks it (pure).

Requirement identity and citation decision are told apart by different means, so neither is read as the other:
identity is a hue from a colour-blind-safe set (Okabe–Ito, without its green and vermillion, which read as
"supported" and "discarded") *and* the requirement's number; the decision is a shape — accepted citations are
filled, discarded ones have a dashed vermillion outline and no fill, flagged ones a solid ink outline with a
wavy underline and a ⚑. Statuses and verdicts are words on solid badges.

Every colour has a light and a dark value; the CSS uses ``light-dark()``, which follows the ``color-scheme``
Streamlit sets from its theme, so the cards follow the theme (system setting or the user's choice).
Where a colour cannot follow the theme (plotly figures, SVG fills, a dataframe's cells) it is one fixed value that
reads on both themes' backgrounds. ``text_pairs()`` and ``edge_pairs()`` list every foreground/background pair
drawn, ``identity_pairs()`` every two requirement colours that must be told apart, for the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    """One colour role: its value in the light theme and in the dark theme."""

    light: str
    dark: str

    @property
    def css(self) -> str:
        return f"light-dark({self.light},{self.dark})"


@dataclass(frozen=True)
class Theme:
    name: str
    backgrounds: tuple[str, ...]
    """Streamlit's own backgrounds: the page and the sidebar (our cards sit on either)."""


THEMES = (Theme("light", ("#ffffff", "#f0f2f6")), Theme("dark", ("#0e1117", "#262730")))

TEXT = Pair("#1f2328", "#e6edf3")
MUTED = Pair("#59636e", "#9da7b3")
CARD = Pair("#fcfcfd", "#161b22")
"""The context card's background."""
RULE = Pair("#d0d7de", "#3d444d")
"""Borders and table rules (decoration, no contrast requirement)."""
PAGE = Pair("#ffffff", "#0d1117")
"""A report's page background (the report follows the reader's system theme)."""

IDENTITY = (
    # (mark fill, line tint, edge) per requirement; hues: blue, orange, reddish purple, yellow, teal, grey (the
    # pastel sky blue of Okabe–Ito read as requirement 1's blue; ``identity_pairs`` keeps every two apart).
    (Pair("#b6d7f0", "#1f4a6e"), Pair("#eaf3fa", "#14283a"), Pair("#0072b2", "#56b4e9")),
    (Pair("#f9cf8f", "#7a4600"), Pair("#fdf4e3", "#2f2410"), Pair("#b36b00", "#e69f00")),
    (Pair("#ebc6dc", "#6b3457"), Pair("#faeff5", "#2e1a27"), Pair("#a8507f", "#cc79a7")),
    (Pair("#f3ea8f", "#5e5608"), Pair("#fcf9dc", "#29260b"), Pair("#8a7f00", "#f0e442")),
    (Pair("#a6e4dc", "#17595a"), Pair("#edf9f7", "#12302f"), Pair("#00838a", "#3fc1b8")),
    (Pair("#dadada", "#4a4a4a"), Pair("#f4f4f4", "#242424"), Pair("#6e6e6e", "#b0b0b0")),
)
DISCARDED = Pair("#c04f00", "#ff8c4a")
"""The dashed outline of a discarded citation (vermillion), and of an invisible-character badge."""
FLAGGED = Pair("#1f2328", "#f0f6fc")
"""The solid outline and wavy underline of a citation the second opinion flags (ink, not a hue)."""

SOLID_TEXT = "#ffffff"
SOLID = {
    # Badges with white text (verdicts, statuses, marks): the same in both themes.
    "answerable": "#1a7f37",
    "partial": "#9a6700",
    "insufficient": "#57606a",
    "conflicting": "#b3261e",
    "info": "#0969da",
}
SOFT = {
    # Card backgrounds behind TEXT, per verdict or notice kind (the solid colour is the card's edge).
    "answerable": Pair("#e9f7ec", "#12261a"),
    "partial": Pair("#fdf6e3", "#2b220c"),
    "insufficient": Pair("#f1f3f5", "#1e2329"),
    "conflicting": Pair("#fdeceb", "#2d1514"),
    "info": Pair("#eaf2fd", "#10233b"),
}
EDGE = {
    # Card edges and icon colours on the page background: 3:1 (non-text contrast) in each theme.
    "answerable": Pair("#1a7f37", "#3fb950"),
    "partial": Pair("#9a6700", "#d29922"),
    "insufficient": Pair("#6e7781", "#8b949e"),
    "conflicting": Pair("#b3261e", "#f85149"),
    "info": Pair("#0969da", "#4493f8"),
}
STATUS_TONE = {"supported": "answerable", "unsupported": "insufficient", "conflicting": "conflicting"}
"""A requirement's final status is a ``SOLID`` badge of this tone (white text), in every table."""

OUTCOMES = {
    # Chart fills per trial outcome, fixed in both themes (plotly and SVG cannot follow the theme through CSS):
    # each reads 3:1 on both themes' page backgrounds and carries white counts at 4.5:1.
    "answer": "#1a7f37",
    "answer_partially": "#9a6700",
    "abstain": "#6e7781",
    "surface_conflict": "#d1242f",
    "error": "#8250df",
}
AGREEMENT = {
    # Per-requirement agreement across repeats, as chart fills (no text inside).
    "same": OUTCOMES["answer"],
    "changed": OUTCOMES["surface_conflict"],
    "unmatched": "#8c8c8c",
}
CITATION_ERROR = OUTCOMES["surface_conflict"]
"""The bar of a question's citation errors."""
TRANSPARENT = "rgba(0,0,0,0)"
"""A chart's plot area, so the page's own background (either theme) shows through."""


def _rgb(colour: str) -> tuple[float, float, float]:
    value = colour.lstrip("#")
    if len(value) != 6:
        raise ValueError(f"expected #rrggbb, got {colour!r}")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""

    def channel(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(value) for value in _rgb(colour))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio, 1–21 (AA: 4.5 for text, 3 for large text and for edges of controls)."""
    high, low = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _pick(pair: Pair, theme: Theme) -> str:
    return pair.light if theme.name == "light" else pair.dark


def text_pairs() -> list[tuple[str, str, str]]:
    """Every text colour on every background it is drawn on, in both themes: ``(what, fg, bg)``; each needs 4.5."""
    found = []
    for theme in THEMES:
        t = theme.name
        text, muted = _pick(TEXT, theme), _pick(MUTED, theme)
        for page in theme.backgrounds:
            found.append((f"{t}: muted text on the page {page}", muted, page))
        surfaces = [("card", _pick(CARD, theme))]
        surfaces += [(f"soft {name}", _pick(pair, theme)) for name, pair in SOFT.items()]
        surfaces += [(f"requirement {n} line tint", _pick(line, theme)) for n, (_m, line, _e) in enumerate(IDENTITY, 1)]
        for name, background in surfaces:  # the gutter's line numbers and captions are muted
            found.append((f"{t}: text on {name}", text, background))
            found.append((f"{t}: muted text on {name}", muted, background))
        for number, (mark, _line, _edge) in enumerate(IDENTITY, start=1):  # marks, chips, dots: plain text only
            found.append((f"{t}: text on requirement {number} mark", text, _pick(mark, theme)))
        found += [(f"{t}: white on {name} badge", SOLID_TEXT, colour) for name, colour in SOLID.items()]
        found += [(f"{t}: white count on the {name} bar", SOLID_TEXT, colour) for name, colour in OUTCOMES.items()]
        found += [(f"{t}: {what} on the report page", _pick(pair, theme), _pick(PAGE, theme))
                  for what, pair in (("text", TEXT), ("muted text", MUTED))]
    return found


def edge_pairs() -> list[tuple[str, str, str]]:
    """Every outline, edge and mark that carries meaning, against the backgrounds it sits on; each needs 3."""
    found = []
    for theme in THEMES:
        t = theme.name
        grounds = [*theme.backgrounds, _pick(CARD, theme)] + [_pick(line, theme) for _m, line, _e in IDENTITY]
        for ground in grounds:
            found.append((f"{t}: discarded outline on {ground}", _pick(DISCARDED, theme), ground))
            found.append((f"{t}: flagged outline on {ground}", _pick(FLAGGED, theme), ground))
        for number, (mark, _line, edge) in enumerate(IDENTITY, start=1):
            found.append((f"{t}: requirement {number} edge on the card", _pick(edge, theme), _pick(CARD, theme)))
            found.append((f"{t}: flagged outline on requirement {number}'s mark", _pick(FLAGGED, theme),
                          _pick(mark, theme)))
        for name, pair in EDGE.items():
            for ground in theme.backgrounds:
                found.append((f"{t}: {name} edge on {ground}", _pick(pair, theme), ground))
        for ground in (theme.backgrounds[0], _pick(PAGE, theme)):  # charts sit on the page, in the app and reports
            fills = [*OUTCOMES.items(), *(("agreement " + name, colour) for name, colour in AGREEMENT.items())]
            found += [(f"{t}: {name} chart fill on {ground}", colour, ground) for name, colour in fills]
    return found


def css_variables() -> str:
    """The palette as CSS custom properties (``--al-…``), each following the theme through ``light-dark()``."""
    names = {"text": TEXT, "muted": MUTED, "card": CARD, "rule": RULE, "page": PAGE, "discarded": DISCARDED,
             "flagged": FLAGGED}
    lines = [f"--al-{name}:{pair.css}" for name, pair in names.items()] + [f"--al-solid-text:{SOLID_TEXT}"]
    for index, (mark, line, edge) in enumerate(IDENTITY):
        lines += [f"--al-r{index}:{mark.css}", f"--al-t{index}:{line.css}", f"--al-e{index}:{edge.css}"]
    for name in SOFT:
        lines += [f"--al-soft-{name}:{SOFT[name].css}", f"--al-edge-{name}:{EDGE[name].css}",
                  f"--al-solid-{name}:{SOLID[name]}"]
    return ";".join(lines)


def identity_pairs() -> list[tuple[str, str, str]]:
    """Every two requirements' mark fills, and every two of their edges, in each theme: ``(what, a, b)``."""
    found = []
    for theme in THEMES:
        for role, slot in (("mark", 0), ("edge", 2)):
            colours = [_pick(triple[slot], theme) for triple in IDENTITY]
            found += [(f"{theme.name}: requirement {i + 1} and {j + 1} {role}", colours[i], colours[j])
                      for i in range(len(colours)) for j in range(i + 1, len(colours))]
    return found


def _lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB ``#rrggbb``."""

    def linear(value: float) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(value) for value in _rgb(colour))
    xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
           (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    fx, fy, fz = (v ** (1 / 3) if v > 216 / 24389 else (24389 / 27 * v + 16) / 116 for v in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def difference(first: str, second: str) -> float:
    """CIEDE2000 colour difference ΔE00 (about 1: just noticeable; 10 and more: clearly different colours)."""
    return ciede2000(_lab(first), _lab(second))


def ciede2000(first: tuple[float, float, float], second: tuple[float, float, float]) -> float:
    """ΔE00 of two L*a*b* colours (Sharma, Wu and Dalal 2005)."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1, a2 = a1 * (1 + g), a2 * (1 + g)
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = (math.degrees(math.atan2(b, a)) % 360 if c else 0.0 for a, b, c in ((a1, b1, c1), (a2, b2, c2)))
    dh = 0.0 if c1 * c2 == 0 else h2 - h1 - 360 * (h2 - h1 > 180) + 360 * (h2 - h1 < -180)
    dl, dc, d_big_h = l2 - l1, c2 - c1, 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_bar = (l1 + l2) / 2, (c1 + c2) / 2
    h_bar = h1 + h2 if c1 * c2 == 0 else ((h1 + h2) / 2 + 180 * (abs(h1 - h2) > 180)) % 360
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c, s_h = 1 + 0.045 * c_bar, 1 + 0.015 * c_bar * t
    r_t = (-2 * math.sqrt(c_bar**7 / (c_bar**7 + 25**7))
           * math.sin(math.radians(60 * math.exp(-(((h_bar - 275) / 25) ** 2)))))
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_big_h / s_h) ** 2
                     + r_t * (dc / s_c) * (d_big_h / s_h))
