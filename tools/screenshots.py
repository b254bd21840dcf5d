"""Screenshots of the built page for docs/screenshots: phone and desktop, light and dark, English and
Portuguese, in headless Chromium (the system one when present). Serves dist/ itself.

    .venv/bin/python tools/screenshots.py        # after make build; writes docs/screenshots/*.png
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path
from typing import Literal

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
SHOTS: list[tuple[str, str, int, int, Literal["light", "dark"]]] = [  # name, path, width, height, colour scheme
    ("desktop-light-en", "/?gpu=rtx-4090&model=qwen3-32b&precision=awq-int4&runtime=vllm", 1280, 900, "light"),
    ("desktop-dark-en", "/?gpu=rtx-4090&model=llama-3-70b", 1280, 900, "dark"),
    ("desktop-light-pt", "/pt/?gpu=h100-80gb&mode=training&model=llama-3-8b&gpus=4", 1280, 900, "light"),
    ("desktop-dark-pt", "/pt/?gpu=rtx-4090&mode=training&lora_rank=16&precision=nf4&checkpointing=layer", 1280, 900,
     "dark"),
    ("phone-light-en", "/?gpu=rtx-4090", 390, 844, "light"),
    ("phone-dark-en", "/?gpu=rtx-4090&model=llama-3-70b", 390, 844, "dark"),
    ("phone-light-pt", "/pt/?gpu=rtx-4090&seq=32768", 390, 844, "light"),
    ("phone-dark-pt", "/pt/?gpu=rtx-3090&model=qwen3-30b-a3b&precision=q4_k_m&runtime=llamacpp", 390, 844, "dark"),
]


def main() -> None:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(ROOT / "dist"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"))
        for name, path, width, height, scheme in SHOTS:
            page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
            page.goto(base + path)
            page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
            if width < 600:  # a phone: the form, with the answer kept in view at the bottom
                page.locator("#seq").scroll_into_view_if_needed()
            else:
                page.locator("#form").scroll_into_view_if_needed()
            page.wait_for_timeout(200)
            page.screenshot(path=str(OUT / f"{name}.png"))
            page.close()
            print(f"docs/screenshots/{name}.png")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
