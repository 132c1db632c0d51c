"""How a run ended and whether its figures can be read (pure): the notices above a trial's numbers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from answerlens.engine.runner import TrialOutcome
from answerlens.html.markup import Notice, NoticeKind
from answerlens.trials.failures import EarlyStop, group_errors
from answerlens.trials.log import ResultKind
from answerlens.trials.result import TrialResult
from answerlens.trials.summary import summarize
from answerlens.ui.trials import runstate

FINISHED = TrialOutcome(result=None, result_path=Path("runs/q/result.json"), new_samples=1, reused_samples=0,
                        errors=0, cancelled=False)


def notices(result: TrialResult) -> list[Notice]:
    return runstate.result_notices(result, list(group_errors(result.summary.errors)))


def test_a_large_finished_run_needs_no_notice(golden: TrialResult) -> None:
    assert notices(golden) == []


def test_a_run_with_too_few_assessed_samples_says_so(with_errors: TrialResult) -> None:
    (notice,) = notices(with_errors)
    assert notice.kind is NoticeKind.WARNING and isinstance(notice, Notice)
    assert notice.title == "Only 2 samples assessed (2 error samples)"
    assert "fewer than 10 samples" in (notice.detail or "")


def test_a_run_where_every_call_failed_alike_measures_nothing(with_errors: TrialResult) -> None:
    errors = tuple(sample for sample in with_errors.samples if sample.error is not None)
    failed = with_errors.model_copy(update={"samples": errors, "summary": summarize(errors)})
    (notice,) = notices(failed)
    assert notice.kind == "error" and notice.title.startswith("Every model call failed the same way (server_error, ×2)")
    assert "HTTP 500" in (notice.detail or "") and "same output directory" in (notice.remedy or "")


def test_an_unfinished_run_is_provisional(with_errors: TrialResult) -> None:
    unfinished = with_errors.model_copy(update={"kind": ResultKind.RUN})
    titles = [notice.title for notice in notices(unfinished)]
    assert titles[0] == "Unfinished run: 4 samples saved so far"


def test_engine_stop_reads_the_outcome() -> None:
    assert runstate.engine_stop(FINISHED) is None
    stopped = replace(FINISHED, result=None, result_path=None, stopped=EarlyStop("connection_refused", "down", 5))
    assert runstate.engine_stop(stopped) == "the first 5 calls all failed with connection_refused: down"


def test_how_a_run_from_the_page_ended() -> None:
    out = Path("runs/q")
    finished = runstate.outcome_notice(FINISHED, out, 1.25)
    assert (finished.kind, finished.title) == ("ok", "Trial finished")
    assert finished.detail == "1 new sample, 0 reused, 0 error samples in 1.2 s; result: runs/q/result.json"
    cancelled = runstate.outcome_notice(replace(FINISHED, cancelled=True, new_samples=2, errors=1), out, 2)
    assert cancelled.title.startswith("Cancelled") and "2 new samples, 0 reused, 1 error sample" in (
        cancelled.detail or "")
    assert "same output directory" in (cancelled.remedy or "")


def test_a_stopped_outcome_says_why() -> None:
    stopped = replace(FINISHED, result=None, result_path=None, stopped=EarlyStop("connection_refused", "down", 8))
    notice = runstate.outcome_notice(stopped, Path("runs/q"), 3)
    assert notice.title == "Stopped early: finished samples are kept"
    assert (notice.detail or "").startswith("the first 8 calls all failed with connection_refused")
