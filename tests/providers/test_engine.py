"""What every engine is: each provider kind gets an engine that names itself, its server and its stop rule."""

from __future__ import annotations

import httpx
import pytest

from answerlens import AnswerabilityConfig
from answerlens.providers.ask import make_engine
from answerlens.providers.failures import failures_for
from answerlens.providers.kinds import KINDS
from answerlens.recording import Recording
from tests.providers.helpers import VALID


@pytest.mark.parametrize("name", sorted(KINDS))
async def test_every_kind_has_an_engine_that_names_itself(name: str) -> None:
    config = AnswerabilityConfig(provider=name)
    async with httpx.AsyncClient() as client:
        engine = make_engine(config, client, failures_for(config), Recording.of(VALID))
    assert engine.name == name
    assert engine.base_url == config.effective_base_url
    # Only llama.cpp's server cuts a reply short with a finish reason other than "length".
    assert engine.truncates_unless_stopped is (name == "llamacpp")
