"""The error each kind of run has against published runs (data/speed.json "validation", written by
tools/validate_speed.py from tests/data/speed/ and checked by tests/test_speed.py)."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.phrase import Phrase, phrase
from ..sources.gpus import GpuKind
from ..workload import Workload
from .hardware import calibration


def backend(workload: Workload) -> str:
    """The validation group of a workload: its engine and its GPU's platform ("llamacpp-cuda")."""
    gpu = workload.gpu
    platform = "metal" if gpu is not None and gpu.kind is GpuKind.APPLE else "cuda"
    if gpu is not None and gpu.slug in calibration()["rocm"]:
        platform = "rocm"
    engine = calibration()["engines"].get(workload.runtime.value, {})
    kind = "train" if workload.is_training else engine.get("alias", workload.runtime.value)
    return f"{kind}-{platform}"


def expected_error(workload: Workload) -> Phrase:
    stats: Mapping[str, Mapping[str, object]] = calibration().get("validation", {})
    group = stats.get(backend(workload))
    if group is None:
        return phrase("speed.error.none")
    return phrase("speed.error", median=f"{group['median']:.0%}".replace("%", " %").replace(" %", "%"),
                  worst=f"{group['worst']:.0%}", rows=group["rows"], backend=backend(workload))
