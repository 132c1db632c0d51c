"""Hostile sweep settings: a huge list of budgets is refused without reading all of it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from answerlens.sweeps.settings import MAX_SETTINGS, grid


class Counted(list[str]):
    """A list that counts how many of its items were read."""

    read = 0

    def __iter__(self) -> Iterator[str]:
        for self.read, item in enumerate(super().__iter__(), start=1):
            yield item


def test_a_huge_list_of_budgets_is_refused_as_soon_as_the_grid_is_too_big() -> None:
    budgets = Counted(str(tokens) for tokens in range(1, 200_001))  # a pasted column; each distinct
    with pytest.raises(ValueError, match=f"at most {MAX_SETTINGS}"):
        grid(["compact", "auditable"], budgets)
    assert budgets.read <= MAX_SETTINGS  # not 200,000 parsed and compared with every one before it


@pytest.mark.parametrize("text", [pytest.param("10000000000", id="ten_digits"), pytest.param("1e9", id="exponent")])
def test_a_token_count_out_of_range_says_the_range(text: str) -> None:
    from answerlens.sweeps.settings import parse_budget

    with pytest.raises(ValueError, match="999,999,999"):
        parse_budget(text)
