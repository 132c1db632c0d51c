"""One bundle's records rendered in every format, whether each can be assessed, and how a reply's
citations fare under each, as data and as the escaped text and tables the page shows (pure: no streamlit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from answerlens.citations import Decision, check_requirement, label_sites, valid_references
from answerlens.errors import describe_validation
from answerlens.prompts import RawAssessment
from answerlens.records import ContextFormat, MemoryBundle
from answerlens.render import estimate_tokens, render_bundle
from answerlens.ui.common.markup import cell, esc, outcome_cell, table_html
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
        return estimate_tokens(self.text)

    @property
    def assessable(self) -> bool:
        return self.bundle is not None and self.problem is None


def counts_text(rendering: Rendering, bundle: MemoryBundle) -> str:
    """Characters and estimated tokens; for the packed format, also the packer's own exact count."""
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
        # Show what the model saw: the packed text, checked line by line against our rendering.
        packed = bundle.exact_context
        matches = same_records(packed, text, header=_header_index(bundle))
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


def _header_index(bundle: MemoryBundle) -> int:
    return sum(1 for text in (bundle.coverage_notice, bundle.context_guidance) if text)


def same_records(packed: str, ours: str, *, header: int) -> bool:
    """Whether two renderings agree on every line but the one-line header (whose wording is each tool's own)."""
    left, right = packed.split("\n"), ours.split("\n")
    if len(left) != len(right):
        return False
    return all(a == b for index, (a, b) in enumerate(zip(left, right, strict=True)) if index != header)


# --- a reply's citations under each format ------------------------------------------------------------


def reply_from(data: Any) -> RawAssessment:
    """A raw reply from a raw reply, an answerlens assessment (its ``raw_output``), or a PRME assessment.

    A PRME assessment keeps only accepted refs and final statuses, so it is reconstructed from those.
    Raises ``ValueError`` when the data is none of these.
    """
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
    """The matrix as a table: one row per cited token, one outcome cell per format, then each format's verdict."""
    rows, verdicts = citation_matrix(renderings, reply)
    keys = [r.format.key for r in renderings]
    head = ["#", "requirement", "claimed", "cited token", *(r.format.label for r in renderings)]
    body = []
    for row in rows:
        cells = [cell(row["requirement"]), cell(row["text"]), cell(row["claimed"]), cell(row["token"])]
        for key in keys:
            outcome = row[key]
            cells.append(outcome_cell(outcome.text, outcome.accepted,
                                      f'data-format="{key}" data-ref="{esc(row["token"])}"'))
        body.append("".join(cells))
    verdict_cells = [cell(""), cell("verdict under this format"), cell(""), cell("")]
    verdict_cells += [cell(verdicts[key], f'data-format-verdict="{key}"') for key in keys]
    body.append("".join(verdict_cells))
    return table_html(head, body)
