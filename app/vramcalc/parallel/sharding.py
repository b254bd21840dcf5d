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
import functools
import math
from collections.abc import Mapping

from ..formats.weights import LayerBytes, LayerKey, WeightFormat, stack
from ..model.families.decoder.spec import ModelSpec
from ..model.families.decoder.tensors import layer_tensors, model_tensors
from ..model.table import counted_tensors
from ..model.tensor import Role, Tensor, layer_of, stem
from .layout import Layout, stage_layers

KORTHIKANTI_REPLICATED = 10  # of 34 bytes per sbh: LayerNorm inputs, dropout masks, sublayer inputs (Table 2)
KORTHIKANTI_TOTAL = 34


# How a tensor splits under tensor / expert parallelism (before ZeRO or FSDP sharding).
WHOLE, SPLIT, KV, EXPERT = "whole", "split", "kv", "expert"


def split_kind(tensor: Tensor, model: ModelSpec) -> str:
    """Norms, biases, routers and MLA's down-projections stay whole on every rank; K and V split by
    heads (a head is never split, so fewer heads than ranks are replicated); experts over TP × EP;
    every other matrix 1/TP (Megatron's column / row splits, the embedding and head over the vocabulary)."""
    if len(tensor.shape) < 2 or tensor.role in (Role.NORM, Role.ROUTER, Role.BIAS):
        return WHOLE
    if tensor.role is Role.EXPERT:
        return EXPERT
    name = stem(tensor.name)
    if name in ("attn_k", "attn_v") and model.kv_heads:
        return KV
    if name in ("attn_q_a", "attn_kv_a_mqa"):  # MLA's down-projections are replicated
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


def on_stage(tensor_layer: int | None, embedding: bool, model: ModelSpec, layout: Layout, stage: int,
             held: range | None = None) -> bool:
    """Whether pipeline stage `stage` holds a tensor: its layers (`held`, when the caller has them), the
    embedding on the first stage (and on the last when tied to the head), the head and the final norm on
    the last."""
    last = stage == layout.pp - 1
    if tensor_layer is None:
        return stage == 0 or (last and model.tie_embeddings) if embedding else last
    return tensor_layer in (held if held is not None else stage_layers(model.layers, layout.pp, stage))


def tensor_share(tensor: Tensor, model: ModelSpec, layout: Layout, stage: int) -> float:
    """The fraction of a tensor one rank of `stage` holds (before ZeRO/FSDP sharding)."""
    if not on_stage(layer_of(tensor.name), tensor.role is Role.EMBEDDING, model, layout, stage):
        return 0.0
    return split_fraction(split_kind(tensor, model), model, layout)


@dataclasses.dataclass(frozen=True)
class _Sums:
    """The model's tensors summed by what decides their share: outside the layers by (role, split kind);
    inside them by split kind, over all layers, and for a pipeline's stage by counting in its layers
    each of the few distinct layers (a model of thousands of layers has a handful). A layout's shares
    then cost a few dozen operations (the fewest-GPU search tries many layouts)."""

    outside: tuple[tuple[bool, str, int, float], ...]  # (embedding or not, split kind, parameters, weight bytes)
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
        numel = 0
        size: float = 0
        for index, sums in enumerate(self.distinct):
            if kind in sums:
                count = held_layers.count(index)
                numel += sums[kind][0] * count
                size += sums[kind][1] * count
        return numel, size


_Layer = tuple[LayerKey, tuple[float, ...]]  # a layer's group and its tensors' bytes (LayerBytes.layers)


@functools.lru_cache(maxsize=64)
def _sums(model: ModelSpec, weight_format: WeightFormat | None = None, group_size: int = 128) -> _Sums:
    weights = stack(model, weight_format, group_size=group_size, nominal_bits=16)
    outside: dict[tuple[bool, str], tuple[int, float]] = {}  # (parameters, bytes) by (embedding, split kind)
    for tensor, size in weights.outside:
        where = (tensor.role is Role.EMBEDDING, split_kind(tensor, model))
        numel, nbytes = outside.get(where, (0, 0))
        outside[where] = (numel + tensor.numel, nbytes + size)
    templates = {key: layer_tensors(model, index) for key, index, _ in model.layer_groups}
    distinct: dict[_Layer, int] = {}  # layers of a group mostly share their sizes: sum each once
    sums_of: list[dict[str, tuple[int, float]]] = []
    totals: dict[str, tuple[int, float]] = {}
    layer_counts: Mapping[_Layer, int]
    if weights.by_group is not None:  # every layer of a group alike: count the groups, not the layers
        counts = {key: count for key, _, count in model.layer_groups}
        layer_counts = {(key, sizes): counts[key] for key, sizes in weights.by_group.items()}
    else:
        layer_counts = collections.Counter(weights.layers)
    for layer, count in layer_counts.items():
        key, sizes = layer
        sums: dict[str, tuple[int, float]] = {}  # (parameters, bytes) by split kind
        for tensor, size in zip(templates[key], sizes, strict=True):
            kind = split_kind(tensor, model)
            numel, nbytes = sums.get(kind, (0, 0))
            sums[kind] = (numel + tensor.numel, nbytes + size)
        distinct[layer] = len(sums_of)
        sums_of.append(sums)
        for kind, (numel, size) in sums.items():
            total = totals.get(kind, (0, 0))
            totals[kind] = (total[0] + numel * count, total[1] + size * count)
    return _Sums(outside=tuple((embedding, kind, numel, nbytes) for (embedding, kind), (numel, nbytes)
                               in outside.items()), distinct=tuple(sums_of),
                 per_layer=_layer_indices(weights, distinct), totals=totals,
                 params=sum(e[0] for e in outside.values()) + sum(t[0] for t in totals.values()),
                 bytes=sum(e[1] for e in outside.values()) + sum(t[1] for t in totals.values()))


def _layer_indices(weights: LayerBytes, distinct: dict[_Layer, int]) -> tuple[int, ...]:
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
def shares(model: ModelSpec, layout: Layout, stage: int, weight_format: WeightFormat | None = None,
           group_size: int = 128) -> Shares:
    sums = _sums(model, weight_format, group_size)
    held = stage_layers(model.layers, layout.pp, stage)
    weights = params = 0.0
    for embedding, kind, numel, size in sums.outside:
        if on_stage(None, embedding, model, layout, stage):
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
    kv = kv_share(model, layout.tp)
    return Shares(weights=weights, params=params, layers=layers, kv=layers * kv,
                  logits=1.0 / layout.tp if stage == layout.pp - 1 else 0.0,
                  largest_layer_params=_largest_tensor(model))


def kv_share(model: ModelSpec, tp: int) -> float:
    """Each rank's share of the KV cache: its KV heads, ceil(heads / tp) of them (heads fewer than the ranks
    are replicated); MLA's latent is whole on every rank. Where layer kinds have their own KV heads (Gemma 4's
    and MiMo's full layers), the largest share of any kind, so that no rank is charged less than it holds."""
    if model.mla is not None:
        return 1.0
    heads = {model.kv_heads_of(kind) for kind, _ in model.kind_counts() if kind.caches_tokens} or {model.kv_heads}
    return max(math.ceil(h / tp) / h if h else 1.0 / tp for h in heads)


@functools.lru_cache(maxsize=64)
def _largest_tensor(model: ModelSpec) -> int:
    """The largest tensor's parameters, from one layer of each kind (tensors.counted_tensors)."""
    return max((t.numel for t, _ in counted_tensors(model)), default=0)


def fsdp_groups(model: ModelSpec, layout: Layout, stage: int) -> tuple[float, float]:
    """FSDP2 wrapping every decoder layer and then the model: the parameters of the root group (what is
    outside the layers) and of the largest layer, as one rank of `stage` holds them unsharded."""
    root = 0.0
    layers: dict[int, float] = {}
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
    per_layer = 1.0 / tp if layout.sp or tp == 1 else (
        KORTHIKANTI_REPLICATED + (KORTHIKANTI_TOTAL - KORTHIKANTI_REPLICATED) / tp) / KORTHIKANTI_TOTAL
    in_flight: float = min(layout.pp - stage, max(1, microbatches))
    if layout.vpp > 1 and layout.pp > 1:
        in_flight *= 1 + (layout.pp - 1) / (layout.pp * layout.vpp)
    return per_layer / layout.cp * in_flight
