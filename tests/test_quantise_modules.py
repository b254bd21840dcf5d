"""`quantise=mlp`: a GPU format on the MLPs and experts only, attention kept in 16-bit (transformers' and vLLM's
modules_to_not_convert; Meta's FP8 Llama 3.1 405B quantises only its FFN weights)."""

from __future__ import annotations

import pytest

from vramcalc import ValidationError, parse_workload
from vramcalc.analysis.evaluate import estimate
from vramcalc.model.table import counted_tensors
from vramcalc.model.tensor import Role

MODEL = "llama-3.1-405b"


def test_fp8_on_the_mlps_keeps_attention_in_bf16():
    run = parse_workload({"model": MODEL, "precision": "fp8", "quantise": "mlp"})
    assert run.precision.mlp_only
    c = run.model
    mlp_matrices = c.layers * 3
    mlp_params = mlp_matrices * c.hidden * c.ffn
    total = sum(t.numel * n for t, n in counted_tensors(c))
    # FP8 e4m3: 1 B per value and one fp32 scale per tensor; everything else in bf16
    assert estimate(run).bytes_of("weights") == mlp_params + 4 * mlp_matrices + 2 * (total - mlp_params)
    whole = estimate(parse_workload({"model": MODEL, "precision": "fp8"})).bytes_of("weights")
    attention = sum(t.numel * n for t, n in counted_tensors(c) if t.role is Role.ATTENTION)
    assert estimate(run).bytes_of("weights") - whole == attention - 4 * c.layers * 4  # 4 attention scales a layer


def test_the_default_quantises_every_linear_layer():
    assert not parse_workload({"model": MODEL, "precision": "fp8"}).precision.mlp_only
    assert parse_workload({"model": MODEL, "precision": "fp8", "quantise": "all"}) == parse_workload(
        {"model": MODEL, "precision": "fp8"})


@pytest.mark.parametrize("values", [{"precision": "q4_k_m", "runtime": "llamacpp"}, {"precision": "bf16"},
                                    {"quantise": "attention"}])
def test_only_a_gpu_format_has_layers_to_leave_out(values):
    with pytest.raises(ValidationError) as error:
        parse_workload({"model": "llama-3.1-8b", "quantise": "mlp", **values})
    assert error.value.field == "quantise"


def test_qlora_on_the_mlps_dequantises_and_keeps_only_what_4bit_layers_do():
    """QLoRA with attention in bf16: the largest matrix dequantised is an MLP's, and old bitsandbytes keeps only
    the MLP matmuls' inputs."""
    values = {"model": "llama-3.1-8b", "mode": "training", "lora_rank": "16", "precision": "nf4", "seq": "1024",
              "lora_dtype": "bf16", "lora_dropout": "0.05"}
    mlp, every = (estimate(parse_workload({**values, "quantise": q})) for q in ("mlp", "all"))
    assert mlp.bytes_of("weights") > every.bytes_of("weights")
    old = {**values, "bnb_version": "0.41.1"}
    grown = {q: estimate(parse_workload({**old, "quantise": q})).bytes_of("activations")
             - estimate(parse_workload({**values, "quantise": q})).bytes_of("activations") for q in ("mlp", "all")}
    m = parse_workload(values).model
    tokens = 1024
    assert grown["mlp"] == tokens * m.layers * 2 * (m.hidden + m.ffn)  # gate/up's input and down's
    assert grown["all"] == tokens * m.layers * 2 * (2 * m.hidden + m.ffn)  # and q/k/v's: dropout keeps a copy


def test_old_bitsandbytes_on_moe_layers_keeps_attentions_inputs_only():
    """transformers' fused experts are 3-D parameters, not bitsandbytes' Linear4bit: an MoE layer without a shared
    expert keeps only its attention's 4-bit inputs (q/k/v's, copied by fp32 adapters: peft's default)."""
    values = {"model": "qwen3-30b-a3b", "mode": "training", "precision": "nf4", "lora_rank": "16", "seq": "1024"}
    old, new = (estimate(parse_workload({**values, **extra})) for extra in ({"bnb_version": "0.41.1"}, {}))
    m = old.workload.model
    assert old.bytes_of("activations") - new.bytes_of("activations") == 1024 * m.layers * 2 * m.hidden


@pytest.mark.parametrize("framework", ["torchtune", "unsloth"])
def test_old_bitsandbytes_is_the_trainers_and_litgpts(framework):
    with pytest.raises(ValidationError) as error:
        parse_workload({"model": "llama-3.1-8b", "mode": "training", "precision": "nf4", "lora_rank": "16",
                        "framework": framework, "bnb_version": "0.41.1"})
    assert error.value.field == "bnb_version"


def test_a_current_bitsandbytes_named_under_torchtune_changes_nothing():
    values = {"model": "llama-3.1-8b", "mode": "training", "precision": "nf4", "lora_rank": "16", "seq": "1024",
              "framework": "torchtune"}
    assert estimate(parse_workload({**values, "bnb_version": "0.44.0"})).total_bytes == estimate(
        parse_workload(values)).total_bytes
