"""The Packing page's sweep folders: one per sweep the engine would accept into it."""

from __future__ import annotations

from pathlib import Path

from answerlens.ui.packing import sweeps
from tests.sweeps.helpers import QUESTION, bundle, config


def test_a_sweep_asked_with_the_other_prompt_gets_its_own_folder(tmp_path: Path) -> None:
    # The engine refuses a folder of another prompt, and the page cannot be told another folder: a shared id
    # would leave the sweep unrunnable until its folder was deleted by hand.
    ours = config("http://127.0.0.1:9/v1")
    prme = ours.model_copy(update={"prompt": "prme"})
    ids = {sweeps.plan(QUESTION, None, bundle(), settings, ["compact"], ["packed"], 1, "b.json", tmp_path).id
           for settings in (ours, prme)}
    assert len(ids) == 2
