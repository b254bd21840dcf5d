"""vLLM: the pool of KV-cache blocks it builds on the card, its profiling run's peak, and
what each rank of a tensor-parallel layout keeps. Sources in docs/research/engines.md."""

from __future__ import annotations

import dataclasses
import math

from ..core.dtypes import Precision
from ..core.units import GIB
from ..memory.components import Breakdown, Component, no_component
from ..memory.states import weights_bytes
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..render.messages import message
from ..render.numbers import format_binary
from ..workload import Workload


# ---------------------------------------------------------------- vLLM

VLLM_BLOCK_TOKENS = 16  # KV block size (vllm/config/cache.py, 0.33 and earlier; 0.34 moved to 64)
VLLM_SAMPLER_BYTES = 32  # peak ≈ 32 B × max_num_seqs × vocab + ~1 GiB: fitted to V1 logs (engines.md §2a)
VLLM_PEAK_BASE = 1 * GIB  # the ~0.9-1.2 GiB the same fit leaves after the sampler term
VLLM_NON_TORCH = round(0.14 * GIB)  # V1 logs, one GPU: 0.13-0.14 GiB (engines.md §2d rows 3-6)
VLLM_CUDA_GRAPHS = round(0.4 * GIB)  # the graph estimate subtracted since 0.20: 0.2-0.7 GiB typical (§4.3)
# Several GPUs: NCCL communicators and the custom all-reduce buffers. V1 logs non-torch memory of 0.55 GiB
# per GPU at TP 2 against 0.13 GiB at TP 1 (engines.md §2d rows 3 and 5); larger degrees are not published.
VLLM_TP_COMMUNICATION = round(0.42 * GIB)


def vllm_batch_defaults(gpu_bytes: int) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) for `vllm serve` (arg_utils.get_batch_defaults):
    16384/1024 on cards of 160 GiB and more, 8192/1024 from 70 GiB, else 2048/256."""
    if gpu_bytes >= 160 * GIB:
        return 16384, 1024
    if gpu_bytes >= 70 * GIB:
        return 8192, 1024
    return 2048, 256


def vllm_kv_tokens(seq: int) -> int:
    """Tokens of KV vLLM allocates for one sequence: whole 16-token blocks."""
    return math.ceil(seq / VLLM_BLOCK_TOKENS) * VLLM_BLOCK_TOKENS


@dataclasses.dataclass(frozen=True)
class VllmPool:
    claimed_bytes: int  # gpu_memory_utilization × the card
    kv_pool_bytes: int
    kv_tokens: int  # tokens the pool holds
    max_concurrency: float  # sequences of the chosen length at once


def vllm_block_bytes(spec: ModelSpec, kv_precision: Precision) -> int:
    """One KV block: 16 tokens of every attention layer."""
    attention_layers = spec.layers - spec.count_kind(AttentionKind.LINEAR)
    return kv_precision.bytes_for(attention_layers * spec.kv_values_per_token * VLLM_BLOCK_TOKENS)


def vllm_pool(spec: ModelSpec, kv_precision: Precision, *, gpu_bytes: int, utilization: float, non_kv: int,
              seq: int) -> VllmPool:
    """The KV pool = utilization × card − weights − activation peak − non-torch − CUDA graphs.
    Tokens: whole 16-token blocks of every attention layer; maximum concurrency: the pool over
    what one sequence of `seq` tokens needs (windows capped), as vLLM logs it."""
    claimed = int(gpu_bytes * utilization)
    pool = max(0, claimed - non_kv)
    per_block = vllm_block_bytes(spec, kv_precision)
    tokens = pool // per_block * VLLM_BLOCK_TOKENS if per_block else 0
    per_sequence = (kv_precision.bytes_for(spec.kv_values_per_sequence(vllm_kv_tokens(seq)))
                    + spec.linear_state_bytes(2))
    concurrency = pool / per_sequence if per_sequence else math.inf
    return VllmPool(claimed_bytes=claimed, kv_pool_bytes=pool, kv_tokens=tokens, max_concurrency=concurrency)


def vllm_breakdown(workload: Workload) -> tuple[tuple[Component, ...], dict[str, object]]:
    """vLLM: what the requested sequences need, and the pool the engine would build on the card."""
    model = workload.model
    card = workload.gpu.usable_bytes if workload.gpu else 0
    default_tokens, default_seqs = vllm_batch_defaults(card)
    batched = workload.max_num_batched_tokens or default_tokens
    seqs = workload.max_num_seqs or default_seqs
    kv_precision = workload.effective_kv_precision
    tokens = vllm_kv_tokens(workload.seq)
    kv = workload.batch * (kv_precision.bytes_for(model.kv_values_per_sequence(tokens)) + model.linear_state_bytes(2))
    peak = VLLM_SAMPLER_BYTES * min(seqs, batched) * model.vocab + VLLM_PEAK_BASE
    weights = weights_bytes(workload)
    overhead = workload.overhead_bytes
    pool = vllm_pool(model, kv_precision, gpu_bytes=card, utilization=workload.gpu_memory_utilization,
                             non_kv=weights.bytes + peak + overhead, seq=workload.seq)
    components = (
        weights,
        no_component("gradients", "gradients.none"),
        no_component("optimizer", "optimizer.none"),
        no_component("master_weights", "master_weights.none"),
        Component(key="kv_cache", bytes=kv, explain=lambda: message(
            "vllm.kv", batch=workload.batch, tokens=f"{tokens:,}", bytes=format_binary(kv), pool=format_binary(pool.kv_pool_bytes),
            pool_tokens=f"{pool.kv_tokens:,}", concurrency=f"{pool.max_concurrency:.2f}", seq=f"{workload.seq:,}")),
        Component(key="activations", bytes=peak, explain=lambda: message(
            "vllm.peak", seqs=seqs, vocab=f"{model.vocab:,}", batched=f"{batched:,}", bytes=format_binary(peak))),
        no_component("logits", "vllm.logits"),
        Component(key="overhead", bytes=overhead, explain=lambda: message(
            "vllm.overhead", bytes=format_binary(overhead), eager=workload.enforce_eager)),
    )
    runtime = {"name": "vllm", "gpu": workload.gpu.display_name if workload.gpu else None,
               "gpu_memory_utilization": workload.gpu_memory_utilization, "claimed_bytes": pool.claimed_bytes,
               "kv_pool_bytes": pool.kv_pool_bytes, "kv_tokens": pool.kv_tokens,
               "max_concurrency": round(pool.max_concurrency, 2), "max_num_batched_tokens": batched,
               "max_num_seqs": seqs, "block_tokens": VLLM_BLOCK_TOKENS}
    return components, runtime


def vllm_rank_pool(breakdown: Breakdown, components: dict[str, int], kv_share: float) -> dict[str, object]:
    """What vLLM on this GPU fills with KV blocks: its utilization share of the card minus this
    GPU's weights, activation peak and overhead; the blocks hold this GPU's share of the heads."""
    workload = breakdown.workload
    claimed = int(breakdown.runtime.get("claimed_bytes", 0))
    pool = max(0, claimed - sum(v for k, v in components.items() if k != "kv_cache"))
    block = vllm_block_bytes(workload.model, workload.effective_kv_precision) * kv_share
    per_sequence = components.get("kv_cache", 0) / max(1, workload.batch)
    return {"kv_pool_bytes": pool,
            "kv_tokens": int(pool // block) * VLLM_BLOCK_TOKENS if block else 0,
            "max_concurrency": round(pool / per_sequence, 2) if per_sequence else None}


# ---------------------------------------------------------------- vLLM's own input keys (inputs/options.py gathers them)

from ..core.option import MAX_BATCH, MAX_SEQ, Kind, Option, optional, parse_decimal, parse_flag, parse_int  # noqa: E402

_SHOWN = {"runtime": ("vllm",), "mode": ("inference",)}
OPTIONS = (
    Option(key="gpu_memory_utilization", default="0.9", group="engine", metavar="X", help="vLLM (default 0.9)",
           parse=lambda t: parse_decimal("gpu_memory_utilization", t, 0.0, 1.0, low_inclusive=False),
           shown_when=_SHOWN),
    Option(key="max_num_batched_tokens", default="", group="engine", metavar="N", help="vLLM (default: by card)",
           parse=optional(lambda t: parse_int("max_num_batched_tokens", t, 1, MAX_SEQ)), shown_when=_SHOWN),
    Option(key="max_num_seqs", default="", group="engine", metavar="N", help="vLLM (default: by card)",
           parse=optional(lambda t: parse_int("max_num_seqs", t, 1, MAX_BATCH)), shown_when=_SHOWN),
    Option(key="enforce_eager", default="0", group="engine", kind=Kind.FLAG, help="vLLM: no CUDA graphs",
           parse=lambda t: parse_flag("enforce_eager", t), shown_when=_SHOWN),
)
