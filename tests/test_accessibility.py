"""axe-core (pinned in package.json, served to the page by the test, never shipped) on every state of
the page we test: desktop and phone, light and dark, English and Portuguese, and the states that show
more of the page (training on several GPUs, a verdict with changes, an engine's own fields)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

pytestmark = pytest.mark.browser
AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"
STATES = [
    ("desktop-light-en", 1280, "light", "/"),
    ("desktop-dark-en", 1280, "dark", "/"),
    ("phone-light-en", 390, "light", "/?gpu=rtx-4090&model=llama-3-70b"),
    ("phone-dark-pt", 390, "dark", "/pt/?gpu=rtx-4090"),
    ("desktop-light-pt", 1280, "light", "/pt/?mode=training&gpus=8&pp=2&gpu=h100-80gb"),
    ("training-several-gpus", 1280, "dark", "/?mode=training&model=llama-3-8b&gpus=4&gpu=h100-80gb&lora_rank=16"),
    ("vllm-does-not-fit", 1280, "light", "/?runtime=vllm&model=qwen3-32b&gpu=rtx-4090"),
    ("llamacpp-gguf", 390, "light", "/?runtime=llamacpp&precision=q4_k_m&model=qwen3-30b-a3b"),
    ("custom-model", 1280, "light", "/?model=custom&params=7&hidden=4096&layers=32"),
]


@pytest.mark.parametrize(("name", "width", "scheme", "path"), STATES, ids=[s[0] for s in STATES])
def test_no_axe_violations(page: Page, server_url, name, width, scheme, path):
    # axe reaches the page from our own origin (the CSP allows nothing else): the test serves the pinned file.
    page.route("**/__axe.min.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript"))
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{server_url}{path}")
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
    page.add_script_tag(url=f"{server_url}/__axe.min.js")
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa",
                                                                        "wcag22aa", "best-practice"]}});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                       nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": " + n.failureSummary)}));
    }""")
    assert result == [], "\n".join(f"{v['id']} ({v['impact']}): {v['help']}\n  " + "\n  ".join(v["nodes"]) for v in result)
