"""The reverse questions: for a workload and a target (one kind of GPU, `count` of them
sharing evenly as in fit.py), the longest sequence, the largest batch and the largest
model that fit, and the fewest GPUs needed.

"Fits" means the per-GPU bytes are at most the GPU's usable memory (gpus.py). Memory
never decreases as the sequence, the batch or the depth grows, so each answer is found
by doubling then bisecting, and is exact: the answer fits and one more does not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from .fit import gpus_needed, per_gpu_bytes
from .memory import estimate
from .models import MAX_LAYERS, ModelSpec
from .workload import MAX_BATCH, MAX_SEQ, Target, Workload


@dataclasses.dataclass(frozen=True, kw_only=True)
class Solution:
    max_seq: int | None  # None: not even one token fits
    max_batch: int | None
    min_gpus: int | None  # None: the overhead alone fills one GPU
    max_layers: int | None  # the deepest model of this width that fits
    max_params: int | None  # its parameter count


def fits(workload: Workload, target: Target) -> bool:
    total = estimate(workload).total_bytes
    return per_gpu_bytes(total, workload.overhead_bytes, target.count) <= target.gpu.usable_bytes


def largest(ok: Callable[[int], bool], low: int, high: int, start: int = 1) -> int | None:
    """The largest n in [low, high] with ok(n), for ok true up to some n and false after it.

    Doubles up from `start` (a guess such as the current value) until ok fails, then bisects.
    """
    if not ok(low):
        return None
    good = low
    step = max(start, low)
    while True:
        probe = min(max(step, good + 1), high)
        if probe <= good:
            return good  # good == high
        if not ok(probe):
            bad = probe
            break
        good = probe
        step = probe * 2
    while bad - good > 1:
        middle = (good + bad) // 2
        if ok(middle):
            good = middle
        else:
            bad = middle
    return good


def scaled_depth(model: ModelSpec, layers: int) -> ModelSpec:
    """The same architecture with another number of layers (a typed total scales with the depth)."""
    override = model.params_override
    if override is not None:
        override = round(override * layers / model.layers)
    return dataclasses.replace(model.with_layers(layers), params_override=override)


def max_seq(workload: Workload, target: Target) -> int | None:
    return largest(lambda s: fits(dataclasses.replace(workload, seq=s), target), 1, MAX_SEQ, workload.seq)


def max_batch(workload: Workload, target: Target) -> int | None:
    return largest(lambda b: fits(dataclasses.replace(workload, batch=b), target), 1, MAX_BATCH, workload.batch)


def min_gpus(workload: Workload, target: Target) -> int | None:
    return gpus_needed(estimate(workload).total_bytes, workload.overhead_bytes, target.gpu.usable_bytes)


def max_layers(workload: Workload, target: Target) -> int | None:
    def ok(layers: int) -> bool:
        return fits(dataclasses.replace(workload, model=scaled_depth(workload.model, layers)), target)

    return largest(ok, 1, MAX_LAYERS, workload.model.layers)


def solve(workload: Workload, target: Target) -> Solution:
    layers = max_layers(workload, target)
    return Solution(
        max_seq=max_seq(workload, target),
        max_batch=max_batch(workload, target),
        min_gpus=min_gpus(workload, target),
        max_layers=layers,
        max_params=None if layers is None else scaled_depth(workload.model, layers).params,
    )
