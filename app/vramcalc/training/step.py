"""A training step, phase by phase: what is live at each instant, and which instant is the peak.

What runs out of memory is the worst instant of a step, not the sum of everything a step ever
allocates. With `zero_grad(set_to_none=True)` (PyTorch's and the Trainer's default) a steady-state
step goes through these instants (measured with tools/measure_peak.py, tests/golden/measured_peak.json):

    generation      GRPO, PPO: weights + master + optimizer state + generate's cache and work (grpo.py, ppo.py)
    kl              KTO only: the states and the policy's no_grad forward over its KL batch (preference.py)
    forward         weights + master + optimizer state + saved activations + logits
                    (+ the gradients of earlier micro-batches under gradient accumulation;
                    DPO: + its fused head's buffer, preference.py)
    reference       DPO, KTO: the forward's end + the reference model's forward (no_grad); GRPO, PPO: the
                    states and that forward alone, as it runs before the policy's
    loss            the forward's end + the loss gradient over the vocabulary: cross-entropy's
                    backward makes two fp32 tensors of batch × seq × vocab (nll_loss's and
                    log_softmax's gradients) before the first is freed (ORPO: three logits-sized
                    gradients, the logits and the log-softmax freed by then, preference.py)
    backward_start  the head's backward is done: log-softmax's output and the loss gradient are
                    freed, the head's weight gradient exists; every layer's activations are still
                    saved, and the last layer's backward makes its transients (under LoRA beside the
                    hidden states' gradient, or, earlier, the final norm's backward, or with checkpointing
                    the layer's recompute at down's adapter, decoder/saved.py `LoraBackward`)
    backward_end    every gradient exists, the activations are freed; the first layer's backward
                    transients are the last ones. Under checkpointing the first layer's backward
                    starts by recomputing it: its activations live again beside every gradient but
                    its own and the (untied) embedding's, which can be the worse instant (with its
                    kept input, the recomputed output and the hidden states' gradient, decoder/saved.py
                    `full_recompute_beside`)
    optimizer       weights + master + state + gradients + the update's temporaries (the model
                    output is dropped by then, as the Trainer does)

Between backward_start and backward_end the live bytes move from one to the other layer by layer
(activations freed as gradients are written), so the largest of the two ends bounds the middle.
The first step has no optimizer state in its forward and backward and creates it in its update,
which then reaches the optimizer phase's bytes: the steady state is the worst.
"""

from __future__ import annotations

import dataclasses

from ..core.choices import Optimizer, OptimizerImpl
from ..core.dtypes import FP32_BYTES
from ..model.tensor import Counted

PHASES = ("generation", "kl", "forward", "reference", "loss", "backward_start", "backward_end", "optimizer")
LOSS_GRADIENT_BYTES = 2 * FP32_BYTES  # nll_loss's and log_softmax's fp32 gradients, live together


TORCH_OPTIMIZERS = frozenset({Optimizer.ADAMW, Optimizer.ADAM, Optimizer.SGD, Optimizer.SGD_MOMENTUM})
"""torch.optim classes: foreach (the default on GPU), fused or a for-loop. bitsandbytes' 8-bit and
paged optimizers update each tensor in one kernel; Adafactor (transformers) and Lion (lion-pytorch)
loop over tensors."""


def implementation(optimizer: Optimizer, impl: OptimizerImpl) -> OptimizerImpl:
    """The implementation a step runs: the requested one, or the optimizer's own."""
    if impl is not OptimizerImpl.DEFAULT:
        return impl
    if optimizer in TORCH_OPTIMIZERS:
        return OptimizerImpl.FOREACH
    if optimizer in (Optimizer.ADAFACTOR, Optimizer.LION):
        return OptimizerImpl.FOR_LOOP
    return OptimizerImpl.FUSED


def allowed_impls(optimizer: Optimizer) -> tuple[OptimizerImpl, ...]:
    if optimizer in TORCH_OPTIMIZERS:
        return (OptimizerImpl.DEFAULT, OptimizerImpl.FOREACH, OptimizerImpl.FUSED, OptimizerImpl.FOR_LOOP)
    return (OptimizerImpl.DEFAULT, implementation(optimizer, OptimizerImpl.DEFAULT))


def update_temporaries(optimizer: Optimizer, impl: OptimizerImpl, tensors: Counted, state_bytes: int,
                       grad_bytes: int) -> int:
    """Bytes the optimizer's update allocates and frees within the step (torch.optim 2.13 sources;
    measured for AdamW, SGD and Adafactor on the CPU).

    AdamW / Adam, foreach: `_foreach_sqrt(exp_avg_sqs)` makes a copy of the whole second moment
    (Σ n · state bytes) before `_foreach_addcdiv_`. For-loop: `exp_avg_sq.sqrt() / bias_correction`
    makes two copies of one tensor at a time (2 · n_max · state bytes). Fused: none.
    SGD (with or without momentum, no weight decay): in place, none.
    Adafactor (transformers, for-loop): per tensor, the squared gradient and the update in fp32
    (2 fp32 copies of the largest tensor), and for 16-bit weights the gradient's and the
    parameter's fp32 copies as well (4).
    Lion (lion-pytorch, for-loop): a clone of the momentum and the interpolated update, 2 copies of
    one tensor. bitsandbytes' 8-bit and paged optimizers: one kernel per tensor, none."""
    impl = implementation(optimizer, impl)
    if not tensors or impl is OptimizerImpl.FUSED:
        return 0
    largest = max(t.numel for t, _ in tensors)
    if optimizer in (Optimizer.ADAMW, Optimizer.ADAM):
        if impl is OptimizerImpl.FOREACH:
            return sum(t.numel * count for t, count in tensors) * state_bytes
        return 2 * largest * state_bytes
    if optimizer is Optimizer.ADAFACTOR:
        return (2 + 2 * (grad_bytes < FP32_BYTES)) * largest * FP32_BYTES
    if optimizer is Optimizer.LION:
        return 2 * largest * state_bytes
    return 0


@dataclasses.dataclass(frozen=True)
class StepSizes:
    """The bytes each piece of a step holds, computed by memory.py."""

    weights: int  # the weights kept for the whole step (base, adapters)
    weight_copies: int  # autocast's 16-bit copies: made in the forward, freed by the backward
    master: int
    optimizer: int
    gradients: int
    head_gradient: int  # the head's (or tied embedding's) weight gradient, made first in backward
    activations_forward: int  # saved at the end of the forward (checkpointing: layer inputs only)
    activations_backward: int  # live when the layers' backward starts (checkpointing: + one recompute)
    activations_recomputed: int  # checkpointing: one layer's recompute, live again at the first layer's backward
    gradients_before_first_layer: int  # the gradients that exist when the first layer's backward starts
    logits: int  # what the loss keeps at the forward's end (log-softmax output + the model's logits)
    logits_held: int  # the model's logits, held by the caller until backward ends
    loss_gradient: int  # the transient of cross-entropy's backward
    layer_transient: int  # one layer's backward temporaries
    update_temporaries: int
    accumulating: bool  # gradient accumulation: earlier micro-batches' gradients are live throughout
    forward_transient: int = 0  # DPO: the fused head's buffer at the forward's end (preference.py)
    reference_transient: int | None = None  # DPO: the reference's forward beside the policy's activations
    reference_alone: bool = False  # GRPO: the reference's forward before the policy's, no activations beside it
    kl_transient: int | None = None  # KTO: the policy's no_grad forward over the KL batch, before its own
    logits_in_loss: int | None = None  # ORPO: the logits still live at the loss gradient's worst (None: `logits`)
    generation: tuple[int, int] | None = None  # GRPO: generate's (cache, working bytes), before the forward
    resident: int = 0  # GRPO with colocated vLLM awake: its share, live in every phase
    # optimizer_in_backward (torchtune's optimizer_in_bwd): each gradient is stepped and freed as it is made
    in_backward: bool = False
    head_update: int = 0  # the head's update's temporaries (its gradient is head_gradient)
    largest_gradient: int = 0  # the largest trainable tensor's gradient
    largest_update: int = 0  # and its update's temporaries
    # activation offloading (offload.py): what stays beside every gradient at the backward's end, and GPU buffers
    # kept for the whole step (Unsloth's), counted with the activations in every phase
    activations_in_flight: int = 0
    activation_buffers: int = 0
    held: int = 0  # PPO: the rollout's scores, live in every phase (ppo.py)
    logits_in_update: int = 0  # PPO: the micro-batch's output, still held by the update
    # LoRA (decoder/saved.py LoraBackward): the final norm's backward, before the last layer's, beside the forward's
    # activations less the head adapter's; freed before the last layer's backward; the hidden states' gradient
    norm_backward: int = 0
    head_released: int = 0
    layer_released: int = 0
    hidden_gradient: int = 0
    # LoRA with checkpointing: a layer's recompute at its forward's worst (down's adapter), beside its saved bytes and
    # the gradients made by then (decoder/saved.py LoraBackward.recompute_forward), at the last layer and the first
    recompute_forward: int = 0
    # LoRA with checkpointing and adapters wider than the activations: a layer's no_grad forward at its worst
    # (decoder/saved.py LoraBackward.layer_forward), beside the kept layer inputs, masks and rotary tables
    # (`layer_forward_kept`), before the final norm, the head and the logits
    layer_forward: int = 0
    layer_forward_kept: int = 0
    # full fine-tuning with per-layer checkpointing: beside every gradient at the backward's end, the embedding's
    # backward's input, the hidden states' gradient (None: layer_transient)
    end_transient: int | None = None


def phases(s: StepSizes) -> dict[str, dict[str, int]]:
    """The component bytes live at each phase's worst instant."""
    return in_backward(s, _phases(s)) if s.in_backward else _phases(s)


def _phases(s: StepSizes) -> dict[str, dict[str, int]]:
    earlier = s.gradients if s.accumulating else 0
    states = {"weights": s.weights + s.weight_copies, "optimizer": s.optimizer, "master_weights": s.master}
    forward = {**states, "gradients": earlier, "activations": s.activations_forward, "logits": s.logits,
               "temporaries": s.forward_transient}
    alone = {**states, "gradients": 0, "activations": 0, "logits": 0}
    reference = {} if s.reference_transient is None else {"reference": {
        **(alone if s.reference_alone else forward), "temporaries": s.reference_transient}}
    generation = {} if s.generation is None else {"generation": {
        **alone, "kv_cache": s.generation[0], "temporaries": s.generation[1]}}
    kl = {} if s.kl_transient is None else {"kl": {**alone, "gradients": earlier,
                                                                 "temporaries": s.kl_transient}}
    by_phase = {
        **generation,
        **kl,
        "forward": max((forward, {**states, "gradients": earlier, "activations": s.layer_forward_kept, "logits": 0,
                                  "temporaries": s.layer_forward}), key=lambda live: sum(live.values())),
        **reference,
        "loss": {**forward, "temporaries": s.loss_gradient,
                 "logits": s.logits if s.logits_in_loss is None else s.logits_in_loss},
        "backward_start": max(
            ({**states, "gradients": max(earlier, s.head_gradient),
              "activations": s.activations_backward - s.layer_released, "logits": s.logits_held,
              "temporaries": s.layer_transient + s.hidden_gradient},
             {**states, "gradients": max(earlier, s.head_gradient),
              "activations": s.activations_forward - s.head_released, "logits": s.logits_held,
              "temporaries": s.norm_backward},
             *([{**states, "gradients": max(earlier, s.head_gradient),
                 "activations": s.activations_backward - s.layer_released, "logits": s.logits_held,
                 "temporaries": s.recompute_forward}] if s.recompute_forward else [])),
            key=lambda live: sum(live.values())),
        "backward_end": max(
            ({**states, "gradients": s.gradients, "activations": s.activations_in_flight, "logits": s.logits_held,
              "temporaries": (s.layer_transient if s.end_transient is None else s.end_transient) + s.hidden_gradient},
             {**states, "gradients": max(earlier, s.gradients_before_first_layer),
              "activations": s.activations_recomputed, "logits": s.logits_held,
              "temporaries": s.layer_transient + s.hidden_gradient},
             *([{**states, "gradients": max(earlier, s.gradients_before_first_layer),
                 "activations": s.activations_recomputed, "logits": s.logits_held,
                 "temporaries": s.recompute_forward}] if s.recompute_forward else [])),
            key=lambda live: sum(live.values())),
        "optimizer": {"weights": s.weights, "optimizer": s.optimizer, "master_weights": s.master,
                      "gradients": s.gradients, "activations": s.activation_buffers, "logits": s.logits_in_update,
                      "temporaries": s.update_temporaries},
    }
    if s.held:
        by_phase = {name: {**live, "logits": live["logits"] + s.held} for name, live in by_phase.items()}
    if s.generation is None:
        return by_phase
    return {name: {"kv_cache": s.resident, **live} for name, live in by_phase.items()}


def in_backward(s: StepSizes, by_phase: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The backward's phases when the optimizer runs inside it (torchtune, training/memory.py
    `register_optim_in_bwd_hooks`: one optimizer per parameter, stepped and zeroed by its post-accumulate-grad
    hook; measured on the CPU by tools/measure_in_backward.py): a gradient and its update's temporaries live
    one tensor at a time, the head's first, beside the whole activations; no optimizer phase follows."""
    start, end = by_phase["backward_start"], by_phase["backward_end"]
    first = max(({**start, "gradients": s.head_gradient, "temporaries": s.head_update},
                 {**start, "gradients": 0}), key=lambda live: sum(live.values()))
    last = max(({**end, "gradients": s.largest_gradient, "activations": 0,
                 "temporaries": max(s.layer_transient, s.largest_update)},
                {**end, "gradients": s.largest_gradient, "activations": s.activations_recomputed}),
               key=lambda live: sum(live.values()))
    return {**{name: live for name, live in by_phase.items() if name not in ("backward_end", "optimizer")},
            "backward_start": first, "backward_end": last}


def peak(by_phase: dict[str, dict[str, int]]) -> str:
    """The phase with the most live bytes (the first of equals, in step order)."""
    return max((name for name in PHASES if name in by_phase),
               key=lambda name: (sum(by_phase[name].values()), -PHASES.index(name)))
