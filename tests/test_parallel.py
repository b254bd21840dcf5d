"""Several GPUs: the most loaded rank of a layout (parallel.py, pergpu.py), against the ZeRO paper,
DeepSpeed's estimator formulas and vLLM's logged per-GPU weights (reference.md §2.4)."""

from __future__ import annotations

import pytest

from vramcalc.errors import ValidationError
from vramcalc.memory import estimate
from vramcalc.pergpu import per_gpu
from vramcalc.units import GIB
from vramcalc.workload import parse_workload

STATES = ("weights", "gradients", "optimizer", "master_weights")


def _states(rank):
    return sum(rank.components[key] for key in STATES)


@pytest.mark.parametrize(("zero", "gb"), [("1", 31.40625), ("2", 16.640625), ("3", 1.875)])
def test_zero_paper_table_1(zero, gb):
    # Rajbhandari et al. Table 1 / Fig. 1: Ψ = 7.5B, N_d = 64, mixed-precision Adam (16 B per parameter):
    # 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N. ZeRO-3's gathered layer is DeepSpeed's addition, taken out here.
    workload = parse_workload({"model": "custom", "params": "7.5", "hidden": "4096", "layers": "32", "mode": "training",
                               "mixed_precision": "1", "seq": "1", "optimizer_impl": "fused", "dp": "64", "zero": zero})
    rank = per_gpu(estimate(workload), 64)
    assert _states(rank) - rank.gather_bytes == gb * 1e9


@pytest.mark.parametrize(("offload", "per_param_gpu", "per_param_host"), [
    ("none", 18, 0), ("optimizer", 2, 16), ("optimizer+params", 0, 18)])
def test_deepspeed_zero3_estimator(offload, per_param_gpu, per_param_host):
    # DeepSpeed memory.rst: ZeRO-3 per GPU = 4 × largest layer + 18Ψ/N (no offload), + 2Ψ/N (optimizer
    # offload), alone (both); host per node 16Ψ or 18Ψ (the estimator multiplies by a 1.5 buffer factor).
    workload = parse_workload({"model": "llama-3-8b", "mode": "training", "recipe": "mixed", "precision": "bf16",
                               "seq": "1", "optimizer_impl": "fused", "dp": "8", "zero": "3", "offload": offload})
    breakdown = estimate(workload)
    rank = per_gpu(breakdown, 8)
    largest = 128_256 * 4096  # the embedding
    assert rank.gather_bytes == 4 * largest
    assert _states(rank) == per_param_gpu * breakdown.params // 8 + 4 * largest
    assert rank.host_bytes == per_param_host * breakdown.params


def test_vllm_log_llama3_8b_tp2_weights():
    # vLLM logs 7.48 GiB of weights per GPU for Llama 3 8B in bf16 under tensor parallel 2.
    rank = per_gpu(estimate(parse_workload({"model": "llama-3-8b"})), 2)
    assert rank.layout.tp == 2
    assert round(rank.components["weights"] / GIB, 2) == 7.48


def test_kv_heads_are_replicated_beyond_their_count():
    # Llama 3 70B has 8 KV heads: under TP 16 each rank still keeps one head's K and V, 1/8 of the cache.
    breakdown = estimate(parse_workload({"model": "llama-3-70b", "tp": "16"}))
    rank = per_gpu(breakdown, 16)
    assert rank.components["kv_cache"] == breakdown.bytes_of("kv_cache") // 8


def test_pipeline_stages_split_layers_and_put_the_head_last():
    breakdown = estimate(parse_workload({"model": "llama-3-70b", "mode": "training", "recipe": "bf16", "seq": "2048",
                                         "pp": "4", "checkpointing": "layer"}))
    rank = per_gpu(breakdown, 4)
    assert set(rank.stages) == {"stage 1 of 4", "stage 4 of 4"}
    assert rank.components["weights"] < breakdown.size_of("weights") / 3


def test_training_defaults_to_zero3_and_inference_to_tensor_parallel():
    training = per_gpu(estimate(parse_workload({"model": "llama-3-8b", "mode": "training"})), 8)
    inference = per_gpu(estimate(parse_workload({"model": "llama-3-8b"})), 8)
    assert (training.layout.dp, training.layout.stage) == (8, 3)
    assert inference.layout.tp == 8


@pytest.mark.parametrize(("values", "gpus", "field"), [
    ({"tp": "3"}, 3, "tp"),  # 32 heads
    ({"pp": "40"}, 40, "pp"),  # 32 layers
    ({"ep": "2"}, 2, "ep"),  # a dense model
    ({"tp": "2", "dp": "2"}, 8, "gpus"),  # 2 × 2 ≠ 8
    ({"tp": "2"}, 3, "gpus"),
    ({"zero": "3"}, 2, "zero"),  # inference
    ({"mode": "training", "zero": "2", "offload": "optimizer+params"}, 2, "offload"),
    ({"mode": "training", "zero": "2", "fsdp": "full-shard"}, 2, "fsdp"),
])
def test_layouts_a_model_cannot_run_name_the_field(values, gpus, field):
    with pytest.raises(ValidationError) as caught:
        per_gpu(estimate(parse_workload({"model": "llama-3-8b", **values})), gpus)
    assert caught.value.field == field
