"""Several GPUs: what the most loaded GPU holds under a parallel layout.

A layout is Megatron's grid, gpus = tp × pp × cp × dp, with expert parallelism carved out of the
data-parallel ranks (ep divides dp), and for training a sharding of the model states over the
data-parallel group: DeepSpeed ZeRO 1/2/3 or PyTorch FSDP (full-shard = ZeRO-3, shard-grad-op =
ZeRO-2, hybrid-shard = ZeRO-3 inside a node of 8), with optimizer (or optimizer and parameter)
offload to host memory.

Each component of the one-GPU breakdown (memory.py) is scaled by what one rank keeps of it:

    weights, gradients, states   tensor by tensor: attention and MLP matrices 1/tp (K and V by
                                 ceil(kv_heads / tp) / kv_heads: heads are replicated when there
                                 are fewer than tp), embedding and head 1/tp (vocabulary-parallel),
                                 experts 1/(tp · ep), norms and routers replicated; the layers of
                                 one pipeline stage; the embedding on the first stage, the head
                                 on the last (a tied head is a second copy there, as Megatron
                                 keeps it); then / the shard group for what ZeRO / FSDP shards
    activations                  the layers of the stage; per layer Korthikanti et al. 2022,
                                 Table 2: (10 + 24/tp) / 34 of the unsharded bytes without
                                 sequence parallelism, 1/tp with it; / cp; the first stage of a
                                 1F1B pipeline holds min(pp, micro-batches) micro-batches in flight,
                                 × (1 + (pp − 1) / (pp · vpp)) interleaved
    logits, the loss gradient    the last stage, vocabulary-parallel: 1/tp
    KV cache                     the layers of the stage, heads as the K and V projections
    overhead                     every GPU pays it; ZeRO-3 / FSDP also gathers the largest layer
                                 (DeepSpeed's estimator: 4 bytes per parameter of the largest module,
                                 here the largest tensor: usually the embedding)
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import functools
import math

from . import formats
from .architecture import ModelSpec
from .errors import ValidationError
from .tensors import Tensor, counted_tensors, layer_of, layer_tensors, model_tensors

NODE_GPUS = 8  # hybrid-shard's shard group, and the ranks whose offloaded states share one host
KORTHIKANTI_REPLICATED = 10  # of 34 bytes per sbh: LayerNorm inputs, dropout masks, sublayer inputs (Table 2)
KORTHIKANTI_TOTAL = 34


class Fsdp(enum.Enum):
    NONE = ""
    FULL_SHARD = "full-shard"
    SHARD_GRAD_OP = "shard-grad-op"
    HYBRID_SHARD = "hybrid-shard"


class Offload(enum.Enum):
    NONE = "none"
    OPTIMIZER = "optimizer"
    OPTIMIZER_PARAMS = "optimizer+params"


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
    degree that divides the heads, pipeline stages for the rest); training, data parallel with
    ZeRO-3 (FSDP full-shard's equivalent)."""
    if gpus <= 1:
        return Layout()
    if training:
        return Layout(dp=gpus, zero=3)
    tp = max(d for d in range(1, gpus + 1) if gpus % d == 0 and model.heads % d == 0)
    return Layout(tp=tp, pp=gpus // tp)


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
            raise ValidationError("ep", layout.ep, f"expert parallelism is carved out of dp ({layout.dp}): must divide it")
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


# ---------------------------------------------------------------- what one rank keeps


def stage_layers(layers: int, pp: int, stage: int) -> range:
    """The layers of pipeline stage `stage` (0-based): an even split, the first stages one more."""
    base, extra = divmod(layers, pp)
    start = stage * base + min(stage, extra)
    return range(start, start + base + (stage < extra))


# How a tensor splits under tensor / expert parallelism (before ZeRO or FSDP sharding).
WHOLE, SPLIT, KV, EXPERT = "whole", "split", "kv", "expert"


def split_kind(tensor: Tensor, model: ModelSpec) -> str:
    """Norms, biases, routers and MLA's down-projections stay whole on every rank; K and V split by
    heads (a head is never split, so fewer heads than ranks are replicated); experts over TP × EP;
    every other matrix 1/TP (Megatron's column / row splits, the embedding and head over the vocabulary)."""
    if len(tensor.shape) < 2 or tensor.role in ("norm", "router", "bias"):
        return WHOLE
    if tensor.role == "expert":
        return EXPERT
    stem = tensor.name.split(".")[2] if tensor.name.startswith("blk.") else ""
    if stem in ("attn_k", "attn_v") and model.kv_heads:
        return KV
    if stem in ("attn_q_a", "attn_kv_a_mqa"):  # MLA's down-projections are replicated
        return WHOLE
    return SPLIT


def split_fraction(kind: str, model: ModelSpec, layout: Layout) -> float:
    if kind == WHOLE:
        return 1.0
    if kind == EXPERT:
        return 1.0 / (layout.tp * layout.ep)
    if kind == KV:
        return math.ceil(model.kv_heads / layout.tp) / model.kv_heads
    return 1.0 / layout.tp


def on_stage(tensor_layer: int | None, role: str, model: ModelSpec, layout: Layout, stage: int,
             held: range | None = None) -> bool:
    """Whether pipeline stage `stage` holds a tensor: its layers (`held`, when the caller has them), the
    embedding on the first stage (and on the last when tied to the head), the head and the final norm on
    the last."""
    last = stage == layout.pp - 1
    if tensor_layer is None:
        return stage == 0 or (last and model.tie_embeddings) if role == "embedding" else last
    return tensor_layer in (held if held is not None else stage_layers(model.layers, layout.pp, stage))


def tensor_share(tensor: Tensor, model: ModelSpec, layout: Layout, stage: int) -> float:
    """The fraction of a tensor one rank of `stage` holds (before ZeRO/FSDP sharding)."""
    if not on_stage(layer_of(tensor.name), tensor.role, model, layout, stage):
        return 0.0
    return split_fraction(split_kind(tensor, model), model, layout)


@dataclasses.dataclass(frozen=True)
class _Sums:
    """The model's tensors summed by what decides their share: outside the layers by (role, split kind);
    inside them by split kind, over all layers, and for a pipeline's stage by counting in its layers
    each of the few distinct layers (a model of thousands of layers has a handful). A layout's shares
    then cost a few dozen operations (the fewest-GPU search tries many layouts)."""

    outside: tuple[tuple[str, str, int, float], ...]  # (role, split kind, parameters, weight bytes)
    distinct: tuple[dict[str, tuple[int, float]], ...]  # the distinct layers' (parameters, bytes) by split kind
    per_layer: tuple[int, ...]  # each layer's index into `distinct`
    totals: dict[str, tuple[int, float]]  # over all layers
    params: int
    bytes: float

    def layers(self, kind: str, held: range) -> tuple[int, float]:
        """(parameters, bytes) of `kind` in the layers `held`."""
        if held.start == 0 and held.stop == len(self.per_layer):
            return self.totals[kind]
        held_layers = self.per_layer[held.start:held.stop]
        numel = size = 0
        for index, sums in enumerate(self.distinct):
            if kind in sums:
                count = held_layers.count(index)
                numel += sums[kind][0] * count
                size += sums[kind][1] * count
        return numel, size


@functools.lru_cache(maxsize=64)
def _sums(model: ModelSpec, weight_format=None, group_size: int = 128) -> _Sums:
    weights = formats.stack(model, weight_format, group_size=group_size, nominal_bits=16)
    outside: dict[tuple[str, str], list[int]] = {}
    for tensor, size in weights.outside:
        entry = outside.setdefault(("embedding" if tensor.role == "embedding" else "other", split_kind(tensor, model)),
                                   [0, 0])
        entry[0] += tensor.numel
        entry[1] += size
    templates = {key: layer_tensors(model, index) for key, index, _ in model.layer_groups}
    distinct: dict[tuple, int] = {}  # layers of a group mostly share their sizes: sum each once
    sums_of: list[dict[str, tuple[int, float]]] = []
    totals: dict[str, tuple[int, float]] = {}
    if weights.by_group is not None:  # every layer of a group alike: count the groups, not the layers
        counts = {key: count for key, _, count in model.layer_groups}
        layer_counts = {(key, sizes): counts[key] for key, sizes in weights.by_group.items()}
    else:
        layer_counts = collections.Counter(weights.layers)
    for layer, count in layer_counts.items():
        key, sizes = layer
        sums: dict[str, list] = {}
        for tensor, size in zip(templates[key], sizes):
            entry = sums.setdefault(split_kind(tensor, model), [0, 0])
            entry[0] += tensor.numel
            entry[1] += size
        distinct[layer] = len(sums_of)
        sums_of.append({kind: tuple(entry) for kind, entry in sums.items()})
        for kind, (numel, size) in sums.items():
            total = totals.get(kind, (0, 0))
            totals[kind] = (total[0] + numel * count, total[1] + size * count)
    return _Sums(outside=tuple((*key, *value) for key, value in outside.items()), distinct=tuple(sums_of),
                 per_layer=_layer_indices(weights, distinct), totals=totals,
                 params=sum(e[0] for e in outside.values()) + sum(t[0] for t in totals.values()),
                 bytes=sum(e[1] for e in outside.values()) + sum(t[1] for t in totals.values()))


def _layer_indices(weights: formats.Stack, distinct: dict[tuple, int]) -> tuple[int, ...]:
    """Each layer's index into _Sums.distinct."""
    if weights.by_group is None:
        return tuple(map(distinct.__getitem__, weights.layers))
    by_key = {key: distinct[key, sizes] for key, sizes in weights.by_group.items()}
    return tuple(map(by_key.__getitem__, weights.keys))


@dataclasses.dataclass(frozen=True)
class Shares:
    """What one rank of a stage keeps of each one-GPU component."""

    weights: float  # of the weight bytes (format-aware)
    params: float  # of the trainable parameters (gradients, master copy, optimizer state)
    layers: float  # of the layers (activations, KV cache layer by layer)
    kv: float  # of the KV cache
    logits: float
    largest_layer_params: int  # ZeRO-3's gather buffer: DeepSpeed's "largest layer", the largest module's parameters


@functools.lru_cache(maxsize=512)
def shares(model: ModelSpec, layout: Layout, stage: int, weight_format=None, group_size: int = 128) -> Shares:
    sums = _sums(model, weight_format, group_size)
    held = stage_layers(model.layers, layout.pp, stage)
    weights = params = 0.0
    for role, kind, numel, size in sums.outside:
        if on_stage(None, role, model, layout, stage):
            fraction = split_fraction(kind, model, layout)
            weights += size * fraction
            params += numel * fraction
    for kind in sums.totals:
        fraction = split_fraction(kind, model, layout)
        numel, size = sums.layers(kind, held)
        weights += size * fraction
        params += numel * fraction
    weights /= sums.bytes or 1
    params /= max(1, sums.params)
    layers = len(stage_layers(model.layers, layout.pp, stage)) / model.layers
    kv_share = math.ceil(model.kv_heads / layout.tp) / model.kv_heads if model.kv_heads and not model.mla else (
        1.0 / layout.tp if not model.mla else 1.0)
    return Shares(weights=weights, params=params, layers=layers, kv=layers * kv_share,
                  logits=1.0 / layout.tp if stage == layout.pp - 1 else 0.0,
                  largest_layer_params=_largest_tensor(model))


@functools.lru_cache(maxsize=64)
def _largest_tensor(model: ModelSpec) -> int:
    """The largest tensor's parameters, from one layer of each kind (tensors.counted_tensors)."""
    return max((t.numel for t, _ in counted_tensors(model)), default=0)


def fsdp_groups(model: ModelSpec, layout: Layout, stage: int) -> tuple[float, float]:
    """FSDP2 wrapping every decoder layer and then the model: the parameters of the root group (what is
    outside the layers) and of the largest layer, as one rank of `stage` holds them unsharded."""
    root, layers = 0.0, {}
    for tensor in model_tensors(model):
        held = tensor.numel * tensor_share(tensor, model, layout, stage)
        index = layer_of(tensor.name)
        if index is None:
            root += held
        else:
            layers[index] = layers.get(index, 0.0) + held
    return root, max(layers.values(), default=0.0)


def activation_share(layout: Layout, stage: int, microbatches: int) -> float:
    """Of one micro-batch's activations over all layers, what stage `stage` holds at its peak,
    before the share of layers: tensor (and sequence) parallel, context parallel, and the
    micro-batches a 1F1B pipeline keeps in flight (stage s holds pp − s of them)."""
    tp = layout.tp
    per_layer = 1.0 / tp if layout.sp or tp == 1 else (KORTHIKANTI_REPLICATED + (KORTHIKANTI_TOTAL - KORTHIKANTI_REPLICATED) / tp) / KORTHIKANTI_TOTAL
    in_flight = min(layout.pp - stage, max(1, microbatches))
    if layout.vpp > 1 and layout.pp > 1:
        in_flight *= 1 + (layout.pp - 1) / (layout.pp * layout.vpp)
    return per_layer / layout.cp * in_flight
