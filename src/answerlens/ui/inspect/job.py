"""An Inspect assessment running in a background thread, so the page can show its stage and cancel it (no
streamlit here).

The thread owns its event loop; the page reads ``progress``, ``run`` and ``running`` and calls ``cancel()``, which
cancels the model call inside that loop: the connection closes, and a llama.cpp server stops generating at once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from answerlens.config import AnswerabilityConfig
from answerlens.html.escape import esc
from answerlens.providers.engine import CallProgress, Stage
from answerlens.recording import Recording
from answerlens.ui.common import runner
from answerlens.ui.common.runner import Failure, Run
from answerlens.ui.common.sources import Source


@dataclass
class AssessJob:
    config: AnswerabilityConfig
    source: Source
    question: str
    answer: str | None
    recording: Recording | None = None
    second_opinion: bool = False
    """Add the second opinion to the run (implied by the strict evidence policy)."""
    progress: CallProgress | None = None
    """The last stage the model call reported (None: not sent yet)."""
    run: Run | None = None
    """How it ended: an assessment, a failure, or a cancel (kind ``cancelled``)."""
    cancelled: bool = False
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)
    _task: asyncio.Task[Run] | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _changed: threading.Condition = field(default_factory=threading.Condition, repr=False)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def seconds(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends (tests and shutdown); True when it has."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

    def wait_for(self, predicate: Callable[[AssessJob], bool], timeout: float) -> bool:
        """Block until ``predicate(self)`` holds (checked at each reported step and at the end); tests use it."""
        with self._changed:
            self._changed.wait_for(lambda: predicate(self) or self.finished is not None, timeout)
            return predicate(self)

    def cancel(self) -> None:
        """Stop the call: safe from any thread, at any moment, and more than once."""
        with self._changed:
            self.cancelled = True
            loop, task = self._loop, self._task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)

    def _run(self) -> None:
        try:
            self.run = asyncio.run(self._main())
        except asyncio.CancelledError:
            self.run = Run(None, Failure("Cancelled — no verdict was produced",
                                         f"stopped after {self.seconds:.1f} s, while {describe(self.progress)}",
                                         "press Assess to run it again", "cancelled"), self.seconds)
        finally:
            with self._changed:
                self.finished = time.monotonic()
                self._changed.notify_all()

    async def _main(self) -> Run:
        with self._changed:
            if self.cancelled:
                raise asyncio.CancelledError
            self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        return await runner.assess_async(self.config, self.source.bundle, self.question, self.answer,
                                         recording=self.recording, progress=self._record,
                                         second_opinion=self.second_opinion)

    def _record(self, progress: CallProgress) -> None:
        with self._changed:
            self.progress = progress
            self._changed.notify_all()


def start(config: AnswerabilityConfig, source: Source, question: str, answer: str | None, *,
          recording: Recording | None = None, second_opinion: bool = False) -> AssessJob:
    """Start the assessment in a daemon thread and return at once."""
    job = AssessJob(config=config, source=source, question=question, answer=answer, recording=recording,
                    second_opinion=second_opinion)
    job._thread = threading.Thread(target=job._run, name="answerlens-assess", daemon=True)
    job._thread.start()
    return job


def describe(progress: CallProgress | None) -> str:
    """The stage in words: ``reading the prompt (773 tokens)``, ``generating: 120 tokens (prompt: 773)``."""
    if progress is None:
        return "preparing the request"
    again = f" (re-ask {progress.attempt - 1})" if progress.attempt > 1 else ""
    prompt = f"{progress.prompt_tokens:,} tokens" if progress.prompt_tokens is not None else "size not reported"
    if progress.stage == Stage.SENT:
        return f"waiting for the server{again}"
    if progress.stage == Stage.PROMPT:
        return f"reading the prompt ({prompt}){again}"
    if progress.stage == Stage.GENERATING:
        if progress.generated == 0:
            return f"prompt processed ({prompt}), waiting for the first token{again}"
        tokens = "token" if progress.generated == 1 else "tokens"
        return f"prompt processed ({prompt}); {progress.generated:,} {tokens} generated{again}"
    return f"checking the reply{again}"


def stage_html(current: AssessJob) -> str:
    """The line the page shows while the job runs; ``data-assess-stage`` and ``data-generated`` are for tests."""
    step = current.progress
    stage = step.stage.value if step is not None else "preparing"
    line = f"Assessing with {current.config.model}: {describe(step)} · {current.seconds:.0f} s"
    if current.cancelled:
        line = "Cancelling… " + line
    return (f'<div class="al-muted" data-assess-stage="{stage}" '
            f'data-generated="{step.generated if step is not None else 0}">{esc(line)}</div>')
