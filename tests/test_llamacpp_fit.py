"""llama.cpp's own fit (common/fit.cpp at 0c1e570, docs/research/engines.md §4.3), one GPU: each rule of the
source held on cases built here, the memory of every trial taken from the engine's llama.cpp breakdown."""

from __future__ import annotations

import re

import pytest

from vramcalc.core.units import GIB, MIB
from vramcalc.engines.llamacpp import llamacpp_breakdown
from vramcalc.engines.llamacpp_fit import FIT_CTX, FIT_TARGET, llamacpp_fit
from vramcalc.inputs.parse import parse_workload


def workload(model: str, precision: str = "q4_k_m", **extra: str):
    return parse_workload({"model": model, "runtime": "llamacpp", "precision": precision, **extra})


def on_gpu(w, **changes) -> int:
    """What the fit measures of a trial: the GPU's weights, cache and compute buffer (no CUDA context)."""
    engine = llamacpp_breakdown(w.but(**changes))
    return engine.facts.device_bytes - next(c.bytes for c in engine.components if c.key == "overhead")


def test_nothing_changes_while_the_margin_is_left():
    w = workload("llama-3.1-8b")
    used = on_gpu(w)
    kept = llamacpp_fit(w, used + FIT_TARGET)
    assert (kept.changed, kept.gpu_layers, kept.overrides, kept.seq) == (False, 33, (), 8192)
    assert llamacpp_fit(w, used + FIT_TARGET - 1).gpu_layers < 33  # one byte short: a layer goes to RAM


@pytest.mark.parametrize("free_gib", [6, 15, 23])
def test_a_dense_model_keeps_the_most_layers_that_fit(free_gib):
    w = workload("llama-3.1-70b")
    free = free_gib * GIB
    plan = llamacpp_fit(w, free)
    by_count = [on_gpu(w, gpu_layers=n) for n in range(82)]  # 80 layers and the output layer
    assert plan.gpu_layers == max(n for n, used in enumerate(by_count) if used <= free - FIT_TARGET)
    assert plan.overrides == () and plan.fits and plan.seq == 8192  # -c given: the context is the user's


def test_without_c_the_context_is_lowered_once_by_interpolation():
    w = workload("llama-3.1-8b")
    free = 15 * GIB
    trained, target = w.model.max_positions, free - FIT_TARGET
    full, low = on_gpu(w, seq=trained), on_gpu(w, seq=FIT_CTX)
    seq = FIT_CTX + (trained - FIT_CTX) * (target - low) // (full - low)
    plan = llamacpp_fit(w, free, ctx_auto=True)
    assert plan.seq == seq - seq % 256 and plan.gpu_layers == 33 and plan.overrides == ()
    assert llamacpp_fit(w, 200 * GIB, ctx_auto=True).seq == trained  # room for all of it: the trained context


def test_given_layers_stop_the_fit_after_the_context():
    w = workload("llama-3.1-70b", gpu_layers="60")
    plan = llamacpp_fit(w, 23 * GIB, ctx_auto=True)
    assert plan.gpu_layers == 60 and plan.seq == FIT_CTX and not plan.fits  # llama.cpp loads it anyway


def layers_of(overrides) -> list[int]:
    return [int(re.match(r"blk\\\.(\d+)\\\.", pattern).group(1)) for pattern, _ in overrides]


def test_an_moe_fills_dense_only_layers_whose_first_keeps_its_experts():
    w = workload("qwen3-30b-a3b")  # 48 layers; 2 GiB free holds some layers without their experts
    plan = llamacpp_fit(w, 2 * GIB)
    n = plan.gpu_layers
    assert 1 < n < 49
    assert layers_of(plan.overrides) == list(range(48 + 2 - n, 48))  # block 48 + 1 - n keeps its experts
    assert all(device == "CPU" and pattern.endswith("_(ch|)exps") for pattern, device in plan.overrides)
    target = 2 * GIB - FIT_TARGET
    assert on_gpu(w, gpu_layers=n, override_tensor=plan.overrides) <= target
    one_more = tuple((rf"blk\.{i}\.ffn_(up|down|gate_up|gate)_(ch|)exps", "CPU") for i in range(48 + 1 - n, 48))
    assert on_gpu(w, gpu_layers=n + 1, override_tensor=one_more) > target  # where the search stopped


def test_an_moe_whose_dense_weights_fit_takes_whole_layers_back_then_part_of_one():
    w = workload("gpt-oss-120b", "native")  # 36 layers, MXFP4 experts
    free = 23 * GIB
    target = free - FIT_TARGET
    plan = llamacpp_fit(w, free)
    assert plan.gpu_layers == 37 and plan.fits
    blocks = layers_of(plan.overrides)
    assert blocks == list(range(blocks[0], 36))  # the last layers lose their experts, the first ones keep them
    # the fewest such layers: one more taken back whole does not fit
    whole = tuple((rf"blk\.{i}\.ffn_(up|down|gate_up|gate)_(ch|)exps", "CPU") for i in blocks[1:])
    assert on_gpu(w, gpu_layers=37, override_tensor=whole) > target
    # the first of them keeps part of its MLP: all but up leave (UP) when that passes the strict test, and then
    # only down leaves (GATE) when that passes too
    first = plan.overrides[0][0]
    gate = ((rf"blk\.{blocks[0]}\.ffn_down.*", "CPU"), *plan.overrides[1:])
    assert first == rf"blk\.{blocks[0]}\.ffn_(gate|gate_up|down).*"
    assert on_gpu(w, gpu_layers=37, override_tensor=plan.overrides) < target
    assert on_gpu(w, gpu_layers=37, override_tensor=gate) >= target


def test_the_plan_as_flags_gives_the_bytes_it_reports():
    w = workload("qwen3-30b-a3b")
    plan = llamacpp_fit(w, 12 * GIB)
    assert on_gpu(w, gpu_layers=plan.gpu_layers, override_tensor=plan.overrides) == plan.device_bytes
    assert plan.target_bytes == 12 * GIB - 1024 * MIB


def test_the_pages_figure_is_llama_server_without_placement_flags():
    """The Speed section's fit is titled "llama-server without -ngl": the user's -ngl, -ot and --n-cpu-moe,
    which would stop llama.cpp's fit, are left out of it."""
    from vramcalc.analysis.speed_answers import fit_plan
    from vramcalc.inputs.parse import parse_target

    target = parse_target({"gpu": "rtx-4090"})
    plain = fit_plan(workload("llama-3.1-70b"), target)
    for placed in ({"gpu_layers": "60"}, {"gpu_layers": "81"}):
        assert fit_plan(workload("llama-3.1-70b", **placed), target) == plain
    assert plain.gpu_layers == 42 and plain.fits
    moe = workload("qwen3-30b-a3b", n_cpu_moe="30")
    assert fit_plan(moe, target) == fit_plan(workload("qwen3-30b-a3b"), target)


def test_ollama_leaves_the_layers_to_llama_servers_fit_at_its_own_context():
    """Ollama passes no -ngl when num_gpu is not set, so llama-server's --fit places the layers, at
    Ollama's num_ctx (32,768 on a 24 GB card) and one cache type (docs/research/engines.md §1d)."""
    from vramcalc.analysis.speed_answers import fit_plan
    from vramcalc.inputs.parse import parse_target

    target = parse_target({"gpu": "rtx-4090"})
    ollama = fit_plan(workload("gpt-oss-120b", "native", runtime="ollama", gpu="rtx-4090"), target)
    as_llama_server = fit_plan(workload("gpt-oss-120b", "native", seq="32768", gpu="rtx-4090"), target)
    assert ollama == as_llama_server and ollama.seq == 32768 and ollama.overrides
    before = workload("gpt-oss-120b", "native", runtime="ollama", gpu="rtx-4090", ollama_version="0.29.9")
    assert fit_plan(before, target) is None  # its own runners then placed the layers by its own estimate


def test_when_up_does_not_pass_the_strict_test_the_whole_mlp_of_that_layer_goes():
    w = workload("qwen3-30b-a3b")
    free = 18 * GIB
    plan = llamacpp_fit(w, free)
    first, *rest = plan.overrides
    block = layers_of(plan.overrides)[0]
    assert first[0] == rf"blk\.{block}\.ffn_(gate|up|gate_up|down).*"  # ATTN
    up = ((rf"blk\.{block}\.ffn_(gate|gate_up|down).*", "CPU"), *rest)
    assert on_gpu(w, gpu_layers=plan.gpu_layers, override_tensor=up) >= free - FIT_TARGET


def test_a_context_that_does_not_fit_even_at_fit_ctx_goes_on_to_the_layers():
    w = workload("llama-3.1-70b")
    plan = llamacpp_fit(w, 23 * GIB, ctx_auto=True)
    assert on_gpu(w, seq=FIT_CTX) > 23 * GIB - FIT_TARGET  # all layers at --fit-ctx: still too much
    assert plan.seq == FIT_CTX and plan.gpu_layers == llamacpp_fit(w.but(seq=FIT_CTX), 23 * GIB).gpu_layers


@pytest.mark.parametrize(("model", "said", "flag"), [
    ("qwen3.6-35b-a3b", "change.n_cpu_moe", "n_cpu_moe"),  # a mixture of experts: its experts to RAM
    ("qwen3-32b", "change.gpu_layers", "gpu_layers"),  # a dense model: its last layers to RAM
])
def test_a_model_larger_than_the_card_is_offered_llama_servers_own_ways(model, said, flag):
    """What users of llama.cpp do first when a model does not fit a 12 GB card, offered beside a smaller format
    and more cards: the fewest expert layers in RAM, or the most layers on the GPU, that fit, and no fewer."""
    from vramcalc.analysis.solve import fits, solve
    from vramcalc.analysis.suggest import changes
    from vramcalc.inputs.parse import parse_target

    values = {"model": model, "runtime": "llamacpp", "precision": "q4_k_m", "gpu": "rtx-4070", "seq": "32768"}
    workload, target = parse_workload(values), parse_target(values)
    offered = [c for c in changes(workload, target, solve(workload, target)) if c.key == said]
    assert len(offered) == 1
    value = dict(offered[0].values)["value"]
    assert fits(workload.but(**{flag: value}), target)
    closer = value - 1 if flag == "n_cpu_moe" else value + 1  # one more layer's experts, or one more layer, on it
    assert not fits(workload.but(**{flag: closer}), target)
    ollama = parse_workload({**values, "runtime": "ollama"})  # Ollama places layers itself
    assert not [c for c in changes(ollama, target, solve(ollama, target)) if c.key == said]
