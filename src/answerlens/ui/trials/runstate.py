"""How a run ended, and whether its figures can be read at all (pure): the notices above a trial's numbers.

Finished, cancelled or unfinished; stopped early or refused before it started (once the engine records it: see
``engine_stop``); and, from the samples themselves, a run where every call failed alike or too few samples were
assessed to rate anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from answerlens.engine.runner import TrialOutcome
from answerlens.html.markup import Notice, NoticeKind
from answerlens.html.trial_rows import MIN_SAMPLES_FOR_RATE, counted
from answerlens.trials.failures import ErrorGroup
from answerlens.trials.log import ResultKind
from answerlens.trials.result import TrialResult
from answerlens.ui.trials.errors import every_call_failed_alike, trial_message, trial_remedy


def engine_stop(outcome: TrialOutcome) -> str | None:
    """Why the engine stopped a run early (its first calls all failed alike), or None when it did not."""
    return outcome.stopped.text if outcome.stopped is not None else None


def result_notices(result: TrialResult, groups: Sequence[ErrorGroup]) -> list[Notice]:
    """What to know before reading the figures: the run's state, and whether they rest on enough samples."""
    s = result.summary
    notices = []
    if result.kind == ResultKind.RUN:
        notices.append(Notice(NoticeKind.WARNING,
                              f"Unfinished run: {counted(s.planned_samples, 'sample')} saved so far",
                              "there is no result.json yet; the gates below are provisional",
                              "run the trial again into this output directory to finish it"))
    called = sum(1 for sample in result.samples  # a reply came back (a model's, or a hand-written one replayed)
                 if sample.assessment is not None
                 and (sample.assessment.model_called or sample.assessment.raw_output is not None))
    if every_call_failed_alike(groups, called):
        group = groups[0]
        uncalled = (f"; the {counted(s.samples, 'sample')} assessed needed no model call (no citable evidence)"
                    if s.samples else "")
        notices.append(Notice(NoticeKind.ERROR,
                              f"Every model call failed the same way ({group.kind}, ×{group.count}): "
                              f"no figure below measures the model{uncalled}",
                              trial_message(group.message), trial_remedy(group.kind)))
    elif s.samples < MIN_SAMPLES_FOR_RATE:
        notices.append(Notice(NoticeKind.WARNING, f"Only {counted(s.samples, 'sample')} assessed "
                              f"({counted(s.error_samples, 'error sample')})",
                              f"a figure over fewer than {MIN_SAMPLES_FOR_RATE} samples is marked too few to rate"))
    return notices


def outcome_notice(outcome: TrialOutcome, out: Path, seconds: float) -> Notice:
    """How a run started from this page ended."""
    counts = (f"{counted(outcome.new_samples, 'new sample')}, {outcome.reused_samples} reused, "
              f"{counted(outcome.errors, 'error sample')} in {seconds:.1f} s")
    stop = engine_stop(outcome)
    if stop is not None:
        return Notice(NoticeKind.WARNING, "Stopped early: finished samples are kept",
                      f"{stop}; {counts}; saved in {out}",
                      "fix the cause, then press Run trial again with the same output directory to resume")
    if outcome.cancelled:
        return Notice(NoticeKind.WARNING, "Cancelled: finished samples are kept", f"{counts}; saved in {out}",
                      "press Run trial again with the same output directory to resume")
    return Notice(NoticeKind.OK, "Trial finished", f"{counts}; result: {outcome.result_path}")
