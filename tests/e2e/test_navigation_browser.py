"""A deep link as a fresh server's very first request still gets app.py's navigation and the page it names, and
so does a reload."""

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import TIMEOUT, settle, streamlit_server

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    "path, title",
    [pytest.param("trials", "Trials", id="trials"), pytest.param("compare", "Compare", id="compare"),
     pytest.param("packing", "Packing", id="packing"), pytest.param("review", "Review", id="review")],
)
def test_deep_link_on_a_fresh_server_keeps_the_app_navigation(browser: Any, tmp_path: Path, path: str,
                                                               title: str) -> None:
    with streamlit_server(tmp_path / "server.log") as url:
        page = browser.new_page()
        try:
            page.goto(f"{url}/{path}")
            for _ in ("first request", "reload"):
                page.get_by_role("heading", name=title).wait_for(timeout=TIMEOUT)
                settle(page)
                assert page.url == f"{url}/{path}"
                nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
                assert [line for line in nav.splitlines() if line.strip() and "_" not in line] == [
                    "Inspect", "Packing", "Compare", "Trials", "Review"]
                assert page.locator('[data-testid="stException"]').count() == 0
                assert "Page not found" not in page.locator("body").inner_text()
                page.reload()
        finally:
            page.close()
