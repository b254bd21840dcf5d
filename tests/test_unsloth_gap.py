"""Why Unsloth's README tables sit 1.3 times over its kernels' allocations (issue 28; docs/accuracy.md, "Why the
tables sit 1.3 times over the kernels: Unsloth 2025.1.5 and the caching allocator").

Data only, no engine: tests/golden/measured_unsloth_lora*.json (tools/measure_unsloth_lora.py: today's kernels, and
with --legacy Unsloth 2025.1.5's, the tables' version, with flash-attn or xformers) and
tests/golden/simulated_allocator_unsloth.json (tools/simulate_caching_allocator.py: those steps replayed through
the CUDA caching allocator's rules). Checked here: each mechanism's bytes against the golden measurements, the
allocator's rules on small hand-made traces, and the per-token lines the notes quote."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "golden"
E = 2  # bf16


def golden(name: str) -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


def load_simulator():
    spec = importlib.util.spec_from_file_location("simulate_caching_allocator",
                                                  ROOT / "tools" / "simulate_caching_allocator.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dims(case: dict) -> tuple[int, int, int, int, int, int]:
    h, inter, a, kv, r, d = (case[k] for k in ("hidden", "intermediate", "heads", "kv_heads", "rank", "head_dim"))
    return h, inter, a * d, kv * d, a, r


def layer_saved(h: int, inter: int, q: int, kv: int, a: int, xformers: bool = False, kv_heads: int = 0,
                heads: int = 0) -> int:
    """A recomputed layer per token (docs/accuracy.md, "Unsloth's kernels, measured on the CPU"); under xformers
    (Unsloth 2025.1.5 without flash-attn) keys and values are copied to every head unless there is one key head
    (then the reshape of the expand is a view)."""
    copies = xformers and 1 < kv_heads < heads
    return 4 * E * h + E * (2 * q + 2 * (q if copies else kv)) + 4 * a + 8 + 2 * E * inter


MODELS = {  # hidden, MLP, q, kv, heads, kv heads; rank 32 as the tables
    "llama-3.1-8b": (4096, 14336, 4096, 1024, 32, 8),
    "llama-3.3-70b-instruct": (8192, 28672, 8192, 1024, 64, 8),
}
RANK = 32
ROTARY = 2 * E * 128  # the rotary tables per token as the engine counts them (cos and sin, head size 128)
TABLE_SLOPE = {"llama-3.1-8b": 227_541, "llama-3.3-70b-instruct": 444_596}  # test_unsloth_published.py's lines


@pytest.mark.parametrize("name", ["measured_unsloth_lora_2025_1", "measured_unsloth_lora_2025_1_xformers"])
def test_legacy_layer_as_its_source(name):
    """2025.1.5's layer saves what today's does (RoPE in place, no clone; the same tensors kept); under xformers the
    keys and values copied to every head are saved instead."""
    data = golden(name)
    assert data["legacy"] is True
    for case in data["cases"]:
        h, inter, q, kv, a, _ = dims(case)
        assert case["recompute_saved_per_token"] == layer_saved(
            h, inter, q, kv, a, data["attention"] == "xformers", case["kv_heads"], case["heads"]), case


@pytest.mark.parametrize("name", ["measured_unsloth_lora_2025_1", "measured_unsloth_lora_2025_1_xformers"])
def test_legacy_matmul_lora_temporary(name):
    """2025.1.5's matmul_lora adds its LoRA term as a new tensor of the output's size (kernels/utils.py:418
    `out += (X @ A) @ (s * B)`), so LoRA_MLP's backward holds DW, that term and X·A: 2·e·I + e·r a token where
    today's holds e·I + e·r (within 4 B a token: on the narrowest MLP flash's buffers come within 4 B of it)."""
    for case in golden(name)["cases"]:
        _, inter, _, _, _, r = dims(case)
        backward = case["backward_peak_per_token"] - case["recompute_saved_per_token"]
        assert abs(backward - (2 * E * inter + E * r)) <= 4, case


def test_todays_backward_has_no_such_temporary():
    """Today's backward is e·I under 2025.1.5's on every shape but the one where flash's buffers are the peak."""
    for today, legacy in zip(golden("measured_unsloth_lora")["cases"],
                             golden("measured_unsloth_lora_2025_1")["cases"], strict=True):
        inter, r = today["intermediate"], today["rank"]
        backward = [c["backward_peak_per_token"] - c["recompute_saved_per_token"] for c in (today, legacy)]
        assert backward[1] - backward[0] == E * inter or backward[0] > 2 * E * inter + E * r - 8, today


@pytest.mark.parametrize("name", ["measured_unsloth_lora_2025_1", "measured_unsloth_lora_2025_1_xformers"])
def test_legacy_checkpoint_holds_three_hidden_sizes(name):
    """unsloth_zoo 2025.1.3's Unsloth_Offloaded_Gradient_Checkpointer offloads every layer, the last too, and copies
    each input back into a new tensor: around a layer's backward the reloaded input, the embedding's leaf and the
    incoming gradient (3·e·h), where today's keeps the last layer's input on the GPU (more on two shapes)."""
    for case in golden(name)["cases"]:
        assert case["step_backward_peak_per_token"] - case["backward_peak_per_token"] == 3 * E * case["hidden"]
    today = golden("measured_unsloth_lora")["cases"]
    assert any(c["step_backward_peak_per_token"] - c["backward_peak_per_token"] > 3 * E * c["hidden"] for c in today)


# ---------------------------------------------------------------- the caching allocator's rules


def test_allocator_best_fit_and_split():
    sim = load_simulator()
    mib = sim.MIB
    a = sim.Allocator(1 << 40)
    assert a.malloc(1, 100 * mib) and a.malloc(2, 40 * mib)
    assert a.reserved == 140 * mib  # one segment each, the size rounded to 2 MiB
    a.release(1)
    assert a.malloc(3, 30 * mib)  # carved from the freed 100 MiB block (best fit), the rest cached
    assert a.reserved == 140 * mib and a.live[3] == (0, 0, 30 * mib)  # segment 0, offset 0
    assert a.malloc(4, 70 * mib)  # the 70 MiB left fits exactly
    assert a.reserved == 140 * mib and a.live[4] == (0, 30 * mib, 70 * mib)
    a.release(3)
    a.release(4)  # merged back into one free 100 MiB block
    assert a.free == [(100 * mib, 0, 0)]


def test_allocator_small_remainder_goes_with_the_block():
    sim = load_simulator()
    mib = sim.MIB
    a = sim.Allocator(1 << 40)
    assert a.malloc(1, 20 * mib)
    a.release(1)
    assert a.malloc(2, 19 * mib + 512)  # the rest, under 1 MiB, is not split off
    assert a.live[2][2] == 20 * mib and not a.free


def test_allocator_releases_free_segments_before_running_out():
    sim = load_simulator()
    mib = sim.MIB
    a = sim.Allocator(200 * mib)
    assert a.malloc(1, 100 * mib) and a.malloc(2, 60 * mib)
    a.release(1)
    assert a.malloc(3, 120 * mib)  # no cached block fits: the free 100 MiB segment goes back, then 120 fits
    assert a.reserved == 180 * mib
    assert not a.malloc(4, 30 * mib)  # fragments: 20 MiB left on the card


def test_fragmentation_needs_more_than_the_peak():
    """A freed block too small for the next request cannot serve it: the least card exceeds the peak allocated."""
    sim = load_simulator()
    mib = sim.MIB
    events = [("a", 0, 100 * mib), ("a", 1, 50 * mib), ("f", 0, 0), ("a", 2, 120 * mib), ("f", 1, 0),
              ("f", 2, 0)]
    run = sim.replay(events, 1 << 40)
    assert run.peak_allocated == 170 * mib
    assert sim.least_card(events) == 170 * mib  # the 100 MiB segment is given back on the retry
    events = [("a", 0, 100 * mib), ("a", 1, 50 * mib), ("a", 9, 30 * mib), ("f", 0, 0), ("a", 2, 60 * mib),
              ("a", 3, 60 * mib), ("f", 9, 0)]
    assert sim.replay(events, 1 << 40).peak_allocated == 200 * mib
    assert sim.least_card(events) == 240 * mib  # the 100 MiB segment holds one 60: 40 MiB stranded


# ---------------------------------------------------------------- the explanation, per token


def per_token(model: str, kernels: str) -> int:
    """Bytes a token at the step's worst, counted as the engine counts Unsloth's kernels (layer + its backward +
    around it): today's (4·e·h around: two GPU buffers), or 2025.1.5's with flash-attn or xformers."""
    h, inter, q, kv, a, kv_heads = MODELS[model]
    if kernels == "today":
        return layer_saved(h, inter, q, kv, a) + E * inter + E * RANK + 4 * E * h + ROTARY
    xformers = kernels == "2025.1.5-xformers"
    return (layer_saved(h, inter, q, kv, a, xformers, kv_heads, a) + 2 * E * inter + E * RANK + 3 * E * h
            + ROTARY)


def reserve(model: str, kernels: str) -> float:
    shape = {"llama-3.1-8b": [1024, 3584, 8, 2, 32], "llama-3.3-70b-instruct": [2048, 7168, 16, 2, 32]}[model]
    legacy, attention = kernels != "today", "xformers" if kernels.endswith("xformers") else "flash"
    (run,) = [r for r in golden("simulated_allocator_unsloth")["runs"]
              if r["shape"] == shape and r["legacy"] == legacy and r["attention"] == attention]
    return run["reserve_per_token"]


def test_per_token_counts_quoted():
    assert per_token("llama-3.1-8b", "today") == 172_744  # the measured kernels, as quoted before
    assert per_token("llama-3.3-70b-instruct", "today") == 340_808
    assert per_token("llama-3.1-8b", "2025.1.5-flash") == 193_224
    assert per_token("llama-3.1-8b", "2025.1.5-xformers") == 205_512
    assert per_token("llama-3.3-70b-instruct", "2025.1.5-flash") == 381_768
    assert per_token("llama-3.3-70b-instruct", "2025.1.5-xformers") == 410_440


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("kernels", ["today", "2025.1.5-flash", "2025.1.5-xformers"])
def test_allocations_alone_fall_short_and_the_reserve_closes_most(model, kernels):
    """Allocations alone are 0.76 to 0.92 of the tables' slope; with the allocator's reserve (simulated on the
    measured step) 0.90 to 0.96. What is left (1.04 to 1.11) is not explained."""
    allocated = per_token(model, kernels) / TABLE_SLOPE[model]
    reserved = per_token(model, kernels) * reserve(model, kernels) / TABLE_SLOPE[model]
    assert allocated < 0.93
    assert 0.89 < reserved < 0.97
    assert reserved - allocated > 0.03
