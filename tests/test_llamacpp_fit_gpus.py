"""llama.cpp's own fit on several GPUs (common/fit.cpp at 0c1e570, lines 372-877; docs/research/engines.md
§1g): each rule of the source held on cases built here. What each GPU holds is engines/llamacpp_fit.py's
Devices, which on one GPU is the engine's own llama.cpp breakdown to the byte (held below), and the
general fit on one GPU is the one-GPU fit plan for plan."""

from __future__ import annotations

import re

import pytest

from vramcalc.core.units import GIB
from vramcalc.engines.llamacpp import llamacpp_breakdown
from vramcalc.engines.llamacpp_fit import FIT_TARGET, Fraction, llamacpp_fit
from vramcalc.engines.llamacpp_fit_gpus import Devices, Share, layer_split, llamacpp_fit_gpus
from vramcalc.inputs.parse import parse_workload
from vramcalc.memory.states import vision_bytes


def workload(model: str, precision: str = "q4_k_m", **extra: str):
    return parse_workload({"model": model, "runtime": "llamacpp", "precision": precision, **extra})


@pytest.mark.parametrize(("model", "precision"), [("llama-3.1-8b", "q4_k_m"), ("qwen3-30b-a3b", "q4_k_m"),
                                                  ("gemma-3-27b-it", "q4_k_m"), ("gpt-oss-20b", "native")])
def test_on_one_gpu_the_devices_hold_what_the_engine_counts(model, precision):
    """Dense, a mixture of experts, a tied head with sliding windows, MXFP4 experts with sinks: every
    placement the fit tries (n layers, the last n - 1 dense-only) is the breakdown's GPU bytes less its CUDA
    context, to the byte."""
    w = workload(model, precision)
    table = Devices(w, w.seq)
    layers = w.model.layers
    for n in (0, 1, layers // 2, layers, layers + 1):
        for part in sorted({0, max(0, n - 1)}):
            placed = tuple((rf"blk\.{i}\.{Fraction.MOE.value}", "CPU") for i in range(layers + 1 - part, layers))
            engine = llamacpp_breakdown(w.but(gpu_layers=n, override_tensor=placed))
            context = next(c.bytes for c in engine.components if c.key == "overhead")
            mmproj = vision_bytes(w)  # the projector file, beside the layers the fit places (not in its table)
            assert table.used((Share(n, part),), (False,)) == [engine.facts.device_bytes - context - mmproj]


@pytest.mark.parametrize(("model", "precision"), [("llama-3.1-8b", "q4_k_m"), ("qwen3-30b-a3b", "q4_k_m"),
                                                  ("gpt-oss-120b", "native"), ("llama-3.1-70b", "q4_k_m")])
@pytest.mark.parametrize("gib", [6, 16, 24])
@pytest.mark.parametrize("ctx_auto", [False, True])
def test_on_one_gpu_the_general_fit_is_the_one_gpu_fit(model, precision, gib, ctx_auto):
    w = workload(model, precision, seq="32768")
    one, general = llamacpp_fit(w, gib * GIB, ctx_auto=ctx_auto), llamacpp_fit_gpus(w, (gib * GIB,), ctx_auto=ctx_auto)
    assert (one.seq, one.gpu_layers, one.overrides, one.fits, one.changed, one.device_bytes) == (
        general.seq, general.gpu_layers, general.overrides, general.fits, general.changed, general.device_bytes)


def test_without_ts_the_layers_follow_each_gpus_free_memory():
    """llama-model.cpp: layer k of n on the first device whose cumulative share of free memory exceeds k/n."""
    assert layer_split((24, 24), 81) == (41, 40)
    assert layer_split((12, 24), 81) == (27, 54)
    assert layer_split((8, 8, 8), 49) == (17, 16, 16)


def test_what_fits_as_split_is_kept():
    w = workload("llama-3.1-70b", seq="4096")
    plan = llamacpp_fit_gpus(w, (48 * GIB, 48 * GIB))
    assert (plan.changed, plan.tensor_split, plan.overrides, plan.fits) == (False, (41, 40), (), True)


def test_a_dense_model_fills_the_gpus_from_the_last_and_leaves_the_first_layers_in_ram():
    """Step 3 (fit.cpp:654-733): the last GPU (the output layer's) takes the most layers that fit it, then
    the one before; what fits on none stays in RAM: the lowest layers, as -ngl leaves them."""
    w = workload("llama-3.1-70b")
    free = (16 * GIB, 16 * GIB)
    plan = llamacpp_fit_gpus(w, free)
    table = Devices(w, w.seq)
    first, last = plan.tensor_split
    assert plan.overrides == () and first + last == plan.gpu_layers < w.model.layers + 1
    used = table.used((Share(first), Share(last)), (False, False))
    assert all(u <= f - FIT_TARGET for u, f in zip(used, free, strict=True)) and plan.fits
    assert table.used((Share(0), Share(last + 1)), (False, False))[1] > free[1] - FIT_TARGET  # one more: too much
    assert table.used((Share(first + 1), Share(last)), (False, False))[0] > free[0] - FIT_TARGET


def test_a_mixture_of_experts_fills_the_first_gpu_with_whole_layers_overflowing_to_the_next():
    """Step 4 (fit.cpp:735-877), the dense weights leaving a surplus: the first GPU takes whole layers, its
    last one in part, the rest of that layer on the next GPU (its -ot names CUDA1)."""
    w = workload("qwen3-235b-a22b", seq="8192")
    plan = llamacpp_fit_gpus(w, (22 * GIB, 22 * GIB))
    first, last = plan.tensor_split
    assert plan.fits and plan.gpu_layers == w.model.layers + 1 == first + last
    to_next = [(p, d) for p, d in plan.overrides if d != "CPU"]
    assert to_next == [(rf"blk\.{first - 1}\.{Fraction.GATE.value}", "CUDA1")]  # UP then GATE passed
    in_ram = [int(re.match(r"blk\\\.(\d+)\\\.", p).group(1)) for p, d in plan.overrides if d == "CPU"]
    # the last GPU then takes whole layers from its own dense-only ones the same way, and one in part
    # overflowing to RAM: its first layers whole, the rest (up to the output layer) with experts in RAM
    assert first < in_ram[0] and in_ram == list(range(in_ram[0], w.model.layers))
    assert plan.overrides[1][0] in {rf"blk\.{in_ram[0]}\.{f.value}" for f in Fraction}
    assert all(u <= plan.target_bytes for u in plan.devices_bytes)


def test_several_gpus_lower_the_context_with_an_allowance_for_whole_layers_and_go_on():
    """Step 2 with nd > 1 (fit.cpp:395-433): the interpolation is on the sum over the GPUs less (nd + 1)
    layers' bytes / 2 for a dense model, then the layers are fitted at that context (one GPU stops there)."""
    w = workload("llama-3.1-8b", seq="8192")
    two = llamacpp_fit_gpus(w, (6 * GIB, 6 * GIB), ctx_auto=True)
    assert 4096 <= two.seq < w.model.max_positions and two.seq % 256 == 0
    assert two.fits and sum(two.tensor_split) == two.gpu_layers


def test_set_layers_or_overrides_stop_the_fit_after_the_context():
    w = workload("qwen3-30b-a3b", n_cpu_moe="10")
    plan = llamacpp_fit_gpus(w, (4 * GIB, 4 * GIB))
    assert plan.overrides == w.override_tensor and plan.tensor_split == layer_split((4 * GIB, 4 * GIB), 49)
