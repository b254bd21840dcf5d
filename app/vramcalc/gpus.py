"""GPU specs, as data: data/gpus/*.json, read once by `load_gpus`."""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
from collections.abc import Mapping
from importlib import resources

from .errors import ValidationError
from .units import GB, GIB, MIB


class MemorySource(enum.Enum):
    TORCH = "PyTorch total capacity"
    NVIDIA_SMI = "nvidia-smi total"
    MARKETED = "marketed GB (10^9 B)"


@dataclasses.dataclass(frozen=True, kw_only=True)
class GpuSpec:
    slug: str
    display_name: str
    marketed_memory_gb: int
    bandwidth_gb_s: int
    nvidia_smi_total_mib: int | None
    torch_total_gib: float | None
    source: str

    @property
    def usable_bytes(self) -> int:
        """Memory a process can allocate, from the best figure known (see data/README.md)."""
        return self._usable[0]

    @property
    def usable_source(self) -> MemorySource:
        return self._usable[1]

    @property
    def _usable(self) -> tuple[int, MemorySource]:
        if self.torch_total_gib is not None:
            return round(self.torch_total_gib * GIB), MemorySource.TORCH
        if self.nvidia_smi_total_mib is not None:
            return self.nvidia_smi_total_mib * MIB, MemorySource.NVIDIA_SMI
        return self.marketed_memory_gb * GB, MemorySource.MARKETED


@functools.cache
def load_gpus() -> Mapping[str, GpuSpec]:
    folder = resources.files(__package__) / "data" / "gpus"
    order = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    gpus = {}
    for slug in order:
        raw = json.loads((folder / f"{slug}.json").read_text(encoding="utf-8"))
        gpus[slug] = GpuSpec(slug=slug, **raw)
    return gpus


def gpu(slug: str) -> GpuSpec:
    gpus = load_gpus()
    if slug not in gpus:
        raise ValidationError("gpu", slug, "expected one of: " + ", ".join(gpus))
    return gpus[slug]
