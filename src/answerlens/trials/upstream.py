"""The one adapter from an upstream PRME BEAM result (``beam-answerability-execution``, schema 1–3) to a
``TrialResult``: samples keep upstream's field names and any unknown fields; the published summary, gates and
blocks are kept as published, and the summary is recomputed from the samples beside them.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from answerlens.errors import DatasetError, describe_validation
from answerlens.trials.gates import GateReport
from answerlens.trials.log import UPSTREAM_SCHEMAS, ResultKind, UpstreamSample, parse_samples
from answerlens.trials.result import TrialResult, UpstreamRun
from answerlens.trials.summary import summarize

_OWN = ("kind", "schema_version", "quality_gates", "samples")
"""Top-level keys ``TrialResult`` reads itself; every other one goes to ``UpstreamRun`` as published."""


def upstream_result(data: dict[str, Any], source: str) -> TrialResult:
    """Read an upstream result already parsed from JSON; a problem is a ``DatasetError`` naming its place."""
    version = data.get("schema_version")
    if version not in UPSTREAM_SCHEMAS:
        raise DatasetError(f"{source}: unsupported upstream schema_version {version!r}")
    try:
        run = UpstreamRun.model_validate({key: value for key, value in data.items() if key not in _OWN})
        published = data.get("quality_gates")
        gates = GateReport.model_validate(published) if published is not None else None
    except ValidationError as exc:
        raise DatasetError(f"{source}: not an upstream result: {describe_validation(exc)}") from None
    samples = parse_samples(data.get("samples"), UpstreamSample, source)
    return TrialResult(kind=ResultKind.UPSTREAM, schema_version=version, repeats=run.protocol.repeats,
                       summary=summarize(samples, drafts=run.drafts), quality_gates=gates, samples=samples,
                       upstream=run)
