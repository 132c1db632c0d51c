"""What verification says beside its verdict, for any set of assessments: the replay marks (a forced or unbound
replay, per assessment) and the caveats (what no check here can prove). The CLI prints them, the report page and
the app show them next to "verifies"."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from answerlens.verification.assessment import provenance_note, recording_mark


@dataclass(frozen=True)
class Notes:
    """``marks``: one line per assessment replayed forced or unbound; ``caveats``: what verify cannot prove."""

    marks: tuple[str, ...] = ()
    caveats: tuple[str, ...] = ()

    def __add__(self, other: Notes) -> Notes:
        return Notes(self.marks + other.marks, self.caveats + other.caveats)


def assessment_notes(labelled: Iterable[tuple[str, Any]]) -> Notes:
    """The marks and the provenance caveat of assessments given as (label, assessment JSON) pairs; a label is
    printed before its mark (``"samples[3] "``, or ``""`` for a file holding one)."""
    assessments = [(label, data) for label, data in labelled if isinstance(data, Mapping)]
    marks = tuple(f"{label}{mark}" for label, data in assessments if (mark := recording_mark(data)))
    uncovered = sum(provenance_note(data) is not None for _, data in assessments)
    caveats = (f"{uncovered} of {len(assessments)} assessment(s) carry no provenance_sha256: their provider, model, "
               "origin and recording are covered by no hash",) if uncovered else ()
    return Notes(marks, caveats)


UNRESOLVED = ("cited references were not resolved in an exact context (the memory each names is taken as "
              "recorded); pass --bundle FILE (--dataset FILE for a trial) to re-derive every citation from it")
"""The caveat of assessments verified without the bundle (or dataset) they were made over."""
