"""One bundle's records in every format, cut by the setting the user picked (a budget, a depth, a chunk size)
exactly as a sweep cuts them (``sweeps.cut``), whether each can be assessed, and how a reply's citations fare
under each, as data and as the escaped text and tables the page shows (pure: no streamlit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from answerlens.citations import Decision, check_requirement, label_sites, valid_references
from answerlens.errors import describe_validation
from answerlens.html.escape import esc
from answerlens.html.markup import cell, outcome_cell, table_html
from answerlens.prompts import RawAssessment
from answerlens.recording import looks_like_bundle
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.render import reference_labels, render_bundle
from answerlens.sweeps.cut import CellContext, contexts_of, is_as_packed
from answerlens.sweeps.settings import PACKED, Setting, SweepFormat
from answerlens.sweeps.view import ACTION_WORDS
from answerlens.tokens import token_count
from answerlens.ui.common.runner import READER_FIX
from answerlens.verdict import AnswerabilityAction, AnswerabilityVerdict, derive_verdict

FORMATS = tuple(SweepFormat)
"""The four formats the page shows, in the sweep's order (reader split by whether its citations are on)."""


@dataclass(frozen=True)
class Rendering:
    """One format's context at the page's setting: the sweep's cell context, and what the page says of it."""

    context: CellContext
    text: str
    """The context's exact text: what would be sent and hashed."""
    problem: str | None = None
    """Why the context cannot be assessed (the sweep's reason, or the engine's error)."""
    fix: str | None = None
    references: int = 0
    as_packed: bool = False
    """This is the format the bundle was packed in."""
    matches_packed: bool | None = None
    """When the bundle is shown as packed: whether our rendering equals the packed context byte for byte."""
    cut_refs: Mapping[str, str] = field(default_factory=dict)
    """Tokens that would cite a record the setting cut (its label, its id) -> its label."""

    @property
    def format(self) -> SweepFormat:
        return self.context.setting.format

    @property
    def bundle(self) -> MemoryBundle | None:
        return self.context.bundle if self.error is None else None

    @property
    def error(self) -> str | None:
        """Why the records could not be rendered in this format at all."""
        return self.context.reason if not self.context.rendered else None

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def tokens(self) -> int:
        """The context's tokens as PRME counts them (``cl100k_base``), or the estimate (see ``tokenizer``)."""
        return token_count(self.text)[0]

    @property
    def tokenizer(self) -> str | None:
        """``cl100k_base`` when ``tokens`` is exact; None when it is the 4.2-characters estimate."""
        return token_count("")[1]

    @property
    def assessable(self) -> bool:
        return self.bundle is not None and self.problem is None


def counts_text(rendering: Rendering, bundle: MemoryBundle) -> str:
    """Characters and tokens (as PRME counts them, or an estimate); for the packed format, also the packer's own."""
    if rendering.tokenizer is not None:
        counts = f"{rendering.chars:,} characters · {rendering.tokens:,} tokens ({rendering.tokenizer}, as PRME counts)"
    else:
        counts = f"{rendering.chars:,} characters · ≈{rendering.tokens:,} tokens (estimate: 4.2 characters a token)"
    if rendering.matches_packed is not None and bundle.tokenizer and bundle.tokens_used:
        counts += f" · the packer counted {bundle.tokens_used:,} tokens with {bundle.tokenizer} (exact, as packed)"
    return counts


def assessable_detail(rendering: Rendering) -> str:
    """Why an assessable rendering is one: its citable references, or an empty context (no model call)."""
    if not rendering.text:
        return "empty context: the verdict would be insufficient, without a model call"
    return f"{rendering.references} citable reference{'s' if rendering.references != 1 else ''}"


def render_all(bundle: MemoryBundle, budget: str = PACKED, top_k: int | None = None,
               record_tokens: int | None = None) -> list[Rendering]:
    """Every format cut at this setting by the sweep's own cut: the records a sweep cell would keep, the context
    it would send."""
    settings = [Setting(format=fmt, budget=budget, top_k=top_k, record_tokens=record_tokens) for fmt in FORMATS]
    return [_rendering(bundle, context) for context in contexts_of(bundle, settings)]


def _rendering(bundle: MemoryBundle, context: CellContext) -> Rendering:
    fmt = context.setting.format
    as_packed = is_as_packed(bundle, fmt)
    labels = reference_labels(bundle)
    cut_refs = {token: labels.get(record, str(record)) for record in context.cut
                for token in (labels.get(record, str(record)), str(record))}
    if not context.rendered:
        return Rendering(context, "", problem=context.reason, as_packed=as_packed)
    text = context.bundle.exact_context
    matches = None
    if context.bundle is bundle:
        # Shown as packed (what the model saw), checked byte for byte against our rendering of its records.
        matches = render_bundle(bundle, fmt.context_format, context_citations=fmt.citations).exact_context == text
    problem = context.reason
    fix = READER_FIX if problem is not None and fmt is SweepFormat.READER_PLAIN and context.kept else None
    references = len(valid_references(context.bundle, text)) if problem is None else 0
    if problem is None and context.bundle.record_count and not references:
        problem = "no citable references: the engine would return insufficient without calling a model"
    return Rendering(context, text, problem=problem, fix=fix, references=references, as_packed=as_packed,
                     matches_packed=matches, cut_refs=cut_refs)


# --- a reply's citations under each format ------------------------------------------------------------


def reply_from(data: Any) -> RawAssessment:
    """A raw reply from a raw reply, an answerlens assessment (its ``raw_output``), or a PRME assessment.

    A PRME assessment keeps only accepted refs and final statuses, so it is reconstructed from those.
    Raises ``ValueError`` when the data is none of these (saying so when it is a bundle or sample file).
    """
    if looks_like_bundle(data):
        raise ValueError("this is a bundle (or sample) file, not a reply: load it above as the bundle, and give the "
                         "model's raw reply or an assessment here")
    if isinstance(data, dict) and isinstance(data.get("raw_output"), dict):
        data = data["raw_output"]
    elif isinstance(data, dict) and "verdict" in data and isinstance(data.get("requirements"), list):
        data = {
            "requirements": [
                {
                    "requirement": item.get("requirement"),
                    "status": item.get("claimed_status") or item.get("status"),
                    "evidence_refs": [c["token"] for c in item["citations"]] if item.get("citations")
                    else item.get("evidence_refs", []),
                    "explanation": item.get("explanation"),
                }
                for item in data["requirements"]
                if isinstance(item, dict)
            ],
            "reasoning": data.get("reasoning") or "(reconstructed from an assessment)",
        }
    try:
        return RawAssessment.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"not a raw reply or an assessment: {describe_validation(exc)}") from None


@dataclass(frozen=True)
class Outcome:
    """What happened to one cited token (or to a requirement's status) under one format."""

    text: str
    accepted: bool | None = None
    cut: bool = False
    """Discarded because the setting cut the record it cites."""


def citation_matrix(renderings: list[Rendering], reply: RawAssessment) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Rows (requirement, token, then one outcome per format) and each format's resulting verdict, judged over each
    format's context at the page's setting: a citation of a record the setting cut is discarded, as the sweep's
    engine discards it, and says it was cut."""
    rows, outcomes = _matrix(renderings, reply)
    return rows, {key: found[0].value if found else "cannot be assessed" for key, found in outcomes.items()}


def _matrix(renderings: list[Rendering], reply: RawAssessment) -> tuple[
        list[dict[str, Any]], dict[str, tuple[AnswerabilityVerdict, AnswerabilityAction] | None]]:
    rows: list[dict[str, Any]] = []
    statuses: dict[str, list[Any]] = {r.format.value: [] for r in renderings}
    checks = {r.format.value: _checks(r, reply) for r in renderings}
    for index, item in enumerate(reply.requirements):
        tokens = item.evidence_refs or [""]
        for position, token in enumerate(tokens):
            row: dict[str, Any] = {"requirement": index, "text": item.requirement, "claimed": item.status.value,
                                   "token": token if item.evidence_refs else "(no citation)"}
            for rendering in renderings:
                key = rendering.format.value
                checked = checks[key]
                if checked is None:
                    row[key] = Outcome("cannot be assessed")
                    continue
                if position == 0:
                    statuses[key].append(checked[index].status)
                if not item.evidence_refs:
                    row[key] = Outcome(f"→ {checked[index].status.value}")
                    continue
                decision = checked[index].decisions[position]
                if decision.decision == Decision.ACCEPTED:
                    row[key] = Outcome(f"accepted → {decision.ref}", True)
                else:
                    label = rendering.cut_refs.get(decision.normalized)
                    why = f" ({label} was cut by this setting)" if label else ""
                    row[key] = Outcome(f"discarded: {decision.reason.value if decision.reason else '?'}{why}", False,
                                       cut=label is not None)
            rows.append(row)
    return rows, {key: derive_verdict(found) if checks[key] is not None else None for key, found in statuses.items()}


def _checks(rendering: Rendering, reply: RawAssessment) -> list[Any] | None:
    if not rendering.assessable or rendering.bundle is None:
        return None
    bundle, context = rendering.bundle, rendering.text
    fmt = bundle.context_format
    references = valid_references(bundle, context)
    sites = label_sites(context, fmt, cited_reader=bool(bundle.context_references))
    return [
        check_requirement(index, item, references, sites, bracketed=fmt == ContextFormat.READER)
        for index, item in enumerate(reply.requirements)
    ]


def matrix_html(renderings: list[Rendering], reply: RawAssessment) -> str:
    """The matrix as a table: one row per cited token (requirements numbered from 1, ``data-requirement`` keeps the
    0-based index), one outcome cell per format, then each format's verdict; it scrolls sideways on a phone."""
    rows, verdicts = _matrix(renderings, reply)
    keys = [r.format.value for r in renderings]
    head = ["#", "requirement", "claimed", "cited token", *(r.format.label for r in renderings)]
    body = []
    for row in rows:
        cells = [cell(row["requirement"] + 1, f'data-requirement="{row["requirement"]}"'), cell(row["text"]),
                 cell(row["claimed"]), cell(row["token"])]
        for key in keys:
            outcome = row[key]
            cut = ' data-cut="true"' if outcome.cut else ""
            cells.append(outcome_cell(outcome.text, outcome.accepted,
                                      f'data-format="{key}" data-ref="{esc(row["token"])}"{cut}'))
        body.append("".join(cells))
    verdict_cells = [cell(""), cell("verdict under this format (the action a sweep cell would count)"), cell(""),
                     cell("")]
    verdict_cells += [_verdict_cell(key, verdicts[key]) for key in keys]
    body.append("".join(verdict_cells))
    return f'<div class="al-scroll">{table_html(head, body)}</div>'


def _verdict_cell(key: str, found: tuple[AnswerabilityVerdict, AnswerabilityAction] | None) -> str:
    """The verdict, and the action it leads to in the sweep's words (``partial`` · ``answer partially``)."""
    if found is None:
        return cell("cannot be assessed", f'data-format-verdict="{key}"')
    verdict, action = found
    return (f'<td data-format-verdict="{key}">{esc(verdict.value)}<div class="al-muted" '
            f'data-format-action="{action.value}">{esc(ACTION_WORDS[action.value])}</div></td>')
