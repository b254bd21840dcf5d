"""The training step's time from its FLOPs (Kaplan et al. 2020; Narayanan et al. 2021, §5.1):

    FLOPs per token = 6 · N (forward 2N, backward 4N) + 3 × the forward's attention
    LoRA / QLoRA: 4 · N (the backward computes the activations' gradients through the frozen weights,
    not the weights' own), the adapters' FLOPs being negligible; activation checkpointing recomputes
    the forward (+ 2 · N and its attention once more).

over the GPU's dense 16-bit tensor rate (its FP32 rate for a step computed in fp32) times the share of it the step
achieves, fitted to published
runs (data/speed.json, docs/accuracy.md). N is the parameters a token multiplies by (the active ones
of a mixture of experts).

Preference and RL steps (TRL's trainers, training/preference.py and grpo.py) add what they run beside the
trained tokens: DPO trains on each pair's chosen and rejected sequences; the reference's no-grad forward is
2 · N per token more (KTO: three such forwards, its KL batch's by the policy and the reference and its
completions' by the reference; one when the reference's are precomputed); GRPO and RLOO first generate their
completions, timed as the rollout engine decodes them (speed/inference.py), then score them without gradients by
the reference (beta > 0) and the old policy (RLOO always; GRPO as grpo.py says), once per generation batch: with
num_iterations μ a generation and its forwards serve μ updates, so a step carries 1/μ of them (with
steps_per_generation, grad_accum / (steps_per_generation × μ) generations a step). None of these is checked
against published runs yet (validation.py says so). PPO (training/ppo.py) trains the value model beside the policy,
whole (6 · N per token more, its N without the LM head), generates its rollout in chunks of
local_rollout_forward_batch_size and scores it by the reference, value and reward models, once every
num_ppo_epochs steps."""

from __future__ import annotations

import dataclasses

from ..core.choices import GENERATING, Checkpointing, Mode, Objective, Reference, Rollout, Runtime
from ..core.dtypes import Precision
from ..memory.states import training_weight_extras, weights_bytes
from ..training import ppo
from ..training.grpo import generation_sequences, generations_per_step, no_grad_forwards, prompt_tokens
from ..workload import Workload
from .hardware import Device, calibration
from .reads import matmul_params, prompt_attention_flops


@dataclasses.dataclass(frozen=True, kw_only=True)
class TrainingStep:
    seconds: float  # one optimizer step (its gradient-accumulation micro-steps included)
    compute_s: float = 0.0
    sync_s: float = 0.0  # the data-parallel traffic of a step over the GPUs' link (overlapped with compute)
    tokens: int  # tokens per step per data-parallel replica
    flops: float  # per replica per step, recompute included
    model_flops: float  # 6N (or 4N with LoRA) per token, without recompute: what MFU counts
    mfu: float
    reference_flops: float = 0.0  # DPO's, GRPO's and RLOO's no-grad scoring forwards, per replica per step (in `flops`)
    generation_s: float = 0.0  # GRPO's and RLOO's rollout before the step's forward, per step (in `seconds`)


def trained_sequences(workload: Workload) -> int:
    """Sequences one micro-step trains on: DPO's and ORPO's chosen and rejected of each pair; else --batch."""
    return 2 * workload.batch if workload.objective in (Objective.DPO, Objective.ORPO) else workload.batch


def reference_forward(workload: Workload) -> float:
    """The no-grad scoring forwards a step runs over its trained sequences: DPO's reference (not precomputed);
    KTO's policy over the KL batch, then the reference's over it and the completions; GRPO's and RLOO's reference
    and old policy (grpo.py), once per generation batch, which μ = num_iterations steps train on."""
    scored = workload.reference is not Reference.PRECOMPUTED
    if workload.objective is Objective.KTO:
        return 1 + 2 * scored
    if workload.objective is Objective.DPO:
        return int(scored)
    if workload.objective in GENERATING:
        return no_grad_forwards(workload) / workload.num_iterations
    return 3 / workload.num_ppo_epochs if workload.objective is Objective.PPO else 0


def rollout(workload: Workload) -> Workload | None:
    """GRPO's and RLOO's generation as an inference workload: the generation batch's prompts, then the completions,
    on the rollout's engine (transformers `generate`, or vLLM colocated or on a server); None for others."""
    if workload.objective not in GENERATING and workload.objective is not Objective.PPO:
        return None
    runtime = Runtime.TRANSFORMERS if workload.rollout is Rollout.TRANSFORMERS else Runtime.VLLM
    batch = ppo.chunk(workload) if workload.objective is Objective.PPO else generation_sequences(workload)
    return workload.but(mode=Mode.INFERENCE, runtime=runtime, batch=batch,
                        prompt_tokens=prompt_tokens(workload), output_tokens=workload.completion_tokens)


def flops_per_token(workload: Workload) -> tuple[float, float]:
    """(FLOPs per trained token with recompute, the model's FLOPs per token without it)."""
    model = workload.model
    n = matmul_params(model)
    attention = prompt_attention_flops(model, workload.seq) / workload.seq  # forward, per token
    passes = 2 if workload.lora else 3  # forward + backward (LoRA skips the frozen weights' gradients)
    model_flops = passes * (2 * n + attention)
    if workload.objective is Objective.PPO:  # the value model, whole: no LM head
        model_flops += 3 * (2 * (n - model.vocab * model.hidden) + attention)
    recompute = (2 * n + attention) if workload.checkpointing is not Checkpointing.NONE else 0.0
    return model_flops + recompute, model_flops


def kernel(workload: Workload) -> str:
    """The rate a step's matmuls run at: the FP32 units' when it computes in fp32 without autocast (--recipe fp32, or
    fp32 weights; PyTorch leaves TF32 off in matmuls), else the 16-bit tensor rate."""
    return "fp32" if workload.activation_precision is Precision.FP32 else "16-bit"


def hardware_utilisation(workload: Workload, device: Device) -> float:
    """The share of the step's matmul rate (the dense 16-bit one, or FP32's: `kernel`) its FLOPs (recompute
    included) run at, by kind of card (data/speed.json, fitted to 16-bit runs); LoRA's backward through the frozen
    weights runs the same matmuls at the same share."""
    return float(calibration()["training"]["mfu"][device.memory.value])


def sync_bytes(workload: Workload, replicas: int, stage: int, gradients: float, weights: float) -> float:
    """What each GPU sends (and receives) per optimizer step to keep `replicas` data-parallel copies in step,
    with ring collectives moving (n − 1)/n of a tensor per GPU (Rajbhandari et al. 2020, §7): the gradients'
    all-reduce, 2 × gradients (ZeRO-1 and -2 the same volume, as a reduce-scatter and the parameters'
    all-gather); ZeRO-3 / FSDP full shard gathers the 16-bit parameters for each micro-step's forwards and
    backward instead (`gathered_bytes`), and reduce-scatters the gradients."""
    if replicas <= 1:
        return 0.0
    ring = (replicas - 1) / replicas
    if stage >= 3:
        return ring * (gathered_bytes(workload, weights) * workload.grad_accum + gradients)
    return ring * 2 * gradients


def gathered_bytes(workload: Workload, weights: float) -> float:
    """The weights ZeRO-3 / FSDP full shard gathers in one micro-step (`weights`: what the GPUs hold, the reference
    copy's included): the policy's for its forward and its backward, and a model of the policy's size for each
    forward without gradients (`reference_forward`), since TRL shards the reference as it shards the policy
    (trainer/dpo_trainer.py `_prepare_deepspeed`, trl 0.7: "If ZeRO-3 is used, we shard both the active and
    reference model"; under FSDP, `accelerator.prepare_model`), each forward gathering it anew: DPO's reference
    once, KTO's KL batch by the policy and the reference's two, GRPO's old policy and reference as they run.
    PPO's four models keep their whole weights gathered twice."""
    if workload.objective is Objective.PPO:
        return 2 * weights
    policy = weights
    if workload.reference_model is Reference.COPY:  # the copy the GPUs hold beside the policy (engines/transformers.py)
        policy -= weights_bytes(workload).bytes - training_weight_extras(workload)[0]
    return (2 + reference_forward(workload)) * policy


def training_step(workload: Workload, device: Device, model_parallel: int, *, replicas: int = 1, stage: int = 0,
                  gradients: float = 0.0, weights: float = 0.0, generation_s: float = 0.0) -> TrainingStep | None:
    """One step on one data-parallel replica of `model_parallel` GPUs; None when the GPU's rate is unknown.
    The replicas' traffic runs beside the backward (bucketed, as DDP and FSDP do), so a step takes the
    longer of the compute and the traffic over the GPUs' link; GRPO's rollout (`generation_s`, timed by
    the caller from `rollout`, per step: `rollouts` of them) comes before it."""
    peak = device.compute(kernel(workload))
    if not peak:
        return None
    tokens = trained_sequences(workload) * workload.seq * workload.grad_accum
    with_recompute, model_only = flops_per_token(workload)
    reference = reference_forward(workload) * tokens * (
        2 * matmul_params(workload.model) + prompt_attention_flops(workload.model, workload.seq) / workload.seq)
    utilisation = hardware_utilisation(workload, device)
    flops = tokens * with_recompute + reference
    compute = flops / (utilisation * peak * model_parallel)
    sync = sync_bytes(workload, replicas, stage, gradients, weights) / device.link
    seconds = max(compute, sync) + generation_s
    # MFU counts the model's FLOPs only: the recompute of checkpointing is time spent beyond them
    return TrainingStep(seconds=seconds, compute_s=compute, sync_s=sync, tokens=tokens, flops=flops,
                        model_flops=tokens * model_only, reference_flops=reference, generation_s=generation_s,
                        mfu=utilisation * tokens * model_only / flops * compute / seconds)


def rollouts(workload: Workload) -> float:
    """The generations (GRPO, RLOO) or rollout chunks (PPO) an optimizer step runs on average."""
    return ppo.rollouts_per_step(workload) if workload.objective is Objective.PPO else generations_per_step(workload)
