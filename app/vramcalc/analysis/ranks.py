"""The most loaded GPU of a layout: the one-GPU breakdown's phases, each component scaled by what
one rank keeps of it (parallel.py), for the first and the last pipeline stage; the larger is the
answer. Offloaded states move to host memory.

What an engine does differently on each rank is asked of it (engines/base.py): vLLM keeps its profiling
run's activation peak whole on every rank (the sampler's buffers dominate it: 1.26 GiB at TP 1 and TP 2
in the same log, engines.md §2d rows 1-2), pays NCCL's buffers once there is more than one GPU, and sizes
its KV pool on each GPU from what that GPU has left."""

from __future__ import annotations

import dataclasses
import functools

from ..core.choices import GGUF_RUNTIMES, Fsdp, Offload, Runtime
from ..engines import engine_for
from ..engines.base import RankPool
from ..engines.layouts import resolve_layout
from ..engines.llamacpp import LlamaCppFacts
from ..engines.llamacpp_fit_gpus import device_plan, free_on
from ..engines.vllm import draft_kv_shares
from ..formats.weights import WeightFormat
from ..memory.components import Breakdown
from ..parallel.layout import NODE_GPUS, Layout
from ..parallel.sharding import Shares, activation_share, fsdp_groups, shares
from ..sources.gpus import GpuSpec
from ..workload import Workload
from .evaluate import estimate

STATES = ("gradients", "optimizer", "master_weights")


@dataclasses.dataclass(frozen=True, kw_only=True)
class DeviceLoad:
    """One GPU of llama.cpp's layer split: its card, its layers (the output layer counted where it is) and
    what it holds, each part as llama_memory_breakdown_print names it (model, context, compute) with the
    overhead every GPU keeps."""

    card: GpuSpec
    layers: int
    components: dict[str, int]

    @property
    def total_bytes(self) -> int:
        return sum(self.components.values())

    @property
    def share(self) -> float:
        return self.total_bytes / self.card.usable_bytes

    def as_json(self) -> dict[str, object]:
        return {"gpu": self.card.slug, "layers": self.layers, "memory_bytes": self.card.usable_bytes,
                "total_bytes": self.total_bytes, **{f"{key}_bytes": value for key, value in self.components.items()}}


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
    pool: RankPool | None = None  # what the engine builds on this GPU from what is left (vLLM's KV pool)
    devices: tuple[DeviceLoad, ...] = ()  # llama.cpp on mixed cards or with -ts: every GPU (this one is the fullest)
    ram_bytes: int = 0  # the workload's system RAM (llama.cpp's buffers off the GPU, offloaded activations)

    @property
    def runs(self) -> bool:
        """Whether the engine starts at all: vLLM needs the requested sequences within its pool."""
        return self.pool is None or self.pool.kv_pool_bytes >= self.components.get("kv_cache", 0)

    @property
    def engine(self) -> dict[str, object]:
        """The pool under its public names (`--json`'s `per_gpu.engine`); empty without one."""
        return self.pool.as_json() if self.pool else {}

    @property
    def total_bytes(self) -> int:
        return sum(self.components.values())


@functools.lru_cache(maxsize=2048)
def most_loaded(workload: Workload, gpus: int) -> PerGpu:
    """per_gpu(estimate(workload), gpus), remembered: within an update the solvers, the charts and the
    verdict ask for the same workloads, and across updates most of them come back (another card or
    headroom changes none; another batch leaves the batch curve as it was)."""
    return per_gpu(estimate(workload), gpus)


def on_gpus(breakdown: Breakdown, gpus: int) -> Breakdown:
    """The breakdown as every output reports it on `gpus` GPUs: the components of the whole model, and
    the engine's figures for the layout (vLLM sizes its KV pool on each GPU: the pool it reports is the
    most loaded GPU's, the one the per-GPU panel and the reverse answers use, not that of one GPU
    holding the whole model)."""
    if gpus == 1:
        return breakdown
    rank = per_gpu(breakdown, gpus)
    if rank.pool is None or rank.layout.gpus == 1:
        return breakdown
    return engine_for(breakdown.workload.runtime).on_layout(breakdown, rank.pool, rank.layout)


def per_gpu(breakdown: Breakdown, gpus: int) -> PerGpu:
    """The most loaded GPU of `breakdown` on `gpus` GPUs, with the system RAM the workload keeps beside them."""
    rank = _most_loaded_rank(breakdown, gpus)
    return dataclasses.replace(rank, ram_bytes=breakdown.host_bytes) if breakdown.host_bytes else rank


def _most_loaded_rank(breakdown: Breakdown, gpus: int) -> PerGpu:
    workload = breakdown.workload
    layout = resolve_layout(workload, gpus)
    if layout.pp > 1 and (workload.cards or workload.tensor_split) and workload.runtime in GGUF_RUNTIMES:
        return split_layers(breakdown, layout)
    phases = breakdown.phases or {breakdown.peak_phase: {
        c.key: c.bytes for c in breakdown.components if c.key != "overhead"}}
    overhead = breakdown.bytes_of("overhead")
    engine = engine_for(workload.runtime)
    if layout.gpus == 1 and layout.offload is Offload.NONE:  # ZeRO-Offload on one GPU still moves states out
        components = {**phases[breakdown.peak_phase], "overhead": overhead}
        pool = engine.rank_pool(workload, breakdown.facts, components, 1.0, whole=True)
        return PerGpu(layout=layout, rank="every GPU", components=components,
                      peak_phase=breakdown.peak_phase, stages={}, host_bytes=0, gather_bytes=0, pool=pool)
    overhead += engine.rank_overhead_bytes
    whole_activations = engine.keeps_activation_peak_whole
    model = workload.model
    fmt = workload.precision if isinstance(workload.precision, WeightFormat) else None
    n, stage_of_zero = layout.shard_group, layout.stage
    offload_states = layout.offload is not Offload.NONE
    offload_params = layout.offload is Offload.OPTIMIZER_PARAMS
    results = []
    for stage in sorted({0, layout.pp - 1}):
        share = shares(model, layout, stage, fmt, workload.group_size)
        kv_row, kv_block = draft_kv_shares(workload, layout.tp, share.kv)  # a vLLM draft's heads: their own share
        acts = share.layers * activation_share(layout, stage, workload.grad_accum)
        fsdp_shards_weights = layout.fsdp is not Fsdp.NONE and workload.is_training
        weight_shards = n if stage_of_zero == 3 or fsdp_shards_weights else 1
        scale = {
            "weights": 0.0 if offload_params else share.weights / weight_shards,
            "gradients": 0.0 if offload_states else share.params / (n if stage_of_zero >= 2 else 1),
            "optimizer": 0.0 if offload_states else share.params / (n if stage_of_zero >= 1 else 1),
            "master_weights": 0.0 if offload_states else share.params / (n if stage_of_zero >= 1 else 1),
            "kv_cache": kv_row, "activations": 1.0 if whole_activations else acts, "logits": share.logits,
        }
        gather = _gathered(breakdown, layout, stage, share) if workload.is_training else 0
        # DDP's reducer keeps flat gradient buckets, as large as the gradients, from its construction on
        # (measured with gloo: tests/test_golden_parallel.py), so they are live in every phase.
        buckets = round(breakdown.size_of("gradients") * share.params) if (
            workload.is_training and layout.dp > 1 and stage_of_zero == 0 and not offload_states) else 0
        best_name = ""
        best_live: dict[str, int] = {}
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
        pool = engine.rank_pool(workload, breakdown.facts, components, kv_block, whole=False)
        results.append((label, best_name, components, host, gather, stage, pool))
    label, phase, components, host, gather, stage, pool = max(  # a stage whose pool falls short first
        results, key=lambda r: ((r[6].kv_pool_bytes if r[6] else 0) < r[2].get("kv_cache", 0), sum(r[2].values())))
    # a Mac or a unified PC (DGX Spark) is a machine of one GPU: its memory holds its own rank's offloaded states
    one = workload.gpu is not None and workload.gpu.shared_memory_bytes is not None
    ranks_per_node = 1 if one else min(layout.gpus, NODE_GPUS)
    return PerGpu(layout=layout, rank=label, components=components, peak_phase=phase,
                  stages={r[0]: sum(r[2].values()) for r in results} if len(results) > 1 else {},
                  host_bytes=host * ranks_per_node, gather_bytes=gather, stage=stage, pool=pool)


def split_layers(breakdown: Breakdown, layout: Layout) -> PerGpu:
    """llama.cpp's layer split over the machine's GPUs, each one exact (engines/llamacpp_fit_gpus.device_plan),
    at the engine's own context and sequences (Ollama's num_ctx); the fullest GPU for its own card first."""
    workload, facts = breakdown.workload, breakdown.facts
    if isinstance(facts, LlamaCppFacts):  # Ollama's context and sequences, as its breakdown ran them
        workload = workload.but(seq=facts.layout.n_ctx, parallel=facts.layout.n_seq)
        if workload.runtime is Runtime.OLLAMA:
            workload = workload.but(kv_precision_k=None, kv_precision_v=None)
    plan = device_plan(workload, free_on(workload, layout.pp))
    cards = workload.cards or (workload.gpu,) * layout.pp
    overhead = breakdown.bytes_of("overhead")
    devices = tuple(DeviceLoad(card=card, layers=layers, components={
        "weights": model, "kv_cache": context, "activations": compute, "overhead": overhead})
        for card, layers, (model, context, compute) in zip(cards, plan.layers, plan.memory, strict=True)
        if card is not None)
    fullest = max(range(len(devices)), key=lambda d: devices[d].share)
    return PerGpu(layout=layout, rank=f"CUDA{fullest}", components=devices[fullest].components,
                  peak_phase=breakdown.peak_phase, stages={}, host_bytes=0, gather_bytes=0, stage=fullest,
                  devices=devices)


def _gathered(breakdown: Breakdown, layout: Layout, stage: int, share: Shares) -> int:
    """Unsharded weights a sharding rank holds beside its shard at the step's peak.

    - DeepSpeed ZeRO-3: 4 B × the largest module (its estimator's gather buffer, memory.rst).
    - FSDP2 full shard (and hybrid): the root group (embedding, final norm, head), which FSDP2 does not
      reshard after forward, and one layer, prefetched by the root's pre-backward hook: the measured peak
      at the loss gradient. (Deeper in backward a second prefetched layer may be live; not modelled.)
    - FSDP2 shard-grad-op: every weight, unsharded from forward to the end of backward, beside the shard.
    """
    if layout.fsdp is Fsdp.SHARD_GRAD_OP:
        return round(breakdown.size_of("weights") * share.weights)
    if layout.fsdp in (Fsdp.FULL_SHARD, Fsdp.HYBRID_SHARD):
        root, layer = fsdp_groups(breakdown.workload.model, layout, stage)
        per_param = breakdown.size_of("weights") / max(1, breakdown.params)
        return round((root + layer) * per_param)
    if layout.stage == 3:
        return 4 * share.largest_layer_params
    return 0
