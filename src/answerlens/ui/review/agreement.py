"""The judge against people, drawn (pure HTML): the figures with their interval or why there is none, the confusion
matrix judge × people with the unsafe cell marked, base rates and per-verdict precision and recall, people against
people, and the labels that count nowhere (void, or not in this source). Shared by the Review and Trials pages."""

from __future__ import annotations

from collections.abc import Sequence

from answerlens.html.escape import esc
from answerlens.html.markup import cell, notice_html, plural, table_html
from answerlens.review.agreement import VERDICTS, Agreement, Figures
from answerlens.verdict import AnswerabilityVerdict


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def kappa_text(figures: Agreement | Figures) -> str:
    """``κ 0.62 (95% interval 0.31–0.93)``, or why κ is undefined."""
    if figures.kappa is None or figures.kappa_ci is None:
        return f"κ {figures.kappa_undefined}"
    return f"κ {figures.kappa:.2f} (95% interval {figures.kappa_ci[0]:.2f} to {figures.kappa_ci[1]:.2f})"


def summary_html(result: Agreement, *, void: int = 0, unmatched: int = 0) -> str:
    """One line of figures, and a warning when they rest on too few labels."""
    agreed = sum(result.confusion[verdict.value][verdict.value] for verdict in VERDICTS)
    left_out = [text for count, text in ((void, f"{plural(void, 'label')} void"),
                                         (unmatched, f"{plural(unmatched, 'label')} not in this source")) if count]
    extra = f" · {' · '.join(left_out)} (counted nowhere)" if left_out else ""
    line = (f'<div data-agreement="summary" data-n="{result.n}"><strong>{plural(result.n, "label")}</strong> · '
            f"raw agreement {_percent(result.agreement)} ({agreed} of {result.n}) · {esc(kappa_text(result))}"
            f"{esc(extra)}</div>")
    if result.too_few:
        line += notice_html("warning", f"Too few labels (under {result.min_labels})",
                            "With this few labels the agreement and κ can swing widely.",
                            "label more runs before relying on these figures")
    return line


def confusion_html(result: Agreement) -> str:
    """Rows: the judge's verdict; columns: the people's; the unsafe cells (judge answer or answer partially,
    people insufficient) carry ``data-unsafe``."""
    head = ["judge ↓ / people →", *(verdict.value for verdict in VERDICTS)]
    rows = []
    for judge in VERDICTS:
        cells = [f"<th>{esc(judge.value)}</th>"]
        for human in VERDICTS:
            count = result.confusion[judge.value][human.value]
            unsafe = human is AnswerabilityVerdict.INSUFFICIENT and judge in (AnswerabilityVerdict.ANSWERABLE,
                                                                              AnswerabilityVerdict.PARTIAL)
            attrs = [f'data-cell="{judge.value}:{human.value}"']
            if unsafe:
                attrs.append('data-unsafe="true" title="unsafe: the judge answered, people found it insufficient"')
            if judge is human:
                attrs.append('data-agree="true"')
            cells.append(cell(count, " ".join(attrs)))
        rows.append("".join(cells))
    return f'<div data-agreement="confusion">{table_html(head, rows)}</div>'


def classes_html(result: Agreement) -> str:
    """Base rates, and precision and recall per verdict (people's label taken as the truth)."""
    rows = [cell(item.verdict.value) + cell(_percent(item.judge_rate)) + cell(_percent(item.human_rate))
            + cell(_percent(item.precision), f'title="{esc(item.precision_undefined or "")}"')
            + cell(_percent(item.recall), f'title="{esc(item.recall_undefined or "")}"') for item in result.classes]
    table = table_html(["verdict", "judge says it", "people say it", "precision", "recall"], rows)
    return f'<div data-agreement="classes">{table}</div>'


def unsafe_html(result: Agreement, links: Sequence[str] = ()) -> str:
    """The unsafe cell's count and each case (``links``: the same cases as HTML links, when the page has them)."""
    cases = links or [esc(case) for case in result.unsafe.cases]
    items = "".join(f"<li>{case}</li>" for case in cases)
    return (f'<div data-agreement="unsafe" data-count="{result.unsafe.count}"><strong>Unsafe</strong> (judge '
            f"answerable or partial, people insufficient): {result.unsafe.count}"
            + f' <span class="al-muted" data-agreement="unsafe-full" data-count="{result.unsafe_full.count}">· of '
            f"which answered in full: {result.unsafe_full.count}</span>"
            + (f"<ul>{items}</ul>" if items else "") + "</div>")


def humans_html(result: Agreement) -> str:
    humans = result.humans
    if not humans.pairs:
        return ('<div class="al-muted" data-agreement="humans">People with people: no run is labelled by two '
                "reviewers yet.</div>")
    rows = [cell(f"{pair.reviewers[0]} – {pair.reviewers[1]}") + cell(pair.figures.n)
            + cell(_percent(pair.figures.agreement)) + cell(kappa_text(pair.figures)) for pair in humans.by_reviewers]
    return (f'<div data-agreement="humans">People with people: {plural(humans.items, "run")} labelled by several '
            f"reviewers, {plural(humans.pairs, 'pair')}, agreement {_percent(humans.agreement)}"
            f'{table_html(["reviewers", "shared", "agreement", "κ"], rows)}</div>')


def left_out_html(lines: Sequence[str]) -> str:
    """The labels that count nowhere, one line each with why."""
    if not lines:
        return ""
    items = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return f'<div data-agreement="void"><strong>Not counted</strong><ul>{items}</ul></div>'
