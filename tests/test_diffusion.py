"""Diffusion pipelines: each part's tensors against its diffusers or transformers class built on the meta device
(tests/golden/diffusion_params.json, written by tools/measure_diffusion.py), the presets' sources, and the memory
of a run against what tools/measure_diffusion.py measured on small configs of the same classes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.core.errors import ValidationError
from vramcalc.diffusion.pipelines import load_pipelines, pipeline
from vramcalc.diffusion.tensors import PARAMETER_KINDS, tensors
from vramcalc.diffusion.weights import gguf_type, part_bytes

GOLDEN = json.loads((Path(__file__).parent / "golden" / "diffusion_params.json").read_text(encoding="utf-8"))


def _counts(class_name: str, config: dict) -> dict:
    listed = [t for t in tensors(class_name, config) if t.kind in PARAMETER_KINDS]
    return {"params": sum(t.numel for t in listed), "tensors": len(listed),
            "vector_params": sum(t.numel for t in listed if len(t.shape) == 1)}


PRESET_PARTS = [(slug, role) for slug, parts in GOLDEN["presets"].items() for role in parts]


@pytest.mark.parametrize(("slug", "role"), PRESET_PARTS)
def test_each_preset_part_counts_as_its_class_on_the_meta_device(slug, role):
    part = next(p for p in pipeline(slug).parts if p.role == role)
    measured = GOLDEN["presets"][slug][role]
    assert part.class_name == measured["class"]
    assert _counts(part.class_name, part.config) == {key: measured[key] for key in ("params", "tensors",
                                                                                     "vector_params")}


@pytest.mark.parametrize("case", GOLDEN["perturbed"], ids=lambda case: case["class"])
def test_small_configs_of_other_shapes_count_as_their_class(case):
    assert _counts(case["class"], case["config"]) == {key: case[key] for key in ("params", "tensors",
                                                                                  "vector_params")}


def test_every_preset_was_measured_and_names_its_source():
    assert set(load_pipelines()) == set(GOLDEN["presets"])
    for slug, entry in load_pipelines().items():
        assert {part.role for part in entry.parts} == set(GOLDEN["presets"][slug])
        for part in entry.parts:
            assert len(part.source) > 30, (slug, part.role)
        assert set(entry.text_tokens) == {part.role for part in entry.parts if part.is_text_encoder}


def test_an_unknown_pipeline_or_class_is_refused():
    with pytest.raises(ValidationError, match="pipeline"):
        pipeline("flux.2-max")
    with pytest.raises(ValueError, match="not read yet"):
        tensors("HunyuanVideoTransformer3DModel", {})
    with pytest.raises(ValueError, match="image-to-video"):
        tensors("WanTransformer3DModel", {"image_dim": 1280})


@pytest.mark.parametrize("case", GOLDEN["perturbed"], ids=lambda case: case["class"])
@pytest.mark.parametrize("precision", ["bf16", "fp16", "fp32", "fp8"])
def test_weights_are_the_bytes_from_pretrained_loads(case, precision):
    """Every parameter and buffer as from_pretrained(torch_dtype=...) holds it (diffusers' fp32 modules, T5's fp32
    `wo` under fp16, SD3's position table, Wan's rotary tables), and fp8 as layerwise casting stores it."""
    listed = tensors(case["class"], case["config"])
    assert part_bytes(listed, case["class"], precision) == case["bytes"][precision]


def test_gguf_keeps_what_city96s_tools_keep():
    flux = pipeline("flux.1-dev").denoiser
    types = {t.name: gguf_type(t, flux.class_name, "q4_0") for t in flux.tensors}
    assert types["x_embedder.weight"] == types["proj_out.weight"] == "bf16"  # img_in, final_layer: not quantised
    assert types["transformer_blocks.0.attn.to_q.weight"] == "q4_0"
    assert types["transformer_blocks.0.attn.to_q.bias"] == "f32"  # 1-D: F32 (convert.py)
    wan = pipeline("wan2.1-t2v-14b").denoiser
    types = {t.name: gguf_type(t, wan.class_name, "q5_0") for t in wan.tensors}
    assert types["blocks.0.ffn.net.2.weight"] == "q5_1" and types["blocks.0.ffn.net.0.proj.weight"] == "q5_0"
    assert types["patch_embedding.weight"] == "f32" and types["blocks.0.scale_shift_table"] == "f32"
    assert types["rope.freqs_cos"] == "none"
    # Q8_0 is 34 bytes per 32 values: the quantised matrices of Flux take 17/16 of a byte per parameter
    quantised = sum(t.numel for t in flux.tensors if gguf_type(t, flux.class_name, "q8_0") == "q8_0")
    assert part_bytes(flux.tensors, flux.class_name, "gguf-q8_0") - quantised * 34 // 32 == sum(
        t.numel * (4 if gguf_type(t, flux.class_name, "q8_0") == "f32" else 2)
        for t in flux.tensors if gguf_type(t, flux.class_name, "q8_0") != "q8_0")
    with pytest.raises(ValueError, match="GGUF"):
        part_bytes(pipeline("flux.1-dev").parts[1].tensors, "T5EncoderModel", "gguf-q4_0")
