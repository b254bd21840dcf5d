"""Training: what one decoder layer (and the model around its layers) saves for backward, per token.

The training-activation formulas count exactly the tensors that Hugging Face
transformers' implementations save for backward (measured with
`tools/measure_reference.py`, golden data in tests/golden/), term by term, in
the spirit of Korthikanti et al. 2022 ("Reducing Activation Recomputation in
Large Transformer Models", arXiv:2205.05198, §4 and Table 2), whose GPT block
is sbh(34 + 5as/h) bytes per layer. Real blocks differ from the paper's: the
fp32 RMSNorm upcast, the gated MLP's four saved tensors, GPT-2's tanh-GELU
saving five, so the terms below follow the implementations.
Dropout masks are counted as CUDA stores them, one byte per element.

Letters in the formulas, as in the paper's Table 2 (functions take the long names, and bind the
letters at their top):

    e    bytes per activation value (the `value_bytes` argument: 2 in bf16, 4 in fp32)
    s    sequence length (`seq`)          b    micro-batch size
    h    hidden size (`model.hidden`)     a    attention heads (`model.heads`)
    kv   key/value heads                  d    head dimension
    I    MLP width (`ffn`)                E, k routed experts, and experts used per token
"""

from __future__ import annotations

import dataclasses
import math

from ....core.choices import Attention, Checkpointing
from ....core.dtypes import FP32_BYTES
from ...tensor import Tensor, stem
from .spec import AttentionKind, Block, ModelSpec, NormCompute, QkNorm
from .traits import traits

INDEX_BYTES = 8  # int64 token ids and labels
MASK_BYTES = 1  # a CUDA dropout mask: one bool per element
LAYERNORM_STATS_BYTES = 2 * FP32_BYTES  # LayerNorm keeps mean and 1/std per token, in fp32


# ---------------------------------------------------------------- training activations


def _norm_saved(model: ModelSpec, value_bytes: int, width: int, *, feeds_linear: bool, rows: int = 1) -> int:
    """Bytes per token one norm of `width` values saves (`rows` statistics: 1, or one per head).

    Llama RMSNorm: the fp32 upcast of its input (4w), 1/rms (4), the normalised value cast
    back (e·w, kept by the weight multiply).
    Gemma's (1 + weight) and OLMo 2's RMSNorm multiply in fp32: fp32 input (4w), 1/rms (4),
    the normalised fp32 value (4w).
    LayerNorm (GPT-2, Phi): its input (e·w) and fp32 mean and 1/std (8).
    Cohere's LayerNorm, written out in fp32: the fp32 input, the centred and the normalised
    values (3 × 4w) and the variance (4).
    The output (e·w) counts when a linear follows, which keeps it as its input."""
    e = value_bytes
    compute = model.norm_compute
    if compute is NormCompute.RMS_FP32:
        saved = 8 * width + FP32_BYTES * rows
    elif compute is NormCompute.LAYER:
        saved = e * width + LAYERNORM_STATS_BYTES * rows
    elif compute is NormCompute.LAYER_FP32:
        saved = 12 * width + FP32_BYTES * rows
    else:
        saved = 4 * width + FP32_BYTES * rows + e * width
    return saved + (e * width if feeds_linear else 0)


def _layer_norms_saved(model: ModelSpec, value_bytes: int, kind: AttentionKind) -> int:
    """The norms of one layer, by where they sit.

    Pre-norm (Llama): two norms, each feeding linears. Gemma: those two plus two after
    attention and the MLP that feed none. OLMo 2: only the two after, so attention's and the
    MLP's inputs are kept by their first linears (2·e·h). Parallel blocks (Phi, Cohere): one
    norm whose output feeds attention and the MLP. And q/k norms: per head (Qwen3, Gemma 3,
    Cohere) or over all heads (OLMo 2), never feeding a linear."""
    e = value_bytes
    h, a, kv, d = model.hidden, model.heads, model.kv_heads, model.head_dim
    if model.post_norms:
        norms = 2 * _norm_saved(model, e, h, feeds_linear=False) + 2 * e * h
    elif model.block is Block.GEMMA2:
        norms = 2 * _norm_saved(model, e, h, feeds_linear=True) + 2 * _norm_saved(model, e, h, feeds_linear=False)
    else:
        norms = model.norms_per_layer * _norm_saved(model, e, h, feeds_linear=True)
    if model.qk_norm is QkNorm.L2:  # fp32 input and 1/norm per head, for q and k; nothing cast back
        return norms + (FP32_BYTES * (a + kv) * d + FP32_BYTES * (a + kv) if kind is AttentionKind.CHUNKED else 0)
    if model.qk_norm is not None:
        per_head = model.qk_norm in (QkNorm.HEAD, QkNorm.PER_HEAD) or model.norm_compute is NormCompute.LAYER_FP32
        norms += _norm_saved(model, e, a * d, feeds_linear=False, rows=a if per_head else 1)
        norms += _norm_saved(model, e, kv * d, feeds_linear=False, rows=kv if per_head else 1)
    return norms


def _attention_saved(model: ModelSpec, value_bytes: int, attention: Attention, seq: int) -> int:
    """Bytes per token the attention block saves (norm excluded).

    Flash/SDPA: rotated q (a·d·e), k and v (kv·d·e each; Phi-3's v is a view of the fused
    qkv output, (a + 2kv)·d·e), the output (a·d·e, shared with o_proj's input except for
    Phi-3) and the fp32 log-sum-exp (4a). No s × s matrix (Dao et al. 2022).
    Eager: q and k repeated to all heads (a·d·e each), the fp32 softmax (4·a·s), its cast
    to the compute type (e·a·s, none in fp32), Gemma 2's soft-cap tanh (e·a·s), v repeated
    (a·d·e), and o_proj's input (a·d·e). (Phi-3 at batch 1 keeps v as a view of the fused
    qkv output instead, (a + 2kv)·d·e: a few percent more, not modelled.)
    GPT-2 (eager): copies of q, k, v (e·h each), softmax (e·a·s), dropout mask (a·s) and
    output (e·a·s), merged heads (e·h), residual dropout mask (h). GPT-2 flash: q, k, v,
    out (e·h each) and the log-sum-exp (4a); the kernel regenerates its dropout mask.
    """
    e = value_bytes
    a, d, kv, h = model.heads, model.head_dim, model.kv_heads, model.hidden
    per_head_row = a * seq  # one row of the attention matrix for every head
    if model.block is Block.GPT2:
        residual_dropout_mask = MASK_BYTES * h
        if attention is Attention.FLASH:
            return 4 * e * h + FP32_BYTES * a + residual_dropout_mask
        return (
            3 * e * h  # q, k, v made contiguous for matmul
            + e * per_head_row  # softmax output
            + MASK_BYTES * per_head_row  # attention dropout mask
            + e * per_head_row  # attention probabilities after dropout
            + e * h  # merged heads, c_proj input
            + residual_dropout_mask
        )
    v_storage = (a + 2 * kv) * d if model.fused_qkv else kv * d
    if attention is Attention.FLASH:
        return (
            e * a * d  # q after rotary
            + e * kv * d  # k after rotary
            + e * v_storage  # v
            + FP32_BYTES * a  # log-sum-exp
            + e * a * d  # output
            # Phi-3 and Phi copy the output before o_proj
            + (e * a * d if model.fused_qkv or model.block is Block.PHI else 0)
        )
    return (
        e * a * d  # q after rotary
        + e * a * d  # k repeated to every head
        + (FP32_BYTES * per_head_row  # softmax, computed in fp32
           + (e * per_head_row if e != FP32_BYTES else 0)  # probabilities cast back
           if not traits(model.model_type).softmax_in_compute_type else e * per_head_row)
        + (INDEX_BYTES * a if model.sinks else 0)  # gpt-oss: the row maximum's index, subtracted before softmax
        + (e * per_head_row if model.attention_softcap else 0)  # tanh soft-cap
        + e * a * d  # v repeated to every head (made contiguous for the matmul)
        + e * a * d  # o_proj input
    )


LINEAR_ATTENTION_CHUNK = 64  # transformers' torch chunk_gated_delta_rule


def _linear_attention_saved(model: ModelSpec, value_bytes: int) -> int:
    """Bytes per token a Gated DeltaNet layer saves, as transformers' torch fallback computes
    it (fp32, chunks of 64 tokens; measured on Qwen3-Next, within 2 %). With vh value heads of
    dv, keys repeated to vh heads of dk and a convolution over conv_dim channels:
    the convolution's input and output (2·conv_dim·e); the decay and beta gates (vh·(e + 8));
    q and k L2-normalised in fp32 (2·(4·vh·dk + 4·vh)), beta (4·vh), v in fp32 (4·vh·dv) and
    q scaled (4·vh·dk); inside each chunk four vh × C fp32 matrices per token, keys, values
    and queries again (4·vh·(4C + 3dk + dv) + 12·vh); the loop over chunks keeps the
    recurrent state and its products once per chunk (4·vh·(dk·dv + 2C·dv + C²/2 + dk·C)/C);
    the gated RMSNorm over the output (12·vh·dv + 4·vh + 2·e·vh·dv); o_proj's input (e·vh·dv).
    FLA's GPU kernels recompute most of this: the figure is what transformers saves without them."""
    e = value_bytes
    lin = model.linear
    assert lin is not None  # called for LINEAR layers only, which exist only with a LinearAttention spec
    vh, dk, dv, c = lin.value_heads, lin.key_head_dim, lin.value_head_dim, LINEAR_ATTENTION_CHUNK
    conv = 2 * lin.conv_dim * e
    gates = vh * (e + 8)
    qkv = 2 * (4 * vh * dk + 4 * vh) + 4 * vh + 4 * vh * dv + 4 * vh * dk
    chunk = 4 * vh * (4 * c + 3 * dk + dv) + 12 * vh
    loop = 4 * vh * (dk * dv + 2 * c * dv + c * c // 2 + dk * c) // c
    norm = 12 * vh * dv + 4 * vh + 2 * e * vh * dv
    return conv + gates + qkv + chunk + loop + norm + e * vh * dv


def _mamba_saved(model: ModelSpec, value_bytes: int) -> int:
    """Bytes per token a Mamba-2 mixer saves, estimated (not measured: evaluate.assumptions says so):
    in_proj's output (z, x, B, C and dt: inner + conv_dim + heads), the convolution's output (conv_dim),
    the fp32 time steps (heads) and scan output (inner), the gated RMSNorm's fp32 input and gate (2·inner)
    and out_proj's input (inner)."""
    e = value_bytes
    m = model.mamba
    assert m is not None  # called for MAMBA layers only, which exist only with a Mamba spec
    return (m.inner + 2 * m.conv_dim + m.heads + m.inner) * e + FP32_BYTES * (m.heads + 3 * m.inner)


LORA_MEASURED_NORMS = (NormCompute.RMS,)  # dense pre-norm RMSNorm blocks: what tools/measure_lora.py matched


def lora_measured(model: ModelSpec) -> bool:
    return (model.norm_compute in LORA_MEASURED_NORMS and not model.post_norms and model.block is Block.LLAMA
            and model.linear is None and model.moe is None and model.mla is None)


def _lora_delta(model: ModelSpec, value_bytes: int, attention: Attention, matrices: tuple[Tensor, ...], rank: int,
                dropout: float, adapter_value_bytes: int, *, moe: bool) -> int:
    """What LoRA changes in one layer's saved bytes per token, against full fine-tuning
    (measured with peft, tools/measure_lora.py).

    Frozen: a frozen matrix keeps no input for its weight's gradient, so the norms lose their
    normalised cast and their output (2 × 2·e·h), the MLP its down projection's input (e·I), eager
    attention its o_proj input (e·a·d). Adapters: lora_A keeps its input, once per input shared by
    the adapted matrices (e·h for q/k/v, e·h for gate/up, e·I for down, e·a·d for o under eager)
    or once per matrix when peft casts it to fp32 adapters or drops it out (a 1-byte mask and the
    dropped copy); lora_B keeps A's output (r per matrix)."""
    e = value_bytes
    h, q = model.hidden, model.q_dim
    dense_ffn = 0 if moe else model.ffn
    shared_ffn = model.moe.shared_ffn if moe and model.moe else 0
    eager = attention is Attention.EAGER
    delta = -2 * 2 * e * h - e * (dense_ffn + shared_ffn) - (e * q if eager else 0)
    if model.qk_norm is QkNorm.HEAD:  # frozen q/k norms keep no cast for their weights' gradient
        delta -= e * (q + model.kv_dim)
    groups: dict[str, list[int]] = {}
    for t in matrices:
        groups.setdefault(_lora_source(stem(t.name)), []).append(t.shape[1])
        delta += rank * adapter_value_bytes  # lora_B's input
    for source, widths in groups.items():
        if dropout > 0:
            delta += sum(width * (MASK_BYTES + adapter_value_bytes) for width in widths)
        elif adapter_value_bytes != e:
            delta += sum(width * adapter_value_bytes for width in widths)
        elif source != "attn_output" or eager:
            delta += e * widths[0]
    return delta


def first_layer_lora_saving(model: ModelSpec, value_bytes: int, attention: Attention, seq: int,
                            matrices: tuple[Tensor, ...], dropout: float, adapter_value_bytes: int) -> int:
    """What the first layer keeps less than `_lora_delta` counts, per token, when its input needs no gradient: LoRA
    with frozen embeddings and no `enable_input_require_grads` (peft without gradient checkpointing; measured,
    tools/measure_lora_first_layer.py). Autograd records an op only when one of its inputs requires grad, and saves
    only what the gradients it will compute need (torch/csrc/autograd: `compute_requires_grad`; derivatives.yaml
    saves `other` for `self`'s gradient and back), so layer 0 keeps nothing before its first adapted matrix: the
    input norm nothing (its fp32 input and 1/rms); an adapter whose input needs no gradient no dropout mask (lora_A
    still keeps its input, for its own weight); a per-head q or k norm of an unadapted projection nothing; eager
    attention what only an unadapted projection's gradient needs (measured: q, k, v, q+v alone). With
    no adapter on q, k or v the attention keeps nothing either (o's adapter then keeps its input itself); with none
    on o the post-attention norm too; with none on gate or up the MLP all but down's adapter input."""
    e, h, q, kv = value_bytes, model.hidden, model.q_dim, model.kv_dim
    widths = {stem(t.name): t.shape[1] for t in matrices}
    mask = MASK_BYTES if dropout > 0 else 0
    norm = _norm_saved(model, e, h, feeds_linear=True) - 2 * e * h  # a frozen norm under LoRA (_lora_delta)
    qkv = [name for name in ("attn_q", "attn_k", "attn_v") if name in widths]
    saving = norm + mask * sum(widths[name] for name in qkv)
    if model.qk_norm is QkNorm.HEAD:
        for name, width, rows in (("attn_q", q, model.heads), ("attn_k", kv, model.kv_heads)):
            saving += 0 if name in widths else _norm_saved(model, e, width, feeds_linear=False, rows=rows) - e * width
    if qkv and attention is Attention.EAGER:  # q·kᵀ keeps q for k's gradient and k for q's; probs·v probs for v's
        e_scores, row = any(n in widths for n in ("attn_q", "attn_k")), model.heads * seq
        saving += e * q * (("attn_k" not in widths) + ("attn_q" not in widths))
        if not e_scores:  # the fp32 softmax keeps its output for its own gradient, and v is kept for the probs'
            saving += e * q + (FP32_BYTES * row if e != FP32_BYTES or "attn_v" not in widths else 0)
        if "attn_v" not in widths and e != FP32_BYTES:  # the probabilities cast to the compute type
            saving += e * row
    if qkv:
        return saving
    saving += _attention_saved(model, e, attention, seq) + _window_mask_saved(model, e, attention, seq, model.kinds[0])
    if "attn_output" in widths:
        shared = dropout == 0 and adapter_value_bytes == e and attention is not Attention.EAGER
        return saving - (e * q if shared else 0) + mask * widths["attn_output"]
    saving += norm
    gate_up = [name for name in widths if name.startswith(("ffn_gate", "ffn_up"))]
    if gate_up:
        return saving + mask * sum(widths[name] for name in gate_up)
    return saving + mlp_saved(model, e, False) - e * model.ffn + mask * widths.get("ffn_down", 0)


def head_lora_saved(model: ModelSpec, value_bytes: int, rank: int, dropout: float, adapter_value_bytes: int,
                    input_grad: bool = True) -> int:
    """What LoRA on the LM head saves per token (peft's lora.Linear on `lm_head`; measured with
    tools/measure_lora.py): lora_A its input, the final norm's output (e·h; as an fp32 copy under fp32 adapters,
    or a 1-byte mask and the dropped copy under dropout), and lora_B A's output (r). The mask only when the input
    asks for a gradient: with nothing adapted before the head and no checkpointing it does not
    (tools/measure_lora_head_only.py)."""
    kept = model.hidden * (adapter_value_bytes + (MASK_BYTES if dropout > 0 and input_grad else 0))
    return kept + rank * adapter_value_bytes


def _window_mask_saved(model: ModelSpec, value_bytes: int, attention: Attention, seq: int, kind: AttentionKind) -> int:
    """transformers' SDPA path passes a sliding or chunked window to the kernel as an explicit
    s × s additive mask, which the layer saves (s·e per token), and then repeats K and V to
    every query head instead of sharing them (2·(a − kv)·d·e). Measured on mistral with and
    without a window; eager attention saves the same with or without one."""
    e = value_bytes
    if attention is not Attention.FLASH or kind not in (AttentionKind.SLIDING, AttentionKind.CHUNKED):
        return 0
    if (kind is AttentionKind.SLIDING and model.sliding_window >= seq) or (
            kind is AttentionKind.CHUNKED and model.attention_chunk >= seq):
        return 0
    return e * seq + 2 * (model.heads - model.kv_heads) * model.head_dim * e


def mlp_saved(model: ModelSpec, value_bytes: int, moe: bool) -> int:
    """Bytes per token the MLP saves.

    Gated (SwiGLU / GeGLU): gate and up outputs, the activation and the product: 4·I·e
    (Phi-3's fused gate_up stores the same bytes). GPT-2's tanh GELU is written out in
    ops and keeps five I-wide tensors, plus a residual dropout mask (h).
    Mixture of experts: each token is routed to k experts, each keeping its gathered input
    and output (2h·e) and the gated MLP's 4·I·e; the router keeps fp32 probabilities (4E)
    and a few index tensors (about 40 bytes per routed copy); a shared expert keeps a dense
    MLP's 4·I·e of its own width."""
    e = value_bytes
    h = model.hidden
    if model.block is Block.GPT2:
        return 5 * e * model.ffn + MASK_BYTES * h
    if not model.gated_mlp:  # Phi: the tanh GELU written out in ops keeps four I-wide tensors, fc2 its input
        return 5 * e * model.ffn
    if moe:
        spec = model.moe
        assert spec is not None  # an MoE layer exists only when the spec has experts
        router = FP32_BYTES * spec.experts + 4 + 40 * spec.per_token
        # transformers' Llama 4 runs every token through every expert and weights the outputs
        routed = spec.experts if traits(model.model_type).all_experts_per_token else spec.per_token
        # gpt-oss's clamped SwiGLU (gate·sigmoid(α·gate)·(up + 1)) keeps seven I-wide tensors, not four
        expert = 7 * e * spec.ffn if spec.expert_bias else 4 * e * spec.ffn
        return routed * (2 * e * h + expert) + router + 4 * e * spec.shared_ffn
    return 4 * e * model.ffn


def compile_measured(model: ModelSpec, value_bytes: int, attention: Attention) -> bool:
    """Whether torch.compile's saved bytes are measured for these layers (tools/measure_compile.py): dense
    Llama-style blocks (RMSNorm, pre-norm, gated MLP, q/k norms per head or none), SDPA over full attention,
    in a 16-bit compute type."""
    return (lora_measured(model) and model.qk_norm in (None, QkNorm.HEAD) and attention is Attention.FLASH
            and value_bytes == 2 and set(model.kinds) <= {AttentionKind.FULL} and not model.fused_qkv
            and not model.attention_gate and not model.sinks and not model.sliding_heads and model.gated_mlp)


def _compiled_layer_saved(model: ModelSpec, value_bytes: int, seq: int) -> int:
    """Bytes per token one layer saves under torch.compile (inductor; AOTAutograd's min-cut partitioner
    chooses them), measured on transformers' Llama, Qwen2 and Qwen3 layers (tools/measure_compile.py, exact on
    9 shapes): the layer's input and the residual after attention (2·e·h), each norm's output and 1/rms
    (2·(e·h + 4)), attention's tensors as without compile, q and k before their per-head norms with one 1/rms
    per head (e·(a + kv)·d + 4·(a + kv)), and of the MLP gate, up and their product (3·e·I): the norms' fp32
    copies and the activation are recomputed in the backward."""
    e, h = value_bytes, model.hidden
    qk = model.heads + model.kv_heads
    qk_norms = e * qk * model.head_dim + FP32_BYTES * qk if model.qk_norm is QkNorm.HEAD else 0
    return (2 * e * h + 2 * (e * h + FP32_BYTES) + _attention_saved(model, e, Attention.FLASH, seq) + qk_norms
            + 3 * e * model.ffn)


def layer_activation_bytes_per_token(model: ModelSpec, value_bytes: int, attention: Attention, seq: int,
                                     moe: bool | None = None, kind: AttentionKind | None = None,
                                     compiled: bool = False) -> int:
    """Everything one transformer layer saves for backward, per token (an MoE layer when `moe`,
    else a dense one; by default the model's first layer's kinds); under torch.compile when `compiled`
    (for the layers compile_measured accepts)."""
    e = value_bytes
    if compiled:
        return _compiled_layer_saved(model, e, seq)
    moe = model.layer_is_moe(0) if moe is None else moe
    kind = model.kinds[0] if kind is None else kind
    if model.sliding_heads and kind is AttentionKind.SLIDING:  # Step 3.7: the sliding layers' own query heads
        model = dataclasses.replace(model, heads=model.sliding_heads, sliding_heads=0)
    if kind is AttentionKind.LINEAR:
        attention_part = _linear_attention_saved(model, e)
    elif kind is AttentionKind.MAMBA:
        attention_part = _mamba_saved(model, e)
    elif kind is AttentionKind.CONV:  # estimated: in_proj's B, C, x; B·x; the convolution; C times it; out_proj's input
        attention_part = 7 * e * model.hidden
    elif kind is AttentionKind.NONE:  # Zamba2's Mamba-only layers (parallel_mamba): their mixer
        attention_part = _mamba_saved(model, e) if model.parallel_mamba else 0
    else:
        attention_part = _attention_saved(model, e, attention, seq) + _window_mask_saved(model, e, attention, seq, kind)
        if model.attention_gate:  # Qwen3-Next: sigmoid(gate) and the attention output it multiplies
            attention_part += 2 * e * model.q_dim
        if model.parallel_mamba:  # Falcon-H1: the Mamba mixer beside the attention
            attention_part += _mamba_saved(model, e)
    mlp_part = mlp_saved(model, e, moe) if model.layer_has_mlp(kind) else 0
    if model.block is Block.GPT2:
        norms = 2 * _norm_saved(model, e, model.hidden, feeds_linear=True)
    else:
        norms = _layer_norms_saved(model, e, kind)
    if model.block is Block.PHI and model.dropout:  # residual dropout after attention and after the MLP
        norms += 2 * MASK_BYTES * model.hidden
    return norms + attention_part + mlp_part


def compiled_lora_measured(matrices: tuple[Tensor, ...], dropout: float, adapter_value_bytes: int,
                           value_bytes: int) -> bool:
    """Whether LoRA under torch.compile is measured: adapters in the compute type, no dropout, and every
    input of the layer's linears adapted (q, k or v; o; gate or up; down), as torchtune's recipes do."""
    inputs = {_lora_source(stem(t.name)) for t in matrices}
    return dropout == 0 and adapter_value_bytes == value_bytes and {"attn_in", "attn_output", "mlp_in",
                                                                     "ffn_down"} <= inputs


def _lora_source(name: str) -> str:
    """The input an adapted matrix reads: adapters on matrices that read one input keep it once."""
    return ("attn_in" if name in ("attn_q", "attn_k", "attn_v", "attn_q_a", "attn_kv_a_mqa")
            else "mlp_in" if name.startswith(("ffn_gate", "ffn_up")) or name == "ffn_gate_inp" else name)


def frozen_4bit_inputs(model: ModelSpec, value_bytes: int, attention: Attention, matrices: tuple[Tensor, ...],
                       dropout: float, adapter_value_bytes: int, *, attention_4bit: bool, mlp_width: int) -> int:
    """bitsandbytes before 0.43.2 saved every 4-bit matmul's input for backward, its weight frozen or not
    (`MatMul4Bit.forward`; since bitsandbytes PR #1270 only when the weight needs a gradient). Per token and dense
    layer, the inputs nothing else keeps then: the norms' outputs
    (e·h each, for q/k/v and for gate/up), down's input (e·I) and, under eager attention, o_proj's (e·q; SDPA's output
    is that tensor under flash), less those an adapter keeps itself (compute-type adapters without dropout; with
    dropout or fp32 adapters lora_A keeps a copy). `attention_4bit`: attention's projections are 4-bit (not under
    quantise=mlp); `mlp_width`: the 4-bit MLP's (a dense layer's, or an MoE layer's shared expert; transformers'
    fused experts are 3-D parameters, not bitsandbytes' Linear4bit: 0 without a shared expert)."""
    e = value_bytes
    inputs = {"mlp_in": model.hidden, "ffn_down": mlp_width} if mlp_width else {}
    if attention_4bit:
        inputs.update(attn_in=model.hidden, attn_output=model.q_dim if attention is Attention.EAGER else 0)
    if dropout == 0 and adapter_value_bytes == e:
        for t in matrices:
            inputs.pop(_lora_source(stem(t.name)), None)
    return e * sum(inputs.values())


@dataclasses.dataclass(frozen=True)
class CrossLora:
    """LoRA in Llama 3.2 Vision's cross-attention layers: the matrices adapted in a layer (training/lora.py
    `layer_matrices`; k and v read the vision states, the others the text), their rank, dropout and adapters' bytes
    per value, and whether the vision states need gradients (an adapter in the vision tower or the projector)."""
    matrices: tuple[Tensor, ...]
    rank: int
    dropout: float
    adapter_value_bytes: int
    vision_grad: bool

    def reads_vision(self, name: str) -> bool:
        """Whether the vision states' `name` projection (attn_k or attn_v) is adapted."""
        return any(stem(t.name) == name for t in self.matrices)

    def grad(self, name: str) -> bool:
        """Whether the cross layers' K (attn_k) or V (attn_v) need gradients."""
        return self.vision_grad or self.reads_vision(name)


def cross_layer_saved(model: ModelSpec, value_bytes: int, attention: Attention, vision_tokens: int,
                      lora: CrossLora | None = None) -> int:
    """Bytes per text token one of Llama 3.2 Vision's cross-attention layers saves when the batch has images
    (transformers 5.23 modeling_mllama.py `MllamaCrossAttentionDecoderLayer.forward`, `MllamaTextCrossAttention`;
    measured exactly by tools/measure_mllama.py): the two norms feeding linears, q's per-head q_norm, SDPA's q,
    output and fp32 log-sum-exp (eager: q, the fp32 softmax over the V vision tokens of every head and its cast,
    o_proj's input), the two tanh gates' inputs (2·e·h) and the gated MLP. K and V are the images' (per sequence,
    `cross_images_saved`). In a text-only batch MllamaTextModel skips the layer (`continue`): nothing.
    Under LoRA (measured by tools/measure_mllama_lora.py) the text side changes as a self-attention layer's does
    (`_lora_delta`, for the matrices reading the text: q, o, gate, up, down), and more: the frozen q_norm keeps no
    cast (e·a·d), the frozen tanh gates keep nothing (2·e·h); under eager attention q is kept only for K's gradient
    and the softmax's cast only for V's (autograd saves a matmul's operand only for the other's gradient)."""
    e, h, a, d = value_bytes, model.hidden, model.heads, model.head_dim
    if not vision_tokens:
        return 0
    norms = 2 * _norm_saved(model, e, h, feeds_linear=True) + _norm_saved(model, e, a * d, feeds_linear=False, rows=a)
    if attention is Attention.FLASH:
        attention_part = 2 * e * a * d + FP32_BYTES * a
    else:
        attention_part = 2 * e * a * d + a * vision_tokens * (FP32_BYTES + (e if e != FP32_BYTES else 0))
    full = norms + attention_part + 2 * e * h + mlp_saved(model, e, False)
    if lora is None:
        return full
    text = tuple(t for t in lora.matrices if stem(t.name) not in ("attn_k", "attn_v"))
    delta = _lora_delta(model, e, attention, text, lora.rank, lora.dropout, lora.adapter_value_bytes,
                        moe=False) - e * a * d - 2 * e * h
    if attention is Attention.EAGER:
        delta -= (0 if lora.grad("attn_k") else e * a * d) + (
            0 if lora.grad("attn_v") or e == FP32_BYTES else a * vision_tokens * e)
    return full + delta


def cross_images_saved(model: ModelSpec, value_bytes: int, attention: Attention, vision_tokens: int, seq: int,
                       *, checkpointed: bool = False, lora: CrossLora | None = None) -> tuple[int, int]:
    """(kept for the whole forward, one cross layer's more) per sequence whose images became `vision_tokens` (V)
    vision tokens (modeling_mllama.py `MllamaModel.forward`, `_prepare_cross_attention_mask`; measured by
    tools/measure_mllama.py). Kept: the projected vision states k_proj and v_proj read (V·h·e), the cross-attention
    mask repeated to every vision token (s·V·e: the SDPA kernel keeps it; eager adds it and keeps nothing, but a
    checkpointed layer's arguments keep it), the full-text-row mask (s·e) and each layer's two tanh gates.
    Each cross layer: k's k_norm (fp32 input, 1/rms per head, the cast) and K and V repeated to every query head
    (transformers' sdpa and eager attention call `repeat_kv` when there is a mask), per vision token; under
    checkpointing recomputed one layer at a time, so counted once, as `one layer's more`.
    Under LoRA (tools/measure_mllama_lora.py) k_proj and v_proj are frozen: the vision states are kept by an adapter
    on them (one copy, or each adapter its own fp32 cast or dropped copy and mask, as `_lora_delta` counts) or by
    checkpointing; k_norm keeps its fp32 input and 1/rms (no cast) only if K needs gradients (an adapter on k, in
    the tower or on the projector); K and V repeated stay (attention keeps them for q's and the softmax's
    gradients); lora_B keeps r values per vision token and adapter."""
    e, h, a, kv, d = value_bytes, model.hidden, model.heads, model.kv_heads, model.head_dim
    if not vision_tokens:
        return 0, 0
    cross = model.count_kind(AttentionKind.CROSS)
    mask = seq * vision_tokens * e if attention is Attention.FLASH or checkpointed else 0
    k_norm = _norm_saved(model, e, kv * d, feeds_linear=False, rows=kv)
    states, layer_states = vision_tokens * h * e, 0
    if lora is not None:
        k_norm = k_norm - e * kv * d if lora.grad("attn_k") else 0
        ae, read = lora.adapter_value_bytes, [name for name in ("attn_k", "attn_v") if lora.reads_vision(name)]
        shared = lora.dropout == 0 and ae == e
        if not checkpointed and not (read and shared):
            states = 0
        copies = 0 if shared else len(read) * h * ((MASK_BYTES if lora.dropout > 0 else 0) + ae)
        layer_states = vision_tokens * (copies + len(read) * lora.rank * ae)
    kept = states + mask + seq * e + 2 * e * cross
    layer = vision_tokens * (k_norm + 2 * e * a * d) + layer_states
    return (kept, layer) if checkpointed else (kept + cross * layer, 0)


def layers_saved(model: ModelSpec, value_bytes: int, attention: Attention, seq: int,
                 lora_matrices: tuple[Tensor, ...] = (), lora_rank: int = 0, lora_dropout: float = 0.0,
                 adapter_value_bytes: int = 4, compiled: bool = False, old_4bit: str = "",
                 vision_tokens: int = 0, cross_lora: CrossLora | None = None) -> tuple[int, int]:
    """(the sum over all layers, the largest layer) of the bytes per token layers save:
    layers differ by their attention kind and by dense or MoE MLP. With LoRA, `lora_matrices` are the
    matrices it adapts in one layer (training/lora.py `adapted`), each with `lora_rank` adapters. Compiled
    (compile_measured, compiled_lora_measured), the inputs of the linears are kept anyway: LoRA adds only
    lora_B's input, r·e per adapted matrix (measured). `old_4bit`: bitsandbytes before 0.43.2 under QLoRA ("all"
    its linears, "mlp" its MLPs only; "" not), each dense layer's frozen_4bit_inputs more. Cross-attention layers
    save what `cross_layer_saved` counts for the sequence's `vision_tokens` (none without images), under LoRA with
    `cross_lora`."""
    e = value_bytes
    groups = {key: count for key, _, count in model.layer_groups}
    if compiled:
        lora = lora_rank * adapter_value_bytes * len(lora_matrices)
        size = layer_activation_bytes_per_token(model, e, attention, seq, compiled=True) + lora
        return size * model.layers, size
    sizes = {key: layer_activation_bytes_per_token(model, e, attention, seq, moe=key[1], kind=key[0])
             + (_lora_delta(model, e, attention, lora_matrices, lora_rank, lora_dropout, adapter_value_bytes,
                            moe=key[1])
                if lora_rank else 0)
             + (frozen_4bit_inputs(model, e, attention, lora_matrices, lora_dropout, adapter_value_bytes,
                                   attention_4bit=old_4bit == "all",
                                   mlp_width=(model.moe.shared_ffn if model.moe else 0) if key[1] else model.ffn)
                if old_4bit and key[0] in (AttentionKind.FULL, AttentionKind.SLIDING, AttentionKind.CHUNKED) else 0)
             for key in groups if key[0] is not AttentionKind.CROSS}
    sizes.update((key, cross_layer_saved(model, e, attention, vision_tokens, cross_lora))
                 for key in groups if key[0] is AttentionKind.CROSS)
    return sum(sizes[key] * count for key, count in groups.items()), max(sizes.values())


def outside_layers_bytes_per_token(model: ModelSpec, value_bytes: int, final_norm_grad: bool = True) -> int:
    """Saved outside the layers, per token: token ids and labels (int64), the final norm
    (which also feeds the LM head; nothing when its input needs no gradient, as under LoRA on the head alone
    without checkpointing), and GPT-2's embedding dropout mask."""
    e = value_bytes
    ids_and_labels = 2 * INDEX_BYTES
    final_norm = _norm_saved(model, e, model.hidden, feeds_linear=True) if final_norm_grad else 0
    if model.block is Block.GPT2:
        return ids_and_labels + MASK_BYTES * model.hidden + final_norm
    return ids_and_labels + final_norm


def batch_shared_bytes(model: ModelSpec, value_bytes: int, seq: int) -> int:
    """Saved once for the whole batch: the rotary cos and sin tables (s × d each), or
    GPT-2's position ids; Gemma's (1 + weight) fp32 copies, one per norm."""
    e = value_bytes
    if model.block is Block.GPT2:
        return INDEX_BYTES * seq
    rotary = 2 * seq * model.head_dim * e
    if traits(model.model_type).fp32_norm_weight_copies:  # (1 + weight) in fp32, per norm
        widths = (model.norms_per_layer * model.layers + 1) * model.hidden
        widths += 2 * model.layers * model.head_dim if model.qk_norm is not None else 0
        return rotary + FP32_BYTES * widths
    if model.norm_compute is NormCompute.LAYER_FP32:  # Cohere: weight.to(float32), once per norm
        widths = (model.layers + 1) * model.hidden
        widths += model.layers * (model.q_dim + model.kv_dim) if model.qk_norm is not None else 0
        return rotary + FP32_BYTES * widths
    return rotary


def layer_input_bytes_per_token(model: ModelSpec, value_bytes: int) -> int:
    """What per-layer checkpointing keeps for each layer: its input hidden state."""
    e = value_bytes
    return e * model.hidden


def checkpoint_plan(layers: int, checkpointing: Checkpointing) -> tuple[int, int]:
    """(inputs kept, layers held in full at the peak) for each strategy.

    none: every layer in full. layer: L inputs + 1 layer recomputed.
    sqrt (Chen et al. 2016, arXiv:1604.06174): ceil(sqrt(L)) segment inputs + one segment
    of ceil(L / segments) layers recomputed."""
    if checkpointing is Checkpointing.NONE:
        return 0, layers
    if checkpointing is Checkpointing.LAYER:
        return layers, 1
    segments = math.ceil(math.sqrt(layers))
    return segments, math.ceil(layers / segments)


def backward_transient(model: ModelSpec, attention: Attention, tokens: int, seq: int, value_bytes: int,
                       mlp: int | None = None, mlp_gradients: int = 0) -> int:
    """One layer's backward temporaries: the gradients of the MLP's hidden tensors, about three of
    width I (gate, up and their product) per token, for a MoE layer of every routed copy and the
    shared expert (fitted to tools/measure_peak.py; within a few percent of the step's peak); `mlp` per token
    and the weight gradients made by then where they are counted (LoRA: LoraBackward)."""
    e = value_bytes
    if mlp is None:
        width = model.ffn if model.moe_layer_count < model.layers else 0
        if model.moe is not None:
            width = max(width, model.moe.per_token * model.moe.ffn + model.moe.shared_ffn)
        mlp = 3 * width * e
    return max(tokens * mlp + mlp_gradients, tokens * _eager_softmax_backward(model, attention, seq, e))


@dataclasses.dataclass(frozen=True)
class LoraBackward:
    """Per token, what the layers' backward holds under LoRA beside the forward's saved tensors and the model states
    (transformers' Llama-style RMSNorm blocks with a frozen final norm and head; measured with tools/measure_peak.py,
    tests/golden/measured_peak.json). Under full fine-tuning the head's input, which the activations count and the
    head's backward frees, stands in for the hidden states' gradient, and one layer's fitted transient for the rest.

    `head_released`: what the head's adapter saved (head_lora_saved), freed by the head's backward.
    `norm`: the final norm's backward at its worst (modeling_llama.py LlamaRMSNorm: x.float(), x·rsqrt(mean(x²) + ε),
    cast back, × weight): pow's backward runs with five fp32 copies of the hidden states live (x's gradient through
    1/rms, the mean's backward, and pow's x¹, 2·x¹ and their product with the gradient), the gradient of the norm's
    output and its 1/rms freed by then; the same in bf16 and fp32.
    `layer_released`: freed before the last layer's backward: the head's adapter's and the final norm's saved tensors.
    `hidden_gradient`: the gradient of the hidden states between layers (e·h; with checkpointing the recomputed layer's
    output too, held by the reentrant checkpoint's backward).
    `mlp`: a layer's MLP backward at its worst: its three I-wide gradients (down's input's, then gate's activation's
    and up's), less what down's adapter saved, freed with its backward by then (lora_A its input, lora_B A's output);
    with dropout its 1-byte mask too (an upper bound: measured below the recompute's forward, llama 2 × 256 with
    dropout 0.1); without an adapter on down (or with fp32 adapters), 3·e·I. `down_gradients`: that
    adapter's weight gradients, made by then (bytes, not per token).
    `recompute_overlap`: with checkpointing in fp32, the recomputed input norm's x.float() is the kept input itself,
    which the layer's saved bytes count again (e·h). `first_input`: with checkpointing, the first layer's kept input,
    live at its recompute beside the gradients of the layers after it.
    `recompute_forward`: with checkpointing, the recompute's forward at its worst, at down's adapter
    (`_recompute_forward`), a moment of its own beside the layer's saved bytes (0 without checkpointing).
    `layer_forward`: with checkpointing and adapters wider than the activations (peft's fp32 on a 16-bit base), a
    layer's forward under no_grad at its worst, in the forward phase beside the kept layer inputs (`_layer_forward`;
    0 otherwise)."""

    head_released: int
    norm: int
    layer_released: int
    hidden_gradient: int
    mlp: int
    down_gradients: int
    recompute_overlap: int
    first_input: int
    recompute_forward: int = 0
    layer_forward: int = 0


def rms_norm_backward(width: int) -> int:
    """Per token, an RMSNorm's backward at its worst (modeling_llama.py LlamaRMSNorm): pow's backward runs with five
    fp32 copies of its input live (LoraBackward's `norm`; measured, tools/measure_peak.py: 20·h − 4 B)."""
    return 5 * FP32_BYTES * width - FP32_BYTES


def lora_backward(model: ModelSpec, value_bytes: int, matrices: tuple[Tensor, ...], rank: int, dropout: float,
                  adapter_value_bytes: int, *, head: bool, checkpointed: bool) -> LoraBackward:
    e, e_a, h = value_bytes, adapter_value_bytes, model.hidden
    head_released = head_lora_saved(model, e, rank, dropout, e_a) if head else 0
    final_norm = _norm_saved(model, e, h, feeds_linear=True) - 2 * e * h  # frozen: neither its cast nor its output
    mlp, down_gradients = 3 * e * model.ffn, 0
    for t in matrices:  # adapters in the activations' dtype: lora_A's input (with dropout the dropped copy and its
        # mask) and lora_B's freed; fp32 adapters (peft's cast and its gradient) make more within down's backward, kept
        # at 3·e·I (measured: tools/measure_peak.py)
        if stem(t.name) == "ffn_down" and e_a == e:
            width = t.shape[1]
            mlp -= width * e + rank * e + (width * MASK_BYTES if dropout > 0 else 0)
            down_gradients = rank * (width + t.shape[0]) * e
    return LoraBackward(head_released=head_released, norm=rms_norm_backward(h),
                        layer_released=head_released + final_norm, hidden_gradient=e * h * (1 + checkpointed), mlp=mlp,
                        down_gradients=down_gradients,
                        recompute_overlap=e * h if checkpointed and e == FP32_BYTES else 0,
                        first_input=layer_input_bytes_per_token(model, e) if checkpointed else 0,
                        recompute_forward=_recompute_forward(model, e, matrices, dropout, e_a) if checkpointed else 0,
                        layer_forward=_layer_forward(model, e, matrices, rank, e_a) if checkpointed and e_a > e else 0)


def _recompute_forward(model: ModelSpec, value_bytes: int, matrices: tuple[Tensor, ...], dropout: float,
                       adapter_value_bytes: int) -> int:
    """Per token, what a checkpointed layer's recompute holds at its forward's worst beyond its saved bytes: down's
    adapter's `result + lora_B(lora_A(dropout(x))) * scaling` (peft tuners/lora/layer.py Linear.forward), the scaled
    product being made (measured, tools/measure_peak.py, llama 2 × 256 with fp32 adapters: the layers' peak). Live
    then: the hidden states' gradient the checkpoint was handed (e·h), the decoder layer's `residual` (e·h), the
    post-attention norm's output, held by the layer's `hidden_states` while the MLP runs (e·h, unless gate's or up's
    lora_A saves it: adapters in the activations' dtype without dropout), down's input, `act(gate(x)) * up(x)`, held
    by LlamaMLP's call (e·I, unless lora_A saves it) and with dropout on fp32 adapters its fp32 cast, peft's `x`
    (a·I), down's frozen output `result` (e·h) and, with an adapter on down, lora_B's output and its product with
    `scaling` (2·a·h, a the adapters' bytes). The rest of the layer (the attention's saved tensors, lora_A's
    outputs) is in its saved bytes."""
    e, a, h, width = value_bytes, adapter_value_bytes, model.hidden, model.ffn
    names = {stem(t.name) for t in matrices}
    saves_input = a == e and dropout == 0  # lora_A keeps its input itself, not a cast or a dropped copy
    norm_output = 0 if saves_input and names & {"ffn_gate", "ffn_up"} else e * h
    down = "ffn_down" in names
    down_input = (0 if saves_input and down else e * width) + (a * width if down and dropout > 0 and a != e else 0)
    return 2 * e * h + norm_output + down_input + e * h + (2 * a * h if down else 0)


def _layer_forward(model: ModelSpec, value_bytes: int, matrices: tuple[Tensor, ...], rank: int,
                   adapter_value_bytes: int) -> int:
    """Per token, a checkpointed layer's forward under no_grad (nothing saved) at its worst with adapters wider than
    the activations, beyond the kept layer inputs: an MLP matrix's adapter, peft's `result + lora_B(lora_A(x)) *
    scaling` (tuners/lora/layer.py Linear.forward) as the scaled product is made, beside the decoder layer's
    `residual` and the post-attention norm's output (2·e·h), the frozen output `result` (e·out), peft's cast `x`
    (a·in), lora_A's output (a·r), lora_B's and its product with `scaling` (2·a·out); at up's, gate's activation
    (e·I) too, made before it (LlamaMLP: down(act(gate(x)) * up(x))); at down's, its input, that product (e·I).
    Measured (tools/measure_orpo.py, llama all-linear r8: up's adapter, the forward's peak; tools/measure_peak.py,
    down alone). Attention projections' adapters are not counted (0 without an MLP adapter: unmeasured)."""
    e, a, h = value_bytes, adapter_value_bytes, model.hidden
    moments = [0]
    for t in matrices:
        name, out, width = stem(t.name), t.shape[0], t.shape[1]
        if name not in ("ffn_gate", "ffn_up", "ffn_down"):
            continue
        made_before = e * model.ffn if name in ("ffn_up", "ffn_down") else 0  # gate's activation; down's input
        moments.append(2 * e * h + made_before + e * out + a * width + a * rank + 2 * a * out)
    return max(moments)


def full_recompute_beside(model: ModelSpec, value_bytes: int) -> int:
    """Per token, what full fine-tuning's first layer's recompute under per-layer (reentrant) checkpointing runs beside,
    in Llama-style RMSNorm blocks (lora_measured's; tools/measure_peak.py --only ckpt, tests/golden/measured_peak.json),
    beyond the layer's saved bytes: its kept input (e·h), the recomputed layer's output, which
    torch.utils.checkpoint's CheckpointFunction.backward holds while it runs the layer's backward (e·h), and the hidden
    states' gradient it was handed (e·h); in fp32 the input norm's x.float() is the kept input itself (−e·h). The
    rotary tables are batch_shared_bytes, the masks activations.checkpointed_masks."""
    e, h = value_bytes, model.hidden
    return 3 * e * h - (e * h if e == FP32_BYTES else 0)


def full_layer_backward(model: ModelSpec, attention: Attention, tokens: int, seq: int, value_bytes: int,
                        gradient_bytes: int) -> tuple[int, int]:
    """A checkpointed layer's backward at its worst in full fine-tuning of Llama-style blocks (full_recompute_beside's
    scope): (what of the layer's saved bytes it has freed by then, per token; the bytes it holds beyond them, its
    temporaries and the weight gradients made by then), at the worst of these moments (tools/measure_peak.py
    --explain-training):
    the MLP's: down's saved input freed (e·I), its three I-wide gradients and down's weight gradient (T·3·e·I + g·h·I);
    the post-attention RMSNorm's backward: the MLP's saved tensors and the norm's cast and output freed, five fp32
    copies of the hidden states (LoraBackward's `norm`, 20·h − 4) and the MLP's three weight gradients (worse where
    gradients are wide against the tokens: fp32 main_grad accumulation);
    under eager attention softmax's backward: the MLP's and the post-attention norm's saved tensors and the cast
    probabilities freed (o's input is, and the attention output's gradient takes its place), its two gradients
    (_softmax_gradients) and the MLP's, o's and that norm's weight gradients (g·(3·h·I + h·q + h));
    with per-head q/k norms (Qwen3) the q norm's backward: all but the input norm's saved tensors and the q norm's fp32
    input freed, five fp32 copies of q (20·q), two more gradients of the hidden states (the residual's and the
    input's, 2·e·h) and every weight gradient of the layer but q's and the input norm's (worse for short sequences).
    The freed bytes count against the activations, so that each moment's temporaries grow with the tokens."""
    e, g, h, width = value_bytes, gradient_bytes, model.hidden, model.ffn
    mlp, norm_saved = mlp_saved(model, e, False), _norm_saved(model, e, h, feeds_linear=True)
    moments = [(e * width, tokens * 3 * e * width + g * h * width),
               (mlp + 2 * e * h, tokens * rms_norm_backward(h) + g * 3 * h * width)]
    softmax = _softmax_gradients(model, attention, seq, e)
    if softmax:
        moments.append((mlp + norm_saved, tokens * softmax + g * (3 * h * width + h * model.q_dim + h)))
    if model.qk_norm is QkNorm.HEAD:  # the q norm's backward, after k's and v's
        q, kv = model.q_dim, model.kv_dim
        freed = layer_activation_bytes_per_token(model, e, attention, seq) - norm_saved - FP32_BYTES * q
        moments.append((freed, tokens * (2 * e * h + 5 * FP32_BYTES * q)
                        + g * (3 * h * width + h * q + 2 * h * kv + h + model.head_dim)))
    return max(moments, key=lambda moment: moment[1] - tokens * moment[0])


def _eager_softmax_backward(model: ModelSpec, attention: Attention, seq: int, value_bytes: int) -> int:
    """Eager attention's backward, per token, beyond what the layer has freed by then: the gradient
    of the fp32 probabilities (the backward of their cast to the compute type) and softmax's backward
    output, both fp32 per head and position (2·4·a·s; 2·e·a·s where softmax runs in the compute type),
    made after the MLP's backward has freed the MLP's saved tensors and the probability matmul's
    backward the cast probabilities (e·a·s). It outgrows the MLP's gradients for long rows and narrow
    MLPs (DeepSeek V3's MoE at 256 tokens; seen at `_softmax_backward_data` with tools/measure_peak.py
    --explain-training). The largest of the model's layers (dense or MoE)."""
    softmax = _softmax_gradients(model, attention, seq, value_bytes)
    if not softmax:
        return 0
    freed = min(mlp_saved(model, value_bytes, moe) for moe in model.layer_moe_values)
    return max(0, softmax - freed)


def _softmax_gradients(model: ModelSpec, attention: Attention, seq: int, value_bytes: int) -> int:
    """Eager softmax's two backward gradients per token less the cast probabilities freed (_eager_softmax_backward);
    0 without eager attention."""
    e = value_bytes
    if attention is not Attention.EAGER or model.block is Block.GPT2 or model.linear is not None:
        return 0
    a = model.heads
    in_compute = traits(model.model_type).softmax_in_compute_type or e == FP32_BYTES
    grads = 2 * (e if in_compute else FP32_BYTES) * a * seq
    cast = 0 if in_compute else e * a * seq
    return grads - cast
