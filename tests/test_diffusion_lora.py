"""LoRA training of a diffusion transformer: one step's peak against the steps tools/measure_diffusion_lora.py
measured on small FluxTransformer2DModel and WanTransformer3DModel configs (tests/golden/diffusion_lora.json), and
the `vramcalc diffusion --train-lora` command."""

from __future__ import annotations

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


def test_the_golden_file_covers_both_classes_and_every_switch():
    cases = GOLDEN["cases"]
    assert {c["class"] for c in cases} == {"FluxTransformer2DModel", "WanTransformer3DModel"}
    for cls in ("FluxTransformer2DModel", "WanTransformer3DModel"):
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
