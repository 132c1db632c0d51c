"""How long each app page takes to become interactive in a real browser (headless Chromium, Playwright).

For each page: a fresh ``streamlit run app.py`` (as ``make run`` starts it), the page opened once as the server's
first request from a browser with an empty cache (*cold*), then opened again in new tabs of that browser, each a
new Streamlit session (*warm*, as a reload). The clock runs from the navigation to
the moment the page is interactive: its script run has finished (Streamlit's ``notRunning`` state) and the page's
own readiness mark (``data-al-ready``, drawn as the script's last element) is there; a tree without the mark is
timed on its title and the finished run. Prints one JSON object.

    python benchmarks/pages.py [--root PATH] [--warm 5]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

PAGES = {"inspect": ("", "Inspect"), "packing": ("packing", "Packing"), "compare": ("compare", "Compare"),
         "trials": ("trials", "Trials")}
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
CEILING_MS = 180_000
# Records when the app first reports a running script and when it last reports a finished one: on a change of
# state only (the observer also fires for every element drawn after the run, which is not part of it).
WATCH_JS = """(() => {
  let first = null, last = null;
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app && app.getAttribute('data-test-script-state');
    if (state === last) return;
    last = state;
    if (state === 'running' && first === null) first = performance.now();
    if (state === 'notRunning' && first !== null) window.__alScript = (performance.now() - first) / 1000;
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state'],
                        childList: true});
})();"""
# Interactive: the script run is over and the page's title is drawn (and, where the page sets it, its own mark).
READY_JS = """([title]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const heading = [...document.querySelectorAll('h1')].some(h => h.textContent.trim().startsWith(title));
  if (!heading) return false;
  const marks = document.querySelectorAll('[data-al-ready]');
  return marks.length > 0 || !window.__alExpectMark;
}"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
            return response.status == 200
    except OSError:
        return False


class Server:
    """``streamlit run app.py`` in ``root`` on a free loopback port, with its own empty data folder."""

    def __init__(self, root: Path, data: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        streamlit = Path(sys.executable).with_name("streamlit")
        env = {**os.environ, "ANSWERLENS_DATA_DIR": str(data), "PYTHONPATH": str(root / "src")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.log = (data / "server.log").open("w")
        self.process = subprocess.Popen(
            [str(streamlit), "run", "app.py", "--server.address", "127.0.0.1", "--server.port", str(self.port),
             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while not _healthy(self.url):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start; see {data / 'server.log'}")
            time.sleep(0.1)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def open_page(context: Any, url: str, title: str, expect_mark: bool) -> tuple[float, float | None]:
    """Seconds from navigation until the page is interactive, in a new tab (a new Streamlit session) of the
    browser ``context``, and the seconds the app reported a script run (first ``running`` to last ``notRunning``)."""
    page = context.new_page()
    try:
        page.add_init_script(WATCH_JS + ("window.__alExpectMark = true;" if expect_mark else ""))
        started = time.perf_counter()
        page.goto(url, wait_until="commit")
        page.wait_for_function(READY_JS, arg=[title], polling=20, timeout=CEILING_MS)
        seconds = time.perf_counter() - started
        if page.locator('[data-testid="stException"]').count():
            raise RuntimeError(f"{url} shows an exception box")
        script = page.evaluate("() => window.__alScript")
        return seconds, script
    finally:
        page.close()


def measure(root: Path, warm: int, expect_mark: bool) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    pages: dict[str, Any] = {}
    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="answerlens-pages-") as tmp:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for name, (path, title) in PAGES.items():
                data = Path(tmp) / name
                data.mkdir()
                server = Server(root, data)
                try:
                    url = f"{server.url}/{path}"
                    # Cold: the server's first request, from a browser with nothing cached. Warm: the same page
                    # opened again in new tabs of that browser (its static files cached, as on a reload).
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    try:
                        cold, cold_script = open_page(context, url, title, expect_mark)
                        runs = [open_page(context, url, title, expect_mark) for _ in range(warm)]
                    finally:
                        context.close()
                finally:
                    server.stop()
                warms = [seconds for seconds, _ in runs]
                scripts = [script for _, script in runs if script is not None]
                pages[name] = {"cold_s": round(cold, 3), "warm_s": [round(s, 3) for s in warms],
                               "warm_median_s": round(statistics.median(warms), 3), "warm_max_s": round(max(warms), 3),
                               "cold_script_s": round(cold_script, 3) if cold_script is not None else None,
                               "warm_script_median_s": round(statistics.median(scripts), 3) if scripts else None}
        finally:
            browser.close()
    return {"pages": pages, "warm_runs": warm, "viewport": "1280x900",
            "targets": {"warm_s_max": 2.0, "cold_s_max": 5.0},
            "ok": all(p["warm_max_s"] <= 2.0 and p["cold_s"] <= 5.0 for p in pages.values()),
            "load_average": " ".join(f"{v:.2f}" for v in os.getloadavg())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout whose app.py is served (default: this one)")
    parser.add_argument("--warm", type=int, default=5, help="warm loads per page")
    parser.add_argument("--no-mark", action="store_true", help="the tree draws no data-al-ready mark")
    args = parser.parse_args()
    print(json.dumps(measure(args.root.resolve(), args.warm, not args.no_mark)))


if __name__ == "__main__":
    main()
