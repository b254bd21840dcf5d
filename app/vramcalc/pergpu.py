"""The most loaded GPU of a layout: the one-GPU breakdown's phases, each component scaled by what
one rank keeps of it (parallel.py), for the first and the last pipeline stage; the larger is the
answer. Offloaded states move to host memory.

vLLM keeps its profiling run's activation peak whole on every rank (the sampler's buffers dominate
it: 1.26 GiB at TP 1 and TP 2 in the same log, engines.md §2d rows 1-2), pays NCCL's buffers once
there is more than one GPU, and sizes its KV pool on each GPU from what that GPU has left."""

from __future__ import annotations

import dataclasses
import functools

from . import engines, parallel
from .engines import Runtime
from .formats import WeightFormat
from .memory import Breakdown, estimate
from .parallel import Layout, Offload
from .workload import Workload, resolve_layout

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
    stage: int = 0  # the 0-based pipeline stage of this rank
    engine: dict[str, object] = dataclasses.field(default_factory=dict)  # vLLM: this GPU's KV pool

    @property
    def runs(self) -> bool:
        """Whether the engine starts at all: vLLM needs the requested sequences within its pool."""
        return self.engine.get("kv_pool_bytes", self.components.get("kv_cache", 0)) >= self.components.get("kv_cache", 0)

    @property
    def total_bytes(self) -> int:
        return sum(self.components.values())


@functools.lru_cache(maxsize=2048)
def most_loaded(workload: Workload, gpus: int) -> PerGpu:
    """per_gpu(estimate(workload), gpus), remembered: within an update the solvers, the charts and the
    verdict ask for the same workloads, and across updates most of them come back (another card or
    headroom changes none; another batch leaves the batch curve as it was)."""
    return per_gpu(estimate(workload), gpus)


def per_gpu(breakdown: Breakdown, gpus: int) -> PerGpu:
    workload = breakdown.workload
    layout = resolve_layout(workload, gpus)
    phases = breakdown.phases or {breakdown.peak_phase: {
        c.key: c.bytes for c in breakdown.components if c.key != "overhead"}}
    overhead = breakdown.bytes_of("overhead")
    vllm = workload.runtime is Runtime.VLLM and not workload.is_training
    if layout.gpus == 1 and layout.offload is Offload.NONE:  # ZeRO-Offload on one GPU still moves states out
        live = dict(phases[breakdown.peak_phase])
        engine = {k: breakdown.runtime[k] for k in ("kv_pool_bytes", "kv_tokens", "max_concurrency")} if vllm else {}
        return PerGpu(layout=layout, rank="every GPU", components={**live, "overhead": overhead},
                      peak_phase=breakdown.peak_phase, stages={}, host_bytes=0, gather_bytes=0, engine=engine)
    if vllm:
        overhead += engines.VLLM_TP_COMMUNICATION
    model = workload.model
    fmt = workload.precision if isinstance(workload.precision, WeightFormat) else None
    n, stage_of_zero = layout.shard_group, layout.stage
    offload_states = layout.offload is not Offload.NONE
    offload_params = layout.offload is Offload.OPTIMIZER_PARAMS
    results = []
    for stage in sorted({0, layout.pp - 1}):
        share = parallel.shares(model, layout, stage, fmt, workload.group_size)
        acts = share.layers * parallel.activation_share(layout, stage, workload.grad_accum)
        fsdp_shards_weights = layout.fsdp is not parallel.Fsdp.NONE and workload.is_training
        scale = {
            "weights": 0.0 if offload_params else share.weights / (n if stage_of_zero == 3 or fsdp_shards_weights else 1),
            "gradients": 0.0 if offload_states else share.params / (n if stage_of_zero >= 2 else 1),
            "optimizer": 0.0 if offload_states else share.params / (n if stage_of_zero >= 1 else 1),
            "master_weights": 0.0 if offload_states else share.params / (n if stage_of_zero >= 1 else 1),
            "kv_cache": share.kv, "activations": 1.0 if vllm else acts, "logits": share.logits,
        }
        gather = _gathered(breakdown, layout, stage, share) if workload.is_training else 0
        # DDP's reducer keeps flat gradient buckets, as large as the gradients, from its construction on
        # (measured with gloo: tests/test_golden_parallel.py), so they are live in every phase.
        buckets = round(breakdown.size_of("gradients") * share.params) if (
            workload.is_training and layout.dp > 1 and stage_of_zero == 0 and not offload_states) else 0
        best_name, best_live = "", {}
        for name, live in phases.items():
            temporaries_share = {"loss": share.logits, "optimizer": 0.0 if offload_states else scale["optimizer"]}.get(
                name, acts if workload.is_training else share.kv)
            scaled = {key: round(value * scale.get(key, temporaries_share)) for key, value in live.items()}
            scaled["weights"] = scaled.get("weights", 0) + gather
            if buckets:
                scaled["gradients"] = max(scaled.get("gradients", 0), buckets)
            if sum(scaled.values()) > sum(best_live.values()) or not best_name:
                best_name, best_live = name, scaled
        host = 0
        if offload_states:
            host += round(sum(breakdown.size_of(k) for k in STATES) * share.params / n)
        if offload_params:
            host += round(breakdown.size_of("weights") * share.weights / n)
        label = f"stage {stage + 1} of {layout.pp}" if layout.pp > 1 else "every GPU"
        components = {**best_live, "overhead": overhead}
        engine = _vllm_pool(breakdown, components, share.kv) if vllm else {}
        results.append((label, best_name, components, host, gather, stage, engine))
    label, phase, components, host, gather, stage, engine = max(
        results, key=lambda r: (r[6].get("kv_pool_bytes", 0) < r[2].get("kv_cache", 0), sum(r[2].values())))
    ranks_per_node = min(layout.gpus, parallel.NODE_GPUS)
    return PerGpu(layout=layout, rank=label, components=components, peak_phase=phase,
                  stages={r[0]: sum(r[2].values()) for r in results} if len(results) > 1 else {},
                  host_bytes=host * ranks_per_node, gather_bytes=gather, stage=stage, engine=engine)


def _vllm_pool(breakdown: Breakdown, components: dict[str, int], kv_share: float) -> dict[str, object]:
    """What vLLM on this GPU fills with KV blocks: its utilization share of the card minus this
    GPU's weights, activation peak and overhead; the blocks hold this GPU's share of the heads."""
    workload = breakdown.workload
    claimed = int(breakdown.runtime.get("claimed_bytes", 0))
    pool = max(0, claimed - sum(v for k, v in components.items() if k != "kv_cache"))
    block = engines.vllm_block_bytes(workload.model, workload.effective_kv_precision) * kv_share
    per_sequence = components.get("kv_cache", 0) / max(1, workload.batch)
    return {"kv_pool_bytes": pool,
            "kv_tokens": int(pool // block) * engines.VLLM_BLOCK_TOKENS if block else 0,
            "max_concurrency": round(pool / per_sequence, 2) if per_sequence else None}


def _gathered(breakdown: Breakdown, layout: Layout, stage: int, share: parallel.Shares) -> int:
    """Unsharded weights a sharding rank holds beside its shard at the step's peak.

    - DeepSpeed ZeRO-3: 4 B × the largest module (its estimator's gather buffer, memory.rst).
    - FSDP2 full shard (and hybrid): the root group (embedding, final norm, head), which FSDP2 does not
      reshard after forward, and one layer, prefetched by the root's pre-backward hook: the measured peak
      at the loss gradient. (Deeper in backward a second prefetched layer may be live; not modelled.)
    - FSDP2 shard-grad-op: every weight, unsharded from forward to the end of backward, beside the shard.
    """
    if layout.fsdp is parallel.Fsdp.SHARD_GRAD_OP:
        return round(breakdown.size_of("weights") * share.weights)
    if layout.fsdp in (parallel.Fsdp.FULL_SHARD, parallel.Fsdp.HYBRID_SHARD):
        root, layer = parallel.fsdp_groups(breakdown.workload.model, layout, stage)
        per_param = breakdown.size_of("weights") / max(1, breakdown.params)
        return round((root + layer) * per_param)
    if layout.stage == 3:
        return 4 * share.largest_layer_params
    return 0
