"""The peak of a training step and of a prefill, against bytes measured on small transformers models
(tests/golden/measured_peak.json, written by tools/measure_peak.py: every storage an ATen op makes,
counted until it is freed, over two full training steps or one `generate` prefill)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention, Checkpointing, Mode, Optimizer, OptimizerImpl, Recipe
from vramcalc.core.dtypes import Precision
from vramcalc.model.families.decoder.saved import lora_measured
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.training.lora import parse_targets
from vramcalc.workload import Workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_peak.json").read_text(encoding="utf-8"))
PEAK_TOLERANCE = 0.10
LORA_TARGETS = {"all-linear": ("all-linear",), "qv": ("q", "v"), "qv+head": ("q", "v", "head"),
                "all-linear+head": ("all-linear", "head")}  # tools/measure_lora.py's names, the engine's (or the
# engine's own, comma-separated: o, gate,up,down)
RECIPES = {"bf16": Recipe.BF16, "fp32": Recipe.FP32, "amp": Recipe.AMP, "mixed": Recipe.MIXED}


def _training_id(case):
    lora = case["lora"]
    return (f"{case['family']}-{case['attention']}-{case['recipe']}-{case['batch']}x{case['seq']}-"
            f"{case['checkpointing']}-{case['optimizer']}-{case['optimizer_impl']}"
            + (f"-lora{lora['rank']}-{lora['targets']}" if lora else "")
            + ("-fp32-adapters" if (lora or {}).get("adapters") == "fp32" else "")
            + (f"-dropout{lora['dropout']}" if (lora or {}).get("dropout") else ""))


def _training_workload(case):
    lora = case["lora"]
    extra = {}
    if lora:  # peft's adapters take the base's dtype (autocast_adapter_dtype=False) unless measured in fp32
        fp32 = case["recipe"] == "fp32" or lora.get("adapters") == "fp32"
        extra = {"lora_rank": lora["rank"], "lora_dtype": Precision.FP32 if fp32 else Precision.BF16,
                 "lora_dropout": lora.get("dropout", 0.0),
                 "lora_targets": LORA_TARGETS.get(lora["targets"]) or parse_targets(lora["targets"])}
    return Workload(
        model=from_hf_config(case["config"]), mode=Mode.TRAINING, recipe=RECIPES[case["recipe"]],
        precision=Precision.FP32 if case["recipe"] == "fp32" else Precision.BF16, batch=case["batch"],
        seq=case["seq"], attention=Attention(case["attention"]), checkpointing=Checkpointing(case["checkpointing"]),
        optimizer=Optimizer(case["optimizer"]), optimizer_impl=OptimizerImpl(case["optimizer_impl"]),
        overhead_bytes=0, **extra)


def _lora_exact(case):
    return not case["lora"] or lora_measured(from_hf_config(case["config"]))


EXACT = [case for case in GOLDEN["training"] if _lora_exact(case)]
LORA_APPROXIMATE = [case for case in GOLDEN["training"] if not _lora_exact(case)]


# Measured and not followed (docs/accuracy.md): a strict expected failure, so that a fix shows up.
TRAINING_GAPS: dict[str, str] = {}


def _training_cases():
    for case in EXACT:
        gap = TRAINING_GAPS.get(_training_id(case))
        yield pytest.param(case, id=_training_id(case),
                           marks=pytest.mark.xfail(strict=True, reason=gap) if gap else ())


@pytest.mark.parametrize("case", _training_cases())
def test_training_peak_and_every_phase(case):
    breakdown = estimate(_training_workload(case))
    phases = breakdown.phase_totals()
    measured = case["phases"]
    assert breakdown.total_bytes == pytest.approx(case["peak_bytes"], rel=PEAK_TOLERANCE)
    assert phases["forward"] == pytest.approx(measured["forward"]["end"], rel=PEAK_TOLERANCE)
    assert phases["loss"] == pytest.approx(measured["backward"]["peak"], rel=PEAK_TOLERANCE)
    assert max(phases["backward_start"], phases["backward_end"]) == pytest.approx(
        measured["layers"]["peak"], rel=PEAK_TOLERANCE)
    assert phases["optimizer"] == pytest.approx(measured["optimizer"]["peak"], rel=PEAK_TOLERANCE)


# Every phase to half a percent, on dense RMSNorm blocks (decoder/saved.py; docs/accuracy.md, 2026-12-07):
# - LoRA: the layers' backward counts the hidden states' gradient, the final norm's backward and what a layer's MLP
#   backward frees, and with checkpointing the recompute's forward at down's adapter (LoraBackward);
# - full fine-tuning with per-layer checkpointing: the first layer's recompute runs beside its kept input, the
#   recomputed layer's output, the hidden states' gradient, the rotary tables and the masks the checkpoints keep; its
#   backward's worst is the MLP's, the post-attention norm's, eager softmax's or the q norm's, each with the weight
#   gradients made by then (full_recompute_beside, full_layer_backward).
PHASE_TOLERANCE = 0.005
EVERY_PHASE = [case for case in EXACT if case["lora"] or (
    case["checkpointing"] == "layer" and lora_measured(from_hf_config(case["config"])))]
# Measured and not followed (docs/accuracy.md): a strict expected failure, so that a fix shows up.
PHASE_GAPS: dict[str, str] = {}


def _every_phase_cases():
    for case in EVERY_PHASE:
        gap = PHASE_GAPS.get(_training_id(case))
        yield pytest.param(case, id=_training_id(case), marks=pytest.mark.xfail(strict=True, reason=gap) if gap else ())


@pytest.mark.parametrize("case", _every_phase_cases())
def test_lora_and_checkpointed_steps_every_phase_within_half_a_percent(case):
    breakdown = estimate(_training_workload(case))
    phases = breakdown.phase_totals()
    measured = case["phases"]
    assert breakdown.total_bytes == pytest.approx(case["peak_bytes"], rel=PHASE_TOLERANCE)
    assert phases["forward"] == pytest.approx(measured["forward"]["end"], rel=PHASE_TOLERANCE)
    assert phases["loss"] == pytest.approx(measured["backward"]["peak"], rel=PHASE_TOLERANCE)
    assert max(phases["backward_start"], phases["backward_end"]) == pytest.approx(
        measured["layers"]["peak"], rel=PHASE_TOLERANCE)
    assert phases["optimizer"] == pytest.approx(measured["optimizer"]["peak"], rel=PHASE_TOLERANCE)


# transformers 5 keeps these models' router weights in fp32 (`_keep_in_fp32_modules_strict`), which
# the engine does not model: each MoE layer's E × h router costs 2 more bytes per value in bf16.
FP32_ROUTER = frozenset({"deepseek_v3", "deepseek_v2", "glm4_moe"})


def _router_upcast(case):
    model = from_hf_config(case["config"])
    return 2 * model.moe.experts * model.hidden * model.moe_layer_count if case["family"] in FP32_ROUTER else 0


@pytest.mark.parametrize("case", EXACT, ids=[_training_id(c) for c in EXACT])
def test_model_states_are_exact(case):
    breakdown = estimate(_training_workload(case))
    trainable = case["trainable_bytes"] - _router_upcast(case)
    assert breakdown.size_of("gradients") == (2 * trainable if case["recipe"] == "mixed" else trainable)
    if case["recipe"] != "amp" and not case["lora"]:  # amp's weights also count the autocast copies
        assert breakdown.size_of("weights") == case["weight_bytes"] - _router_upcast(case)
    if case["recipe"] == "mixed":
        assert breakdown.size_of("master_weights") == 2 * case["weight_bytes"]


@pytest.mark.parametrize("case", LORA_APPROXIMATE, ids=[_training_id(c) for c in LORA_APPROXIMATE])
def test_lora_beyond_dense_blocks_says_it_is_approximate(case):
    assert any("LoRA" in text for text in map(ENGLISH.say, estimate(_training_workload(case)).assumptions))


def test_the_tracker_was_checked_by_hand():
    toy = GOLDEN["toy"]  # a Linear(256 -> 512) step worked out in tools/measure_peak.check_tracker
    assert toy["forward"]["peak"] == 851_972 and toy["backward"]["peak"] == 1_245_192


def test_the_peak_is_not_the_sum():
    # Full fine-tuning of a small llama: the measured peak is well below weights + gradients + state +
    # activations + logits, because the gradients appear only as the activations are freed.
    case = next(c for c in EXACT if c["family"] == "llama" and c["recipe"] == "bf16" and not c["lora"])
    breakdown = estimate(_training_workload(case))
    total_of_sizes = sum(breakdown.size_of(k) for k in ("weights", "gradients", "optimizer", "activations", "logits"))
    assert case["peak_bytes"] < 0.95 * total_of_sizes
    assert breakdown.total_bytes == pytest.approx(case["peak_bytes"], rel=PEAK_TOLERANCE)


# ---------------------------------------------------------------- prefill

# Cases the prefill formulas do not follow, each with what was seen (docs/accuracy.md).
PREFILL_GAPS = {
}


def _prefill_id(case):
    return f"{case['family']}-{case['attention']}-{case['precision']}-{case['batch']}x{case['seq']}"


def _prefill_cases():
    for case in GOLDEN["prefill"]:
        marks = ()
        if _prefill_id(case) in PREFILL_GAPS:
            marks = pytest.mark.xfail(strict=True, reason=PREFILL_GAPS[_prefill_id(case)])
        yield pytest.param(case, id=_prefill_id(case), marks=marks)


@pytest.mark.parametrize("case", _prefill_cases())
def test_prefill_peak(case):
    workload = Workload(model=from_hf_config(case["config"]), mode=Mode.INFERENCE,
                        precision=Precision(case["precision"]), batch=case["batch"], seq=case["seq"],
                        attention=Attention(case["attention"]), overhead_bytes=0)
    breakdown = estimate(workload)
    above_weights = breakdown.total_bytes - breakdown.bytes_of("weights")
    assert above_weights == pytest.approx(case["peak_above_start_bytes"], rel=PEAK_TOLERANCE)


def test_prefill_cache_is_exact_where_the_window_does_not_apply():
    for case in GOLDEN["prefill"]:
        model = from_hf_config(case["config"])
        if set(model.kinds) - {model.kinds[0]} or model.sliding_window or model.attention_chunk:
            continue
        workload = Workload(model=model, mode=Mode.INFERENCE, precision=Precision(case["precision"]),
                            batch=case["batch"], seq=case["seq"], overhead_bytes=0)
        assert estimate(workload).bytes_of("kv_cache") == case["cache_bytes_after"], _prefill_id(case)
