"""Inference: one decoder layer's prefill temporaries, as transformers' implementations allocate
them (measured with tools/measure_peak.py), and the prompt window the peak sits in.

Letters in the formulas follow saved.py's legend: e bytes per value (the `value_bytes` argument),
s sequence length, h hidden size, a heads, d head dimension, I MLP width, E experts, k experts per token.
"""

from __future__ import annotations

from ....core.choices import Attention
from ....core.dtypes import FP32_BYTES
from .saved import LINEAR_ATTENTION_CHUNK
from .spec import AttentionKind, Block, ModelSpec
from .traits import traits


def _prefill_hidden(model: ModelSpec, value_bytes: int) -> int:
    """Hidden states alive while a layer's MLP runs, per token: the embeddings (the model keeps
    `inputs_embeds`), the layer's input (its caller's variable), the residual and the normalised
    copy (4·h·e), and the rotary cos and sin (2·d·e). GPT-2: the token and position embeddings,
    their sum, and the same three (6·h·e). While attention runs the residual is still the layer's
    input (`residual = hidden_states` in every decoder layer), so one h·e fewer. Gemma 3n (estimated, and said:
    analysis/evaluate.py): AltUp's n streams and their predictions (2·n·h·e, Gemma3nTextDecoderLayer.forward), the
    Laurel block's middle (rank·e) and every layer's per-layer input (L·p·e), held through the forward."""
    e = value_bytes
    if model.block is Block.GPT2:
        return 6 * model.hidden * e
    altup = 2 * model.altup_inputs * model.hidden + model.laurel_rank + model.layers * model.per_layer_input
    return 4 * model.hidden * e + 2 * model.head_dim * e + (altup * e if model.altup_inputs else 0)


def _prefill_masks(model: ModelSpec, value_bytes: int, attention: Attention, batch: int, seq: int) -> int:
    """The attention masks of a prefill, built once per layer type by the model's forward
    (transformers' masking_utils) and kept through every layer.
    Eager: each is `eager_mask`'s batch × 1 × s × s additive mask in the compute type: one for the
    full layers, one per window kind (sliding, chunked). SDPA: the full layers' mask is skipped
    (`_ignore_causal_mask_sdpa`: no padding, the kernel's is_causal); a window shorter than the prompt
    cannot be, and `sdpa_mask` builds it as a bool tensor: a sliding window's 1 × 1 × s × s expanded
    over the batch (s² bytes whatever the batch), a chunked one's batch × 1 × s × s (its mask function
    reads each sequence's left padding: `create_chunked_causal_mask`). Linear-attention layers use no
    s × s mask."""
    e = value_bytes
    window_kinds = {kind for kind, _ in model.kind_counts() if kind in (AttentionKind.SLIDING, AttentionKind.CHUNKED)}
    dead = traits(model.model_type).always_sliding_mask and AttentionKind.SLIDING not in window_kinds
    if attention is Attention.EAGER:
        built = len(window_kinds) + (model.count_kind(AttentionKind.FULL) > 0 or not model.kinds) + dead
        return built * batch * seq * seq * e
    masks = dead * seq * seq
    for kind in window_kinds:
        if model.tokens_kept(kind, seq) < seq:
            masks += (batch if kind is AttentionKind.CHUNKED else 1) * seq * seq
    return masks


def _prefill_attention(model: ModelSpec, value_bytes: int, attention: Attention, seq: int, kind: AttentionKind) -> int:
    """The layer's mixer's temporaries per token (`_prefill_mixer`); Falcon-H1's attention and Mamba mixer
    side by side, estimated as held together."""
    mixer = _prefill_mixer(model, value_bytes, attention, seq, kind)
    return mixer + _prefill_mamba(model, value_bytes) if model.parallel_mamba else mixer


def _prefill_mixer(model: ModelSpec, value_bytes: int, attention: Attention, seq: int, kind: AttentionKind) -> int:
    """Attention's temporaries per token. SDPA / flash: the rotated q, the output and its
    transposed copy (3·a·d·e) and the fp32 log-sum-exp. On a sliding or chunked layer shorter than
    the prompt transformers passes SDPA the window as a mask (`_prefill_masks`), so it cannot use
    `enable_gqa` and repeats K and V to every head (integrations/sdpa_attention.py `use_gqa_in_sdpa`,
    `repeat_kv`), and torch turns the bool mask into an additive one in the compute type for the
    batch (s·e per token, freed when the kernel returns): q, K and V repeated and the output
    (4·a·d·e), then the larger of the mask with the log-sum-exp, or the output's transposed copy.
    Eager: q and K, V repeated (3·a·d·e) and per head a row of s scores: in the compute type, its
    fp32 copy and the fp32 softmax (e + 4 + 4; fp32 models: 4 + 4; models whose softmax runs in
    the compute type: 3·e). Gemma 2's soft-cap adds nothing at the peak: its three steps (÷ cap, tanh,
    × cap) each replace the scores, and the last is freed by the mask's add before the softmax
    (models/gemma2/modeling_gemma2.py `eager_attention_forward`); training keeps the tanh for backward."""
    e = value_bytes
    if kind is AttentionKind.LINEAR:
        return _prefill_linear_attention(model, e, seq)
    if kind is AttentionKind.MAMBA:
        return _prefill_mamba(model, e)
    if kind is AttentionKind.CONV:  # estimated: in_proj's 3h output, B·x, the convolution's output, C times it
        return 6 * model.hidden * e
    if kind is AttentionKind.NONE:
        return 0
    a, d = model.heads_of(kind), model.head_dim
    # Qwen3-Next's gated attention: q_proj also yields a gate, reshaped into its own copy (a·d·e) that
    # waits through the attention; on SDPA its sigmoid and the gated output then outgrow the kernel's
    # moment (q, gate, output, sigmoid, product: 5·a·d·e; Qwen3NextAttention.forward).
    gate = a * d * e if model.attention_gate else 0
    if attention is Attention.FLASH:
        if kind in (AttentionKind.SLIDING, AttentionKind.CHUNKED) and model.tokens_kept(kind, seq) < seq:
            return 4 * a * d * e + max(seq * e + FP32_BYTES * a, a * d * e) + gate
        if model.attention_gate:
            return 5 * a * d * e + FP32_BYTES * a
        return 3 * a * d * e + FP32_BYTES * a
    if traits(model.model_type).softmax_in_compute_type or model.block is Block.GPT2:
        scores = 3 * e
    else:
        scores = e + 2 * FP32_BYTES if e != FP32_BYTES else 2 * FP32_BYTES
    return 3 * a * d * e + a * seq * scores + gate


def _prefill_linear_attention(model: ModelSpec, value_bytes: int, seq: int) -> int:
    """A Gated DeltaNet layer's temporaries per token in a prefill, as transformers' torch fallback
    computes it (models/qwen3_next/modeling_qwen3_next.py `torch_chunk_gated_delta_rule`, used when
    the flash-linear-attention kernels are not installed, on GPU as on CPU; FLA's fused kernels never
    hold these fp32 chunks). With nk key heads and vh value heads of dk and dv, chunks of C, its peak
    is the last reshape of the output:
    - in Qwen3NextGatedDeltaNet.forward: the qkvz projection ((2·nk·dk + 2·vh·dv)·e, kept by its
      name while z is a copy of part of it: vh·dv·e), the b/a projection (2·vh·e), the convolution's
      activated output (conv_dim·e, q, k and v are views of it), beta (vh·e) and the fp32 decay (4·vh);
    - in the chunked rule, all fp32 over the prompt padded to a multiple of C: five of width
      vh·dk (q and k decayed, k·beta, its decayed copy, k_cumdecay), five of width vh·dv (v padded,
      v·beta, the solved values, the output and its reshaped copy), three C-wide per head
      (the pairwise decays, the UT system and the intra-chunk attention) and beta, the decay and its
      cumulative sum (20·vh·(dk + dv) + 12·vh·C + 12·vh)."""
    e = value_bytes
    lin = model.linear
    assert lin is not None  # called for LINEAR layers only, which exist only with a LinearAttention spec
    vh, nk, dk, dv, c = lin.value_heads, lin.key_heads, lin.key_head_dim, lin.value_head_dim, LINEAR_ATTENTION_CHUNK
    forward = (2 * nk * dk + 2 * vh * dv + vh * dv + 2 * vh + lin.conv_dim + vh) * e + FP32_BYTES * vh
    padded = -(-seq // c) * c
    chunked = FP32_BYTES * (5 * vh * (dk + dv) + 3 * vh * c + 3 * vh)
    return forward + chunked * padded // seq


def _prefill_mamba(model: ModelSpec, value_bytes: int) -> int:
    """A Mamba-2 mixer's temporaries per token in a prefill, estimated (not measured: evaluate.assumptions
    says so): in_proj's output (inner + conv_dim + heads), the convolution's output (conv_dim), the scan's
    fp32 output and the gated norm's fp32 copy (2·inner), the fp32 time steps (heads)."""
    m = model.mamba
    assert m is not None  # called for MAMBA layers only, which exist only with a Mamba spec
    return (m.inner + 2 * m.conv_dim + m.heads) * value_bytes + FP32_BYTES * (2 * m.inner + m.heads)


def _prefill_mlp(model: ModelSpec, value_bytes: int) -> int:
    """The MLP's temporaries per token. Gated, separate gate and up (Llama): the activation, up and
    their product (3·I·e); fused gate_up (Phi-3) 4·I·e; tanh-GELU written out (GPT-2, Phi) 4·I·e.
    Mixture of experts: `_prefill_moe`."""
    e = value_bytes
    dense = 0
    if model.moe_layer_count < model.layers:
        dense = (3 if model.gated_mlp and not model.fused_qkv else 4) * model.ffn * e
    if model.moe is None:
        return dense
    return max(dense, _prefill_moe(model, e))
ROUTED_INDEX_BYTES = 36  # per routed copy: top-k index, sorted ids, permutation, inverse (int64) and histc's fp32 ids


def _prefill_moe(model: ModelSpec, value_bytes: int) -> int:
    """An MoE layer's temporaries per token in a prefill, as transformers 5 runs its experts by default
    (`grouped_mm`, integrations/moe.py `grouped_mm_experts_forward`; the default on CPU and on CUDA from
    sm80): the k routed copies of every token are gathered in expert order and run together. Its peak is
    the larger of two moments:
    - the up projection: per copy the gathered input, the fused gate_up output, act(gate) and the
      product, (h + 4·I)·e (`_default_apply_gate`);
    - the routing weights: per copy the gathered input and the down projection's output (2·h·e), that
      output times the routing weight and its copy put back in token order (2·h·w, with w the weights'
      dtype: fp32 where `Traits.fp32_routing_weights`, which promotes the product to fp32), and at the end
      the sum over the k copies and its cast (h·w + h·e) with one of the two products gone.
    Around it: the router's logits (E, fp32 or e; kept by the caller's `_`), per copy the routing
    weight twice (2·w) and the index bookkeeping (ROUTED_INDEX_BYTES). A shared expert (a dense MLP,
    3·I_s·e) runs after the routed ones, which leaves their output (h·e) alive, or first, whose output
    waits through the routed ones (`Traits.shared_expert_first`). Llama 4 (models/llama4/modeling_llama4.py
    Llama4TextMoe, Llama4TextExperts) runs every token through all E experts with two bmm: per copy the
    scaled input, gate_up, act(gate) and the product ((h + 4·I)·e), or at the down bmm the input,
    gate_up, the product and the output ((2·h + 3·I)·e); then the shared expert (3·I_s·e) while the
    experts' output (E·h·e) waits; the router's logits and scores (2·E·e) throughout."""
    e = value_bytes
    moe, h = model.moe, model.hidden
    assert moe is not None  # _prefill_mlp calls it only for models with experts
    shared = 3 * moe.shared_ffn * e
    model_traits = traits(model.model_type)
    if model_traits.all_experts_per_token:
        experts = moe.experts * max(h + 4 * moe.ffn, 2 * h + 3 * moe.ffn) * e
        return max(experts, moe.experts * h * e + shared) + 2 * moe.experts * e
    k = moe.per_token
    w = FP32_BYTES if model_traits.fp32_routing_weights else e
    logits = moe.experts * (FP32_BYTES if model_traits.fp32_router else e)
    up = k * (h + 4 * moe.ffn) * e
    weighted = max(k * (2 * h * e + 2 * h * w), k * (2 * h * e + h * w) + h * w + h * e)
    routed = max(up, weighted) + logits + k * (2 * w + ROUTED_INDEX_BYTES)
    if not moe.shared_ffn:
        return routed
    if model_traits.shared_expert_first:
        return max(shared, h * e + routed)
    return max(routed, h * e + shared)


def prefill_per_token(model: ModelSpec, value_bytes: int, attention: Attention, seq: int) -> int:
    """Bytes per prompt token at the prefill's peak inside the largest layer (memory/activations.py says
    which two moments it is the larger of)."""
    e = value_bytes
    hidden = _prefill_hidden(model, e)
    attention_peak = max(_prefill_attention(model, e, attention, seq, kind)
                         for kind, _ in model.kind_counts() or ((AttentionKind.FULL, 0),))
    # Eager attention returns its probabilities (batch × a × s × s in the compute type) and every decoder
    # layer binds them to `_` (`hidden_states, _ = self.self_attn(...)`, e.g. models/llama/modeling_llama.py
    # LlamaDecoderLayer.forward), so they stay alive through the MLP. SDPA returns None there.
    held = max(model.heads, model.sliding_heads) * seq * e if attention is Attention.EAGER and model.attends else 0
    if traits(model.model_type).attention_output_held:
        held += model.hidden * e
    mlp = _prefill_mlp(model, e) if model.has_mlp else 0
    return max(hidden - model.hidden * e + attention_peak, hidden + held + mlp)


def prefill_masks(model: ModelSpec, value_bytes: int, attention: Attention, batch: int, seq: int) -> int:
    """The attention masks the model builds once for the whole batch and keeps through the forward."""
    return _prefill_masks(model, value_bytes, attention, batch, seq)
