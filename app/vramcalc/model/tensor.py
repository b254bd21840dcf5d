"""A weight tensor: its GGUF name, shape and role; the unit every model family lists its weights in."""

from __future__ import annotations

import dataclasses
import functools
import math


@dataclasses.dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[int, ...]
    role: str  # embedding, head, attention, mlp, expert, shared_expert, router, norm, bias

    @functools.cached_property  # the sums over a model's tensors ask it millions of times
    def numel(self) -> int:
        return math.prod(self.shape)


Counted = tuple[tuple[Tensor, int], ...]  # tensors with how many of each the model has


def layer_of(name: str) -> int | None:
    """The layer a tensor belongs to ('blk.3.attn_q.weight' -> 3), or None outside the layers."""
    return int(name.split(".")[1]) if name.startswith("blk.") else None
