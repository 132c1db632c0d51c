"""The provider kinds table: each kind configures with its own defaults, and the table is the one list."""

from __future__ import annotations

import pytest

from answerlens import AnswerabilityConfig
from answerlens.providers.kinds import KINDS, Wire, provider_kind


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_kind_configures_with_its_own_defaults(name: str) -> None:
    kind = provider_kind(name)
    config = AnswerabilityConfig(provider=name)
    assert (config.model, config.effective_base_url) == (kind.default_model, kind.default_base_url)
    assert (kind.default_base_url is None) == (kind.wire == Wire.RECORDED)


def test_an_unknown_kind_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        provider_kind("anthropic")
