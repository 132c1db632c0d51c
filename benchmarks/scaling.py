"""Rendering and highlighting scale: render + validate + highlighted HTML at ~1k, 10k and 100k characters.

Each size pairs with 2, 20 and 200 cited tokens. One repeat times the three stages the Inspect page runs:
``render_bundle`` (records to the exact context), ``derive_assessment`` (citation validation, verdict, hashes)
and the highlighted HTML (``ui.highlight.highlight`` spans drawn by ``ui.markup.context_html``, plus the
requirements table). ``python scaling.py`` prints one JSON line.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from bundles import unrendered_bundle_for_chars

from answerlens import AnswerabilityConfig, derive_assessment, render_bundle
from answerlens.html.highlight import highlight, requirement_rows
from answerlens.html.markup import context_html
from answerlens.html.requirements import requirements_html
from answerlens.records import MemoryBundle

SIZES = ((1_000, 2), (10_000, 20), (100_000, 200))
CONFIG = AnswerabilityConfig(provider="openai", model="bench", base_url="http://127.0.0.1:9/v1")
QUERY = "Which database and cache does each service use?"
MIN_ROUNDS = 15
MAX_ROUNDS = 80
BUDGET_SECONDS = 8.0


def reply(records: int, citations: int) -> dict[str, Any]:
    """``citations`` tokens over ten per requirement, spread across the context; one in ten is unknown."""
    per = min(citations, 10)
    requirements = []
    for start in range(0, citations, per):
        refs = []
        for offset in range(per):
            index = start + offset
            refs.append("m99999" if index % 10 == 9 else f"m{1 + index * records // citations}")
        requirements.append({"requirement": f"Requirement {start // per}", "status": "supported",
                             "evidence_refs": refs, "explanation": "Cited."})
    return {"requirements": requirements, "reasoning": "Synthetic reply for the scaling bench."}


def one_pass(unrendered: MemoryBundle, raw: dict[str, Any]) -> tuple[dict[str, float], int]:
    t0 = time.perf_counter()
    bundle = render_bundle(unrendered, "reader", context_citations=True)
    t1 = time.perf_counter()
    assessment = derive_assessment(QUERY, bundle, json.dumps(raw), config=CONFIG)
    t2 = time.perf_counter()
    context = bundle.render().strip()
    marks = highlight(context, [requirement.citations for requirement in assessment.requirements])
    page = context_html(context, marks) + requirements_html(requirement_rows(assessment.requirements))
    t3 = time.perf_counter()
    return {"render": t1 - t0, "validate": t2 - t1, "html": t3 - t2, "total": t3 - t0}, len(page)


def measure_all() -> list[dict[str, Any]]:
    """Median stage times per size; sizes take turns within each round, so a busy moment hits them all."""
    cases = []
    for chars, citations in SIZES:
        unrendered = unrendered_bundle_for_chars(chars)
        cases.append((chars, citations, unrendered, reply(unrendered.record_count, citations)))
    for _, _, unrendered, raw in cases:
        one_pass(unrendered, raw)  # warm-up: imports, regex caches
    runs: list[list[dict[str, float]]] = [[] for _ in cases]
    html_chars = [0] * len(cases)
    started = time.perf_counter()
    while len(runs[0]) < MIN_ROUNDS or (time.perf_counter() - started < BUDGET_SECONDS and len(runs[0]) < MAX_ROUNDS):
        for index, (_, _, unrendered, raw) in enumerate(cases):
            stages, html_chars[index] = one_pass(unrendered, raw)
            runs[index].append(stages)
    return [
        {
            "target_chars": chars,
            "context_chars": len(render_bundle(unrendered, "reader", context_citations=True).render().strip()),
            "records": unrendered.record_count,
            "citations": citations,
            "repeats": len(runs[index]),
            "html_chars": html_chars[index],
            "ms": {stage: statistics.median(run[stage] for run in runs[index]) * 1000 for stage in runs[index][0]},
        }
        for index, (chars, citations, unrendered, _) in enumerate(cases)
    ]


def main() -> None:
    print(json.dumps(measure_all()), flush=True)


if __name__ == "__main__":
    main()
