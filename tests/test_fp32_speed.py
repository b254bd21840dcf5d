"""fp32 matmuls at the card's FP32 rate (data/gpus `fp32_tflops`), not its 16-bit tensor rate: PyTorch leaves TF32
off in matmuls, so an A100 runs them at 19.5 TFLOPS, not 312; an Apple GPU runs FP16 and FP32 at one rate."""

from __future__ import annotations

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.inputs.parse import parse_workload
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.gpus import all_gpus
from vramcalc.speed import speed_of
from vramcalc.speed.hardware import device
from vramcalc.speed.inference import Placement, prefill
from vramcalc.workload import Machine

# a long prompt through a small model: compute-bound (the fixed cost per layer and the weights' reads are small)
PROMPT = {"model": "llama-3.2-1b", "runtime": "transformers", "prompt_tokens": "16384", "output_tokens": "1",
          "seq": "16385"}


def _prefill_s(values: dict[str, str]) -> tuple[float, float, str]:
    workload = parse_workload(values)
    assert workload.gpu is not None
    run = prefill(workload, device(workload.gpu, Machine()), Machine(), Placement(), batch=1,
                  prompt=workload.prompt)
    assert run is not None
    return run.seconds, run.compute_s, run.kernel


def test_an_fp32_prompt_on_an_a100_takes_about_16_times_a_bf16_one():
    fp32, fp32_compute, kernel = _prefill_s({**PROMPT, "precision": "fp32", "gpu": "a100-80gb"})
    bf16, bf16_compute, _ = _prefill_s({**PROMPT, "precision": "bf16", "gpu": "a100-80gb"})
    assert kernel == "fp32"
    assert fp32_compute / bf16_compute == pytest.approx(312 / 19.5)  # the same FLOPs at the same share
    assert 14 < fp32 / bf16 < 16.1  # the fixed cost per layer dilutes it a little


def test_an_fp32_prompt_on_a_mac_takes_as_long_as_a_bf16_one():
    fp32, fp32_compute, kernel = _prefill_s({**PROMPT, "precision": "fp32", "gpu": "apple-m4-max-128gb"})
    bf16, bf16_compute, _ = _prefill_s({**PROMPT, "precision": "bf16", "gpu": "apple-m4-max-128gb"})
    assert kernel == "fp32" and fp32_compute == pytest.approx(bf16_compute)
    assert fp32 == pytest.approx(bf16, rel=0.05)


def test_pure_fp32_training_runs_at_the_fp32_rate_and_says_so():
    values = {"model": "llama-3.2-1b", "mode": "training", "gpu": "a100-80gb", "batch": "4", "seq": "2048"}
    plain = parse_workload({**values, "precision": "bf16", "recipe": "bf16"})
    fp32 = parse_workload({**values, "precision": "bf16", "recipe": "fp32"})
    amp = parse_workload({**values, "precision": "bf16", "recipe": "amp"})  # fp32 weights under bf16 autocast
    steps = {name: speed_of(estimate(w), w.gpu, 1, Machine()) for name, w in
             (("bf16", plain), ("fp32", fp32), ("amp", amp))}
    assert steps["fp32"].step_s / steps["bf16"].step_s == pytest.approx(312 / 19.5)
    assert steps["amp"].step_s == pytest.approx(steps["bf16"].step_s)
    said = ENGLISH.say(steps["fp32"].basis[0])
    assert "of 19.5 TFLOPS per GPU (FP32 matmuls)" in said, said
    assert "(16-bit matmuls)" in ENGLISH.say(steps["amp"].basis[0])


def test_an_fp32_embedding_names_the_fp32_rate():
    workload = parse_workload({"model": "bge-large-en-v1.5", "mode": "embedding", "precision": "fp32",
                               "gpu": "a100-80gb", "batch": "32", "seq": "512"})
    said = ENGLISH.say(speed_of(estimate(workload), workload.gpu, 1, Machine()).basis[0])
    assert "of 19.5 TFLOPS (FP32 matmuls)" in said, said


def test_every_card_with_a_16_bit_rate_has_an_fp32_rate_below_or_at_it():
    for slug, card in all_gpus().items():
        assert (card.fp32_flops is None) == (card.fp16_flops is None), slug
        if card.fp32_flops is not None and card.fp16_flops is not None:
            assert card.fp32_flops <= card.fp16_flops, slug


def test_the_users_tflops_scale_the_fp32_rate_too():
    card = parse_workload({"gpu": "a100-80gb"}).gpu
    assert card is not None
    scaled = device(card, Machine(gpu_tflops=156))
    assert scaled.flops["fp32"] == pytest.approx(19.5e12 / 2)


def test_an_fp32_whisper_encodes_at_the_fp32_rate():
    workload = parse_workload({"model": "whisper-small", "mode": "speech", "runtime": "transformers",
                               "precision": "fp32", "gpu": "a100-80gb"})
    said = ENGLISH.say(speed_of(estimate(workload), workload.gpu, 1, Machine()).basis[0])
    assert "of 19.5 TFLOPS (FP32 matmuls)" in said, said
