"""GRPO's step, phase by phase, against TRL's GRPOTrainer measured on small models
(tests/golden/measured_grpo.json, written by tools/measure_grpo.py: every storage an ATen op makes, counted until
it is freed, over two steps of `GRPOTrainer.training_step` with transformers' `generate`, and AdamW); GRPO reusing
its completions (num_iterations, steps_per_generation) and TRL's RLOOTrainer, the same way
(tests/golden/measured_grpo_iterations.json, `--plan iterations`)."""

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
ITERATIONS = json.loads((Path(__file__).parent / "golden" / "measured_grpo_iterations.json").read_text(
    encoding="utf-8"))
TOLERANCE = 0.10  # as the supervised and DPO steps' (test_golden_peak.py, test_golden_preference.py)
# the engine's phase, and the measured phase whose peak it is held to
PHASES = {"generation": "generation", "reference": "reference", "forward": "forward", "loss": "backward",
          "layers": "layers", "optimizer": "optimizer"}


def _id(case):
    lora, spg = case["lora"], case.get("steps_per_generation")
    return (f"{case.get('objective', 'grpo')}-mu{case.get('num_iterations', 1)}-" + (f"spg{spg}-" if spg else "")
            + f"{case['family']}-{case['batch']}x{case['prompt']}+{case['completion']}-g{case['num_generations']}-"
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
        **{"batch": case["batch"], "objective": Objective(case.get("objective", "grpo")), "reference": reference,
           "num_iterations": case.get("num_iterations", 1), "steps_per_generation": case.get("steps_per_generation"),
           "num_generations": case["num_generations"], "completion_tokens": case["completion"],
           "grad_accum": case["grad_accum"], **extra, **changes})


CASES = [pytest.param(case, id=_id(case)) for case in GOLDEN["grpo"] + ITERATIONS["grpo"]]


def _scores_without_gradients(case):
    """TRL 1.16's rule (grpo_trainer.py `_generate_and_score_completions`; rloo_trainer.py always), from the case's
    settings: the reference's forward when beta > 0, the old policy's when the generation batch outlives an update."""
    every = (case.get("steps_per_generation") or case["grad_accum"]) * case.get("num_iterations", 1)
    return case["beta"] > 0 or case.get("objective") == "rloo" or case["grad_accum"] % every != 0


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
    assert ("reference" in engine) == ("reference" in measured) == _scores_without_gradients(case)
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
    ({"batch": "4", "grad_accum": "2", "steps_per_generation": "1"}, "num_generations"),  # a generation batch of 4
    ({"num_iterations": "0"}, "num_iterations"),
    ({"steps_per_generation": "0"}, "steps_per_generation"),
    ({"objective": "rloo", "reference": "precomputed"}, "reference"),
    ({"objective": "rloo", "reference": "copy", "lora_rank": "8"}, "reference"),
])
def test_grpo_settings_trl_would_refuse(changes, field):
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.core.errors import ValidationError

    values = {**DEFAULTS, "mode": "training", "objective": "grpo", "batch": "8", "seq": "1024"}
    parse_workload({**values, "completion_tokens": "256"})  # valid as it is
    with pytest.raises(ValidationError) as error:
        parse_workload({**values, "completion_tokens": "256", **changes})
    assert error.value.field == field


def test_num_generations_divides_the_batch_of_every_gpu():
    """TRL's GRPOConfig checks num_generations against per_device_train_batch_size × world_size ×
    steps_per_generation (grpo_config.py): open-r1's 7 completions a prompt over 7 GPUs of batch 2 run."""
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.analysis.solve import batch_step
    from vramcalc.core.errors import ValidationError

    values = {**DEFAULTS, "model": "qwen2.5-7b", "mode": "training", "objective": "grpo", "seq": "1024",
              "completion_tokens": "256", "batch": "2", "num_generations": "7", "gpu": "h100-80gb"}
    assert batch_step(parse_workload({**values, "gpus": "7"})) == 1
    with pytest.raises(ValidationError) as error:
        parse_workload({**values, "gpus": "6"})
    assert error.value.field == "num_generations" and "= 12 " in str(error.value)


@pytest.mark.parametrize(("objective", "generations"), [("grpo", 8), ("rloo", 2)])
def test_the_default_batch_of_one_says_what_trl_would_run(objective, generations):
    """The calculator's batch is 1 by default; TRL's GRPO and RLOO take 8 per device: the message says so."""
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.core.errors import ValidationError

    with pytest.raises(ValidationError) as error:
        parse_workload({**DEFAULTS, "mode": "training", "objective": objective})
    assert error.value.field == "num_generations"
    assert "--grad-accum = 1 " in str(error.value) and f"{generations} generations per prompt" in str(error.value)


@pytest.mark.parametrize(("grad_accum", "step", "more"), [
    (1, 8, {}), (2, 4, {}), (8, 1, {}), (8, 8, {"steps_per_generation": "1"}), (1, 2, {"steps_per_generation": "4"}),
    (1, 2, {"objective": "rloo", "reference": "none"})])  # RLOO: TRL's 2 generations by default
def test_reverse_answers_offer_only_batches_trl_accepts(grad_accum, step, more):
    """The largest batch and longest sequence on a card: a batch × grad_accum num_generations divides, a sequence
    longer than the completion (the verdict once offered batch 6 for GRPO's 8 generations)."""
    from vramcalc.analysis.solve import fits, max_batch, max_seq
    from vramcalc.inputs.parse import parse_target, parse_workload

    values = {"model": "qwen3-8b", "mode": "training", "lora_rank": "16", "objective": "grpo", "seq": "1024",
              "batch": "8", "grad_accum": str(grad_accum), "gpu": "h200", **more}
    workload, target = parse_workload(values), parse_target(values)
    most = max_batch(workload, target)
    spg = int(more.get("steps_per_generation", grad_accum))
    assert most is not None and most % step == 0 and most * spg % workload.generations == 0
    assert fits(workload.but(batch=most), target) and not fits(workload.but(batch=most + step), target)
    longest = max_seq(workload, target)
    assert longest is not None and longest > workload.completion_tokens


def test_generations_default_to_trls_for_each_trainer():
    """GRPOConfig's num_generations is 8 and RLOOConfig's 2 (trl 1.16); an empty field takes the trainer's, so RLOO
    at TRL's own batch of 2 or 4 is accepted. The bytes do not depend on it."""
    from vramcalc.inputs.parse import parse_workload

    values = {"model": "qwen3-8b", "mode": "training", "lora_rank": "16", "seq": "1024", "batch": "4"}
    assert parse_workload({**values, "objective": "rloo"}).generations == 2
    assert parse_workload({**values, "objective": "grpo", "batch": "8"}).generations == 8
    eight = parse_workload({**values, "objective": "rloo", "batch": "8", "num_generations": "8"})
    assert estimate(eight).total_bytes == estimate(eight.but(num_generations=None)).total_bytes


def test_the_iterations_plan_holds_what_it_is_for():
    """μ > 1 with and without a reference, a generation batch of 4 steps, RLOO with TRL's beta (a copy, adapters
    off) and without; each with its no-gradient forward measured."""
    cases = ITERATIONS["grpo"]
    assert not ITERATIONS["skipped"]
    assert {c["num_iterations"] for c in cases if c["objective"] == "grpo"} >= {1, 2, 3}
    assert any(c["steps_per_generation"] and c["steps_per_generation"] > c["grad_accum"] for c in cases)
    rloo = [c for c in cases if c["objective"] == "rloo"]
    assert {(c["beta"] > 0, c["lora"] is not None) for c in rloo} == {(True, False), (True, True), (False, False)}
    assert all("reference" in c["phases"] for c in cases)


def test_rloo_is_grpo_with_the_old_policy_scored():
    """Measured: RLOO's step at beta 0 is GRPO's with the same completions, plus a no-gradient forward (its forward,
    backward and update within 64 bytes: the per-sequence log-probabilities it keeps); the engine runs GRPO's
    step for it, the same bytes as GRPO reusing its completions."""
    rloo = next(c for c in ITERATIONS["grpo"] if c["objective"] == "rloo" and not c["beta"])
    grpo = next(c for c in GOLDEN["grpo"] if all(c[k] == rloo[k] for k in (
        "family", "batch", "num_generations", "prompt", "completion", "beta", "lora", "grad_accum", "checkpointing")))
    assert "reference" in rloo["phases"] and "reference" not in grpo["phases"]
    for phase in ("generation", "forward", "backward", "layers", "optimizer"):
        assert abs(rloo["phases"][phase]["peak"] - grpo["phases"][phase]["peak"]) <= 64, phase
    as_rloo = estimate(_workload(rloo)).phase_totals()
    assert as_rloo == estimate(_workload(grpo, num_iterations=2)).phase_totals()
    assert as_rloo != estimate(_workload(grpo)).phase_totals()


@pytest.mark.parametrize(("values", "scores"), [
    ({}, False),
    ({"num_iterations": "2"}, True),
    ({"steps_per_generation": "2"}, True),  # a generation batch of two steps: the second trains after an update
    ({"grad_accum": "4", "steps_per_generation": "2"}, False),  # two generations within one update
    ({"grad_accum": "2", "num_iterations": "2"}, True),
    ({"rollout": "vllm-server"}, True),
    ({"objective": "rloo", "reference": "none"}, True),
])
def test_when_trl_scores_the_old_policy(values, scores):
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.training.grpo import scores_old_policy

    workload = parse_workload({**DEFAULTS, "mode": "training", "objective": "grpo", "batch": "8", "seq": "1024",
                               "completion_tokens": "256", **values})
    assert scores_old_policy(workload) is scores
    assert ("reference" in estimate(workload).phases) is scores


@pytest.mark.parametrize(("lora", "reference"), [("0", Reference.COPY), ("16", Reference.ADAPTERS_OFF)])
def test_rloo_reference_is_trl_default(lora, reference):
    """RLOOConfig's beta is 0.05: a reference by default, the adapters switched off under LoRA (GRPO's beta 0: none)."""
    from vramcalc import DEFAULTS, parse_workload

    values = {**DEFAULTS, "mode": "training", "batch": "8", "seq": "1024", "completion_tokens": "256",
              "lora_rank": lora}
    assert parse_workload({**values, "objective": "rloo"}).reference_model is reference
    assert parse_workload({**values, "objective": "grpo"}).reference_model is Reference.NONE


def test_a_generation_serves_its_updates_in_the_time():
    """num_iterations μ: one generation and its no-gradient forwards serve μ steps, so a step carries 1/μ of them;
    steps_per_generation k over grad_accum g: a batch k/g times as large, generated every k/g steps."""
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.speed import speed_of
    from vramcalc.workload import Machine

    values = {**DEFAULTS, "model": "qwen3-8b", "mode": "training", "lora_rank": "16", "objective": "grpo",
              "batch": "8", "seq": "1024", "completion_tokens": "512", "gpu": "h100-80gb"}

    def step(**changes):
        workload = parse_workload({**values, **changes})
        return speed_of(estimate(workload), workload.gpu, 1, Machine())
    once, twice, every_two = step(), step(num_iterations="2"), step(steps_per_generation="2")
    assert twice.rollout_s == pytest.approx(once.rollout_s / 2)
    assert twice.step_s < once.step_s
    # the batch of 16 takes longer to generate than 8, but less than twice as long; half of it per step
    assert once.rollout_s / 2 < every_two.rollout_s < once.rollout_s


def test_the_page_names_the_smallest_batch_trl_accepts_when_none_fits():
    """GRPO's batches are multiples of its 8 generations: 'even 8 does not fit', not 'even 1'."""
    from vramcalc.inputs.parse import parse_target, parse_workload
    from vramcalc.render.view import present_target

    values = {"model": "qwen3-8b", "mode": "training", "lora_rank": "16", "objective": "grpo", "batch": "8",
              "gpu": "rtx-4090"}
    texts = {a.key: a.text for a in present_target(parse_workload(values), parse_target(values)).answers}
    assert texts["max_batch"] == "none: even 8 does not fit"


def test_unsloths_lora_outputs_are_in_the_inputs_dtype():
    """peft makes lora_B's output in the adapters' dtype (fp32 by default); Unsloth keeps its adapters in fp32 but
    multiplies in the input's dtype (unsloth/kernels/utils.py matmul_lora), so a GRPO prefill holds bf16 outputs."""
    from vramcalc import DEFAULTS, parse_workload
    from vramcalc.training.grpo import adapter_outputs

    values = {**DEFAULTS, "mode": "training", "objective": "grpo", "batch": "8", "seq": "1024",
              "completion_tokens": "256", "lora_rank": "16", "model": "llama-3.1-8b"}
    peft, unsloth = (adapter_outputs(parse_workload({**values, "framework": f})) for f in ("trainer", "unsloth"))
    assert parse_workload({**values, "framework": "unsloth"}).lora_dtype.bits == 32
    assert peft == 2 * 14336 * 4 and unsloth == 2 * 14336 * 2
