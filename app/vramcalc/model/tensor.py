"""A weight tensor: its GGUF name, shape and role; the unit every model family lists its weights in.
Names follow llama.cpp's GGUF convention: `blk.<layer>.<stem>.<weight|bias>` inside the layers,
`<stem>.<weight|bias>` outside them (`token_embd.weight`, `output_norm.weight`)."""

from __future__ import annotations

import dataclasses
import enum
import functools
import math


class Role(enum.StrEnum):
    """What a tensor does in the model, which decides how formats store it, how layouts split it and
    whether LoRA adapts it. A StrEnum: equal to (and hashed as) its value, so `role == "expert"` holds."""

    EMBEDDING = "embedding"
    """Token (and GPT-2's position) embedding tables."""
    HEAD = "head"
    """The LM head's weight, when not tied to the embedding."""
    ATTENTION = "attention"
    """Attention's projections (q, k, v, output; MLA's low-rank pairs; Gated DeltaNet's projections and convolution)."""
    MLP = "mlp"
    """A dense layer's MLP projections (gate, up, down)."""
    EXPERT = "expert"
    """Routed experts, stacked as (experts, out, in), and their biases."""
    SHARED_EXPERT = "shared_expert"
    """The shared expert(s) of an MoE layer, which every token uses."""
    ROUTER = "router"
    """The MoE router and the shared expert's gate."""
    NORM = "norm"
    """Norm weights and biases, and other small per-channel vectors (attention sinks, DeltaNet's decay)."""
    BIAS = "bias"
    """A linear projection's bias (experts' biases are EXPERT)."""
    ADAPTER = "adapter"
    """LoRA's A and B matrices (training/lora.py), never part of a model's own list."""


@dataclasses.dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[int, ...]
    role: Role

    @functools.cached_property  # the sums over a model's tensors ask it millions of times
    def numel(self) -> int:
        return math.prod(self.shape)


Counted = tuple[tuple[Tensor, int], ...]  # tensors with how many of each the model has

_LAYER_PREFIX = "blk."


def layer_of(name: str) -> int | None:
    """The layer a tensor belongs to ('blk.3.attn_q.weight' -> 3), or None outside the layers: any name
    not of the form `blk.<integer>.…` (llama.cpp's `sscanf(name, "blk.%d.", ...)`)."""
    if not name.startswith(_LAYER_PREFIX):
        return None
    index, dot, _ = name[len(_LAYER_PREFIX):].partition(".")
    digits = index[1:] if index.startswith("-") else index
    return int(index) if dot and digits.isdecimal() else None


def stem(name: str) -> str:
    """A tensor's name without its layer and its suffix: 'blk.3.attn_q.weight' -> 'attn_q',
    'token_embd.weight' -> 'token_embd'."""
    parts = name.split(".")
    return parts[2] if name.startswith(_LAYER_PREFIX) else parts[0]
