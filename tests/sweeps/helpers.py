"""A bundle whose last record (in packed order) is the only one stating its second requirement."""

from __future__ import annotations

from pathlib import Path

from answerlens import AnswerabilityConfig
from answerlens.loading import load_bundle
from answerlens.records import MemoryBundle

QUESTION = "Which PostgreSQL version does billing-api run, and who owns its schema migrations?"
REQUIREMENTS = {"production version": "PostgreSQL 15.6", "migration owner": "Leo Alvarez owns"}
"""Requirement -> the phrase of the record stating it (what the context server looks for)."""
NEEDLE = "00000000-0000-0000-0000-000000000004"
"""The record stating the migration owner: last in packed order."""


def bundle_data(context_format: str = "reader", citations: bool = True) -> dict:
    packing = {"context_format": context_format, "context_citations": citations and context_format == "reader"}
    return {"records": [
        {"text": "billing-api production runs PostgreSQL 15.6 since the April upgrade.", "section": "facts"},
        {"text": "billing-api talks to its primary through PgBouncer in transaction mode.", "section": "facts"},
        {"text": "Staging still runs PostgreSQL 14 until the rehearsal.", "section": "notes"},
        {"text": "Leo Alvarez owns the billing-api schema migrations.", "section": "notes"},
    ], "packing": packing}


def bundle(context_format: str = "reader", citations: bool = True) -> MemoryBundle:
    return load_bundle(bundle_data(context_format, citations))


def config(base_url: str) -> AnswerabilityConfig:
    return AnswerabilityConfig(provider="openai", model="context-oracle", base_url=base_url, timeout=10,
                               max_retries=0)


def verified(path: Path) -> tuple[int, list[str]]:
    """(samples counted, problems) of ``verify_sweep``; an unfinished sweep is a problem here."""
    from answerlens.verification.sweep import verify_sweep

    checked = verify_sweep(path)
    unfinished = [] if checked.samples.complete else [checked.samples.text]
    return len(checked.result.samples), [*checked.problems, *unfinished]
