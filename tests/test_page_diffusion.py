"""The page's family switch in headless Chromium (issue 27): an image or video pipeline's fields, its peak as the
total, its parts and stages, and a link that carries it."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from test_page import open_ready, settled_url, total_of
from vramcalc import DEFAULTS, parse_workload
from vramcalc.diffusion.run import evaluate
from vramcalc.diffusion.training import train
from vramcalc.inputs.parse import parse_diffusion, parse_diffusion_training, parse_target
from vramcalc.render.diffusion import pipeline_verdict, present_diffusion, present_training
from vramcalc.render.messages import ENGLISH
from vramcalc.render.view import present_target
from vramcalc.sources.gpus import gpu

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
    view = present_diffusion(evaluate(*parse_diffusion({**DEFAULTS, "pipeline": "sdxl", "width": "768"})), gpu=gpu)
    # every stage of SDXL is modelled (its UNet step too): no "at least" note, only what the total leaves out, then
    # the time on the form's card and its basis
    assert view.notes[0] == ENGLISH.message("diffusion.tensors_only") and "50 steps" in view.notes[1]
    expect(page.locator("#diffusion-notes li")).to_have_text(list(view.notes))
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


def test_lora_training_of_a_pipeline_shows_the_step_and_what_makes_it_fit(watched: Page, server_url):
    page = watched
    open_ready(page, server_url, "?family=diffusion&gpu=rtx-4090")
    expect(page.locator("#train-lora-fields")).to_be_hidden()
    expect(page.locator("#placement")).to_be_visible()
    page.fill("#train_lora", "16")
    expect(page.locator("#train-lora-fields")).to_be_visible()
    expect(page.locator("#generate-fields")).to_be_hidden()  # placement, CFG, tiles and swap are a generation's
    values = {**DEFAULTS, "family": "diffusion", "gpu": "rtx-4090", "train_lora": "16"}
    chosen, request = parse_diffusion(values)
    training = parse_diffusion_training(values)
    view = present_training(chosen, request, training, train(chosen, request, training), gpu=gpu("rtx-4090"))
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(view.total_bytes))
    expect(page.locator("#summary")).to_have_text(view.summary)
    expect(page.locator("#diffusion-rows tr")).to_have_count(len(view.rows))
    assert view.verdict is not None and view.verdict.kind == "does not fit"  # a bf16 base with AdamW: 25 GiB
    expect(page.locator("#verdict-text")).to_have_text(view.verdict.text)
    expect(page.locator("#verdict-change-list li")).to_have_text(list(view.verdict.changes))
    page.select_option("#denoiser_precision", "fp8")  # the change the verdict offered
    values["denoiser_precision"] = "fp8"
    chosen, request = parse_diffusion(values)
    fp8 = train(chosen, request, training).total_bytes
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(fp8))
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", "fits")
    expect(page.locator("#verdict-changes")).to_be_hidden()
    assert re.search(r"family=diffusion&denoiser_precision=fp8.*&train_lora=16", settled_url(page))
    page.select_option("#denoiser_precision", "nf4")  # no trainer trains on it: the field says so
    expect(page.locator("#denoiser_precision-error")).to_contain_text("LoRA training")
    expect(page.locator("#results")).to_have_class(re.compile("stale"))
    page.fill("#train_lora", "0")  # a generation again, nf4 being one of its formats
    expect(page.locator("#denoiser_precision-error")).to_be_empty()
    expect(page.locator("#generate-fields")).to_be_visible()
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(peak_of(
        {"gpu": "rtx-4090", "denoiser_precision": "nf4"})))


def test_a_diffusers_folder_is_imported_in_the_page(watched: Page, server_url, tmp_path):
    """A diffusers pipeline's folder picked in the page: only its JSON read, the pipeline sized as its preset is (the
    same parts, the same peak), the preset whose defaults it takes named; a folder without model_index.json refused
    naming it (issue 27)."""
    from test_diffusion_import import model_index, write
    from vramcalc.diffusion.pipelines import load_pipelines

    preset = load_pipelines()["sd1.5"]
    folder = write(tmp_path / "my-sd15", model_index(preset), {p.role: p.config for p in preset.parts})
    (folder / "scheduler").mkdir()
    (folder / "scheduler" / "scheduler_config.json").write_text("{}", encoding="utf-8")
    page = watched
    open_ready(page, server_url, "?family=diffusion&pipeline=sd1.5&gpu=rtx-4090")
    expected = present_diffusion(evaluate(*parse_diffusion({**DEFAULTS, "family": "diffusion", "pipeline": "sd1.5"})))
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(expected.total_bytes))
    page.locator("#pipeline-import summary").click()
    page.set_input_files("#pipeline-folder", str(folder))
    expect(page.locator("#pipeline")).to_have_value("config")
    expect(page.locator("#pipeline-status")).to_contain_text("defaults of Stable Diffusion 1.5")
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(expected.total_bytes))
    empty = tmp_path / "not-a-pipeline"
    empty.mkdir()
    (empty / "config.json").write_text("{}", encoding="utf-8")
    page.set_input_files("#pipeline-folder", str(empty))
    expect(page.locator("#pipeline-folder-error")).to_contain_text("model_index.json")
