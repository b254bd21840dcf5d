"""What a user or an adversary puts into the page before and around its start: links typed by
hand, crafted links and local storage, edits made while Python is still starting, and a phone
with every panel open (issue 22, items 6, 8, 9, 10 and 14)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from test_page import ROOT, open_ready, total_of
from vramcalc import estimate, parse_workload
from vramcalc.sources import catalog

pytestmark = pytest.mark.browser
STALE = re.compile(r"(^|\s)stale(\s|$)")


@pytest.mark.parametrize(("width", "height"), [(360, 800), (1280, 900)])
def test_what_a_link_ignored_is_said_beside_the_answer(watched: Page, server_url, width, height):
    page = watched
    page.set_viewport_size({"width": width, "height": height})
    # 32k and rtx4090 are what people type; batch=abc and gpus=x are not numbers
    open_ready(page, server_url, "?model=llama-3.1-70b&seq=32k&gpu=rtx4090&batch=abc")
    expect(page.locator("#seq")).to_have_value("32k")
    expect(page.locator("#gpu")).to_have_value("rtx-4090")
    values = {"model": "llama-3.1-70b", "seq": "32768", "gpu": "rtx-4090"}  # the card sets the overhead
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))
    expect(page.locator("#verdict-text")).to_contain_text("RTX 4090")
    notice = page.locator("#notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("batch")
    box = notice.bounding_box()
    assert box["y"] + box["height"] <= height, "the notice is on the first screen, without scrolling"
    if width > 800:  # two columns: right above the answer
        verdict = page.locator("#verdict").bounding_box()
        assert 0 <= verdict["y"] - (box["y"] + box["height"]) <= 80
    open_ready(page, server_url, "?gpu=a100")  # two cards match: refused, and the field named
    expect(page.locator("#notice")).to_contain_text("gpu")
    expect(page.locator("#notice")).to_contain_text("a100-40gb, a100-80gb")
    expect(page.locator("#gpu")).to_have_value("h100-80gb")


@pytest.mark.parametrize("query", [
    "?gpu=24%0Agb", "?gpu=24%0Dgb", "?gpu=24%0Cgb", "?gpu=x%27%5D", "?precision=x%27%5D"])
def test_a_crafted_link_never_stops_the_start(watched: Page, server_url, query):
    page = watched
    page.goto(f"{server_url}/index.html{query}")
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=30_000)
    field = query[1:].split("=")[0]
    expect(page.locator("#notice")).to_contain_text(field)
    page.fill("#batch", "3")  # and the page works
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({"batch": "3"})))


@pytest.mark.parametrize(("stored", "notice"), [
    ('{"gpu":"x\']"}', "gpu"),
    ('{"gpu":"24\\ngb","gpus":"2"}', "gpu"),
    ('{"gpu":{"a":[1]},"gpus":"1e9"}', "gpus"),
    ('[1, 2]', None),
    ('not json', None),
])
def test_local_storage_never_stops_the_start(watched: Page, server_url, stored, notice):
    page = watched
    open_ready(page, server_url)
    page.evaluate("(value) => localStorage.setItem('vramcalc.gpu', value)", stored)
    for visit in range(2):  # every visit, not only the first
        page.goto(f"{server_url}/index.html")
        page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=30_000)
        if notice and visit == 0:  # what was valid of it is remembered again, the rest is gone
            expect(page.locator("#notice")).to_contain_text(notice)
        elif not notice:
            expect(page.locator("#notice")).to_be_hidden()
        expect(page.locator("#gpu")).to_have_value("h100-80gb")
    page.fill("#batch", "3")
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({"batch": "3"})))
    expect(page.locator("#gpu")).to_have_value("h100-80gb")


def hold_main_py(page: Page):
    """Keeps main.py from arriving until the returned function is called: Python starts only then."""
    held = []
    page.route("**/main.py", lambda route: held.append(route))

    def release():
        for _ in range(300):  # until PyScript has asked for it (the route handler runs while Playwright waits)
            if held:
                break
            page.wait_for_timeout(100)
        assert held, "main.py was not requested"
        held[0].continue_()
        page.unroute("**/main.py")
    return release


def test_edits_made_while_python_starts_are_applied_as_later_ones(watched: Page, server_url):
    page = watched
    release = hold_main_py(page)
    page.goto(f"{server_url}/index.html?seq=2048", wait_until="domcontentloaded")
    expect(page.locator("#results")).not_to_have_class(STALE)
    page.focus("#model-search")
    page.keyboard.type("qwen3 8b")  # typed into the search, keyboard only
    expect(page.locator("#results")).to_have_class(STALE)  # the prerendered numbers no longer match
    expect(page.locator("#sticky")).to_have_class(STALE)
    expect(page.locator("#stale-boot")).to_be_visible()
    page.select_option("#precision", "q4_k_m")  # a GGUF type: the engine follows, as it does later
    page.fill("#batch", "2")
    assert not page.evaluate("document.documentElement.hasAttribute('data-py-ready')")
    release()
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    model = catalog.search("qwen3 8b")[0]
    expect(page.locator("#model")).to_have_value(model)
    expect(page.locator("#runtime")).to_have_value("llamacpp")
    expect(page.locator("#model-search-status")).not_to_be_empty()
    values = {"model": model, "precision": "q4_k_m", "runtime": "llamacpp", "batch": "2", "seq": "2048"}
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))
    expect(page.locator("#precision-error")).to_be_empty()
    for id_ in ("results", "sticky", "verdict", "reverse", "capacity-section"):
        expect(page.locator(f"#{id_}")).not_to_have_class(STALE)
    expect(page.locator("#stale-boot")).to_be_hidden()


def test_an_engine_chosen_after_the_format_during_the_start_is_kept(watched: Page, server_url):
    page = watched
    release = hold_main_py(page)
    page.goto(f"{server_url}/index.html?model=qwen3-8b", wait_until="domcontentloaded")
    page.select_option("#precision", "awq-int4")  # would move the engine to vLLM
    page.select_option("#runtime", "transformers")  # but the user chose another afterwards
    release()
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    expect(page.locator("#runtime")).to_have_value("transformers")
    values = {"model": "qwen3-8b", "precision": "awq-int4", "runtime": "transformers"}
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))


def test_a_config_json_applied_while_python_starts_is_imported(watched: Page, server_url):
    page = watched
    release = hold_main_py(page)
    page.goto(f"{server_url}/index.html", wait_until="domcontentloaded")
    preset = json.loads((ROOT / "app/vramcalc/data/models/qwen2.5-7b.json").read_text())
    page.click("#import summary")
    page.fill("#config-text", json.dumps(preset["config"]))
    page.click("#config-apply")
    expect(page.locator("#results")).to_have_class(STALE)
    release()
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    expect(page.locator("#model")).to_have_value("config")
    expect(page.locator("#param-count")).to_contain_text("7.62B")
    expect(page.locator("#results")).not_to_have_class(STALE)


def test_the_answer_is_marked_stale_while_a_field_is_in_error(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    page.fill("#gpus", "0")
    expect(page.locator("#verdict")).to_have_class(STALE)
    expect(page.locator("#sticky")).to_have_class(STALE)
    page.fill("#gpus", "1")
    expect(page.locator("#verdict")).not_to_have_class(STALE)
    expect(page.locator("#sticky")).not_to_have_class(STALE)


@pytest.mark.parametrize("lang, said", [("", "To fix: Completions per prompt."), ("/pt", "A corrigir: ")])
def test_a_link_whose_combination_does_not_hold_says_which_field_to_fix(watched: Page, server_url, lang, said):
    """Each value is valid alone, together not (TRL's GRPO: 8 generations must divide the batch of 1; a batch of 8
    holds): the answer stays the default's, dimmed, and the notice above it names the field, in the page's language."""
    page = watched
    open_ready(page, server_url + lang, "?mode=training&objective=grpo&model=qwen3-8b")
    expect(page.locator("#num_generations-error")).to_contain_text("num_generations")
    expect(page.locator("#stale")).to_be_visible()
    expect(page.locator("#stale-fields")).to_contain_text(said)
    page.fill("#batch", "8")
    expect(page.locator("#stale")).to_be_hidden()
    expect(page.locator("#stale-fields")).to_have_text("")


@pytest.mark.parametrize("query", ["", "?tp=2&pp=2&gpus=2", "?tp=2&pp=2"])
def test_a_hidden_layout_never_keeps_the_page_in_an_error(watched: Page, server_url, query):
    """Issue 22 item 7: 4 GPUs, TP 2, PP 2, then 1 GPU: the layout's fields hide, and their values count for
    nothing, so no error names them and the verdict and the GPU table are about one GPU."""
    page = watched
    open_ready(page, server_url, query)
    if query:  # the link's layout does not fit its GPUs: said in the notice, and the default layout opens
        expect(page.locator("#notice")).to_contain_text("tp")
        expect(page.locator("#tp")).to_have_value("")
    else:
        page.fill("#gpus", "4")
        page.click("#layout-fields > summary")  # the layout folds away until asked for
        page.fill("#tp", "2")
        page.fill("#pp", "2")
        expect(page.locator("#verdict-text")).to_contain_text("4 ×")
    page.fill("#gpus", "1")
    expect(page.locator("#tp")).to_be_hidden()
    expect(page.locator("#gpus-error")).to_have_text("")
    expect(page.locator("#tp-error")).to_have_text("")
    expect(page.locator("#verdict")).not_to_have_class(STALE)
    expect(page.locator("#verdict-text")).not_to_contain_text("TP 2")
    expect(page.locator("#verdict-text")).not_to_contain_text("4 ×")
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({})))
    expect(page).not_to_have_url(re.compile(r"[?&](tp|pp)="))
    if not query:  # the values wait in their fields for when several GPUs show them again
        page.fill("#gpus", "4")
        expect(page.locator("#tp")).to_have_value("2")
        expect(page.locator("#verdict-text")).to_contain_text("TP 2")


def test_a_hand_typed_plus_and_searches_people_type(watched: Page, server_url):
    page = watched
    open_ready(page, server_url, "?mode=training&gpus=8&zero=3&offload=optimizer+params")
    expect(page.locator("#notice")).to_be_hidden()
    expect(page.locator("#offload")).to_have_value("optimizer+params")
    values = {"mode": "training", "gpus": "8", "zero": "3", "offload": "optimizer+params"}
    from vramcalc.analysis.ranks import per_gpu
    rank = per_gpu(estimate(parse_workload(values)), 8)
    expect(page.locator("#rank-row-weights")).to_have_attribute("data-bytes", str(rank.components["weights"]))
    page.fill("#model-search", "(")  # punctuation only: as if nothing were typed
    expect(page.locator("#model")).to_have_value("llama-3-8b")
    expect(page.locator("#model-search-status")).to_be_empty()
    page.fill("#model-search", "meta-llama/Llama-3.1-70B-Instruct")
    expect(page.locator("#model")).to_have_value("llama-3.1-70b")
    expect(page.locator("#model-search-status")).to_contain_text("architecture")
    page.fill("#model-search", "- / ")
    expect(page.locator("#model")).to_have_value("llama-3.1-70b")  # the choice stays


def test_a_phone_is_never_wider_than_its_screen_with_every_panel_open(watched: Page, server_url):
    page = watched
    page.set_viewport_size({"width": 360, "height": 800})
    open_ready(page, server_url)
    page.click("#import summary")  # as a user opens it
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.evaluate("""() => {
        document.querySelectorAll('details').forEach((d) => { d.open = true; });
        document.querySelectorAll('main [hidden]').forEach((e) => { e.hidden = false; });
    }""")
    page.fill("#config-text", json.dumps({"model_type": "llama"}) * 20)
    wide = page.evaluate("""() => [...document.querySelectorAll('main *')]
        .filter((e) => e.getBoundingClientRect().right > 360 && !e.closest('#results, .scroll'))
        .map((e) => e.id || e.tagName)""")
    assert wide == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_images_and_videos_of_a_vision_model_follow_the_form_and_the_link(watched: Page, server_url):
    """A vision-language preset shows the images' and videos' fields; a video's length and frame rate show once a
    video is asked; the totals are the engine's and the link carries them (issue 26)."""
    from test_page import settled_url

    page = watched
    open_ready(page, server_url, "?model=qwen2.5-vl-7b-instruct")
    expect(page.locator("#videos")).to_be_visible()
    expect(page.locator("#video_seconds")).to_be_hidden()
    expect(page.locator("#image_width")).to_be_hidden()
    page.fill("#videos", "1")
    page.fill("#video_seconds", "60")
    values = {"model": "qwen2.5-vl-7b-instruct", "videos": "1", "video_seconds": "60"}
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))
    assert total_of(values) > total_of({"model": "qwen2.5-vl-7b-instruct"})  # the frames' tokens join the cache
    expect(page.locator("#image_width")).to_be_visible()  # frames take the image size
    assert "videos=1" in settled_url(page) and "video_seconds=60" in settled_url(page)
    page.select_option("#model", "llama-3.1-8b")  # no vision part: the fields go
    expect(page.locator("#videos")).to_be_hidden()
    expect(page.locator("#video_seconds")).to_be_hidden()
