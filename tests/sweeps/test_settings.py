import pytest

from answerlens.sweeps.settings import PACKED, Setting, SweepFormat, budget_tokens, grid, parse_budget


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("packed", PACKED, id="packed"),
    pytest.param(" Packed ", PACKED, id="packed_spaces_case"),
    pytest.param("1200", "1200", id="tokens"),
    pytest.param("0050%", "50%", id="percent_zero_padded"),
    pytest.param("100%", "100%", id="whole"),
    pytest.param("000", "0", id="zero_keeps_no_record"),
])
def test_budgets_are_normalised(text: str, expected: str) -> None:
    assert parse_budget(text) == expected


@pytest.mark.parametrize("text", [
    pytest.param("0%", id="zero_percent"), pytest.param("101%", id="over_100"),
    pytest.param("-5", id="negative"), pytest.param("1.5k", id="unit"), pytest.param("", id="empty"),
])
def test_bad_budgets_say_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match="budget"):
        parse_budget(text)


def test_budget_tokens_of_a_percentage_round_down() -> None:
    assert budget_tokens("50%", 101) == 50
    assert budget_tokens("packed", 101) is None
    assert budget_tokens("64", 101) == 64


def test_default_grid_is_every_format_at_the_packed_budget() -> None:
    assert [item.key for item in grid()] == ["reader_cited@packed", "reader_plain@packed", "auditable@packed",
                                            "compact@packed"]


def test_grid_is_formats_outermost_in_the_order_given_without_duplicates() -> None:
    cells = grid(["compact", "auditable", "compact"], ["packed", "50%", "050%"])
    assert [item.key for item in cells] == ["compact@packed", "compact@50%", "auditable@packed", "auditable@50%"]


def test_an_unknown_format_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="reader_cited, reader_plain, auditable, compact"):
        grid(["reader"])


def test_too_many_cells_are_refused() -> None:
    with pytest.raises(ValueError, match="at most 64"):
        grid([], [str(n) for n in range(1, 18)])


def test_reader_formats_differ_only_by_citations() -> None:
    assert SweepFormat.READER_CITED.context_format == SweepFormat.READER_PLAIN.context_format
    assert SweepFormat.READER_CITED.citations and not SweepFormat.READER_PLAIN.citations
    assert Setting(format=SweepFormat.COMPACT, budget="10").key == "compact@10"


def test_the_cheap_sweep_check_knows_the_manifests_kind() -> None:
    from answerlens.sweeps.found import RUN_KIND
    from answerlens.sweeps.result import SweepManifest

    assert SweepManifest.model_fields["kind"].default == RUN_KIND


def test_depth_and_chunk_size_compose_with_formats_and_budgets_one_cell_per_combination() -> None:
    cells = grid(["compact"], ["packed", "50%"], top_k=["4", 3, "3"], record_tokens=[40])
    assert [item.key for item in cells] == ["compact@packed@top4@rec40", "compact@packed@top3@rec40",
                                            "compact@50%@top4@rec40", "compact@50%@top3@rec40"]
    assert cells[1].top_k == 3 and cells[1].record_tokens == 40


@pytest.mark.parametrize(("axis", "value"), [
    pytest.param("top_k", "0", id="top_k_zero"), pytest.param("top_k", "x", id="top_k_word"),
    pytest.param("record_tokens", "-3", id="record_tokens_negative"),
    pytest.param("record_tokens", "2000000", id="record_tokens_too_large"),
])
def test_bad_depths_and_chunk_sizes_say_what_is_expected(axis: str, value: str) -> None:
    with pytest.raises(ValueError, match=f"{axis} .*whole number from 1"):
        grid([], [], **{axis: [value]})


def test_the_cell_limit_counts_every_axis() -> None:
    with pytest.raises(ValueError, match="at most 64"):
        grid([], ["packed", "50%"], top_k=[1, 2, 3], record_tokens=[10, 20, 30])
