"""How people fine-tune: the recipe (which dtype the weights, gradients, master copy
and optimizer state are kept in), the optimizer, and LoRA / QLoRA adapters.

Bytes per trainable parameter, by recipe (Adam's two moments in the state dtype):

    recipe   weights  gradients  master  state dtype   with AdamW
    fp32        4         4         0        4          16
    bf16        2         2         0        2           8  (PyTorch keeps Adam state in the parameter's dtype)
    amp         4         4         0        4          16  (+ autocast's 16-bit weight copies, kept to backward)
    mixed       2         4         4        4          18  (Megatron / DeepSpeed: fp32 gradient accumulation)
    (none)      p         p      4 if --mixed-precision  4   (the first version's meaning, kept for old links)

With LoRA the base weights are frozen in their format (16-bit, or NF4 for QLoRA) and only
the adapters (A: r × in, B: out × r per adapted matrix) have gradients and optimizer state.
"""

from __future__ import annotations

import dataclasses
import math

from ..core.choices import Optimizer, Recipe
from ..core.dtypes import Precision
from ..model.tensor import Counted

FP32 = 4


@dataclasses.dataclass(frozen=True)
class BytesPerParam:
    """Bytes per trainable parameter of each model state."""

    weights: int
    gradients: int
    master: int
    state: int  # the optimizer state's dtype


def recipe_bytes(recipe: Recipe, precision: Precision, mixed_precision: bool) -> BytesPerParam:
    half = int(precision.bits) // 8 if precision.is_float else 2
    if recipe is Recipe.FP32:
        return BytesPerParam(FP32, FP32, 0, FP32)
    if recipe is Recipe.BF16:
        return BytesPerParam(half, half, 0, half)
    if recipe is Recipe.AMP:
        return BytesPerParam(FP32, FP32, 0, FP32)
    if recipe is Recipe.MIXED:
        return BytesPerParam(half, FP32, FP32, FP32)
    return BytesPerParam(half if precision is not Precision.FP32 else FP32,
                         half if precision is not Precision.FP32 else FP32,
                         FP32 if mixed_precision else 0, FP32)


def compute_precision(recipe: Recipe, precision: Precision) -> Precision:
    """The dtype activations are computed in."""
    if recipe is Recipe.FP32:
        return Precision.FP32
    return precision if precision.is_float else Precision.BF16


# ---------------------------------------------------------------- optimizers

BNB_BLOCK = 256  # bitsandbytes 8-bit optimizers quantise state in blocks of 256 with an fp32 absmax each
BNB_MIN_8BIT = 4096  # tensors smaller than this keep 32-bit state (min_8bit_size)
BNB_MIN_PAGED = 100_000  # paged optimizers page the state of tensors this large or larger (get_state_buffer)


def optimizer_state_bytes(optimizer: Optimizer, tensors: Counted, state_bytes: int) -> int:
    """Optimizer state for the trainable tensors.

    AdamW / Adam: two moments; Lion and SGD with momentum: one; SGD: none (all in the state
    dtype). bitsandbytes (optim/optimizer.py, Optimizer2State.init_state; measured on the CPU by
    tools/measure_bnb_state.py): paged AdamW keeps two fp32 moments whatever the parameters' dtype;
    8-bit AdamW two uint8 moments with an fp32 absmax per 256 (32-bit for tensors under 4,096
    elements). Adafactor (no first moment, as Hugging Face's default): a row and a column
    second-moment factor per matrix, a full one per vector."""
    total = 0
    for t, count in tensors:
        n = t.numel
        if optimizer in (Optimizer.ADAMW, Optimizer.ADAM):
            total += 2 * n * state_bytes * count
        elif optimizer is Optimizer.PAGED_ADAMW:
            total += 2 * n * FP32 * count
        elif optimizer in (Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT):
            total += (2 * n * FP32 if n < BNB_MIN_8BIT else 2 * (n + math.ceil(n / BNB_BLOCK) * FP32)) * count
        elif optimizer is Optimizer.ADAFACTOR:
            total += FP32 * (sum(t.shape[-2:]) * math.prod(t.shape[:-2]) if len(t.shape) >= 2 else n) * count
        elif optimizer in (Optimizer.LION, Optimizer.SGD_MOMENTUM):
            total += n * state_bytes * count
    return total


def paged_state_bytes(optimizer: Optimizer, tensors: Counted) -> int:
    """The part of a paged optimizer's state bitsandbytes allocates with cudaMallocManaged (F.get_paged,
    attached to the host): both moments of each tensor of 100,000 elements or more; the absmax scales
    and the smaller tensors' state stay ordinary CUDA tensors. PyTorch's caching allocator does not
    see managed memory, so torch.cuda.max_memory_allocated and memory_stats() leave this part out."""
    if optimizer not in (Optimizer.PAGED_ADAMW, Optimizer.PAGED_ADAMW_8BIT):
        return 0
    per_value = 1 if optimizer is Optimizer.PAGED_ADAMW_8BIT else FP32
    return sum(2 * t.numel * per_value * count for t, count in tensors if t.numel >= BNB_MIN_PAGED)
