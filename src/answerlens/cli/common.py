"""What several commands share: exit codes, usage errors, provider options, the configuration and the bundle.

Only the standard library at module level: the parser is built without importing pydantic or httpx.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from answerlens.providers.kinds import KINDS

if TYPE_CHECKING:
    from answerlens.config import AnswerabilityConfig
    from answerlens.samples import Sample

# One table for every command (README "Exit status"); trial and sweep use all of it.
EXIT_OK = 0
"""Done: verified, or a run complete with every sample assessed (and its gates passed)."""
EXIT_PROBLEMS = 1
"""Not verified (every problem printed), or a complete trial whose gates failed."""
EXIT_BAD_INPUT = 2
"""Bad input: a usage error, a file that is not what the command reads."""
EXIT_PROVIDER = 3
"""The model could not be asked: preflight refused, an assessment failed, a run stopped early on provider failures."""
EXIT_FAILED_SAMPLES = 4
"""A run that finished every sample, some of which failed (no result for those cells or cases)."""
EXIT_UNFINISHED = 5
"""A run (or a folder being verified) that does not hold every sample yet: cancelled, or still running."""
EXIT_ENVIRONMENT = 6
"""The machine refused: a full disk or quota, a read-only file system, no permission to write."""
PROMPTS = ("answerlens", "prme")
"""``AnswerabilityConfig.prompt``'s choices (a test pins them to the config's)."""
FORMATS = ("reader", "auditable", "compact")
"""``ContextFormat``'s values (a test pins them)."""


class UsageError(Exception):
    """Bad command-line input (exit 2)."""


def fail(code: int, message: str) -> int:
    print(f"answerlens: {' '.join(message.split())}", file=sys.stderr)
    return code


def add_provider_options(parser: argparse.ArgumentParser, providers: list[str]) -> None:
    defaults = ", ".join(f"{name}: {KINDS[name].default_model}" for name in providers)
    sample_note = "; replay: the sample's recorded model" if "replay" in providers else ""
    parser.add_argument("--provider", choices=providers, default="ollama")
    parser.add_argument("--model", help=f"model name (default per provider: {defaults}{sample_note})")
    parser.add_argument("--base-url", help="server base URL, e.g. http://127.0.0.1:11434/v1")
    parser.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key")
    parser.add_argument("--timeout", type=float, help="seconds for the whole call (default 30; trial and sweep runs "
                        "against a llama.cpp server take one that covers their largest prompt at the speed it shows)")
    parser.add_argument("--temperature", type=float)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--max-retries", type=int)
    parser.add_argument("--prompt", choices=list(PROMPTS),
                        help="answerlens' prompt (default) or PRME 0.15.0's verbatim, with its prompt identity")


CONFIG_OPTIONS = ("timeout", "temperature", "seed", "max_retries", "prompt", "evidence_policy")


def config_from(args: argparse.Namespace, sample: Sample | None = None) -> AnswerabilityConfig:
    """The configuration the options describe; a bad value is a ``UsageError`` naming it (never the key)."""
    from pydantic import SecretStr, ValidationError

    from answerlens.config import AnswerabilityConfig
    from answerlens.errors import describe_validation

    values: dict[str, Any] = {"provider": args.provider}
    model = args.model or (sample.recorded_model if args.provider == "replay" and sample else None)
    if model:
        values["model"] = model
    if args.base_url:
        values["base_url"] = args.base_url
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            raise UsageError(f"environment variable {args.api_key_env} is not set or empty")
        values["api_key"] = SecretStr(key)
    for name in CONFIG_OPTIONS:
        if getattr(args, name, None) is not None:
            values[name] = getattr(args, name)
    try:
        return AnswerabilityConfig(**values)
    except ValidationError as exc:
        raise UsageError(f"invalid configuration: {describe_validation(exc, '')}") from None


def read_source(path_text: str) -> tuple[Any, Sample | None]:
    """A bundle file's JSON, and its sample when it is a sample file (question, recorded reply)."""
    from pydantic import ValidationError

    from answerlens.errors import describe_validation
    from answerlens.json_reader import read_json
    from answerlens.samples import Sample, is_sample

    data = read_json(Path(path_text), pipes=True)  # a user may stream a bundle through a pipe they name
    if is_sample(data):
        try:
            return data["bundle"], Sample.model_validate(data)
        except ValidationError as exc:
            raise UsageError(f"{path_text}: {describe_validation(exc)}") from None
    return data, None


def question_and_answer(args: argparse.Namespace, sample: Sample | None) -> tuple[str, str | None]:
    """``-q`` (else the sample's question) and ``--answer`` (else the sample's draft, unless ``-q`` asked another
    question)."""
    if args.question is not None and not args.question.strip():
        raise UsageError("-q is empty: pass the question to assess, or leave -q out to use the sample's question")
    question = args.question or (sample.question if sample else None)
    if not question:
        raise UsageError("a question is needed: pass -q QUESTION")
    answer = args.answer if args.answer is not None else (sample.answer if sample and not args.question else None)
    return question, answer


CONCURRENCY_HELP = "requests in flight per endpoint (1–256; default: 4, or fewer when the server serves fewer at once)"


def concurrency_text(concurrency: int | None) -> str:
    """How a run's start line names its concurrency (unset: the endpoint decides)."""
    return f"concurrency {concurrency}" if concurrency is not None else "the concurrency the endpoint serves"


def announce(note: str) -> None:
    """A line a run says before its first call (what it fitted to the endpoint)."""
    print(f"answerlens: {note}", file=sys.stderr)


def run_ended(out: Path, outcome: Any, *, finished: bool) -> int | None:
    """What a trial or sweep run prints as it ends (its preflight warnings, then how it stopped or what it saved);
    the exit code when it did not finish (early stop, ``--fail-fast``), else None."""
    for warning in outcome.warnings:
        print(f"answerlens: warning: {warning}", file=sys.stderr)
    if outcome.stopped is not None:
        return fail(EXIT_PROVIDER, f"stopped early: {outcome.stopped.text}; {outcome.new_samples} sample(s) saved "
                    f"in {out}; fix the cause and rerun the same command to resume")
    if not finished:
        return fail(EXIT_PROVIDER, f"stopped at the first provider failure (--fail-fast); {outcome.new_samples} "
                    f"new sample(s) saved in {out}; rerun to resume")
    print(f"{outcome.new_samples} new, {outcome.reused_samples} resumed, {outcome.errors} error sample(s); "
          f"result: {outcome.result_path}", file=sys.stderr)
    return None


def load_source(path_text: str) -> Any:
    """The bundle a bundle or sample file holds, loaded."""
    from answerlens.loading import load_bundle

    return load_bundle(read_source(path_text)[0], name=path_text)


def read_text(path: Path) -> str:
    from answerlens.json_reader import read_text as bounded

    return bounded(path, error=lambda message, label: UsageError(f"{label}: {message}"))
