from pathlib import Path

import pytest

from answerlens.loading import load_bundle
from answerlens.records import Candidate, MemoryBundle
from answerlens.render import reference_labels, render_bundle
from answerlens.sweeps.cut import CUT_MARK, Renderings, cell_context, packed_tokens
from answerlens.sweeps.settings import Setting, SweepFormat
from answerlens.tokens import token_count
from tests.sweeps.helpers import NEEDLE, bundle, bundle_data

FORMATS = [pytest.param(fmt, id=fmt.value) for fmt in (SweepFormat.READER_CITED, SweepFormat.AUDITABLE,
                                                      SweepFormat.COMPACT)]


PRME_BUNDLES = sorted((Path(__file__).parent.parent / "fixtures" / "prme" / "bundles").glob("bundle_*.json"))


def setting(fmt: SweepFormat, budget: str) -> Setting:
    return Setting(format=fmt, budget=budget)


def first_rendered(packed: MemoryBundle, fmt: SweepFormat, count: int) -> MemoryBundle:
    """The first ``count`` records in packed order under the full bundle's labels, rendered from scratch (no cache):
    the reference every cut is checked against."""
    sections: dict[str, tuple[Candidate, ...]] = {}
    left = count
    for name, candidates in packed.sections.items():
        if left > 0:
            sections[name] = candidates[:left]
            left -= len(sections[name])
    labels = {label: record for record, label in reference_labels(packed).items()}
    trimmed = packed.model_copy(update={"sections": sections, "context_references": labels})
    return render_bundle(trimmed, fmt.context_format, context_citations=fmt.citations)


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
    full = cell_context(packed, setting(fmt, "packed")).tokens_used
    for limit in range(40, full + 5, 13):
        fast = cell_context(packed, setting(fmt, str(limit)))
        fitting = [count for count in range(packed.record_count + 1)
                   if first_rendered(packed, fmt, count).tokens_used <= limit]
        assert len(fast.kept) == max(fitting, default=0), limit
        assert fast.tokens_used == first_rendered(packed, fmt, len(fast.kept)).tokens_used
        assert fast.bundle.render() == first_rendered(packed, fmt, len(fast.kept)).render()


@pytest.mark.parametrize("path", PRME_BUNDLES, ids=lambda path: path.stem)
@pytest.mark.parametrize("fmt", [*FORMATS, pytest.param(SweepFormat.READER_PLAIN, id="reader_plain")])
def test_every_prefix_rendered_from_cached_lines_is_the_rendering_from_scratch(path: Path, fmt: SweepFormat) -> None:
    """Each record's line is rendered once per format and reused by every prefix; the context, references and
    tokens must still be exactly what rendering that prefix from scratch gives, in any order of requests."""
    packed = load_bundle(path)
    renderings = Renderings(packed, fmt)
    for count in [packed.record_count, *range(packed.record_count + 1)]:
        cached, scratch = renderings.first(count), first_rendered(packed, fmt, count)
        assert cached.render() == scratch.render(), count
        assert cached.context_references == scratch.context_references
        assert (cached.tokens_used, cached.tokenizer) == (scratch.tokens_used, scratch.tokenizer)


# --- retrieval depth and chunk size ---------------------------------------------------------------------------


def test_a_depth_keeps_the_first_k_records_in_packed_order_under_their_own_labels() -> None:
    packed = bundle("auditable")  # no references of its own: labels come from every record's id
    full = cell_context(packed, setting(SweepFormat.COMPACT, "packed"))
    deep = cell_context(packed, Setting(format=SweepFormat.COMPACT, budget="packed", top_k=3))
    assert deep.kept == full.kept[:3] and [str(item) for item in deep.cut] == [NEEDLE]
    assert dict(deep.bundle.context_references) == {ref: record for ref, record in
                                                    full.bundle.context_references.items() if str(record) != NEEDLE}
    assert "Leo Alvarez" not in deep.bundle.render() and deep.assessable


def test_a_depth_that_keeps_every_record_in_the_packed_format_is_the_bundle_as_packed() -> None:
    packed = bundle()
    assert cell_context(packed, Setting(format=SweepFormat.READER_CITED, budget="packed", top_k=9)).bundle is packed


def test_a_depth_composes_with_a_budget() -> None:
    packed = bundle()
    two = cell_context(packed, Setting(format=SweepFormat.READER_CITED, budget="packed", top_k=2))
    tight = cell_context(packed, Setting(format=SweepFormat.READER_CITED, budget=str(two.tokens_used - 1), top_k=2))
    assert len(two.kept) == 2 and len(tight.kept) == 1 and tight.cut == two.cut[:0] + tuple(two.kept[1:]) + two.cut


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_chunk_size_cuts_each_records_text_to_its_first_tokens_and_marks_it(fmt: SweepFormat) -> None:
    packed = bundle()
    context = cell_context(packed, Setting(format=fmt, budget="packed", record_tokens=5))
    assert len(context.kept) == 4 and context.cut == ()
    texts = {candidate.node.id: candidate.rendered_text for _, candidate in context.bundle.candidates()}
    originals = {candidate.node.id: candidate.rendered_text for _, candidate in packed.candidates()}
    assert set(context.shortened) == set(texts)  # every record here is longer than 5 tokens
    for record, text in texts.items():
        assert text is not None and text.endswith(CUT_MARK.format(count=5))
        start = text.removesuffix(CUT_MARK.format(count=5))
        assert originals[record].startswith(start) and token_count(start)[0] <= 5
        assert token_count(originals[record][: len(start) + 1])[0] > 5 or start == originals[record]
    rendered = context.bundle.render()
    assert "schema migrations" not in rendered and rendered.count("cut to its first 5 tokens") == 4


def test_a_chunk_size_longer_than_every_record_changes_nothing() -> None:
    packed = bundle()
    context = cell_context(packed, Setting(format=SweepFormat.READER_CITED, budget="packed", record_tokens=500))
    assert context.bundle is packed and context.shortened == ()


def test_records_that_cannot_be_rendered_in_a_format_make_a_cell_that_says_why() -> None:
    packed = bundle()
    section, candidates = next(iter(packed.sections.items()))
    broken = packed.model_copy(update={"sections": {**packed.sections, section: (
        candidates[0].model_copy(update={"representation": None}), *candidates[1:])}})
    context = cell_context(broken, setting(SweepFormat.COMPACT, "packed"))
    assert not context.assessable and "cannot be rendered as compact" in (context.reason or "")
    assert context.kept == () and len(context.cut) == 4
