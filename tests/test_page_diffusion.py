"""The page's family switch in headless Chromium (issue 27): an image or video pipeline's fields, its peak as the
total, its parts and stages, and a link that carries it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_page import open_ready, settled_url, total_of
from vramcalc import DEFAULTS, parse_workload
from vramcalc.diffusion.run import evaluate
from vramcalc.inputs.parse import parse_diffusion, parse_target
from vramcalc.render.diffusion import pipeline_verdict, present_diffusion
from vramcalc.render.view import present_target

pytestmark = pytest.mark.browser


def peak_of(values):
    return evaluate(*parse_diffusion({**DEFAULTS, **values})).peak.total_bytes


def test_switching_to_image_or_video_shows_the_pipeline_and_its_total(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    expect(page.locator("#diffusion-fields")).to_be_hidden()
    page.select_option("#family", "diffusion")
    expect(page.locator("#diffusion-fields")).to_be_visible()
    expect(page.locator("#language-inputs")).to_be_hidden()
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(peak_of({})))
    gpu = parse_target(DEFAULTS).gpu  # the answer first, on the form's card, as for a language model
    verdict = pipeline_verdict(evaluate(*parse_diffusion(DEFAULTS)), gpu)
    expect(page.locator("#verdict-text")).to_have_text(verdict.text)
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", verdict.kind)
    expect(page.locator("#verdict-changes")).to_be_hidden()
    expect(page.locator("#verdict-speed")).to_be_hidden()
    run = evaluate(*parse_diffusion(DEFAULTS))
    expect(page.locator("#diffusion-rows tr")).to_have_count(len(run.weights) + len(run.stages))
    expect(page.locator("#diffusion-rows")).to_contain_text("FluxTransformer2DModel")
    page.select_option("#pipeline", "sdxl")
    page.fill("#width", "768")
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(peak_of({"pipeline": "sdxl", "width": "768"})))
    view = present_diffusion(evaluate(*parse_diffusion({**DEFAULTS, "pipeline": "sdxl", "width": "768"})))
    assert view.notes == ()  # every stage of SDXL is modelled (its UNet step too): no "at least" note
    expect(page.locator("#diffusion-notes li")).to_have_count(0)
    expect(page.locator("#gpu-rtx-3060 .count")).to_have_text(next(g.count for g in view.gpus if g.slug == "rtx-3060"))
    assert re.search(r"family=diffusion&pipeline=sdxl&width=768", settled_url(page))
    page.fill("#width", "1000")  # not a multiple of 16: named, the results marked stale
    expect(page.locator("#width-error")).not_to_be_empty()
    expect(page.locator("#results")).to_have_class(re.compile("stale"))
    page.select_option("#family", "language")  # back: the language model's numbers again
    expect(page.locator("#diffusion-fields")).to_be_hidden()
    expect(page.locator("#diffusion-results")).to_be_hidden()
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({})))
    expect(page.locator("#verdict")).to_be_visible()
    language = present_target(parse_workload({}), parse_target({})).verdict
    expect(page.locator("#verdict-text")).to_have_text(language.text)


def test_a_diffusion_link_restores_the_form(watched: Page, server_url):
    page = watched
    linked = {"family": "diffusion", "pipeline": "wan2.1-t2v-1.3b", "denoiser_precision": "gguf-q8_0",
              "placement": "model", "frames": "49", "cfg": "off"}
    open_ready(page, server_url, "?" + "&".join(f"{k}={v}" for k, v in linked.items()))
    for key, value in linked.items():
        expect(page.locator(f"#{key}")).to_have_value(value)
    expect(page.locator("#notice")).to_be_hidden()
    expect(page.locator("#diffusion-fields")).to_be_visible()
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(peak_of(linked)))
    expect(page.locator("#summary")).to_contain_text("Wan 2.1 T2V 1.3B")
    # an old link (no family) is a language model, the pipeline's keys left aside
    open_ready(page, server_url, "?model=mistral-7b&pipeline=sdxl")
    expect(page.locator("#family")).to_have_value("language")
    expect(page.locator("#diffusion-fields")).to_be_hidden()
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({"model": "mistral-7b"})))
