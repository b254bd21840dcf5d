"""One pure function per memory component: a Workload in, bytes out (and the
words that explain them). `estimate` composes them into a frozen Breakdown.

The training-activation formulas count exactly the tensors that Hugging Face
transformers' implementations save for backward (measured with
`tools/measure_reference.py`, golden data in tests/golden/), term by term, in
the spirit of Korthikanti et al. 2022 ("Reducing Activation Recomputation in
Large Transformer Models", arXiv:2205.05198, §4 and Table 2), whose GPT block
is sbh(34 + 5as/h) bytes per layer. Real blocks differ from the paper's: the
fp32 RMSNorm upcast, the gated MLP's four saved tensors, GPT-2's tanh-GELU
saving five, so the terms below follow the implementations.
Dropout masks are counted as CUDA stores them, one byte per element.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping

from . import engines, formats
from .engines import Runtime
from .formats import WeightFormat
from .messages import message
from .architecture import AttentionKind, Block, ModelSpec, NormCompute
from . import step, training
from .options import FP32_BYTES, PAGED, Attention, Checkpointing, Optimizer, Precision
from .tensors import Counted, counted_tensors, layer_of
from .training import Recipe
from .units import GIB, format_binary, format_count
from .workload import QLORA_FORMATS, Workload

INDEX_BYTES = 8  # int64 token ids and labels
MASK_BYTES = 1  # a CUDA dropout mask: one bool per element
LAYERNORM_STATS_BYTES = 2 * FP32_BYTES  # LayerNorm keeps mean and 1/std per token, in fp32


# Model types whose training activations are checked against measured runs (tests/golden/measured.json,
# tests/test_golden_measured.py). For the others the same terms are applied to their shapes, and
# the result says that it is approximate.
TRAINING_MEASURED_TYPES = frozenset({
    "gpt2", "llama", "mistral", "mixtral", "qwen2", "gemma2", "phi3",  # measured 2026-12-02
    "qwen3", "qwen3_moe", "qwen2_moe", "qwen3_next", "deepseek_v2", "deepseek_v3", "gemma3_text", "gpt_oss",
    "llama4_text", "phi", "olmo2", "granite", "cohere", "cohere2", "glm4_moe", "smollm3", "phimoe", "ministral",
    "ministral3",  # measured 2026-12-03
    "kimi_k2",  # DeepSeek-V3's architecture and code under another name
})

# Eager attention whose softmax runs in the compute type, not fp32 (transformers' Llama 4; gpt-oss,
# whose probabilities include one sink logit per row).
SOFTMAX_IN_COMPUTE_TYPE = frozenset({"llama4_text", "gpt_oss"})

COMPONENTS = ("weights", "gradients", "optimizer", "master_weights", "kv_cache", "activations", "logits", "temporaries",
              "overhead")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Component:
    key: str
    bytes: int
    explain: Callable[[], str] = dataclasses.field(repr=False, compare=False)
    """The formula in words with the numbers filled in; made only when shown, because the
    solvers and charts estimate hundreds of workloads and show none of their formulas."""

    @property
    def formula(self) -> str:
        return self.explain()


@dataclasses.dataclass(frozen=True, kw_only=True)
class Breakdown:
    workload: Workload
    params: int
    active_params: int
    components: tuple[Component, ...]
    notes: tuple[str, ...]
    assumptions: tuple[str, ...] = ()
    """What the engine did not understand and how it read it: non-empty means approximate."""
    runtime: Mapping[str, object] = dataclasses.field(default_factory=dict)
    """The engine's own figures (`"name"`, and vLLM's pool or llama.cpp's devices)."""
    host_bytes: int = 0
    """System RAM the engine uses beside the GPU (llama.cpp layers kept off the GPU)."""
    sizes: Mapping[str, int] = dataclasses.field(default_factory=dict)
    """Each component's whole size, whether or not all of it is live at the peak (training: the
    gradients exist only from the backward on); `components` are what is live at the peak."""
    phases: Mapping[str, Mapping[str, int]] = dataclasses.field(default_factory=dict)
    """Training: the component bytes live at each phase of a step (step.py), overhead excluded."""
    peak_phase: str = "inference"

    @property
    def total_bytes(self) -> int:
        return sum(component.bytes for component in self.components)

    def bytes_of(self, key: str) -> int:
        return next(component.bytes for component in self.components if component.key == key)

    def size_of(self, key: str) -> int:
        """A component's whole size (equal to `bytes_of` outside training)."""
        return self.sizes.get(key, self.bytes_of(key))

    def phase_totals(self) -> dict[str, int]:
        return {name: sum(live.values()) for name, live in self.phases.items()}

    def as_dict(self) -> dict[str, int]:
        return {component.key: component.bytes for component in self.components}


def _fmt(num_bytes: int) -> str:
    return format_binary(num_bytes)


# ---------------------------------------------------------------- model states


def weights_bytes(workload: Workload) -> Component:
    """Weights = parameters × bits per weight / 8 for a nominal precision (no scales); for a
    real format, the sum over tensors of what its layout stores (formats.py). Training: the
    recipe's weight dtype (training.py); LoRA adds its adapters to the frozen base."""
    if isinstance(workload.precision, WeightFormat):
        parts = formats.weights(workload.model, workload.precision, group_size=workload.group_size)
        base = sum(part.bytes for part in parts)
        base_text = lambda: message(  # noqa: E731
            "weights.format", format=workload.precision.label, parts=formats.describe(parts), bytes=_fmt(base))
    else:
        params = workload.model.params
        per_param = _states(workload).weights if workload.is_training and not workload.lora else None
        base = params * per_param if per_param else workload.precision.bytes_for(params)
        bits = per_param * 8 if per_param else workload.precision.bits
        name = workload.precision.value if not per_param or per_param * 8 == workload.precision.bits else f"fp{bits}"
        base_text = lambda: message(  # noqa: E731
            "weights.formula", params=format_count(params), bits=bits, precision=name, bytes=_fmt(base))
    extra, extra_text = _training_weight_extras(workload)
    total = base + extra
    return Component(key="weights", bytes=total, explain=lambda: base_text() + extra_text())


def _training_weight_extras(workload: Workload) -> tuple[int, Callable[[], str]]:
    """LoRA's adapters (fp32, as peft keeps them by default), or autocast's 16-bit copies of
    the linear weights, which `torch.autocast` caches for the forward and backward of a step."""
    if not workload.is_training:
        return 0, lambda: ""
    if workload.lora:
        adapters = training.adapter_tensors(workload.model, workload.lora)
        count = sum(t.numel * n for t, n in adapters)
        size = count * _adapter_bytes(workload)
        return size, lambda: message("weights.lora", count=format_count(count), dtype=workload.lora_dtype.value,
                                     bytes=_fmt(size))
    if workload.recipe is Recipe.AMP:
        linear = sum(t.numel * n for t, n in counted_tensors(workload.model) if t.role in (
            "attention", "mlp", "expert", "shared_expert", "head") and len(t.shape) >= 2)
        size = linear * workload.activation_precision.bits // 8
        return size, lambda: message("weights.autocast", bytes=_fmt(size))
    return 0, lambda: ""


def _adapter_bytes(workload: Workload) -> int:
    """peft keeps adapters in fp32 by default (autocast_adapter_dtype=True); lora_dtype says otherwise."""
    return workload.lora_dtype.bits // 8


def _states(workload: Workload) -> training.Bytes:
    return training.recipe_bytes(workload.recipe, workload.precision if isinstance(workload.precision, Precision)
                                 else Precision.BF16, workload.mixed_precision)


def _trainable(workload: Workload) -> tuple[Counted, int, int]:
    """(tensors with their counts, parameters, bytes per parameter of their gradients) that training updates."""
    if workload.lora:
        tensors = training.adapter_tensors(workload.model, workload.lora)
        return tensors, sum(t.numel * n for t, n in tensors), _adapter_bytes(workload)
    tensors = counted_tensors(workload.model)
    params = workload.model.params
    return tensors, params, _states(workload).gradients


def gradients_bytes(workload: Workload) -> Component:
    """Gradients = one value per trainable parameter, in the recipe's gradient dtype (training only)."""
    if not workload.is_training:
        return Component(key="gradients", bytes=0, explain=lambda: message("gradients.none"))
    _, params, per_param = _trainable(workload)
    num_bytes = params * per_param
    return Component(
        key="gradients",
        bytes=num_bytes,
        explain=lambda: message(
            "gradients.formula", params=format_count(params), bits=per_param * 8,
            precision=(f"{workload.lora_dtype.value} adapters" if workload.lora else workload.precision.value
                       if per_param * 8 == workload.precision.bits else f"fp{per_param * 8}"), bytes=_fmt(num_bytes),
        ),
    )


def optimizer_state_bytes(workload: Workload) -> Component:
    """Optimizer state for the trainable tensors (training.py): Adam(W) two moments in the
    state dtype, 8-bit AdamW about 2 bytes, Adafactor factored, Lion and SGD with momentum one
    buffer, SGD none (ZeRO paper §3.1; bitsandbytes; Shazeer & Stern 2018)."""
    if not workload.is_training:
        return Component(key="optimizer", bytes=0, explain=lambda: message("optimizer.none"))
    optimizer = workload.optimizer
    if optimizer is Optimizer.SGD:
        return Component(key="optimizer", bytes=0, explain=lambda: message("optimizer.sgd"))
    tensors, params, _ = _trainable(workload)
    state = _adapter_bytes(workload) if workload.lora else _states(workload).state
    num_bytes = training.optimizer_state_bytes(optimizer, tensors, state)
    listed = sum(t.numel * n for t, n in tensors)
    if listed and listed != params:  # a custom model of three numbers: its tensors only sketch the shapes
        num_bytes = num_bytes * params // listed
    per_param = num_bytes / params if params else 0
    return Component(
        key="optimizer",
        bytes=num_bytes,
        explain=lambda: message(
            "optimizer.formula", params=format_count(params), per_param=f"{per_param:.3g}",
            optimizer=optimizer.value, what=message(f"optimizer.state.{optimizer.value}"), bytes=_fmt(num_bytes),
        ) + (message("optimizer.paged") if optimizer in PAGED else ""),
    )


def master_weights_bytes(workload: Workload) -> Component:
    """Master weights = trainable parameters × 4 bytes: the fp32 copy mixed-precision training updates."""
    master = _states(workload).master if workload.is_training and not workload.lora else 0
    if not master:
        return Component(key="master_weights", bytes=0, explain=lambda: message("master_weights.none"))
    params = workload.model.params
    num_bytes = params * master
    return Component(
        key="master_weights",
        bytes=num_bytes,
        explain=lambda: message("master_weights.formula", params=format_count(params), bytes=_fmt(num_bytes)),
    )


# ---------------------------------------------------------------- KV cache


def kv_cache_bytes(workload: Workload) -> Component:
    """KV cache = batch × Σ over layers of what each layer keeps × bytes per value.

    Full attention: 2 (K and V) × kv_heads × head_dim per token (grouped-query attention
    enters through kv_heads: vLLM `AttentionSpec.page_size_bytes`; Kwon et al. 2023).
    Sliding-window and chunked layers keep at most their window; MLA layers one latent of
    kv_lora_rank + qk_rope_head_dim per token; linear-attention layers a fixed state.
    Inference only: training runs without a cache."""
    if workload.is_training:
        return Component(key="kv_cache", bytes=0, explain=lambda: message("kv_cache.none"))
    model = workload.model
    precision = workload.effective_kv_precision
    values = workload.batch * model.kv_values_per_sequence(workload.seq)
    e = workload.activation_precision.bits // 8
    num_bytes = precision.bytes_for(values) + workload.batch * model.linear_state_bytes(e)
    return Component(
        key="kv_cache",
        bytes=num_bytes,
        explain=lambda: _kv_explain(model, workload, precision, e, num_bytes),
    )


def _kv_explain(model: ModelSpec, workload: Workload, precision, e: int, num_bytes: int) -> str:
    """Which layers keep what, in words: '6 layers × 2 (K and V) × 8 KV heads × 128 × 32,768 tokens
    + 30 sliding layers × ... × 1,024 tokens (window 1,024)', and the linear layers' fixed state."""
    parts = []
    for kind, count in model.kind_counts():
        if kind is AttentionKind.LINEAR:
            continue
        per_token = (message("kv_cache.mla_width", width=model.mla.latent_width) if model.mla
                     else message("kv_cache.kv_width", kv_heads=model.kv_heads, head_dim=model.head_dim))
        kept = model.tokens_kept(kind, workload.seq)
        parts.append(message(f"kv_cache.layers.{kind.value}", count=count, per_token=per_token, kept=f"{kept:,}",
                             window=f"{model.sliding_window or model.attention_chunk:,}"))
    text = message("kv_cache.formula", batch=workload.batch, layers=" + ".join(parts), bits=precision.bits,
                   precision=precision.value)
    if model.linear is not None:
        text += message("kv_cache.linear", batch=workload.batch, count=model.count_kind(AttentionKind.LINEAR),
                        state=_fmt(model.linear.state_bytes(e)))
    return f"{text} = {_fmt(num_bytes)}"


# ---------------------------------------------------------------- training activations


def _norm_saved(model: ModelSpec, e: int, width: int, *, feeds_linear: bool, rows: int = 1) -> int:
    """Bytes per token one norm of `width` values saves (`rows` statistics: 1, or one per head).

    Llama RMSNorm: the fp32 upcast of its input (4w), 1/rms (4), the normalised value cast
    back (e·w, kept by the weight multiply).
    Gemma's (1 + weight) and OLMo 2's RMSNorm multiply in fp32: fp32 input (4w), 1/rms (4),
    the normalised fp32 value (4w).
    LayerNorm (GPT-2, Phi): its input (e·w) and fp32 mean and 1/std (8).
    Cohere's LayerNorm, written out in fp32: the fp32 input, the centred and the normalised
    values (3 × 4w) and the variance (4).
    The output (e·w) counts when a linear follows, which keeps it as its input."""
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


def _layer_norms_saved(model: ModelSpec, e: int, kind: AttentionKind) -> int:
    """The norms of one layer, by where they sit.

    Pre-norm (Llama): two norms, each feeding linears. Gemma: those two plus two after
    attention and the MLP that feed none. OLMo 2: only the two after, so attention's and the
    MLP's inputs are kept by their first linears (2·e·h). Parallel blocks (Phi, Cohere): one
    norm whose output feeds attention and the MLP. And q/k norms: per head (Qwen3, Gemma 3,
    Cohere) or over all heads (OLMo 2), never feeding a linear."""
    h, a, kv, d = model.hidden, model.heads, model.kv_heads, model.head_dim
    if model.post_norms:
        norms = 2 * _norm_saved(model, e, h, feeds_linear=False) + 2 * e * h
    elif model.block is Block.GEMMA2:
        norms = 2 * _norm_saved(model, e, h, feeds_linear=True) + 2 * _norm_saved(model, e, h, feeds_linear=False)
    else:
        norms = model.norms_per_layer * _norm_saved(model, e, h, feeds_linear=True)
    if model.qk_norm == "l2":  # fp32 input and 1/norm per head, for q and k; nothing cast back
        return norms + (FP32_BYTES * (a + kv) * d + FP32_BYTES * (a + kv) if kind is AttentionKind.CHUNKED else 0)
    if model.qk_norm:
        per_head = model.qk_norm == "head" or model.norm_compute is NormCompute.LAYER_FP32
        norms += _norm_saved(model, e, a * d, feeds_linear=False, rows=a if per_head else 1)
        norms += _norm_saved(model, e, kv * d, feeds_linear=False, rows=kv if per_head else 1)
    return norms


def _attention_saved(model: ModelSpec, e: int, attention: Attention, seq: int) -> int:
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
            + (e * a * d if model.fused_qkv or model.block is Block.PHI else 0)  # Phi-3 and Phi copy the output before o_proj
        )
    return (
        e * a * d  # q after rotary
        + e * a * d  # k repeated to every head
        + (FP32_BYTES * per_head_row  # softmax, computed in fp32
           + (e * per_head_row if e != FP32_BYTES else 0)  # probabilities cast back
           if model.model_type not in SOFTMAX_IN_COMPUTE_TYPE else e * per_head_row)
        + (INDEX_BYTES * a if model.sinks else 0)  # gpt-oss: the row maximum's index, subtracted before softmax
        + (e * per_head_row if model.attention_softcap else 0)  # tanh soft-cap
        + e * a * d  # v repeated to every head (made contiguous for the matmul)
        + e * a * d  # o_proj input
    )


LINEAR_ATTENTION_CHUNK = 64  # transformers' torch chunk_gated_delta_rule


def _linear_attention_saved(model: ModelSpec, e: int) -> int:
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
    lin = model.linear
    vh, dk, dv, c = lin.value_heads, lin.key_head_dim, lin.value_head_dim, LINEAR_ATTENTION_CHUNK
    conv = 2 * lin.conv_dim * e
    gates = vh * (e + 8)
    qkv = 2 * (4 * vh * dk + 4 * vh) + 4 * vh + 4 * vh * dv + 4 * vh * dk
    chunk = 4 * vh * (4 * c + 3 * dk + dv) + 12 * vh
    loop = 4 * vh * (dk * dv + 2 * c * dv + c * c // 2 + dk * c) // c
    norm = 12 * vh * dv + 4 * vh + 2 * e * vh * dv
    return conv + gates + qkv + chunk + loop + norm + e * vh * dv


LORA_MEASURED_NORMS = (NormCompute.RMS,)  # dense pre-norm RMSNorm blocks: what tools/measure_lora.py matched


def lora_measured(model: ModelSpec) -> bool:
    return (model.norm_compute in LORA_MEASURED_NORMS and not model.post_norms and model.block is Block.LLAMA
            and model.linear is None and model.moe is None and model.mla is None)


def _lora_delta(model: ModelSpec, e: int, attention: Attention, lora: training.Lora, dropout: float,
                adapter_e: int, *, moe: bool) -> int:
    """What LoRA changes in one layer's saved bytes per token, against full fine-tuning
    (measured with peft, tools/measure_lora.py).

    Frozen: a frozen matrix keeps no input for its weight's gradient, so the norms lose their
    normalised cast and their output (2 × 2·e·h), the MLP its down projection's input (e·I), eager
    attention its o_proj input (e·a·d). Adapters: lora_A keeps its input, once per input shared by
    the adapted matrices (e·h for q/k/v, e·h for gate/up, e·I for down, e·a·d for o under eager)
    or once per matrix when peft casts it to fp32 adapters or drops it out (a 1-byte mask and the
    dropped copy); lora_B keeps A's output (r per matrix)."""
    h, q = model.hidden, model.q_dim
    dense_ffn = 0 if moe else model.ffn
    shared_ffn = model.moe.shared_ffn if moe and model.moe else 0
    eager = attention is Attention.EAGER
    delta = -2 * 2 * e * h - e * (dense_ffn + shared_ffn) - (e * q if eager else 0)
    if model.qk_norm == "head":  # frozen q/k norms keep no cast for their weights' gradient
        delta -= e * (q + model.kv_dim)
    matrices = [t for t, _ in training.adapted(model, lora) if t.name.startswith("blk.0.")]
    groups: dict[str, list[int]] = {}
    for t in matrices:
        stem = training._stem(t.name)
        source = ("attn_in" if stem in ("attn_q", "attn_k", "attn_v", "attn_q_a", "attn_kv_a_mqa")
                  else "mlp_in" if stem.startswith(("ffn_gate", "ffn_up")) or stem == "ffn_gate_inp" else stem)
        groups.setdefault(source, []).append(t.shape[1])
        delta += lora.rank * adapter_e  # lora_B's input
    for source, widths in groups.items():
        if dropout > 0:
            delta += sum(width * (MASK_BYTES + adapter_e) for width in widths)
        elif adapter_e != e:
            delta += sum(width * adapter_e for width in widths)
        elif source != "attn_output" or eager:
            delta += e * widths[0]
    return delta


def _window_mask_saved(model: ModelSpec, e: int, attention: Attention, seq: int, kind: AttentionKind) -> int:
    """transformers' SDPA path passes a sliding or chunked window to the kernel as an explicit
    s × s additive mask, which the layer saves (s·e per token), and then repeats K and V to
    every query head instead of sharing them (2·(a − kv)·d·e). Measured on mistral with and
    without a window; eager attention saves the same with or without one."""
    if attention is not Attention.FLASH or kind not in (AttentionKind.SLIDING, AttentionKind.CHUNKED):
        return 0
    if kind is AttentionKind.SLIDING and model.sliding_window >= seq or (
            kind is AttentionKind.CHUNKED and model.attention_chunk >= seq):
        return 0
    return e * seq + 2 * (model.heads - model.kv_heads) * model.head_dim * e


def _mlp_saved(model: ModelSpec, e: int, moe: bool) -> int:
    """Bytes per token the MLP saves.

    Gated (SwiGLU / GeGLU): gate and up outputs, the activation and the product: 4·I·e
    (Phi-3's fused gate_up stores the same bytes). GPT-2's tanh GELU is written out in
    ops and keeps five I-wide tensors, plus a residual dropout mask (h).
    Mixture of experts: each token is routed to k experts, each keeping its gathered input
    and output (2h·e) and the gated MLP's 4·I·e; the router keeps fp32 probabilities (4E)
    and a few index tensors (about 40 bytes per routed copy); a shared expert keeps a dense
    MLP's 4·I·e of its own width."""
    h = model.hidden
    if model.block is Block.GPT2:
        return 5 * e * model.ffn + MASK_BYTES * h
    if not model.gated_mlp:  # Phi: the tanh GELU written out in ops keeps four I-wide tensors, fc2 its input
        return 5 * e * model.ffn
    if moe:
        spec = model.moe
        router = FP32_BYTES * spec.experts + 4 + 40 * spec.per_token
        # transformers' Llama 4 runs every token through every expert and weights the outputs
        routed = spec.experts if model.model_type == "llama4_text" else spec.per_token
        # gpt-oss's clamped SwiGLU (gate·sigmoid(α·gate)·(up + 1)) keeps seven I-wide tensors, not four
        expert = 7 * e * spec.ffn if spec.expert_bias else 4 * e * spec.ffn
        return routed * (2 * e * h + expert) + router + 4 * e * spec.shared_ffn
    return 4 * e * model.ffn


def layer_activation_bytes_per_token(model: ModelSpec, e: int, attention: Attention, seq: int,
                                     moe: bool | None = None, kind: AttentionKind | None = None) -> int:
    """Everything one transformer layer saves for backward, per token (an MoE layer when `moe`,
    else a dense one; by default the model's first layer's kinds)."""
    moe = model.layer_is_moe(0) if moe is None else moe
    kind = model.kinds[0] if kind is None else kind
    if kind is AttentionKind.LINEAR:
        attention_part = _linear_attention_saved(model, e)
    else:
        attention_part = _attention_saved(model, e, attention, seq) + _window_mask_saved(model, e, attention, seq, kind)
        if model.attention_gate:  # Qwen3-Next: sigmoid(gate) and the attention output it multiplies
            attention_part += 2 * e * model.q_dim
    mlp_part = _mlp_saved(model, e, moe)
    if model.block is Block.GPT2:
        norms = 2 * _norm_saved(model, e, model.hidden, feeds_linear=True)
    else:
        norms = _layer_norms_saved(model, e, kind)
    if model.block is Block.PHI and model.dropout:  # residual dropout after attention and after the MLP
        norms += 2 * MASK_BYTES * model.hidden
    return norms + attention_part + mlp_part


def _layers_saved(model: ModelSpec, e: int, attention: Attention, seq: int,
                  lora: training.Lora | None = None, lora_dropout: float = 0.0, adapter_e: int = 4) -> tuple[int, int]:
    """(the sum over all layers, the largest layer) of the bytes per token layers save:
    layers differ by their attention kind and by dense or MoE MLP."""
    groups = {key: count for key, _, count in model.layer_groups}
    sizes = {key: layer_activation_bytes_per_token(model, e, attention, seq, moe=key[1], kind=key[0])
             + (_lora_delta(model, e, attention, lora, lora_dropout, adapter_e, moe=key[1]) if lora else 0)
             for key in groups}
    return sum(sizes[key] * count for key, count in groups.items()), max(sizes.values())


def outside_layers_bytes_per_token(model: ModelSpec, e: int) -> int:
    """Saved outside the layers, per token: token ids and labels (int64), the final norm
    (which also feeds the LM head), and GPT-2's embedding dropout mask."""
    ids_and_labels = 2 * INDEX_BYTES
    final_norm = _norm_saved(model, e, model.hidden, feeds_linear=True)
    if model.block is Block.GPT2:
        return ids_and_labels + MASK_BYTES * model.hidden + final_norm
    return ids_and_labels + final_norm


def batch_shared_bytes(model: ModelSpec, e: int, seq: int) -> int:
    """Saved once for the whole batch: the rotary cos and sin tables (s × d each), or
    GPT-2's position ids; Gemma's (1 + weight) fp32 copies, one per norm."""
    if model.block is Block.GPT2:
        return INDEX_BYTES * seq
    rotary = 2 * seq * model.head_dim * e
    if model.model_type.startswith("gemma") or model.model_type == "qwen3_next":  # (1 + weight) in fp32, per norm
        widths = (model.norms_per_layer * model.layers + 1) * model.hidden
        widths += 2 * model.layers * model.head_dim if model.qk_norm else 0
        return rotary + FP32_BYTES * widths
    if model.norm_compute is NormCompute.LAYER_FP32:  # Cohere: weight.to(float32), once per norm
        widths = (model.layers + 1) * model.hidden + (model.layers * (model.q_dim + model.kv_dim) if model.qk_norm else 0)
        return rotary + FP32_BYTES * widths
    return rotary


def layer_input_bytes_per_token(model: ModelSpec, e: int) -> int:
    """What per-layer checkpointing keeps for each layer: its input hidden state."""
    return e * model.hidden


def _checkpoint_plan(layers: int, checkpointing: Checkpointing) -> tuple[int, int]:
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


def activations_bytes(workload: Workload) -> Component:
    if not workload.is_training:
        return _inference_activations(workload)
    return _training_activations(workload)[0]


def _training_activations(workload: Workload) -> tuple[Component, int]:
    """(the activations live when the layers' backward starts, the bytes saved at the forward's end).
    They differ under checkpointing: the forward keeps layer inputs, the backward adds a recompute."""
    model = workload.model
    e = workload.activation_precision.bits // 8
    tokens = workload.batch * workload.seq
    lora = workload.lora if workload.lora and lora_measured(model) else None
    all_layers, per_layer = _layers_saved(model, e, workload.attention, workload.seq, lora, workload.lora_dropout,
                                          workload.lora_dtype.bits // 8)
    outside = outside_layers_bytes_per_token(model, e)
    shared = batch_shared_bytes(model, e, workload.seq)
    inputs_kept, layers_full = _checkpoint_plan(model.layers, workload.checkpointing)
    if lora is not None:  # the frozen final norm keeps neither its cast nor the head's input
        outside -= 2 * e * model.hidden
    inputs = inputs_kept * layer_input_bytes_per_token(model, e)  # checkpointed layer inputs
    full = all_layers if layers_full == model.layers else layers_full * per_layer  # held in full at the peak
    num_bytes = tokens * (inputs + full + outside) + shared
    forward_bytes = tokens * (inputs + (full if workload.checkpointing is Checkpointing.NONE else 0) + outside) + shared
    per_layer_text = f"{per_layer:,}"
    if workload.checkpointing is Checkpointing.NONE:
        kept, recompute = str(model.layers), ""
        if all_layers != model.layers * per_layer:  # dense and MoE layers differ
            per_layer_text = message("activations.average", average=f"{all_layers / model.layers:,.0f}")
        strategy = message("checkpointing.none")
    else:
        kept = f"{inputs_kept} inputs × {layer_input_bytes_per_token(model, e):,} B + {layers_full}"
        recompute = ""
        strategy = (
            message("checkpointing.layer")
            if workload.checkpointing is Checkpointing.LAYER
            else message("checkpointing.sqrt", segments=inputs_kept, segment_layers=layers_full)
        )
    explain = lambda: message(  # noqa: E731
        "activations.training", batch=workload.batch, seq=f"{workload.seq:,}", layers_kept=kept,
        per_layer=per_layer_text, recompute=recompute, outside=f"{outside:,}",
        constant=message("activations.constant", constant_bytes=_fmt(shared)) if shared else "",
        bytes=_fmt(num_bytes), attention=message(f"attention.{workload.attention.value}"), checkpointing=strategy,
    )
    return Component(key="activations", bytes=num_bytes, explain=explain), forward_bytes


# Decoder layers that keep attention's output bound to its own name through the MLP:
# Llama4TextDecoderLayer.forward (`attention_states`; models/llama4/modeling_llama4.py). The others
# rebind `hidden_states` to the residual sum, or (parallel blocks) count it among their four h·e.
ATTENTION_OUTPUT_HELD_TYPES = frozenset({"llama4_text"})


def _inference_activations(workload: Workload) -> Component:
    """Inference keeps no activations between layers: the peak is the prefill of the whole prompt
    inside one layer (transformers' `generate`, no_grad; measured with tools/measure_peak.py).
    Per token, the larger of two moments of the largest layer: attention's temporaries
    (`_prefill_attention`) with the hidden states alive before the residual add (`_prefill_hidden`
    less h·e), or the MLP's (`_prefill_mlp`) with all of them and eager attention's probabilities,
    which the layer still holds; and for the whole batch the attention
    masks the model builds once and keeps through the forward (`_prefill_masks`)."""
    model = workload.model
    e = workload.activation_precision.bits // 8
    seq = workload.seq
    hidden = _prefill_hidden(model, e)
    attention = max(_prefill_attention(model, e, workload.attention, seq, kind)
                    for kind, _ in model.kind_counts() or ((AttentionKind.FULL, 0),))
    # Eager attention returns its probabilities (batch × a × s × s in the compute type) and every decoder
    # layer binds them to `_` (`hidden_states, _ = self.self_attn(...)`, e.g. models/llama/modeling_llama.py
    # LlamaDecoderLayer.forward), so they stay alive through the MLP. SDPA returns None there.
    held = model.heads * seq * e if workload.attention is Attention.EAGER else 0
    if model.model_type in ATTENTION_OUTPUT_HELD_TYPES:
        held += model.hidden * e
    per_token = max(hidden - model.hidden * e + attention, hidden + held + _prefill_mlp(model, e))
    masks = _prefill_masks(model, e, workload.attention, workload.batch, seq)
    num_bytes = workload.batch * seq * per_token + masks
    total = (f"{_fmt(num_bytes - masks)}, plus {_fmt(masks)} of s × s attention masks built once for the forward: "
             f"{_fmt(num_bytes)}" if masks else _fmt(num_bytes))
    return Component(
        key="activations",
        bytes=num_bytes,
        explain=lambda: message(
            "activations.inference", batch=workload.batch, seq=f"{seq:,}", per_token=f"{per_token:,}",
            attention=message(f"attention.{workload.attention.value}"), bytes=total,
        ),
    )


def _prefill_hidden(model: ModelSpec, e: int) -> int:
    """Hidden states alive while a layer's MLP runs, per token: the embeddings (the model keeps
    `inputs_embeds`), the layer's input (its caller's variable), the residual and the normalised
    copy (4·h·e), and the rotary cos and sin (2·d·e). GPT-2: the token and position embeddings,
    their sum, and the same three (6·h·e). While attention runs the residual is still the layer's
    input (`residual = hidden_states` in every decoder layer), so one h·e fewer."""
    if model.block is Block.GPT2:
        return 6 * model.hidden * e
    return 4 * model.hidden * e + 2 * model.head_dim * e


# Models whose forward builds a sliding-window mask even with no sliding layer: Qwen2MoeModel.forward
# always fills both entries of its mask mapping, and Qwen2MoeConfig sets sliding_window to 0 when
# use_sliding_window is off, so masking_utils cannot skip it (`_ignore_causal_mask_sdpa`, kv_length >= 0).
ALWAYS_SLIDING_MASK_TYPES = frozenset({"qwen2_moe"})


def _prefill_masks(model: ModelSpec, e: int, attention: Attention, batch: int, seq: int) -> int:
    """The attention masks of a prefill, built once per layer type by the model's forward
    (transformers' masking_utils) and kept through every layer.
    Eager: each is `eager_mask`'s batch × 1 × s × s additive mask in the compute type: one for the
    full layers, one per window kind (sliding, chunked). SDPA: the full layers' mask is skipped
    (`_ignore_causal_mask_sdpa`: no padding, the kernel's is_causal); a window shorter than the prompt
    cannot be, and `sdpa_mask` builds it as a bool tensor: a sliding window's 1 × 1 × s × s expanded
    over the batch (s² bytes whatever the batch), a chunked one's batch × 1 × s × s (its mask function
    reads each sequence's left padding: `create_chunked_causal_mask`). Linear-attention layers use no
    s × s mask."""
    window_kinds = {kind for kind, _ in model.kind_counts() if kind in (AttentionKind.SLIDING, AttentionKind.CHUNKED)}
    dead = model.model_type in ALWAYS_SLIDING_MASK_TYPES and AttentionKind.SLIDING not in window_kinds
    if attention is Attention.EAGER:
        built = len(window_kinds) + (model.count_kind(AttentionKind.FULL) > 0 or not model.kinds) + dead
        return built * batch * seq * seq * e
    masks = dead * seq * seq
    for kind in window_kinds:
        if model.tokens_kept(kind, seq) < seq:
            masks += (batch if kind is AttentionKind.CHUNKED else 1) * seq * seq
    return masks


def _prefill_attention(model: ModelSpec, e: int, attention: Attention, seq: int, kind: AttentionKind) -> int:
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
    if kind is AttentionKind.LINEAR:
        return _prefill_linear_attention(model, e, seq)
    a, d = model.heads, model.head_dim
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
    if model.model_type in SOFTMAX_IN_COMPUTE_TYPE or model.block is Block.GPT2:
        scores = 3 * e
    else:
        scores = e + 2 * FP32_BYTES if e != FP32_BYTES else 2 * FP32_BYTES
    return 3 * a * d * e + a * seq * scores + gate


def _prefill_linear_attention(model: ModelSpec, e: int, seq: int) -> int:
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
    lin = model.linear
    vh, nk, dk, dv, c = lin.value_heads, lin.key_heads, lin.key_head_dim, lin.value_head_dim, LINEAR_ATTENTION_CHUNK
    forward = (2 * nk * dk + 2 * vh * dv + vh * dv + 2 * vh + lin.conv_dim + vh) * e + FP32_BYTES * vh
    padded = -(-seq // c) * c
    chunked = FP32_BYTES * (5 * vh * (dk + dv) + 3 * vh * c + 3 * vh)
    return forward + chunked * padded // seq


def _prefill_mlp(model: ModelSpec, e: int) -> int:
    """The MLP's temporaries per token. Gated, separate gate and up (Llama): the activation, up and
    their product (3·I·e); fused gate_up (Phi-3) 4·I·e; tanh-GELU written out (GPT-2, Phi) 4·I·e.
    Mixture of experts: `_prefill_moe`."""
    dense = 0
    if model.moe_layer_count < model.layers:
        dense = (3 if model.gated_mlp and not model.fused_qkv else 4) * model.ffn * e
    if model.moe is None:
        return dense
    return max(dense, _prefill_moe(model, e))


# Routers that compute in fp32 whatever the model's dtype (an fp32 `gate.weight` and `F.linear` on the
# input cast to fp32: transformers' DeepseekV2TopkRouter, DeepseekV3TopkRouter, Glm4MoeTopkRouter), so their
# logits and routing weights are fp32; Mixtral's softmax runs on `router_logits.float()` and its top-k
# weights stay fp32 (MixtralTopKRouter). The others cast the weights back to the logits' dtype.
FP32_ROUTER_TYPES = frozenset({"deepseek_v2", "deepseek_v3", "kimi_k2", "glm4_moe"})
FP32_ROUTING_WEIGHT_TYPES = FP32_ROUTER_TYPES | {"mixtral"}
# MoE blocks that run the shared expert before the routed ones, whose output waits meanwhile
# (Qwen2MoeSparseMoeBlock, Qwen3NextSparseMoeBlock); DeepSeek and GLM-4-MoE run it after.
SHARED_EXPERT_FIRST_TYPES = frozenset({"qwen2_moe", "qwen3_next"})
ROUTED_INDEX_BYTES = 36  # per routed copy: top-k index, sorted ids, permutation, inverse (int64) and histc's fp32 ids


def _prefill_moe(model: ModelSpec, e: int) -> int:
    """An MoE layer's temporaries per token in a prefill, as transformers 5 runs its experts by default
    (`grouped_mm`, integrations/moe.py `grouped_mm_experts_forward`; the default on CPU and on CUDA from
    sm80): the k routed copies of every token are gathered in expert order and run together. Its peak is
    the larger of two moments:
    - the up projection: per copy the gathered input, the fused gate_up output, act(gate) and the
      product, (h + 4·I)·e (`_default_apply_gate`);
    - the routing weights: per copy the gathered input and the down projection's output (2·h·e), that
      output times the routing weight and its copy put back in token order (2·h·w, with w the weights'
      dtype: fp32 for FP32_ROUTING_WEIGHT_TYPES, which promotes the product to fp32), and at the end
      the sum over the k copies and its cast (h·w + h·e) with one of the two products gone.
    Around it: the router's logits (E, fp32 or e; kept by the caller's `_`), per copy the routing
    weight twice (2·w) and the index bookkeeping (ROUTED_INDEX_BYTES). A shared expert (a dense MLP,
    3·I_s·e) runs after the routed ones, which leaves their output (h·e) alive, or first, whose output
    waits through the routed ones (SHARED_EXPERT_FIRST_TYPES). Llama 4 (models/llama4/modeling_llama4.py
    Llama4TextMoe, Llama4TextExperts) runs every token through all E experts with two bmm: per copy the
    scaled input, gate_up, act(gate) and the product ((h + 4·I)·e), or at the down bmm the input,
    gate_up, the product and the output ((2·h + 3·I)·e); then the shared expert (3·I_s·e) while the
    experts' output (E·h·e) waits; the router's logits and scores (2·E·e) throughout."""
    moe, h = model.moe, model.hidden
    shared = 3 * moe.shared_ffn * e
    if model.model_type == "llama4_text":
        experts = moe.experts * max(h + 4 * moe.ffn, 2 * h + 3 * moe.ffn) * e
        return max(experts, moe.experts * h * e + shared) + 2 * moe.experts * e
    k = moe.per_token
    w = FP32_BYTES if model.model_type in FP32_ROUTING_WEIGHT_TYPES else e
    logits = moe.experts * (FP32_BYTES if model.model_type in FP32_ROUTER_TYPES else e)
    up = k * (h + 4 * moe.ffn) * e
    weighted = max(k * (2 * h * e + 2 * h * w), k * (2 * h * e + h * w) + h * w + h * e)
    routed = max(up, weighted) + logits + k * (2 * w + ROUTED_INDEX_BYTES)
    if not moe.shared_ffn:
        return routed
    if model.model_type in SHARED_EXPERT_FIRST_TYPES:
        return max(shared, h * e + routed)
    return max(routed, h * e + shared)


def prefill_window_bytes(workload: Workload) -> int:
    """transformers' sliding-window and chunked layers keep the whole prompt's K/V through the
    prefill (the cache holds a view of its last W positions), and drop it with the first new token."""
    model = workload.model
    if workload.is_training or workload.runtime is not Runtime.TRANSFORMERS:
        return 0
    extra = sum(count * (model.tokens_kept(AttentionKind.FULL, workload.seq) - model.tokens_kept(kind, workload.seq))
                for kind, count in model.kind_counts() if kind in (AttentionKind.SLIDING, AttentionKind.CHUNKED))
    return workload.effective_kv_precision.bytes_for(workload.batch * extra * model.kv_values_per_token)


def logits_bytes(workload: Workload) -> Component:
    """Logits. Training: the loss upcasts to fp32 and log-softmax keeps its fp32 output
    (4 B per value), and the model returns the logits in the compute type (e); Gemma 2's
    final soft-cap keeps one more e-byte tanh. Inference: fp32 logits of the last
    position only, as HF `generate` and vLLM compute them."""
    model = workload.model
    if not workload.is_training:
        num_bytes = workload.batch * model.vocab * FP32_BYTES
        return Component(
            key="logits", bytes=num_bytes,
            explain=lambda: message("logits.inference", batch=workload.batch, vocab=f"{model.vocab:,}", bytes=_fmt(num_bytes)),
        )
    e = workload.activation_precision.bits // 8
    if workload.fused_ce:
        tokens = workload.batch * workload.seq
        chunk = fused_ce_chunk(tokens, model.vocab, model.hidden)
        num_bytes = chunk * model.vocab * (FP32_BYTES + e) + tokens * model.hidden * FP32_BYTES
        return Component(key="logits", bytes=num_bytes, explain=lambda: message(
            "logits.fused", chunk=f"{chunk:,}", vocab=f"{model.vocab:,}", tokens=f"{tokens:,}", bytes=_fmt(num_bytes)))
    per_value = FP32_BYTES + e + (e if model.final_logit_softcap else 0)
    num_bytes = workload.batch * workload.seq * model.vocab * per_value
    return Component(
        key="logits", bytes=num_bytes,
        explain=lambda: message(
            "logits.training", batch=workload.batch, seq=f"{workload.seq:,}", vocab=f"{model.vocab:,}",
            per_value=per_value, precision=workload.activation_precision.value, bytes=_fmt(num_bytes),
        ),
    )


def fused_ce_chunk(tokens: int, vocab: int, hidden: int) -> int:
    """Liger's fused linear cross-entropy materialises the logits of one chunk of tokens at a time:
    chunk = next power of two of ceil(tokens / ceil(vocab / hidden)) (liger_kernel
    fused_linear_cross_entropy.py), so a chunk's logits are about the size of the hidden states."""
    chunk = -(-tokens // -(-vocab // hidden))
    return 1 << (chunk - 1).bit_length()


def overhead_bytes(workload: Workload) -> Component:
    """Framework overhead: an explicit amount the user sets (reference.md §2.8)."""
    return Component(
        key="overhead", bytes=workload.overhead_bytes,
        explain=lambda: message("overhead.formula", gib=f"{workload.overhead_bytes / GIB:g}"),
    )


def _notes(workload: Workload) -> tuple[str, ...]:
    model = workload.model
    notes = list(model.notes)
    if model.max_positions and workload.seq > model.max_positions:
        notes.append(message("note.seq_over_context", seq=workload.seq, context=model.max_positions))
    if model.is_moe:
        notes.append(message("note.moe", total=format_count(model.params), active=format_count(model.active_params)))
    if model.mla is not None and not workload.is_training:
        notes.append(message("note.mla"))
    if workload.runtime is Runtime.LLAMACPP:
        notes.append(message("note.ollama"))
    if workload.runtime is Runtime.VLLM:
        notes.append(message("note.vllm_fit"))
    if workload.is_training and model.linear is not None:
        notes.append(message("note.linear_training"))
    if model.native_format:
        notes.append(message("note.native_format", format=model.native_format))
    if isinstance(workload.precision, Precision) and not workload.precision.is_float:
        notes.append(message("note.quantised", precision=workload.precision.value, bits=workload.precision.bits))
    return tuple(notes)


def estimate(workload: Workload) -> Breakdown:
    """All components of one workload, for the engine it runs on: training, the live bytes at the
    step's peak phase (step.py); inference, the engine's resident bytes at its peak."""
    runtime: dict[str, object] = {"name": workload.runtime.value}
    host = 0
    phases: dict[str, dict[str, int]] = {}
    peak = "inference"
    sizes: dict[str, int] = {}
    if workload.runtime is Runtime.VLLM:
        components, runtime = _vllm(workload)
    elif workload.runtime is Runtime.LLAMACPP:
        components, runtime, host = _llamacpp(workload)
    elif workload.is_training:
        components, sizes, phases, peak = _training_step(workload)
    else:
        components = (
            weights_bytes(workload),
            gradients_bytes(workload),
            optimizer_state_bytes(workload),
            master_weights_bytes(workload),
            kv_cache_bytes(workload),
            activations_bytes(workload),
            logits_bytes(workload),
            _prefill_window(workload),
            overhead_bytes(workload),
        )
    return Breakdown(
        workload=workload,
        params=workload.model.params,
        active_params=workload.model.active_params,
        components=components,
        notes=_notes(workload),
        assumptions=_assumptions(workload),
        runtime=runtime,
        host_bytes=host,
        sizes=sizes or {component.key: component.bytes for component in components},
        phases=phases,
        peak_phase=peak,
    )


def _training_step(workload: Workload) -> tuple[tuple[Component, ...], dict[str, int], dict[str, dict[str, int]], str]:
    """The components live at the worst phase of a steady-state step, each phase's bytes, and its name."""
    model = workload.model
    e = workload.activation_precision.bits // 8
    tokens = workload.batch * workload.seq
    weights = weights_bytes(workload)
    copies = _training_weight_extras(workload)[0] if workload.recipe is Recipe.AMP and not workload.lora else 0
    gradients, optimizer, master = gradients_bytes(workload), optimizer_state_bytes(workload), master_weights_bytes(workload)
    activations, activations_forward = _training_activations(workload)
    logits = logits_bytes(workload)
    tensors, _, gradient_bytes = _trainable(workload)
    state_bytes = _adapter_bytes(workload) if workload.lora else _states(workload).state
    impl = step.implementation(workload.optimizer, workload.optimizer_impl)
    update = step.update_temporaries(workload.optimizer, impl, tensors, state_bytes, gradient_bytes)
    dequantised = _dequantised_bytes(workload, e)
    transient = _backward_transient(workload, e) + dequantised
    loss_gradient = 0 if workload.fused_ce else tokens * model.vocab * step.LOSS_GRADIENT_BYTES
    sizes = step.Sizes(
        weights=weights.bytes - copies, weight_copies=copies, master=master.bytes, optimizer=optimizer.bytes,
        gradients=gradients.bytes, head_gradient=_head_gradient_bytes(workload, tensors, gradient_bytes),
        activations_forward=activations_forward, activations_backward=activations.bytes,
        activations_recomputed=(activations.bytes - activations_forward
                                if workload.checkpointing is not Checkpointing.NONE else 0),
        gradients_before_first_layer=gradients.bytes - _last_gradient_bytes(workload, tensors, gradient_bytes),
        logits=logits.bytes,
        logits_held=0 if workload.fused_ce else tokens * model.vocab * e, loss_gradient=loss_gradient,
        layer_transient=transient, update_temporaries=update, accumulating=workload.grad_accum > 1)
    by_phase = step.phases(sizes)
    peak = step.peak(by_phase)
    live = by_phase[peak]
    temporaries = {
        "forward": lambda: message("temporaries.none"),
        "loss": lambda: message("temporaries.loss", tokens=f"{tokens:,}", vocab=f"{model.vocab:,}",
                                bytes=_fmt(loss_gradient)),
        "backward_start": lambda: message("temporaries.backward", bytes=_fmt(transient), dequantised=message(
            "temporaries.dequantised", bytes=_fmt(dequantised)) if dequantised else ""),
        "backward_end": lambda: message("temporaries.backward", bytes=_fmt(transient), dequantised=message(
            "temporaries.dequantised", bytes=_fmt(dequantised)) if dequantised else ""),
        "optimizer": lambda: message(f"temporaries.optimizer.{impl.value}", optimizer=workload.optimizer.value,
                                     bytes=_fmt(update)),
    }[peak]
    whole = {c.key: c for c in (weights, gradients, optimizer, master, activations, logits)}
    phase_name = message(f"phase.{peak}")

    def at_peak(component: Component) -> Component:
        bytes_live = live[component.key]
        if bytes_live == component.bytes:
            return component
        return Component(key=component.key, bytes=bytes_live, explain=lambda: component.formula + message(
            "phase.live", phase=phase_name, bytes=_fmt(bytes_live)))

    components = (
        *(at_peak(whole[key]) for key in ("weights", "gradients", "optimizer", "master_weights")),
        kv_cache_bytes(workload),
        at_peak(whole["activations"]),
        at_peak(whole["logits"]),
        Component(key="temporaries", bytes=live["temporaries"], explain=temporaries),
        overhead_bytes(workload),
    )
    sizes_by_key = {key: c.bytes for key, c in whole.items()} | {
        "kv_cache": 0, "temporaries": max(phase["temporaries"] for phase in by_phase.values()),
        "overhead": workload.overhead_bytes}
    return components, sizes_by_key, by_phase, peak


def _dequantised_bytes(workload: Workload, e: int) -> int:
    """QLoRA: bitsandbytes dequantises each 4-bit matrix to the compute dtype for its matmul, forward
    and backward, and frees it after: one matrix at a time, the largest (out × in × e)."""
    if not isinstance(workload.precision, WeightFormat) or workload.precision.name not in QLORA_FORMATS:
        return 0
    return max((t.numel for t, _ in counted_tensors(workload.model) if len(t.shape) == 2 and t.role in (
        "attention", "mlp", "shared_expert")), default=0) * e


def _last_gradient_bytes(workload: Workload, trainable: Counted, gradient_bytes: int) -> int:
    """The gradients the backward writes last: the first layer's (one of its group), and an untied embedding's."""
    tied = workload.model.tie_embeddings
    return gradient_bytes * sum(t.numel for t, _ in trainable
                                if layer_of(t.name) == 0 or (t.role == "embedding" and not tied))


def _head_gradient_bytes(workload: Workload, trainable: Counted, gradient_bytes: int) -> int:
    """The first weight gradient the backward makes: the head's (a tied head's is the embedding's)."""
    heads = [t for t, _ in trainable if t.role == "head"] or [t for t, _ in trainable if t.role == "embedding"]
    return heads[0].numel * gradient_bytes if heads and (not workload.lora or workload.lora.embeddings) else 0


def _backward_transient(workload: Workload, e: int) -> int:
    """One layer's backward temporaries: the gradients of the MLP's hidden tensors, about three of
    width I (gate, up and their product) per token, for a MoE layer of every routed copy and the
    shared expert (fitted to tools/measure_peak.py; within a few percent of the step's peak)."""
    model = workload.model
    width = model.ffn if model.moe_layer_count < model.layers else 0
    if model.moe is not None:
        width = max(width, model.moe.per_token * model.moe.ffn + model.moe.shared_ffn)
    mlp = 3 * width * e
    return workload.batch * workload.seq * max(mlp, _eager_softmax_backward(workload, e))


def _eager_softmax_backward(workload: Workload, e: int) -> int:
    """Eager attention's backward, per token, beyond what the layer has freed by then: the gradient
    of the fp32 probabilities (the backward of their cast to the compute type) and softmax's backward
    output, both fp32 per head and position (2·4·a·s; 2·e·a·s where softmax runs in the compute type),
    made after the MLP's backward has freed the MLP's saved tensors and the probability matmul's
    backward the cast probabilities (e·a·s). It outgrows the MLP's gradients for long rows and narrow
    MLPs (DeepSeek V3's MoE at 256 tokens; seen at `_softmax_backward_data` with tools/measure_peak.py
    --explain-training). The largest of the model's layers (dense or MoE)."""
    model = workload.model
    if workload.attention is not Attention.EAGER or model.block is Block.GPT2 or model.linear is not None:
        return 0
    a, seq = model.heads, workload.seq
    in_compute = model.model_type in SOFTMAX_IN_COMPUTE_TYPE or e == FP32_BYTES
    grads = 2 * (e if in_compute else FP32_BYTES) * a * seq
    cast = 0 if in_compute else e * a * seq
    freed = min(_mlp_saved(model, e, moe) for moe in model.layer_moe_values)
    return max(0, grads - cast - freed)


def _prefill_window(workload: Workload) -> Component:
    window = prefill_window_bytes(workload)
    if not window:
        return _none("temporaries", "temporaries.inference")
    return Component(key="temporaries", bytes=window, explain=lambda: message("temporaries.prefill_window",
                                                                                  bytes=_fmt(window)))


def _none(key: str, why: str) -> Component:
    return Component(key=key, bytes=0, explain=lambda: message(why))


def _vllm(workload: Workload) -> tuple[tuple[Component, ...], dict[str, object]]:
    """vLLM: what the requested sequences need, and the pool the engine would build on the card."""
    model = workload.model
    card = workload.gpu.usable_bytes if workload.gpu else 0
    default_tokens, default_seqs = engines.vllm_batch_defaults(card)
    batched = workload.max_num_batched_tokens or default_tokens
    seqs = workload.max_num_seqs or default_seqs
    kv_precision = workload.effective_kv_precision
    tokens = engines.vllm_kv_tokens(workload.seq)
    kv = workload.batch * (kv_precision.bytes_for(model.kv_values_per_sequence(tokens)) + model.linear_state_bytes(2))
    peak = engines.VLLM_SAMPLER_BYTES * min(seqs, batched) * model.vocab + engines.VLLM_PEAK_BASE
    weights = weights_bytes(workload)
    overhead = workload.overhead_bytes
    pool = engines.vllm_pool(model, kv_precision, gpu_bytes=card, utilization=workload.gpu_memory_utilization,
                             non_kv=weights.bytes + peak + overhead, seq=workload.seq)
    components = (
        weights,
        _none("gradients", "gradients.none"),
        _none("optimizer", "optimizer.none"),
        _none("master_weights", "master_weights.none"),
        Component(key="kv_cache", bytes=kv, explain=lambda: message(
            "vllm.kv", batch=workload.batch, tokens=f"{tokens:,}", bytes=_fmt(kv), pool=_fmt(pool.kv_pool_bytes),
            pool_tokens=f"{pool.kv_tokens:,}", concurrency=f"{pool.max_concurrency:.2f}", seq=f"{workload.seq:,}")),
        Component(key="activations", bytes=peak, explain=lambda: message(
            "vllm.peak", seqs=seqs, vocab=f"{model.vocab:,}", batched=f"{batched:,}", bytes=_fmt(peak))),
        _none("logits", "vllm.logits"),
        Component(key="overhead", bytes=overhead, explain=lambda: message(
            "vllm.overhead", bytes=_fmt(overhead), eager=workload.enforce_eager)),
    )
    runtime = {"name": "vllm", "gpu": workload.gpu.display_name if workload.gpu else None,
               "gpu_memory_utilization": workload.gpu_memory_utilization, "claimed_bytes": pool.claimed_bytes,
               "kv_pool_bytes": pool.kv_pool_bytes, "kv_tokens": pool.kv_tokens,
               "max_concurrency": round(pool.max_concurrency, 2), "max_num_batched_tokens": batched,
               "max_num_seqs": seqs, "block_tokens": engines.VLLM_BLOCK_TOKENS}
    return components, runtime


def _llamacpp(workload: Workload) -> tuple[tuple[Component, ...], dict[str, object], int]:
    """llama.cpp: weights and cache split between the GPU and system RAM by --gpu-layers, and the
    compute buffers its graph reserves."""
    model = workload.model
    fmt = workload.precision if isinstance(workload.precision, WeightFormat) else None
    bits = 16 if fmt is not None or workload.precision.is_float else workload.precision.bits
    bits = 32 if workload.precision is Precision.FP32 else bits
    kv_default = workload.kv_precision or Precision.FP16
    type_k = workload.kv_precision_k or kv_default
    type_v = workload.kv_precision_v or kv_default
    layout = engines.llamacpp_layout(
        model, seq=workload.seq, n_seq=workload.parallel, ubatch=workload.ubatch,
        flash=engines.uses_flash(workload.attention), type_k=type_k, type_v=type_v, gpu_layers=workload.gpu_layers)
    stack = formats.stack(model, fmt, group_size=workload.group_size, nominal_bits=bits)
    first_gpu_layer = model.layers - layout.layers_on_gpu
    device_weights = stack.layers_bytes(first_gpu_layer, model.layers)
    host_weights = stack.layers_bytes(0, first_gpu_layer)
    for tensor, size in stack.outside:
        if layout.output_on_gpu and tensor.name.startswith("output"):  # token_embd stays in RAM
            device_weights += size
        else:
            host_weights += size
            if tensor.name == "token_embd.weight" and model.tie_embeddings and layout.output_on_gpu:
                device_weights += size  # the tied head: llama.cpp puts a copy on the GPU as the output layer
    device_weights, host_weights = round(device_weights), round(host_weights)  # a variant's average layers
    overhead = workload.overhead_bytes if layout.output_on_gpu or layout.layers_on_gpu else 0
    split = message("llamacpp.split", gpu=layout.layers_on_gpu, layers=model.layers,
                    output="" if layout.output_on_gpu else message("llamacpp.no_output"),
                    host=_fmt(host_weights))
    components = (
        Component(key="weights", bytes=device_weights, explain=lambda: (
            weights_bytes(workload).formula + "; " + split)),
        _none("gradients", "gradients.none"),
        _none("optimizer", "optimizer.none"),
        _none("master_weights", "master_weights.none"),
        Component(key="kv_cache", bytes=layout.kv_device_bytes, explain=lambda: message(
            "llamacpp.kv", n_seq=layout.n_seq, n_ctx=f"{layout.n_ctx:,}", k=type_k.value, v=type_v.value,
            bytes=_fmt(layout.kv_device_bytes), host=_fmt(layout.kv_host_bytes))),
        Component(key="activations", bytes=layout.compute_bytes, explain=lambda: message(
            "llamacpp.compute", n_ub=layout.n_ub, flash="on" if engines.uses_flash(workload.attention) else "off",
            bytes=_fmt(layout.compute_bytes))),
        _none("logits", "llamacpp.logits"),
        Component(key="overhead", bytes=overhead, explain=lambda: message("llamacpp.overhead", bytes=_fmt(overhead))),
    )
    host = host_weights + layout.kv_host_bytes + layout.host_compute_bytes
    device = device_weights + layout.kv_device_bytes + layout.compute_bytes + overhead
    runtime = {"name": "llamacpp", "n_ctx": layout.n_ctx, "n_seq": layout.n_seq, "n_ubatch": layout.n_ub,
               "gpu_layers": layout.layers_on_gpu + int(layout.output_on_gpu), "device_bytes": device,
               "host_bytes": host, "compute_buffer_bytes": layout.compute_bytes,
               "host_compute_buffer_bytes": layout.host_compute_bytes, "kv_device_bytes": layout.kv_device_bytes,
               "kv_host_bytes": layout.kv_host_bytes}
    return components, runtime, host


def _assumptions(workload: Workload) -> tuple[str, ...]:
    model = workload.model
    extra = ()
    if workload.is_training and model.model_type and model.model_type not in TRAINING_MEASURED_TYPES:
        extra = (message("assumption.training_unmeasured", model_type=model.model_type),)
    if workload.lora and not lora_measured(model):
        extra += (message("assumption.lora_activations"),)
    if workload.lora and model.moe is not None and workload.lora.targets == (training.ALL_LINEAR,):
        extra += (message("assumption.lora_moe_experts"),)
    return model.assumptions + extra
