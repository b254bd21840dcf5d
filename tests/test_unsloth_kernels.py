"""Unsloth's own LoRA kernels (unsloth/kernels/fast_lora.py), measured: tools/measure_unsloth_lora.py rebuilds
LoRA_QKV, LoRA_W, LoRA_MLP, the Triton RMSNorm, RoPE and SwiGLU kernels, flash-attn and Unsloth's offloaded
checkpoint in PyTorch on the CPU, as the tensors they save and the buffers they allocate
(tests/golden/measured_unsloth_lora.json). The engine's layer under `--framework unsloth` is held to it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from vramcalc import parse_workload
from vramcalc.memory.activations import unsloth_kernels
from vramcalc.model.families.decoder.saved import unsloth_layer_backward, unsloth_layer_saved

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_unsloth_lora.json").read_text(encoding="utf-8"))
BASE = {"mode": "training", "model": "llama-3.1-8b", "framework": "unsloth", "lora_rank": "32",
        "lora_targets": "q,k,v,o,gate,up,down", "batch": "1", "seq": "2048"}


def spec(case: dict):
    model = parse_workload(BASE).model
    return dataclasses.replace(model, hidden=case["hidden"], heads=case["heads"], kv_heads=case["kv_heads"],
                               head_dim=case["head_dim"], ffn=case["intermediate"])


def _cases():
    for case in GOLDEN["cases"]:
        yield pytest.param(case, id=f"h{case['hidden']}-I{case['intermediate']}-a{case['heads']}-kv{case['kv_heads']}"
                                    f"-r{case['rank']}")


@pytest.mark.parametrize("case", _cases())
def test_the_recomputed_layer_is_what_unsloths_kernels_save(case):
    """Exact on every shape: 4·e·h, q, k, v and flash's output, its log-sum-exp, two fp32 r, and e and g."""
    assert unsloth_layer_saved(spec(case), 2) == case["recompute_saved_per_token"]


@pytest.mark.parametrize("case", _cases())
def test_the_layer_backward_peak_is_measured(case):
    """The recompute and the worst of its backward: LoRA_MLP's DW beside dY·downB, or flash-attn's buffers."""
    model = spec(case)
    got = unsloth_layer_saved(model, 2) + unsloth_layer_backward(model, 2, case["rank"])
    assert got == pytest.approx(case["backward_peak_per_token"], rel=0.01)


def test_golden_data_covers_both_backward_peaks():
    """The shapes reach both sides of the max: an MLP-bound layer and an attention-bound one (narrow MLP, grouped
    keys), so the formula is fitted by structure, not by one point."""
    sides = {unsloth_layer_backward(spec(c), 2, c["rank"]) == 2 * c["intermediate"] + 2 * c["rank"]
             for c in GOLDEN["cases"]}
    assert sides == {True, False}
    assert len(GOLDEN["cases"]) >= 5 and GOLDEN["dtype"] == "bfloat16"


def test_the_kernels_apply_only_where_unsloth_runs_them():
    assert unsloth_kernels(parse_workload(BASE))
    assert not unsloth_kernels(parse_workload({**BASE, "framework": "trainer"}))
    assert not unsloth_kernels(parse_workload({**BASE, "lora_targets": "q,v"}))  # no LoRA_QKV/LoRA_MLP then
    assert not unsloth_kernels(parse_workload({**BASE, "lora_dropout": "0.1"}))


def test_unsloth_counts_fewer_bytes_per_token_than_peft_on_llama():
    """What changed: Unsloth's layer (measured) against transformers' and peft's (measured) on Llama 3.1 8B."""
    from vramcalc.analysis.evaluate import estimate

    def per_token(framework: str) -> float:
        a, b = (estimate(parse_workload({**BASE, "framework": framework, "seq": str(seq), "checkpointing": "layer"}))
                .total_bytes for seq in (20_000, 40_000))
        return (b - a) / 20_000
    assert per_token("unsloth") == pytest.approx(172_744, rel=0.001)
    assert per_token("unsloth") < 0.75 * per_token("trainer")
