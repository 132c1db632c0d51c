"""Take docs/tracing-phoenix.png: a real Phoenix (its own virtualenv, see tests/phoenix_server.py), one
``answerlens assess`` traced into it, and the verdict span opened in Phoenix's UI in the headless Chromium the
browser tests use.

    PYTHONPATH=src:. python docs/tracing_screenshot.py [--out docs/tracing-phoenix.png]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.paths import REPO, SAMPLES
from tests.phoenix_server import start_phoenix, stop

PROJECT = "answerlens"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "tracing-phoenix.png")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="answerlens-phoenix-") as work:
        phoenix = start_phoenix(Path(work))
        try:
            env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "OTEL_EXPORTER_OTLP_ENDPOINT": phoenix.url,
                   "OTEL_RESOURCE_ATTRIBUTES": f"openinference.project.name={PROJECT}",
                   "ANSWERLENS_APP_URL": "http://127.0.0.1:8501"}
            subprocess.run([sys.executable, "-m", "answerlens.cli", "assess",
                            str(SAMPLES / "answerable_billing_database.json"), "--provider", "replay"],
                           env=env, check=True, capture_output=True)
            spans = phoenix.wait_for_spans(lambda found: len(found) >= 2, PROJECT)
            verdict = next(span for span in spans if span["name"] == "answerlens.assess")
            project = next(item for item in phoenix.get("/v1/projects")["data"] if item["name"] == PROJECT)
            page_url = (f"{phoenix.url}/projects/{project['id']}/traces/{verdict['context']['trace_id']}"
                        f"?selectedSpanNodeId={verdict['id']}")
            shoot(page_url, args.out)
        finally:
            stop(phoenix)
    print(args.out)


def shoot(url: str, out: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1180}, color_scheme="dark")
        page.goto(url)
        page.get_by_role("tab", name="Attributes").click()
        page.get_by_text("answerlens.run_url").first.wait_for(timeout=60_000)
        page.screenshot(path=str(out))
        browser.close()


if __name__ == "__main__":
    main()
