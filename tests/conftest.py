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

import pytest

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
