"""The palette: every text and edge colour drawn meets WCAG AA in both themes, requirement colours are told apart,
identity ≠ decision, and no colour is written anywhere else."""

from __future__ import annotations

import re

import pytest

from answerlens.html import palette
from answerlens.html.style import STYLESHEET
from tests.paths import REPO


@pytest.mark.parametrize(
    "foreground, background, ratio",
    [
        pytest.param("#000000", "#ffffff", 21.0, id="black_on_white"),
        pytest.param("#ffffff", "#ffffff", 1.0, id="same"),
        pytest.param("#777777", "#ffffff", 4.48, id="grey_just_below_aa"),
        pytest.param("#ffffff", "#0072b2", 5.19, id="order_does_not_matter"),
    ],
)
def test_contrast_matches_wcag(foreground: str, background: str, ratio: float) -> None:
    assert palette.contrast(foreground, background) == pytest.approx(ratio, abs=0.01)
    assert palette.contrast(background, foreground) == pytest.approx(ratio, abs=0.01)


def test_a_bad_colour_is_refused() -> None:
    with pytest.raises(ValueError, match="rrggbb"):
        palette.luminance("#fff")


@pytest.mark.parametrize("what, foreground, background", palette.text_pairs(),
                         ids=[what for what, _f, _b in palette.text_pairs()])
def test_every_text_pair_meets_aa(what: str, foreground: str, background: str) -> None:
    assert palette.contrast(foreground, background) >= 4.5, what


@pytest.mark.parametrize("what, foreground, background", palette.edge_pairs(),
                         ids=[what for what, _f, _b in palette.edge_pairs()])
def test_every_meaningful_edge_meets_the_non_text_minimum(what: str, foreground: str, background: str) -> None:
    assert palette.contrast(foreground, background) >= 3.0, what


def test_both_themes_are_checked() -> None:
    names = {what.split(":")[0] for what, _f, _b in palette.text_pairs() + palette.edge_pairs()}
    assert names == {"light", "dark"}


def test_identity_hues_avoid_the_status_hues() -> None:
    """No requirement fill is green (reads as supported) or red (reads as conflicting/discarded)."""
    for mark, _line, _edge in palette.IDENTITY:
        for colour in (mark.light, mark.dark):
            red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
            assert not (green > red + 20 and green > blue + 20), colour
            assert not (red > green + 60 and red > blue + 60), colour


def test_the_css_follows_the_theme() -> None:
    variables = palette.css_variables()
    assert variables.count("light-dark(") >= len(palette.IDENTITY) * 3
    assert "--al-r0:light-dark(" in variables and variables in STYLESHEET


SHARMA = [
    # CIEDE2000 test data (Sharma, Wu and Dalal 2005, Table 1): L*a*b* pairs and their ΔE00.
    pytest.param((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425, id="pair1"),
    pytest.param((50, -1.3802, -84.2814), (50, 0, -82.7485), 1.0000, id="pair3"),
    pytest.param((50, 0, 0), (50, -1, 2), 2.3669, id="pair7"),
    pytest.param((50, 2.49, -0.001), (50, -2.49, 0.0009), 7.1792, id="pair13_hue_wraps"),
    pytest.param((50, 2.5, 0), (73, 25, -18), 27.1492, id="pair20"),
    pytest.param((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644, id="pair25"),
    pytest.param((22.7233, 20.0904, -46.694), (23.0331, 14.973, -42.5619), 2.0373, id="pair26"),
    pytest.param((90.9257, -0.5406, -0.9208), (88.6381, -0.8985, -0.7239), 1.5381, id="pair33"),
    pytest.param((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082, id="pair34"),
]


@pytest.mark.parametrize("first, second, expected", SHARMA)
def test_colour_difference_matches_the_ciede2000_reference_data(first: tuple[float, float, float],
                                                                 second: tuple[float, float, float],
                                                                 expected: float) -> None:
    assert palette.ciede2000(first, second) == pytest.approx(expected, abs=1e-4)
    assert palette.ciede2000(second, first) == pytest.approx(expected, abs=1e-4)


MIN_IDENTITY_DIFFERENCE = 12.0
"""ΔE00 between any two requirement colours: well past "noticeable" (~2), so two requirements never look alike."""


@pytest.mark.parametrize("what, first, second", palette.identity_pairs(),
                         ids=[what for what, _a, _b in palette.identity_pairs()])
def test_every_two_requirement_colours_are_told_apart(what: str, first: str, second: str) -> None:
    assert palette.difference(first, second) >= MIN_IDENTITY_DIFFERENCE, what


def test_requirement_colours_are_compared_in_both_themes_for_marks_and_edges() -> None:
    whats = [what for what, _a, _b in palette.identity_pairs()]
    assert "light: requirement 1 and 5 mark" in whats and "dark: requirement 1 and 5 edge" in whats
    assert len(whats) == 2 * 2 * 15  # two themes, marks and edges, every two of six


def test_every_colour_role_is_contrast_tested() -> None:
    """Statuses, outcomes, chart fills, badges, the report page: each value appears in a tested pair."""
    tested = {colour for _w, fg, bg in palette.text_pairs() + palette.edge_pairs() for colour in (fg, bg)}
    roles = [*palette.SOLID.values(), *palette.OUTCOMES.values(), *palette.AGREEMENT.values(),
             palette.CITATION_ERROR, palette.PAGE.light, palette.PAGE.dark]
    assert [colour for colour in roles if colour not in tested] == []


_LITERAL = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|rgba?\(")


def test_no_colour_is_written_outside_the_palette() -> None:
    """Every colour of the app and the reports comes from ``html.palette`` (the one place its pairs are tested)."""
    sources = [*(REPO / "src" / "answerlens").rglob("*.py"), *(REPO / "pages").glob("*.py")]
    found = {str(path.relative_to(REPO)): _LITERAL.findall(path.read_text()) for path in sources
             if path.name != "palette.py"}
    assert {path: literals for path, literals in found.items() if literals} == {}
