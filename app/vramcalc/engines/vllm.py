"""vLLM: the pool of KV-cache blocks it builds on the card, its profiling run's peak, and
what each rank of a tensor-parallel layout keeps. Sources in docs/research/engines.md."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable, Mapping

from ..core.choices import Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import MAX_BATCH, MAX_SEQ, Kind, Option, optional, parse_decimal, parse_flag, parse_int, parse_tokens
from ..core.phrase import Phrase, phrase
from ..core.search import last_true
from ..core.units import GB, GIB, format_binary
from ..formats.weights import BNB_FORMATS, WeightFormat, gpt_oss_mxfp4
from ..memory.activations import embedding_components
from ..memory.components import Breakdown, Component, EngineFacts, given_overhead, no_component
from ..memory.states import weights_bytes
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.families.vision import GLM, Vision, _smart_resize, encoder_peak, image_patches, image_tokens
from ..model.table import param_count
from ..parallel.layout import Layout, default_layout
from ..parallel.sharding import kv_share
from ..sources.gpu_overhead import card_overhead
from ..sources.gpus import GpuKind, GpuSpec
from ..workload import Workload
from .base import (
    EngineBreakdown,
    RankPool,
    check_kv_formats,
    hf_reference,
    refuse_gguf,
    refuse_training,
    run_as_published,
)
from .cards import CardRule, capability_at_least

# the encoder families vLLM 0.34's registry builds (models/registry.py _EMBEDDING_MODELS and _CROSS_ENCODER_MODELS:
# BertModel, RobertaModel and XLMRobertaModel with their *ForSequenceClassification, ModernBert*, NomicBertModel,
# GteModel/GteNewModel); CamemBERT, ELECTRA, DistilBERT, DeBERTa-v2 and the rest have no class there
VLLM_ENCODERS = frozenset({"bert", "roberta", "xlm-roberta", "modernbert", "nomic_bert", "gte"})

# vLLM's KV block, in tokens. 0.33 and earlier: 16. 0.34: CacheConfig.DEFAULT_BLOCK_SIZE = 64 (config/cache.py:185),
# then Platform.update_block_size_for_backend (platforms/interface.py:760-800) takes the attention backend's
# preference (`vllm_block_tokens`), and on a hybrid `_align_hybrid_block_size` (:950-1130) enlarges it
VLLM_BLOCK_TOKENS = 64
VLLM_ROCM_ATTN_BLOCK = 16  # ROCM_ATTN.get_preferred_block_size (v1/attention/backends/rocm_attn.py:166-172)
VLLM_INDEXED_V4_BLOCK = 256  # DeepSeek-V4: its indexer backend takes 256 only (mla/indexer.py:306-308)
VLLM_MLA_HYBRID_ALIGN = 128  # an MLA hybrid's block is a multiple of 128 (platforms/interface.py:1095-1100)
# ROCM_ATTN's head sizes (rocm_attn.py get_supported_head_sizes); it has no sinks (supports_sink False)
VLLM_ROCM_ATTN_HEADS = frozenset({32, 64, 80, 96, 128, 160, 192, 224, 256})
# the targets on which vLLM tries TRITON_ATTN before ROCM_ATTN (platforms/rocm.py:766-780): GpuSpec.gfx
VLLM_ROCM_TRITON_FIRST = frozenset({"gfx1100", "gfx1201"})
# vLLM's config/model.py _FLOAT16_NOT_SUPPORTED_MODELS: float16 refused; on a card without bfloat16 its auto dtype
# is float32 (analysis/evaluate.py's note)
VLLM_NO_FP16 = frozenset({"gemma2", "gemma3", "gemma3_text", "plamo2", "glm4"})
VLLM_SAMPLER_BYTES = 32  # peak ≈ 32 B × max_num_seqs × vocab + ~1 GiB: fitted to V1 logs (engines.md §2a)
VLLM_PEAK_BASE = 1 * GIB  # the ~0.9-1.2 GiB the same fit leaves after the sampler term
VLLM_MM_LIMIT = 999  # MultiModalConfig.get_limit_per_prompt: a modality --limit-mm-per-prompt does not name
LARGEST = 10_000_000  # get_image_size_with_most_features: Qwen's smart_resize of a 9,999,999-pixel square


def vllm_encoder_dummy(workload: Workload, batched: int, seqs: int) -> tuple[int, int, int, int]:
    """(items, tokens each, peak bytes, frame pairs each: 0 for images) of the profiling run's encoder pass
    (vLLM 0.34: multimodal/encoder_budget.py MultiModalBudget, v1/worker/gpu/model_runner.py profile_run): dummy
    items of the one modality of the most tokens (get_modality_with_max_tokens, a tie to video); the encoder budget
    max(max_num_batched_tokens, tokens) holds budget // tokens of them, at most max_num_seqs × the items a prompt of
    max_model_len fits (--limit-mm-per-prompt: 999, GLM's videos 1). Its peak: the tower's measured transformers
    peak under sdpa (approximate: vLLM runs its own tower, with flash attention). Whatever the requests ask, text
    included (profile_run encodes them unless --language-model-only, `text_only` here, or every modality's limit is
    0); none for a model without a vision part."""
    vision = workload.model.vision
    if vision is None or workload.text_only:
        return 0, 0, 0, 0
    # InternVL's dummy (internvl.py get_image_size_with_most_features): a grid of the most tiles, 4 × 3 of 12
    w, h = (4 * vision.size, 3 * vision.size) if vision.family == "internvl" else (LARGEST, LARGEST)
    tokens = counted = image_tokens(vision, w, h)
    pairs, limit, patches = 0, VLLM_MM_LIMIT, image_patches(vision, w, h)
    video = vllm_video_dummy(vision, workload.seq, tokens)
    if video[0] >= tokens:  # the dummy video: items counted with the budget's tokens, each encoded as the dummy's
        counted, pairs, each, limit = video[0], video[1], video[2], 1 if vision.family in GLM else limit
        tokens, patches = pairs * each, each * vision.merge ** 2
    per_prompt = max(1, min(limit, workload.seq // counted))
    items = max(1, min(max(batched, counted) // counted, seqs * per_prompt))
    e = int(workload.activation_precision.bits) // 8
    return items, tokens, encoder_peak(vision, items * max(pairs, 1), w, h, e, False, patches), pairs


@functools.cache
def _glm_video_tokens(f: int, side: int) -> tuple[int, ...]:
    """Tokens of GLM's dummy video of 1 to 600 frames of side × side pixels (glm4_1v.py _get_vision_info, vLLM 0.34):
    transformers' smart_resize of max(n, 2) frames within 12,544 and 47,040,000 pixels, ceil(n / 2) pairs."""
    return tuple(-(-n // 2) * _smart_resize(f, side, side, 12544, 47040000, max(n, 2), round(max(n, 2) / 2) * 2)
                 for n in range(1, 601))


def vllm_video_dummy(vision: Vision, seq: int, image: int) -> tuple[int, int, int]:
    """(tokens the budget counts, frame pairs, tokens of a pair) of vLLM 0.34's dummy video, frames of the image
    dummy's size (`image` tokens). Qwen2/2.5-VL (qwen2_vl.py get_num_frames_with_most_features): as many frames as
    max_model_len holds, at most 14. GLM-4.xV (glm4_1v.py _get_max_video_frames): the count of 1 to 600 of the most
    tokens within max_model_len, less an image's in the budget (it counts the placeholders of one image and one
    video). Qwen3-VL and Qwen3.5: one pair within half the video's 25,165,824 pixels, 12,288 tokens, fewer than an
    image's 16,384, so images are profiled (qwen3_vl.py get_max_video_tokens); (0, 0, 0) for them and the rest."""
    f = vision.patch * vision.merge
    if vision.family in ("qwen2_vl", "qwen2_5_vl"):
        pairs = max(1, min(7, seq // image))
        return pairs * image, pairs, image
    if vision.family not in GLM:
        return 0, 0, 0
    counts = _glm_video_tokens(f, math.isqrt(image) * f)
    most = [max(((t, -n) for n, t in enumerate(counts, 1) if t <= room), default=(counts[0], -1))
            for room in (seq - image, seq)]
    pairs = (1 - most[1][1]) // 2  # ceil(frames / 2)
    return most[0][0], pairs, most[1][0] // pairs


VLLM_NON_TORCH = round(0.14 * GIB)  # V1 logs, one GPU: 0.13-0.14 GiB (engines.md §2d rows 3-6)
VLLM_CUDA_GRAPHS = round(0.4 * GIB)  # the graph estimate subtracted since 0.20: 0.2-0.7 GiB typical (§4.3)
# Several GPUs: NCCL communicators and the custom all-reduce buffers. V1 logs non-torch memory of 0.55 GiB
# per GPU at TP 2 against 0.13 GiB at TP 1 (engines.md §2d rows 3 and 5); larger degrees are not published.
VLLM_TP_COMMUNICATION = round(0.42 * GIB)
# The largest gpu_memory_utilization the suggestions offer: vLLM accepts up to 1, but the share it leaves is
# what the model does not count (other processes, fragmentation); 0.95 is the usual ceiling in its docs.
VLLM_MAX_SUGGESTED_UTILIZATION = 0.95
# vLLM 0.34's --gpu-memory-utilization when none is given (config/cache.py:495-501 resolved_gpu_memory_utilization):
# 1.0 with the extensible KV cache, DEFAULT_GPU_MEMORY_UTILIZATION (0.92, :186) without it
VLLM_EXTENSIBLE_UTILIZATION = 1.0
VLLM_ESTIMATE_UTILIZATION = 0.92
# The extensible KV cache's margin (v1/worker/extensible_kv_cache.py:64-65): max(floor, 0.75 × the transient peak)
VLLM_MARGIN_FLOOR = 1 * GIB  # KV_CACHE_MARGIN_FLOOR_BYTES on CUDA
VLLM_ROCM_MARGIN_FLOOR = 3 * GIB  # on ROCm
VLLM_MARGIN_FRACTION = 0.75  # KV_CACHE_MARGIN_FRACTION


def vllm_extensible(workload: Workload) -> bool:
    """Whether vLLM 0.34 sizes the pool with its extensible KV cache (config/vllm.py:3180-3263
    `_resolve_extensible_kv_cache`): on CUDA and ROCm unless --no-enable-extensible-kv-cache (or --kv-cache-memory,
    num_gpu_blocks_override, elastic EP, a legacy-IPC KV connector: none modelled here). Every card vLLM runs on here
    is CUDA or ROCm (`Vllm.check` refuses a Mac's GPU)."""
    return not workload.no_extensible_kv_cache


def vllm_utilization(workload: Workload) -> float:
    """The utilization vLLM 0.34 sizes with: the user's, else its default for the sizing path."""
    if workload.gpu_memory_utilization is not None:
        return workload.gpu_memory_utilization
    return VLLM_EXTENSIBLE_UTILIZATION if vllm_extensible(workload) else VLLM_ESTIMATE_UTILIZATION


def startup_context(gpu: GpuSpec | None) -> int:
    """What the process holds before vLLM's start-up snapshot (gpu_worker.py: after the CUDA context, NCCL's init and
    a warm-up matmul), which the extensible cache's `free` at start no longer has: the CUDA context with its loaded
    kernels as published for the card's class (sources/gpu_overhead.py; 0.15-0.95 GiB); 0 where none is published
    (AMD, GB10, a card given by its size), so the pool reads up to about that much high there."""
    card = card_overhead(gpu)
    return 0 if card is None else int(card[1]["context"])


def vllm_margin(gpu: GpuSpec | None, peak: int) -> int:
    """The memory the extensible KV cache leaves free beyond the transient peak (extensible_kv_cache.py:612-617
    `measure_kv_cache_bytes`): max(1 GiB, 3 GiB on ROCm; 0.75 × the peak)."""
    from ..speed.hardware import Platform, platform_of  # here: speed imports this module

    floor = VLLM_ROCM_MARGIN_FLOOR if gpu is not None and platform_of(gpu) is Platform.ROCM else VLLM_MARGIN_FLOOR
    return max(floor, int(peak * VLLM_MARGIN_FRACTION))


def vllm_mtp_buffers(workload: Workload, batched: int, seqs: int) -> int:
    """The GPU buffers vLLM 0.19 adds for speculative decoding with MTP layers, max_num_batched_tokens rows each
    (v1/spec_decode/eagle.py EagleProposer.__init__): hidden_states and inputs_embeds (hidden wide, the model's
    dtype), input_ids (int32), positions and the slot mapping (int64), an int32 arange of max(max_num_seqs + 1,
    rows); and, on DeepSeek-V3.2 and GLM-5, each MTP layer's top-k index buffer (deepseek_mtp.py: [rows,
    index_topk] int32). vLLM allocates them before its profiling run, so its log leaves them out of the budget."""
    if not workload.mtp:
        return 0
    model = workload.model
    e = int(workload.activation_precision.bits) // 8
    topk = model.indexer.topk * model.mtp_built if model.indexer else 0
    return batched * (2 * model.hidden * e + 4 + 8 + 8 + 4 * topk) + 4 * max(seqs + 1, batched)


# ---------------------------------------------------------------- speculative decoding with a draft model
# vLLM 0.34 --speculative-config (config/speculative.py; v1/worker/gpu/spec_decode). A draft model (method
# draft_model, standalone_ar/): DraftModelSpeculatorConfig.configure builds its ModelConfig with the target's dtype
# and no quantization of its own (quantization None), tensor parallel as the target by default
# (_verify_and_get_draft_tp: 1 or the target's), pipeline 1 (create_draft_parallel_config); the speculator lives on
# the last pipeline rank only (gpu/model_runner.py `if self.is_last_pp_rank`). Its attention layers register beside
# the target's, so get_kv_cache_spec returns both and UniformTypeKVCacheSpecs.page_size_bytes sums them: one block
# holds the draft's K/V too, in the target's --kv-cache-dtype (speculative kv_cache_dtype None). It must have the
# target's vocabulary size exactly (verify_equal_vocab_size_if_draft_model). A Gemma 4 drafter (gemma4_assistant,
# run as method mtp: hf_config_override -> gemma4_mtp; spec_decode/gemma4/): every layer reads a target layer's
# cache (kv_sharing_target_layer_name), so it adds no K/V; its embedding is swapped for the target's
# (_share_embeddings) but lm_head still holds the drafter's tied one, so all of its weights stay.
VLLM_DRAFT_TOKENS = 3  # num_speculative_tokens printed and counted: a draft model has no n_predict to default it
# from (DraftModelSpeculatorConfig.configure raises "num_speculative_tokens was not provided"; a Gemma 4 drafter's
# n_predict 1 would give 1); llama-server's --spec-draft-n-max default, so the engines draft alike


def vllm_draft_tokens(workload: Workload) -> int:
    """K, the tokens drafted per step: the MTP layers' count, else VLLM_DRAFT_TOKENS with a draft model."""
    return workload.mtp or (VLLM_DRAFT_TOKENS if workload.draft_model is not None else 0)


def vllm_own_cache_draft(workload: Workload) -> ModelSpec | None:
    """The draft model whose layers join the KV pool (a Gemma 4 drafter reads the target's: none)."""
    draft = workload.draft_model
    return draft if draft is not None and not draft.drafter_backbone else None


def vllm_draft_weights(workload: Workload) -> int:
    """The draft's weights on one GPU before tensor parallel: its parameters in the target's dtype."""
    draft = workload.draft_model
    return 0 if draft is None else workload.activation_precision.bytes_for(param_count(draft))


def vllm_speculator_buffers(workload: Workload, batched: int, seqs: int) -> int:
    """The GPU buffers vLLM 0.34's draft speculators allocate at start (T batched tokens, R sequences, K drafted)."""
    # InputBuffers (input_batch.py: int32 ids, int64 positions, bool padding of T; int32 query_start_loc, seq_lens,
    # dcp_local_seq_lens of R), DraftModelSpeculator (spec_decode/speculator.py: int64 idx_mapping and seeds, fp32
    # temperature of R; int64 draft_tokens and fp32 confidences of R x K), AutoRegressiveSpeculator's int64
    # last_token_indices of R; then a draft model's StandaloneARSpeculator (int32 arange of R + 1; int32 ids, int64
    # positions and an int64 slot mapping per KV group of T + R), or a Gemma 4 drafter's TargetDependentARSpeculator
    # (hidden_states [T, backbone width] in the model's dtype, int64 sample_src_positions of R). Draft logits are
    # kept only with draft_sample_method probabilistic (not the default).
    draft = workload.draft_model
    if draft is None:
        return 0
    t, r, k = batched, seqs, vllm_draft_tokens(workload)
    common = t * (4 + 8 + 1) + 4 * (r + 1) + 2 * 4 * r + r * (8 + 8 + 4) + r * k * (8 + 4) + 8 * r
    if draft.drafter_backbone:
        e = int(workload.activation_precision.bits) // 8
        return common + t * draft.drafter_backbone * e + 8 * r
    groups = len({kind for spec in (workload.model, draft) for kind, _ in spec.kind_counts() if kind.caches_tokens})
    return common + 4 * (r + 1) + (t + r) * (4 + 8 + 8 * max(1, groups))


def check_vllm_draft(workload: Workload, layout: Layout) -> None:
    """What vLLM 0.34 refuses of a draft model, and pipeline stages (the draft on the last one: not modelled)."""
    # the vocabulary (verify_equal_vocab_size_if_draft_model, draft_has_own_vocab: draft_model only); the draft's
    # heads over the tensor-parallel degree (_verify_args: verify_with_parallel_config on the draft's, an MTP
    # drafter's too)
    draft = workload.draft_model
    if draft is None:
        return
    if layout.pp > 1:
        raise ValidationError("draft_model", draft.name, "vLLM keeps the draft on the last pipeline stage only, "
                              "which is not modelled here: a layout of tensor parallel and data parallel")
    if not draft.drafter_backbone and draft.vocab != workload.model.vocab:  # a drafter's vocabulary is not checked
        raise ValidationError("draft_model", draft.name, f"vLLM refuses a draft whose vocabulary size "
                              f"({draft.vocab:,}) is not the model's ({workload.model.vocab:,}): config/speculative.py "
                              "verify_equal_vocab_size_if_draft_model; pick one of the same family")
    if draft.heads % layout.tp:
        raise ValidationError("draft_model", draft.name, f"vLLM splits the draft over the model's tensor parallel "
                              f"({layout.tp}), which must divide its {draft.heads} attention heads")


def vllm_batch_defaults(gpu_bytes: int, name: str = "") -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) for `vllm serve` (arg_utils.get_batch_defaults):
    16384/1024 on cards of 160 GiB and more, 8192/1024 from 70 GiB, else 2048/256; an A100 of 80 GB
    keeps 2048/256 (`"a100" not in device_name`: larger batches lowered its throughput, vLLM PR #17885)."""
    if gpu_bytes >= 160 * GIB:
        return 16384, 1024
    if gpu_bytes >= 70 * GIB and "a100" not in name.lower():
        return 8192, 1024
    return 2048, 256


def card_batch_defaults(workload: Workload) -> tuple[int, int]:
    """vllm_batch_defaults for the workload's card (none: the smallest)."""
    gpu = workload.gpu
    return vllm_batch_defaults(gpu.usable_bytes, gpu.display_name) if gpu else vllm_batch_defaults(0)


def chunks_prompts(workload: Workload) -> bool:
    """Whether vLLM 0.34 splits a prompt over steps (chunked prefill): not for a pooling model of bidirectional
    attention, the encoders here (config/model.py `attn_type` "encoder_only", `is_chunked_prefill_supported`)."""
    return not (workload.embeds and workload.model.encoder is not None)


def vllm_batched_tokens(workload: Workload) -> int:
    """max_num_batched_tokens: the user's, else vLLM's default for the card, without chunked prefill at least
    max_model_len ("If max_model_len is too short, use the default for higher throughput"), and at most
    max_num_seqs × max_model_len ("Ensure max_num_batched_tokens does not exceed model limit"): engine/arg_utils.py
    `_set_default_max_num_seqs_and_batched_tokens_args`."""
    if workload.max_num_batched_tokens:
        return workload.max_num_batched_tokens
    default, seqs = card_batch_defaults(workload)
    budget = default if chunks_prompts(workload) else max(default, workload.seq)
    return min((workload.max_num_seqs or seqs) * workload.seq, budget)


def vllm_block_tokens(spec: ModelSpec, gpu: GpuSpec | None = None) -> int:
    """The KV block vLLM 0.34 picks for `spec` on `gpu` (None: a CUDA card), before a hybrid's alignment
    (`vllm_hybrid_block_tokens`). The default 64 stands unless the first attention backend of the platform's list
    declines it (platforms/interface.py:773-790; one backend: its get_preferred_block_size, v1/attention/backend.py
    :158-166, which keeps 64 when a supported size divides it). CUDA (platforms/cuda.py:81-182): FLASH_ATTN first
    (MultipleOf(16), flash_attn.py:357-379), FLASHINFER on SM100 ([16, 32, 64], flashinfer.py:587-606); MLA:
    FLASHINFER_MLA on SM100 ([32, 64]), FLASH_ATTN_MLA on SM90, TRITON_MLA elsewhere (MultipleOf(16)): 64 on every
    card. DeepSeek-V4 mixes backends and its indexer takes 256 only, the smallest size all of them accept
    (interface.py:735-757). ROCm, AITER off by default (platforms/rocm.py:536-576): ROCM_ATTN first, which prefers 16,
    unless the model has sinks or a head size it lacks, or the card is gfx1100/gfx1201 (TRITON_ATTN first), or the
    model is MLA (TRITON_MLA): 64."""
    if spec.compressed is not None:
        return VLLM_INDEXED_V4_BLOCK
    if gpu is None or gpu.gfx in VLLM_ROCM_TRITON_FIRST or (spec.mla is not None and not spec.mla_per_head):
        return VLLM_BLOCK_TOKENS
    from ..speed.hardware import Platform, platform_of  # here: speed imports this module

    if platform_of(gpu) is not Platform.ROCM or spec.sinks or spec.sliding_sinks:
        return VLLM_BLOCK_TOKENS
    heads = {spec.mla.qk_nope_head_dim + spec.mla.qk_rope_head_dim} if spec.mla is not None else {
        spec.head_dim_of(kind) for kind, _ in spec.kind_counts() if kind.caches_tokens}
    return VLLM_ROCM_ATTN_BLOCK if heads <= VLLM_ROCM_ATTN_HEADS else VLLM_BLOCK_TOKENS


def vllm_kv_block(spec: ModelSpec, kv_precision: Precision, gpu: GpuSpec | None = None) -> int:
    """The tokens of one attention block of `spec` in vLLM 0.34: the hybrid block on a hybrid, else
    `vllm_block_tokens`."""
    return vllm_hybrid_block_tokens(spec, kv_precision, gpu) or vllm_block_tokens(spec, gpu)


def vllm_kv_tokens(seq: int, block: int = VLLM_BLOCK_TOKENS) -> int:
    """Tokens of KV vLLM allocates for one sequence: whole blocks (FullAttentionSpec.max_memory_usage_bytes,
    cdiv(max_model_len, block_size) pages)."""
    return math.ceil(seq / block) * block


# What vLLM 0.34 cannot run before compute capability 8.0 (Turing, the T4). FP8, NVFP4, AWQ and GPTQ weights run
# there: Marlin's weight-only kernels from 7.5 (Fp8Config, ModelOptNvFp4Config and AutoAWQConfig need 75,
# AutoGPTQConfig 60; quantization/utils/marlin_utils.py query_marlin_supported_quant_types, marlin_utils_fp8.py).
VLLM_CARD_RULES = (
    CardRule("precision", "mxfp4", capability_at_least(8, 0), "compute capability 8.0 and later (A100, A10G, RTX 30 "
             "and every later NVIDIA card) and AMD's", "Mxfp4Config.get_min_capability() is 80, and "
             "config/vllm.py _get_quantization_config stops below it"),
    CardRule("kv_precision", "fp8", capability_at_least(8, 0), "compute capability 8.0 and later "
             "(FlashInfer on Ampere, FlashAttention 3 on Hopper, Triton from 8.9) and AMD's", "FlashAttention and "
             "FlashInfer need 8.0, the Triton backend refuses an FP8 cache before 8.9 (v1/attention/backends/"
             "triton_attn.py: native fp8e4nv) and FlexAttention has none"),
)


# a weight format -> vLLM's --quantization method
VLLM_QUANTIZATION = {"fp8": "fp8", "awq-int4": "awq", "gptq-int4": "gptq", "gptq-int8": "gptq"}


@dataclasses.dataclass(frozen=True)
class VllmPool:
    claimed_bytes: int  # gpu_memory_utilization × the card
    kv_pool_bytes: int
    kv_tokens: int  # tokens the pool holds
    max_concurrency: float  # sequences of the chosen length at once
    logged_tokens: int = 0  # what 0.34 logs as its "GPU KV cache size": whole blocks' concurrency × max_model_len
    budget_bytes: int = -1  # what the weights, peak, overhead and pool share: claimed, or less the margin (-1: claimed)
    margin_bytes: int = 0  # the extensible KV cache's margin (0: the estimate path)
    capacity_bytes: int = 0  # the extensible cache's reservation, vLLM's "Available KV cache memory" before warm-up
    block_bytes: int = 0  # one KV block
    free_bytes: int = 0  # the extensible path: the memory free at start (the card less other programs')

    @property
    def budget(self) -> int:
        return self.claimed_bytes if self.budget_bytes < 0 else self.budget_bytes


def vllm_block_bytes(spec: ModelSpec, kv_precision: Precision, block: int = VLLM_BLOCK_TOKENS) -> int:
    """One KV block: `block` tokens of every attention layer."""
    per_token = sum(spec.cached_layers(kind) * spec.kv_width(kind, vllm=True) for kind, _ in spec.kind_counts()
                    if kind.caches_tokens)
    return kv_precision.bytes_for(per_token * block) + spec.indexer_bytes(block, 2, fp8_packed=True)


def draft_block_bytes(draft: ModelSpec | None, kv_precision: Precision, block: int) -> int:
    """A draft model's share of one KV block: its layers' K/V for the block's tokens (none without a draft)."""
    return 0 if draft is None else vllm_block_bytes(draft, kv_precision, block)


def model_sequence_bytes(workload: Workload, tokens: int) -> int:
    """The model's own cache for one sequence of `tokens` (whole blocks): K/V, recurrent state and index keys."""
    model, kv_precision = workload.model, workload.effective_kv_precision
    return (kv_precision.bytes_for(model.kv_values_per_sequence(tokens, vllm=True))
            + vllm_state_bytes(model, kv_precision, workload.gpu) + model.indexer_bytes(tokens, 2, fp8_packed=True))


def draft_kv_shares(workload: Workload, tp: int, share: float) -> tuple[float, float]:
    """One of `tp` ranks' shares of the KV cache row and of a pool block, the model's heads at `share` and a draft's
    at its own: vLLM gives each rank max(1, heads // tp) of every attention layer's KV heads, so a draft with fewer
    KV heads than ranks keeps each on several (Gemma 3 4B's 4 beside Gemma 3 27B's 16 at TP 8: half of them, not
    the model's eighth). Without a draft of its own cache, `share` for both."""
    draft = vllm_own_cache_draft(workload) if workload.runtime is Runtime.VLLM else None
    own = kv_share(draft, tp) if draft is not None else share
    if draft is None or own == share:
        return share, share
    kv_precision = workload.effective_kv_precision
    block = vllm_kv_block(workload.model, kv_precision, workload.gpu)
    tokens = vllm_kv_tokens(workload.seq, block)
    pairs = ((model_sequence_bytes(workload, tokens), draft_sequence_bytes(draft, kv_precision, tokens)),
             (vllm_block_bytes(workload.model, kv_precision, block), draft_block_bytes(draft, kv_precision, block)))
    row, pool = ((mine * share + theirs * own) / (mine + theirs) for mine, theirs in pairs)
    return row, pool


def draft_sequence_bytes(draft: ModelSpec | None, kv_precision: Precision, tokens: int) -> int:
    """A draft model's K/V for one sequence of `tokens` (whole blocks), its windows capped."""
    return 0 if draft is None else kv_precision.bytes_for(draft.kv_values_per_sequence(tokens, vllm=True))


def vllm_hybrid_block_tokens(spec: ModelSpec, kv_precision: Precision, gpu: GpuSpec | None = None) -> int:
    """The tokens of vLLM's block on a model with recurrent layers beside attention layers, 0 on any other: every
    page is made one size, so the attention block grows to B = u · ceil(state / (u · A)) tokens, A an attention
    layer's bytes per token, `state` the largest recurrent page and u the block before alignment
    (`vllm_block_tokens`: 64 on CUDA, 16 under ROCM_ATTN), at least 128 on an MLA model (vLLM 0.34
    platforms/interface.py `_align_hybrid_block_size`, :1078-1113; 0.33 and earlier rounded by 16). The prefix
    cache hashes blocks of B tokens, and with prefix caching the Mamba block is B too."""
    attention = [kind for kind, _ in spec.kind_counts() if kind.caches_tokens]
    recurrent = spec.recurrent_counts()
    if not attention or not recurrent:
        return 0
    per_token = kv_precision.bytes_for(spec.kv_width(attention[0], vllm=True))
    if not per_token:
        return 0
    state = max(_state_page(spec, kind) for kind, _ in recurrent)
    unit = vllm_block_tokens(spec, gpu)
    if spec.mla is not None and not spec.mla_per_head:
        unit = max(unit, VLLM_MLA_HYBRID_ALIGN)
    return unit * math.ceil(state / (unit * per_token))


def _state_page(spec: ModelSpec, kind: AttentionKind) -> int:
    """One recurrent layer's state for one sequence, as vLLM keeps it (`vllm_state_bytes`)."""
    state_e = spec.mamba.ssm_cache_bytes if kind is AttentionKind.MAMBA and spec.mamba else 4
    return spec.state_bytes_of(kind, 2, trim=1, state_e=state_e)


def vllm_state_bytes(spec: ModelSpec, kv_precision: Precision, gpu: GpuSpec | None = None) -> int:
    """What the recurrent layers keep for one sequence (vllm/model_executor/layers/mamba/mamba_utils.py,
    vllm 0.19): the convolution's last conv_kernel - 1 tokens in the model's dtype and the state in
    mamba_ssm_cache_dtype (Gated DeltaNet: fp32; Mamba-2: the config's, else 16-bit), one page per layer.
    Beside attention layers vLLM makes every page one size (HybridAttentionMambaModelConfig): each state's page
    is padded to B · A, an attention layer's block of `vllm_hybrid_block_tokens` B."""
    block = vllm_hybrid_block_tokens(spec, kv_precision, gpu)
    if block:
        attention = next(kind for kind, _ in spec.kind_counts() if kind.caches_tokens)
        page = block * kv_precision.bytes_for(spec.kv_width(attention, vllm=True))
        return sum(count for _, count in spec.recurrent_counts()) * page
    return sum(count * _state_page(spec, kind) for kind, count in spec.recurrent_counts())


def vllm_pool(spec: ModelSpec, kv_precision: Precision, *, gpu_bytes: int, utilization: float, non_kv: int,
              seq: int, gpu: GpuSpec | None = None, margin: int | None = None, free: int | None = None,
              graphs: int = 0, draft: ModelSpec | None = None) -> VllmPool:
    """The KV pool. Estimate path (0.20-0.33; 0.34 without the extensible KV cache, gpu_worker.py:769-773):
    utilization × card − weights − activation peak − non-torch − CUDA graphs. Extensible path (0.34 on CUDA and
    ROCm, `margin` given; extensible_kv_cache.py:592-617 `measure_kv_cache_bytes`, sized after warm-up and capture):
    min(utilization × card, free − margin) − the same, `free` the memory free at start (the card less other
    programs'), the CUDA graphs those captured rather than estimated. Tokens: whole blocks (`vllm_kv_block`) of every
    attention layer, a draft model's with them (`draft`); maximum concurrency: the pool over what one sequence of
    `seq` tokens needs (windows capped), as vLLM logs it."""
    claimed = int(gpu_bytes * utilization)
    start = gpu_bytes if free is None else free
    budget = claimed if margin is None else min(claimed, start - margin)
    pool = max(0, budget - non_kv)
    block = vllm_kv_block(spec, kv_precision, gpu)
    per_block = vllm_block_bytes(spec, kv_precision, block) + draft_block_bytes(draft, kv_precision, block)
    tokens = pool // per_block * block if per_block else 0
    kept = vllm_kv_tokens(seq, block)
    per_sequence = (kv_precision.bytes_for(spec.kv_values_per_sequence(kept, vllm=True))
                    + vllm_state_bytes(spec, kv_precision, gpu)
                    + spec.indexer_bytes(kept, 2, fp8_packed=True)
                    + draft_sequence_bytes(draft, kv_precision, kept))
    concurrency = pool / per_sequence if per_sequence else math.inf
    # vLLM logs int(num_blocks / blocks per request × max_model_len) (kv_cache_utils.get_kv_cache_capacity)
    logged = int((pool // per_block * per_block) / per_sequence * seq) if per_block and per_sequence else tokens
    # the extensible cache reserves the estimate's blocks without the graphs' (gpu/model_runner.py:1121-1125)
    capacity = max(0, claimed - non_kv + graphs) if margin is not None else 0
    return VllmPool(claimed_bytes=claimed, kv_pool_bytes=pool, kv_tokens=tokens, max_concurrency=concurrency,
                    logged_tokens=logged, budget_bytes=budget, margin_bytes=margin or 0, capacity_bytes=capacity,
                    block_bytes=per_block,
                    free_bytes=0 if margin is None else start)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class VllmFacts:
    """What `vllm serve` would log for this workload on its card."""

    gpu: str | None
    gpu_memory_utilization: float
    pool: VllmPool
    max_num_batched_tokens: int
    max_num_seqs: int
    block_tokens: int = VLLM_BLOCK_TOKENS
    gpus: int = 1  # the GPUs of the layout, each building `pool` (that of the most loaded one)
    layout: str = ""  # their layout in words ("TP 2"), when more than one
    max_model_len: int = 0  # --max-model-len: the sequence the concurrency is counted in
    utilization_given: bool = True  # --gpu-memory-utilization passed (False: vLLM's own, `gpu_memory_utilization`)
    transient_peak: int = 0  # the profiled activation peak the extensible cache keeps free

    def log_lines(self) -> tuple[str, ...]:
        """The lines `vllm serve` logs once it has sized the pool (v1: gpu_worker.py's "Available KV cache
        memory", then kv_cache_utils._report_kv_cache_config's two, or the ValueError of
        _check_enough_kv_cache_memory when no request fits), with this answer's figures; on a layout, those
        of the most loaded GPU, as vLLM keeps the smallest pool of its workers. vLLM counts whole blocks per
        request, so its concurrency can read up to one block's share lower. With the extensible KV cache (0.34),
        "Available KV cache memory" is the reservation before warm-up (gpu_worker.py:795-798), then
        extensible_kv_cache.py:693-712 logs "Memory after warmup" (its committed, free and torch figures left
        out: "…"), and, when a utilization in (0.7, 1) withholds 1 GiB or more, its warning (:656-677)."""
        pool = self.pool
        if pool.kv_pool_bytes <= 0:  # the hint: v1/core/kv_cache_planning.py:65-97 `_more_kv_cache_memory_hint`
            if not pool.margin_bytes:
                hint = "Try increasing `gpu_memory_utilization` when initializing the engine."
            elif self.gpu_memory_utilization < 1:
                hint = (f"The KV cache gets what is left after the model and its activations within "
                        f"`gpu_memory_utilization`={self.gpu_memory_utilization:g}; increase it (with the extensible "
                        f"KV cache it defaults to 1.0) or decrease `max_model_len` or `max_num_seqs`.")
            else:
                hint = ("The extensible KV cache already takes all device memory left after the model and its "
                        "activations; decrease `max_model_len` or `max_num_seqs`, or the model needs a device with "
                        "more memory.")
            return (f"ValueError: No available memory for the cache blocks. {hint}",)
        available = f"{pool.kv_pool_bytes / GIB:.2f} GiB"
        lines = [f"Available KV cache memory: {available}"]
        if pool.margin_bytes:
            lines = [f"Available KV cache memory: {pool.capacity_bytes / GIB:.2f} GiB"]
            withheld = pool.free_bytes - pool.margin_bytes - pool.budget  # what the utilization keeps from the pool
            if self.utilization_given and 0.7 < self.gpu_memory_utilization < 1 and withheld >= GIB:
                lines.append(f"WARNING gpu_memory_utilization={self.gpu_memory_utilization:g} caps this instance at "
                             f"{pool.claimed_bytes / GIB:.2f} GiB, keeping {withheld / GIB:.2f} GiB of free device "
                             f"memory out of the KV cache. … Leave gpu_memory_utilization unset unless …")
            blocks = pool.kv_tokens // self.block_tokens  # on a layout, of this GPU's share of the heads
            size = blocks * pool.block_bytes if pool.block_bytes else pool.kv_pool_bytes
            lines.append(f"Memory after warmup: … {self.transient_peak / GIB:.2f} GiB kept for transient activations "
                         f"(…); {blocks:,} KV cache blocks ({size / GIB:.2f} GiB) fit within "
                         f"the requested {pool.claimed_bytes / GIB:.2f} GiB. …")
        if pool.max_concurrency < 1:
            lines.append(f"ValueError: To serve at least one request with the model's max seq len "
                         f"({self.max_model_len}), ({pool.kv_pool_bytes / pool.max_concurrency / GIB:.2f} GiB KV "
                         f"cache is needed, which is larger than the available KV cache memory ({available}).")
            return tuple(lines)
        if pool.kv_tokens:
            lines.append(f"GPU KV cache size: {pool.logged_tokens or pool.kv_tokens:,} tokens")
        if math.isfinite(pool.max_concurrency):
            lines.append(f"Maximum concurrency for {self.max_model_len:,} tokens per request: "
                         f"{pool.max_concurrency:.2f}x")
        return tuple(lines)

    def as_json(self) -> dict[str, object]:
        return {"gpu": self.gpu, "gpu_memory_utilization": self.gpu_memory_utilization,
                "claimed_bytes": self.pool.claimed_bytes, "kv_pool_bytes": self.pool.kv_pool_bytes,
                "kv_tokens": self.pool.kv_tokens, "max_concurrency": round(self.pool.max_concurrency, 2),
                "max_num_batched_tokens": self.max_num_batched_tokens, "max_num_seqs": self.max_num_seqs,
                "block_tokens": self.block_tokens, "kv_pool_gpus": self.gpus,
                "extensible_kv_cache": bool(self.pool.margin_bytes), "kv_margin_bytes": self.pool.margin_bytes}


def with_draft_weights(workload: Workload, weights: Component) -> Component:
    """The weights row with a draft model's (or a Gemma 4 drafter's) beside the model's, in the model's dtype."""
    draft, size = workload.draft_model, vllm_draft_weights(workload)
    if draft is None:
        return weights
    return Component(key="weights", bytes=weights.bytes + size, explain=lambda: (*weights.formula, "; ", phrase(
        "vllm.draft_weights", name=draft.display_name, precision=workload.activation_precision.value,
        bytes=format_binary(size))))


def kv_component(workload: Workload, kv: int, facts: VllmFacts) -> Component:
    """The KV-cache row: what the requested sequences need, and the pool vLLM builds (on each GPU of a layout)."""
    tokens, pool = vllm_kv_tokens(workload.seq, facts.block_tokens), facts.pool
    numbers = dict(batch=workload.batch, tokens=f"{tokens:,}", block=facts.block_tokens, bytes=format_binary(kv),
                   pool=format_binary(pool.kv_pool_bytes), pool_tokens=f"{pool.kv_tokens:,}",
                   concurrency=f"{pool.max_concurrency:.2f}", seq=f"{workload.seq:,}")
    if not workload.model.attends:  # Mamba alone: a state per sequence, whatever its length; no tokens to count
        return Component(key="kv_cache", bytes=kv, explain=lambda: phrase(
            "vllm.kv_state", batch=workload.batch, bytes=numbers["bytes"], pool=numbers["pool"],
            concurrency=numbers["concurrency"], where=phrase("vllm.each_gpu", gpus=facts.gpus, layout=facts.layout)
            if facts.gpus > 1 else phrase("vllm.this_card")))
    draft = workload.draft_model
    said = (() if draft is None else ("; ", phrase("vllm.drafter_kv") if draft.drafter_backbone else phrase(
        "vllm.draft_kv", name=draft.display_name)))
    if facts.gpus > 1:
        return Component(key="kv_cache", bytes=kv, explain=lambda: (phrase(
            "vllm.kv_gpus", **numbers, gpus=facts.gpus, layout=facts.layout), *said))
    return Component(key="kv_cache", bytes=kv, explain=lambda: (phrase("vllm.kv", **numbers), *said))


# ---------------------------------------------------------------- vLLM's own input keys
# (inputs/options.py gathers them)


_SHOWN = {"runtime": ("vllm",), "mode": ("inference",)}
OPTIONS = (
    Option(key="gpu_memory_utilization", default="", group="engine", metavar="X",
           help="vLLM (default: vLLM 0.34's own, 1.0 with its extensible KV cache, sized after warm-up less a "
                "margin; 0.92 without it)",
           parse=optional(lambda t: parse_decimal("gpu_memory_utilization", t, 0.0, 1.0, low_inclusive=False)),
           shown_when=_SHOWN),
    Option(key="no_extensible_kv_cache", default="0", group="engine", kind=Kind.FLAG,
           help="vLLM 0.34: --no-enable-extensible-kv-cache, the pool sized from the profiling estimate (0.20-0.33)",
           parse=lambda t: parse_flag("no_extensible_kv_cache", t), shown_when=_SHOWN),
    Option(key="max_num_batched_tokens", default="", group="engine", metavar="N", help="vLLM (default: by card)",
           parse=optional(lambda t: parse_tokens("max_num_batched_tokens", t, 1, MAX_SEQ)), shown_when=_SHOWN),
    Option(key="max_num_seqs", default="", group="engine", metavar="N", help="vLLM (default: by card)",
           parse=optional(lambda t: parse_int("max_num_seqs", t, 1, MAX_BATCH)), shown_when=_SHOWN),
    Option(key="enforce_eager", default="0", group="engine", kind=Kind.FLAG, help="vLLM: no CUDA graphs",
           parse=lambda t: parse_flag("enforce_eager", t), shown_when=_SHOWN),
)


# the formats vLLM and SGLang read from a checkpoint quantised so (fp8 alone is quantised as a 16-bit one loads):
# the model named must be that checkpoint, as transformers' line says (engines/transformers.py PRE_QUANTISED)
PRE_QUANTISED = frozenset({"mxfp4", "nvfp4", "fp8-block", "awq-int4", "gptq-int4", "gptq-int8"})


SGLANG_HEADER = "# or SGLang, whose own memory split (--mem-fraction-static) is not modelled here:"


def _published(workload: Workload) -> str:
    name = workload.precision.value
    return f"  # a checkpoint published in {name}" if name in PRE_QUANTISED else ""


def _dtype_flag(workload: Workload) -> tuple[str, ...]:
    """--dtype where the weights counted are fp32 or fp16: vLLM's and SGLang's default, auto, loads the checkpoint's
    own dtype (bf16 for most), which would hold half the fp32 weights counted (config/model.py _get_and_verify_dtype;
    SGLang server_args.py --dtype)."""
    precision = workload.precision
    name = {Precision.FP32: "float32", Precision.FP16: "float16"}.get(precision) if isinstance(
        precision, Precision) else None
    return () if name is None else (f"--dtype {name}",)


def sglang_command(workload: Workload, layout: Layout, model: str) -> str:
    """The same plan's flags for SGLang's server (python/sglang/srt/server_args.py): context, parallel
    sizes, quantization, an FP8 cache (SGLang names its format), the most running requests, no CUDA
    graphs. Its pool is sized by --mem-fraction-static (weights and KV cache together), not by vLLM's
    share, so that is left to SGLang's default rather than translated."""
    flags = ["python -m sglang.launch_server", f"--model-path {model}", f"--context-length {workload.seq}",
             *_dtype_flag(workload)]
    flags += [f"--{name}-size {size}" for name, size in (("tp", layout.tp), ("pp", layout.pp), ("dp", layout.dp))
              if size > 1]
    method = VLLM_QUANTIZATION.get(workload.precision.value)
    if method:
        flags.append(f"--quantization {method}")
    if workload.kv_precision is not None and workload.kv_precision.value.startswith("fp8"):
        flags.append("--kv-cache-dtype fp8_e5m2")
    if workload.max_num_seqs is not None:
        flags.append(f"--max-running-requests {workload.max_num_seqs}")
    if workload.enforce_eager:
        flags.append("--disable-cuda-graph")
    return " ".join(flags)


class Vllm:
    """vLLM: serving with a paged KV pool (SGLang's command is printed beside its own)."""

    options = OPTIONS
    runtime = Runtime.VLLM
    kv_formats = (Precision.FP32, Precision.FP16, Precision.BF16, Precision.FP8)
    weight_ladder = ("bf16", "fp8", "gptq-int8", "awq-int4")
    kv_ladder = (Precision.BF16, Precision.FP8)
    card_rules = VLLM_CARD_RULES
    batch_key = "batch"
    max_batch: int | None = None  # the request's own limit
    rank_overhead_bytes = VLLM_TP_COMMUNICATION
    keeps_activation_peak_whole = True

    def default_overhead(self, fields: Mapping[str, object]) -> int:
        return VLLM_NON_TORCH + (0 if fields["enforce_eager"] else VLLM_CUDA_GRAPHS)

    def card_key(self, workload: Workload, gpu: GpuSpec) -> object:
        """The card itself: the pool it sizes from the card's memory (which must hold the sequences asked), its KV
        block there and the batch defaults the profiling run's peak follows all change with it."""
        return gpu

    def check(self, workload: Workload) -> None:
        refuse_training(workload)
        refuse_gguf(workload)
        check_kv_formats(workload, ("kv_precision",), self.kv_formats)
        if workload.gpu is not None and workload.gpu.kind is GpuKind.APPLE:
            raise ValidationError("runtime", "vllm", "vLLM runs on the CPU on macOS (VLLM_TARGET_DEVICE cpu, its only "
                                  "device there; the vllm-metal plugin is not modelled): choose llama.cpp or "
                                  "transformers for the Mac's GPU")
        if workload.precision.value in BNB_FORMATS:  # dropped by vLLM 0.34
            raise ValidationError("precision", workload.precision.value, "vLLM 0.34 has no bitsandbytes method or "
                                  "loader (its quantization methods list none; RFC vllm-project/vllm#39583): run it "
                                  "with transformers, or choose fp8, awq-int4 or gptq-int4 on vLLM")
        if workload.precision is Precision.FP16 and workload.model.model_type in VLLM_NO_FP16:
            raise ValidationError("precision", "fp16", f"vLLM refuses float16 for {workload.model.model_type} "
                                  "(numerical instability, config/model.py _check_valid_dtype): bf16 or fp32")
        if workload.model.count_kind(AttentionKind.CROSS):
            raise ValidationError("runtime", "vllm", "vLLM dropped Llama 3.2 Vision (MllamaForConditionalGeneration) "
                                  "with its V0 encoder-decoder runner (vllm-project/vllm#24907, 2025-09): run "
                                  "transformers")
        encoder = workload.model.encoder if workload.embeds else None
        if encoder is not None and encoder.family not in VLLM_ENCODERS:
            kind = "JinaBERT v2 (ALiBi)" if encoder.family.startswith("jina-bert-v2") else encoder.family
            raise ValidationError("runtime", "vllm", f"vLLM has no {kind}: its encoders are BERT, RoBERTa, "
                                                     "XLM-RoBERTa, ModernBERT, nomic-bert and GTE (models/registry.py)")
        check_vllm_draft(workload, Layout(tp=workload.tp or 1, pp=workload.pp or 1))  # several GPUs: resolve_layout
        given = workload.max_num_batched_tokens
        if encoder is not None and given is not None and given < workload.seq:  # config/scheduler.py
            raise ValidationError("max_num_batched_tokens", given, f"vLLM runs an encoder's prompt in one step (no "
                                  f"chunked prefill): it must hold max_model_len, {workload.seq:,} tokens")
        reserve, card = workload.reserve_bytes or 0, workload.gpu
        claimed = card.usable_bytes * vllm_utilization(workload) if card is not None else 0
        # the extensible cache's budget is a cap, not a claim (v1/worker/utils.py:783-787): no refusal there
        if reserve and card is not None and claimed > card.usable_bytes - reserve and not vllm_extensible(workload):
            # vLLM claims its share of the card's total memory and stops at start when less is free
            # (gpu_worker.py: "Free memory on device ... is less than desired GPU memory utilization")
            room = (card.usable_bytes - reserve) / card.usable_bytes
            raise ValidationError("reserve_gb", f"{reserve / GB:g}", f"vLLM claims gpu_memory_utilization of the card "
                                  f"and stops if less is free: with this held by other programs, set "
                                  f"gpu_memory_utilization to {math.floor(room * 100) / 100:g} or less")

    def run_format(self, model: ModelSpec, precision: Precision | WeightFormat, *,
                   training: bool) -> Precision | WeightFormat:
        return gpt_oss_mxfp4(model, run_as_published(model, precision, training=training))

    def notes(self, workload: Workload) -> tuple[str, ...]:
        model = workload.model
        profiled = model.vision is not None and not workload.text_only and not (workload.images or workload.videos)
        if not chunks_prompts(workload):  # an encoder: no profiling run, no pool claimed (v1/engine/core.py)
            return ()
        return ("note.vllm_fit", *(("note.vllm_mm_profile",) if profiled and not workload.embeds else ()))

    def command(self, workload: Workload, layout: Layout, model: str) -> tuple[str, ...]:
        """`vllm serve` with the settings the pool was sized with; a GPU format named (AWQ and GPTQ need a
        checkpoint quantised so; FP8 quantises a 16-bit one as it loads)."""
        flags = [f"vllm serve {model}", f"--max-model-len {workload.seq}", *_dtype_flag(workload)]
        if workload.gpu_memory_utilization is not None:  # none: vLLM's own default, as the pool was sized
            flags.append(f"--gpu-memory-utilization {workload.gpu_memory_utilization:g}")
        if workload.no_extensible_kv_cache:
            flags.append("--no-enable-extensible-kv-cache")
        if workload.embeds:
            flags.append("--runner pooling")
        if workload.text_only and workload.model.vision is not None:  # no tower loaded, no dummy images profiled
            flags.append("--language-model-only")
        reranker = workload.model.reranker
        if workload.embeds and reranker is not None and reranker.from_head:  # the online conversion's overrides
            overrides: dict[str, object] = {"architectures": [reranker.architecture],
                                            "classifier_from_token": list(reranker.tokens)}
            overrides.update({"is_original_qwen3_reranker": True} if reranker.architecture.startswith("Qwen3") and (
                reranker.method == "from_2_way_softmax") else {"method": reranker.method})
            flags.append(f"--hf_overrides '{json.dumps(overrides)}'")
        method = VLLM_QUANTIZATION.get(workload.precision.value)
        if method:
            flags.append(f"--quantization {method}")
        if workload.max_num_seqs is not None:
            flags.append(f"--max-num-seqs {workload.max_num_seqs}")
        if workload.max_num_batched_tokens is not None:
            flags.append(f"--max-num-batched-tokens {workload.max_num_batched_tokens}")
        flags += [f"--{name}-parallel-size {size}" for name, size in (("tensor", layout.tp), ("pipeline", layout.pp),
                                                                      ("data", layout.dp)) if size > 1]
        if workload.kv_precision is not None and workload.kv_precision.value.startswith("fp8"):
            flags.append("--kv-cache-dtype fp8")
        if workload.enforce_eager:
            flags.append("--enforce-eager")
        if workload.mtp:  # speculative decoding with the model's own MTP layers
            flags.append(f"--speculative-config '{{\"method\": \"mtp\", \"num_speculative_tokens\": {workload.mtp}}}'")
        draft = workload.draft_model
        if draft is not None:  # a Gemma 4 drafter runs as an MTP proposer (config/speculative.py gemma4_mtp)
            config = {"method": "mtp" if draft.drafter_backbone else "draft_model", "model": hf_reference(draft),
                      "num_speculative_tokens": VLLM_DRAFT_TOKENS}
            flags.append(f"--speculative-config '{json.dumps(config)}'")
        published = _published(workload)
        return " ".join(flags) + published, SGLANG_HEADER, sglang_command(workload, layout, model) + published

    def default_layout(self, model: ModelSpec, gpus: int, *, training: bool) -> Layout:
        return default_layout(model, gpus, training=training)

    def breakdown(self, workload: Workload) -> EngineBreakdown:
        """What the requested sequences need, and the pool the engine would build on the card."""
        model = workload.model
        card = workload.gpu.usable_bytes if workload.gpu else 0
        default_seqs = card_batch_defaults(workload)[1]
        batched = vllm_batched_tokens(workload)
        if not chunks_prompts(workload):
            # an encoder-only pooling model: no KV-cache spec, so EngineCore._initialize_kv_caches neither profiles
            # nor builds a pool ("Attention free models don't need memory for kv cache"); the card then holds the
            # weights, the largest step (max_num_batched_tokens) the caching allocator keeps, and the overhead
            held = given_overhead(workload, workload.held_bytes, "vLLM", self.default_overhead(vars(workload)),
                                      lambda: phrase("vllm.overhead", bytes=format_binary(workload.overhead_bytes),
                                                     eager=workload.enforce_eager))
            return EngineBreakdown(components=embedding_components(workload, batch=1, seq=batched, engine="vLLM",
                                                                   overhead=held))
        seqs = workload.max_num_seqs or default_seqs
        kv_precision = workload.effective_kv_precision
        block = vllm_kv_block(model, kv_precision, workload.gpu)
        tokens = vllm_kv_tokens(workload.seq, block)
        draft = vllm_own_cache_draft(workload)
        kv = workload.batch * (model_sequence_bytes(workload, tokens)
                               + draft_sequence_bytes(draft, kv_precision, tokens))
        # a pooling model's profiling run pools instead of sampling (GPUModelRunner.profile_run): no sampler term
        pooling = workload.embeds
        peak = (0 if pooling else VLLM_SAMPLER_BYTES * min(seqs, batched) * model.vocab) + VLLM_PEAK_BASE
        items, item_tokens, encoder, pairs = vllm_encoder_dummy(workload, batched, seqs)
        outputs = items * item_tokens * model.hidden * (int(workload.activation_precision.bits) // 8)
        forward = peak
        peak = max(peak + outputs, encoder) if encoder else peak  # the outputs stay cached through the forward
        profiled = peak
        proposer = vllm_mtp_buffers(workload, batched, seqs) + vllm_speculator_buffers(workload, batched, seqs)
        peak += proposer
        weights = with_draft_weights(workload, weights_bytes(workload))
        overhead = workload.overhead_bytes
        extensible = vllm_extensible(workload)
        # the graphs the extensible cache's reservation leaves out: the default overhead's (a given one: unknown)
        graphs = 0 if workload.overhead_given or workload.enforce_eager else VLLM_CUDA_GRAPHS
        pool = vllm_pool(model, kv_precision, gpu_bytes=card, utilization=vllm_utilization(workload),
                         non_kv=weights.bytes + peak + overhead, seq=workload.seq, gpu=workload.gpu,
                         margin=vllm_margin(workload.gpu, profiled) if extensible else None,
                         free=card - (workload.reserve_bytes or 0) - startup_context(workload.gpu), graphs=graphs,
                         draft=draft)
        facts = VllmFacts(gpu=workload.gpu.display_name if workload.gpu else None,
                          gpu_memory_utilization=vllm_utilization(workload), pool=pool,
                          max_num_batched_tokens=batched, max_num_seqs=seqs, block_tokens=block,
                          max_model_len=workload.seq, utilization_given=workload.gpu_memory_utilization is not None,
                          transient_peak=profiled)
        components = (
            weights,
            no_component("gradients", "gradients.none"),
            no_component("optimizer", "optimizer.none"),
            no_component("master_weights", "master_weights.none"),
            kv_component(workload, kv, facts),
            Component(key="activations", bytes=peak, explain=lambda: (phrase(
                "vllm.pooling_peak" if pooling else "vllm.peak", seqs=seqs, vocab=f"{model.vocab:,}",
                batched=f"{batched:,}", bytes=format_binary(forward)), *((phrase(
                    "vllm.encoder_video" if pairs else "vllm.encoder", items=items, pairs=pairs,
                    tokens=f"{item_tokens:,}", bytes=format_binary(encoder), outputs=format_binary(outputs),
                    peak=format_binary(profiled)),) if encoder else ()), *((phrase(
                    "vllm.draft_buffers" if draft else "vllm.drafter_buffers" if workload.draft_model else
                    "vllm.mtp_buffers", batched=f"{batched:,}",
                    bytes=format_binary(proposer), total=format_binary(peak)),) if proposer else ()))),
            no_component("logits", "logits.embedding" if pooling else "vllm.logits"),
            given_overhead(workload, overhead, "vLLM", self.default_overhead(vars(workload)), lambda: phrase(
                "vllm.overhead", bytes=format_binary(overhead), eager=workload.enforce_eager), holds_reserve=False),
        )
        return EngineBreakdown(components=components, facts=facts)

    def rank_pool(self, workload: Workload, facts: EngineFacts | None, components: Mapping[str, int],
                  kv_share: float, *, whole: bool) -> RankPool | None:
        """What vLLM on this GPU fills with KV blocks: its utilization share of the card minus this
        GPU's weights, activation peak and overhead; the blocks hold this GPU's share of the heads.
        On one GPU, the pool of the breakdown itself."""
        if not isinstance(facts, VllmFacts):  # an encoder's pooling runner: no KV pool
            return None
        if whole:
            return RankPool(kv_pool_bytes=facts.pool.kv_pool_bytes, kv_tokens=facts.pool.kv_tokens,
                            max_concurrency=round(facts.pool.max_concurrency, 2))
        pool = max(0, facts.pool.budget - sum(v for k, v in components.items() if k != "kv_cache"))
        kv_precision = workload.effective_kv_precision  # kv_share: a draft's heads at their own (draft_kv_shares)
        block = (vllm_block_bytes(workload.model, kv_precision, facts.block_tokens)
                 + draft_block_bytes(vllm_own_cache_draft(workload), kv_precision, facts.block_tokens)) * kv_share
        per_sequence = components.get("kv_cache", 0) / max(1, workload.batch)
        return RankPool(kv_pool_bytes=pool, kv_tokens=int(pool // block) * facts.block_tokens if block else 0,
                        max_concurrency=round(pool / per_sequence, 2) if per_sequence else None)

    def settings_that_fit(self, workload: Workload, fits: Callable[[Workload], bool]) -> tuple[Phrase, ...]:
        """A larger gpu_memory_utilization (the smallest, in hundredths up to 0.95, that fits: a larger pool
        on the same card) and a smaller max_num_seqs (the largest that fits, at least the batch: a smaller
        sampler in the profiling run's peak)."""
        found = []
        if vllm_extensible(workload):  # 0.34 sizes from measured memory: leaving it unset gives the largest pool
            if workload.gpu_memory_utilization is not None and fits(workload.but(gpu_memory_utilization=None)):
                found.append(phrase("change.gpu_memory_utilization_unset"))
        else:
            current = round(vllm_utilization(workload) * 100)
            for hundredths in range(current + 1, round(VLLM_MAX_SUGGESTED_UTILIZATION * 100) + 1):
                if fits(workload.but(gpu_memory_utilization=hundredths / 100)):
                    found.append(phrase("change.gpu_memory_utilization", value=f"{hundredths / 100:.2f}"))
                    break
        seqs = workload.max_num_seqs or card_batch_defaults(workload)[1]
        most = last_true(lambda n: fits(workload.but(max_num_seqs=n)), workload.batch, seqs - 1)  # fewer need less
        if most is not None:
            found.append(phrase("change.max_num_seqs", value=most))
        return tuple(found)

    def on_layout(self, breakdown: Breakdown, pool: RankPool, layout: Layout) -> Breakdown:
        """The breakdown as it reads on a layout of several GPUs: vLLM builds a pool on each GPU, so the
        pool it reports (its facts, the KV-cache row) is that of the most loaded GPU, not of one GPU
        holding the whole model."""
        facts = breakdown.facts
        if not isinstance(facts, VllmFacts):
            return breakdown
        whole = facts.pool  # the reservation less the pool is the same on each GPU: the graphs and the margin
        rank = dataclasses.replace(
            whole, kv_pool_bytes=pool.kv_pool_bytes, kv_tokens=pool.kv_tokens, logged_tokens=0, block_bytes=0,
            max_concurrency=math.inf if pool.max_concurrency is None else pool.max_concurrency,
            capacity_bytes=max(0, whole.capacity_bytes - whole.kv_pool_bytes + pool.kv_pool_bytes)
            if whole.margin_bytes else 0)
        facts = dataclasses.replace(facts, pool=rank, gpus=layout.gpus, layout=layout.describe())
        components = tuple(kv_component(breakdown.workload, c.bytes, facts) if c.key == "kv_cache" else c
                           for c in breakdown.components)
        return dataclasses.replace(breakdown, components=components, facts=facts)


ENGINE = Vllm()
