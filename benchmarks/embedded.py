"""The embedded model's time per sample assessment, by stage: the bundled SmolLM2-135M in the in-process
llama.cpp server, started as the app starts it, assessing every shipped sample that calls a model and a
16-record bundle; then the cost of the structured-output grammar on one sample.

``python embedded.py`` prints one JSON line. ``--before`` adds the settings this replaced (the unbounded schema with
max_tokens 1024, every core generating) on two samples, for comparison. The machine's load average is recorded
with every figure, because other work on a 2-core machine changes them severalfold.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from bundles import prme_bundle

from answerlens import AnswerabilityConfig, AnswerabilityError, AnswerabilityEvaluator, load_bundle, verify_assessment
from answerlens.local_model import LocalServer, start_server, thread_counts, usable_cpus
from answerlens.prompts import RESPONSE_SCHEMA, SYSTEM_PROMPT, reply_bound, user_message
from answerlens.providers.engine import CallProgress, Stage
from answerlens.samples import Sample, load_sample
from answerlens.ui.common.local_model import CTX

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bundles"
SIXTEEN_QUESTION = "Which database does the checkout flow depend on, and who reported problems with feature flags?"
GRAMMAR_SAMPLE = "speech_act_eslint"
BEFORE_SAMPLES = ("answerable_billing_database", "speech_act_eslint")


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


class Stages:
    """Seconds from the start of a call to each stage it reported."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.marks: dict[str, float] = {}
        self.last: CallProgress | None = None

    def __call__(self, progress: CallProgress) -> None:
        name = progress.stage.value
        if progress.stage == Stage.GENERATING:
            name = "prompt_processed" if progress.generated == 0 else "first_token"
        self.marks.setdefault(f"{name}@{progress.attempt}", time.perf_counter() - self.started)
        self.last = progress


async def assess_one(server: LocalServer, name: str, question: str, bundle: Any, answer: str | None) -> dict[str, Any]:
    config = AnswerabilityConfig(provider="llamacpp", model="smollm2", base_url=server.base_url, timeout=300,
                                 seed=7)
    stages = Stages()
    item: dict[str, Any] = {"name": name, "load_before": load(), "max_tokens": reply_bound(question, answer).max_tokens}
    try:
        async with AnswerabilityEvaluator(config) as evaluator:
            assessment = await evaluator.assess(question, bundle, answer=answer, progress=stages)
    except AnswerabilityError as exc:
        item |= {"error": exc.kind, "message": str(exc)[:200]}
    except ValueError as exc:  # refused before any call (a reader bundle without citations)
        item |= {"error": "refused", "message": str(exc)[:200]}
    else:
        meta = assessment.provider_metadata
        item |= {"verdict": assessment.verdict.value, "verifies": verify_assessment(assessment).ok,
                 "model_called": assessment.model_called, "attempts": meta.attempts if meta else None,
                 "prompt_tokens": meta.prompt_tokens if meta else None,
                 "completion_tokens": meta.completion_tokens if meta else None,
                 "raw_output_sha256": assessment.raw_output_sha256}
    item |= {"seconds": round(time.perf_counter() - stages.started, 2),
             "stages_s": {key: round(value, 2) for key, value in stages.marks.items()}, "load_after": load()}
    return item


def timed_request(server: LocalServer, messages: list[dict[str, str]], schema: dict[str, Any] | None,
                  max_tokens: int) -> dict[str, Any]:
    """One plain request with llama.cpp's own timings: how fast tokens come with and without a grammar."""
    payload: dict[str, Any] = {"messages": messages, "temperature": 0.0, "seed": 7, "repeat_penalty": 1.1,
                               "cache_prompt": False, "max_tokens": max_tokens}
    if schema is not None:
        payload["response_format"] = {"type": "json_schema", "json_schema": {"name": "a", "schema": schema}}
    before = load()
    data = httpx.post(f"{server.base_url}/chat/completions", json=payload, timeout=600).json()
    timings = data["timings"]
    return {"prompt_tokens": timings["prompt_n"], "prompt_ms": round(timings["prompt_ms"]),
            "tokens": timings["predicted_n"], "generation_ms": round(timings["predicted_ms"]),
            "tokens_per_s": round(timings["predicted_per_second"], 1),
            "finish_reason": data["choices"][0]["finish_reason"], "load_before": before, "load_after": load()}


def grammar_cost(server: LocalServer, sample: Sample) -> dict[str, Any]:
    bound = reply_bound(sample.question, sample.answer)
    user = user_message(sample.question, sample.load().exact_context, sample.answer)
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
    arms = {"bounded schema": bound.schema(), "unbounded schema": RESPONSE_SCHEMA, "no response_format": None}
    return {arm: timed_request(server, messages, schema, 1024) for arm, schema in arms.items()}


def cases() -> list[tuple[str, str, Any, str | None]]:
    found: list[tuple[str, str, Any, str | None]] = []
    for path in sorted(SAMPLES.glob("*.json")):
        sample = load_sample(path)
        found.append((path.stem, sample.question, sample.load(), sample.answer))
    found.append(("16 records (PRME format)", SIXTEEN_QUESTION, load_bundle(prme_bundle(16)), None))
    return found


def before(ctx: int) -> list[dict[str, Any]]:
    """The replaced settings: every core generating, the unbounded schema and max_tokens 1024."""
    server = start_server(ctx=ctx, threads=usable_cpus())
    try:
        rows = []
        for name in BEFORE_SAMPLES:
            sample = load_sample(SAMPLES / f"{name}.json")
            user = user_message(sample.question, sample.load().exact_context, sample.answer)
            messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
            rows.append({"name": name, **timed_request(server, messages, RESPONSE_SCHEMA, 1024)})
        return rows
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", action="store_true", help="also time the replaced settings on two samples")
    args = parser.parse_args()
    started, load_at_start = time.perf_counter(), load()
    server = start_server(ctx=CTX)
    window = httpx.get(server.base_url.removesuffix("/v1") + "/props", timeout=10).json()
    result: dict[str, Any] = {
        "model": server.model_name, "ctx": window["default_generation_settings"]["n_ctx"],
        "threads": dict(zip(("generation", "prompt"), thread_counts(), strict=True)),
        "server_start_s": round(server.started_in, 2), "load_at_start": load_at_start}
    try:
        result["assessments"] = [asyncio.run(assess_one(server, *case)) for case in cases()]
        result["grammar"] = grammar_cost(server, load_sample(SAMPLES / f"{GRAMMAR_SAMPLE}.json"))
    finally:
        server.stop()
    if args.before:
        result["before"] = before(CTX)
    result["seconds"] = round(time.perf_counter() - started, 1)
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
