"""The reply file formats the app accepts, in words, and the example files shipped beside the docs (pure)."""

from __future__ import annotations

from pathlib import Path

from answerlens.recording import RECORDING_FORMAT

EXAMPLES_DIR = Path(__file__).resolve().parents[4] / "docs" / "examples"
"""``docs/examples`` of a checkout (the app runs from one; an installed wheel has no examples)."""
EXAMPLES = {
    "Example raw reply (unbound)": EXAMPLES_DIR / "reply.json",
    "Example recording (bound to its inputs)": EXAMPLES_DIR / "recording.json",
}
BUNDLE_EXAMPLE = EXAMPLES_DIR / "bundle.json"
"""The bundle the example reply and recording answer (the answerable_billing_database sample's)."""


def bundle_format_html() -> str:
    """What a bundle file may be."""
    return ("""<div class="al-why" data-bundle-format style="font-size:0.85rem">
<p><strong>A PRME bundle</strong>: a <code>MemoryBundle</code> dumped as JSON (<code>sections</code>,
<code>rendered_context</code>, <code>context_references</code> …), assessed on its stored context.
<strong>The simple format</strong>: <code>{"records": [{"text": "…", "speaker": "…", "event_time": "2024-03-05",
"valid_from": …, "valid_to": …, "epistemic": …, "lifecycle": …, "type": …, "metadata": {…}}], "packing":
{"context_format": "reader", "context_citations": true}}</code> (only <code>text</code> is needed; <code>metadata</code>
is kept for audit, never rendered), or a bare list of records.
<strong>A sample</strong>: <code>{"title", "description", "question", "answer", "bundle", "recorded_reply"}</code>.
</p><p>Up to 50 MB, UTF-8. A model reply is refused here: give it under <em>Recorded response</em> in the sidebar.
Example: <code>docs/examples/bundle.json</code>, which the example reply and recording answer.</p></div>""")


def reply_format_html() -> str:
    """What a reply file may be, and how each is replayed."""
    return (f"""<div class="al-why" data-reply-format style="font-size:0.85rem">
<p><strong>A raw reply</strong>: the model's JSON reply exactly as it came,
<code>{{"requirements": [{{"requirement": "…", "status": "supported", "evidence_refs": ["m1"],
"explanation": "…"}}], "reasoning": "…"}}</code> (<code>status</code>: supported, unsupported or conflicting;
<code>evidence_refs</code>: the context's citation tokens). It does not say which question it answered, so it is
replayed as an <em>unbound recording</em>, and marked so.</p>
<p><strong>A recording</strong> (download one from any run with a reply): <code>{{"{RECORDING_FORMAT}": 1,
"reply": "…", "binding": {{"query_sha256", "answer_sha256", "context_sha256", "prompt_version",
"prompt_sha256"}}, "question": "…", "answer": null, "author": "…"}}</code>; or an <strong>assessment JSON</strong>.
Both are replayed only for the inputs they answered (the same question, draft and exact context).</p>
<p>Up to 50 MB, UTF-8. A bundle or sample file is refused here: load it above, as the bundle. Examples:
<code>docs/examples/reply.json</code> and <code>docs/examples/recording.json</code> (for the sample
<em>answerable_billing_database</em>).</p></div>""")
