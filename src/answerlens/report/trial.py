"""The trial report: configuration (never a secret), headline numbers, the gates with pass/fail, the Trials
page's charts as inline SVG, the error samples and the per-question table. The numbers and rows come from
the Trials page's own view-model (``html.trial_rows``, pure)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from answerlens.html import charts, palette
from answerlens.html import trial_rows as trial_view
from answerlens.html.escape import esc
from answerlens.html.markup import caveats_html, cell, notice_html, outcome_cell, table_html
from answerlens.html.trial_rows import QuestionRow
from answerlens.local_model import WIRING_MARK, wiring_check
from answerlens.report.page import cards, header, key_values, muted, section
from answerlens.trials.result import TrialResult

SHORT = {"answer": "answer", "answer_partially": "partial", "abstain": "abstain", "surface_conflict": "conflict",
         trial_view.ERROR: "error"}
_SECRET_WORDS = frozenset({"key", "secret", "password", "passwd", "token", "authorization", "credential",
                           "credentials", "cookie", "bearer"})
HIDDEN = "(not shown: may hold a secret)"
MAX_LISTED = 12
"""A nested block with more entries is summarised by its size in the configuration table."""


def title(result: TrialResult, source: str | None) -> str:
    return f"answerlens · trial · {source or trial_view.KIND_LABELS[result.kind]}"


def sheets(result: TrialResult, source: str | None, problems: Sequence[str], generator: str,
           caveats: Sequence[str] = ()) -> list[str]:
    """Printed pages: configuration, numbers and gates; the charts; the questions."""
    refs = trial_view.samples(result)
    rows = trial_view.questions(result, refs)
    first = "\n".join([_header(result, source, generator), _checks(result, problems), caveats_html(caveats),
                       _configuration(result),
                       _summary(result), _gates(result)])
    return [first, _charts(rows, refs), "\n".join([_errors(result), _questions(result, rows)])]


def _header(result: TrialResult, source: str | None, generator: str) -> str:
    s = result.summary
    origin = f" from {source}" if source else ""
    ids = [("kind", result.kind.value), ("samples", f"{s.samples} assessed, {s.error_samples} error(s)")]
    if result.configuration_sha256:
        ids.append(("configuration_sha256", result.configuration_sha256))
    if result.dataset_sha256:
        ids.append(("dataset_sha256", result.dataset_sha256))
    config = result.configuration
    wiring = f" {WIRING_MARK.capitalize()}." if config is not None and wiring_check(config.provider, config.model) \
        else ""
    made = f"{trial_view.KIND_LABELS[result.kind]}, made with {generator}{origin}.{wiring}"
    return header("answerlens report: trial", made, ids,
                  "This file carries the whole result (every sample with its assessment) as data. Checking "
                  "the file verifies every assessment, recomputes the summary and the gates from the samples, "
                  "and confirms that this page is exactly what they render to:")


def _checks(result: TrialResult, problems: Sequence[str]) -> str:
    parts = []
    if result.summary_matches is not None:
        matches = result.summary_matches
        parts.append(notice_html("ok" if matches else "error", "The summary recomputed from the samples "
                                 + ("matches the published one" if matches else "DIFFERS from the published one")))
    if problems:
        parts.append(notice_html("error", f"The embedded result does not verify ({len(problems)} problem(s))",
                                 remedy="do not rely on this report; re-create it from the original result",
                                 code="\n".join(problems)))
    else:
        parts.append(notice_html("ok", "The embedded result verifies",
                                 f"{len(result.samples)} samples read back as recorded, every assessment verified "
                                 "(hashes, verdicts, and every decision its raw reply gives), summary and gates "
                                 "recomputed from the samples. Not checked here: the citations against each case's "
                                 "exact context and the labels against the dataset (the report holds neither: "
                                 "answerlens verify RUN_DIR --dataset FILE checks both)."))
    return "\n".join(parts)


def _configuration(result: TrialResult) -> str:
    rows: list[tuple[str, Any]] = []
    if result.dataset is not None:
        rows += [("dataset", result.dataset.path), ("dataset sha256", result.dataset.sha256),
                 ("cases", result.dataset.cases)]
    if result.configuration is not None:
        rows += list(_flat(result.configuration.public_dump(), ""))
    for name in ("configuration_sha256", "prompt_version", "prompt_sha256", "repeats", "concurrency",
                 "finished_at", "wall_seconds"):
        value = getattr(result, name)
        if value is not None:
            rows.append((name, value))
    if result.upstream is not None:
        rows += list(_flat(result.upstream.model_dump(mode="json", exclude={"summary"}), ""))
    return section("configuration", "Configuration", key_values(rows, attribute="data-config"),
                   muted("API keys are never part of a result; any field whose name suggests a secret is not shown."))


def _flat(values: Mapping[str, Any], prefix: str) -> Iterator[tuple[str, Any]]:
    """Nested settings as ``a.b`` rows; a field whose name suggests a secret is replaced by a note, and a long
    listing (upstream's per-file hashes) by its size."""
    for name, value in values.items():
        key = f"{prefix}{name}"
        if set(re.split(r"[_\-.\s]+", name.lower())) & _SECRET_WORDS:
            yield key, HIDDEN
        elif isinstance(value, Mapping) and len(value) > MAX_LISTED:
            yield key, f"{len(value)} entries (kept in the embedded data)"
        elif isinstance(value, Mapping):
            yield from _flat(value, f"{key}.")
        elif value is not None:
            yield key, value if not isinstance(value, list) else ", ".join(map(str, value))


def _summary(result: TrialResult) -> str:
    numbers = [(stat.label, stat.value, "; ".join(part for part in (stat.note, stat.help) if part) or None)
               for stat in trial_view.stats(result)]
    return section("summary", "Summary", cards(numbers))


def _gates(result: TrialResult) -> str:
    rows = trial_view.gate_rows(result.quality_gates)
    if not rows:
        return section("gates", "Gates", notice_html("info", "This result has no gates"))
    failed = [row for row in rows if not row.passed]
    verdict = (f"All {len(rows)} gates pass" if not failed else f"{len(failed)} of {len(rows)} gates fail: "
               + ", ".join(row.name for row in failed))
    body = [cell(row.name) + cell(trial_view.number(row.observed), 'data-observed=""') + cell(row.rule)
            + outcome_cell("pass" if row.passed else "FAIL", row.passed,
                           f'data-gate="{esc(row.name)}" data-passed="{str(row.passed).lower()}"')
            for row in rows]
    return section("gates", "Gates",
                   f'<div data-gates-passed="{str(not failed).lower()}">'
                   f'{notice_html("error" if failed else "ok", verdict, trial_view.GATES_SOURCE[result.kind])}</div>',
                   table_html(["gate", "observed", "required", ""], body))


def _charts(rows: Sequence[QuestionRow], refs: Sequence[trial_view.SampleRef]) -> str:
    figures = [("Actions per label", charts.actions_per_label(trial_view.outcome_groups(refs))),
               ("Action per question and repeat", charts.outcome_grid(rows))]
    if any(row.citation_errors for row in rows):
        figures.append(("Citation errors per question", charts.citation_errors(rows)))
    else:
        figures.append(("Citation errors", notice_html("ok", "No citation errors",
                                                       "no sample cited a token outside its context")))
    if trial_view.repeats(refs) < 2:
        figures.append(("Per-requirement agreement",
                        notice_html("info", "Per-requirement agreement needs two repeats or more")))
    else:
        figures.append(("Per-requirement agreement across repeats", charts.requirement_agreement(rows)))
    body = "".join(f"<figure><figcaption>{esc(caption)}</figcaption>{figure}</figure>" for caption, figure in figures)
    return section("charts", "Charts", f'<div class="rp-charts">{body}</div>')


def _errors(result: TrialResult) -> str:
    errors = result.summary.errors
    if not errors:
        return ""
    body = [cell(e.question_id) + cell(e.repeat) + cell(e.kind) + f'<td class="al-text">{esc(e.message)}</td>'
            for e in errors]
    return section("errors", f"Error samples ({len(errors)})",
                   muted("Provider failures, recorded as errors and never as verdicts."),
                   table_html(["question", "repeat", "kind", "message"], body))


def _questions(result: TrialResult, rows: Sequence[QuestionRow]) -> str:
    texts = {question.question_id: question.question for question in result.questions}
    body = []
    for row in rows:
        outcomes = "".join(_outcome(outcome) for outcome in row.outcomes)
        text = f'<td class="al-text">{esc(texts.get(row.question_id, "—"))}</td>' if texts else ""
        body.append(cell(row.question_id, f'data-question-id="{esc(row.question_id)}"') + text + cell(row.label)
                    + cell(row.question_type or "—") + f'<td class="al-nowrap">{outcomes}</td>'
                    + cell(row.citation_errors) + cell(row.requirements) + cell(row.matched) + cell(row.agreeing))
    head = ["question", *(["text"] if texts else []), "label", "type", "outcome per repeat", "citation errors",
            "requirements", "matched", "agreeing"]
    return section("questions", f"Questions ({len(rows)})",
                   muted("Outcomes in repeat order; matched: requirement texts seen in two repeats or more; "
                         "agreeing: matched texts that kept one status throughout."),
                   table_html(head, body))


def _outcome(outcome: str | None) -> str:
    if outcome is None:
        return '<span class="rp-cell rp-muted" title="no sample">·</span>'
    return (f'<span class="rp-cell" data-outcome="{esc(outcome)}" title="{esc(trial_view.OUTCOME_NAMES[outcome])}" '
            f'style="background-color:{palette.OUTCOMES[outcome]}">{esc(SHORT[outcome])}</span>')

