import json
import re

import pytest
from pydantic import SecretStr, ValidationError

from answerlens import AnswerabilityConfig
from answerlens.audit import canonical_json_ascii, sha256_text
from answerlens.config import DEFAULT_MODELS, default_model
from tests.paths import PRME

PRME_CONFIG = {
    "provider": "openai",
    "model": "stub-model",
    "base_url": "http://127.0.0.1:18765/v1",
    "max_retries": 0,
    "timeout": 20.0,
    "temperature": 0.0,
}


def _sha(config: AnswerabilityConfig) -> str:
    return sha256_text(canonical_json_ascii(config.public_dump()))


def test_upstream_only_configuration_hashes_as_prme() -> None:
    expected = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
    config = AnswerabilityConfig(**PRME_CONFIG, api_key=SecretStr("sk-anything"))
    assert _sha(config) == expected["configuration_sha256"]
    assert expected["configuration_sha256"].startswith("07697f20")


def test_answerlens_fields_are_hashed_only_when_set() -> None:
    base = AnswerabilityConfig(**PRME_CONFIG)
    assert "seed" not in base.public_dump()
    seeded = AnswerabilityConfig(**PRME_CONFIG, seed=7)
    assert seeded.public_dump()["seed"] == 7
    assert _sha(seeded) != _sha(base)


def test_api_key_never_in_repr_or_dumps() -> None:
    config = AnswerabilityConfig(api_key=SecretStr("sk-PLANTED-999"))
    for text in (repr(config), str(config), json.dumps(config.public_dump()), config.model_dump_json()):
        assert "sk-PLANTED-999" not in text


@pytest.mark.parametrize(
    "values",
    [
        pytest.param({"max_retries": 11}, id="retries_too_many"),
        pytest.param({"timeout": 0}, id="timeout_zero"),
        pytest.param({"temperature": 2.5}, id="temperature_too_high"),
        pytest.param({"model": "  "}, id="blank_model"),
        pytest.param({"provider": "anthropic"}, id="unknown_provider"),
        pytest.param({"colour": "red"}, id="extra_field"),
        pytest.param({"timeout": float("inf")}, id="infinite_timeout"),
    ],
)
def test_invalid_configuration(values: dict) -> None:
    with pytest.raises(ValidationError):
        AnswerabilityConfig(**values)


def test_base_url_is_normalised_and_defaults_per_provider() -> None:
    assert AnswerabilityConfig(base_url=" http://h:1/v1/ ").base_url == "http://h:1/v1"
    assert AnswerabilityConfig(provider="ollama").effective_base_url == "http://127.0.0.1:11434/v1"
    assert AnswerabilityConfig(provider="replay").effective_base_url is None


@pytest.mark.parametrize(
    "values, message",
    [
        pytest.param({"base_url": "http://[::1"}, "is not a valid URL", id="broken_ipv6"),
        pytest.param({"base_url": "http://127.0.0.1:99999/v1"}, "port", id="port_out_of_range"),
        pytest.param({"base_url": "ftp://host/v1"}, "not an http(s) URL", id="scheme"),
        pytest.param({"api_key": SecretStr("sk-sécret")}, "must be ASCII", id="non_ascii_key"),
    ],
)
def test_unusable_endpoints_are_refused_up_front(values: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)) as info:
        AnswerabilityConfig(**values)
    assert "sécret" not in str(info.value)


@pytest.mark.parametrize(
    "provider, model",
    [
        pytest.param("ollama", "qwen3.5:9b", id="ollama"),
        pytest.param("openai", "gpt-4o-mini", id="openai_as_prme"),
        pytest.param("llamacpp", "local-gguf", id="llamacpp"),
        pytest.param("replay", "recorded", id="replay"),
    ],
)
def test_a_provider_without_a_model_gets_its_own_default(provider: str, model: str) -> None:
    assert AnswerabilityConfig(provider=provider).model == model
    assert AnswerabilityConfig(provider=provider, model=None).model == model
    assert AnswerabilityConfig.model_validate({"provider": provider}).model == model
    assert default_model(provider) == DEFAULT_MODELS[provider] == model
    assert AnswerabilityConfig(provider=provider, model="chosen").model == "chosen"


def test_default_provider_stays_ollama_and_openai_default_is_prmes() -> None:
    assert AnswerabilityConfig().provider == "ollama"
    assert AnswerabilityConfig().model == DEFAULT_MODELS["ollama"]
    # PRME 0.15.0: AnswerabilityConfig(provider="openai").model == "gpt-4o-mini"
    assert AnswerabilityConfig(provider="openai").public_dump()["model"] == "gpt-4o-mini"


def test_prompt_choice_is_not_hashed() -> None:
    # PRME records its prompt through prompt_version/prompt_sha256, so does answerlens: the hash stays PRME's.
    expected = json.loads((PRME / "assessments" / "assessment_reader_openai.json").read_text())
    prme = AnswerabilityConfig(**PRME_CONFIG, prompt="prme")
    assert prme.prompt == "prme" and AnswerabilityConfig().prompt == "answerlens"
    assert "prompt" not in prme.public_dump()
    assert _sha(prme) == _sha(AnswerabilityConfig(**PRME_CONFIG)) == expected["configuration_sha256"]


def test_unknown_prompt_is_refused() -> None:
    with pytest.raises(ValidationError, match="prompt"):
        AnswerabilityConfig(prompt="gpt")


def test_evidence_policy_is_hashed_only_when_strict() -> None:
    base = AnswerabilityConfig(**PRME_CONFIG)
    standard = AnswerabilityConfig(**PRME_CONFIG, evidence_policy="standard")
    strict = AnswerabilityConfig(**PRME_CONFIG, evidence_policy="strict")
    assert base.evidence_policy is None and standard.evidence_policy is None  # standard is the default
    assert "evidence_policy" not in base.public_dump() and "evidence_policy" not in standard.public_dump()
    assert _sha(standard) == _sha(base) == "07697f20436c896db1eed50d46eebf8b73a2f317446e4625c9efd71af2c38c70"
    assert strict.public_dump()["evidence_policy"] == "strict"
    assert _sha(strict) != _sha(base)


def test_unknown_evidence_policy_is_refused() -> None:
    with pytest.raises(ValidationError):
        AnswerabilityConfig(evidence_policy="lenient")
