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
    """The share of the dense 16-bit rate a step's FLOPs (recompute included) run at (data/speed.json)."""
    table = calibration()["training"]
    return float(table["lora_mfu"] if workload.lora else table["mfu"][device.memory.value])


def training_step(workload: Workload, device: Device, model_parallel: int) -> TrainingStep | None:
    """One step on one data-parallel replica of `model_parallel` GPUs; None when the GPU's rate is unknown."""
    peak = device.compute("16-bit")
    if not peak:
        return None
    tokens = workload.batch * workload.seq * workload.grad_accum
    with_recompute, model_only = flops_per_token(workload)
    utilisation = hardware_utilisation(workload, device)
    seconds = tokens * with_recompute / (utilisation * peak * model_parallel)
    # MFU counts the model's FLOPs only: the recompute of checkpointing is time spent beyond them
    return TrainingStep(seconds=seconds, tokens=tokens, flops=tokens * with_recompute,
                        model_flops=tokens * model_only, mfu=utilisation * model_only / with_recompute)
