"""What a check of a path found (``verify_path``'s answer), and the notes every run's check adds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from answerlens.trials.log import TrialSample, UpstreamSample
from answerlens.verification.notes import UNRESOLVED, Notes, assessment_notes
from answerlens.verification.samples import SampleCount


@dataclass(frozen=True)
class PathCheck:
    """What ``verify_path`` found: the kind of thing checked, how many assessments were re-derived, every problem,
    the replay marks and caveats (what no check here can prove), and for a trial or sweep its samples against its
    manifest. ``ok``: no problem, and (for a run) every planned sample there."""

    path: Path
    kind: str
    """``assessment``, ``assessments``, ``trial sample``, ``trial result``, ``trial run``, ``upstream trial
    result``, ``sweep``, or ``<kind> report``."""
    checked: int = 0
    problems: tuple[str, ...] = ()
    notes: Notes = field(default_factory=Notes)
    samples: SampleCount | None = None

    @property
    def unfinished(self) -> bool:
        return self.samples is not None and not self.samples.complete

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unfinished


def sample_notes(samples: Sequence[TrialSample | UpstreamSample]) -> Notes:
    """The replay marks and provenance caveat of a run's assessed samples, each labelled by case and repeat."""
    return assessment_notes((f"{sample.case_id} repeat {sample.repeat}: ", sample.assessment.model_dump(mode="json"))
                            for sample in samples if sample.assessment is not None)


def shard_notes(shard: str | None) -> Notes:
    """What a shard's check cannot say: whether the whole run is complete (its other shards are elsewhere)."""
    return Notes(caveats=(f"shard {shard}: one part of a run, complete only for its own samples; the whole run is "
                          "verified once `answerlens trial-merge` has merged every shard",)) if shard else Notes()


def unresolved(checked: int, given: bool) -> Notes:
    """The caveat of assessments verified without the bundle or dataset they were made over."""
    return Notes(caveats=(UNRESOLVED,)) if checked and not given else Notes()
