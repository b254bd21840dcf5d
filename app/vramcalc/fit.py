"""How a workload fits on each GPU.

Several GPUs are assumed to split the workload evenly (tensor or pipeline
parallel), each paying the framework overhead itself:
per-GPU bytes = overhead + ceil((total - overhead) / n)."""

from __future__ import annotations

import dataclasses
import enum

from .gpus import GpuSpec, table_gpus
from .memory import Breakdown

TIGHT_RATIO = 0.9  # above 90 % of a card the allocator's fragmentation (2–10 %, reference.md §2.8) may not leave room


class Verdict(enum.Enum):
    FITS = "fits"
    TIGHT = "tight"
    DOES_NOT_FIT = "does not fit"


@dataclasses.dataclass(frozen=True, kw_only=True)
class GpuFit:
    gpu: GpuSpec
    utilization: float  # total / usable memory of one GPU
    count: int | None  # GPUs needed; None when even the overhead alone does not fit one

    @property
    def verdict(self) -> Verdict:
        if self.utilization <= TIGHT_RATIO:
            return Verdict.FITS
        if self.utilization <= 1.0:
            return Verdict.TIGHT
        return Verdict.DOES_NOT_FIT


def per_gpu_bytes(total_bytes: int, overhead_bytes: int, count: int) -> int:
    shared = total_bytes - overhead_bytes
    return overhead_bytes + -(-shared // count)


def gpus_needed(total_bytes: int, overhead_bytes: int, usable_bytes: int) -> int | None:
    """The fewest GPUs whose even split fits: ceil((total - overhead) / (usable - overhead))."""
    room = usable_bytes - overhead_bytes
    if room <= 0:
        return None
    return max(1, -(-(total_bytes - overhead_bytes) // room))


def fit_all(breakdown: Breakdown) -> tuple[GpuFit, ...]:
    total = breakdown.total_bytes
    overhead = breakdown.workload.overhead_bytes
    return tuple(
        GpuFit(
            gpu=gpu,
            utilization=total / gpu.usable_bytes,
            count=gpus_needed(total, overhead, gpu.usable_bytes),
        )
        for gpu in table_gpus().values()
    )
