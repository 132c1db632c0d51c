"""The Trials page's four charts as static inline SVG (pure): actions per label, the question × repeat grid,
citation errors per question, requirement agreement across repeats. Drawn here rather than by plotly, whose
static export needs extra packages and whose inline script alone weighs 4.8 MB; each chart is a few kB.

Colours are the palette's (the Trials page's plotly charts use the same), names the Trials page's; text uses
``currentColor`` so the charts follow the page's theme, and every mark carries a ``<title>`` (a tooltip with no
script). Every label is escaped for SVG (``esc_svg(..., svg=True)``): an HTML badge inside ``<text>`` would end the
drawing."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from answerlens.html import palette
from answerlens.html.escape import esc
from answerlens.html.trial_rows import ACTIONS, OUTCOME_NAMES, QuestionRow

AGREEMENT_PARTS = (("same status in every repeat", palette.AGREEMENT["same"]),
                   ("status changed between repeats", palette.AGREEMENT["changed"]),
                   ("text in one repeat only (not matched)", palette.AGREEMENT["unmatched"]))
WIDTH = 520
ROW = 20
FONT = 11


def actions_per_label(groups: Mapping[str, Counter[str]]) -> str:
    """Stacked bars: one bar per label, one segment per outcome, the count written inside when it fits."""
    labels = list(groups)
    top = _nice_max(max((sum(groups[label].values()) for label in labels), default=0))
    left, plot_h, base = 40, 220, 240
    band = (WIDTH - left - 10) / max(len(labels), 1)
    parts = _grid_y(left, base, plot_h, top)
    for slot, label in enumerate(labels):
        x, y = left + slot * band + band * 0.2, float(base)
        for outcome in ACTIONS:
            count = groups[label][outcome]
            if not count:
                continue
            height = plot_h * count / top
            y -= height
            parts.append(_rect(x, y, band * 0.6, height, palette.OUTCOMES[outcome],
                               f"{label}: {count} {OUTCOME_NAMES[outcome]}", data=f'data-outcome="{outcome}"'))
            if height >= FONT + 2:
                parts.append(_text(x + band * 0.3, y + height / 2 + 4, str(count), anchor="middle",
                                   fill=palette.SOLID_TEXT))
        parts.append(_text(left + slot * band + band / 2, base + 16, label, anchor="middle"))
    used = [outcome for outcome in ACTIONS if any(groups[label][outcome] for label in labels)]
    legend, height = _legend([(OUTCOME_NAMES[o], palette.OUTCOMES[o]) for o in used], base + 30)
    return _svg("actions", height, [*parts, _text(4, 12, "samples", size=10), *legend],
                "Actions per label: samples per recommended action (errors apart)")


def outcome_grid(rows: Sequence[QuestionRow]) -> str:
    """Question × repeat: one square per sample in its outcome's colour; an empty cell has no sample."""
    width = max((len(row.outcomes) for row in rows), default=1)
    left = _label_width(row.question_id for row in rows)
    cell = min(22, (WIDTH - left - 10) // max(width, 1))
    parts = [_text(left + index * cell + cell / 2, 12, str(index), anchor="middle", size=10)
             for index in range(width)]
    for line, row in enumerate(rows):
        y = 20 + line * ROW
        parts.append(_label(left - 6, y + ROW / 2 + 4, row.question_id))
        for repeat, outcome in enumerate(row.outcomes):
            if outcome is None:
                continue
            parts.append(_rect(left + repeat * cell + 1, y + 1, cell - 2, ROW - 2, palette.OUTCOMES[outcome],
                               f"{row.question_id} · repeat {repeat}: {OUTCOME_NAMES[outcome]}",
                               data=f'data-outcome="{outcome}"'))
    seen = [o for o in ACTIONS if any(o in row.outcomes for row in rows)]
    legend, height = _legend([(OUTCOME_NAMES[o], palette.OUTCOMES[o]) for o in seen], 30 + len(rows) * ROW)
    return _svg("grid", height, [_text(left, 12, "repeat", anchor="end", size=10), *parts, *legend],
                "Action per question and repeat")


def citation_errors(rows: Sequence[QuestionRow]) -> str:
    """Horizontal bars: citation errors per question over all repeats, only for questions that have any."""
    chosen = [row for row in rows if row.citation_errors]
    bars = [(row.question_id,
             [(row.citation_errors, palette.CITATION_ERROR, f"{row.citation_errors} citation error(s)")])
            for row in chosen]
    return _hbars("citations", bars, [], "citation errors over all repeats",
                  f"Citation errors per question ({len(rows) - len(chosen)} of {len(rows)} have none)")


def requirement_agreement(rows: Sequence[QuestionRow]) -> str:
    """Stacked horizontal bars per question: requirements that kept one status across repeats, that changed,
    and that occurred in one repeat only."""
    bars = []
    for row in rows:
        values = (row.agreeing, row.matched - row.agreeing, row.requirements - row.matched)
        bars.append((row.question_id, [(value, colour, f"{value} {name}")
                                       for value, (name, colour) in zip(values, AGREEMENT_PARTS, strict=True)]))
    return _hbars("agreement", bars, list(AGREEMENT_PARTS), "requirements",
                  "Per-requirement agreement across repeats")


def _hbars(name: str, bars: Sequence[tuple[str, Sequence[tuple[int, str, str]]]],
           legend_items: Sequence[tuple[str, str]], axis: str, label: str) -> str:
    left = _label_width(question for question, _ in bars)
    top = _nice_max(max((sum(value for value, _, _ in segments) for _, segments in bars), default=0))
    span = WIDTH - left - 16
    base = 10 + len(bars) * ROW
    parts = _grid_x(left, span, 10, base, top)
    for line, (question, segments) in enumerate(bars):
        y, x = 10 + line * ROW, float(left)
        parts.append(_label(left - 6, y + ROW / 2 + 4, question))
        for value, colour, title in segments:
            if value:
                width = span * value / top
                parts.append(_rect(x, y + 3, width, ROW - 6, colour, f"{question}: {title}"))
                x += width
    parts.append(_text(left + span / 2, base + 30, axis, anchor="middle", size=10))
    legend, height = _legend(legend_items, base + 42) if legend_items else ([], base + 40)
    return _svg(name, height, [*parts, *legend], label)


def _nice_max(value: float) -> float:
    """The smallest 1, 2 or 5 × 10^k (at least 1) that the largest value fits under."""
    if value <= 1:
        return 1
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return float(step * power)
    return float(10 * power)  # pragma: no cover - the loop always returns


def _ticks(top: float) -> list[float]:
    step = top / 5 if top >= 5 else 1.0
    return [step * index for index in range(int(round(top / step)) + 1)]


def _grid_y(left: float, base: float, height: float, top: float) -> list[str]:
    out = []
    for tick in _ticks(top):
        y = base - height * tick / top
        out.append(f'<line x1="{left}" x2="{WIDTH - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="currentColor" '
                   'stroke-opacity="0.15"/>')
        out.append(_text(left - 4, y + 4, _number(tick), anchor="end", size=10))
    return out


def _grid_x(left: float, span: float, top_y: float, base: float, top: float) -> list[str]:
    out = []
    for tick in _ticks(top):
        x = left + span * tick / top
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top_y}" y2="{base}" stroke="currentColor" '
                   'stroke-opacity="0.15"/>')
        out.append(_text(x, base + 14, _number(tick), anchor="middle", size=10))
    return out


def _legend(items: Sequence[tuple[str, str]], y: float) -> tuple[list[str], float]:
    """Swatches and names, wrapped onto as many lines as needed; returns the parts and the height used."""
    parts, x, line = [], 4.0, 0
    for name, colour in items:
        width = 17 + 5.8 * len(name) + 12
        if x + width > WIDTH and x > 4:
            x, line = 4.0, line + 1
        row_y = y + line * 18
        parts += [f'<rect x="{x:.1f}" y="{row_y:.1f}" width="12" height="12" rx="2" fill="{colour}"/>',
                  _text(x + 17, row_y + 10, name)]
        x += width
    return parts, y + (line + 1) * 18 + 4


def _label_width(labels: Iterable[str]) -> int:
    longest = max((len(label) for label in labels), default=4)
    return min(240, 16 + 6 * min(longest, 36))


def _label(x: float, y: float, text: str) -> str:
    shown = text if len(text) <= 36 else text[:35] + "…"
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{FONT}" text-anchor="end" fill="currentColor">' \
           f"<title>{esc_svg(text)}</title>{esc_svg(shown)}</text>"


def _text(x: float, y: float, text: str, *, anchor: str = "start", size: int = FONT, fill: str = "currentColor") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}">'
            f"{esc_svg(text)}</text>")


def _rect(x: float, y: float, width: float, height: float, colour: str, title: str, *, data: str = "") -> str:
    extra = f" {data}" if data else ""
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" fill="{colour}"{extra}>'
            f"<title>{esc_svg(title)}</title></rect>")


def _svg(name: str, height: float, parts: Sequence[str], label: str) -> str:
    return (f'<svg class="rp-chart" data-chart="{name}" viewBox="0 0 {WIDTH} {math.ceil(height)}" width="{WIDTH}" '
            f'height="{math.ceil(height)}" role="img" aria-label="{esc_svg(label)}" font-family="system-ui,sans-serif">'
            + "".join(parts) + "</svg>")


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def esc_svg(value: object) -> str:
    return esc(value, svg=True)
