"""PPO's update, phase by phase, against TRL's PPOTrainer measured on small models (tests/golden/measured_ppo.json,
written by tools/measure_ppo.py: every storage an ATen op makes, counted until it is freed, over two updates of
trl 1.9.0's `PPOTrainer.train` (trl/experimental/ppo) with AdamW, the second's phases kept)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc.analysis.evaluate import estimate
from vramcalc.core.choices import Attention, Mode, Objective, Recipe, Reference
from vramcalc.core.dtypes import Precision
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.workload import Workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "measured_ppo.json").read_text(encoding="utf-8"))
TOLERANCE = 0.10  # as the supervised, DPO and GRPO steps' (test_golden_peak.py, test_golden_grpo.py)
# the engine's phase, and the measured phases whose worst it is held to
PHASES = {"generation": ("generation", "pad"), "reference": ("reference", "value", "reward"), "forward": ("forward",),
          "loss": ("backward",), "layers": ("layers",), "optimizer": ("optimizer",)}


def _id(case):
    return (f"{case['family']}-{case['batch']}x{case['grad_accum']}-chunk{case['rollout_batch']}-"
            f"{case['prompt']}+{case['completion']}" + ("-lora" if case["lora"] else ""))


def _workload(case, **changes):
    lora = case["lora"]
    extra = {"lora_rank": lora["rank"], "lora_dtype": Precision.FP32, "lora_targets": ("all-linear",)} if lora else {}
    return Workload(
        model=from_hf_config(case["config"]), mode=Mode.TRAINING, recipe=Recipe.BF16, precision=Precision.BF16,
        seq=case["prompt"] + case["completion"], attention=Attention(case["attention"]), overhead_bytes=0,
        **{"batch": case["batch"], "grad_accum": case["grad_accum"], "objective": Objective.PPO,
           "completion_tokens": case["completion"], "local_rollout_forward_batch_size": case["rollout_batch"],
           **extra, **changes})


CASES = [pytest.param(case, id=_id(case)) for case in GOLDEN["ppo"]]


def _engine_phases(workload):
    engine = estimate(workload).phase_totals()
    engine["layers"] = max(engine["backward_start"], engine["backward_end"])
    return engine


@pytest.mark.parametrize("case", CASES)
def test_ppo_peak_and_every_phase(case):
    engine = _engine_phases(_workload(case))
    measured = case["phases"]
    assert estimate(_workload(case)).total_bytes == pytest.approx(case["peak_bytes"], rel=TOLERANCE)
    for ours, theirs in PHASES.items():
        assert engine[ours] == pytest.approx(max(measured[t]["peak"] for t in theirs), rel=TOLERANCE), ours


@pytest.mark.parametrize("case", CASES)
def test_ppo_model_states_are_exact(case):
    """Policy, reference (a copy, or none under LoRA), value and reward models' weights; the policy's and the value's
    gradients and AdamW state, byte for byte."""
    breakdown = estimate(_workload(case))
    assert breakdown.size_of("weights") == sum(case["weight_bytes"].values())
    assert breakdown.size_of("gradients") == case["trainable_bytes"]
    assert breakdown.size_of("optimizer") == 2 * case["trainable_bytes"]
    assert (case["weight_bytes"]["reference"] == 0) == (case["lora"] is not None)


def test_golden_data_the_plan_holds_what_it_is_for():
    """A rollout in one chunk and in several, accumulation, LoRA (the reference is the policy, adapters off; the
    value model still whole), two families, and no case left out."""
    cases = GOLDEN["ppo"]
    assert not GOLDEN["skipped"] and GOLDEN["trl"] == "1.9.0"
    chunks = {-(-c["batch"] * c["grad_accum"] // c["rollout_batch"]) for c in cases}
    assert 1 in chunks and max(chunks) > 1
    assert any(c["grad_accum"] > 1 for c in cases) and any(c["lora"] for c in cases)
    assert len({c["family"] for c in cases}) >= 2


def test_the_engine_picks_the_generation_instant_measured():
    """Measured: with one chunk `generate`'s end (its scores twice and the cache, beside the last rollout's) or its
    prefill is the generation's worst; with several chunks of few scores, `pad` (three rollouts' scores at once);
    the engine picks the same instant (the pad's holds no cache)."""
    pads = 0
    for case in GOLDEN["ppo"]:
        measured = case["phases"]
        pad = measured["pad"]["peak"] > measured["generation"]["peak"]
        pads += pad
        assert not pad or case["batch"] * case["grad_accum"] > case["rollout_batch"], _id(case)
        assert (estimate(_workload(case)).phases["generation"]["kv_cache"] == 0) == pad, _id(case)
    assert pads


def test_golden_data_the_statistics_after_the_step_stay_below_the_forward():
    """The no-gradient entropy after each step (a softmax over the responses) is not an engine phase: measured, it
    stays below the forward's worst."""
    for case in GOLDEN["ppo"]:
        assert case["phases"]["stats"]["peak"] < case["phases"]["forward"]["peak"], _id(case)


@pytest.mark.parametrize(("changes", "field"), [
    ({"reference": "precomputed"}, "reference"),
    ({"reference": "none"}, "reference"),
    ({"compile": "1"}, "compile"),
    ({"steps_per_generation": "2"}, "steps_per_generation"),
    ({"num_iterations": "2"}, "num_iterations"),
    ({"completion_tokens": "1024"}, "completion_tokens"),
    ({"checkpointing": "layer"}, "checkpointing"),
    ({"rollout": "vllm-server"}, "rollout"),
    ({"precision": "nf4", "lora_rank": "8"}, "precision"),
    ({"fused_ce": "1"}, "fused_ce"),
    ({"local_rollout_forward_batch_size": "0"}, "local_rollout_forward_batch_size"),
    ({"num_ppo_epochs": "0"}, "num_ppo_epochs"),
])
def test_ppo_settings_trl_would_refuse(changes, field):
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.core.errors import ValidationError

    values = {**DEFAULTS, "mode": "training", "objective": "ppo", "batch": "4", "seq": "1024",
              "completion_tokens": "256"}
    parse_workload(values)  # valid as it is
    with pytest.raises(ValidationError) as error:
        parse_workload({**values, **changes})
    assert error.value.field == field


@pytest.mark.parametrize(("lora", "reference"), [("0", Reference.COPY), ("16", Reference.ADAPTERS_OFF)])
def test_ppo_reference_is_trl_default(lora, reference):
    from vramcalc import DEFAULTS, parse_workload

    workload = parse_workload({**DEFAULTS, "mode": "training", "objective": "ppo", "batch": "4", "seq": "1024",
                               "completion_tokens": "256", "lora_rank": lora})
    assert workload.reference_model is reference


def test_an_explicit_reference_copy_under_lora_is_counted():
    """TRL's PPOTrainer takes a `ref_model` under peft too (trl 1.9.0 ppo_trainer.py: `if ref_model:`); only its
    default is the adapters switched off. The copy's weights are counted beside the policy's."""
    from vramcalc import DEFAULTS, parse_workload

    values = {**DEFAULTS, "mode": "training", "objective": "ppo", "batch": "4", "seq": "1024",
              "completion_tokens": "256", "lora_rank": "16"}
    off, copy = (estimate(parse_workload({**values, "reference": r})) for r in ("adapters-off", "copy"))
    assert copy.workload.reference_model is Reference.COPY
    base = estimate(parse_workload({**DEFAULTS, "mode": "training", "precision": "bf16"})).bytes_of("weights")
    assert copy.bytes_of("weights") - off.bytes_of("weights") == base  # the base model again, in bf16


def test_lora_leaves_the_value_model_whole():
    """Under LoRA the policy trains its adapters, the value model all its weights (TRL wraps only the policy)."""
    case = next(c for c in GOLDEN["ppo"] if c["lora"])
    lora = estimate(_workload(case))
    assert lora.size_of("gradients") > case["weight_bytes"]["value"]


def test_a_rollout_serves_its_epochs_in_the_time():
    """num_ppo_epochs: one rollout (its chunks' generation and three no-gradient forwards) serves that many steps."""
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.speed import speed_of
    from vramcalc.workload import Machine

    values = {**DEFAULTS, "model": "qwen3-0.6b", "mode": "training", "objective": "ppo", "batch": "8", "seq": "1024",
              "completion_tokens": "256", "gpu": "h100-80gb"}

    def step(**changes):
        workload = parse_workload({**values, **changes})
        return speed_of(estimate(workload), workload.gpu, 1, Machine())
    four, one, chunks = step(), step(num_ppo_epochs="1"), step(local_rollout_forward_batch_size="4")
    assert one.rollout_s == pytest.approx(4 * four.rollout_s)
    assert one.step_s > four.step_s
    assert chunks.rollout_s > four.rollout_s  # two chunks of 4 decode one after the other


def test_reverse_answers_keep_the_response():
    """The longest sequence on a card holds the response and a prompt token; the largest batch fits, one more not."""
    from vramcalc.analysis.solve import fits, max_batch, max_seq
    from vramcalc.inputs.parse import parse_target, parse_workload

    values = {"model": "qwen3-0.6b", "mode": "training", "objective": "ppo", "seq": "1024", "batch": "4",
              "completion_tokens": "256", "gpu": "l40s"}
    workload, target = parse_workload(values), parse_target(values)
    longest = max_seq(workload, target)
    assert longest is not None and longest > workload.completion_tokens
    most = max_batch(workload, target)
    assert most is not None and fits(workload.but(batch=most), target)
    assert not fits(workload.but(batch=most + 1), target)
