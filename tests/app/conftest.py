"""Helpers for driving the app with ``streamlit.testing.v1.AppTest``."""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

from streamlit.testing.v1 import AppTest

from tests.paths import REPO

APP = str(REPO / "app.py")


def start(page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert_clean(at)
    return at


def html(at: Any) -> str:
    """Every ``st.html`` body in an AppTest (or one of its blocks, e.g. ``at.main``), joined."""
    return "\n".join(element.proto.body for element in at.html)


def verdicts(at: AppTest) -> list[str]:
    return re.findall(r'data-verdict="([^"]+)"', html(at))


def notices(at: Any, kind: str) -> list[str]:
    """The text of our alert boxes of one kind (tags stripped) in an AppTest or a block of it."""
    bodies = re.findall(rf'data-notice="{kind}"[^>]*>(.*?)</div>\s*(?:</div>|$)', html(at), flags=re.S)
    return [html_lib.unescape(re.sub(r"<[^>]+>", " ", body)) for body in bodies]


def assert_clean(at: AppTest) -> None:
    """No exception element and no traceback anywhere on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert "Traceback (most recent call last)" not in html(at)


def choose_sample(at: AppTest, stem: str, prefix: str = "inspect") -> None:
    at.selectbox(key=f"{prefix}.sample").set_value(stem).run()
    assert_clean(at)


def use_recorded(at: AppTest) -> None:
    at.radio(key="inspect.provider").set_value("Recorded response").run()


def assess(at: AppTest) -> None:
    at.button(key="inspect.assess").click().run()
    settle(at)


def settle(at: AppTest, prefix: str = "inspect") -> None:
    """Wait for a live assessment running in the background to end (joining its thread, never a sleep), then
    rerun so the page shows how it ended."""
    key = f"{prefix}.job"
    if key in at.session_state:
        assert at.session_state[key].job.wait(120), "the assessment did not end"
        at.run()
    assert_clean(at)
