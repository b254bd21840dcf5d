"""The page's Speed section: prerendered for the defaults, and redrawn from the engine's own answer
(analysis.speed_answers.evaluate_speed, render/speed.py) as the form changes."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from test_page import open_ready
from vramcalc import parse_workload
from vramcalc.analysis.speed_answers import evaluate_speed
from vramcalc.inputs.parse import parse_machine, parse_target
from vramcalc.render.speed import present_speed

pytestmark = pytest.mark.browser


def view_of(values: dict[str, str]):
    workload = parse_workload(values)
    return present_speed(workload, evaluate_speed(workload, parse_target(values), parse_machine(values)))


def test_the_speed_section_shows_the_engines_figures_and_follows_the_form(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    default = dict((key, value) for key, _, value in view_of({}).figures)
    expect(page.locator("#speed-decode-value")).to_have_text(default["decode"])  # prerendered, then kept
    expect(page.locator("#verdict-speed")).to_have_text(view_of({}).line)
    expect(page.locator("#speed-moe-figure")).to_be_hidden()  # a dense model on transformers: no --n-cpu-moe
    values = {"model": "qwen3-30b-a3b", "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4060-ti-16gb"}
    open_ready(page, server_url, "?" + "&".join(f"{key}={value}" for key, value in values.items()))
    moe = view_of(values)
    figures = dict((key, value) for key, _, value in moe.figures)
    expect(page.locator("#speed-decode-value")).to_have_text(figures["decode"])
    expect(page.locator("#speed-min_n_cpu_moe-value")).to_have_text(figures["min_n_cpu_moe"])
    expect(page.locator("#speed-moe-figure")).to_be_visible()
    expect(page.locator("#speed-moe-line")).to_have_attribute("d", moe.charts["moe"].path)
    expect(page.locator("#speed-moe-limit")).to_have_attribute("visibility", "visible")
    expect(page.locator("#speed-context-limit")).to_have_attribute("visibility", "hidden")
    page.select_option("#model", "llama-3.1-8b")  # dense: the --n-cpu-moe chart and answer go
    expect(page.locator("#speed-moe-figure")).to_be_hidden()
    expect(page.locator("#speed-min_n_cpu_moe")).to_be_hidden()


def test_llama_cpps_own_fit_is_shown_where_it_would_change_the_plan(watched: Page, server_url):
    page = watched
    values = {"model": "gpt-oss-120b", "runtime": "llamacpp", "gpu": "rtx-4090"}
    open_ready(page, server_url, "?" + "&".join(f"{key}={value}" for key, value in values.items()))
    figures = dict((key, value) for key, _, value in view_of(values).figures)
    assert figures["llamacpp_fit"].startswith("-ngl 37, the experts (or MLP) of 24 layers in RAM")
    expect(page.locator("#speed-llamacpp_fit-value")).to_have_text(figures["llamacpp_fit"])
    page.select_option("#model", "llama-3.1-8b")  # all of it fits with llama.cpp's margin: nothing to say
    expect(page.locator("#speed-llamacpp_fit")).to_be_hidden()


def test_the_mtp_field_follows_the_engine_and_counts_the_layers(watched: Page, server_url):
    """The MTP field shows on vLLM and llama.cpp only; a link's `mtp` counts the layers and says the speed-up is not
    modelled, and typing 0 turns them off again."""
    from test_page import settled_url, total_of, unfold

    page = watched
    values = {"model": "deepseek-v3.2", "runtime": "vllm", "gpu": "h200", "gpus": "8", "mtp": "1"}
    open_ready(page, server_url, "?" + "&".join(f"{key}={value}" for key, value in values.items()))
    unfold(page)
    expect(page.locator("#mtp")).to_be_visible()
    expect(page.locator("#mtp")).to_have_value("1")
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))
    expect(page.locator("#notes")).to_contain_text("its 1 MTP layer is counted")
    expect(page.locator("#spec_acceptance")).to_be_visible()
    acceptance = {**values, "spec_acceptance": "0.5"}
    expect(page.locator("#speed")).to_contain_text("each accepted with probability 85%")
    page.fill("#spec_acceptance", "0.5")
    expect(page.locator("#speed-decode-value")).to_have_text(
        dict((key, value) for key, _, value in view_of(acceptance).figures)["decode"])
    assert view_of(acceptance).figures != view_of(values).figures  # the rate moves the decode speed
    page.fill("#mtp", "0")
    expect(page.locator("#spec_acceptance")).to_be_hidden()
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({**values, "mtp": "0"})))
    assert "mtp=" not in settled_url(page)
    page.select_option("#runtime", "transformers")
    expect(page.locator("#mtp")).to_be_hidden()
