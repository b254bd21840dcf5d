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

from .engines import Runtime
from .errors import ValidationError
from .fit import fewest_gpus
from .pergpu import per_gpu
from .memory import estimate
from .models import MAX_LAYERS, ModelSpec
from .options import Precision
from .workload import MAX_BATCH, MAX_PARALLEL, MAX_SEQ, Target, Workload, parse_precision

# The formats each engine runs, tried from the most bits down (the answer is the first that fits).
WEIGHT_LADDER = {
    Runtime.TRANSFORMERS: ("bf16", "bnb-int8", "nf4"),
    Runtime.VLLM: ("bf16", "fp8", "gptq-int8", "awq-int4"),
    Runtime.LLAMACPP: ("f16", "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q4_k_m", "q4_k_s", "iq4_xs", "q3_k_l", "q3_k_m",
                       "iq3_m", "q3_k_s", "iq3_xxs", "q2_k", "iq2_m", "iq2_xs", "iq2_xxs", "iq1_m"),
}
KV_LADDER = {
    Runtime.TRANSFORMERS: (Precision.BF16, Precision.INT8, Precision.INT4),
    Runtime.VLLM: (Precision.BF16, Precision.FP8),
    Runtime.LLAMACPP: (Precision.FP16, Precision.Q8_0, Precision.Q5_1, Precision.Q4_0),
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Solution:
    max_seq: int | None  # None: not even one token fits
    max_batch: int | None
    min_gpus: int | None  # None: the overhead alone fills one GPU
    max_layers: int | None  # the deepest model of this width that fits
    max_params: int | None  # its parameter count
    best_format: str | None = None  # the most precise weight format of this engine that fits
    best_kv_format: str | None = None  # the most precise KV format of this engine that fits (inference)


def fits(workload: Workload, target: Target) -> bool:
    """The per-GPU bytes within the card; for vLLM also the requested sequences within its KV pool,
    which it sizes from the card and its utilization share (it will not start without room)."""
    breakdown = estimate(workload)
    if workload.runtime is Runtime.VLLM and breakdown.runtime.get("kv_pool_bytes", 0) < breakdown.bytes_of("kv_cache"):
        return False
    return per_gpu(breakdown, target.count).total_bytes <= target.gpu.usable_bytes


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
    """The largest batch; on llama.cpp, whose sequences are --parallel slots, the most slots."""
    if workload.runtime is Runtime.LLAMACPP and not workload.is_training:
        return largest(lambda n: fits(dataclasses.replace(workload, parallel=n), target), 1, MAX_PARALLEL,
                       workload.parallel)
    return largest(lambda b: fits(dataclasses.replace(workload, batch=b), target), 1, MAX_BATCH, workload.batch)


def min_gpus(workload: Workload, target: Target) -> int | None:
    """The fewest GPUs of the target's kind: under the layout the workload names, its own count if it
    fits; otherwise the mode's default layout (parallel.default_layout) for 1, 2, ... GPUs."""
    return fewest_gpus(estimate(workload), target.gpu.usable_bytes)


def max_layers(workload: Workload, target: Target) -> int | None:
    def ok(layers: int) -> bool:
        return fits(dataclasses.replace(workload, model=scaled_depth(workload.model, layers)), target)

    return largest(ok, 1, MAX_LAYERS, workload.model.layers)


def best_format(workload: Workload, target: Target) -> str | None:
    """The weight format with the most bits, among those this engine runs, at which the workload fits."""
    for name in WEIGHT_LADDER[workload.runtime]:
        try:
            candidate = dataclasses.replace(workload, precision=parse_precision(name))
            if fits(candidate, target):
                return name
        except ValidationError:  # a format this model cannot take (a group size that does not divide)
            continue
    return None


def best_kv_format(workload: Workload, target: Target) -> str | None:
    """The KV-cache format with the most bits, among this engine's, at which the workload fits."""
    if workload.is_training:
        return None
    for precision in KV_LADDER[workload.runtime]:
        candidate = dataclasses.replace(workload, kv_precision=precision, kv_precision_k=None, kv_precision_v=None)
        if fits(candidate, target):
            return precision.value
    return None


def solve(workload: Workload, target: Target) -> Solution:
    layers = max_layers(workload, target)
    return Solution(
        best_format=None if workload.is_training else best_format(workload, target),
        best_kv_format=best_kv_format(workload, target),
        max_seq=max_seq(workload, target),
        max_batch=max_batch(workload, target),
        min_gpus=min_gpus(workload, target),
        max_layers=layers,
        max_params=None if layers is None else scaled_depth(workload.model, layers).params,
    )
