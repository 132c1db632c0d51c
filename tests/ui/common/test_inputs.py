"""Values the app puts into widgets are re-sent until the user owns them."""

from __future__ import annotations

from typing import Any

from answerlens.ui.common import inputs


class Recording(dict[str, Any]):
    """A session state that records every write, as Streamlit would send a "set value" for each."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def __setitem__(self, key: str, value: Any) -> None:
        self.writes.append(key)
        super().__setitem__(key, value)


def test_a_seeded_value_is_written_again_at_every_run_until_released() -> None:
    state = Recording()
    inputs.seed(state, "inspect.question", "Which version?")
    inputs.seed(state, "inspect.answer", "")
    state.writes.clear()
    inputs.hold(state)
    inputs.hold(state)
    assert state.writes == ["inspect.answer", "inspect.question"] * 2
    assert state["inspect.question"] == "Which version?"

    inputs.release(state, "inspect.question")
    state.writes.clear()
    inputs.hold(state)
    assert state.writes == ["inspect.answer"]

    inputs.release(state)
    state.writes.clear()
    inputs.hold(state)
    assert state.writes == []


def test_hold_keeps_the_value_the_user_has_now() -> None:
    state = Recording()
    inputs.seed(state, "inspect.provider", "Recorded response")
    state["inspect.provider"] = "Ollama"  # the browser reported a change
    inputs.hold(state)
    assert state["inspect.provider"] == "Ollama"


def test_a_seeded_key_that_is_gone_is_not_recreated() -> None:
    state = Recording()
    inputs.seed(state, "inspect.paste", "{}")
    del state["inspect.paste"]
    inputs.hold(state)
    assert "inspect.paste" not in state
