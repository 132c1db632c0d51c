"""The Review page's queue: where the items come from, the reviewer, the filters, the item under review (drawn by
Inspect's own result blocks), the label bar with its keys, and undo."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import streamlit as st

from answerlens.errors import AnswerlensError, RunStoreError
from answerlens.html.escape import esc
from answerlens.html.markup import notice_html
from answerlens.review.items import FolderSource, Source, StoreSource
from answerlens.review.labels import Label, LabelStore, reviewer_from
from answerlens.review.shown import Item, Opened
from answerlens.ui.common import history
from answerlens.ui.inspect import view as inspect_view
from answerlens.ui.inspect import viewmodel as inspect_model
from answerlens.ui.review import keys_view
from answerlens.ui.review import viewmodel as model

STORED, FOLDER = "Stored runs", "A trial or sweep folder"


def reviewer(prefix: str) -> str | None:
    """Who is labelling: the sidebar's setting, first filled from ``ANSWERLENS_REVIEWER``."""
    key = f"{prefix}.reviewer"
    if key not in st.session_state:
        st.session_state[key] = reviewer_from() or ""
    name = st.sidebar.text_input("Reviewer", key=key, help="stored with every label you give (default: the "
                                 "ANSWERLENS_REVIEWER environment variable)").strip()
    return name or None


@st.cache_resource(max_entries=4, show_spinner="Reading and verifying the folder…")
def _folder(path: str, _signature: tuple[Any, ...]) -> FolderSource | AnswerlensError:
    try:
        return FolderSource(Path(path))
    except (AnswerlensError, OSError, ValueError) as exc:
        return exc if isinstance(exc, AnswerlensError) else AnswerlensError(str(exc))


def _signature(path: Path) -> tuple[Any, ...]:
    """What a cached folder is valid for: every file's size and time (an edited sample reads afresh)."""
    files = [path] if path.is_file() else sorted(item for item in path.rglob("*.json") if item.is_file())
    return tuple((str(item), item.stat().st_mtime_ns, item.stat().st_size) for item in files)


def source(prefix: str, cwd: Path) -> Source | None:
    """The stored runs, or a trial's or sweep's folder (``?source=PATH`` opens one)."""
    linked = st.query_params.get("source")
    if linked and st.session_state.get(f"{prefix}.linked") != linked:
        st.session_state[f"{prefix}.linked"] = linked
        st.session_state[f"{prefix}.kind"], st.session_state[f"{prefix}.path"] = FOLDER, linked
    kind = st.radio("Review", (STORED, FOLDER), key=f"{prefix}.kind", horizontal=True, label_visibility="collapsed")
    if kind == STORED:  # one per session: a run is re-derived once per session, not at every key pressed
        runs = history.store(st.session_state)
        kept = st.session_state.get(f"{prefix}.store_source")
        if not isinstance(kept, StoreSource) or kept.runs.path != runs.path:
            kept = st.session_state[f"{prefix}.store_source"] = StoreSource(runs)
        return kept
    text = st.text_input("Folder", key=f"{prefix}.path", placeholder="runs/questions-20260101-120000",
                         help="a trial run folder (or its result.json) or a sweep folder, relative to "
                         f"{cwd}").strip()
    if not text:
        return None
    path = Path(text).expanduser()
    path = path if path.is_absolute() else cwd / path
    if not path.exists():
        st.html(notice_html("error", f"{text}: no such file or folder", None, "give a trial or sweep folder"))
        return None
    found = _folder(str(path), _signature(path))
    if isinstance(found, AnswerlensError):
        st.html(notice_html("error", "Cannot read this folder", str(found), "give a trial or sweep folder"))
        return None
    for problem in found.problems:
        st.html(notice_html("info", "Some samples cannot be shown", problem))
    return found


def filters(prefix: str, items: list[Item]) -> model.Filters:
    verdicts = [verdict.value for _, verdict, _ in model.VERDICT_KEYS]
    active = any(st.session_state.get(f"{prefix}.filter.{name}") for name in ("verdict", "source", "since"))
    left, middle, right = st.expander("Filter the queue", expanded=active).columns(3)
    chosen = left.multiselect("Judge's verdict", verdicts, key=f"{prefix}.filter.verdict", placeholder="any")
    origins = middle.multiselect("Model / source", model.source_options(items), key=f"{prefix}.filter.source",
                                 placeholder="any")
    since = right.date_input("Since", value=None, key=f"{prefix}.filter.since", help="stored on or after this day")
    return model.Filters(tuple(chosen), tuple(origins), since if not isinstance(since, tuple) else None)


def items(src: Source) -> list[Item]:
    """The source's items; none (with the notice) when the run store cannot be read."""
    try:
        return src.items()
    except RunStoreError as exc:
        st.html(notice_html("error", "The run history cannot be read", exc.detail, exc.remedy))
        return []


def labels(store: LabelStore) -> list[Label]:
    try:
        return store.labels()
    except AnswerlensError as exc:  # the file (RunStoreError), or a damaged label (LabelError)
        st.html(notice_html("error", "The labels cannot be read", str(exc)))
        return []


def queue(prefix: str, src: Source, items: list[Item], all_labels: list[Label], name: str | None) -> None:
    """The item under review with the label bar above it; every action is a button with its key."""
    if not items:
        st.html(notice_html("info", "Nothing to review", "No run matches (see the filters); assess some on the "
                            "Inspect page, or open a trial or sweep folder."))
        return
    mine = model.mine(all_labels, name)
    keys = [item.key for item in items]
    by_key = {item.key: item for item in items}
    labelled = {item.key for item in items if model.label_of(item, mine) is not None}
    current = model.current_key(keys, st.session_state.get(f"{prefix}.current"), labelled)
    assert current is not None
    st.session_state[f"{prefix}.current"] = current
    st.session_state[f"{prefix}.keys"] = keys
    opened = src.open(by_key[current])
    label = model.label_of(by_key[current], mine, _sha(opened))
    _load(prefix, current, label)
    st.html(model.position_html(keys, current, labelled, label))
    _bar(prefix, opened, label, name, labelled)
    keys_view.install(prefix)
    _item(prefix, opened)


def _sha(opened: Opened) -> str | None:
    return opened.assessment.assessment_sha256 if opened.assessment is not None else None


def _load(prefix: str, current: str, label: Label | None) -> None:
    """A newly shown item starts with its label's note and wrong requirements (before those widgets exist)."""
    if st.session_state.get(f"{prefix}.loaded") == current:
        return
    st.session_state[f"{prefix}.loaded"] = current
    st.session_state[f"{prefix}.note"] = label.note if label is not None else ""
    st.session_state[f"{prefix}.wrong"] = list(label.requirements_wrong) if label is not None else []
    st.session_state.pop(f"{prefix}.focus", None)  # another item, other requirements


def _bar(prefix: str, opened: Opened, label: Label | None, name: str | None, labelled: set[str]) -> None:
    if name is None:
        st.html(notice_html("warning", "Who is reviewing?", "Labels are stored with the reviewer's name.",
                            "set Reviewer in the sidebar (or ANSWERLENS_REVIEWER) to label"))
    can = name is not None and opened.reviewable
    with st.container(horizontal=True, key=f"{prefix}.verdicts"):
        for key, verdict, text in model.VERDICT_KEYS:
            chosen = label is not None and label.verdict is verdict
            st.button(text, key=f"{prefix}.label.{key}", shortcut=key, disabled=not can,
                      type="primary" if chosen else "secondary", on_click=_label,
                      args=(prefix, opened, verdict, name, labelled))
    with st.container(horizontal=True, key=f"{prefix}.moves"):
        st.button("Previous", key=f"{prefix}.prev", shortcut="Left", icon=":material/arrow_back:",
                  on_click=_move, args=(prefix, -1))
        st.button("Next", key=f"{prefix}.next", shortcut="Right", icon=":material/arrow_forward:",
                  on_click=_move, args=(prefix, 1))
        undo: list[model.Done] = st.session_state.get(f"{prefix}.undo", [])
        st.button("Undo", key=f"{prefix}.undo_button", shortcut="U", icon=":material/undo:", disabled=not undo,
                  on_click=_undo, args=(prefix,), help="take back the last label you gave")
    with st.container(key=f"{prefix}.aliases"):  # j/k as well as the arrows: hidden twins of Previous and Next
        st.button("k", key=f"{prefix}.prev_k", shortcut="K", on_click=_move, args=(prefix, -1))
        st.button("j", key=f"{prefix}.next_j", shortcut="J", on_click=_move, args=(prefix, 1))
    st.html(f"<style>.st-key-{prefix}-aliases{{display:none}}</style>")
    note, wrong = st.columns([3, 2])
    note.text_area("Note (optional)", key=f"{prefix}.note", height=68, disabled=not can, on_change=_relabel,
                   args=(prefix, opened, label), placeholder="press n to write; Esc to leave")
    count = len(opened.assessment.requirements) if opened.assessment is not None else 0
    wrong.multiselect("Requirements whose status is wrong", list(range(1, count + 1)), key=f"{prefix}.wrong",
                      disabled=not can, on_change=_relabel, args=(prefix, opened, label), placeholder="none")
    st.html(model.shortcuts_html())


def _store(prefix: str) -> LabelStore:
    return LabelStore(history.store(st.session_state))


def _label(prefix: str, opened: Opened, verdict: Any, name: str | None, labelled: set[str]) -> None:
    if name is None or opened.assessment is None:
        return
    written = model.new_label(evaluation_id=opened.assessment.evaluation_id,
                              assessment_sha256=opened.assessment.assessment_sha256, reviewer=name, verdict=verdict,
                              note=st.session_state.get(f"{prefix}.note", ""),
                              wrong=st.session_state.get(f"{prefix}.wrong", []))
    try:
        before = _store(prefix).save(written)
    except (RunStoreError, AnswerlensError) as exc:
        st.session_state[f"{prefix}.problem"] = str(exc)
        return
    st.session_state.setdefault(f"{prefix}.undo", []).append(model.Done(opened.item.key, written, before))
    keys = st.session_state.get(f"{prefix}.keys", [])
    st.session_state[f"{prefix}.current"] = model.after_labelling(keys, opened.item.key,
                                                                  labelled | {opened.item.key})


def _relabel(prefix: str, opened: Opened, label: Label | None) -> None:
    """A note or wrong requirement changed on an item already labelled: keep them with its label."""
    if label is None:
        return
    changed = label.model_copy(update={"note": st.session_state.get(f"{prefix}.note", "").strip(),
                                       "requirements_wrong": tuple(sorted(st.session_state.get(f"{prefix}.wrong",
                                                                                                [])))})
    try:
        _store(prefix).save(changed)
    except (RunStoreError, AnswerlensError) as exc:
        st.session_state[f"{prefix}.problem"] = str(exc)


def _move(prefix: str, delta: int) -> None:
    keys = st.session_state.get(f"{prefix}.keys", [])
    st.session_state[f"{prefix}.current"] = model.step(keys, st.session_state.get(f"{prefix}.current"), delta)


def _undo(prefix: str) -> None:
    done: list[model.Done] = st.session_state.get(f"{prefix}.undo", [])
    if not done:
        return
    last = done.pop()
    store = _store(prefix)
    try:
        if last.before is None:
            store.remove(*last.written.key)
        else:
            store.save(last.before)
    except (RunStoreError, AnswerlensError) as exc:
        st.session_state[f"{prefix}.problem"] = str(exc)
        return
    st.session_state[f"{prefix}.current"] = st.session_state[f"{prefix}.loaded"] = last.item_key
    st.session_state[f"{prefix}.note"] = last.written.note  # what was typed stays, for the next label
    st.session_state[f"{prefix}.wrong"] = list(last.written.requirements_wrong)


def _item(prefix: str, opened: Opened) -> None:
    problem = st.session_state.pop(f"{prefix}.problem", None)
    if problem:
        st.html(notice_html("error", "The label was not stored", problem))
    item = opened.item
    if opened.assessment is None or opened.problems:
        st.html(notice_html("error", f"{item.key} does not verify: it cannot be labelled, and labels of it are void",
                            "; ".join(opened.problems), "assess it again (the same inputs replace a stored run)"))
        return
    if opened.context is None:
        st.html(notice_html("info", "The context isn't available for this sample", opened.missing))
        return
    entry = _entry(opened)
    st.html(f'<div data-review-item="{esc(item.key)}">{inspect_model.asked_html(entry)}</div>')
    left, right = st.columns([10, 11], gap="medium")
    with left:
        focus = inspect_view.verdict_block(prefix, entry, opened.opinion, stale=False)
    with right:
        inspect_view.context_block(prefix, entry, opened.opinion, focus)


def _entry(opened: Opened) -> history.Entry:
    """The item as Inspect's blocks take it (a stored run keeps its number)."""
    assert opened.assessment is not None
    item = opened.item
    run = history.unsaved_run(assessment=opened.assessment, question=item.question, answer=item.answer,
                              source=item.bundle or item.key, label=item.source, created=item.created)
    if item.number is not None:
        run = dataclasses.replace(run, number=item.number)
    store = history.store(st.session_state)
    return history.Entry(run, store, assessment=opened.assessment, context=opened.context, opinion=opened.opinion)
