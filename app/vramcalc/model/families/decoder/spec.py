"""What a model is made of: the `ModelSpec` every formula reads.

A model is an embedding, a stack of layers and a head. Each layer has its own
attention kind (full, a sliding window, a chunk, a linear-attention state) and
its own MLP (dense or a mixture of experts); the rest (widths, norms, biases,
MLA ranks, expert sizes) is shared by the stack. Parameter counts come from the
list of weight tensors in `tensors.py`; the KV cache is summed layer by layer.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from typing import TypeVar

from ....core.phrase import Phrase
from ..encoder import Encoder
from ..reranker import Reranker
from ..speech import Speech
from ..vision import Vision

_T = TypeVar("_T")


class Block(enum.Enum):
    """Which transformer block the activation formulas follow."""

    GPT2 = "gpt2"
    """LayerNorm, fused QKV Conv1D, GELU (tanh) MLP, learned positions, dropout."""
    LLAMA = "llama"
    """RMSNorm (fp32 inside), rotary, GQA, gated MLP. Llama, Mistral, Mixtral, Qwen2/3, Phi-3 and kin."""
    GEMMA2 = "gemma2"
    """Llama-like with four RMSNorms per layer (1 + weight) and logit soft-capping. Gemma 2 and 3."""
    PHI = "phi"
    """Phi-1.5/2: one LayerNorm, attention and a GELU MLP in parallel, biases everywhere."""


class QkNorm(enum.StrEnum):
    """A norm on the queries and keys before attention, and what its weights span."""

    HEAD = "head"
    """A norm per head over head_dim (Qwen3, Gemma 3, GLM-4-MoE with use_qk_norm), of the model's norm kind: an RMSNorm
    weight, a LayerNorm's weight and bias (Persimmon), none (NanoChat)."""
    FULL = "full"
    """A norm over all heads at once, over q_dim and kv_dim, of the model's norm kind (OLMo 2; Cohere with
    use_qk_norm)."""
    PER_HEAD = "per_head"
    """A norm of its own per head, without a bias (StableLM's StableLmLayerNormPerHead: heads × head_dim weights for
    q, KV heads × head_dim for k)."""
    L2 = "l2"
    """Llama 4's L2 norm without weights, on its RoPE (chunked) layers only."""


class AttentionKind(enum.Enum):
    """How a layer attends, which decides how much of the sequence its cache keeps."""

    FULL = "full"
    SLIDING = "sliding"  # the last `sliding_window` tokens
    CHUNKED = "chunked"  # tokens of the current `attention_chunk` (Llama 4)
    LINEAR = "linear"  # a fixed-size recurrent state (Gated DeltaNet in Qwen3-Next)
    MAMBA = "mamba"  # a Mamba selective state-space mixer (Mamba-2, or Mamba-1): a convolution window and a state
    CONV = "conv"  # a short gated convolution (LFM2): a window of conv_L_cache tokens
    NONE = "none"  # no mixer at all: a layer that is only an MLP or experts (Nemotron-H's '-' and 'E')
    CROSS = "cross"  # attends to an image's tokens, not the text's (Llama 3.2 Vision's cross_attention_layers): its
    # cache holds each image's K/V whatever the text's length (`cross_kv_values`), none without images

    @property
    def caches_tokens(self) -> bool:
        """Whether the layer's cache grows with the sequence (attention), rather than a fixed state or none."""
        return self not in _NO_TOKEN_CACHE

    @property
    def recurrent(self) -> bool:
        """Whether the layer keeps a fixed-size state per sequence (linear attention, Mamba, short convolutions)."""
        return self in _RECURRENT

    # A member is its only instance and equal only to itself, so identity hashes alike and costs no Python
    # call (Enum hashes the name): models thousands of layers deep hash one member per layer.
    __hash__ = object.__hash__


_RECURRENT = frozenset({AttentionKind.LINEAR, AttentionKind.MAMBA, AttentionKind.CONV})
_NO_TOKEN_CACHE = _RECURRENT | {AttentionKind.NONE, AttentionKind.CROSS}


class Norm(enum.Enum):
    RMS = "rms"  # a weight of width h
    LAYER = "layer"  # LayerNorm: weight and bias
    LAYER_NO_BIAS = "layer_no_bias"  # Cohere: LayerNorm without a bias
    NONE = "none"  # an RMSNorm without a weight (NanoChat's F.rms_norm): no parameters


class NormCompute(enum.Enum):
    """How a norm computes, which decides what it saves for backward (memory.py `_norm_saved`)."""

    RMS = "rms"  # Llama: fp32 statistics, the normalised value cast back before the weight multiply
    RMS_FP32 = "rms_fp32"  # Gemma (1 + weight), OLMo 2: the weight multiply in fp32
    LAYER = "layer"  # torch LayerNorm (GPT-2, Phi): input, mean and 1/std
    LAYER_FP32 = "layer_fp32"  # Cohere: LayerNorm written out in fp32 ops


@dataclasses.dataclass(frozen=True, kw_only=True)
class Mla:
    """Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): K and V come from one
    compressed latent of `kv_lora_rank` values plus a shared rotary key of `qk_rope_head_dim`."""

    q_lora_rank: int  # 0: queries are projected directly (DeepSeek-V2-Lite)
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int

    @property
    def latent_width(self) -> int:
        """Values cached per token and layer by engines that keep the latent (vLLM, SGLang, llama.cpp)."""
        return self.kv_lora_rank + self.qk_rope_head_dim


@dataclasses.dataclass(frozen=True, kw_only=True)
class Indexer:
    """DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, GLM-5), beside MLA in every layer:
    `heads` queries of `head_dim` from the q latent score all earlier tokens against one key of `head_dim`
    per token, and the attention reads only the `topk` best. Its keys are a cache of their own
    (transformers' `update_indexer`; vLLM's `DeepseekV32IndexerCache`; llama.cpp's `llama_kv_cache_dsa`)."""

    heads: int
    head_dim: int
    topk: int
    shared: frozenset[int] = frozenset()  # GLM-5.2's `indexer_types` "shared" layers: they reuse the previous
    # full layer's top-k and have no indexer, no weights and no keys (GlmMoeDsaAttention.skip_topk)
    from_hidden: bool = False  # MiniMax-M3 (MiniMaxM3VLIndexer): queries from the layer's input, RMSNorms over q
    # and k, a block's best key chosen; vLLM keeps its keys as they are (MiniMaxM3IndexerCache: bf16, no scales)
    kpool: int = 0  # GLM-5.3 (Glm5NextTextIndexer): keys scored in pools of kpool, a gate score per key channel
    # (index_kpool_compress_gate, _ape); its cache packs key, gate scores and a valid flag per token
    positions: int = 0  # Qwen4-Exp: transformers also keeps each token's 3 mRoPE position ids (int64) once, on the
    # first indexed layer (indexer_position_ids)
    key_e: int = 0  # bytes of a key value in transformers' cache, 0: the compute type's (Dots3: 4, its indexed
    # layers' rotary tables made from fp32 embeddings, Dots3NoteTextModel.forward)

    def key_bytes_per_token(self, e: int, *, fp8_packed: bool) -> int:
        """One layer's indexer key for one token: `head_dim` values of `e` bytes, or vLLM's fp8 layout,
        `head_dim + head_dim // 128 * 4` bytes (the fp8 values and one 4-byte scale per 128)."""
        return (self.head_dim + self.head_dim // 128 * 4 if fp8_packed and not self.from_hidden
                else (self.head_dim * (2 if self.kpool else 1) + bool(self.kpool)) * (self.key_e or e))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Compressed:
    """DeepSeek-V4's attention (transformers' DeepseekV4Attention): one KV head whose keys are its values, queries
    through a low-rank pair, an output projection of `o_groups` groups of heads each to `o_lora_rank`, a sink per
    head; each layer keeps its last `sliding_window` tokens, and a layer with a compressor also one entry per
    `rates[0]` tokens (CSA, with a lightning indexer over its own compressed keys) or per `rates[1]` (HCA).
    `hc_mult` residual streams mixed before and after each block (DeepseekV4HyperConnection)."""

    q_lora_rank: int
    o_groups: int
    o_lora_rank: int
    hc_mult: int
    types: tuple[int, ...]  # per layer: 0 sliding only, 1 CSA, 2 HCA
    rates: tuple[int, int]  # compress_rates of CSA and HCA
    index_heads: int
    index_head_dim: int

    def values(self, tokens: int, head_dim: int) -> int:
        """Values the compressors keep for one sequence, as transformers' DeepseekV4CSACache and
        DeepseekV4HCACache hold them: an entry of head_dim (CSA: and the indexer's key) per whole window of
        `rate` tokens; the unfinished window's tokens as projected (kv and gate, CSA's twice as wide for its
        overlapping windows); on CSA, once a window closed, the last one's first halves (overlap_kv, _gate).
        The most they held on the way to `tokens`: the unfinished window's buffer empties as a window closes, so
        the end of the last whole window can hold more than `tokens` do."""
        total = 0
        for kind, rate in ((1, self.rates[0]), (2, self.rates[1])):
            width = head_dim + (self.index_head_dim if kind == 1 else 0)

            def held(t: int, kind: int = kind, rate: int = rate, width: int = width) -> int:
                return t // rate * width + t % rate * 2 * (3 - kind) * width + (
                    2 * rate * width if kind == 1 and t >= rate else 0)
            peak = max(held(tokens), held(tokens - tokens % rate - 1) if tokens >= rate else 0)
            total += self.types.count(kind) * peak
        return total


@dataclasses.dataclass(frozen=True, kw_only=True)
class LinearAttention:
    """Gated DeltaNet (Qwen3-Next): a causal convolution over q, k, v and a recurrent
    state of key_head_dim × value_head_dim per value head, whatever the sequence length."""

    key_heads: int
    value_heads: int
    key_head_dim: int
    value_head_dim: int
    conv_kernel: int
    kda: bool = False  # Kimi Delta Attention (Kimi Linear): q, k, v apart, a low-rank forget gate per channel and a
    # low-rank output gate; the same convolution and state shapes
    full_rank_gates: bool = False  # KDA's two gates as one projection each (Ling's bailing_hybrid)
    lightning: bool = False  # MiniMax-01's lightning attention (MiniMaxLightningAttention): a fused qkv_proj, an
    # output gate and an RMSNorm over all heads, no convolution; its state, K^T V per head, in the model's dtype
    griffin: bool = False  # RecurrentGemma's RG-LRU (key_heads 0): transformers keeps conv_kernel - 1 tokens
    rwkv: bool = False  # RWKV-4 (RwkvSelfAttention, value_head_dim attention_hidden_size wide): its state five
    # vectors of key_head_dim (hidden_size), two in the compute type (the shifted inputs), three in fp32

    @property
    def conv_dim(self) -> int:
        if self.lightning:
            return 0
        return 2 * self.key_heads * self.key_head_dim + self.value_heads * self.value_head_dim

    def state_bytes(self, e: int, *, trim: int = 0, state_e: int = 4) -> int:
        """Bytes one sequence keeps per layer: the convolution window of conv_kernel - trim tokens in e bytes
        and the recurrent state in state_e (transformers: the whole kernel in the compute type, the state in
        fp32; llama.cpp and vLLM keep conv_kernel - 1 tokens: `ModelSpec.state_bytes_of`). Lightning
        attention keeps heads × head_dim² in e bytes, whatever state_e (transformers' MiniMaxCache.linear_cache
        in the compute type, measured; vLLM's linear_attention_state_dtype: the model's dtype, fp32 refused)."""
        if self.lightning:
            return self.value_heads * self.key_head_dim * self.value_head_dim * e
        if self.rwkv:  # RwkvModel.forward's state: 5 × (batch, hidden_size, layers), [0] and [1] in the input's dtype
            return self.key_head_dim * (2 * e + 3 * state_e)
        return (self.conv_dim * (self.conv_kernel - max(trim, self.griffin)) * e
                + state_e * self.value_heads * self.key_head_dim * self.value_head_dim)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Mamba:
    """A Mamba mixer. Mamba-2 (Nemotron-H, Bamba, Granite 4 hybrid, Falcon-H1): one input projection to the
    gate, the convolved x, B and C and the per-head time step; a depthwise causal convolution over
    x, B and C; per-head A, D and dt bias; a gated RMSNorm; the output projection. Mamba-1 (`version` 1: Mamba,
    Jamba): the convolution over x alone, x_proj and dt_proj for the time step, B and C, A per channel. Per
    sequence either keeps the convolution window and an SSM state of `state` values per channel, whatever the
    length."""

    heads: int
    head_dim: int
    groups: int  # n_groups: B and C are shared by heads / groups heads each
    state: int  # ssm_state_size
    conv_kernel: int
    conv_bias: bool = True
    proj_bias: bool = False
    norm: bool = True  # the gated RMSNorm before out_proj (Falcon-H1 can switch it off)
    out_bias: bool | None = None  # a bias on out_proj; None: as proj_bias (Falcon-H1: projectors_bias)
    inner_size: int = 0  # the mixer's width when the config sets it apart (Falcon-H1's mamba_d_ssm)
    version: int = 2  # 1: Mamba-1's selective scan (Mamba, Jamba): x_proj to dt, B and C; dt_proj; A per channel
    dt_rank: int = 0  # Mamba-1: the time step's low rank
    bc_dt_norms: bool = False  # Jamba: RMSNorms over dt, B and C
    ssm_cache_bytes: int = 2  # vLLM's mamba_ssm_cache_dtype: the config's (float32: 4), else 16-bit

    @property
    def inner(self) -> int:
        return self.inner_size or self.heads * self.head_dim

    @property
    def conv_dim(self) -> int:
        """What the convolution runs over: x, B and C (Mamba-2); x alone (Mamba-1)."""
        return self.inner if self.version == 1 else self.inner + 2 * self.groups * self.state

    def state_bytes(self, e: int, *, trim: int = 0, state_e: int = 4) -> int:
        """Bytes one sequence keeps per layer: the convolution window of conv_kernel - trim tokens in e bytes and
        the SSM state (heads × head_dim × state) in state_e. transformers 5.23 keeps the whole kernel in the
        compute type and the fp32 state its scan makes (measured: LinearAttentionLayer's conv_states and
        recurrent_states); llama.cpp (n_embd_r, n_embd_s, both F32) and vLLM (MambaStateShapeCalculator)
        keep conv_kernel - 1 tokens."""
        return self.conv_dim * (self.conv_kernel - trim) * e + state_e * self.inner * self.state


@dataclasses.dataclass(frozen=True, kw_only=True)
class SharedBlock:
    """Zamba2's shared transformer blocks (Zamba2AttentionDecoderLayer): `blocks` of them (num_mem_blocks) serve the
    hybrid layers in turn, their weights held once; each use adds a LoRA of `rank` on the MLP's gate_up and, with
    `attention_adapters`, on q, k and v (the adapters of every use held once too). The attention reads the layer's
    input and the embeddings side by side (2 × hidden), its heads 2 × hidden ÷ heads wide; each hybrid layer
    keeps its own K and V, and a linear hidden → hidden after the block."""

    blocks: int
    rank: int  # 0: no adapters (Zamba)
    width: int  # the attention's input: the layer's input and the embeddings side by side (attention_hidden_size)
    attention_adapters: bool = False
    tied: bool = True  # the uses of a block share its weights; transformers 5.23 ties them only with
    # tie_word_embeddings (PreTrainedModel.get_expanded_tied_weights_keys), so an untied head gives every use a copy


@dataclasses.dataclass(frozen=True, kw_only=True)
class ShortConv:
    """LFM2's gated short convolution (Lfm2ShortConv): in_proj to B, C and x (3 × width), a depthwise causal
    convolution of `kernel` taps over B·x, out_proj of C times its output. Per sequence it keeps the last
    tokens of its input, whatever the length."""

    width: int
    kernel: int  # conv_L_cache
    bias: bool = False

    def state_bytes(self, e: int, *, trim: int = 0, state_e: int = 4) -> int:
        """A window of kernel - trim tokens of `width` values in e bytes (transformers 5.23: the whole kernel in
        the compute type, seen as conv_states (1, h, 3) bf16; llama.cpp: n_embd × (L_cache - 1) in F32; vLLM
        (L_cache - 1) × width in the model's dtype). No recurrent state: state_e is unused."""
        return self.width * (self.kernel - trim) * e


@dataclasses.dataclass(frozen=True, kw_only=True)
class Cca:
    """ZAYA's Compressed Convolutional Attention (ZayaCCAProjection; arXiv 2510.04476): q and k projected, then
    mixed over time by a depthwise convolution of `time0` taps and a grouped one (a group per head) of `time1`, both
    with biases; the value half from the current token, half from the previous one (v_proj_current and
    v_proj_delayed). Per sequence it keeps the convolutions' last time0 - 1 + time1 - 1 inputs and the previous
    token's delayed value (transformers' conv_states and recurrent_states, in the compute type). ZAYA's layers also
    scale and shift the residual and the block's output (ZayaResidualScaling, 4 × h each, twice per layer, and
    once over the embeddings) and route by an MLP (ZayaRouter) of `router` wide."""

    time0: int
    time1: int
    router: int

    def state_values(self, q_dim: int, kv_dim: int) -> int:
        """Values one layer keeps for one sequence: the convolution window over q and k, the delayed value."""
        return (q_dim + kv_dim) * (self.time0 - 1 + self.time1 - 1) + kv_dim // 2


@dataclasses.dataclass(frozen=True, kw_only=True)
class Inkling:
    """Inkling (InklingAttention, InklingDecoderLayer): r_proj, d_rel relative-position values per head scored by a
    table of d_rel × rel_extent (a sliding layer's extent is its window); depthwise causal convolutions of `kernel`
    taps, no bias, over k, v, attention's output and the MLP's output (InklingShortConvolution). Per layer and
    sequence transformers keeps each convolution's last `kernel` inputs in fp32 (four conv_states). The router
    scores the `shared` shared experts too (InklingTopkRouter), and a learned global scale sits on the router and
    on each dense MLP."""

    kernel: int
    d_rel: int
    rel_extent: int
    shared: int
    two: bool = False  # Inkling 2: gates, sinks, clip scales, input-dependent k/v taps on full layers, q/k/v input
    # norms, attention-residual queries (Inkling2BlockAttentionResidual); no dense MLPs, no router scale

    def state_values(self, kv_dim: int, hidden: int) -> int:
        """Values one layer keeps for one sequence: the four convolutions' windows (k and v of kv_dim, two of h)."""
        return (2 * kv_dim + 2 * hidden) * self.kernel


@dataclasses.dataclass(frozen=True, kw_only=True)
class Ple:
    """Qwen4-Exp's per-layer n-gram embeddings (Qwen4ExpTextPLELayer) on `layers`: a hashed table per layer of `rows`
    (its n-gram heads' prime vocabularies summed, padded), `width` ÷ `heads` wide; key (streams × h) and value (h)
    projections from `width`, three norms over the streams, a depthwise conv of `kernel` taps at dilation `ngram`.
    Per layer and sequence transformers keeps the conv's last (kernel - 1) × ngram inputs (streams × h, the compute
    type) and the last ngram - 1 token ids (int64)."""

    layers: tuple[int, ...]
    rows: tuple[int, ...]
    width: int
    heads: int
    kernel: int
    ngram: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class Moe:
    """A mixture-of-experts MLP: `experts` routed experts of width `ffn`, `per_token` used
    per token, plus shared experts (always used) of total width `shared_ffn`."""

    experts: int
    per_token: int
    ffn: int
    shared_ffn: int = 0
    shared_gate: bool = False  # Qwen2-MoE / Qwen3-Next: a sigmoid gate h -> 1 on the shared expert
    router_bias: bool = False  # gpt-oss
    expert_bias: bool = False  # gpt-oss: biases on every expert projection
    score_bias: bool = False  # ERNIE 4.5: a learned score-correction bias per expert (`moe_statics`)
    beside_dense: bool = False  # Gemma 4: the experts run beside the layer's dense MLP (shared_ffn, ungated),
    # with a router scaled per channel and per expert and three norms of their own
    gated: bool = True  # False: experts and shared expert are up and down only (Nemotron-H's relu²)
    latent: int = 0  # Nemotron 3 Super: experts work in a latent of this width, projected from and back to h
    zero_experts: int = 0  # LongCat-Flash: experts that return their input, routed like the others; transformers
    # gives them router rows and gate/up slots too (LongcatFlashExperts.gate_up_proj), not down
    post_norm: bool = False  # A.X-K1 (AXK1MoE.post_mlp_layernorm): an RMSNorm over the block's output
    product_keys: bool = False  # Doge (DogeCDMoE): experts of one row each (up_embed, down_embed), chosen by a router
    # of 2 × floor(√experts) product keys (router_gate) rather than a row per expert
    zero_slots: bool = True  # those gate/up slots are held (transformers); False: vLLM's ZeroExpertFusedMoE,
    # num_experts = n_routed_experts, router rows only (inputs/parse.py, for every engine but transformers)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelSpec:
    name: str
    display_name: str
    block: Block
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int  # the dense MLP width (dense layers; for an all-MoE model, the expert width)
    vocab: int
    tie_embeddings: bool
    gated_mlp: bool = True
    norm: Norm = Norm.RMS
    norms_per_layer: int = 2
    norm_compute: NormCompute = NormCompute.RMS
    post_norms: bool = False  # OLMo 2: the two norms follow attention and the MLP instead of feeding them
    final_norm: bool = True
    qkv_bias: bool = False
    o_bias: bool = False  # a bias on the attention output projection (gpt-oss, Phi)
    mlp_bias: bool = False  # biases on the dense MLP projections (Phi)
    down_bias: bool | None = None  # the down projection's, when not mlp_bias's (JinaBERT's wo, nomic's mlp_fc2_bias)
    head_bias: bool = False  # a bias on the LM head (Phi)
    qk_norm: QkNorm | None = None  # a norm on q and k, None: none
    attention_gate: bool = False  # Qwen3-Next: q_proj also produces an output gate (twice as wide)
    gate_apart: bool = False  # AFMoE (AfmoeAttention.gate_proj): that gate is a projection of its own, unbiased
    gate_bias: int = 0  # a learned bias on that gate, values per head: Beam's 1 (BeamAttention.gate_bias), HRM-Text's
    # head_dim (gate_proj's, with attention_bias)
    gated_residual: tuple[int, ...] = ()  # Qwen4-Exp (Qwen4ExpTextGatedResidual): (streams, rank): before attention and
    # before the MLP a norm over the streams (streams × h), a low-rank mix (down, up) and injection weights; a mixer
    # (norm, down, up) after the last layer
    ple: Ple | None = None  # Qwen4-Exp's per-layer n-gram embeddings
    hrm: tuple[int, ...] = ()  # HRM-Text (num_layers_per_stack, L_cycles): the layers are every pass of its L and H
    # stacks in turn (L_cycles of L then one of H, H_cycles times), each caching its own K/V; only the first pass of
    # each stack holds weights (`reuses_weights`), and z_L_init (h) is held once
    softmax_scaling: bool = False  # Mistral Large 4 (MistralLarge4TextSoftmaxScaling): a learned scale and bias per
    # head in MLA and in its indexer, whose queries come from a LayerNorm over the layer's input (no q latent)
    nope_layers: frozenset[int] = frozenset()  # MLA layers without RoPE (Mistral Large 4's no_rope_layers): kv_a
    # has no rotary part and kv_b's keys take its width (weights only: the cache is read as the other layers')
    moa: bool = False  # JetMoE (JetMoeMoA): q and o per expert of kv_heads × head_dim, routed as the MLP's
    sinks: bool = False  # gpt-oss: one learned sink logit per head
    sliding_sinks: bool = False  # MiMo-V2: sinks on the sliding-window layers only
    v_head_dim: int = 0  # a value head narrower than the query/key head (MiMo-V2: 128 of 192); 0: head_dim
    fused_qkv: bool = False  # Phi-3: one qkv_proj, so V is a view of the fused output
    learned_positions: int = 0  # GPT-2: a position-embedding table of this many rows
    embed_norm: bool = False  # BLOOM: a LayerNorm over the token embeddings (word_embeddings_layernorm)
    dropout: bool = False  # GPT-2 trains with dropout; the others default to 0
    attention_softcap: bool = False
    final_logit_softcap: bool = False
    kinds: tuple[AttentionKind, ...] = ()  # per layer; empty: every layer full
    sliding_window: int = 0
    attention_chunk: int = 0
    mla: Mla | None = None
    mla_per_head: bool = False  # vLLM and llama.cpp expand the latent and cache K and V per head (MiniCPM3:
    # vllm/model_executor/models/minicpm3.py, src/models/minicpm3.cpp); transformers keeps the latent
    sliding_mla: Mla | None = None  # Dots3: the sliding layers' own MLA sizes (their heads: sliding_heads)
    rope_norm: bool = False  # Dots3 (k_rope_only_layernorm): an RMSNorm over MLA's rotary key
    full_kv_heads: int = 0  # Gemma 4: the full-attention layers' own KV heads and head size (0: as the others)
    full_head_dim: int = 0
    full_k_eq_v: bool = False  # Gemma 4 (attention_k_eq_v): full layers have no v_proj; their keys are the values
    kv_shared_layers: int = 0  # Gemma 3n/4: the last layers reuse an earlier layer's K/V (no cache, no K/V weights)
    drafter_backbone: int = 0  # Gemma 4's drafters: the target's width (every layer reuses the target's K/V; a
    # projection from twice the width, one back to it); 0: no drafter
    drafter_centroids: int = 0  # ... and the centroids of their ordered head (use_ordered_embeddings; 0: none)
    altup_inputs: int = 0  # Gemma 3n's AltUp: the streams its layers predict and correct (0: none)
    laurel_rank: int = 0  # Gemma 3n's Laurel block: a low-rank residual of this rank in every layer (0: none)
    double_wide_shared_mlp: bool = False  # Gemma 4 (use_double_wide_mlp): those layers' MLP is twice as wide
    per_layer_input: int = 0  # Gemma 3n/4 per-layer embeddings: values per layer and token (0: none)
    per_layer_vocab: int = 0  # ... and the rows of their table
    image_rows: int = 0  # Llama 3.2 Vision (MllamaTextModel.embed_tokens): rows past the vocabulary in the embedding
    # table (8), none in the head
    indexer: Indexer | None = None  # DeepSeek Sparse Attention (with MLA)
    activation_params: int = 0  # learned scalars of each layer's MLP activation (Apertus' xIELU: alpha_p, alpha_n)
    linear: LinearAttention | None = None
    compressed: Compressed | None = None  # DeepSeek-V4's attention, its compressors and hyper-connections
    diff_lambdas: bool = False  # DiffLlama: lambda_q1, lambda_k1, lambda_q2, lambda_k2 of head_dim a layer
    dynamic_mask: bool = False  # Doge: its dynamic mask's A (a value per KV head) and dt_proj (the values to one per KV
    # head, biased by attention_bias), and the layer's two residual scales (input_residual, post_attention_residual)
    sub_norms: bool = False  # BitNet: a norm over attention's output before o_proj (attn_sub_norm, hidden wide) and
    # over the MLP's gated product before down_proj (ffn_sub_norm, intermediate wide)
    gated_norm: int = 0  # A.X-K2 (AXK2GatedRMSNorm): the rank of a sigmoid gate (fc1, fc2) after input_layernorm,
    # and after post_attention_layernorm on MoE layers (0: none)
    inkling: Inkling | None = None  # Inkling: relative logits, four short convolutions a layer, routed shared experts
    cca: Cca | None = None  # ZAYA: convolutional q/k, a delayed value half, residual scalings, an MLP router
    hyper: int = 0  # Hy4 (HYV4HyperConnection): the residual streams mixed before and after each block (0: none)
    hyper_comb: bool = False  # GLM-5.3 (Glm5NextTextHyperConnection): a comb mix too ((2 + n) × n rows, three
    # scales) and an unweighted mean at the head (no parameters)
    repeated_kv_cache: bool = False  # transformers caches K and V repeated to every query head (Falcon's new
    # decoder architecture broadcasts them before its cache; vLLM and llama.cpp keep the KV heads)
    sliding_heads: int = 0  # Step 3.5/3.7: the sliding layers' own query heads (0: as the others)
    head_gate: bool = False  # a sigmoid gate per head on attention's output, from the layer's input (Ling, LFM3)
    mamba: Mamba | None = None
    short_conv: ShortConv | None = None
    shared_block: SharedBlock | None = None  # Zamba2: the hybrid (FULL) layers' shared transformer blocks; the other
    # layers are kind NONE, a Mamba mixer in every layer (parallel_mamba)
    parallel_mamba: bool = False  # Falcon-H1: every layer runs attention and a Mamba mixer side by side
    mlp_apart: bool = False  # Nemotron-H: a layer is one mixer or one MLP: attention and Mamba layers have no
    # MLP, and the MLP and MoE layers (kind NONE) no attention
    moe: Moe | None = None
    moe_layers: tuple[bool, ...] = ()  # per layer; empty: every layer MoE when `moe` is set
    max_positions: int | None = None  # the longest context the model was built for
    params_override: int | None = None  # custom models: the total the user typed
    assumptions: tuple[str | Phrase, ...] = ()  # what was not understood and how it was read: the result is approximate
    notes: tuple[str | Phrase, ...] = ()  # true facts the user should know (not counted: vision tower, MTP layer, ...)
    native_format: str = ""  # the checkpoint's own weight format when it is not 16-bit
    model_type: str = ""  # the config's model_type, as read
    vision: Vision | None = None  # a multimodal model's vision tower and projector, apart from the layers
    encoder: Encoder | None = None  # an encoder embedder or reranker (BERT, XLM-R, ModernBERT): no KV cache
    reranker: Reranker | None = None  # a decoder reranker: scored on its head's rows, or a converted classifier
    speech: Speech | None = None  # a speech encoder-decoder (Whisper): its audio encoder; the layers are the decoder's
    planned_layers: int = 0  # a deeper or shallower variant (solve.scaled_depth): the real model's depth, whose
    # GGUF mixture (llama-quantize's bits per layer) its layers keep on average; 0: this depth is real
    # Multi-token prediction (MTP): layers the checkpoint holds past `layers` that engines load only for speculative
    # decoding (num_nextn_predict_layers; Qwen3.5's mtp_num_hidden_layers). Not built unless `mtp_built` says so.
    mtp_layers: int = 0
    mtp_style: str = ""  # "nextn": DeepSeek-V3's names (embed_tokens, enorm, hnorm, eh_proj, shared_head.norm and
    # .head in each MTP layer); "qwen": Qwen3.5's mtp.* (fc, two pre-fc norms, a norm; the model's embedding and head)
    mtp_built: int = 0  # the last mtp_built of `layers` are those MTP layers, loaded (model/families/decoder/mtp.py)
    mtp_copies: bool = False  # each built MTP layer holds its own embedding and head copies (vocab × h each)

    def __post_init__(self) -> None:
        if not self.kinds:
            object.__setattr__(self, "kinds", (AttentionKind.FULL,) * self.layers)
        if self.moe is not None and not self.moe_layers:
            object.__setattr__(self, "moe_layers", (True,) * self.layers)

    @property
    def reusing_layers(self) -> int:
        """How many of the last layers reuse an earlier layer's K/V (Gemma 3n/4's num_kv_shared_layers). A
        variant of another depth (solve.scaled_depth) keeps the first layers: a shallower one drops the reusing
        layers first, a deeper one keeps their number; the field keeps the real model's, so its depth comes back."""
        if self.drafter_backbone:  # every layer, whatever the depth
            return self.layers
        depth = self.planned_layers or self.layers
        return min(self.kv_shared_layers, max(0, self.kv_shared_layers + self.layers - depth))

    def with_layers(self, layers: int) -> ModelSpec:
        """The same architecture with another depth: fewer layers keep the first ones; more
        layers continue the per-layer pattern (sliding/full, dense/MoE) of the stack's end."""
        compressed = self.compressed and dataclasses.replace(self.compressed,
                                                             types=_resize(self.compressed.types, layers))
        return dataclasses.replace(self, layers=layers, kinds=_resize(self.kinds, layers), compressed=compressed,
                                   moe_layers=_resize(self.moe_layers, layers) if self.moe_layers else ())

    def as_embedder(self, *, keep_head: bool = False, row_per_token: bool = False) -> ModelSpec:
        """The model an embedder loads (`AutoModel`, as sentence-transformers does): a decoder without an untied
        lm_head (Qwen3-Embedding, e5-mistral, gte-Qwen2); an encoder, or a tied decoder, as it is. A reranker scored
        on its head's rows (Qwen3-Reranker) as its engine loads it: `keep_head`, the causal LM whole (transformers'
        AutoModelForCausalLM); else the head replaced by a score of vLLM's rows (from_2_way_softmax: 1 × h), or one
        row per token (`row_per_token`: llama.cpp's GGUF, whose converter writes the rows as cls.output)."""
        reranker = self.reranker
        if reranker is not None and reranker.from_head and not reranker.scored:
            if keep_head:
                return self
            rows = len(reranker.tokens) if row_per_token else reranker.labels
            return dataclasses.replace(self, tie_embeddings=True, head_bias=False, reranker=dataclasses.replace(
                reranker, scored=True, labels=rows))
        if self.encoder is not None or self.tie_embeddings:
            return self
        return dataclasses.replace(self, tie_embeddings=True)

    # -- the old names the formulas read

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def is_moe(self) -> bool:
        return self.moe is not None

    @property
    def num_experts(self) -> int:
        return self.moe.experts if self.moe else 0

    @property
    def experts_per_token(self) -> int:
        return self.moe.per_token if self.moe else 0

    @property
    def is_approximate(self) -> bool:
        return bool(self.assumptions)

    # -- layer kinds

    # Estimates ask these of every model dozens of times per update, and the solvers ask them of
    # models thousands of layers deep: each is counted once per spec.

    @functools.cached_property
    def _kind_count(self) -> dict[AttentionKind, int]:
        return {kind: self.kinds.count(kind) for kind in dict.fromkeys(self.kinds)}

    def count_kind(self, kind: AttentionKind) -> int:
        return self._kind_count.get(kind, 0)

    @functools.cached_property
    def layer_groups(self) -> tuple[tuple[tuple[AttentionKind, bool, int], int, int], ...]:
        """The layers grouped by what their shapes depend on, `layer_keys`: each
        group as (that pair, its first layer's index, how many layers), in order of first layer."""
        pairs = self.layer_keys
        return tuple((pair, pairs.index(pair), pairs.count(pair)) for pair in dict.fromkeys(pairs))

    @functools.cached_property
    def layer_keys(self) -> tuple[tuple[AttentionKind, bool, int], ...]:
        """Each layer's (attention kind, MoE or not, variant): what its shapes depend on. The variant is the
        indexer shared or not (0, 1) or DeepSeek-V4's compressor type (0 to 2), plus 4 on Gemma 3n/4's layers
        reusing an earlier layer's K/V (no k/v weights, a double-wide MLP), plus 8 on built MTP layers, plus 16 on
        MLA layers without RoPE (`nope_layers`), plus 32 on ZAYA's first layer (its router reads no earlier one's)
        and Inkling's (no attention-residual query),
        plus 32 × the adapters a layer holding a Zamba2 shared block holds, plus 64 on HRM-Text's later passes, plus
        128 × (its place + 1) on a Qwen4-Exp PLE layer (each its own table)."""
        shared = self.indexer.shared if self.indexer else frozenset()
        types = self.compressed.types if self.compressed else ()
        reusing = self.layers - self.reusing_layers
        mtp = self.layers - self.mtp_built  # the MTP layers' own tensors (eh_proj, its norms): 8 more
        nope = self.nope_layers
        return tuple((kind, moe, int(types[i] if types else i in shared) + 4 * (i >= reusing) + 8 * (i >= mtp)
                      + 16 * (i in nope) + 32 * (i == 0 and (self.cca is not None or self.inkling is not None))
                      + 32 * self.shared_block_adapters(i) + 64 * self.reuses_weights(i)
                      + 128 * (self.ple.layers.index(i) + 1 if self.ple and i in self.ple.layers else 0))
                     for i, (kind, moe) in
                     enumerate(zip(self.kinds, self.moe_layers or (False,) * self.layers, strict=False)))

    @functools.cached_property
    def _shared_block_holders(self) -> dict[int, int]:
        block = self.shared_block
        if block is None:
            return {}
        uses = [i for i, kind in enumerate(self.kinds) if kind is AttentionKind.FULL]
        per_block = [len(uses[b::block.blocks]) for b in range(block.blocks)]
        return {i: per_block[u % block.blocks] for u, i in enumerate(uses) if not block.tied or u < block.blocks}

    def shared_block_adapters(self, index: int) -> int:
        """Zamba2: how many uses' adapters layer `index` holds with its shared block's weights (the uses of its
        block, Zamba2MLP's gate_up_proj_adapter_list: `i % num_mem_blocks == block_id`); 0 when it holds no block
        (a Mamba layer, or a later use of a tied block)."""
        return self._shared_block_holders.get(index, 0)

    @property
    def moe_layer_count(self) -> int:
        return sum(count for (_, moe, _), _, count in self.layer_groups if moe)

    @functools.cached_property
    def layer_moe_values(self) -> frozenset[bool]:
        """Whether layers are MoE, over all layers: {False}, {True} or both."""
        return frozenset(moe for (_, moe, _), _, _ in self.layer_groups)

    def reuses_weights(self, index: int) -> bool:
        """HRM-Text: layer `index` is a later pass of a stack layer whose weights an earlier pass holds."""
        return bool(self.hrm) and index // self.hrm[0] not in (0, self.hrm[1])

    def layer_is_moe(self, index: int) -> bool:
        return bool(self.moe_layers) and self.moe_layers[index]

    @functools.cached_property
    def _hash(self) -> int:
        return hash(tuple(getattr(self, field.name) for field in dataclasses.fields(self)))

    def __hash__(self) -> int:  # computed once: layouts' caches key on the spec on every estimate
        return self._hash

    # -- KV cache

    def kv_values_per_sequence(self, tokens: int, *, vllm: bool = False) -> int:
        """Values the attention layers' cache holds for one sequence of `tokens` tokens.

        Full attention: K and V of kv_heads × head_dim per token; sliding and chunked layers
        keep at most their window; MLA layers keep one latent of kv_lora_rank + qk_rope_head_dim
        per token (vLLM's `head_size: 576` for DeepSeek-V3); DeepSeek-V4 adds its compressors' entries.
        Linear-attention layers keep a fixed state instead (`recurrent_state_bytes`)."""
        total = 0
        for kind, _ in self.kind_counts():
            if kind.caches_tokens:
                total += self.cached_layers(kind) * self.kv_width(kind, vllm=vllm) * self.tokens_kept(kind, tokens)
        return total + (self.compressed.values(tokens, self.head_dim) if self.compressed else 0)

    def cross_kv_values(self, image_tokens: int) -> int:
        """Values the cross-attention layers' cache holds for one sequence whose images became `image_tokens`
        vision tokens (MllamaTextCrossAttention: K and V of the KV heads per token, after k_norm), whatever the text."""
        return self.count_kind(AttentionKind.CROSS) * self.kv_width(AttentionKind.CROSS) * image_tokens

    def layer_has_mlp(self, kind: AttentionKind) -> bool:
        """Whether a layer of `kind` has an MLP (or experts) after its mixer (Zamba2: the hybrid layers' shared
        block's)."""
        if self.shared_block is not None:
            return kind is AttentionKind.FULL
        return not self.mlp_apart or kind is AttentionKind.NONE

    @functools.cached_property
    def attends(self) -> bool:
        """Whether any layer attends over the sequence (Mamba-2 and Mamba-1 alone do not)."""
        return any(kind.caches_tokens for kind, _ in self.kind_counts())

    @functools.cached_property
    def has_mlp(self) -> bool:
        """Whether any layer has an MLP or experts (Mamba alone has none)."""
        return any(self.layer_has_mlp(kind) for kind, _ in self.kind_counts())

    def cached_layers(self, kind: AttentionKind) -> int:
        """Layers of `kind` that keep a cache of their own: all but those reusing an earlier layer's."""
        return self.count_kind(kind) - self.kinds[self.layers - self.reusing_layers:].count(kind)

    def head_dim_of(self, kind: AttentionKind) -> int:
        return self.full_head_dim if kind is AttentionKind.FULL and self.full_head_dim else self.head_dim

    def heads_of(self, kind: AttentionKind) -> int:
        return self.sliding_heads if kind is AttentionKind.SLIDING and self.sliding_heads else self.heads

    def mla_of(self, kind: AttentionKind) -> Mla:
        assert self.mla is not None
        return self.sliding_mla if kind is AttentionKind.SLIDING and self.sliding_mla else self.mla

    def kv_heads_of(self, kind: AttentionKind) -> int:
        return self.full_kv_heads if kind is AttentionKind.FULL and self.full_kv_heads else self.kv_heads

    def kv_width(self, kind: AttentionKind, *, vllm: bool = False) -> int:
        """Values one layer of `kind` caches per token: K and V of its KV heads × head size (both kept
        where the keys are the values: transformers' cache stores what it is given twice), or MLA's latent;
        under vLLM a `mla_per_head` model's K and V per head, V padded to K's width (MiniCPM3Attention's
        Attention(num_heads, qk_head_dim, num_kv_heads=num_heads))."""
        if self.mla is not None and vllm and self.mla_per_head:
            mla = self.mla_of(kind)
            return 2 * self.heads_of(kind) * (mla.qk_nope_head_dim + mla.qk_rope_head_dim)
        if self.mla is not None:
            return self.mla_of(kind).latent_width
        if self.compressed is not None:  # DeepSeek-V4: one head, its keys are its values, cached once
            return self.head_dim
        return self.kv_heads_of(kind) * (self.head_dim_of(kind) + self.v_dim_of(kind))

    def v_dim_of(self, kind: AttentionKind) -> int:
        """A value head's size in a layer of `kind`: v_head_dim where the model has its own, else the head size."""
        return self.v_head_dim or self.head_dim_of(kind)

    def k_width(self, kind: AttentionKind) -> int:
        """The keys' share of kv_width (llama.cpp sizes K and V apart, each in its own cache type)."""
        return self.kv_heads_of(kind) * self.head_dim_of(kind)


    def indexer_bytes(self, tokens: int, e: int, *, fp8_packed: bool) -> int:
        """Bytes the lightning indexer's key cache holds for one sequence of `tokens` tokens (every
        attention layer keeps one key per token: DSA does not cap the cache, it caps what is read)."""
        if self.indexer is None:
            return 0
        layers = sum(kind.caches_tokens and i not in self.indexer.shared for i, kind in enumerate(self.kinds))
        return tokens * (layers * self.indexer.key_bytes_per_token(e, fp8_packed=fp8_packed)
                         + 8 * self.indexer.positions * (not fp8_packed))

    def recurrent_counts(self) -> tuple[tuple[AttentionKind, int], ...]:
        """The recurrent mixers by kind, with how many layers have one: the recurrent layers, and Falcon-H1's
        Mamba mixer beside the attention of every layer."""
        counts = {kind: n for kind, n in self.kind_counts() if kind.recurrent}
        if self.parallel_mamba:
            counts[AttentionKind.MAMBA] = counts.get(AttentionKind.MAMBA, 0) + self.layers
        return tuple(counts.items())

    def recurrent_state_bytes(self, e: int, *, trim: int = 0, state_e: int = 4) -> int:
        """Bytes the recurrent mixers (linear attention, Mamba, convolutions) keep for one sequence, whatever its
        length (transformers' layout unless told: `state_bytes_of`), and ZAYA's convolution windows and delayed values
        beside every attention layer's K/V (in e bytes: ZayaCCAProjection's conv_states and recurrent_states), and
        Inkling's four convolution windows per layer (in state_e bytes)."""
        cca = self.layers * self.cca.state_values(self.q_dim, self.kv_dim) * e if self.cca else 0
        if self.inkling is not None:  # InklingShortConvolution's conv_states, fp32 (measured)
            cca += sum(n * self.inkling.state_values(self.kv_heads_of(kind) * self.head_dim_of(kind), self.hidden)
                       for kind, n in self.kind_counts()) * state_e
        if (ple := self.ple) is not None:  # Qwen4ExpTextPLELayer's conv_states 1 and 2 (measured)
            n = self.gated_residual[0] * self.hidden
            cca += len(ple.layers) * (n * (ple.kernel - 1) * ple.ngram * e + (ple.ngram - 1) * 8)
        return cca + sum(n * self.state_bytes_of(kind, e, trim=trim, state_e=state_e)
                         for kind, n in self.recurrent_counts())

    def state_bytes_of(self, kind: AttentionKind, e: int, *, trim: int = 0, state_e: int = 4) -> int:
        """One recurrent layer's fixed state for one sequence (0 for other kinds): a convolution window of
        conv_kernel - trim tokens in e bytes and a recurrent state in state_e bytes."""
        if kind is AttentionKind.LINEAR and self.linear is not None:
            return self.linear.state_bytes(e, trim=trim, state_e=state_e)
        if kind is AttentionKind.MAMBA and self.mamba is not None:
            return self.mamba.state_bytes(e, trim=trim, state_e=state_e)
        if kind is AttentionKind.CONV and self.short_conv is not None:
            return self.short_conv.state_bytes(e, trim=trim)
        return 0

    def tokens_kept(self, kind: AttentionKind, tokens: int) -> int:
        if kind is AttentionKind.SLIDING and self.sliding_window:
            return min(tokens, self.sliding_window)
        if kind is AttentionKind.CHUNKED and self.attention_chunk:
            return min(tokens, self.attention_chunk)
        return tokens

    def kind_counts(self) -> tuple[tuple[AttentionKind, int], ...]:
        return self._kind_counts

    @functools.cached_property
    def _kind_counts(self) -> tuple[tuple[AttentionKind, int], ...]:
        return tuple((kind, n) for kind in AttentionKind if (n := self.count_kind(kind)))


def _resize(pattern: tuple[_T, ...], length: int) -> tuple[_T, ...]:
    """`pattern` cut to `length`, or continued with the period of its second half."""
    if length <= len(pattern):
        return pattern[:length]
    half = len(pattern) // 2
    period = next(p for p in range(1, len(pattern) + 1)
                  if all(pattern[i] == pattern[i - p] for i in range(max(p, half), len(pattern))))
    tail = pattern[len(pattern) - period:]  # continued with the last period, over and over
    return pattern + (tail * (-(-(length - len(pattern)) // period)))[:length - len(pattern)]
