"""LoRA training of a diffusion transformer: one step's peak against the steps tools/measure_diffusion_lora.py
measured on small FluxTransformer2DModel, Flux2Transformer2DModel and WanTransformer3DModel configs
(tests/golden/diffusion_lora.json), and the `vramcalc diffusion --train-lora` command."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from vramcalc.core.errors import ValidationError
from vramcalc.diffusion.pipelines import pipeline
from vramcalc.diffusion.training import Training, denoiser_step, step

GOLDEN = json.loads((Path(__file__).parent / "golden" / "diffusion_lora.json").read_text(encoding="utf-8"))
TOLERANCE = 0.10  # the bar


def _step(case: dict):
    training = Training(rank=case["rank"], base=case["base"], adapters=case["adapters"],
                        checkpointing=case["checkpointing"])
    return denoiser_step(case["class"], case["config"], training, case["batch"], tuple(case["latent"]),
                         case["text_tokens"])


def _id(case: dict) -> str:
    return (f"{case['class'][:4]}-b{case['batch']}-{'x'.join(map(str, case['latent']))}-t{case['text_tokens']}-"
            f"{case['base']}-{case['adapters']}-{'ckpt' if case['checkpointing'] else 'full'}")


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=_id)
def test_the_frozen_weights_and_the_adapters_are_what_the_step_held(case):
    result = _step(case)
    assert result.weight_bytes == case["weight_bytes"]
    assert result.adapter_params == case["trainable_params"]
    assert result.adapter_bytes == case["trainable_bytes"]


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=_id)
def test_a_training_step_peaks_where_it_was_measured(case):
    """The whole peak, and the part above what the step starts with (weights, adapters, AdamW state, inputs)."""
    result = _step(case)
    assert result.total_bytes == pytest.approx(case["peak_bytes"], rel=TOLERANCE)
    start = case["phases"]["forward"]["start"]
    above = result.activation_bytes + result.transient_bytes + result.gradient_bytes
    assert above == pytest.approx(case["peak_bytes"] - start, rel=TOLERANCE)


def test_the_golden_file_covers_every_class_and_every_switch():
    cases = GOLDEN["cases"]
    classes = {"FluxTransformer2DModel", "Flux2Transformer2DModel", "WanTransformer3DModel"}
    assert {c["class"] for c in cases} == classes
    for cls in classes:
        mine = [c for c in cases if c["class"] == cls]
        assert {(c["base"], c["adapters"], c["checkpointing"]) for c in mine} >= {
            ("bf16", "bf16", False), ("bf16", "bf16", True), ("fp8", "bf16", False), ("fp8", "bf16", True),
            ("bf16", "fp32", False), ("fp8", "fp32", True)}
        assert len({(c["batch"], tuple(c["latent"]), c["text_tokens"]) for c in mine}) >= 3


def test_full_size_answers_move_the_right_way():
    flux = pipeline("flux.1-dev")
    size = {"batch": 1, "width": 1024, "height": 1024, "frames": 1}
    checkpointed = step(flux, Training(rank=16, base="fp8"), **size)
    assert step(flux, Training(rank=16, base="fp8", checkpointing=False), **size).total_bytes > (
        2 * checkpointed.total_bytes)
    assert step(flux, Training(rank=16), **size).weight_bytes > checkpointed.weight_bytes
    assert step(flux, Training(rank=32, base="fp8"), **size).adapter_params == 2 * checkpointed.adapter_params
    musubi = step(flux, Training(rank=16, base="fp8", targets="no-modulation"), **size)
    assert musubi.adapter_params < checkpointed.adapter_params
    eight_bit = step(flux, Training(rank=16, base="fp8", optimizer="adamw8bit"), **size)
    assert eight_bit.optimizer_bytes < checkpointed.optimizer_bytes
    # FLUX.2 as ai-toolkit trains it: one adapter on each stream's fused qkv (lora_A shared by q, k and v)
    klein = pipeline("flux.2-klein-4b")
    d, blocks = 3072, (5, 20)
    fused = step(klein, Training(rank=16, base="fp8"), **size)
    assert fused.adapter_params == 16 * (blocks[0] * 2 * (4 * d + 2 * d + (d + 18432) + (9216 + d))
                                         + blocks[1] * ((d + 3 * d + 18432) + (d + 9216 + d)))
    assert fused.total_bytes < step(klein, Training(rank=16), **size).total_bytes
    wan = pipeline("wan2.1-t2v-14b")
    frames = [step(wan, Training(rank=32, base="fp8"), batch=1, width=832, height=480, frames=f).total_bytes
              for f in (17, 49, 81)]
    assert frames == sorted(frames) and len(set(frames)) == 3


def test_only_flux_and_wan_train_and_bad_values_name_their_field():
    with pytest.raises(ValidationError, match="pipeline"):
        step(pipeline("sdxl"), Training(rank=16), batch=1, width=1024, height=1024, frames=1)
    for field, training in (("train_lora", Training(rank=0)), ("lora_targets", Training(rank=8, targets="qv")),
                            ("optimizer", Training(rank=8, optimizer="lion"))):
        with pytest.raises(ValidationError, match=field):
            step(pipeline("flux.1-dev"), training, batch=1, width=1024, height=1024, frames=1)


def test_the_command_line_prints_the_step(capsys):
    from vramcalc.cli import main

    assert main(["diffusion", "--train-lora", "16", "--precision", "fp8", "--width", "1024", "--height", "1024",
                 "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    expected = step(pipeline("flux.1-dev"), Training(rank=16, base="fp8"), batch=1, width=1024, height=1024,
                    frames=1)
    assert document["train_lora"]["peak_bytes"] == expected.total_bytes
    assert main(["diffusion", "--train-lora", "16", "--cache-latents", "off", "--json"]) == 0
    uncached = json.loads(capsys.readouterr().out)["train_lora"]
    assert uncached["encoder_bytes"] > 9 * 10**9  # T5-XXL, CLIP-L and the VAE in bf16
    assert main(["diffusion", "--pipeline", "wan2.1-t2v-1.3b", "--train-lora", "32", "--checkpointing", "off"]) == 0
    assert "peak (in the backward)" in capsys.readouterr().out
    assert main(["diffusion", "--train-lora", "16", "--precision", "nf4"]) == 2
    assert "precision" in capsys.readouterr().err


# ---------------------------------------------------------------- the page's training step (train_lora a rank)

def test_the_page_reads_a_training_step_from_the_link_keys():
    from vramcalc.diffusion.training import train
    from vramcalc.inputs.parse import parse_diffusion, parse_diffusion_training

    values = {"family": "diffusion", "pipeline": "wan2.1-t2v-14b", "train_lora": "32", "denoiser_precision": "fp8",
              "adapter_precision": "fp32", "train_optimizer": "adamw8bit", "train_checkpointing": "off",
              "cache_latents": "off", "train_lora_targets": "no-modulation"}
    chosen, request = parse_diffusion(values)
    assert parse_diffusion_training({**values, "train_lora": "0"}) is None  # a generation
    training = parse_diffusion_training(values)
    assert training == Training(rank=32, targets="no-modulation", base="fp8", adapters="fp32", optimizer="adamw8bit",
                                checkpointing=False, cached=False)
    result = train(chosen, request, training)
    assert result.encoder_bytes > 0  # latents not cached: the VAE and UMT5 on the GPU
    assert result == step(chosen, training, batch=1, width=request.width, height=request.height,
                          frames=request.frames, encoder_bytes=result.encoder_bytes)


@pytest.mark.parametrize("precision", ["nf4", "gguf-q8_0"])
def test_a_base_the_trainers_do_not_train_on_names_the_denoiser_precision(precision):
    from vramcalc.diffusion.run import Request
    from vramcalc.diffusion.training import train

    chosen = pipeline("flux.1-dev")
    request = Request(width=1024, height=1024, frames=1, batch=1, cfg=False, placement="gpu", precision=precision,
                      text_precision="bf16", vae_precision="bf16")
    with pytest.raises(ValidationError) as raised:
        train(chosen, request, Training(rank=16))
    assert raised.value.field == "denoiser_precision"


def test_a_step_too_large_for_the_card_lists_the_single_changes_that_fit_it():
    from vramcalc.diffusion.run import Request
    from vramcalc.diffusion.training import single_changes, train
    from vramcalc.render.diffusion import present_training
    from vramcalc.sources.gpus import gpu

    chosen, card = pipeline("flux.1-dev"), gpu("rtx-4090")
    request = Request(width=1024, height=1024, frames=1, batch=1, cfg=False, placement="gpu", precision="bf16",
                      text_precision="bf16", vae_precision="bf16")
    training = Training(rank=16)
    result = train(chosen, request, training)
    assert result.total_bytes > card.usable_bytes  # bf16 base with AdamW: 25.0 GiB
    changes = dict(((key, value), need) for key, value, need in single_changes(chosen, request, training))
    fp8 = train(chosen, dataclasses.replace(request, precision="fp8"), training).total_bytes
    assert changes[("denoiser_precision", "fp8")] == fp8 < card.usable_bytes
    assert ("train_checkpointing", "on") not in changes  # already on
    view = present_training(chosen, request, training, result, gpu=card)
    assert view.total_bytes == result.total_bytes and view.verdict is not None
    assert view.verdict.kind == "does not fit"
    assert [change for change in view.verdict.changes if "fp8" in change] and all(
        "AdamW8bit" not in change for change in view.verdict.changes)  # AdamW8bit alone leaves it over 24 GB
    assert len(view.rows) == sum(1 for size in (result.weight_bytes, result.encoder_bytes, result.adapter_bytes,
                                                result.gradient_bytes, result.optimizer_bytes, result.input_bytes,
                                                result.activation_bytes, result.transient_bytes) if size)
