"""Bring a freshly drawn element into view (the verdict after Assess), once per request."""

from __future__ import annotations

import json

import streamlit as st


def into_view(selector: str) -> None:
    """Scroll the page so the first element matching ``selector`` sits near the top of the window, clear of
    Streamlit's header; drawn after the element, it runs once as the browser mounts it."""
    target = json.dumps(selector)
    st.html(f"""<script>
(() => {{
  let tries = 0;
  const go = () => {{
    const el = document.querySelector({target});
    if (!el) {{ if (tries++ < 40) requestAnimationFrame(go); return; }}
    el.style.scrollMarginTop = '72px';
    el.scrollIntoView({{block: 'start', behavior: 'instant'}});
    el.setAttribute('data-revealed', 'true');
  }};
  requestAnimationFrame(go);
}})();
</script>""", unsafe_allow_javascript=True)
