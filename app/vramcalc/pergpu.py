"""The most loaded GPU of a layout: the one-GPU breakdown's phases, each component scaled by what
one rank keeps of it (parallel.py), for the first and the last pipeline stage; the larger is the
answer. Offloaded states move to host memory."""

from __future__ import annotations

import dataclasses

from . import parallel
from .formats import WeightFormat
from .memory import Breakdown
from .parallel import Layout, Offload
from .workload import resolve_layout

STATES = ("gradients", "optimizer", "master_weights")


@dataclasses.dataclass(frozen=True, kw_only=True)
class PerGpu:
    layout: Layout
    rank: str  # which rank this is: "stage 1 of 4" or "every GPU"
    components: dict[str, int]  # live on that GPU at its peak, overhead included
    peak_phase: str
    stages: dict[str, int]  # the first and last stage's totals when they differ
    host_bytes: int  # offloaded states of the GPUs of one node (up to 8)
    gather_bytes: int  # ZeRO-3 / FSDP's gathered layer, inside the weights

    @property
    def total_bytes(self) -> int:
        return sum(self.components.values())


def per_gpu(breakdown: Breakdown, gpus: int) -> PerGpu:
    workload = breakdown.workload
    layout = resolve_layout(workload, gpus)
    phases = breakdown.phases or {breakdown.peak_phase: {
        c.key: c.bytes for c in breakdown.components if c.key != "overhead"}}
    overhead = breakdown.bytes_of("overhead")
    if layout.gpus == 1:
        live = dict(phases[breakdown.peak_phase])
        return PerGpu(layout=layout, rank="every GPU", components={**live, "overhead": overhead},
                      peak_phase=breakdown.peak_phase, stages={}, host_bytes=0, gather_bytes=0)
    model = workload.model
    fmt = workload.precision if isinstance(workload.precision, WeightFormat) else None
    n, stage_of_zero = layout.shard_group, layout.stage
    offload_states = layout.offload is not Offload.NONE
    offload_params = layout.offload is Offload.OPTIMIZER_PARAMS
    results = []
    for stage in sorted({0, layout.pp - 1}):
        share = parallel.shares(model, layout, stage, fmt, workload.group_size)
        acts = share.layers * parallel.activation_share(layout, stage, workload.grad_accum)
        scale = {
            "weights": 0.0 if offload_params else share.weights / (n if stage_of_zero == 3 else 1),
            "gradients": 0.0 if offload_states else share.params / (n if stage_of_zero >= 2 else 1),
            "optimizer": 0.0 if offload_states else share.params / (n if stage_of_zero >= 1 else 1),
            "master_weights": 0.0 if offload_states else share.params / (n if stage_of_zero >= 1 else 1),
            "kv_cache": share.kv, "activations": acts, "logits": share.logits,
        }
        gather = 4 * share.largest_layer_params if stage_of_zero == 3 and workload.is_training else 0
        best_name, best_live = "", {}
        for name, live in phases.items():
            temporaries_share = {"loss": share.logits, "optimizer": 0.0 if offload_states else scale["optimizer"]}.get(
                name, acts if workload.is_training else share.kv)
            scaled = {key: round(value * scale.get(key, temporaries_share)) for key, value in live.items()}
            scaled["weights"] = scaled.get("weights", 0) + gather
            if sum(scaled.values()) > sum(best_live.values()) or not best_name:
                best_name, best_live = name, scaled
        host = 0
        if offload_states:
            host += round(sum(breakdown.size_of(k) for k in STATES) * share.params / n)
        if offload_params:
            host += round(breakdown.size_of("weights") * share.weights / n)
        label = f"stage {stage + 1} of {layout.pp}" if layout.pp > 1 else "every GPU"
        results.append((label, best_name, {**best_live, "overhead": overhead}, host, gather))
    label, phase, components, host, gather = max(results, key=lambda r: sum(r[2].values()))
    ranks_per_node = min(layout.gpus, parallel.NODE_GPUS)
    return PerGpu(layout=layout, rank=label, components=components, peak_phase=phase,
                  stages={r[0]: sum(r[2].values()) for r in results} if len(results) > 1 else {},
                  host_bytes=host * ranks_per_node, gather_bytes=gather)
