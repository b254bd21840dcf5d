"""The KV cache of `generate()`: what each layer kind keeps per token (model/families/decoder/spec.py)."""

from __future__ import annotations

from ..core.dtypes import Precision
from ..core.phrase import Formula, join, phrase
from ..core.units import format_binary
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.families.vision import cross_tokens
from ..workload import Workload
from .components import Component

# ---------------------------------------------------------------- KV cache


def kv_cache_bytes(workload: Workload) -> Component:
    """KV cache = batch × Σ over layers of what each layer keeps × bytes per value.

    Full attention: 2 (K and V) × kv_heads × head_dim per token (grouped-query attention
    enters through kv_heads: vLLM `AttentionSpec.page_size_bytes`; Kwon et al. 2023).
    Sliding-window and chunked layers keep at most their window; MLA layers one latent of
    kv_lora_rank + qk_rope_head_dim per token; linear-attention layers a fixed state.
    Inference only: training runs without a cache."""
    if workload.is_training:
        return Component(key="kv_cache", bytes=0, explain=lambda: phrase("kv_cache.none"))
    model = workload.model
    precision = workload.effective_kv_precision
    values = workload.batch * (model.kv_values_per_sequence(workload.seq)
                               + model.cross_kv_values(image_cross_tokens(workload)))
    if model.repeated_kv_cache:  # FalconAttention broadcasts K and V to every head before it caches them
        values = values * model.heads // model.kv_heads
    e = int(workload.activation_precision.bits) // 8
    num_bytes = precision.bytes_for(values) + workload.batch * (
        model.recurrent_state_bytes(e) + model.indexer_bytes(workload.seq, e, fp8_packed=False))
    return Component(
        key="kv_cache",
        bytes=num_bytes,
        explain=lambda: kv_explain(model, workload, precision, e, num_bytes),
    )


def image_cross_tokens(workload: Workload) -> int:
    """The vision tokens each sequence's cross-attention layers cache: its images' (Llama 3.2 Vision), none
    without images."""
    vision = workload.model.vision
    return workload.images * cross_tokens(vision) if vision is not None and vision.tiles else 0


def kv_explain(model: ModelSpec, workload: Workload, precision: Precision, e: int, num_bytes: int) -> Formula:
    """Which layers keep what, in words: '6 layers × 2 (K and V) × 8 KV heads × 128 × 32,768 tokens
    + 30 sliding layers × ... × 1,024 tokens (window 1,024)', and the linear layers' fixed state."""
    parts = []
    for kind, _ in model.kind_counts():
        if not kind.caches_tokens:
            continue
        per_token = (phrase("kv_cache.mla_width", width=model.mla_of(kind).latent_width) if model.mla
                     else phrase("kv_cache.k_is_v", head_dim=model.head_dim) if model.compressed
                     else phrase("kv_cache.kv_width", kv_heads=model.kv_heads_of(kind),
                                 head_dim=model.head_dim_of(kind)) if not model.v_head_dim
                     else phrase("kv_cache.kv_width_v", kv_heads=model.kv_heads_of(kind),
                                 head_dim=model.head_dim_of(kind), v_dim=model.v_dim_of(kind)))
        count = model.cached_layers(kind)
        kept = model.tokens_kept(kind, workload.seq)
        parts.append(phrase(f"kv_cache.layers.{kind.value}", count=count, per_token=per_token, kept=f"{kept:,}",
                             window=f"{model.sliding_window or model.attention_chunk:,}"))
    if cross := model.count_kind(AttentionKind.CROSS):  # Llama 3.2 Vision: the images' tokens, not the text's
        parts.append(phrase("kv_cache.layers.cross", count=cross, per_token=phrase(
            "kv_cache.kv_width", kv_heads=model.kv_heads, head_dim=model.head_dim),
                             kept=f"{image_cross_tokens(workload):,}", images=workload.images))
    if model.compressed:
        parts.append(phrase("kv_cache.layers.compressed", csa=model.compressed.rates[0], hca=model.compressed.rates[1],
                            values=f"{model.compressed.values(workload.seq, model.head_dim):,}"))
    text: Formula = (phrase("kv_cache.formula", batch=workload.batch, layers=join(" + ", parts), bits=precision.bits,
                            precision=precision.value) if parts else phrase("kv_cache.no_attention"),)
    if model.indexer is not None:
        text += (phrase("kv_cache.indexer", batch=workload.batch, head_dim=model.indexer.head_dim,
                        bytes=format_binary(model.indexer_bytes(workload.seq, e, fp8_packed=False))),)
    if model.linear is not None:
        text += (phrase("kv_cache.linear", batch=workload.batch, count=model.count_kind(AttentionKind.LINEAR),
                        state=format_binary(model.linear.state_bytes(e))),)
    mamba_layers = dict(model.recurrent_counts()).get(AttentionKind.MAMBA, 0)
    if model.mamba is not None and mamba_layers:
        text += (phrase("kv_cache.mamba", batch=workload.batch, count=mamba_layers,
                        state=format_binary(model.mamba.state_bytes(e))),)
    if model.cca is not None:  # ZayaCCAProjection's conv_states and recurrent_states, in the compute type
        text += (phrase("kv_cache.cca", batch=workload.batch, count=model.layers,
                        state=format_binary(model.cca.state_values(model.q_dim, model.kv_dim) * e)),)
    if model.short_conv is not None and model.count_kind(AttentionKind.CONV):
        text += (phrase("kv_cache.conv", batch=workload.batch, count=model.count_kind(AttentionKind.CONV),
                        state=format_binary(model.short_conv.state_bytes(e))),)
    return (*text, " = ", format_binary(num_bytes))
