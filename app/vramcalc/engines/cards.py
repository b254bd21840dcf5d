"""Formats a card cannot run on an engine: refused, naming the field, or run as the engine falls back to them.

Each engine lists its rules (`Engine.card_rules`), read from its own source: the format family a rule is about
(`family`), the cards that run it (`runs`, on the card's capability as torch.cuda.get_device_capability() gives
it: sources/gpus.py GpuSpec.capability), and what happens elsewhere: a refusal (the engine stops at start) or a
fallback format whose bytes the answer then counts (`Workload.asked_precision` keeps the format asked). A card of
unknown kind (a typed size) runs everything. Sources and what runs everywhere: docs/accuracy.md, "Formats a card
cannot run".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..formats.weights import FP4_EXPERTS, WeightFormat
from ..sources.gpus import GpuKind, GpuSpec
from ..workload import Workload

_FAMILIES = {"fp8": "fp8", "fp8-block": "fp8", "mxfp4": "mxfp4", "nvfp4": "nvfp4"}


@dataclasses.dataclass(frozen=True)
class CardRule:
    key: str  # the field refused: precision (the weights) or kv_precision
    family: str  # fp8, mxfp4, nvfp4: the weight formats (and a checkpoint's native one) of that kind; or a KV format
    runs: Callable[[GpuSpec], bool]  # the cards that run it
    cards: str  # those cards, in words
    source: str  # where the engine decides, in words
    fallback: Precision | None = None  # what the engine runs instead on the others (None: it refuses)
    note: str = ""  # the message key that says so (with a fallback)
    on_load: bool = False  # only weights quantised as a 16-bit checkpoint loads, not a checkpoint published so

    def applies(self, workload: Workload) -> bool:
        if self.key == "precision":
            family = weight_family(workload)
            return family == self.family and not (self.on_load and published_family(workload) == family)
        kv = (workload.kv_precision, workload.kv_precision_k, workload.kv_precision_v)
        return any(p is not None and p.value == self.family for p in kv)


def weight_family(workload: Workload) -> str:
    """The kind of the weights' format: fp8 (fp8, fp8-block, an FP8 checkpoint as published), mxfp4 (gpt-oss's
    checkpoint too), nvfp4; else its name (the nominal precisions, GGUF types, GPTQ, AWQ, bitsandbytes)."""
    precision = workload.precision
    if isinstance(precision, WeightFormat) and precision.kind == "native":
        return published_family(workload)
    return _FAMILIES.get(precision.value, precision.value)


def published_family(workload: Workload) -> str:
    """The kind of the checkpoint's own format (as `weight_family`), "native" for a 16-bit one: the engine loads
    a checkpoint already in the format asked (transformers' `pre_quantized`) rather than quantising it."""
    native = workload.model.native_format
    if native.startswith("MXFP4"):
        return "mxfp4"
    if native.startswith("FP8"):
        return "fp8"
    return "fp4_fp8" if native.startswith(FP4_EXPERTS) else "native"


def capability_at_least(major: int, minor: int, *, amd: bool = True) -> Callable[[GpuSpec], bool]:
    """Cards whose capability is (major, minor) or more; a Mac fails; a typed size passes (unknown). An AMD card
    compares its gfx target's digits, as torch on ROCm gives them (every target ROCm runs is 9.0 or more); with
    `amd` False it fails (a kernel for NVIDIA's hardware alone)."""
    def runs(gpu: GpuSpec) -> bool:
        if gpu.kind is GpuKind.APPLE or (not amd and gpu.gfx is not None):
            return False
        capability = gpu.capability
        return capability is None or capability >= (major, minor)
    return runs


def not_a_mac(gpu: GpuSpec) -> bool:
    return gpu.kind is not GpuKind.APPLE


def cards_of(workload: Workload, gpu: GpuSpec | None = None) -> tuple[GpuSpec, ...]:
    """`gpu` alone, else the workload's own cards (its mixed cards, or its one kind)."""
    if gpu is not None:
        return (gpu,)
    return workload.cards or ((workload.gpu,) if workload.gpu is not None else ())


def on_card(workload: Workload, gpu: GpuSpec | None = None) -> Workload:
    """The workload as its engine runs it on `gpu` (None: its own cards): the format asked where the card runs
    it, the engine's fallback where it falls back (`asked_precision` set), ValidationError where it refuses."""
    from . import engine_for  # engines/__init__ imports the engines, which import this module

    asked = workload.asked_precision
    run = workload if asked is None else workload.but(precision=asked, asked_precision=None)
    for rule in engine_for(workload.runtime).card_rules:
        if not rule.applies(run):
            continue
        for card in cards_of(workload, gpu):
            if rule.runs(card):
                continue
            if rule.fallback is None:
                value = run.precision.value if rule.key == "precision" else rule.family
                if value == "native":  # auto or native: the format, not a word not typed
                    value = f"{rule.family} (the checkpoint as published)"
                what = f"{rule.family} weights" if rule.key == "precision" else f"an {rule.family} KV cache"
                raise ValidationError(rule.key, value, f"{workload.runtime.value} cannot run {what} on the "
                                      f"{card.display_name} ({rule.source}); it runs them on {rule.cards}")
            run = run.but(precision=rule.fallback, asked_precision=run.precision)
            break
    return run


def fallback_rule(workload: Workload) -> CardRule | None:
    """The rule that made the engine run another format than the one asked, if one did."""
    if workload.asked_precision is None:
        return None
    from . import engine_for

    asked = workload.but(precision=workload.asked_precision, asked_precision=None)
    return next((rule for rule in engine_for(workload.runtime).card_rules
                 if rule.fallback is not None and rule.applies(asked)), None)
