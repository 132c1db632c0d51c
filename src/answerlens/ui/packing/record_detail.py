"""One record's detail for the Packing page: every field it arrived with, those answerlens reads and those it
keeps only for audit (PRME's ``user_id``, ``confidence``, ``salience`` … and unknown ones), as an escaped table
(pure: no streamlit)."""

from __future__ import annotations

import json
from typing import Any

from answerlens.html.escape import esc
from answerlens.html.markup import cell, table_html
from answerlens.records import MemoryBundle, MemoryRecord

READ = "read by answerlens"
KEPT = "kept for audit"
TEXT_CHARS = 80


def record_choices(bundle: MemoryBundle) -> dict[str, str]:
    """Each packed record by id, titled by its reference (when cited by one) and the start of its text."""
    refs = {str(memory): ref for ref, memory in bundle.context_references.items()}
    titles: dict[str, str] = {}
    for section, candidate in bundle.candidates():
        key = str(candidate.node.id)
        text = " ".join(candidate.node.content.split())
        text = text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"
        titles.setdefault(key, f"{refs.get(key, key[:8])} · {section} · {text}")
    return titles


def record(bundle: MemoryBundle, record_id: str) -> MemoryRecord | None:
    return next((candidate.node for _, candidate in bundle.candidates() if str(candidate.node.id) == record_id), None)


def fields(found: MemoryRecord) -> list[tuple[str, str, str]]:
    """(field, value as JSON, whether answerlens reads it) for every field, in the order it is dumped."""
    dump = found.model_dump(mode="json")
    kept = found.prme_fields
    return [(name, _json(value), KEPT if name in kept else READ) for name, value in dump.items()]


def detail_html(found: MemoryRecord) -> str:
    rows = [cell(name, 'class="al-nowrap"') + cell(value, 'class="al-text"') + cell(use, 'class="al-muted"')
            for name, value, use in fields(found)]
    return (f'<div data-record-detail="{esc(str(found.id))}" data-kept-fields="{len(found.prme_fields)}">'
            + table_html(["field", "value", ""], rows) + "</div>")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
