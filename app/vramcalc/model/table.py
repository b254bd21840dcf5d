"""The walk over a model's tensors: each kind of layer once with how many layers repeat it, and the
parameter count (total, and active for one token of a mixture of experts)."""

from __future__ import annotations

import functools

from .families.decoder.spec import ModelSpec
from .families.decoder.tensors import layer_tensors, outside_tensors
from .tensor import Counted, Role, Tensor


@functools.lru_cache(maxsize=64)
def counted_tensors(spec: ModelSpec) -> Counted:
    """The tensors outside the layers once each, and one layer of each group (ModelSpec.layer_groups) with
    that group's count: sums over tensors whose rule reads only shapes, roles and names' stems cost one
    layer of each kind, however deep the model."""
    first, last = outside_tensors(spec)
    layers = [(t, count) for _, index, count in spec.layer_groups for t in layer_tensors(spec, index)]
    return (*((t, 1) for t in first), *layers, *((t, 1) for t in last))


def count_params(spec: ModelSpec, *, active: bool) -> int:
    """Parameters of the model; with `active`, routed experts count per_token of experts. Each kind
    of layer (counted_tensors) is counted once: the solvers ask this of models thousands of layers deep."""

    moe = spec.moe

    def numel(tensor: Tensor) -> int:
        if active and moe is not None and tensor.role is Role.EXPERT:  # per expert slot (LongCat's zero experts
            return tensor.numel // tensor.shape[0] * moe.per_token  # have gate/up slots): top-k all real, the most
        return tensor.numel

    return sum(numel(t) * count for t, count in counted_tensors(spec))


@functools.lru_cache(maxsize=4096)  # the solvers ask for it hundreds of times per update
def param_count(spec: ModelSpec) -> int:
    """Parameters of the model: the sum of its tensors' shapes, or the custom model's given count."""
    if spec.params_override is not None:
        return spec.params_override
    return count_params(spec, active=False)


@functools.lru_cache(maxsize=4096)
def active_param_count(spec: ModelSpec) -> int:
    """Parameters used for one token: all of a dense model; for MoE the routed experts a token uses
    (`per_token` of `experts`), the shared experts and everything else."""
    if spec.params_override is not None or not spec.is_moe:
        return param_count(spec)
    return count_params(spec, active=True)
