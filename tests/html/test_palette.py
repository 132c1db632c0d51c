"""The palette: every text and edge colour the markup draws meets WCAG AA in both themes; identity ≠ decision."""

from __future__ import annotations

import pytest

from answerlens.ui.common import palette
from answerlens.ui.common.markup import STYLE


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
    assert "--al-r0:light-dark(" in variables and variables in STYLE
