"""A parallel layout: Megatron's grid (gpus = tp × pp × cp × dp, ep within dp), ZeRO/FSDP sharding and
offload, the mode's default layout and the checks a layout must pass."""

from __future__ import annotations

import dataclasses
import math

from ..core.choices import Fsdp, Offload
from ..core.errors import ValidationError
from ..model.families.decoder.spec import ModelSpec

NODE_GPUS = 8  # hybrid-shard's shard group, and the ranks whose offloaded states share one host


@dataclasses.dataclass(frozen=True)
class Layout:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    ep: int = 1
    cp: int = 1
    sp: bool = False
    vpp: int = 1
    zero: int = 0
    fsdp: Fsdp = Fsdp.NONE
    offload: Offload = Offload.NONE

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.cp * self.dp

    @property
    def stage(self) -> int:
        """The ZeRO stage the sharding amounts to (FSDP's full-shard is ZeRO-3, shard-grad-op ZeRO-2)."""
        if self.fsdp in (Fsdp.FULL_SHARD, Fsdp.HYBRID_SHARD):
            return 3
        if self.fsdp is Fsdp.SHARD_GRAD_OP:
            return 2
        return self.zero

    @property
    def shard_group(self) -> int:
        """The data-parallel ranks the model states are sharded over."""
        if self.fsdp is Fsdp.HYBRID_SHARD:
            return max(1, min(self.dp, NODE_GPUS // max(1, self.tp * self.pp * self.cp)))
        return self.dp

    def describe(self) -> str:
        parts = [f"{name.upper()} {value}" for name, value in (("tp", self.tp), ("pp", self.pp), ("cp", self.cp),
                                                               ("dp", self.dp), ("ep", self.ep)) if value > 1]
        if self.sp:
            parts.append("SP")
        if self.vpp > 1:
            parts.append(f"VPP {self.vpp}")
        if self.fsdp is not Fsdp.NONE:
            parts.append(f"FSDP {self.fsdp.value}")
        elif self.zero:
            parts.append(f"ZeRO-{self.zero}")
        if self.offload is not Offload.NONE:
            parts.append(f"offload {self.offload.value}")
        return " × ".join(parts) if parts else "one GPU"


def default_layout(model: ModelSpec, gpus: int, *, training: bool) -> Layout:
    """The layout a link without one gets: inference, tensor parallel within the GPUs (the largest
    degree that divides the heads), pipeline stages for the rest (at most one per layer: the largest
    such degree that divides it) and data-parallel replicas beyond; training, data parallel with
    ZeRO-3 (FSDP full-shard's equivalent). It passes `check`, as a layout the user names must."""
    if gpus <= 1:
        return Layout()
    if training:
        return Layout(dp=gpus, zero=3)
    tp = max(d for d in range(1, min(gpus, model.heads) + 1) if gpus % d == 0 and model.heads % d == 0)  # d | heads
    rest = gpus // tp
    pp = max(d for d in range(1, min(rest, model.layers) + 1) if rest % d == 0)
    return Layout(tp=tp, pp=pp, dp=rest // pp)


def check(layout: Layout, model: ModelSpec, *, training: bool, gpus: int | None = None) -> None:
    """Raise on a layout the model cannot run (with `gpus`, also on one that does not multiply to it)."""
    for name in ("tp", "pp", "dp", "ep", "cp", "vpp"):
        if getattr(layout, name) < 1:
            raise ValidationError(name, getattr(layout, name), "must be at least 1")
    if gpus is not None and layout.gpus != gpus:
        raise ValidationError("gpus", gpus, f"the layout needs tp × pp × cp × dp = {layout.tp} × {layout.pp} × "
                                            f"{layout.cp} × {layout.dp} = {layout.gpus} GPUs")
    if model.heads % layout.tp:
        raise ValidationError("tp", layout.tp, f"must divide the {model.heads} attention heads")
    if layout.pp > model.layers:
        raise ValidationError("pp", layout.pp, f"more pipeline stages than the {model.layers} layers")
    if layout.vpp > 1 and (layout.pp == 1 or model.layers % (layout.pp * layout.vpp)):
        raise ValidationError("vpp", layout.vpp, "interleaving needs pp > 1 and layers divisible by pp × vpp")
    if layout.ep > 1:
        if model.moe is None:
            raise ValidationError("ep", layout.ep, f"{model.display_name} has no experts")
        if model.moe.experts % layout.ep:
            raise ValidationError("ep", layout.ep, f"must divide the {model.moe.experts} experts")
        if gpus is not None and layout.dp % layout.ep:
            raise ValidationError("ep", layout.ep,
                                  f"expert parallelism is carved out of dp ({layout.dp}): must divide it")
    if layout.zero not in (0, 1, 2, 3):
        raise ValidationError("zero", layout.zero, "ZeRO stages are 0, 1, 2 and 3")
    if layout.zero and layout.fsdp is not Fsdp.NONE:
        raise ValidationError("fsdp", layout.fsdp.value, "choose ZeRO or FSDP, not both")
    if not training:
        for name, unset in (("zero", 0), ("fsdp", Fsdp.NONE), ("offload", Offload.NONE), ("cp", 1)):
            if getattr(layout, name) != unset:
                value = getattr(layout, name)
                raise ValidationError(name, getattr(value, "value", value), "applies to training only")
    if layout.offload is Offload.OPTIMIZER_PARAMS and layout.stage != 3:
        raise ValidationError("offload", layout.offload.value, "offloading parameters needs ZeRO-3 or FSDP full-shard")


def seq_multiple(layout: Layout) -> int:
    """The training sequences a layout runs are multiples of this (1: any length). Megatron-LM splits each
    sequence into 2 × cp chunks and gives CP rank r chunks r and 2·cp − 1 − r, so that causal attention's work is
    even (megatron/training/arguments.py asserts seq_length % (2 × context_parallel_size) == 0; PyTorch's
    context_parallel balances the same 2 × cp chunks). With sequence parallelism the embedding's output, a CP
    rank's seq / cp tokens, is scattered over the tp ranks (tensor_parallel/mappings.py, _split_along_first_dim,
    asserts tp divides it)."""
    chunks = 2 * layout.cp if layout.cp > 1 else 1
    return math.lcm(chunks, layout.cp * layout.tp) if layout.sp and layout.tp > 1 else chunks


def check_seq(layout: Layout, seq: int, *, media: int = 0, media_name: str = "images'", shortest: int = 1,
              longest: int | None = None) -> None:
    """Raise, naming `seq`, on a training sequence `layout` cannot split (`seq_multiple`). `seq` counts the
    `media_name` `media` tokens, which the seq field does not: the nearest lengths offered are the field's,
    from `shortest` to `longest` (the total's bound)."""
    step = seq_multiple(layout)
    if seq % step == 0:
        return
    if layout.cp > 1 and step == 2 * layout.cp:
        why = f"context parallelism splits each sequence into 2 × cp = {step} chunks (Megatron-LM's load balance)"
    elif layout.cp > 1:
        why = (f"context parallelism splits each sequence into 2 × cp = {2 * layout.cp} chunks (Megatron-LM's load "
               f"balance) and sequence parallelism each rank's seq / cp = seq / {layout.cp} tokens over the "
               f"tp = {layout.tp} ranks")
    else:
        why = f"sequence parallelism splits each sequence over the tp = {layout.tp} ranks (Megatron-LM)"
    counted = f" with the {media_name} {media:,} tokens" if media else ""
    below, above = seq // step * step - media, (seq // step + 1) * step - media
    nearest = [f"{value:,}" for value in (below, above)
               if value >= shortest and (longest is None or value + media <= longest)]
    offer = f"; the nearest are {' and '.join(nearest)}" if len(nearest) == 2 else (
        f"; the nearest is {nearest[0]}" if nearest else "")
    raise ValidationError("seq", seq - media, f"{why}: the sequence{counted} must be a multiple of {step}{offer}")


# ---------------------------------------------------------------- what one rank keeps


def stage_layers(layers: int, pp: int, stage: int) -> range:
    """The layers of pipeline stage `stage` (0-based): an even split, the first stages one more."""
    base, extra = divmod(layers, pp)
    start = stage * base + min(stage, extra)
    return range(start, start + base + (stage < extra))
