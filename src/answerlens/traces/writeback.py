"""An assessment of an imported sample, written back onto its span in Phoenix: only a verified assessment that
carries an ``import`` block, only onto the span it names (re-read first: a span imported from this Phoenix must
still hash as it did), and only after every check passed, so nothing is written for anything else."""

from __future__ import annotations

from dataclasses import dataclass

from answerlens.assessment import AnswerabilityAssessment
from answerlens.errors import PhoenixError, TraceError
from answerlens.trace_import import TraceImport, TraceSource
from answerlens.traces.annotations import DocumentVerdict, document_annotations, document_verdicts, span_annotation
from answerlens.traces.phoenix import Phoenix
from answerlens.traces.retrieval import documents_of
from answerlens.tracing.attributes import run_url as link_to_run
from answerlens.tracing.base import LOCAL_APP_URL, app_url
from answerlens.verification.assessment import verify_assessment

DEFAULT_PROJECT = "default"
"""Where Phoenix files spans that name no project."""


@dataclass(frozen=True)
class Written:
    """What was written, and where to see it."""

    span_id: str
    trace_id: str
    project: str
    label: str
    score: float
    documents: tuple[DocumentVerdict, ...]
    link: str | None

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for verdict in self.documents:
            counts[verdict.label.value] = counts.get(verdict.label.value, 0) + 1
        labels = ", ".join(f"{count} {label}" for label, count in counts.items())
        return (f"wrote the verdict ({self.label}, score {self.score:.2f}) onto span {self.span_id} of trace "
                f"{self.trace_id} in project {self.project!r}, and {len(self.documents)} document annotation(s): "
                f"{labels}" + (f"; see {self.link}" if self.link else ""))


def import_block(assessment: AnswerabilityAssessment) -> TraceImport:
    """The span to annotate, or a ``TraceError`` when the assessment is not of an imported sample."""
    if assessment.trace_import is None:
        raise TraceError("this assessment carries no import block: it is not of a sample imported from a trace, so "
                         "there is no span to annotate; import one with `answerlens import-trace` and assess it")
    return assessment.trace_import


def write_verdict(phoenix: Phoenix, assessment: AnswerabilityAssessment, *, project: str | None = None,
                  run_url: str | None = None) -> Written:
    """Write the span annotation and one document annotation per document; returns what was written. Without
    ``run_url``, the run link names the app at ``ANSWERLENS_APP_URL`` (else the app's own address, else
    ``LOCAL_APP_URL``)."""
    block = import_block(assessment)
    report = verify_assessment(assessment)
    if not report.ok:
        raise TraceError(f"the assessment does not verify, so nothing was written: {'; '.join(report.problems[:3])}")
    project = project or block.project or DEFAULT_PROJECT
    found = phoenix.spans(project, span_ids=[block.span_id])
    if not found:
        raise PhoenixError(f"Phoenix at {phoenix.url} has no span {block.span_id} in project {project!r}",
                           kind="not_found", remedy="send the trace to this Phoenix, or name the project it is in "
                           "with --project")
    span = found[0]
    if block.source == TraceSource.PHOENIX and span.sha256 != block.span_sha256:
        raise TraceError(f"span {block.span_id} in Phoenix is not the one imported (its attributes hash to "
                         f"{span.sha256[:12]}…, the import block says {block.span_sha256[:12]}…); nothing was "
                         "written: import it again and assess that sample")
    missing = sorted(set(block.positions) - {document.position for document in documents_of(span)})
    if missing:
        raise TraceError(f"span {block.span_id} in Phoenix has no document at position(s) "
                         f"{', '.join(map(str, missing))} of the import block; nothing was written")
    if not run_url:  # a link is always there: the app's address when known, else where `make run` serves it
        run_url = link_to_run(app_url() or LOCAL_APP_URL, assessment.evaluation_id)
    spans = span_annotation(assessment, block, run_url=run_url)
    documents = document_annotations(assessment, block)
    phoenix.post("/v1/span_annotations", [spans.body()])
    phoenix.post("/v1/document_annotations", [annotation.body() for annotation in documents])
    link = phoenix.trace_link(phoenix.project_id(project), block.trace_id, span)
    return Written(block.span_id, block.trace_id, project, spans.result.label, spans.result.score,
                   tuple(document_verdicts(assessment, block)), link)
