"""The Trials page's run side: dataset, settings, Run with live progress and Cancel, and opening results.

What is shown afterwards (summary, gates, charts, samples) lives in ``trial_report_view``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import streamlit as st

from answerlens.errors import AnswerlensError
from answerlens.html.escape import esc
from answerlens.html.markup import fit_notes_html, notice_html
from answerlens.html.trial_rows import counted
from answerlens.trials import fit, limits
from answerlens.trials.dataset import Dataset, load_dataset, run_dataset
from answerlens.trials.reader import read_trial
from answerlens.trials.result import TrialResult
from answerlens.ui.common.endpoint_view import Choice
from answerlens.ui.inspect.job import describe
from answerlens.ui.trials import job as trial_job
from answerlens.ui.trials import sources as trial_sources
from answerlens.ui.trials.job import TrialJob
from answerlens.ui.trials.report_model import digest
from answerlens.ui.trials.runstate import outcome_notice

KINDS = ("Shipped dataset", "Upload a dataset", "A dataset on this machine")


@dataclass
class Shown:
    """The result on screen and where it came from; ``dataset`` is resolved lazily (None: not yet)."""

    result: TrialResult
    origin: str
    dataset: Dataset | str | None = None
    verified: trial_sources.Verified = field(default_factory=trial_sources.Verified)
    """What ``answerlens verify`` says of it, checked when it was opened."""
    key: str = field(init=False)
    """The result's ``digest``: what the report's figures and tables are built once for (``report_view``)."""

    def __post_init__(self) -> None:
        self.key = digest(self.result)


@dataclass(frozen=True)
class Picked:
    name: str
    dataset: Dataset
    upload: bytes | None = None


@st.cache_resource(max_entries=16, show_spinner=False)
def _load_path(path: str, mtime_ns: int, size: int) -> Dataset | AnswerlensError:
    try:
        return load_dataset(path)
    except AnswerlensError as exc:
        return exc


@st.cache_resource(max_entries=8, show_spinner=False)
def _load_upload(digest: str, name: str, _data: bytes) -> Dataset | AnswerlensError:
    try:
        return trial_sources.load_upload(_data, name)
    except AnswerlensError as exc:
        return exc


def _from_path(path: Path) -> Dataset | AnswerlensError:
    try:
        stat = path.stat()
    except OSError as exc:
        return AnswerlensError(f"{path}: cannot read the dataset ({exc.strerror})")
    return _load_path(str(path), stat.st_mtime_ns, stat.st_size)


def dataset_picker(prefix: str, samples_dir: Path, cwd: Path) -> Picked | None:
    kind = st.radio("Dataset", KINDS, horizontal=True, key=f"{prefix}.dataset_kind")
    upload = None
    if kind == KINDS[0]:
        shipped = trial_sources.shipped_datasets(samples_dir)
        if not shipped:
            st.html(notice_html("info", f"No datasets in {samples_dir / 'trials'}", remedy="upload one instead"))
            return None
        name = st.selectbox("Dataset", list(shipped), key=f"{prefix}.dataset")
        if name is None:
            return None
        loaded = _from_path(shipped[name])
    elif kind == KINDS[1]:
        file = st.file_uploader("Dataset (.json list of cases, or .jsonl); bundles must be inline",
                                type=["json", "jsonl"], key=f"{prefix}.dataset_upload")
        if file is None:
            return None
        name, upload = file.name, file.getvalue()
        loaded = _load_upload(hashlib.sha256(upload).hexdigest(), name, upload)
    else:
        text = st.text_input("Dataset path (bundle paths are relative to it)", key=f"{prefix}.dataset_path",
                             placeholder="sample_bundles/trials/questions.json").strip()
        if not text:
            return None
        path = Path(text).expanduser()
        name, loaded = path.name, _from_path(path if path.is_absolute() else cwd / path)
    if isinstance(loaded, AnswerlensError):
        st.html(notice_html("error", "This dataset cannot be used", remedy="fix the cases named above, or pick "
                            "another dataset", code=str(loaded)))
        return None
    _describe(loaded)
    return Picked(name, loaded, upload)


def _describe(dataset: Dataset) -> None:
    cases = [item.case for item in dataset.cases]
    answerable = sum(case.label == "answerable" for case in cases)
    drafts = sum(case.answer is not None for case in cases)
    st.html(f'<p class="al-muted" style="margin:0" data-dataset-cases="{len(cases)}">{len(cases)} cases '
            f"({answerable} answerable, {len(cases) - answerable} unanswerable; {drafts} with a draft answer) · "
            f"sha256 {esc(dataset.sha256[:16])}…</p>")


def settings(prefix: str, picked: Picked | None, cwd: Path) -> tuple[int, int | None, str]:
    """Repeats, concurrency (None: as many as the server serves) and the output directory (a fresh
    ``runs/<dataset>-<time>`` per dataset)."""
    name = picked.name if picked is not None else "dataset"
    if st.session_state.get(f"{prefix}.out_for") != name:
        st.session_state[f"{prefix}.out_for"] = name
        st.session_state[f"{prefix}.out"] = str(trial_sources.default_out(cwd, name, datetime.now()))
    repeats_column, concurrency_column, out_column = st.columns([1, 1, 4])
    repeats = repeats_column.number_input("Repeats", min_value=1, max_value=limits.MAX_REPEATS, value=3,
                                          key=f"{prefix}.repeats")
    concurrency = concurrency_column.number_input(
        "Requests in flight", min_value=0, max_value=limits.MAX_CONCURRENCY, value=0, key=f"{prefix}.concurrency",
        help=f"0: as many as the server serves at once ({fit.DEFAULT_CONCURRENCY} at most; the embedded model serves "
             "1); a llama.cpp server's timeout then also follows its measured speed")
    out = out_column.text_input("Output directory (run again into it to resume)", key=f"{prefix}.out")
    return int(repeats), int(concurrency) or None, out


def run_button(prefix: str, picked: Picked | None, choice: Choice, repeats: int, concurrency: int | None, out: str,
               cwd: Path) -> None:
    job: TrialJob | None = st.session_state.get(f"{prefix}.job")
    busy = job is not None and job.job.running
    why = ("a trial is running" if busy else "choose a dataset" if picked is None
           else "set the endpoint in the sidebar" if choice.config is None else None)
    if not st.button("Run trial", type="primary", key=f"{prefix}.run", disabled=why is not None, help=why):
        return
    assert picked is not None and choice.config is not None
    target = Path(out.strip() or ".").expanduser()
    target = target if target.is_absolute() else cwd / target
    try:
        dataset = trial_sources.keep_upload(picked.upload, picked.name, target) if picked.upload else picked.dataset
    except (AnswerlensError, OSError) as exc:
        st.html(notice_html("error", "The dataset cannot be written to the output directory", str(exc),
                            "choose another output directory"))
        return
    st.session_state[f"{prefix}.job"] = trial_job.start(dataset, choice.config, out=target, repeats=repeats,
                                                        concurrency=concurrency)
    st.session_state.pop(f"{prefix}.shown", None)


def progress(prefix: str) -> None:
    """While a trial runs: the live progress (polled); once it ends: how it ended, and its report."""
    job: TrialJob | None = st.session_state.get(f"{prefix}.job")
    if job is None:
        return
    if job.job.running:
        _live(prefix)
        return
    _ended(prefix, job)


@st.fragment(run_every=1.0)
def _live(prefix: str) -> None:
    job: TrialJob | None = st.session_state.get(f"{prefix}.job")
    if job is None:
        return
    if not job.job.running:
        st.rerun()  # the whole page: show how it ended
    step = job.job.progress
    done, total = (step.done, step.total) if step else (0, job.total)
    st.progress(done / total if total else 0.0)
    stage = describe(job.call) if job.call is not None else "checking the endpoint and the output folder"
    if step is None:
        line = (f"first sample: {stage} · {job.total} samples in all (saved ones are reused) · "
                f"{job.job.seconds:.0f} s")
    else:
        p = step
        eta = f"{p.eta:.0f} s" if p.eta is not None else "?"
        line = (f"{p.done} / {p.total} samples · {p.rate:.2f}/s · ETA {eta} · {counted(p.errors, 'error')} · "
                f"last: {p.last} · now: {stage}")
    if job.job.cancelling:
        line = "cancelling: waiting for the samples in flight · " + line
    call_stage = job.call.stage.value if job.call is not None else "preparing"
    st.html(f'<div class="al-muted" data-trial-progress="{done}/{total}" data-call-stage="{call_stage}">'
            f"{esc(line)}</div>")
    st.button("Cancel", key=f"{prefix}.cancel", on_click=job.job.cancel, icon=":material/stop:",
              disabled=job.job.cancelling, help="finished samples are kept; Run again resumes")


def _ended(prefix: str, job: TrialJob) -> None:
    if job.failure is not None:
        failure = job.failure
        st.html(f'<div data-run-state="refused">{notice_html("error", failure.title, failure.message, failure.remedy)}'
                "</div>")
        return
    outcome = job.outcome
    assert outcome is not None
    notice = outcome_notice(outcome, job.out, job.job.seconds)
    st.html(notice.html())
    if outcome.fit is not None and outcome.fit.notes:
        st.html(fit_notes_html(outcome.fit.notes, "trial"))
    if st.session_state.get(f"{prefix}.shown_job") != id(job):
        st.session_state[f"{prefix}.shown_job"] = id(job)
        try:  # a finished run's result is in hand; a cancelled one is read from the samples saved so far
            result = outcome.result if outcome.result is not None else read_trial(job.out)
        except AnswerlensError as exc:  # a cancel before the first sample leaves nothing to show
            st.html(notice_html("info", "Nothing to show yet", str(exc)))
            return
        st.session_state[f"{prefix}.shown"] = Shown(result, str(outcome.result_path or job.out), job.dataset,
                                                    _verified(lambda: trial_sources.verify_result(job.out)))


EXAMPLE = ("trials", "example", "result.json")
"""Under the sample directory: the shipped example result (``make_example.py`` beside it regenerates it)."""


@st.cache_resource(max_entries=2, show_spinner=False)
def _example(path: str, mtime_ns: int, app_root: str) -> Shown | AnswerlensError:
    try:
        result = read_trial(path)
    except AnswerlensError as exc:
        return exc
    # Its dataset path is relative to the repository root: resolved there, wherever the app was started from.
    return Shown(result, f"shipped example sample_bundles/{Path(*EXAMPLE).as_posix()}",
                 run_dataset(result, Path(app_root)),
                 _verified(lambda: trial_sources.verify_result(Path(path))))


def example(samples_dir: Path, app_root: Path) -> Shown | None:
    """The shipped example result, with what it is; None (and why) when it cannot be read."""
    path = samples_dir.joinpath(*EXAMPLE)
    loaded = _example(str(path), path.stat().st_mtime_ns, str(app_root)) if path.is_file() else None
    if not isinstance(loaded, Shown):
        st.html(notice_html("info", "The shipped example result is not there", str(loaded or path),
                            "open a result or run a trial instead"))
        return None
    st.html(notice_html("info", "An example result: questions.json, 2 repeats, answered by hand-written replies",
                        "a person wrote every reply (replayed, not produced by a model), with deliberate mistakes "
                        "and two scripted failures, so each part of this page has something to show",
                        "run a trial against your own model to measure it; sample_bundles/trials/example/"
                        "make_example.py regenerates this file"))
    return loaded


def result_picker(prefix: str, cwd: Path) -> None:
    """Open a run directory, a result.json or an upstream result file, by path or by upload."""
    path_column, button_column = st.columns([5, 1], vertical_alignment="bottom")
    text = path_column.text_input("Run directory, result.json, or an upstream trial result file",
                                  key=f"{prefix}.open_path", placeholder="runs/questions-20260101-120000")
    if button_column.button("Open", key=f"{prefix}.open", width="stretch"):
        _show(prefix, lambda: trial_sources.open_result(text, cwd), text.strip(),
              lambda: trial_sources.verify_result(trial_sources.result_path(text, cwd)))
    file = st.file_uploader("…or upload a result file", type=["json"], key=f"{prefix}.open_upload")
    if file is not None:
        data = file.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        if st.session_state.get(f"{prefix}.opened_upload") != digest:
            st.session_state[f"{prefix}.opened_upload"] = digest
            _show(prefix, lambda: trial_sources.open_upload(data, file.name), f"uploaded {file.name}",
                  lambda: trial_sources.verify_upload(data, file.name))
    problem = st.session_state.get(f"{prefix}.open_error")
    if problem is not None:
        st.html(notice_html("error", "This result cannot be opened", problem,
                            "give a run directory (with samples/ or result.json), a result.json, or an upstream "
                            "beam-answerability-execution file"))


def _show(prefix: str, read: Callable[[], TrialResult], origin: str,
          verify: Callable[[], trial_sources.Verified]) -> None:
    try:
        result = read()
    except AnswerlensError as exc:
        st.session_state.pop(f"{prefix}.shown", None)
        st.session_state[f"{prefix}.open_error"] = str(exc)
        return
    st.session_state.pop(f"{prefix}.open_error", None)
    st.session_state[f"{prefix}.shown"] = Shown(result, origin, verified=_verified(verify))


def _verified(verify: Callable[[], trial_sources.Verified]) -> trial_sources.Verified:
    """What verify says, on opening; a file that cannot be verified at all says so (it was read, so it is shown
    with that problem, never as verified)."""
    try:
        return verify()
    except (AnswerlensError, ValueError, OSError) as exc:
        return trial_sources.Verified((f"it cannot be verified: {exc}",))
