"""The training step's time from its FLOPs (Kaplan et al. 2020; Narayanan et al. 2021, §5.1):

    FLOPs per token = 6 · N (forward 2N, backward 4N) + 3 × the forward's attention
    LoRA / QLoRA: 4 · N (the backward computes the activations' gradients through the frozen weights,
    not the weights' own), the adapters' FLOPs being negligible; activation checkpointing recomputes
    the forward (+ 2 · N and its attention once more).

over the GPU's dense 16-bit tensor rate times the share of it the step achieves, fitted to published
runs (data/speed.json, docs/accuracy.md). N is the parameters a token multiplies by (the active ones
of a mixture of experts)."""

from __future__ import annotations

import dataclasses

from ..core.choices import Checkpointing
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


def flops_per_token(workload: Workload) -> tuple[float, float]:
    """(FLOPs per trained token with recompute, the model's FLOPs per token without it)."""
    model = workload.model
    n = matmul_params(model)
    attention = prompt_attention_flops(model, workload.seq) / workload.seq  # forward, per token
    passes = 2 if workload.lora else 3  # forward + backward (LoRA skips the frozen weights' gradients)
    model_flops = passes * (2 * n + attention)
    recompute = (2 * n + attention) if workload.checkpointing is not Checkpointing.NONE else 0.0
    return model_flops + recompute, model_flops


def hardware_utilisation(workload: Workload, device: Device) -> float:
    """The share of the dense 16-bit rate a step's FLOPs (recompute included) run at, by kind of card
    (data/speed.json); LoRA's backward through the frozen weights runs the same matmuls at the same share."""
    return float(calibration()["training"]["mfu"][device.memory.value])


def sync_bytes(workload: Workload, replicas: int, stage: int, gradients: float, weights: float) -> float:
    """What each GPU sends (and receives) per optimizer step to keep `replicas` data-parallel copies in step,
    with ring collectives moving (n − 1)/n of a tensor per GPU (Rajbhandari et al. 2020, §7): the gradients'
    all-reduce, 2 × gradients (ZeRO-1 and -2 the same volume, as a reduce-scatter and the parameters'
    all-gather); ZeRO-3 / FSDP full shard gathers the 16-bit parameters for each micro-step's forward and
    backward instead, 2 × weights per micro-step, and reduce-scatters the gradients."""
    if replicas <= 1:
        return 0.0
    ring = (replicas - 1) / replicas
    if stage >= 3:
        return ring * (2 * weights * workload.grad_accum + gradients)
    return ring * 2 * gradients


def training_step(workload: Workload, device: Device, model_parallel: int, *, replicas: int = 1, stage: int = 0,
                  gradients: float = 0.0, weights: float = 0.0) -> TrainingStep | None:
    """One step on one data-parallel replica of `model_parallel` GPUs; None when the GPU's rate is unknown.
    The replicas' traffic runs beside the backward (bucketed, as DDP and FSDP do), so a step takes the
    longer of the compute and the traffic over the GPUs' link."""
    peak = device.compute("16-bit")
    if not peak:
        return None
    tokens = workload.batch * workload.seq * workload.grad_accum
    with_recompute, model_only = flops_per_token(workload)
    utilisation = hardware_utilisation(workload, device)
    compute = tokens * with_recompute / (utilisation * peak * model_parallel)
    sync = sync_bytes(workload, replicas, stage, gradients, weights) / device.link
    seconds = max(compute, sync)
    # MFU counts the model's FLOPs only: the recompute of checkpointing is time spent beyond them
    return TrainingStep(seconds=seconds, compute_s=compute, sync_s=sync, tokens=tokens, flops=tokens * with_recompute,
                        model_flops=tokens * model_only,
                        mfu=utilisation * model_only / with_recompute * compute / seconds)
