"""GRPO's step, phase by phase, against TRL's GRPOTrainer measured on small models
(tests/golden/measured_grpo.json, written by tools/measure_grpo.py: every storage an ATen op makes, counted until
it is freed, over two steps of `GRPOTrainer.training_step` with transformers' `generate`, and AdamW)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention, Checkpointing, Mode, Objective, Recipe, Reference, Rollout
from vramcalc.core.dtypes import Precision
from vramcalc.sources.gpus import gpu
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.workload import Workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_grpo.json").read_text(encoding="utf-8"))
TOLERANCE = 0.10  # as the supervised and DPO steps' (test_golden_peak.py, test_golden_preference.py)
# the engine's phase, and the measured phase whose peak it is held to
PHASES = {"generation": "generation", "reference": "reference", "forward": "forward", "loss": "backward",
          "layers": "layers", "optimizer": "optimizer"}


def _id(case):
    lora = case["lora"]
    return (f"{case['family']}-{case['batch']}x{case['prompt']}+{case['completion']}-g{case['num_generations']}-"
            f"beta{case['beta']:g}-{case['checkpointing']}-accum{case['grad_accum']}"
            + (f"-lora{lora['rank']}" if lora else ""))


def _workload(case, **changes):
    lora = case["lora"]
    extra = {"lora_rank": lora["rank"], "lora_dtype": Precision.FP32, "lora_targets": ("all-linear",)} if lora else {}
    reference = Reference.NONE if not case["beta"] else Reference.ADAPTERS_OFF if lora else Reference.COPY
    return Workload(
        model=from_hf_config(case["config"]), mode=Mode.TRAINING, recipe=Recipe.BF16, precision=Precision.BF16,
        seq=case["prompt"] + case["completion"], attention=Attention(case["attention"]),
        checkpointing=Checkpointing(case["checkpointing"]), overhead_bytes=0,
        **{"batch": case["batch"], "objective": Objective.GRPO, "reference": reference,
           "num_generations": case["num_generations"], "completion_tokens": case["completion"],
           "grad_accum": case["grad_accum"], **extra, **changes})


CASES = [pytest.param(case, id=_id(case)) for case in GOLDEN["grpo"]]


def _engine_phases(workload):
    engine = estimate(workload).phase_totals()
    engine["layers"] = max(engine["backward_start"], engine["backward_end"])
    return engine


@pytest.mark.parametrize("case", CASES)
def test_grpo_peak_and_every_phase(case):
    breakdown = estimate(_workload(case))
    engine = _engine_phases(_workload(case))
    measured = case["phases"]
    assert breakdown.total_bytes == pytest.approx(case["peak_bytes"], rel=TOLERANCE)
    assert ("reference" in engine) == ("reference" in measured) == (case["beta"] > 0)
    for ours, theirs in PHASES.items():
        if theirs in measured:
            assert engine[ours] == pytest.approx(measured[theirs]["peak"], rel=TOLERANCE), ours


@pytest.mark.parametrize("case", CASES)
def test_grpo_model_states_are_exact(case):
    """The policy's (and a reference copy's) weights, gradients and AdamW state, byte for byte."""
    breakdown = estimate(_workload(case))
    assert breakdown.size_of("weights") == case["weight_bytes"]
    assert breakdown.size_of("gradients") == case["trainable_bytes"]
    assert breakdown.size_of("optimizer") == 2 * case["trainable_bytes"]


def test_num_generations_leaves_the_bytes_as_they_are():
    """--batch counts completions, as TRL's per_device_train_batch_size: 2, 4 or 8 per prompt, the same step
    (measured byte for byte), and the engine's too."""
    cases = [c for c in GOLDEN["grpo"] if c["batch"] == 8 and c["family"] == "llama" and not c["beta"]]
    assert sorted(c["num_generations"] for c in cases) == [2, 4, 8]
    peaks = [c["peak_bytes"] for c in cases]
    assert len(set(peaks)) == 1
    assert len({estimate(_workload(c)).total_bytes for c in cases}) == 1


def test_the_generation_batch_is_the_micro_batches_of_one_update():
    """grad_accum 4 generates for 4 micro-batches at once: four times one micro-batch's cache."""
    case = next(c for c in GOLDEN["grpo"] if c["grad_accum"] == 4)
    one = _workload(case, grad_accum=1)
    assert estimate(_workload(case)).phases["generation"]["kv_cache"] == 4 * estimate(one).phases["generation"][
        "kv_cache"]


def test_generation_is_the_peak_where_its_cache_outweighs_the_step():
    """16 layers of full-width K/V, LoRA and checkpointing, 8 micro-batches generated at once: measured and
    estimated, generation is the step's peak."""
    case = next(c for c in GOLDEN["grpo"] if c["family"] == "llama-deep")
    assert case["peak_phase"] == "generation"
    assert estimate(_workload(case)).peak_phase == "generation"


def test_vllm_rollouts_from_source():
    """Colocated vLLM claims vllm_gpu_memory_utilization × the card in every phase, asleep only in generation; a
    server holds nothing on this GPU; both score the old policy without gradients before the step (TRL's
    vllm_importance_sampling_correction)."""
    case = next(c for c in GOLDEN["grpo"] if not c["beta"] and not c["lora"])
    card = gpu("a100-80gb")
    share = int(card.usable_bytes * 0.3)
    awake = estimate(_workload(case, rollout=Rollout.VLLM_COLOCATE, gpu=card))
    asleep = estimate(_workload(case, rollout=Rollout.VLLM_COLOCATE_SLEEP, gpu=card))
    server = estimate(_workload(case, rollout=Rollout.VLLM_SERVER))
    assert all(live["kv_cache"] == share for live in awake.phases.values())
    assert asleep.phases["generation"]["kv_cache"] == share
    assert all(live["kv_cache"] == 0 for name, live in asleep.phases.items() if name != "generation")
    assert awake.phase_totals()["loss"] == asleep.phase_totals()["loss"] + share
    assert awake.peak_phase == "loss" and asleep.peak_phase == "generation"  # the share outweighs the small step
    assert server.phase_totals()["generation"] < estimate(_workload(case)).phase_totals()["generation"]
    assert all("reference" in b.phases for b in (awake, asleep, server))


@pytest.mark.parametrize(("changes", "field"), [
    ({"batch": "6"}, "num_generations"),  # 8 does not divide 6 × 1 (TRL's GRPOConfig check)
    ({"completion_tokens": "1024"}, "completion_tokens"),  # the whole --seq: no prompt left
    ({"reference": "precomputed"}, "reference"),
    ({"reference": "copy", "lora_rank": "8"}, "reference"),  # TRL switches the adapters off instead
    ({"fused_ce": "1"}, "fused_ce"),
])
def test_grpo_settings_trl_would_refuse(changes, field):
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.core.errors import ValidationError

    values = {**DEFAULTS, "mode": "training", "objective": "grpo", "batch": "8", "seq": "1024"}
    parse_workload({**values, "completion_tokens": "256"})  # valid as it is
    with pytest.raises(ValidationError) as error:
        parse_workload({**values, "completion_tokens": "256", **changes})
    assert error.value.field == field


@pytest.mark.parametrize(("grad_accum", "step"), [(1, 8), (2, 4), (8, 1)])
def test_reverse_answers_offer_only_batches_trl_accepts(grad_accum, step):
    """The largest batch and longest sequence on a card: a batch × grad_accum num_generations divides, a sequence
    longer than the completion (the verdict once offered batch 6 for GRPO's 8 generations)."""
    from vramcalc.analysis.solve import fits, max_batch, max_seq
    from vramcalc.inputs.parse import parse_target, parse_workload

    values = {"model": "qwen3-8b", "mode": "training", "lora_rank": "16", "objective": "grpo", "seq": "1024",
              "batch": "8", "grad_accum": str(grad_accum), "gpu": "h200"}
    workload, target = parse_workload(values), parse_target(values)
    most = max_batch(workload, target)
    assert most is not None and most % step == 0 and most * grad_accum % 8 == 0
    assert fits(workload.but(batch=most), target) and not fits(workload.but(batch=most + step), target)
    longest = max_seq(workload, target)
    assert longest is not None and longest > workload.completion_tokens
