"""Fine-tuning recipes, optimizers and LoRA / QLoRA model states."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.choices import Optimizer
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import format_binary
from vramcalc.model.table import counted_tensors
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.training import recipes

PARAMS = 8_030_261_248  # Llama 3.1 8B


def states(**values):
    result = estimate(parse_workload({"model": "llama-3.1-8b", "mode": "training", "seq": "512",
                                      **{k: str(v) for k, v in values.items()}}))
    return {key: result.size_of(key) for key in ("weights", "gradients", "optimizer", "master_weights")}


@pytest.mark.parametrize(("values", "per_param"), [
    (dict(recipe="fp32", precision="fp32"), 16),  # 4 + 4 + 8
    (dict(recipe="bf16"), 8),  # PyTorch keeps Adam's state in the parameter's dtype: 2 + 2 + 4
    (dict(recipe="mixed"), 18),  # Megatron / DeepSpeed: 2 + 4 (fp32 grads) + 4 (master) + 8
    (dict(mixed_precision=1), 16),  # the first version's mixed precision, kept for old links (ZeRO paper §3.1)
    (dict(), 12),  # bf16 weights and gradients, fp32 Adam state: the first version's default
])
def test_bytes_per_parameter_of_each_recipe(values, per_param):
    assert sum(states(**values).values()) == PARAMS * per_param


def test_amp_keeps_fp32_weights_and_autocasts_16_bit_copies():
    amp = states(recipe="amp")
    assert amp["gradients"] == 4 * PARAMS and amp["optimizer"] == 8 * PARAMS and amp["master_weights"] == 0
    assert 4 * PARAMS < amp["weights"] < 6 * PARAMS  # + a bf16 copy of every linear weight


@pytest.mark.parametrize(("targets", "rank", "trainable"), [
    # peft's print_trainable_parameters() for Llama 3 8B, as published in countless notebooks
    ("all-linear", 16, 41_943_040),
    ("q,v", 8, 3_407_872),
])
def test_lora_trains_only_the_adapters(targets, rank, trainable):
    lora = states(lora_rank=rank, lora_targets=targets)
    assert lora["gradients"] == 4 * trainable  # fp32 adapters (peft's autocast_adapter_dtype)
    assert lora["optimizer"] == 8 * trainable
    assert lora["weights"] == 2 * PARAMS + 4 * trainable
    assert lora["master_weights"] == 0


def test_qlora_keeps_the_base_in_nf4():
    from vramcalc.formats.weights import parse_format, weights
    from vramcalc.sources.presets import preset_spec

    qlora = states(lora_rank=16, precision="nf4-dq")
    base = sum(part.bytes for part in weights(preset_spec("llama-3.1-8b"), parse_format("nf4-dq")))
    assert qlora["weights"] == base + 4 * 41_943_040
    assert qlora["gradients"] == 4 * 41_943_040


def test_eight_bit_adamw_is_about_two_bytes_per_parameter():
    optimizer = states(optimizer="adamw-8bit")["optimizer"]
    assert optimizer == pytest.approx(2 * (1 + 4 / 256) * PARAMS, rel=0.001)


BNB = json.loads((Path(__file__).parent / "golden" / "measured_bnb_state.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("optimizer", sorted(BNB["optimizers"]))
def test_bitsandbytes_state_is_the_bytes_it_allocates(optimizer):
    """bitsandbytes' AdamW8bit, PagedAdamW8bit and PagedAdamW on a small bf16 Llama (tools/measure_bnb_state.py):
    fp32 state under 4,096 elements, uint8 with an fp32 absmax per 256 above, fp32 for paged AdamW whatever the
    parameters' dtype; the paged part is both moments of the tensors of 100,000 elements or more (the code
    books, 2 KiB per optimizer object, are left out)."""
    measured = BNB["optimizers"][optimizer]
    tensors = counted_tensors(from_hf_config(BNB["config"]))
    assert sum(t.numel * n for t, n in tensors) == measured["params"]
    assert recipes.optimizer_state_bytes(Optimizer(optimizer), tensors, 2) == measured["state_bytes"]
    assert recipes.paged_state_bytes(Optimizer(optimizer), tensors) == measured["paged_bytes"]


def test_paged_adamw_keeps_fp32_state_and_says_what_pytorch_does_not_count():
    assert states(optimizer="paged-adamw", recipe="bf16")["optimizer"] == 8 * PARAMS
    result = estimate(parse_workload({"model": "llama-3.1-8b", "mode": "training", "optimizer": "paged-adamw-8bit"}))
    note = ENGLISH.say(next(c for c in result.components if c.key == "optimizer").formula[-1])
    paged = 2 * (PARAMS - 65 * 4096)  # both uint8 moments of every tensor but the 65 norms (4,096 values each)
    assert "max_memory_allocated" in note and f"{format_binary(paged)} of it" in note


def test_fused_cross_entropy_never_materialises_the_logits():
    full = estimate(parse_workload({"model": "llama-3.1-8b", "mode": "training", "seq": "8192"}))
    fused = estimate(parse_workload({"model": "llama-3.1-8b", "mode": "training", "seq": "8192", "fused_ce": "1"}))
    assert fused.size_of("logits") < full.size_of("logits") / 10


@pytest.mark.parametrize(("values", "field"), [
    (dict(lora_rank=5000), "lora_rank"),  # above the 1,024-wide K/V projections
    (dict(lora_rank=8, lora_targets="q,attn"), "lora_targets"),
    (dict(model="deepseek-v2-lite", lora_rank=8, lora_targets="k"), "lora_targets"),  # MLA has no k_proj
    (dict(fused_ce=1, mode="inference"), "fused_ce"),
    (dict(lora_rank=8, precision="q4_k_m"), "precision"),  # QLoRA needs nf4 or nf4-dq
    (dict(precision="nf4"), "precision"),  # NF4 weights train only under LoRA
    (dict(recipe="amp", precision="fp32"), "precision"),
    (dict(lora_rank=8, recipe="mixed"), "recipe"),
    (dict(recipe="bf16", mixed_precision=1), "mixed_precision"),
    (dict(optimizer="adamw-8bit", optimizer_impl="foreach"), "optimizer_impl"),  # bitsandbytes: one kernel per tensor
    (dict(optimizer="adafactor", optimizer_impl="fused"), "optimizer_impl"),
    (dict(optimizer_impl="vectorised"), "optimizer_impl"),
])
def test_training_settings_a_model_cannot_use_name_the_field(values, field):
    with pytest.raises(ValidationError) as caught:
        texts = {k: str(v) for k, v in values.items()}
        estimate(parse_workload({"model": "llama-3.1-8b", "mode": "training", **texts}))
    assert caught.value.field == field


@pytest.mark.parametrize(("impl", "copies"), [("foreach", 1), ("for-loop", 0), ("fused", 0)])
def test_the_optimizer_update_and_its_temporaries(impl, copies):
    # fp32 AdamW: foreach's _foreach_sqrt copies the whole second moment (4 B per parameter); the for-loop
    # two copies of the largest tensor; fused none. The update phase holds weights, gradients, state.
    breakdown = estimate(parse_workload({"model": "llama-3.1-8b", "mode": "training", "recipe": "fp32",
                                         "optimizer_impl": impl, "seq": "512"}))
    params = breakdown.params
    update = breakdown.phases["optimizer"]
    assert update["weights"] + update["gradients"] + update["optimizer"] == 16 * params
    if copies:
        assert update["temporaries"] == 4 * params
    elif impl == "for-loop":
        assert update["temporaries"] == 2 * 128_256 * 4096 * 4  # the embedding, the largest tensor
    else:
        assert update["temporaries"] == 0


def test_gradient_accumulation_keeps_gradients_through_the_forward():
    values = {"model": "llama-3.1-8b", "mode": "training", "recipe": "bf16", "seq": "1024"}
    one = estimate(parse_workload(values))
    four = estimate(parse_workload({**values, "grad_accum": "4"}))
    assert one.phases["forward"]["gradients"] == 0
    assert four.phases["forward"]["gradients"] == four.size_of("gradients")
    assert four.phase_totals()["forward"] == one.phase_totals()["forward"] + four.size_of("gradients")
    assert four.total_bytes >= one.total_bytes


def test_fused_cross_entropy_removes_the_loss_gradient():
    values = {"model": "llama-3.1-8b", "mode": "training", "recipe": "bf16", "seq": "4096", "lora_rank": "16"}
    plain = estimate(parse_workload(values))
    fused = estimate(parse_workload({**values, "fused_ce": "1"}))
    assert plain.phases["loss"]["temporaries"] == 2 * 4 * 4096 * 128_256
    assert fused.phases["loss"]["temporaries"] == 0
    assert fused.total_bytes < plain.total_bytes


def test_a_part_live_only_before_the_peak_keeps_its_row():
    """At the optimizer's peak a full fine-tune's activations are freed (0 B): the row stays, saying so, where a
    part the workload never has (the KV cache in training) is left out of the table."""
    from vramcalc.render.view import absent

    result = estimate(parse_workload({"model": "qwen3-8b", "mode": "training", "checkpointing": "none",
                                      "seq": "2048"}))
    assert result.bytes_of("activations") == 0 and result.phases["forward"]["activations"] > 0
    assert not absent(result, "activations") and absent(result, "kv_cache")


@pytest.mark.parametrize("precision", ["auto", "bf16"])
def test_pure_fp32_training_is_said_fp32(precision):
    """--recipe fp32 keeps every weight, gradient and state in fp32 and computes in fp32; before, the answer's header
    (text, Markdown, the page) said 'training, bf16' from the precision the recipe does not use. LoRA keeps its
    frozen base in the precision named."""
    from vramcalc.core.dtypes import Precision
    from vramcalc.render.export import request_summary

    workload = parse_workload({"model": "qwen3-0.6b", "mode": "training", "recipe": "fp32", "precision": precision})
    assert workload.precision is Precision.FP32
    assert "training, fp32" in request_summary(workload, key="results.header")
    lora = parse_workload({"model": "qwen3-0.6b", "mode": "training", "recipe": "fp32", "precision": "bf16",
                           "lora_rank": "8"})
    assert lora.precision is Precision.BF16
