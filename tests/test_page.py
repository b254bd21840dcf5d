"""The built page in headless Chromium: it boots from our own files, shows the
engine's numbers before and after Python starts, and keeps the link in step."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, expect

from vramcalc import DEFAULTS, estimate, parse_workload
from vramcalc.render.view import absent
from vramcalc.sources.gpus import table_gpus

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "test-results"


def settled_url(page):
    """The address bar once the page has written the link (main.py writes it 100 ms after a burst of changes)."""
    page.wait_for_selector("html:not([data-link])", state="attached")
    return page.url


def open_ready(page: Page, server_url: str, query: str = "") -> None:
    page.goto(f"{server_url}/index.html{query}")
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)


def unfold(page: Page) -> None:
    """Open every "More options" (test_more_options_fold_and_count_what_is_set clicks them as a user does)."""
    page.evaluate("document.querySelectorAll('details.more').forEach((d) => { d.open = true; })")


def total_of(values):
    return estimate(parse_workload(values)).total_bytes


def test_prerendered_html_shows_the_default_results(site_dir):
    html = (site_dir / "index.html").read_text(encoding="utf-8")
    assert f'data-bytes="{total_of({})}"' in html
    assert 'interpreter = "./static/pyodide/loader.mjs"' in (site_dir / "pyscript.toml").read_text()


def test_page_boots_and_every_control_matches_the_engine(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({})))
    # the standard library (through static/pyodide/loader.mjs) and the engine (vramcalc.zip) ran
    # from .pyc: fails if a PyScript or Pyodide bump stops passing stdLibURL or the bytecode is refused
    expect(page.locator("html")).to_have_attribute("data-bytecode", "stdlib,pyscript,engine")
    steps = [
        ({"model": "llama-3-70b"}, lambda: page.select_option("#model", "llama-3-70b")),
        ({"precision": "int4"}, lambda: page.select_option("#precision", "int4")),
        ({"kv_precision": "int8"}, lambda: page.select_option("#kv_precision", "int8")),
        ({"batch": "4"}, lambda: page.fill("#batch", "4")),
        ({"seq": "32768"}, lambda: page.fill("#seq", "32768")),
        ({"overhead_gib": "2.5"}, lambda: page.fill("#overhead_gib", "2.5")),
        ({"precision": "bf16", "mode": "training"},
         lambda: (page.select_option("#precision", "bf16"), page.check("#mode-training"))),
        ({"optimizer": "sgd-momentum"}, lambda: page.select_option("#optimizer", "sgd-momentum")),
        ({"mixed_precision": "1"}, lambda: page.check("#mixed_precision")),
        ({"checkpointing": "layer"}, lambda: page.select_option("#checkpointing", "layer")),
        ({"attention": "eager"}, lambda: page.select_option("#attention", "eager")),
    ]
    values = {}
    for change, act in steps:
        unfold(page)  # what a new mode or engine shows may sit behind "More options"
        act()
        values.update(change)
        expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))
    result = estimate(parse_workload(values))
    for key, expected in result.as_dict().items():
        expect(page.locator(f"#row-{key}")).to_have_attribute("data-bytes", str(expected))
        # a row of 0 bytes stays when the part is live in another phase of the step (activations at the optimizer)
        shown = expect(page.locator(f"#row-{key}"))
        shown.to_be_hidden() if absent(result, key) else shown.to_be_visible()
    assert not absent(result, "gradients") and absent(result, "kv_cache")
    # the link carries the state; opening it restores the same numbers
    link = settled_url(page)
    open_ready(page, server_url, "?" + link.split("?", 1)[1])
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))
    expect(page.locator("#mode-training")).to_be_checked()


def test_custom_model_and_bad_input(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    page.select_option("#model", "custom")
    page.fill("#params", "7")
    page.fill("#hidden", "4096")
    page.fill("#layers", "32")
    values = {"model": "custom", "params": "7", "hidden": "4096", "layers": "32"}
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))
    page.fill("#batch", "-5")
    expect(page.locator("#batch-error")).to_contain_text("batch")
    expect(page.locator("#stale")).to_be_visible()
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(values)))


def test_link_with_bad_and_unknown_values_shows_a_notice(watched: Page, server_url):
    page = watched
    open_ready(page, server_url, "?seq=2048&batch=abc&foo=%3Cscript%3E&model=llama-3.2-1b")
    expect(page.locator("#notice")).to_contain_text("batch")
    expect(page.locator("#notice")).to_contain_text("foo")
    expected = total_of({"seq": "2048", "model": "llama-3.2-1b"})
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(expected))
    assert page.locator("script:not([src]):not([type='py'])").count() == 0


def test_config_json_import(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    preset = json.loads((ROOT / "app/vramcalc/data/models/qwen2.5-7b.json").read_text())
    page.click("#import summary")
    page.fill("#config-text", "{not json")
    page.click("#config-apply")
    expect(page.locator("#config-error")).to_contain_text("config.json")
    page.fill("#config-text", json.dumps(preset["config"]))
    page.click("#config-apply")
    expect(page.locator("#param-count")).to_contain_text("7.62B")
    expect(page.locator("#model")).to_have_value("config")


def test_a_weight_file_is_read_from_its_header_in_the_page(watched: Page, server_url):
    """A GGUF opened in the page: the model its metadata says, on llama.cpp, with the file's exact bytes
    (what the command line answers for the same file); a bad file gets words; forgetting it goes back."""
    from vramcalc.cli import read_weights

    page = watched
    open_ready(page, server_url)
    page.click("#import summary")
    bad = ROOT / "tests/data/weights/expected.json"  # not a weight file
    page.set_input_files("#weights-file", str(bad))
    expect(page.locator("#weights-error")).to_contain_text("weights")
    gguf = ROOT / "tests/data/weights/tiny-llama-q4_k_m.gguf"
    page.set_input_files("#weights-file", str(gguf))
    expect(page.locator("#model")).to_have_value("weights")
    expect(page.locator("#runtime")).to_have_value("llamacpp")
    expect(page.locator("#weights-error")).to_have_text("")
    given = read_weights(str(gguf))
    expected = estimate(parse_workload({"model": "weights", "runtime": "llamacpp"}, weights=given)).total_bytes
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(expected))
    expect(page.locator("#weights-status")).to_contain_text("tiny-llama-q4_k_m.gguf")
    page.click("#weights-clear")
    expect(page.locator("#model")).to_have_value(DEFAULTS["model"])
    expect(page.locator("#weights-status")).to_have_text("")
    # safetensors shards are the weights of the model imported beside them
    folder = ROOT / "tests/data/weights/tiny-qwen3-sharded"
    page.fill("#config-text", (folder / "config.json").read_text())
    page.click("#config-apply")
    page.select_option("#runtime", "transformers")
    page.set_input_files("#weights-file", [str(path) for path in sorted(folder.glob("*.safetensors"))])
    expect(page.locator("#model")).to_have_value("config")
    shards = read_weights(str(folder))
    config = json.loads((folder / "config.json").read_text())
    expected = estimate(parse_workload({"model": "config", "runtime": "transformers"}, config=config,
                                       weights=shards)).total_bytes
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(expected))


def test_weight_files_refused_together_get_words_in_the_page(watched: Page, server_url):
    """Files the reader refuses together (a tensor in two of them; a GGUF beside safetensors) are said under the
    picker, as a bad header is: before, WeightsGiven's refusal was raised outside the handler's try."""
    page = watched
    open_ready(page, server_url)
    page.click("#import summary")
    data = ROOT / "tests/data/weights"
    shards = sorted((data / "tiny-qwen3-sharded").glob("*.safetensors"))
    page.set_input_files("#weights-file", [str(data / "tiny-qwen3.safetensors"), *map(str, shards)])
    expect(page.locator("#weights-error")).to_contain_text("in the files twice")
    page.set_input_files("#weights-file", [str(data / "tiny-llama-q4_k_m.gguf"), str(data / "tiny-qwen3.safetensors")])
    expect(page.locator("#weights-error")).to_contain_text("GGUF and safetensors")


def test_the_command_to_run_follows_the_plan(watched: Page, server_url):
    """Prerendered for the defaults; the engine's own line once the plan changes (render/command.py)."""
    from vramcalc.render.command import command_lines, run_lines
    from vramcalc.render.messages import ENGLISH

    page = watched
    open_ready(page, server_url)
    expect(page.locator("#run-command")).to_have_text(command_lines(parse_workload(DEFAULTS))[0])
    page.select_option("#precision", "q4_k_m")  # a GGUF type: the page moves to llama.cpp
    expect(page.locator("#runtime")).to_have_value("llamacpp")
    expected = command_lines(parse_workload({"precision": "q4_k_m", "runtime": "llamacpp"}))[0]
    expect(page.locator("#run-command")).to_have_text(expected)
    assert expected.startswith("llama-server -m llama-3-8b-Q4_K_M.gguf -c 8192 -ngl 999")
    page.select_option("#precision", "bf16")
    page.select_option("#runtime", "vllm")  # then the lines its log should show, as shell comments
    lines = run_lines(estimate(parse_workload({"precision": "bf16", "runtime": "vllm"})), 1, words=ENGLISH)
    assert lines[1] == "# vLLM should then log about these lines:" and "sglang.launch_server" in lines[-1]
    expect(page.locator("#run-command")).to_have_text("\n".join(lines))


@pytest.mark.parametrize(("width", "height", "scheme"), [(390, 844, "light"), (1280, 900, "dark")])
def test_screenshots(page: Page, server_url, width, height, scheme):
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    open_ready(page, server_url)
    expect(page.locator("#gpu-table tbody tr")).to_have_count(len(table_gpus()))
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"page-{width}-{scheme}.png"), full_page=False)


def test_the_charts_axes_follow_the_engine(watched: Page, server_url):
    """llama.cpp's batch chart sweeps its --parallel slots: the axis and the chart's title say so once the engine
    changes (they were prerendered only)."""
    page = watched
    open_ready(page, server_url)
    expect(page.locator("#chart-batch-axis")).to_have_text("batch size")
    page.select_option("#precision", "q4_k_m")  # a GGUF type: the page moves to llama.cpp
    expect(page.locator("#runtime")).to_have_value("llamacpp")
    expect(page.locator("#chart-batch-axis")).to_have_text("parallel sequences (--parallel)")
    expect(page.locator("#chart-batch-title")).to_contain_text("parallel sequences (--parallel)")


def test_gpu_picker_answers_the_reverse_questions(watched: Page, server_url):
    from vramcalc.analysis.ranks import per_gpu
    from vramcalc.analysis.solve import solve
    from vramcalc.inputs.parse import parse_target

    page = watched
    open_ready(page, server_url, "?gpu=rtx-4090")
    expect(page.locator("#gpu")).to_have_value("rtx-4090")
    solution = solve(parse_workload({"gpu": "rtx-4090"}), parse_target({"gpu": "rtx-4090"}))  # its own overhead
    expect(page.locator("#answer-max_seq")).to_have_attribute("data-value", str(solution.max_seq))
    expect(page.locator("#answer-max_batch")).to_have_attribute("data-value", str(solution.max_batch))
    expect(page.locator("#chart-seq-desc")).to_contain_text(f"{solution.max_seq:,}")
    page.select_option("#model", "llama-3-70b")
    page.fill("#gpus", "2")
    values = {"model": "llama-3-70b", "gpu": "rtx-4090", "gpus": "2"}
    solution = solve(parse_workload(values), parse_target(values))
    for key in ("max_seq", "max_batch", "min_gpus", "max_params"):
        value = getattr(solution, key)
        expect(page.locator(f"#answer-{key}")).to_have_attribute("data-value", "" if value is None else str(value))
    assert "gpu=rtx-4090" in settled_url(page) and "gpus=2" in settled_url(page)
    # the most loaded GPU of the default layout (TP 2), component by component, each with how it was split
    rank = per_gpu(estimate(parse_workload(values)), 2)
    expect(page.locator("#rank")).to_be_visible()
    expect(page.locator("#rank-row-weights")).to_have_attribute("data-bytes", str(rank.components["weights"]))
    expect(page.locator("#rank-row-weights .how")).to_contain_text("TP 2")
    expect(page.locator("#rank-row-gradients")).to_be_hidden()  # nothing to show in inference
    expect(page.locator("#target-heading")).to_contain_text("TP 2, assumed")
    page.click("#layout-fields > summary")  # the layout folds away until asked for
    page.fill("#pp", "2")  # a layout the user sets replaces the assumed one
    expect(page.locator("#rank-row-weights .how")).to_contain_text("40 of 80 layers")
    expect(page.locator("#rank-lines")).to_contain_text("stage 1 of 2")
    page.fill("#pp", "")
    page.fill("#gpus", "1")
    expect(page.locator("#rank")).to_be_hidden()
    page.fill("#gpus", "0")
    expect(page.locator("#gpus-error")).to_contain_text("gpus")
    expect(page.locator("#reverse")).to_have_class("stale")


def test_capacity_table_follows_headroom_and_a_typed_size(watched: Page, server_url):
    page = watched
    html = page.goto(f"{server_url}/index.html").text()
    assert "<td class=\"range\">3.2–4B</td>" in html  # prerendered
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
    page.fill("#headroom", "25")
    expect(page.locator("#capacity-16 td.range").first).to_have_text("3–4B")
    page.fill("#vram", "40")
    expect(page.locator("#capacity-user")).to_be_visible()
    expect(page.locator("#capacity-user th")).to_have_text("40 GB")
    expect(page.locator("#capacity-user td.range").nth(3)).to_have_text("60–80B")
    assert "vram=40" in settled_url(page) and "headroom=25" in settled_url(page)


HOSTILE_LINKS = [
    ("?model=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E", "model"),
    ("?batch=1e309&seq=NaN&overhead_gib=-0", "batch"),
    ("?batch=%zz&seq=%FF%FE&gpus=0x10", "gpus"),
    ("?batch=2&batch=3&" + "x=1&" * 80, "repeated"),
    ("?" + "a" * 5000, "longer than"),
]


def test_hostile_links_end_in_a_defined_state(watched: Page, server_url):
    page = watched
    for query, named in HOSTILE_LINKS:
        open_ready(page, server_url, query)
        expect(page.locator("#notice")).to_contain_text(named)
        injected = page.evaluate("document.querySelectorAll('img, iframe, object, embed, script:not([src])').length")
        assert injected == 0, query
        total = int(page.locator("#total").get_attribute("data-bytes"))
        assert 0 < total < 10**18
        if "%3Cimg" in query:
            expect(page.locator("#notice")).to_contain_text("<img src=x")  # shown as text, not parsed as markup


def test_what_the_user_types_while_python_starts_is_kept(watched: Page, server_url):
    page = watched
    typed = threading.Event()

    def held(route):  # the engine arrives only once the user has typed: the page boots fast enough to race
        typed.wait(30)
        route.continue_()
    page.route("**/vramcalc.zip.gz", held)
    page.goto(f"{server_url}/index.html?seq=2048", wait_until="domcontentloaded")
    page.fill("#batch", "4")
    typed.set()
    typed_before_ready = not page.evaluate("document.documentElement.hasAttribute('data-py-ready')")
    page.wait_for_selector("html[data-py-ready='1']", state="attached", timeout=60_000)
    expect(page.locator("#batch")).to_have_value("4")
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({"batch": "4", "seq": "2048"})))
    assert typed_before_ready  # otherwise this run did not test the boot at all


def test_a_model_is_found_by_typing_part_of_its_hugging_face_id(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    page.focus("#model-search")
    page.keyboard.type("Qwen/Qwen3-32")  # keyboard only, as a user types it
    expect(page.locator("#model")).to_have_value("qwen3-32b")
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of({"model": "qwen3-32b"})))
    expect(page.locator("#model-facts")).to_contain_text("Qwen/Qwen3-32B")
    assert "model=qwen3-32b" in settled_url(page)
    # options that do not match are hidden, whole families too
    assert page.locator("#model option[value='llama-3-8b']").get_attribute("hidden") is not None
    page.fill("#model-search", "gpt oss")
    expect(page.locator("#model")).to_have_value("gpt-oss-20b")
    expect(page.locator("#model-search-status")).to_contain_text("2 matches")
    page.fill("#model-search", "")
    assert page.locator("#model option[value='llama-3-8b']").get_attribute("hidden") is None


def test_an_unknown_architecture_is_marked_approximate_above_the_results(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    expect(page.locator("#approximate")).to_be_hidden()
    config = {"model_type": "brand_new_lm", "hidden_size": 2048, "num_hidden_layers": 16,
              "num_attention_heads": 16, "intermediate_size": 5632, "vocab_size": 32000}
    page.locator("#import summary").click()
    page.fill("#config-text", json.dumps(config))
    page.click("#config-apply")
    expect(page.locator("#approximate")).to_be_visible()
    expect(page.locator("#assumptions")).to_contain_text("brand_new_lm")
    box = page.locator("#approximate").bounding_box()
    assert box["y"] < page.locator("#breakdown").bounding_box()["y"]  # above the numbers, not a footnote


def test_engine_controls_appear_only_where_they_apply(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    unfold(page)
    expect(page.locator("#vllm-fields")).to_be_hidden()
    expect(page.locator("#llamacpp-fields")).to_be_hidden()
    expect(page.locator("#group-size-field")).to_be_hidden()
    page.select_option("#model", "qwen3-32b")
    page.select_option("#precision", "q4_k_m")  # a GGUF type moves the engine to llama.cpp
    expect(page.locator("#runtime")).to_have_value("llamacpp")
    expect(page.locator("#llamacpp-fields")).to_be_visible()
    page.fill("#seq", "32768")
    page.fill("#gpu_layers", "40")
    expected = estimate(parse_workload({"model": "qwen3-32b", "precision": "q4_k_m", "runtime": "llamacpp",
                                        "seq": "32768", "gpu_layers": "40"}))
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(expected.total_bytes))
    expect(page.locator("#runtime-facts")).to_contain_text("system RAM")
    expect(page.locator("#draft-fields")).to_be_hidden()
    page.select_option("#draft_model", "qwen3-0.6b")  # speculative decoding: the draft's own context beside it
    expect(page.locator("#draft-fields")).to_be_visible()
    page.select_option("#draft_kv_precision", "q8_0")
    drafted = estimate(parse_workload({"model": "qwen3-32b", "precision": "q4_k_m", "runtime": "llamacpp",
                                       "seq": "32768", "gpu_layers": "40", "draft_model": "qwen3-0.6b",
                                       "draft_kv_precision": "q8_0"}))
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(drafted.total_bytes))
    assert "draft_model=qwen3-0.6b" in settled_url(page) and "draft_kv_precision=q8_0" in settled_url(page)
    page.select_option("#draft_model", "llama-3.2-1b")  # another vocabulary: llama.cpp refuses it, and so do we
    expect(page.locator("#draft_model-error")).to_contain_text("vocabulary")
    page.select_option("#draft_model", "")
    page.select_option("#precision", "awq-int4")  # a GPU format moves it to vLLM, with its group size
    expect(page.locator("#runtime")).to_have_value("vllm")
    expect(page.locator("#vllm-fields")).to_be_visible()
    expect(page.locator("#group-size-field")).to_be_visible()
    expect(page.locator("#runtime-facts")).to_contain_text("KV pool")
    assert "runtime=vllm" in settled_url(page) and "precision=awq-int4" in settled_url(page)


def test_a_link_with_any_bits_per_weight_opens(watched: Page, server_url):
    page = watched
    open_ready(page, server_url, "?model=llama-3.1-70b&precision=bpw:4.13&runtime=vllm")
    expect(page.locator("#precision")).to_have_value("bpw:4.13")
    expected = estimate(parse_workload({"model": "llama-3.1-70b", "precision": "bpw:4.13", "runtime": "vllm"}))
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(expected.total_bytes))


def test_a_machine_of_different_cards_is_built_in_the_form(watched: Page, server_url):
    """gpu=a,b (issue 25): llama.cpp and Ollama split the layers over different cards; the form builds the list."""
    from vramcalc.inputs.parse import parse_target
    from vramcalc.render.view import present_target

    page = watched
    base = {"model": "qwen3-32b", "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-3090"}
    open_ready(page, server_url, "?" + "&".join(f"{k}={v}" for k, v in base.items()))
    expect(page.locator("#cards-box")).to_be_visible()
    page.click("#card-add")
    page.select_option("#card-1", "rtx-4060-ti-16gb")
    mixed = {**base, "gpu": "rtx-3090,rtx-4060-ti-16gb"}
    verdict = present_target(parse_workload(mixed), parse_target(mixed)).verdict
    expect(page.locator("#verdict-text")).to_have_text(verdict.text)
    assert "gpu=rtx-3090%2Crtx-4060-ti-16gb" in settled_url(page)
    panel = present_target(parse_workload(mixed), parse_target(mixed)).rank
    assert panel is not None
    expect(page.locator("#rank-device-rows tr")).to_have_count(2)  # a row per card, as the engine tables it
    expect(page.locator("#rank-device-rows tr").nth(1)).to_have_text("".join(panel.devices[1]))
    page.click("#card-add")
    page.select_option("#card-2", "rtx-3060")
    page.click("#cards-list li:first-child .card-remove")  # CUDA1 goes: the 3060 becomes CUDA1
    expect(page.locator("#cards-list select")).to_have_count(1)
    expect(page.locator("#card-1")).to_have_value("rtx-3060")
    expect(page.locator("#card-add")).to_be_focused()
    assert "gpu=rtx-3090%2Crtx-3060" in settled_url(page)
    # a link's list restores the cards, one not listed (24gb) included
    open_ready(page, server_url, "?model=qwen3-32b&runtime=ollama&precision=q4_k_m&gpu=rtx-3090,rtx-4060-ti-16gb,24gb")
    expect(page.locator("#gpu")).to_have_value("rtx-3090")
    expect(page.locator("#card-1")).to_have_value("rtx-4060-ti-16gb")
    expect(page.locator("#card-2")).to_have_value("24gb")
    page.select_option("#runtime", "transformers")  # shards over one kind of card: said at the field
    page.select_option("#precision", "auto")
    expect(page.locator("#gpu-error")).to_contain_text("llama.cpp and Ollama")
    page.click("#cards-list li:first-child .card-remove")
    page.click("#cards-list li:first-child .card-remove")
    expect(page.locator("#gpu-error")).to_be_empty()
    expect(page.locator("#cards-box")).to_be_hidden()  # transformers, no card added


def test_a_mac_is_fitted_against_its_gpu_share(watched: Page, server_url):
    page = watched
    open_ready(page, server_url, "?model=qwen3-32b&runtime=llamacpp&precision=q4_k_m&seq=32768")
    expect(page.locator("#apple-fields")).to_be_hidden()
    page.select_option("#gpu", "apple-m3-max-36gb")
    expect(page.locator("#apple-fields")).to_be_visible()
    expect(page.locator("#target-heading")).to_contain_text("27.00 GiB")  # 3/4 of 36 GB before macOS 26
    page.fill("#wired_limit_mb", "30000")
    expect(page.locator("#target-heading")).to_contain_text("29.30 GiB")
    assert "wired_limit_mb=30000" in settled_url(page)


def test_lora_controls_follow_the_engine(watched: Page, server_url):
    page = watched
    open_ready(page, server_url, "?mode=training&model=llama-3.1-8b&seq=2048")
    expect(page.locator("#lora-fields")).to_be_hidden()
    page.fill("#lora_rank", "16")
    expect(page.locator("#lora-fields")).to_be_visible()
    page.select_option("#precision", "nf4-dq")
    expected = estimate(parse_workload({"mode": "training", "model": "llama-3.1-8b", "seq": "2048", "lora_rank": "16",
                                        "precision": "nf4-dq"}))
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(expected.total_bytes))


def test_llama_cpp_answers_in_parallel_sequences(watched: Page, server_url):
    page = watched
    open_ready(page, server_url, "?model=qwen3-8b&runtime=llamacpp&precision=q4_k_m&gpu=rtx-4090")
    expect(page.locator("#answer-max_batch")).to_have_attribute("data-value", "16")
    expect(page.locator("#answers")).to_contain_text("Most parallel sequences")


@pytest.mark.parametrize(("query", "kind", "words"), [
    ("?gpu=rtx-4090", "fits", "Fits on one RTX 4090"),
    ("?gpu=rtx-4090&seq=32768", "tight", "tightly"),
    ("?gpu=rtx-4090&model=llama-3-70b", "does not fit", "Does not fit on one RTX 4090"),
])
def test_the_answer_comes_first(watched: Page, server_url, query, kind, words):
    from vramcalc.inputs.parse import parse_link
    from vramcalc.render.view import present_target

    page = watched
    html = page.goto(f"{server_url}/index.html{query}").text()
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
    values = dict(pair.split("=") for pair in query[1:].split("&"))
    workload, target, _, _ = parse_link(values)
    verdict = present_target(workload, target).verdict
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", kind)
    expect(page.locator("#verdict-text")).to_have_text(verdict.text)
    assert words in verdict.text
    if kind == "does not fit":  # the nearest changes that fit, from the reverse answers
        expect(page.locator("#verdict-change-list li")).to_have_count(len(verdict.changes))
        assert verdict.changes
    else:
        expect(page.locator("#verdict-changes")).to_be_hidden()
    assert 'id="verdict"' in html  # prerendered too (for the default link)


def test_phone_keeps_the_answer_in_view_without_sideways_scrolling(watched: Page, server_url):
    page = watched
    page.set_viewport_size({"width": 390, "height": 800})
    open_ready(page, server_url, "?gpu=rtx-4090")
    sticky = page.locator("#sticky")
    expect(sticky).to_be_visible()
    expect(sticky).to_contain_text("fits one RTX 4090")
    page.locator("#batch").scroll_into_view_if_needed()
    page.fill("#batch", "64")
    expect(sticky).to_contain_text("does not fit")
    assert sticky.bounding_box()["y"] + sticky.bounding_box()["height"] <= 800  # still on screen
    assert sticky.bounding_box()["height"] >= 44  # a tap target
    small = page.evaluate("""() => [...document.querySelectorAll(
        'input:not([type=checkbox]):not([type=radio]), select, button, summary, label.check, .radios label, #sticky')]
        .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
        .map((e) => e.id || e.outerHTML.slice(0, 60))""")
    assert small == []  # tap targets of at least 44 px
    for width in (390, 360):
        page.set_viewport_size({"width": width, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.set_viewport_size({"width": 1280, "height": 800})
    expect(sticky).to_be_hidden()  # two columns: the answer sits at the top of the results


def test_export_buttons_save_the_engine_numbers_and_print_hides_the_form(watched: Page, server_url):
    from vramcalc.analysis.fit import fit_all
    from vramcalc.render.export import to_csv, to_json, to_markdown

    page = watched
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_ready(page, server_url, "?model=qwen3-8b&gpus=2")
    breakdown = estimate(parse_workload({"model": "qwen3-8b"}))
    with page.expect_download() as saved:
        page.click("#export-csv")
    assert Path(saved.value.path()).read_text(encoding="utf-8") == to_csv(breakdown, 2)
    with page.expect_download() as saved:
        page.click("#export-json")
    assert json.loads(Path(saved.value.path()).read_text(encoding="utf-8")) == json.loads(
        json.dumps(to_json(breakdown, fit_all(breakdown), 2)))
    page.click("#export-markdown")
    expect(page.locator("#export-status")).to_contain_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    verdict = page.locator("#verdict-text").text_content()
    assert copied == to_markdown(breakdown, 2, verdict=verdict, link=settled_url(page))
    page.emulate_media(media="print")
    expect(page.locator("#form")).to_be_hidden()
    expect(page.locator("#total")).to_be_visible()
    expect(page.locator("#verdict")).to_be_visible()
    page.emulate_media(media="screen")


def test_portuguese_page_is_prerendered_and_keeps_the_link(watched: Page, server_url):
    from vramcalc.render.messages import Words

    page = watched
    html = page.goto(f"{server_url}/pt/?gpu=rtx-4090&batch=2").text()
    assert '<html lang="pt">' in html and "Vai caber?" in html  # the first paint is in Portuguese
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
    total = estimate(parse_workload({"batch": "2", "gpu": "rtx-4090"})).total_bytes  # the card's overhead
    expected = Words("pt").gib(total)  # 17,87 GiB: a decimal comma
    assert "," in expected
    expect(page.locator("#total-gib")).to_have_text(expected)
    expect(page.locator("#verdict-text")).to_contain_text("Cabe em uma RTX 4090")
    expect(page.locator("#lang-en")).to_have_attribute("href", "../?batch=2&gpu=rtx-4090&lang=en")
    page.click("#lang-en")
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
    assert urlparse(page.url).path == "/" and "lang=en" in page.url
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#batch")).to_have_value("2")
    page.fill("#batch", "3")  # the chosen language stays in the link
    expect(page).to_have_url(re.compile(r"batch=3.*lang=en"))


def test_lang_key_opens_the_portuguese_page(watched: Page, server_url):
    page = watched
    page.goto(f"{server_url}/?model=qwen3-8b&lang=pt")
    page.wait_for_selector("html[data-py-ready='1']", timeout=60_000)
    assert urlparse(page.url).path == "/pt/"
    expect(page.locator("html")).to_have_attribute("lang", "pt")
    expect(page.locator("#model")).to_have_value("qwen3-8b")


def test_more_options_fold_and_count_what_is_set(watched: Page, server_url):
    page = watched
    open_ready(page, server_url, "?kv_precision=int8&overhead_gib=2")
    expect(page.locator("#kv_precision")).to_be_hidden()  # folded by default
    expect(page.locator("#more-workload > summary")).to_have_text("More options · 1 set")
    expect(page.locator("#more-engine > summary")).to_have_text("More options · 1 set")
    page.click("#more-workload > summary")
    expect(page.locator("#kv_precision")).to_be_visible()
    page.select_option("#kv_precision", "")
    expect(page.locator("#more-workload > summary")).to_have_text("More options")
    page.click("#more-engine > summary")
    page.fill("#overhead_gib", "-1")
    page.click("#more-engine > summary")  # folded with a bad value in it
    page.fill("#batch", "2")
    expect(page.locator("#overhead_gib")).to_be_visible()  # an error is never folded away
    expect(page.locator("#overhead_gib-error")).not_to_be_empty()


def test_remember_my_card_only_when_ticked(watched: Page, server_url):
    page = watched
    open_ready(page, server_url)
    page.select_option("#gpu", "rtx-4090")
    assert page.evaluate("localStorage.getItem('vramcalc.gpu')") is None  # nothing kept unless asked
    page.check("#remember-gpu")
    page.fill("#gpus", "2")
    assert json.loads(page.evaluate("localStorage.getItem('vramcalc.gpu')")) == {"gpu": "rtx-4090", "gpus": "2"}
    open_ready(page, server_url)  # a link without a card opens on the remembered one
    expect(page.locator("#gpu")).to_have_value("rtx-4090")
    expect(page.locator("#remember-gpu")).to_be_checked()
    open_ready(page, server_url, "?gpu=h100-80gb")  # a link's own card wins
    expect(page.locator("#gpu")).to_have_value("h100-80gb")
    page.uncheck("#remember-gpu")
    assert page.evaluate("localStorage.getItem('vramcalc.gpu')") is None


def test_tensors_placed_by_a_pattern_change_the_total_the_link_and_the_command(watched: Page, server_url):
    """llama.cpp's --override-tensor typed in the engine's options: the engine's bytes, the link keeps it,
    the command carries it; a device llama.cpp does not have is named beside the field."""
    from vramcalc.render.command import command_lines

    page = watched
    values = {"model": "qwen3-30b-a3b", "runtime": "llamacpp", "precision": "q4_k_m"}
    open_ready(page, server_url, "?" + "&".join(f"{key}={value}" for key, value in values.items()))
    unfold(page)
    pattern = r"blk\.(1[0-9])\.ffn_.*_exps=CPU"
    page.fill("#override_tensor", pattern)
    placed = {**values, "override_tensor": pattern}
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(total_of(placed)))
    assert total_of(placed) < total_of(values)
    assert "override_tensor=" in settled_url(page)
    expect(page.locator("#run-command")).to_have_text(command_lines(parse_workload(placed))[0])
    page.fill("#override_tensor", "token_embd=GPU")
    expect(page.locator("#override_tensor-error")).to_contain_text("CUDA0")


def test_a_link_opened_on_llama_cpp_leaves_out_its_logits_row(watched: Page, server_url):
    """llama.cpp's logits are in its compute buffer: the row of 0 is left out, also on the first answer of a link
    (the page's cache of written attributes starts at "", which an empty data-absent once matched)."""
    page = watched
    open_ready(page, server_url, "?model=qwen3-32b&runtime=llamacpp&precision=q4_k_m")
    expect(page.locator("#row-kv_cache")).to_be_visible()
    expect(page.locator("#row-logits")).to_be_hidden()
    expect(page.locator("#row-gradients")).to_be_hidden()


def test_training_objective_fields_appear_only_for_their_objectives(watched: Page, server_url):
    """The reference, GRPO's generation settings, the completion length and PPO's rollout settings are hidden
    under supervised fine-tuning and shown for the objectives that read them (quantise: under a GPU format)."""
    page = watched
    open_ready(page, server_url, "?mode=training&model=llama-3.2-1b")
    unfold(page)
    expect(page.locator("#training-fields")).to_be_visible()
    for wrapper in ("#reference-field", "#generation-fields", "#completion-field", "#ppo-fields", "#quantise-field"):
        expect(page.locator(wrapper)).to_be_hidden()
    page.select_option("#objective", "grpo")
    for wrapper in ("#reference-field", "#generation-fields", "#completion-field"):
        expect(page.locator(wrapper)).to_be_visible()
    expect(page.locator("#ppo-fields")).to_be_hidden()
    page.select_option("#objective", "ppo")
    expect(page.locator("#ppo-fields")).to_be_visible()
    expect(page.locator("#generation-fields")).to_be_hidden()


def test_a_framework_default_set_back_to_the_forms_wins_and_stays_in_the_link(watched: Page, server_url):
    """Unsloth turns per-layer checkpointing on; the user sets it back to none, the form's default: the answer
    counts none (the total of a workload with checkpointing given), and the link keeps checkpointing=none, so
    that it opens the same."""
    page = watched
    values = {"mode": "training", "framework": "unsloth", "lora_rank": "16", "seq": "2048"}
    open_ready(page, server_url, "?" + "&".join(f"{key}={value}" for key, value in values.items()))
    with_default = total_of(values)
    unfold(page)
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(with_default))
    page.select_option("#checkpointing", "sqrt")
    page.select_option("#checkpointing", "none")
    off = parse_workload({**values, "checkpointing": "none"}, given={"checkpointing"})
    assert estimate(off).total_bytes != with_default
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(estimate(off).total_bytes))
    assert "checkpointing=none" in settled_url(page)
    open_ready(page, server_url, "?" + settled_url(page).split("?", 1)[1])
    expect(page.locator("#total")).to_have_attribute("data-bytes", str(estimate(off).total_bytes))
