"""The one key Streamlit's button shortcuts cannot give: ``n`` puts the cursor in the note, and Esc leaves it (so the
other keys work again). A small script through ``st.html``'s public ``unsafe_allow_javascript``, installed once per
browser tab; like Streamlit's own shortcuts it is off while the focus is in a text field."""

from __future__ import annotations

import json

import streamlit as st


def install(prefix: str) -> None:
    selector = json.dumps(f".st-key-{prefix}-note textarea")
    st.html(f"""<script>
(() => {{
  if (window.__answerlensNoteKey) return;
  window.__answerlensNoteKey = true;
  const plain = new Set(['checkbox', 'radio', 'range', 'button', 'file', 'reset', 'submit', 'color']);
  const typing = (el) => el && (el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT'
    || (el.tagName === 'INPUT' && !plain.has(el.type)));
  document.addEventListener('keydown', (event) => {{
    const target = event.target;
    if (typing(target)) {{
      if (event.key === 'Escape' && target.matches({selector})) target.blur();
      return;
    }}
    if (event.key !== 'n' || event.ctrlKey || event.metaKey || event.altKey) return;
    const note = document.querySelector({selector});
    if (note && !note.disabled) {{ event.preventDefault(); note.focus(); }}
  }}, true);
}})();
</script>""", unsafe_allow_javascript=True)
