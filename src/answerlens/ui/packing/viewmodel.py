"""One bundle's records rendered in every format, whether each can be assessed, and how a reply's
citations fare under each, as data and as the escaped text and tables the page shows (pure: no streamlit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from answerlens.citations import Decision, check_requirement, label_sites, valid_references
from answerlens.errors import describe_validation
from answerlens.html.escape import esc
from answerlens.html.markup import cell, outcome_cell, table_html
from answerlens.prompts import RawAssessment
from answerlens.recording import looks_like_bundle
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.render import render_bundle
from answerlens.tokens import token_count
from answerlens.ui.common.runner import READER_FIX
from answerlens.verdict import derive_verdict


@dataclass(frozen=True)
class Format:
    key: str
    label: str
    context_format: ContextFormat
    citations: bool = False


FORMATS = (
    Format("reader_cited", "reader, citations on", ContextFormat.READER, True),
    Format("reader_plain", "reader, citations off", ContextFormat.READER, False),
    Format("auditable", "auditable", ContextFormat.AUDITABLE),
    Format("compact", "compact", ContextFormat.COMPACT),
)


@dataclass(frozen=True)
class Rendering:
    format: Format
    bundle: MemoryBundle | None
    text: str
    """``render().strip()``: exactly what would be sent and hashed."""
    error: str | None = None
    """Why the records could not be rendered in this format."""
    problem: str | None = None
    """Why a rendered context cannot be assessed (the exact engine error)."""
    fix: str | None = None
    references: int = 0
    as_packed: bool = False
    """This is the format the bundle was packed in."""
    matches_packed: bool | None = None
    """For the packed format: whether our rendering equals the packed context byte for byte."""

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
    if rendering.as_packed and bundle.tokenizer and bundle.tokens_used:
        counts += f" · the packer counted {bundle.tokens_used:,} tokens with {bundle.tokenizer} (exact, as packed)"
    return counts


def assessable_detail(rendering: Rendering) -> str:
    """Why an assessable rendering is one: its citable references, or an empty context (no model call)."""
    if not rendering.text:
        return "empty context: the verdict would be insufficient, without a model call"
    return f"{rendering.references} citable reference{'s' if rendering.references != 1 else ''}"


def render_all(bundle: MemoryBundle) -> list[Rendering]:
    packed_citations = bundle.context_format == ContextFormat.READER and bool(bundle.context_references)
    return [_render(bundle, fmt, packed_citations) for fmt in FORMATS]


def _render(bundle: MemoryBundle, fmt: Format, packed_citations: bool) -> Rendering:
    as_packed = fmt.context_format == bundle.context_format and (
        fmt.context_format != ContextFormat.READER or fmt.citations == packed_citations
    )
    try:
        rendered = render_bundle(bundle, fmt.context_format, context_citations=fmt.citations)
    except ValueError as exc:
        return Rendering(fmt, None, "", error=str(exc), as_packed=as_packed)
    text = rendered.exact_context
    matches = None
    if as_packed:
        # Show what the model saw: the packed text, checked byte for byte against our rendering.
        packed = bundle.exact_context
        matches = packed == text
        rendered, text = bundle, packed
    problem = fix = None
    try:
        rendered.ensure_citable()
    except ValueError as exc:
        problem, fix = str(exc), READER_FIX
    references = len(valid_references(rendered, text)) if problem is None else 0
    if problem is None and rendered.record_count and not references:
        problem = "no citable references: the engine would return insufficient without calling a model"
    return Rendering(fmt, rendered, text, problem=problem, fix=fix, references=references, as_packed=as_packed,
                     matches_packed=matches)


# --- where a token budget cuts ------------------------------------------------------------------------------

DEFAULT_BUDGET = 4096
"""PRME's default ``PackingConfig.token_budget``, for bundles that carry no budget of their own."""


def bundle_budget(bundle: MemoryBundle) -> int:
    """The tokens the bundle's packer could spend (``tokens_used + budget_remaining``), else PRME's default."""
    available = bundle.tokens_used + bundle.budget_remaining
    return available if bundle.token_budget > 0 and available > 0 else DEFAULT_BUDGET


@dataclass(frozen=True)
class BudgetCut:
    """How much of a rendered context a token budget holds, counted as PRME counts (the whole prefix)."""

    budget: int
    records: int
    kept: int
    """Records, in the order shown, whose context prefix fits the budget."""
    kept_tokens: int
    """Tokens of the context up to and including the last kept record (the empty prefix when none fit)."""
    first_cut: str | None
    """The first record line the budget cannot hold, or None when every record fits."""

    @property
    def fits(self) -> bool:
        return self.kept == self.records


def budget_cut(rendering: Rendering, budget: int, count: Callable[[str], int] | None = None) -> BudgetCut | None:
    """Where ``budget`` tokens end in this rendering: the longest run of records, in the order shown, whose
    context prefix (notice, header, section lines and records so far) counts at most ``budget`` tokens, as
    PRME checks a packed context as a whole. None when there is nothing rendered.

    Records after the cut are what this budget cannot hold here; PRME's packer picks by priority, not by
    position, so it would drop its lowest-priority records instead. ``count`` defaults to ``token_count``.
    """
    if rendering.bundle is None:
        return None
    counter = count or (lambda text: token_count(text)[0])
    lines = rendering.text.split("\n")
    ends = _record_line_ends(rendering.bundle, len(lines))
    if ends is None:
        return None
    low, high = 0, len(ends)  # the answer is the largest k in [low, high] whose prefix fits
    while low < high:
        middle = (low + high + 1) // 2
        if counter("\n".join(lines[: ends[middle - 1]])) <= budget:
            low = middle
        else:
            high = middle - 1
    kept_tokens = counter("\n".join(lines[: ends[low - 1]])) if low else 0
    first_cut = lines[ends[low] - 1] if low < len(ends) else None
    return BudgetCut(budget, len(ends), low, kept_tokens, first_cut)


def _record_line_ends(bundle: MemoryBundle, line_count: int) -> list[int] | None:
    """For each record, the number of context lines up to and including it (sections in order, one line
    each, after the notice, guidance and header lines)."""
    body = sum(1 + len(candidates) for candidates in bundle.sections.values())
    position = line_count - body
    if not bundle.sections or position < 1:
        return None
    ends = []
    for candidates in bundle.sections.values():
        position += 1  # the [section] line
        for _ in candidates:
            position += 1
            ends.append(position)
    return ends


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


def citation_matrix(renderings: list[Rendering], reply: RawAssessment) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Rows (requirement, token, then one outcome per format key) and each format's resulting verdict."""
    rows: list[dict[str, Any]] = []
    statuses: dict[str, list[Any]] = {r.format.key: [] for r in renderings}
    checks = {r.format.key: _checks(r, reply) for r in renderings}
    for index, item in enumerate(reply.requirements):
        tokens = item.evidence_refs or [""]
        for position, token in enumerate(tokens):
            row: dict[str, Any] = {"requirement": index, "text": item.requirement, "claimed": item.status.value,
                                   "token": token if item.evidence_refs else "(no citation)"}
            for rendering in renderings:
                key = rendering.format.key
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
                    row[key] = Outcome(f"discarded: {decision.reason.value if decision.reason else '?'}", False)
            rows.append(row)
    verdicts = {
        key: derive_verdict(found)[0].value if checks[key] is not None else "cannot be assessed"
        for key, found in statuses.items()
    }
    return rows, verdicts


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
    rows, verdicts = citation_matrix(renderings, reply)
    keys = [r.format.key for r in renderings]
    head = ["#", "requirement", "claimed", "cited token", *(r.format.label for r in renderings)]
    body = []
    for row in rows:
        cells = [cell(row["requirement"] + 1, f'data-requirement="{row["requirement"]}"'), cell(row["text"]),
                 cell(row["claimed"]), cell(row["token"])]
        for key in keys:
            outcome = row[key]
            cells.append(outcome_cell(outcome.text, outcome.accepted,
                                      f'data-format="{key}" data-ref="{esc(row["token"])}"'))
        body.append("".join(cells))
    verdict_cells = [cell(""), cell("verdict under this format"), cell(""), cell("")]
    verdict_cells += [cell(verdicts[key], f'data-format-verdict="{key}"') for key in keys]
    body.append("".join(verdict_cells))
    return f'<div class="al-scroll">{table_html(head, body)}</div>'
