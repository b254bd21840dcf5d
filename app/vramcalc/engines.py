"""The memory each inference engine really takes, beyond the weights.

Sources and derivations are in docs/research/engines.md (llama.cpp master of
2026-10-01, vLLM 0.20-0.34, transformers 5.x); every constant below names where
it comes from.

- transformers `generate`: the components of memory.py (a dynamic cache, one
  layer's prefill temporaries, the last position's logits, a set overhead).
- vLLM / SGLang: the engine claims `gpu_memory_utilization` of the card, holds
  the weights, the activation peak of its profiling run, non-torch memory and
  CUDA graphs, and fills the rest with KV blocks of 16 tokens. The result is the
  pool, the tokens it holds, and how many sequences of the chosen length fit.
- llama.cpp / Ollama / LM Studio: weights by GGUF type, a KV cache of n_ctx cells
  padded to 256 with K and V types of their own, the compute buffer its graph
  reserves, and `--gpu-layers` to keep some layers in system RAM.
"""

from __future__ import annotations

import dataclasses
import enum
import math

from .architecture import AttentionKind, ModelSpec
from .options import Attention, Precision
from .units import GIB, MIB


class Runtime(enum.Enum):
    TRANSFORMERS = "transformers"
    VLLM = "vllm"
    LLAMACPP = "llamacpp"


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


# ---------------------------------------------------------------- llama.cpp

LLAMACPP_PAD = 256  # n_ctx and the sliding-window cache round up to 256 cells (llama-context.cpp)
LLAMACPP_CUDA_OVERHEAD = 457 * MIB  # CUDA context and driver, as Ollama reserves it (engines.md §4.1)


def pad(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


@dataclasses.dataclass(frozen=True)
class LlamaCppLayout:
    n_ctx: int  # cells per sequence (padded)
    n_seq: int
    n_ub: int
    kv_device_bytes: int
    kv_host_bytes: int
    compute_bytes: int  # the GPU compute buffer
    host_compute_bytes: int  # the CPU-side compute buffer (CUDA_Host)
    layers_on_gpu: int
    output_on_gpu: bool


def llamacpp_layout(spec: ModelSpec, *, seq: int, n_seq: int, ubatch: int, flash: bool, type_k: Precision,
                    type_v: Precision, gpu_layers: int | None) -> LlamaCppLayout:
    """n_ctx, the KV cache by device, and the compute buffers (llama.cpp master, engines.md §4.1).

    KV: every sequence gets its own n_ctx cells (seq padded to 256); a sliding-window layer keeps
    min(n_ctx, pad(window + n_ubatch, 256)) cells; an MLA layer caches K only (the 576-wide latent,
    since PR #19067); a recurrent layer keeps an fp32 state per sequence.
    Compute buffer, flash attention off: max(4·n_ub·(1 + 4·n_embd + n_kv·(n_head + 1)),
    4·(n_ub·n_vocab + n_ub·n_embd)); on: the logits term or 4·n_ub·(3·n_ff + n_embd), whichever is larger.
    Offload (--gpu-layers N): the output layer first, then the last N - 1 repeating layers."""
    n_ctx = pad(seq, LLAMACPP_PAD)
    n_ub = min(ubatch, n_ctx)
    layers = spec.layers
    on_gpu = layers + 1 if gpu_layers is None else min(gpu_layers, layers + 1)
    output_on_gpu = on_gpu >= 1
    repeating_on_gpu = max(0, on_gpu - 1)
    first_gpu_layer = layers - repeating_on_gpu
    swa_cells = min(n_ctx, pad((spec.sliding_window or spec.attention_chunk) + n_ub, LLAMACPP_PAD))
    device = host = 0
    on_gpu_kinds = spec.kinds[first_gpu_layer:]
    for kind, count in spec.kind_counts():
        if kind is AttentionKind.LINEAR:
            size = n_seq * spec.linear.state_bytes(4)
        else:
            cells = swa_cells if kind in (AttentionKind.SLIDING, AttentionKind.CHUNKED) else n_ctx
            if spec.mla is not None:
                size = n_seq * type_k.bytes_for(cells * spec.mla.latent_width)
            else:
                width = spec.kv_dim
                size = n_seq * (type_k.bytes_for(cells * width) + type_v.bytes_for(cells * width))
        layers_on_gpu = on_gpu_kinds.count(kind)
        device += layers_on_gpu * size
        host += (count - layers_on_gpu) * size
    n_kv = n_ctx  # one stream per sequence: attention spans that sequence's cells
    out_term = 4 * (n_ub * spec.vocab + n_ub * spec.hidden)
    if flash:
        ffn = spec.moe.ffn * spec.moe.per_token if spec.is_moe else spec.ffn
        compute = max(out_term, 4 * n_ub * (3 * ffn + spec.hidden))
    else:
        compute = max(4 * n_ub * (1 + 4 * spec.hidden + n_kv * (spec.heads + 1)), out_term)
    host_compute = 4 * n_ub * (spec.hidden + (0 if flash else n_kv))
    return LlamaCppLayout(n_ctx=n_ctx, n_seq=n_seq, n_ub=n_ub, kv_device_bytes=device, kv_host_bytes=host,
                          compute_bytes=compute if on_gpu else 0, host_compute_bytes=host_compute,
                          layers_on_gpu=repeating_on_gpu, output_on_gpu=output_on_gpu)


def uses_flash(attention: Attention) -> bool:
    return attention is Attention.FLASH
