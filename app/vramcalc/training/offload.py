"""Activation offloading: what a training step's saved activations leave on the GPU, and what goes to host memory.

Two mechanics, measured on the CPU by tools/measure_activation_offload.py
(tests/golden/measured_activation_offload.json):

torchtune's `OffloadActivations` (training/_activation_offloading.py; TRL's SFTConfig(activation_offloading=True) is
a copy): saved-tensor hooks around the model's forward copy every saved tensor of at least 1 KiB that is not a
parameter to host memory, and bring it back when the backward needs it. The output head is left out and the loss is
computed outside, so at the forward's end the GPU holds what the final norm saved (the last tensors saved, still in
its forward stash) and, under checkpointing, the rotary tables the recompute needs. In the backward a tensor brought
back stays until the next autograd node's hook: without checkpointing the MLP's two widest tensors are back beside
the gradients; with it, a layer's recompute beside its input and the previous layer's input. Each save is its own
host copy (a norm's output saved by three projections is copied three times, and so are the weights' transposed
views a linear saves), so the host holds more than the GPU would have: the figure here counts the activations that
leave the GPU, the final norm's and, without checkpointing, one copy of the layers' weights, a floor (measured
1.1 to 1.4 times it).

Unsloth's offloaded gradient checkpointing (unsloth_zoo/gradient_checkpointing.py `UnslothCheckpointFunction`,
use_gradient_checkpointing="unsloth"): per-layer checkpointing whose layer inputs above 2 MiB go to pinned host
buffers, all but the last layer's, and come back into one of two GPU buffers of one layer input (double buffering,
on a card with more than 512 MiB free); below 512 tokens it checkpoints without offloading
(`apply_unsloth_gradient_checkpointing`). Its host pool starts as 200 buffers of 128 Ki values.

With peft and per-layer checkpointing (transformers' `enable_input_require_grads`), the first layer's input is a
leaf that needs a gradient: autograd's graph holds it, so it stays on the GPU whatever the hooks do.
"""

from __future__ import annotations

import dataclasses

from ..core.choices import Checkpointing, Framework
from ..workload import Workload

UNSLOTH_MIN_INPUT_BYTES = 2 * 2**20  # MINIMUM_SIZE: 2 MiB of values
UNSLOTH_MIN_SEQ = 512  # below it, Unsloth checkpoints without offloading
UNSLOTH_POOL = (200, 128 * 1024)  # INITIAL_CPU_BUFFER_COUNT buffers of INITIAL_CPU_BUFFER_SIZE values


@dataclasses.dataclass(frozen=True)
class Offloaded:
    """The activations' bytes on the GPU in each part of the step, and in host memory."""

    forward: int  # at the forward's end
    backward: int  # while the layers' backward runs (checkpointing: one layer's recompute)
    buffers: int  # GPU buffers kept for the whole step (Unsloth's)
    host: int


def unsloth_offloads(workload: Workload, input_bytes: int) -> bool:
    """Unsloth's checkpointer moves the layer inputs (input_bytes each) off the GPU."""
    return (workload.framework is Framework.UNSLOTH and workload.checkpointing is Checkpointing.LAYER
            and workload.seq >= UNSLOTH_MIN_SEQ and input_bytes > UNSLOTH_MIN_INPUT_BYTES)


def offloaded(workload: Workload, *, layers_full: int, layer_full: int, outside: int, shared: int, input_bytes: int,
              inputs_kept: int, weights: int, mlp_width: int) -> Offloaded | None:
    """For the batch: `layers_full`, every layer's saved bytes; `layer_full`, what a checkpointed backward recomputes
    at once; `outside`, the final norm's and the token ids'; `shared`, the rotary tables; `input_bytes`, one layer
    input, and `inputs_kept` of them under checkpointing. `weights`: the layers' weights; `mlp_width`: the widest
    MLP tensor per token (I, or the routed copies' k·I)."""
    e = int(workload.activation_precision.bits) // 8
    tokens = workload.batch * workload.seq
    layers = workload.model.layers
    leaf = input_bytes if workload.lora and workload.checkpointing is not Checkpointing.NONE else 0
    if workload.framework is Framework.UNSLOTH:
        if not unsloth_offloads(workload, input_bytes):
            return None
        count, values = UNSLOTH_POOL
        pool = max(0, count - (layers - 1)) * values * e + (layers - 1) * max(0, values * e - input_bytes)
        kept = input_bytes + (leaf if layers > 1 else 0)  # the last layer's input, and the first's under peft
        return Offloaded(forward=outside + shared + kept, backward=layer_full + shared + kept, buffers=2 * input_bytes,
                         host=(layers - 1) * input_bytes + pool)
    if not workload.activation_offload:
        return None
    if workload.checkpointing is Checkpointing.NONE:
        return Offloaded(forward=outside, backward=2 * tokens * mlp_width * e, buffers=0,
                         host=layers_full + shared + outside + weights)
    return Offloaded(forward=outside + shared + leaf, backward=layer_full + 2 * input_bytes + shared + leaf,
                     buffers=0, host=inputs_kept * input_bytes + outside)
