"""Diffusion pipelines: each part's tensors against its diffusers or transformers class built on the meta device
(tests/golden/diffusion_params.json, written by tools/measure_diffusion.py), the presets' sources, and the memory
of a run against what tools/measure_diffusion.py measured on small configs of the same classes."""

from __future__ import annotations

import json
from math import prod
from pathlib import Path

import pytest

from vramcalc.core.errors import ValidationError
from vramcalc.diffusion.pipelines import load_pipelines, pipeline
from vramcalc.diffusion.tensors import tensors

GOLDEN = json.loads((Path(__file__).parent / "golden" / "diffusion_params.json").read_text(encoding="utf-8"))


def _counts(class_name: str, config: dict) -> dict:
    listed = tensors(class_name, config)
    return {"params": sum(prod(shape) for _, shape in listed), "tensors": len(listed),
            "vector_params": sum(prod(shape) for _, shape in listed if len(shape) == 1)}


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
