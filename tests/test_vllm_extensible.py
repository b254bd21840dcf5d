"""vLLM 0.34's extensible KV cache (v1/worker/extensible_kv_cache.py measure_kv_cache_bytes): the pool is sized
after warm-up from the memory free at start, less a margin of max(1 GiB, 3 GiB on ROCm; 0.75 × the transient peak),
capped by gpu_memory_utilization × the card when one is given (none: 1.0, config/cache.py). Free at start is the card
less what the process took before vLLM's snapshot (its CUDA context: `startup_context`, published per card class)."""

from __future__ import annotations

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.ranks import per_gpu
from vramcalc.core.units import GB, GIB
from vramcalc.engines.vllm import VLLM_ESTIMATE_UTILIZATION, startup_context, vllm_margin
from vramcalc.inputs.parse import parse_workload
from vramcalc.sources.gpus import gpu


def run(**values):
    return estimate(parse_workload({"runtime": "vllm", **{key: str(value) for key, value in values.items()}}))


def non_kv(breakdown):
    return sum(breakdown.bytes_of(key) for key in ("weights", "activations", "overhead"))


@pytest.mark.parametrize(("card", "model"), [("rtx-4090", "llama-3.1-8b"), ("h100-80gb", "llama-3.1-8b"),
                                             ("mi300x", "qwen3-32b")])
def test_unset_utilization_sizes_from_the_whole_card_less_the_margin(card, model):
    breakdown = run(gpu=card, model=model)
    peak, usable = breakdown.bytes_of("activations"), gpu(card).usable_bytes
    margin = max(3 * GIB if card == "mi300x" else GIB, int(0.75 * peak))
    assert breakdown.runtime["kv_margin_bytes"] == margin == vllm_margin(gpu(card), peak)
    context = startup_context(gpu(card))
    assert (context > 0.4 * GIB) == (card != "mi300x")  # none published for AMD's cards
    assert breakdown.runtime["kv_pool_bytes"] == usable - context - margin - non_kv(breakdown)
    assert breakdown.runtime["gpu_memory_utilization"] == 1.0 and breakdown.runtime["extensible_kv_cache"]


def test_the_margin_has_a_floor_of_1_gib_and_3_on_rocm():
    small = run(gpu="h100-80gb", model="qwen3-0.6b", max_num_seqs=1)  # a peak of about 1 GiB: 0.75 × it < 1 GiB
    assert small.runtime["kv_margin_bytes"] == GIB
    assert run(gpu="mi300x", model="qwen3-0.6b", max_num_seqs=1).runtime["kv_margin_bytes"] == 3 * GIB


def test_a_given_utilization_caps_the_budget():
    # on an H100, 0.1 of the card (7.9 GiB) exceeds the margin: the cap binds, the pool is the estimate path's
    given = run(gpu="h100-80gb", model="llama-3.1-8b", gpu_memory_utilization=0.9)
    estimated = run(gpu="h100-80gb", model="llama-3.1-8b", gpu_memory_utilization=0.9, no_extensible_kv_cache=1)
    unset = run(gpu="h100-80gb", model="llama-3.1-8b")
    assert given.runtime["kv_pool_bytes"] == estimated.runtime["kv_pool_bytes"]
    assert given.runtime["kv_pool_bytes"] == int(0.9 * gpu("h100-80gb").usable_bytes) - non_kv(given)
    card = gpu("h100-80gb").usable_bytes
    assert unset.runtime["kv_pool_bytes"] - given.runtime["kv_pool_bytes"] == (
        card - startup_context(gpu("h100-80gb")) - unset.runtime["kv_margin_bytes"] - int(0.9 * card)) > 3 * GIB
    # on a 12 GB card 0.1 of it (1.2 GiB) is less than the margin: the card, not the utilization, bounds the pool
    small = run(gpu="rtx-3060-12gb", model="qwen3-0.6b", gpu_memory_utilization=0.9)
    assert small.runtime["kv_margin_bytes"] > 0.1 * gpu("rtx-3060-12gb").usable_bytes
    assert small.runtime["kv_pool_bytes"] == gpu("rtx-3060-12gb").usable_bytes - startup_context(gpu("rtx-3060-12gb")) \
        - small.runtime["kv_margin_bytes"] - non_kv(small)
    assert small.runtime["kv_pool_bytes"] < run(gpu="rtx-3060-12gb", model="qwen3-0.6b", gpu_memory_utilization=0.9,
                                                no_extensible_kv_cache=1).runtime["kv_pool_bytes"]


def test_the_estimate_path_without_a_utilization_takes_vllms_092():
    breakdown = run(gpu="h100-80gb", model="llama-3.1-8b", no_extensible_kv_cache=1)
    assert breakdown.runtime["gpu_memory_utilization"] == VLLM_ESTIMATE_UTILIZATION == 0.92
    assert breakdown.runtime["kv_margin_bytes"] == 0 and not breakdown.runtime["extensible_kv_cache"]
    assert breakdown.runtime["kv_pool_bytes"] == int(0.92 * gpu("h100-80gb").usable_bytes) - non_kv(breakdown)


def test_a_link_without_the_key_is_vllm_034s_default_and_one_with_it_keeps_its_value():
    assert parse_workload({"runtime": "vllm", "model": "llama-3.1-8b"}).gpu_memory_utilization is None
    assert parse_workload({"runtime": "vllm", "gpu_memory_utilization": "0.9"}).gpu_memory_utilization == 0.9
    assert parse_workload({"runtime": "vllm", "gpu_memory_utilization": ""}).gpu_memory_utilization is None


def test_memory_other_programs_hold_shrinks_the_measured_pool_without_a_refusal():
    plain = run(gpu="rtx-4090", model="qwen3-8b")
    held = run(gpu="rtx-4090", model="qwen3-8b", reserve_gb=3)  # the estimate path at 0.9 refuses this
    assert plain.runtime["kv_pool_bytes"] - held.runtime["kv_pool_bytes"] == 3 * GB


def test_each_gpu_of_a_layout_gets_the_same_budget():
    # Qwen3 32B on 2 × A100 80 GB, TP 2: each GPU's pool is its budget less its share of the weights
    unset = run(gpu="a100-80gb", model="qwen3-32b", tp=2)
    given = run(gpu="a100-80gb", model="qwen3-32b", tp=2, gpu_memory_utilization=0.9)
    rank_unset, rank_given = per_gpu(unset, 2), per_gpu(given, 2)
    card, margin = gpu("a100-80gb").usable_bytes, unset.runtime["kv_margin_bytes"]
    others = sum(v for k, v in rank_unset.components.items() if k != "kv_cache")
    context = startup_context(gpu("a100-80gb"))
    assert rank_unset.engine["kv_pool_bytes"] == card - context - margin - others
    assert rank_given.engine["kv_pool_bytes"] == int(0.9 * card) - others


def test_serving_uses_the_measured_pool():
    # the serving simulation holds its requests in per_gpu(...).pool.kv_tokens (tools/validate_speed.py)
    unset = run(gpu="rtx-4090", model="llama-3.1-8b", seq=32768)
    given = run(gpu="rtx-4090", model="llama-3.1-8b", seq=32768, gpu_memory_utilization=0.9)
    held = per_gpu(unset, 1).pool
    assert held is not None and held.kv_tokens == unset.runtime["kv_tokens"]
    assert held.kv_tokens > per_gpu(given, 1).pool.kv_tokens  # type: ignore[union-attr]


def test_the_page_line_names_the_margin():
    from vramcalc.render.view import present

    lines = present(run(gpu="h100-80gb", model="llama-3.1-8b")).runtime_lines
    assert any("keeping" in line and "extensible" in line for line in lines), lines
    assert not any("extensible" in line for line in present(run(gpu="h100-80gb", model="llama-3.1-8b",
                                                                no_extensible_kv_cache=1)).runtime_lines)


def test_no_pool_gives_0_34s_own_hint():
    unset = run(gpu="rtx-4090", model="llama-3.1-70b").facts.log_lines()
    given = run(gpu="rtx-4090", model="llama-3.1-70b", gpu_memory_utilization=0.9).facts.log_lines()
    estimated = run(gpu="rtx-4090", model="llama-3.1-70b", no_extensible_kv_cache=1).facts.log_lines()
    assert unset[0].startswith("ValueError: No available memory for the cache blocks. The extensible KV cache "
                               "already takes all device memory")
    assert "`gpu_memory_utilization`=0.9; increase it" in given[0]
    assert estimated[0].endswith("Try increasing `gpu_memory_utilization` when initializing the engine.")


def test_a_withholding_utilization_gets_vllms_warning():
    given = run(gpu="h100-80gb", model="llama-3.1-8b", gpu_memory_utilization=0.9).facts.log_lines()
    warning = next(line for line in given if line.startswith("WARNING gpu_memory_utilization=0.9 caps"))
    card, pool = gpu("h100-80gb").usable_bytes, run(gpu="h100-80gb", model="llama-3.1-8b").runtime
    withheld = card - startup_context(gpu("h100-80gb")) - pool["kv_margin_bytes"] - int(0.9 * card)
    assert f"keeping {withheld / GIB:.2f} GiB of free device memory" in warning
    assert not any(line.startswith("WARNING") for line in run(gpu="h100-80gb", model="llama-3.1-8b").facts.log_lines())


def test_the_page_line_says_what_the_context_took_or_that_it_is_not_counted():
    from vramcalc.render.view import present

    nvidia = present(run(gpu="rtx-4090", model="llama-3.1-8b")).runtime_lines[1]
    amd = present(run(gpu="mi300x", model="llama-3.1-8b")).runtime_lines[1]
    assert f"its CUDA context has taken {startup_context(gpu('rtx-4090')) / GIB:.2f} GiB" in nvidia
    assert "not published, not counted" in amd and "has taken" not in amd
