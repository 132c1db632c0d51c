"""Values the app puts into its own widgets (a sample's question, a reopened run's inputs, a provider switch),
kept until the browser has certainly shown them.

Why: a value written to ``st.session_state[key]`` reaches the browser once, as a "set value" on that run's widget.
When the browser is still drawing that run and the user clicks something, Chromium drops the run's late updates and
the next run sends the widget without "set value": the box then shows its empty default while the server holds the
question (and the next interaction sends the empty box back). So a seeded value is written again before every run
draws its widgets, until the user edits that widget or presses a button that reads the inputs (``release``).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

SEEDED = "inputs.seeded"
"""Session key: the widget keys whose values the app set and the browser may not have shown yet."""


def seed(state: MutableMapping[Any, Any], key: str, value: Any) -> None:
    """Set a widget's value from code (before the widget is drawn in this run), and keep re-sending it."""
    state[key] = value
    seeded: set[str] = state.setdefault(SEEDED, set())
    seeded.add(key)


def hold(state: MutableMapping[Any, Any]) -> None:
    """Re-send every seeded value; call before any widget of the run is drawn. A write of the value the widget
    already holds changes nothing on the server, and makes the browser show it."""
    for key in sorted(state.get(SEEDED, ())):
        if key in state:
            state[key] = state[key]


def release(state: MutableMapping[Any, Any], *keys: str) -> None:
    """The user now owns these widgets' values (they edited one, or pressed a button that read them): stop
    re-sending; with no keys, release every seeded value."""
    seeded: set[str] = state.get(SEEDED, set())
    if keys:
        seeded.difference_update(keys)
    else:
        seeded.clear()
