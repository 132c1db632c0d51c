import pytest

from answerlens.loading import load_bundle
from answerlens.render import reference_labels
from answerlens.sweeps.cut import _render_first, cell_context, packed_tokens
from answerlens.sweeps.settings import Setting, SweepFormat
from answerlens.tokens import token_count
from tests.sweeps.helpers import NEEDLE, bundle, bundle_data

FORMATS = [pytest.param(fmt, id=fmt.value) for fmt in (SweepFormat.READER_CITED, SweepFormat.AUDITABLE,
                                                      SweepFormat.COMPACT)]


def setting(fmt: SweepFormat, budget: str) -> Setting:
    return Setting(format=fmt, budget=budget)


def test_packed_in_the_packed_format_is_the_bundle_as_packed() -> None:
    packed = bundle()
    context = cell_context(packed, setting(SweepFormat.READER_CITED, "packed"))
    assert context.bundle is packed
    assert context.budget_tokens is None and context.cut == ()
    assert context.tokens_used == packed_tokens(packed) == token_count(packed.render())[0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_budget_keeps_records_in_packed_order_while_the_context_fits(fmt: SweepFormat) -> None:
    packed = bundle()
    full = cell_context(packed, setting(fmt, "packed"))
    exact = cell_context(packed, setting(fmt, str(full.tokens_used)))
    short = cell_context(packed, setting(fmt, str(full.tokens_used - 1)))
    assert len(exact.kept) == 4 and exact.cut == ()
    assert [str(item) for item in short.cut] == [NEEDLE]
    assert short.kept == full.kept[:3]
    assert short.tokens_used <= full.tokens_used - 1
    assert short.tokens_used == token_count(short.bundle.render())[0]
    assert "Leo Alvarez" not in short.bundle.render()


def test_labels_stay_the_full_bundles_when_records_are_cut() -> None:
    packed = bundle("auditable")  # packed without references: labels come from every record's id
    full = cell_context(packed, setting(SweepFormat.COMPACT, "packed"))
    cut = cell_context(packed, setting(SweepFormat.COMPACT, str(full.tokens_used - 1)))
    assert dict(cut.bundle.context_references) == {ref: record for ref, record in
                                                   full.bundle.context_references.items() if str(record) != NEEDLE}


def test_a_percentage_is_of_the_packed_contexts_tokens() -> None:
    packed = bundle()
    context = cell_context(packed, setting(SweepFormat.READER_CITED, "80%"))
    assert context.budget_tokens == packed_tokens(packed) * 80 // 100
    assert 0 < len(context.kept) < 4


def test_reader_without_citations_is_an_explained_outcome() -> None:
    context = cell_context(bundle(), setting(SweepFormat.READER_PLAIN, "packed"))
    assert not context.assessable
    assert "citations off" in (context.reason or "")
    assert len(context.kept) == 4


def test_a_budget_that_keeps_no_record_is_an_explained_outcome() -> None:
    context = cell_context(bundle(), setting(SweepFormat.COMPACT, "3"))
    assert not context.assessable and context.kept == () and len(context.cut) == 4
    assert "keeps no record" in (context.reason or "")


@pytest.mark.parametrize("fmt", [*FORMATS, pytest.param(SweepFormat.READER_PLAIN, id="reader_plain")])
def test_the_estimate_guided_cut_keeps_the_most_records_whose_exact_rendering_fits(fmt: SweepFormat) -> None:
    first = bundle_data()["records"][0]
    records = [{**first, "text": f"{first['text']} (note {index}: {'detail ' * (index % 7)})",
                "section": f"s{index % 3}"} for index in range(30)]
    packed = load_bundle({"records": records, "packing": bundle_data()["packing"]})
    labels = {label: record for record, label in reference_labels(packed).items()}
    full = cell_context(packed, setting(fmt, "packed")).tokens_used
    for limit in range(40, full + 5, 13):
        fast = cell_context(packed, setting(fmt, str(limit)))
        fitting = [count for count in range(packed.record_count + 1)
                   if _render_first(packed, fmt, count, labels).tokens_used <= limit]
        assert len(fast.kept) == max(fitting, default=0), limit
        assert fast.tokens_used == _render_first(packed, fmt, len(fast.kept), labels).tokens_used
