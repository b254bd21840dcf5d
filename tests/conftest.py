"""Fixtures for the browser tests: build dist/ into a temporary folder, serve it
on 127.0.0.1, and drive the system Chromium (Playwright cannot download one here)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(out)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="session")
def server_url(site_dir):
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(site_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    args = {**browser_type_launch_args, "args": CHROMIUM_ARGS}
    if executable:
        args["executable_path"] = executable
    return args


@pytest.fixture
def watched(page: Page, server_url):
    """A page that records console errors, page errors and requests leaving 127.0.0.1."""
    problems = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request", lambda r: problems.append(f"foreign request: {r.url}")
            if urlparse(r.url).hostname not in ("127.0.0.1", None) and not r.url.startswith("data:") else None)
    yield page
    assert problems == []
    assert "Traceback" not in page.content()
