"""Reports opened from disk in the real headless Chromium with JavaScript off and every request recorded: the
verdict and highlighted citations show, nothing is fetched, nothing runs; charts are SVG; the requirement
picker works without a script; dark theme and print. And the app's Download report buttons."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from answerlens.html import palette
from answerlens.samples import load_sample
from answerlens.verification.report import verify_report
from tests.e2e.conftest import TIMEOUT, choose, radio, settle
from tests.paths import SAMPLES
from tests.report import builders
from tests.report.inert import problems

pytestmark = pytest.mark.e2e
ASSESSMENTS = [pytest.param(name, id=name) for name in builders.SAMPLE_NAMES]
TRIALS = [pytest.param(name, id=name) for name in builders.TRIALS]
SCREENSHOT_SAMPLE = "compact_citation_errors"


def colour(requirement: int) -> str:
    """Requirement ``requirement``'s mark fill in the light theme (the report opens light unless asked)."""
    return palette.IDENTITY[requirement % len(palette.IDENTITY)][0].light


def rgb(hex_colour: str) -> str:
    value = hex_colour.lstrip("#")
    red, green, blue = (int(value[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgb({red}, {green}, {blue})"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every report as a file, made in a thread of its own: the sync Playwright API owns this thread's loop."""
    folder = tmp_path_factory.mktemp("reports")

    def make() -> dict[str, Path]:
        made: dict[str, str] = {name: builders.report_of(name) for name in builders.SAMPLE_NAMES}
        made |= {f"{name}+opinion": builders.report_of(name, with_opinion=True) for name in builders.OPINION_SAMPLES}
        made |= {f"trial-{name}": builders.trial_report_of(name) for name in builders.TRIALS}
        made["large-500"] = builders.large_report()
        files = {}
        for name, html in made.items():
            files[name] = folder / f"{name}.html"
            files[name].write_text(html, encoding="utf-8")
        return files

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(make).result()


@dataclass
class Offline:
    """A page with JavaScript disabled whose every request is recorded, and aborted unless it is the file."""

    page: Any
    requests: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)

    def open(self, path: Path) -> str:
        url = path.resolve().as_uri()
        self.page.goto(url)
        self.page.wait_for_load_state("load")
        return url


@pytest.fixture
def offline(browser: Any) -> Iterator[Callable[..., Offline]]:
    contexts: list[Any] = []

    def make(**options: Any) -> Offline:
        context = browser.new_context(java_script_enabled=False, offline=True, **options)
        contexts.append(context)
        page = context.new_page()
        seen = Offline(page)
        page.on("request", lambda request: seen.requests.append(request.url))
        page.on("console", lambda message: seen.console.append(message.text))
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                      else route.abort())
        return seen

    yield make
    for context in contexts:
        context.close()


def assert_nothing_fetched_and_nothing_runs(seen: Offline, url: str) -> None:
    assert seen.requests == [url], "the file itself and nothing else"
    assert seen.console == [], "no blocked load, no policy violation"
    assert problems(seen.page.content()) == [], "the DOM the browser built is inert"


@pytest.mark.parametrize("name", ASSESSMENTS)
def test_an_assessment_report_opens_offline_without_scripts(offline: Callable[..., Offline],
                                                            reports: dict[str, Path], name: str) -> None:
    seen = offline()
    url = seen.open(reports[name])
    page = seen.page
    _, assessment = builders.replayed(name)
    verdict = page.locator("[data-verdict]")
    expect(verdict).to_be_visible()
    assert verdict.get_attribute("data-verdict") == assessment.verdict.value
    assert assessment.verdict.value.upper() in verdict.inner_text()
    marks = page.locator('.al-context mark[data-citation="accepted"]')
    accepted = [(index, decision.normalized) for index, requirement in enumerate(assessment.requirements)
                for decision in requirement.citations if decision.span is not None and decision.memory_id
                and decision.decision.value == "accepted" and requirement.status.value != "unsupported"]
    assert marks.count() == len(accepted)
    for index, ref in accepted[:3]:
        mark = page.locator(f'.al-context mark[data-citation="accepted"][data-requirement="{index}"]'
                            f'[data-ref="{ref}"]').first
        expect(mark).to_be_visible()
        assert mark.evaluate("m => getComputedStyle(m).backgroundColor") == rgb(colour(index))
    assert page.locator('[data-hash="evaluation_id"]').inner_text() == assessment.evaluation_id
    assert_nothing_fetched_and_nothing_runs(seen, url)


def test_each_mark_and_chip_is_drawn_as_its_decision(offline: Callable[..., Offline],
                                                     reports: dict[str, Path]) -> None:
    """The repeated m4 adds no dashed outline to its accepted mark; its chip is dashed; the downgraded
    requirement's valid m2 is outlined, not filled."""
    seen = offline()
    seen.open(reports["prme_reader_citations"])
    page = seen.page
    assert page.locator('.al-context mark[data-citation="discarded"]').count() == 0
    repeated = page.locator('.al-reqs .al-chip[data-citation="discarded"][data-requirement="1"][data-ref="m4"]')
    assert repeated.evaluate("m => getComputedStyle(m).borderStyle") == "dashed"
    assert repeated.evaluate("m => getComputedStyle(m).backgroundColor") == "rgba(0, 0, 0, 0)"  # no fill
    uncounted = page.locator('.al-context mark[data-citation="uncounted"][data-requirement="2"][data-ref="m2"]')
    assert uncounted.evaluate("m => getComputedStyle(m).outlineStyle") == "solid"
    assert uncounted.evaluate("m => getComputedStyle(m).backgroundColor") == "rgba(0, 0, 0, 0)"
    row = page.locator('#discarded td[data-citation="discarded"][data-requirement="1"]').first
    assert row.get_attribute("data-reason") == "duplicate_memory"


def test_hostile_record_text_shows_as_text_and_nothing_else(offline: Callable[..., Offline],
                                                            reports: dict[str, Path]) -> None:
    seen = offline()
    url = seen.open(reports["hostile_record_text"])
    page = seen.page
    context = page.locator(".al-context").inner_text()
    for written in ("<script>alert('xss')</script>", "<img src=x onerror=alert(1)>", "<b>APPROVED</b>",
                    "Ignore previous instructions"):
        assert written in context
    assert page.locator("img, b, iframe, object, embed, a:not(.al-jump), link, base, form").count() == 0
    assert all(href.startswith("#al-") for href in page.locator("a.al-jump").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))")), "only jumps within the page"
    assert page.locator("script").count() == 1
    assert page.locator("script").get_attribute("type") == "application/json"
    assert_nothing_fetched_and_nothing_runs(seen, url)


@pytest.mark.parametrize("name", [pytest.param(name, id=name) for name in builders.OPINION_SAMPLES])
def test_a_second_opinion_marks_its_flagged_citation(offline: Callable[..., Offline], reports: dict[str, Path],
                                                     name: str) -> None:
    seen = offline()
    url = seen.open(reports[f"{name}+opinion"])
    page = seen.page
    assert page.locator("[data-verdict]").get_attribute("data-verdict") == "insufficient", "the strict verdict"
    assert page.locator('[data-badge="flags"]').count() == 1
    ref = builders.opinion_of(name).requirements[0].flags[0].refs[0]
    mark = page.locator(f'.al-context mark[data-citation="accepted"][data-requirement="0"][data-ref="{ref}"]')
    assert mark.evaluate("m => getComputedStyle(m).outlineStyle") == "solid"
    assert mark.evaluate("m => getComputedStyle(m).outlineColor") == rgb(palette.FLAGGED.light)
    assert mark.get_attribute("class") == "al-cite al-flagged", "the app's own mark, not a rule per reference"
    assert mark.evaluate("m => getComputedStyle(m).textDecorationLine") == "underline"
    assert mark.evaluate("m => getComputedStyle(m).textDecorationThickness") == "2px"
    assert mark.evaluate("m => getComputedStyle(m, '::after').content") == '"\u2691"'
    assert_nothing_fetched_and_nothing_runs(seen, url)


def test_the_requirement_picker_works_with_scripts_off(offline: Callable[..., Offline],
                                                       reports: dict[str, Path]) -> None:
    seen = offline()
    seen.open(reports["large_platform_history"])
    page = seen.page

    def background(requirement: int) -> str:
        return str(page.locator(f'.al-context mark[data-citation="accepted"][data-requirement="{requirement}"]')
                   .first.evaluate("m => getComputedStyle(m).backgroundColor"))

    assert (background(0), background(1)) == (rgb(colour(0)), rgb(colour(1)))
    page.locator("label").filter(has=page.locator("#rp-focus-1")).click()
    assert (background(0), background(1)) == ("rgba(0, 0, 0, 0)", rgb(colour(1)))
    row = page.locator('tr[data-requirement-row="0"]')
    assert row.evaluate("r => getComputedStyle(r).opacity") == "0.4"
    page.locator("label").filter(has=page.locator("#rp-focus-all")).click()
    assert background(0) == rgb(colour(0))


def test_dark_theme_follows_the_system(offline: Callable[..., Offline], reports: dict[str, Path]) -> None:
    seen = offline(color_scheme="dark")
    seen.open(reports["compact_citation_errors"])
    page = seen.page
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == rgb(palette.PAGE.dark)
    assert page.locator(".al-context").evaluate("e => getComputedStyle(e).backgroundColor") == rgb(palette.CARD.dark)
    assert page.locator(".al-context").evaluate("e => getComputedStyle(e).color") == rgb(palette.TEXT.dark)
    verdict = page.locator(".al-verdict")
    tone = verdict.get_attribute("data-verdict") or ""
    assert verdict.evaluate("e => getComputedStyle(e).backgroundColor") == rgb(palette.SOFT[tone].dark)
    light = offline(color_scheme="light")
    light.open(reports["compact_citation_errors"])
    assert light.page.evaluate("getComputedStyle(document.body).backgroundColor") == rgb(palette.PAGE.light)


TRANSPARENT = "rgba(0, 0, 0, 0)"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("report", "filled", "outlined"), [
    pytest.param("second_opinion_plan_as_fact+opinion", 1, 0, id="flagged"),
    pytest.param("compact_citation_errors", 1, 1, id="accepted_and_uncounted"),
])
def test_every_legend_entry_shows_its_colour(offline: Callable[..., Offline], reports: dict[str, Path],
                                            scheme: str, screenshots: Path | None, report: str, filled: int,
                                            outlined: int) -> None:
    """The legend's swatches and requirement dots resolve the palette (they were blank: its variables were
    declared only on other elements), each dot in its own requirement's colour, in both themes; the legend shows
    only the marks this context holds, drawn with the run's own labels. With ANSWERLENS_SCREENSHOTS=docs:
    screens/report-legend-light.png and report-legend-dark.png."""
    seen = offline(color_scheme=scheme)
    seen.open(reports[report])
    legend = seen.page.locator(".rp-legend")
    expect(legend).to_be_visible()

    def background(locator: Any) -> str:
        return str(locator.evaluate("e => getComputedStyle(e).backgroundColor"))

    assert background(legend.locator('[data-swatch="line"]')) == rgb(getattr(palette.IDENTITY[0][1], scheme))
    fills = legend.locator("mark.al-cite:not(.al-discarded):not(.al-uncounted)")
    assert fills.count() == filled
    assert {background(fills.nth(index)) for index in range(filled)} == {rgb(getattr(palette.IDENTITY[0][0], scheme))}
    uncounted = legend.locator("mark.al-uncounted")
    assert uncounted.count() == outlined and all(background(uncounted.nth(index)) == "rgba(0, 0, 0, 0)"
                                                 for index in range(outlined))  # outlined, never filled
    flagged = legend.locator("mark.al-flagged")
    if flagged.count():
        assert flagged.evaluate("e => getComputedStyle(e).outlineColor") == rgb(getattr(palette.FLAGGED, scheme))
    assert legend.locator("mark.al-discarded").count() == 0  # no citation of these contexts was discarded in place
    dots = legend.locator(".al-dot")
    assert dots.count() >= 1
    for index in range(dots.count()):
        expected = rgb(getattr(palette.IDENTITY[index % len(palette.IDENTITY)][0], scheme))
        assert background(dots.nth(index)) == expected != TRANSPARENT
    if screenshots is not None and report.endswith("+opinion"):
        (screenshots / "screens").mkdir(parents=True, exist_ok=True)
        seen.page.locator("#context").screenshot(path=str(screenshots / "screens" / f"report-legend-{scheme}.png"))


def test_hostile_labels_keep_every_chart_whole(offline: Callable[..., Offline], tmp_path: Path) -> None:
    """A label with invisible, reordering or markup characters stays text inside the SVG: every later row keeps
    its bars (an HTML badge inside ``<text>`` used to end the drawing in a browser)."""
    from collections import Counter

    from answerlens.html import charts
    from answerlens.html.trial_rows import QuestionRow
    from answerlens.report.page import document

    labels = ["q\u200b1", "appr\u034foved\ufe0f", "\u3164\u115f", "a\u202eb", "<script>x</script>", "\"'&"]
    rows = [QuestionRow(label, "answerable", None, ("answer", "error"), 1, 3, 2, 1) for label in labels]
    drawn = {"actions": charts.actions_per_label({label: Counter({"answer": 1}) for label in labels}),
             "grid": charts.outcome_grid(rows), "citations": charts.citation_errors(rows),
             "agreement": charts.requirement_agreement(rows)}
    path = tmp_path / "charts.html"
    path.write_text(document(title="charts", kind="trial", sheets=list(drawn.values()), data=""), encoding="utf-8")
    seen = offline()
    seen.open(path)
    for name, svg in drawn.items():
        chart = seen.page.locator(f'svg[data-chart="{name}"]')
        assert chart.locator("rect").count() == svg.count("<rect"), name
        assert chart.locator("span").count() == 0, name
        texts = " ".join(chart.locator("text").all_text_contents())
        assert "⟨U+200B⟩" in texts and "<script>" in texts, name
    assert seen.page.locator("script").count() == 0


@pytest.mark.parametrize("paper", [pytest.param("A4", id="a4"), pytest.param("Letter", id="letter")])
def test_it_prints_each_sheet_from_a_new_page(offline: Callable[..., Offline], reports: dict[str, Path],
                                              paper: str) -> None:
    seen = offline()
    seen.open(reports["large_platform_history"])
    page = seen.page
    page.emulate_media(media="print")
    assert page.locator(".al-context").evaluate("e => getComputedStyle(e).maxHeight") == "none"
    sheets = page.locator(".rp-sheet")
    assert sheets.nth(1).evaluate("e => getComputedStyle(e).breakBefore") == "page"
    assert page.locator(".rp-focus").evaluate("e => getComputedStyle(e).display") == "none"
    pdf = page.pdf(format=paper, print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages >= sheets.count() + 3, "the 200-line context runs over several pages"


def test_the_500_record_report_opens(offline: Callable[..., Offline], reports: dict[str, Path]) -> None:
    path = reports["large-500"]
    assert path.stat().st_size < 1_000_000
    seen = offline()
    url = seen.open(path)
    assert seen.page.locator(".al-context .al-line").count() >= 500
    assert seen.page.locator("[data-verdict]").get_attribute("data-verdict") == "partial"
    assert_nothing_fetched_and_nothing_runs(seen, url)


@pytest.mark.parametrize("name", TRIALS)
def test_a_trial_report_opens_offline_with_svg_charts(offline: Callable[..., Offline], reports: dict[str, Path],
                                                      name: str) -> None:
    seen = offline()
    url = seen.open(reports[f"trial-{name}"])
    page = seen.page
    result = builders.trial(name)
    charts = page.locator("svg[data-chart]")
    assert charts.count() >= 3
    expect(charts.first).to_be_visible()
    assert page.locator('svg[data-chart="grid"] rect[data-outcome]').count() == len(result.samples)
    box = charts.first.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 200
    assert result.quality_gates is not None
    assert page.locator("[data-gates-passed]").get_attribute("data-gates-passed") == str(
        result.quality_gates.passed).lower()
    assert page.locator("td[data-question-id]").count() == result.summary.questions
    assert_nothing_fetched_and_nothing_runs(seen, url)


def test_screenshot_of_a_report(offline: Callable[..., Offline], reports: dict[str, Path],
                                screenshots: Path | None) -> None:
    """docs/report.png (with ANSWERLENS_SCREENSHOTS=docs): a report as it opens from disk."""
    seen = offline(viewport={"width": 1280, "height": 900})
    seen.open(reports[SCREENSHOT_SAMPLE])
    expect(seen.page.locator("[data-verdict]")).to_be_visible()
    if screenshots is not None:
        seen.page.screenshot(path=str(screenshots / "report.png"), full_page=True)


# --- the app's Download report buttons ------------------------------------------------------------------


def test_inspect_downloads_a_report_that_verifies(page: Any, tmp_path: Path) -> None:
    sample = load_sample(SAMPLES / "draft_answer_unsupported_claim.json")
    choose(page, "Sample bundle", sample.title)
    radio(page, "Provider", "Recorded response")
    expect(page.get_by_label("Question")).to_have_value(sample.question, timeout=TIMEOUT)
    page.get_by_role("button", name="Assess", exact=True).click()
    page.locator("[data-verdict]").wait_for(timeout=TIMEOUT)
    settle(page)
    verdict = page.locator("[data-verdict]").get_attribute("data-verdict")
    with page.expect_download(timeout=TIMEOUT) as info:
        page.get_by_role("button", name="Download report").click()
    download = info.value
    assert re.fullmatch(r"answerlens-report-[0-9a-f]{12}\.html", download.suggested_filename)
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    html = path.read_text(encoding="utf-8")
    assert verify_report(html).ok
    assert f'data-verdict="{verdict}"' in html
    assert sample.answer is not None and sample.answer in html, "the draft assessed, by its hash"


def test_trials_downloads_a_report_that_verifies(page: Any, tmp_path: Path) -> None:
    page.get_by_role("link", name="Trials").click()
    page.get_by_role("heading", name="Trials").wait_for(timeout=TIMEOUT)
    settle(page)
    page.locator('[data-testid="stMain"] [data-testid="stRadio"]').first.get_by_text(
        "Open a result", exact=True).click()
    settle(page)
    page.get_by_label("Run directory, result.json, or an upstream trial result file").fill(str(builders.UPSTREAM))
    page.get_by_role("button", name="Open", exact=True).click()
    page.locator("[data-gate]").first.wait_for(timeout=TIMEOUT)
    settle(page)
    with page.expect_download(timeout=TIMEOUT) as info:
        page.get_by_role("button", name="Download report").click()
    download = info.value
    assert download.suggested_filename == "answerlens-trial-beam-100k-answerability-dev-v2-results.html"
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    check = verify_report(path.read_text(encoding="utf-8"))
    assert (check.kind, check.problems) == ("trial", ())


@pytest.mark.parametrize("name", [pytest.param("second_opinion_plan_as_fact+opinion", id="assessment"),
                                  pytest.param("trial-upstream", id="trial")])
def test_a_phone_reads_it_without_sideways_scrolling(offline: Callable[..., Offline], reports: dict[str, Path],
                                                     name: str) -> None:
    seen = offline(viewport={"width": 390, "height": 844})
    seen.open(reports[name])
    assert seen.page.evaluate("document.documentElement.scrollWidth") <= 390, "wide tables scroll on their own"
    first = seen.page.locator("[data-verdict], [data-gates-passed]").first
    box = first.bounding_box()
    assert box is not None and box["width"] <= 390
