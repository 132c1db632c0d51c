"""An Inspect assessment running as a background job (``ui.common.job``), so the page can show its stage and
cancel it (no streamlit here). Cancel interrupts the model call: the connection closes, and a llama.cpp server stops
generating at once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from answerlens.config import AnswerabilityConfig
from answerlens.html.escape import esc
from answerlens.providers.engine import CallProgress, Stage
from answerlens.recording import Recording
from answerlens.ui.common import job as background
from answerlens.ui.common import runner
from answerlens.ui.common.job import Job
from answerlens.ui.common.runner import Failure, Run
from answerlens.ui.common.sources import Source


@dataclass(frozen=True)
class AssessJob:
    """What was asked, and the job answering it."""

    config: AnswerabilityConfig
    source: Source
    question: str
    answer: str | None
    job: Job[CallProgress, Run]

    @property
    def run(self) -> Run | None:
        """How it ended: an assessment, a failure, or a cancel (kind ``cancelled``); None while it runs."""
        current = self.job
        if current.running:
            return None
        if current.result is not None:
            return current.result
        if current.interrupted:
            return Run(None, Failure("Cancelled — no verdict was produced",
                                     f"stopped after {current.seconds:.1f} s, while {describe(current.progress)}",
                                     "press Assess to run it again", "cancelled"), current.seconds)
        return Run(None, Failure("Unexpected error (a bug in answerlens)", f"{type(current.error).__name__}: "
                                 f"{current.error}", "please report it with the bundle", "bug"), current.seconds)


def start(config: AnswerabilityConfig, source: Source, question: str, answer: str | None, *,
          recording: Recording | None = None, second_opinion: bool = False) -> AssessJob:
    """Start the assessment in the background and return at once."""

    async def work(report: background.Report[CallProgress], cancel: threading.Event) -> Run:
        return await runner.assess_async(config, source.bundle, question, answer, recording=recording,
                                         progress=report, second_opinion=second_opinion)

    return AssessJob(config, source, question, answer, background.start(work, name="assess", interrupt=True))


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
    step = current.job.progress
    stage = step.stage.value if step is not None else "preparing"
    line = f"Assessing with {current.config.model}: {describe(step)} · {current.job.seconds:.0f} s"
    if current.job.cancelling:
        line = "Cancelling… " + line
    return (f'<div class="al-muted" data-assess-stage="{stage}" '
            f'data-generated="{step.generated if step is not None else 0}">{esc(line)}</div>')
