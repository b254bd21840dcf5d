"""Llama 3.2 Vision's training step against bytes measured on transformers' MllamaForConditionalGeneration
(tests/golden/measured_mllama.json, written by tools/measure_mllama.py): with images, and text-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention, Checkpointing, Mode
from vramcalc.core.dtypes import Precision
from vramcalc.memory.activations import training_activations
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.workload import Workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_mllama.json").read_text(encoding="utf-8"))
MODEL = from_hf_config(GOLDEN["config"])
FULL = [case for case in GOLDEN["cases"] if case["lora"] is None]
SAVED = [case for case in FULL if case["checkpointing"] == "none"]
CHECKPOINTED = [case for case in FULL if case["checkpointing"] == "layer"]
# CPU's LayerNorm keeps its mean and 1/std in bf16, CUDA's (and the engine's) in fp32: 4 B more a token and norm
# of the vision tower (+0.02 to +0.12 % here); nothing else differs.
SAVED_TOLERANCE = 0.002
# Under checkpointing the measurement is the live bytes at the forward's end: bf16 within 0.3 %. In fp32 two things
# differ, both named: the fp32 pixel values are the step's input, not made by the forward (in bf16 their cast is),
# where the engine counts the patch convolution's input (150 kB an image here); and eager attention's fp32 s × s
# causal mask, which the checkpointed layers' arguments keep and the engine does not count (the text model's, also
# without images: −3.7 %).
CHECKPOINT_TOLERANCE = 0.10


def _id(case):
    return "-".join(str(case[k]) for k in ("attention", "precision", "batch", "seq", "images", "checkpointing"))


def _workload(case, images):
    return Workload(model=MODEL, mode=Mode.TRAINING, precision=Precision(case["precision"]), batch=case["batch"],
                    seq=case["seq"], attention=Attention(case["attention"]),
                    checkpointing=Checkpointing(case["checkpointing"]), overhead_bytes=0, images=images)


def _saved(case, images):
    breakdown = estimate(_workload(case, images))
    return breakdown.size_of("activations") + breakdown.size_of("logits")


@pytest.mark.parametrize("case", SAVED, ids=[_id(c) for c in SAVED])
def test_a_step_with_images_saves_what_transformers_saves(case):
    assert _saved(case, case["images"]) == pytest.approx(case["measured"]["saved_bytes"], rel=SAVED_TOLERANCE)


@pytest.mark.parametrize("case", SAVED, ids=[_id(c) for c in SAVED])
def test_a_text_only_step_skips_the_cross_attention_layers(case):
    """MllamaTextModel skips a cross-attention layer without images (modeling_mllama.py `continue`): the step saves
    only the self-attention layers', exactly; counting the cross layers as self-attention (as before) was over."""
    measured = case["measured"]["text_only_saved_bytes"]
    assert _saved(case, 0) == pytest.approx(measured, rel=1e-4)
    assert set(case["measured"]["text_only_by_region"]) == {"layer0", "layer2", "outside"}


@pytest.mark.parametrize("case", CHECKPOINTED, ids=[_id(c) for c in CHECKPOINTED])
def test_a_checkpointed_step_keeps_the_tower_and_the_vision_states(case):
    """Per-layer checkpointing (transformers' default, non-reentrant) recomputes the text layers but not the vision
    tower (its layers are no GradientCheckpointingLayer): the forward keeps the tower's saved tensors, the vision
    states and masks the cross layers' arguments hold, and every layer's input."""
    for images, measured in ((case["images"], case["measured"]), (0, case["measured"]["text_only"])):
        workload = _workload(case, images)
        kept = training_activations(workload)[1] + estimate(workload).size_of("logits")
        assert kept == pytest.approx(measured["forward_live_bytes"], rel=CHECKPOINT_TOLERANCE)


def test_the_tiles_an_image_uses_change_nothing():
    """MllamaProcessor pads every image to max_num_tiles tiles; aspect_ratio_mask only masks them."""
    by_tiles = {case["tiles"]: case["measured"]["saved_bytes"] for case in SAVED
                if (case["attention"], case["precision"], case["seq"], case["images"]) == ("flash", "bf16", 64, 1)}
    assert len(by_tiles) == 2 and len(set(by_tiles.values())) == 1


def test_peft_target_names_reach_the_vision_tower():
    """q_proj/v_proj and all-linear adapt the tower too, which then saves (modelled by
    tests/test_golden_mllama_lora.py)."""
    lora = [case for case in GOLDEN["cases"] if case["lora"] is not None and case["checkpointing"] == "none"]
    assert lora and all(case["measured"]["vision_tower_gets_gradients"] and case["measured"]["by_region"]["vision"]
                        for case in lora)
