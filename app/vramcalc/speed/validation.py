"""The speed model held to published runs: a published row (tests/data/speed/*.json) as the workload it
measured, the model's prediction for it, and the error each kind of run has (data/speed.json
"validation", written by tools/validate_speed.py and checked by tests/test_speed_validation.py)."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.phrase import Phrase, phrase
from ..sources.gpus import GpuKind
from ..workload import Machine, Workload
from .hardware import calibration


def backend(workload: Workload) -> str:
    """The validation group of a workload: its engine and its GPU's platform ("llamacpp-cuda")."""
    gpu = workload.gpu
    platform = "metal" if gpu is not None and gpu.kind is GpuKind.APPLE else "cuda"
    if gpu is not None and gpu.slug in calibration()["rocm"]:
        platform = "rocm"
    kind = "train" if workload.is_training else workload.runtime.value
    return f"{kind}-{platform}"


def expected_error(workload: Workload) -> Phrase:
    stats: Mapping[str, Mapping[str, object]] = calibration().get("validation", {})
    group = stats.get(backend(workload))
    if group is None:
        return phrase("speed.error.none")
    return phrase("speed.error", median=f"{group['median']:.0%}".replace("%", " %").replace(" %", "%"),
                  worst=f"{group['worst']:.0%}", rows=group["rows"], backend=backend(workload))


def values_of(row: Mapping[str, object]) -> dict[str, str]:
    """The form values of a published run (a row of tests/data/speed/*.json)."""
    values = {"model": str(row["model"]), "precision": str(row["weights"]), "gpu": str(row["gpu"]),
              "gpus": str(row.get("gpus", 1))}
    engine = str(row.get("engine", "llama.cpp"))
    values["runtime"] = {"llama.cpp": "llamacpp", "vllm": "vllm", "transformers": "transformers"}.get(engine, engine)
    prompt, output = int(str(row.get("prompt_tokens") or 0)), int(str(row.get("output_tokens") or 0))
    values["prompt_tokens"] = str(max(1, prompt))
    values["output_tokens"] = str(max(1, output))
    values["seq"] = str(max(2, prompt + output))
    batch = str(row.get("batch", 1))
    values["parallel" if values["runtime"] == "llamacpp" else "batch"] = batch
    return values


MACHINE = Machine()
