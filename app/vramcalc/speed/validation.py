"""The error each kind of run has against published runs (data/speed.json "validation", written by
tools/validate_speed.py from tests/data/speed/ and checked by tests/test_speed.py; GRPO's "trl-grpo" and the
preference trainers' "trl-pref" by tools/validate_trl_speed.py --write, checked by tests/test_trl_speed.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.choices import Framework, Objective
from ..core.phrase import Phrase, join, phrase
from ..workload import Workload
from .hardware import Platform, calibration, memory_of, platform_of

# TRL's offline preference trainers: no rollout, the step is the trained pairs' forward and backward (and the
# reference's forwards), so their published runs speak for one another (tools/validate_trl_speed.py "trl-pref")
PREFERENCE = (Objective.DPO, Objective.ORPO, Objective.KTO)
# the Hugging Face Trainer (axolotl runs it): the training rate is fitted to torchtune's compiled runs, and the
# Trainer's own published runs ("trl-sft", tools/validate_trl_speed.py) are too few to fit one of its own
TRAINER = (Framework.TRAINER, Framework.AXOLOTL)


def backend(workload: Workload) -> str:
    """The validation group of a workload: its engine and its GPU's platform ("llamacpp-cuda")."""
    platform = Platform.CUDA if workload.gpu is None else platform_of(workload.gpu)
    engine = calibration()["engines"].get(workload.runtime.value, {})
    kind = "train" if workload.is_training else engine.get("alias", workload.runtime.value)
    return f"{kind}-{platform.value}"


def expected_error(workload: Workload, gpus: int = 1) -> Phrase:
    """The error line for a run on `gpus` GPUs."""
    stats: Mapping[str, Mapping[str, Any]] = calibration().get("validation", {})
    if workload.objective is Objective.GRPO and "trl-grpo" in stats:  # tools/validate_trl_speed.py --write
        grpo = stats["trl-grpo"]
        return phrase("speed.error.grpo", median=f"{grpo['median']:.0%}", worst=f"{grpo['worst']:.0%}",
                      rows=grpo["rows"])
    preference = stats.get("trl-pref")
    if workload.objective in PREFERENCE and preference:  # every run slower than predicted: by how much
        return phrase("speed.error.preference", rows=preference["rows"],
                      objectives=" / ".join(o.upper() for o in preference["objectives"]),
                      median=f"{preference['median']:.0%}", worst=f"{preference['worst']:.0%}",
                      low=f"{preference['low']:.1f}", high=f"{preference['high']:.1f}")
    if workload.objective is not Objective.SFT:
        return phrase("speed.error.objective", objective=workload.objective.value.upper())
    group = stats.get(backend(workload))
    if group is None:  # the engine's runs on another platform (transformers: CUDA's) do not speak for this one
        engine = backend(workload).rsplit("-", 1)[0]
        checked = sorted(name for name in stats if name.rsplit("-", 1)[0] == engine)
        if checked:
            return phrase("speed.error.platform", backend=backend(workload), checked=", ".join(checked))
        return phrase("speed.error.none")
    numbers = {"median": f"{group['median']:.0%}", "worst": f"{group['worst']:.0%}", "rows": group["rows"],
               "backend": backend(workload)}
    kinds = group.get("memory", ())  # the kinds of card its runs were on (vLLM on ROCm: MI300X alone)
    if kinds and workload.gpu is not None and memory_of(workload.gpu).value not in kinds:
        return phrase("speed.error.other_cards", **numbers,
                      kinds=join(" / ", (phrase(f"speed.memory.{kind}") for kind in kinds)))
    counts = group.get("gpus", ())  # the GPU counts its runs used (vLLM on ROCm: 8 MI300X alone)
    if counts and gpus < min(counts):  # a fixed cost fitted where 8 GPUs share each step does not speak for one
        return phrase("speed.error.fewer_gpus", **numbers, least=min(counts))
    trainer = stats.get("trl-sft")
    if workload.is_training and workload.framework in TRAINER and trainer and trainer["low"] > 1:
        return phrase("speed.error.trainer", **numbers, trainer_rows=trainer["rows"], low=f"{trainer['low']:.1f}",
                      high=f"{trainer['high']:.1f}")
    return phrase("speed.error", **numbers)
