"""Multimodal models: the vision tower and projector counted exactly against transformers 5.23 on the meta device
(tests/golden/vision.json, tools/measure_vision.py), full-size and perturbed, beside the language model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.model.table import param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.vision import FAMILIES

GOLDEN = json.loads((Path(__file__).parent / "golden" / "vision.json").read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_vision_part_counts_as_transformers_builds_it(case):
    spec = from_hf_config(case["config"])
    assert not spec.assumptions, [ENGLISH.say(a) for a in spec.assumptions]
    assert spec.vision is not None and spec.vision.params == case["vision_params"]
    assert param_count(spec) == case["text_params"]


def test_every_family_has_a_full_size_and_a_perturbed_case():
    names = {case["name"] for case in CASES}
    assert {f"{family}/{label}" for family in FAMILIES for label in ("full", "perturbed")} <= names


def _weights(**values):
    from vramcalc import estimate, parse_workload

    result = estimate(parse_workload({"model": "gemma-3-27b-it", **values}))
    return result, result.bytes_of("weights")


def test_the_vision_part_joins_the_weights_in_16_bits_unless_text_only():
    vision = 423_060_336  # gemma-3-27b-it's tower and projector (golden gemma3/full)
    result, with_it = _weights(precision="int4")
    _, without = _weights(precision="int4", text_only="1")
    assert with_it - without == 2 * vision
    said = ENGLISH.say(next(c for c in result.components if c.key == "weights").formula[-1])
    assert "vision tower" in said and "423M parameters" in said


def test_llama_cpp_keeps_the_mmproj_on_the_gpu_unless_told_not_to():
    llamacpp = {"runtime": "llamacpp", "precision": "q4_k_m"}
    on, gpu = _weights(**llamacpp)
    off, ram = _weights(**llamacpp, no_mmproj_offload="1")
    assert gpu - ram == 2 * 423_060_336 == off.host_bytes - on.host_bytes
    _, text = _weights(**llamacpp, text_only="1")
    assert text == ram


# the processor settings each golden column was made with, and a model of that family (Qwen3.5 shares Qwen3-VL's)
TOKEN_MODELS = {"qwen2_5_vl": "qwen2.5-vl-7b-instruct", "qwen3_vl": "qwen3.5-27b", "gemma4": "gemma-4-31b-it",
                "llama4": "llama-4-scout-17b-16e-instruct", "mistral3": "mistral3/full", "gemma3": "gemma-3-27b-it"}


def _vision(name):
    from vramcalc.sources.presets import load_presets

    if "/" in name:
        return from_hf_config(next(c["config"] for c in CASES if c["name"] == name)).vision
    return load_presets()[name].spec().vision


@pytest.mark.parametrize("size", GOLDEN["image_tokens"], ids=lambda row: f"{row['width']}x{row['height']}")
def test_an_image_becomes_the_tokens_its_processor_makes(size):
    from vramcalc.model.families.vision import image_tokens

    expected = {**{k: v for k, v in size.items() if k not in ("width", "height")}, "gemma3": 256}
    got = {family: image_tokens(_vision(TOKEN_MODELS[family]), size["width"], size["height"]) for family in expected}
    assert got == expected


@pytest.mark.parametrize("runtime", ["transformers", "vllm", "llamacpp"])
def test_image_tokens_join_each_sequence_in_every_engine(runtime):
    from vramcalc import ValidationError, estimate, parse_workload

    base = {"model": "qwen2.5-vl-7b-instruct", "seq": "4096", "runtime": runtime, "batch": "2",
            **({"precision": "q4_k_m", "parallel": "2"} if runtime == "llamacpp" else {})}
    images = {**base, "images": "2", "image_width": "1280", "image_height": "720"}
    workload = parse_workload(images)
    assert workload.image_tokens == 2 * 1196 and workload.seq == 4096 + 2 * 1196  # golden: 1280 × 720 is 1,196
    plain, more = estimate(parse_workload({**base, "seq": str(workload.seq)})), estimate(workload)
    assert more.bytes_of("kv_cache") == plain.bytes_of("kv_cache") > estimate(parse_workload(base)).bytes_of(
        "kv_cache")
    assert any("2,392 tokens" in ENGLISH.say(note) for note in more.notes)
    with pytest.raises(ValidationError):
        parse_workload({**images, "text_only": "1"})
    with pytest.raises(ValidationError):
        parse_workload({**images, "model": "llama-3.1-8b"})
