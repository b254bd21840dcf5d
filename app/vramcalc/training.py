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
import functools
import enum
import math

from .architecture import ModelSpec
from .errors import ValidationError
from .options import Optimizer, Precision
from .tensors import Counted, Tensor, counted_tensors

FP32 = 4


class Recipe(enum.Enum):
    LEGACY = ""  # the weights' precision, plus an fp32 master copy with mixed_precision
    FP32 = "fp32"
    BF16 = "bf16"
    AMP = "amp"
    MIXED = "mixed"


@dataclasses.dataclass(frozen=True)
class Bytes:
    """Bytes per trainable parameter of each model state."""

    weights: int
    gradients: int
    master: int
    state: int  # the optimizer state's dtype


def recipe_bytes(recipe: Recipe, precision: Precision, mixed_precision: bool) -> Bytes:
    half = precision.bits // 8 if precision.is_float else 2
    if recipe is Recipe.FP32:
        return Bytes(FP32, FP32, 0, FP32)
    if recipe is Recipe.BF16:
        return Bytes(half, half, 0, half)
    if recipe is Recipe.AMP:
        return Bytes(FP32, FP32, 0, FP32)
    if recipe is Recipe.MIXED:
        return Bytes(half, FP32, FP32, FP32)
    return Bytes(half if precision is not Precision.FP32 else FP32, half if precision is not Precision.FP32 else FP32,
                 FP32 if mixed_precision else 0, FP32)


def compute_precision(recipe: Recipe, precision: Precision) -> Precision:
    """The dtype activations are computed in."""
    if recipe is Recipe.FP32:
        return Precision.FP32
    return precision if precision.is_float else Precision.BF16


# ---------------------------------------------------------------- optimizers

BNB_BLOCK = 256  # bitsandbytes 8-bit optimizers quantise state in blocks of 256 with an fp32 absmax each
BNB_MIN_8BIT = 4096  # tensors smaller than this keep 32-bit state (min_8bit_size)


def optimizer_state_bytes(optimizer: Optimizer, tensors: Counted, state_bytes: int) -> int:
    """Optimizer state for the trainable tensors.

    AdamW / Adam: two moments; Lion and SGD with momentum: one; SGD: none (all in the state
    dtype). 8-bit AdamW (bitsandbytes): two uint8 moments with an fp32 absmax per 256
    (32-bit for tensors under 4,096 elements). Adafactor (no first moment, as Hugging Face's
    default): a row and a column second-moment factor per matrix, a full one per vector."""
    total = 0
    for t, count in tensors:
        n = t.numel
        if optimizer in (Optimizer.ADAMW, Optimizer.ADAM, Optimizer.PAGED_ADAMW):
            total += 2 * n * state_bytes * count
        elif optimizer in (Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT):
            total += (2 * n * FP32 if n < BNB_MIN_8BIT else 2 * (n + math.ceil(n / BNB_BLOCK) * FP32)) * count
        elif optimizer is Optimizer.ADAFACTOR:
            total += FP32 * (sum(t.shape[-2:]) * math.prod(t.shape[:-2]) if len(t.shape) >= 2 else n) * count
        elif optimizer in (Optimizer.LION, Optimizer.SGD_MOMENTUM):
            total += n * state_bytes * count
    return total


# ---------------------------------------------------------------- LoRA

TARGETS = {  # link / command-line name: the GGUF-style tensor names it adapts
    "q": ("attn_q", "attn_q_a", "attn_q_b"),
    "k": ("attn_k",),
    "v": ("attn_v",),
    "o": ("attn_output",),
    "gate": ("ffn_gate", "ffn_gate_shexp"),
    "up": ("ffn_up", "ffn_up_shexp"),
    "down": ("ffn_down", "ffn_down_shexp"),
}
ALL_LINEAR = "all-linear"


@dataclasses.dataclass(frozen=True)
class Lora:
    rank: int
    targets: tuple[str, ...]  # names from TARGETS, or ("all-linear",)
    embeddings: bool = False  # train the embeddings and the head in full as well


def parse_targets(text: str) -> tuple[str, ...]:
    if text.strip() == ALL_LINEAR:
        return (ALL_LINEAR,)
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [name for name in names if name not in TARGETS]
    if not names or unknown:
        raise ValidationError("lora_targets", text, "expected all-linear or a comma-separated subset of "
                                                    + ",".join(TARGETS))
    return names


def _stem(name: str) -> str:
    """'blk.3.attn_q.weight' -> 'attn_q'."""
    return name.split(".")[2] if name.startswith("blk.") else name.split(".")[0]


@functools.lru_cache(maxsize=64)  # every estimate of a LoRA workload asks, several times
def adapted(spec: ModelSpec, lora: Lora) -> Counted:
    """The base matrices LoRA adapts: the linear layers peft's `all-linear` finds (every nn.Linear
    but the head; fused expert tensors are not nn.Linear), or those named; as (tensor, how many of it),
    tensors.counted_tensors."""
    chosen = []
    for t, count in counted_tensors(spec):
        if not t.name.endswith(".weight") or len(t.shape) != 2 or t.role in ("embedding", "head", "norm"):
            continue
        stem = _stem(t.name)
        if lora.targets == (ALL_LINEAR,):
            if t.role in ("attention", "mlp", "shared_expert") and "conv1d" not in stem:  # peft leaves routers
                chosen.append((t, count))
        elif any(stem in TARGETS[name] for name in lora.targets):
            chosen.append((t, count))
    if not chosen:
        raise ValidationError("lora_targets", ",".join(lora.targets), f"{spec.display_name} has none of these layers")
    return tuple(chosen)


@functools.lru_cache(maxsize=64)
def adapter_tensors(spec: ModelSpec, lora: Lora) -> Counted:
    """The trainable tensors: A (r × in) and B (out × r) per adapted matrix, and with
    `embeddings` the embedding and head in full; as (tensor, how many of it)."""
    out = []
    for t, count in adapted(spec, lora):
        rows, cols = t.shape
        if lora.rank > min(rows, cols):
            raise ValidationError("lora_rank", lora.rank, f"must not exceed the smallest adapted width ({min(rows, cols):,}"
                                                          f" in {t.name})")
        out.append((Tensor(t.name.replace(".weight", ".lora_a"), (lora.rank, cols), "adapter"), count))
        out.append((Tensor(t.name.replace(".weight", ".lora_b"), (rows, lora.rank), "adapter"), count))
    if lora.embeddings:
        out += [(t, count) for t, count in counted_tensors(spec) if t.role in ("embedding", "head")]
    return tuple(out)
