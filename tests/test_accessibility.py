"""axe-core (pinned in package.json, served to the page by the test, never shipped) on every state of
the page we test: desktop and phone, light and dark, English and Portuguese, and the states that show
more of the page (training on several GPUs, a verdict with changes, each engine's own fields, a custom
model, every "More options" open). One page load per language: the states are reached by using the
form, as a user does, so the test costs two Python starts rather than one per state."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

pytestmark = pytest.mark.browser
AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def _unfold(page):
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")


def _training(page):
    page.check("#mode-training")
    page.fill("#gpus", "4")
    page.fill("#lora_rank", "16")
    _unfold(page)


def _vllm(page):
    page.check("#mode")
    page.select_option("#model", "qwen3-32b")
    page.select_option("#runtime", "vllm")
    _unfold(page)


def _llamacpp(page):
    page.select_option("#precision", "q4_k_m")
    _unfold(page)


def _custom(page):
    page.select_option("#model", "custom")
    page.fill("#params", "7")
    page.fill("#hidden", "4096")
    page.fill("#layers", "32")


def _diffusion(page):
    page.select_option("#family", "diffusion")
    page.select_option("#pipeline", "sdxl")


STATES = {
    "en": ("/?gpu=rtx-4090&model=llama-3-70b", [
        ("desktop light, does not fit", 1280, "light", None),
        ("desktop dark", 1280, "dark", None),
        ("phone light", 390, "light", None),
        ("training on 4 GPUs, LoRA, every option open", 1280, "dark", _training),
        ("vLLM", 1280, "light", _vllm),
        ("llama.cpp GGUF on a phone", 390, "light", _llamacpp),
        ("custom model, phone dark", 390, "dark", _custom),
        ("an image pipeline, phone dark", 390, "dark", _diffusion),
    ]),
    "pt": ("/pt/?gpu=rtx-4090", [
        ("phone dark", 390, "dark", None),
        ("desktop light, training on 4 GPUs", 1280, "light", _training),
    ]),
}


def _violations(page):
    return page.evaluate("""async (rules) => {
        const r = await axe.run(document, {runOnly: {type: "tag", values: rules}});
        return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                       nodes: v.nodes.slice(0, 3).map(
                                           n => n.target.join(" ") + ": " + n.failureSummary)}));
    }""", RULES)


@pytest.mark.parametrize("lang", STATES)
def test_no_axe_violations(page: Page, server_url, lang):
    # axe reaches the page from our own origin (the CSP allows nothing else): the test serves the pinned file.
    page.route("**/__axe.min.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript"))
    path, states = STATES[lang]
    page.goto(f"{server_url}{path}")
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
    page.add_script_tag(url=f"{server_url}/__axe.min.js")
    found = {}
    for name, width, scheme, act in states:
        page.set_viewport_size({"width": width, "height": 900})
        page.emulate_media(color_scheme=scheme)
        if act:
            act(page)
        page.wait_for_timeout(100)  # the handler has run; let the frame settle before auditing
        violations = _violations(page)
        if violations:
            found[name] = violations
    assert not found, "\n".join(
        f"[{name}] {v['id']} ({v['impact']}): {v['help']}\n  " + "\n  ".join(v["nodes"])
        for name, violations in found.items() for v in violations)
