"""Several GPUs: the most loaded rank of a layout (parallel.py, pergpu.py), against the ZeRO paper,
DeepSpeed's estimator formulas and vLLM's logged per-GPU weights (reference.md §2.4)."""

from __future__ import annotations

import dataclasses

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.ranks import per_gpu
from vramcalc.analysis.solve import fits, solve
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GIB
from vramcalc.inputs.parse import parse_target, parse_workload

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


def test_vllm_log_llama33_70b_fp8_tp2_pool():
    # llm-d's empirical vLLM V1 results (engines.md §2d row 5): RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic on
    # 2 × H100 at 0.9: weights 33.88 GiB, activation peak 4.84 GiB, non-torch 0.55 GiB, KV cache 32.0 GiB per GPU
    # (that version did not subtract CUDA graphs, so compare with --enforce-eager), on its estimate path.
    workload = parse_workload({"model": "llama-3.3-70b-instruct", "runtime": "vllm", "gpu": "h100-80gb",
                               "precision": "fp8", "enforce_eager": "1", "tp": "2", "gpu_memory_utilization": "0.9",
                               "no_extensible_kv_cache": "1"})
    rank = per_gpu(estimate(workload), 2)
    for key, logged in (("weights", 33.88), ("activations", 4.84), ("overhead", 0.55)):
        assert rank.components[key] / GIB == pytest.approx(logged, rel=0.02), key
    assert rank.engine["kv_pool_bytes"] / GIB == pytest.approx(32.0, rel=0.01)


def test_vllm_starts_only_where_each_gpus_pool_holds_the_sequences():
    # Llama 3 70B in bf16: 65.7 GiB of weights per GPU under TP 2 leave nothing of 0.9 × 79 GiB for KV blocks;
    # vLLM 0.34 with the utilization unset sizes from all 79 GiB less its margin, which leaves a pool on each GPU.
    workload = parse_workload({"model": "llama-3-70b", "runtime": "vllm", "gpu": "h100-80gb",
                               "gpu_memory_utilization": "0.9"})
    target = parse_target({"gpu": "h100-80gb", "gpus": "2"})
    assert not fits(workload, target)
    assert fits(workload.but(gpu_memory_utilization=None), target)
    assert fits(workload, dataclasses.replace(target, count=4))
    assert solve(workload, target).min_gpus == 3  # PP 3: 64 heads do not split three ways
    assert solve(workload, target).max_seq is None
    assert solve(workload, dataclasses.replace(target, count=4)).max_seq > 8192


def test_vllm_activation_peak_is_whole_on_every_gpu():
    breakdown = estimate(parse_workload({"model": "llama-3-8b", "runtime": "vllm", "gpu": "h100-80gb"}))
    assert per_gpu(breakdown, 4).components["activations"] == breakdown.bytes_of("activations")
