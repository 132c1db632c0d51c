"""What ``verify`` says of an assessment's ``import`` block (outside the audit hashes, so checked for consistency,
not trusted): where its evidence came from, that every cited memory is one of the imported span's documents, and,
given the sample it was made from, that the sample names the same span and holds exactly those records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from answerlens.trace_import import IMPORT_KEY, TraceImport
from answerlens.verification.notes import Notes


def import_block(data: Mapping[str, Any]) -> TraceImport | None:
    """The assessment's (or sample's) import block; None when it has none or it does not read (``verify``'s field
    checks report that)."""
    block = data.get(IMPORT_KEY) if isinstance(data, Mapping) else None
    if block is None:
        return None
    try:
        return TraceImport.model_validate(block)
    except ValidationError:
        return None


def sample_of(path: str | None) -> dict[str, Any] | None:
    """The JSON of a sample file that carries an import block (None for anything else, or no path)."""
    if not path:
        return None
    from answerlens.json_reader import read_json

    data = read_json(Path(path))
    return data if isinstance(data, dict) and data.get(IMPORT_KEY) is not None else None


def import_note(data: Mapping[str, Any]) -> str | None:
    """verify's note for an assessment of an imported sample (None for any other: a hand-made sample's)."""
    block = import_block(data)
    if block is None:
        return None
    return f"evidence imported from {block.describe()} (span_sha256 {block.span_sha256[:12]}…)"


def import_problems(data: Mapping[str, Any], sample: Mapping[str, Any] | None = None) -> list[str]:
    """Cited memories that are none of the span's documents; with the sample (its JSON), a different span or
    different records."""
    block = import_block(data)
    if block is None:
        if sample is not None and isinstance(sample, Mapping) and sample.get(IMPORT_KEY) is not None:
            return [f"{IMPORT_KEY}: missing, but the sample given was imported from a trace"]
        return []
    problems = []
    known = {str(record_id) for record_id in block.record_ids}
    for index, item in enumerate(data.get("requirements") or []):
        for number, memory in enumerate(item.get("evidence_ids") or [] if isinstance(item, Mapping) else []):
            if str(memory) not in known:
                problems.append(f"requirements[{index}].evidence_ids[{number}]: memory {memory} is none of the "
                                f"imported span's documents ({IMPORT_KEY}.record_ids)")
    if sample is not None:
        problems += _sample_problems(block, sample)
    return problems


def _sample_problems(block: TraceImport, sample: Mapping[str, Any]) -> list[str]:
    from answerlens.loading import load_bundle

    theirs = import_block(sample)
    if theirs is None:
        return [f"{IMPORT_KEY}: the sample given was not imported from a trace (it has no import block)"]
    if theirs != block:
        differing = [name for name in TraceImport.model_fields if getattr(theirs, name) != getattr(block, name)]
        return [f"{IMPORT_KEY}: differs from the sample's ({', '.join(differing)})"]
    bundle = load_bundle(sample.get("bundle"), name="the sample")
    ids = tuple(candidate.node.id for group in bundle.sections.values() for candidate in group)
    if ids != block.record_ids:
        return [f"{IMPORT_KEY}.record_ids: the sample's records are not the ones imported"]
    return []


def import_checks(assessments: Sequence[Mapping[str, Any]],
                  sample: Mapping[str, Any] | None = None) -> tuple[list[str], Notes]:
    """verify's problems and notes for a file's assessments: each imported one's note (a mark) and problems."""
    marks = tuple(note for data in assessments if (note := import_note(data)) is not None)
    return [problem for data in assessments for problem in import_problems(data, sample)], Notes(marks=marks)
