"""How each Hugging Face `model_type` maps onto a `ModelSpec`, as data: one `Reader` per type (which
keys say which layers slide, where the experts are, which norms and biases the type has), and the
multimodal wrappers whose language model sits in `text_config`. sources/hf_config.py reads a config
with its type's Reader; model/families/decoder/traits.py holds one record per type beside it."""

from __future__ import annotations

import dataclasses
import enum

from ..model.families.decoder.spec import Block, Norm, NormCompute, QkNorm


class Sliding(enum.Enum):
    """Which config keys say which layers attend to a sliding window (`_read_layers`)."""

    ALL = "all"
    """Every layer slides when `sliding_window` is set (Mistral, Mixtral, Phi-3)."""
    QWEN = "qwen"
    """Only when `use_sliding_window` is true, the layers from `max_window_layers` on (Qwen2/3, SmolLM3);
    `layer_types` when given."""
    WINDOW_LAYERS = "window_layers"
    """The layers from `max_window_layers` on whenever `sliding_window` is set, whatever `use_sliding_window` says
    (Dots1Config); `layer_types` when given."""
    MIMO = "mimo"
    """`layer_types`, else `hybrid_layer_pattern` (1: sliding), else layer 0 and every 6th full
    (MiMoV2FlashConfig); the window `sliding_window_size` + 1, as transformers reads it."""
    TYPES = "types"
    """`layer_types` when given, else every layer but each `sliding_window_pattern`-th (default
    `Reader.pattern`): Gemma 2/3, Cohere 2, gpt-oss, Ministral."""
    FIRST = "first"
    """`layer_types` when given, else layer 0 and every `Reader.pattern`-th after it full, the others sliding
    (GraniteSWAConfig: i % 4 == 0)."""


class MoeKeys(enum.Enum):
    """Which config keys describe the experts, and which layers have them (`_read_moe`)."""

    MIXTRAL = "mixtral"
    """`num_local_experts` experts of `intermediate_size` in every layer, no shared expert (Mixtral, PhiMoE)."""
    QWEN = "qwen"
    """`num_experts` of `moe_intermediate_size`, an optional gated shared expert of
    `shared_expert_intermediate_size`, MoE every `decoder_sparse_step` layers but `mlp_only_layers`."""
    DEEPSEEK = "deepseek"
    """`n_routed_experts` of `moe_intermediate_size` plus `n_shared_experts` of that width, dense for the
    first `first_k_dense_replace` layers then every `moe_layer_freq`-th (DeepSeek-V2/V3, Kimi K2, GLM-4-MoE)."""
    GPT_OSS = "gpt_oss"
    """`num_local_experts` (`experts_per_token` per token) in every layer, with router and expert biases."""
    LLAMA4 = "llama4"
    """`num_local_experts` of `intermediate_size` plus a shared expert of that width, in every
    `interleave_moe_layer_step`-th layer (or `moe_layers`); dense layers are `intermediate_size_mlp` wide."""
    OLMOE = "olmoe"
    """`num_experts` of `intermediate_size` in every layer, no shared expert (OLMoE)."""
    NEMOTRON = "nemotron"
    """`n_routed_experts` (up and down only) of `moe_intermediate_size` and a shared expert of
    `moe_shared_expert_intermediate_size`, in the layers `layer_types` calls `moe`; with `moe_latent_size`, the
    experts read and write a latent of that width (Nemotron-H, Nemotron 3)."""
    LFM2 = "lfm2"
    """`num_experts` of `moe_intermediate_size` in every layer but the first `num_dense_layers`, no shared
    expert (LFM2-MoE)."""
    JAMBA = "jamba"
    """`num_experts` of `intermediate_size` in every `expert_layer_period`-th layer from `expert_layer_offset`,
    no shared expert (Jamba)."""
    GRANITE = "granite"
    """`num_local_experts` of `intermediate_size` in every layer, beside a gated shared MLP of
    `shared_intermediate_size` (none when 0), which is the whole MLP when there are no experts (Granite 4
    hybrid, GraniteMoeShared, GraniteMoeSWA)."""
    HUNYUAN = "hunyuan"
    """`num_experts` (`moe_topk` per token, one number or one per layer) of `intermediate_size` in every layer,
    beside a shared MLP of that width (HunYuanMoEV1Moe)."""
    GEMMA4 = "gemma4"
    """With `enable_moe_block`, `num_experts` (`top_k_experts` per token) of `moe_intermediate_size` in every
    layer, beside the layer's dense MLP of `intermediate_size`."""
    ERNIE = "ernie"
    """`moe_num_experts` (`moe_k` per token) of `moe_intermediate_size` plus `moe_num_shared_experts` of that
    width, in every `moe_layer_interval`-th layer from `moe_layer_start_index` to `moe_layer_end_index`, with a
    learned score-correction bias per expert (ERNIE 4.5's `moe_statics`)."""


class MambaKeys(enum.Enum):
    """Which config keys describe a Mamba-2 mixer (`MAMBA_KEYS`), and which layers are Mamba (`_read_layers`)."""

    NEMOTRON_H = "nemotron_h"
    """Nemotron-H: `layers_block_type` (or `layer_types`, or the `hybrid_override_pattern` of M, *, - and E) gives
    every layer's one mixer: Mamba, attention, an MLP or experts; `num_hidden_layers` is its length."""
    BAMBA = "bamba"
    """Bamba: Mamba layers but the `attn_layer_indices`, each with a gated MLP after it."""
    GRANITE = "granite"
    """Granite 4 hybrid: `layer_types` of `mamba` and `attention` (all Mamba when not given), each with a shared MLP
    and, with `num_local_experts`, experts."""
    FALCON_H1 = "falcon_h1"
    """Falcon-H1: every layer runs attention and a Mamba-2 mixer side by side, then a gated MLP; the mixer is
    `mamba_d_ssm` wide (else `mamba_expand` × hidden), its gated norm only with `mamba_rms_norm`, its out_proj
    biased by `projectors_bias`."""
    MAMBA2 = "mamba2"
    """Mamba-2 alone (Codestral Mamba): every layer one Mamba mixer, no attention, no MLP."""
    ZAMBA = "zamba"
    """Zamba: Zamba2's layout with Mamba-1 mixers (n_mamba_heads of them side by side, the same shapes in all) and
    one shared block without adapters; "hybrid" layers every attn_layer_period-th from attn_layer_offset."""
    ZAMBA2 = "zamba2"
    """Zamba2: a Mamba-2 mixer in every layer (`layers_block_type`, its length the depth); the "hybrid" layers run a
    shared transformer block first (Reader.shared_block)."""
    MAMBA1 = "mamba"
    """Mamba-1 alone (state-spaces/mamba): every layer one Mamba-1 mixer of `intermediate_size`, no MLP."""
    JAMBA = "jamba"
    """Jamba: Mamba-1 mixers (mamba_expand × hidden wide, RMSNorms over dt, B and C) but every
    `attn_layer_period`-th layer from `attn_layer_offset`, which attends; an MLP or experts after each."""


@dataclasses.dataclass(frozen=True)
class MambaKeyNames:
    heads: str
    head_dim: str  # "auto" or absent: expand × hidden ÷ heads
    groups: str
    state: str
    conv: str
    conv_bias: str
    proj_bias: str
    expand: str = ""
    dt_rank: str = ""  # Mamba-1: the time step's rank ("auto": ceil(hidden / 16))


_BAMBA_NAMES = MambaKeyNames(heads="mamba_n_heads", head_dim="mamba_d_head", groups="mamba_n_groups",
                             state="mamba_d_state", conv="mamba_d_conv", conv_bias="mamba_conv_bias",
                             proj_bias="mamba_proj_bias", expand="mamba_expand")
# Jamba's and Zamba's Mamba-1 mixers (JambaConfig, ZambaConfig): the same mamba_* names
_JAMBA_NAMES = MambaKeyNames(heads="", head_dim="", groups="", state="mamba_d_state", conv="mamba_d_conv",
                             conv_bias="mamba_conv_bias", proj_bias="mamba_proj_bias", expand="mamba_expand",
                             dt_rank="mamba_dt_rank")
MAMBA_KEYS = {
    MambaKeys.NEMOTRON_H: MambaKeyNames(heads="mamba_num_heads", head_dim="mamba_head_dim", groups="n_groups",
                                        state="ssm_state_size", conv="conv_kernel", conv_bias="use_conv_bias",
                                        proj_bias="use_bias"),
    MambaKeys.BAMBA: _BAMBA_NAMES,
    MambaKeys.FALCON_H1: _BAMBA_NAMES,
    MambaKeys.GRANITE: _BAMBA_NAMES,
    MambaKeys.MAMBA2: MambaKeyNames(heads="num_heads", head_dim="head_dim", groups="n_groups", state="state_size",
                                    conv="conv_kernel", conv_bias="use_conv_bias", proj_bias="use_bias",
                                    expand="expand"),
    # Mamba-1 has no heads and no groups: its width is expand × hidden, its time step of a rank of its own
    MambaKeys.MAMBA1: MambaKeyNames(heads="", head_dim="", groups="", state="state_size", conv="conv_kernel",
                                    conv_bias="use_conv_bias", proj_bias="use_bias", expand="expand",
                                    dt_rank="time_step_rank"),
    # Zamba2MambaMixer: expand × hidden ÷ n_mamba_heads per head, a biased conv1d whatever use_conv_bias says
    MambaKeys.ZAMBA2: MambaKeyNames(heads="n_mamba_heads", head_dim="", groups="mamba_ngroups", state="mamba_d_state",
                                    conv="mamba_d_conv", conv_bias="", proj_bias="add_bias_linear",
                                    expand="mamba_expand"),
    MambaKeys.ZAMBA: _JAMBA_NAMES,
    MambaKeys.JAMBA: _JAMBA_NAMES,
}
# Older Nemotron-H configs' names, which NemotronHConfig.__post_init__ renames.
NEMOTRON_H_ALIASES = {"mamba_n_groups": "n_groups", "mamba_d_conv": "conv_kernel", "mamba_conv_bias": "use_conv_bias",
                      "mamba_expand": "expand", "mamba_chunk_size": "chunk_size", "layers_block_type": "layer_types"}


@dataclasses.dataclass(frozen=True)
class Legacy:
    """What a decoder of 2019-23 says in its own way (hf_config._legacy): sub-objects read as top-level keys, the
    MLP `ffn[1]` × hidden wide when intermediate_size is not given (times `ffn[0]`'s value when given, rounded up
    to a multiple of `ffn[2]`'s), learned positions (max_position_embeddings + `positions` rows; -1: none, as
    rotary or ALiBi), values its class fixes, and, for a layer kind the engine does not model, what is assumed."""

    nested: tuple[str, ...] = ()
    ffn: tuple[str, float, str] = ("", 4, "")
    positions: int = -1
    embed_norm: bool = False
    fixed: tuple[tuple[str, object], ...] = ()
    approx: str = ""  # the assumption's phrase: assumption.legacy.<approx>


@dataclasses.dataclass(frozen=True)
class Reader:
    """How one model_type maps onto the ModelSpec: data, read by `_read_decoder`."""

    block: Block = Block.LLAMA
    norm: Norm = Norm.RMS
    norms_per_layer: int = 2
    compute: NormCompute = NormCompute.RMS
    post_norms: bool = False
    qkv_bias: bool | None = None  # None: from `attention_bias`
    o_bias: bool | None = None  # a bias on the attention output projection; None: from `attention_bias`
    mlp_bias: bool = False
    reads_mlp_bias: bool = False  # `mlp_bias` adds biases to the dense and shared-expert MLPs
    head_bias: bool = False
    gated_mlp: bool = True
    fused_qkv: bool = False
    qk_norm: QkNorm | None = None  # the q/k norm the model type has
    qk_norm_switched: bool = False  # the q/k norm is there only when the config's `use_qk_norm` is true
    attention_gate: bool = False
    sinks: bool = False
    softcap: bool = False
    tie_default: bool = False
    sliding: Sliding | None = None  # how sliding layers are chosen; None: no sliding layers
    pattern: int = 0  # sliding layers: every layer except each pattern-th (Gemma 3: 6, Cohere 2: 4, Gemma 2: 2)
    moe: MoeKeys | None = None  # how the experts are read; None: a dense model
    mla: bool = False
    linear: bool = False
    chunked: bool = False
    indexer: bool = False  # DeepSeek Sparse Attention's lightning indexer beside MLA (DeepSeek-V3.2, GLM-5)
    bias_key: str = ""  # one key that puts a bias on every projection (ERNIE 4.5's `use_bias`)
    bias_key_on_head: bool = False  # ... and on the LM head (Ernie4_5_MoeForCausalLM; not the dense model)
    o_bias_key: str = ""  # the key of the output projection's bias, apart from `attention_bias` (Seed-OSS)
    first_dense: int | None = None  # dense layers first when `mlp_layer_types` is not given and the type
    # reads no `first_k_dense_replace` (GLM-4.7-Flash's class: ["dense"] + ["sparse"] * (layers - 1))
    activation_params: int = 0  # learned scalars of the MLP's activation per layer (Apertus' xIELU: 2)
    global_attention: bool = False  # Gemma 4: full layers of their own head size and KV heads (K = V), layers
    # reusing earlier K/V, per-layer embeddings (`_read_gemma4`)
    mamba: MambaKeys | None = None  # Mamba-2 layers, read with these keys
    mlp_apart: bool = False  # a layer is one mixer or one MLP (Nemotron-H, Mamba-2)
    parallel_mamba: bool = False  # every layer has attention and a Mamba mixer side by side (Falcon-H1)
    short_conv: bool = False  # LFM2: "conv" layers (a gated short convolution) among attention ones
    kda: str = ""  # Kimi Delta Attention layers among MLA ones, their keys read as "kimi" (Kimi Linear) or
    # "bailing" (Ling's hybrid: full-rank gates, a gate per head on MLA) configs give them (hf_config._kda_config)
    falcon: bool = False  # FalconConfig's switches: multi-query, the new decoder architecture, parallel attention
    # and its one or two LayerNorms (hf_config._falcon)
    lfm3: bool = False  # LFM3: norms after the mixer and the MLP too (use_sandwich_norm) and a gate per attention
    # head (use_attention_gate), both on unless the config says otherwise
    lfm2_ffn: bool = False  # LFM2's MLP is 2/3 of intermediate_size, times block_ffn_dim_multiplier, rounded up to
    # block_multiple_of (LFM2-MoE's dense layers take intermediate_size as it is)
    aliases: tuple[tuple[str, str], ...] = ()  # (its class's key, the key the readers know), as the class's
    # attribute_map or modelling code reads them: EXAONE MoE's num_experts is DeepSeek's n_routed_experts
    longcat: bool = False  # LongCat-Flash: two sublayers per layer, zero experts (hf_config._longcat_config)
    compressed: bool = False  # DeepSeek-V4: compressed attention and hyper-connections (hf_config._dsv4_config)
    step: bool = False  # Step 3.5/3.7: sliding layers of their own head count, a shared expert of share_expert_dim,
    # the legacy keys and MTP-padded lists of the hub's files (hf_config._step3p5_config)
    gemma3n: bool = False  # Gemma 3n: AltUp and Laurel in every layer, per-layer embeddings, layers reusing K/V
    mimo: bool = False  # MiMo-V2: sliding layers with twice the KV heads and sinks, a value head of v_head_dim
    minimax3: bool = False  # MiniMax-M3: a lightning indexer on the minimax_m3_sparse layers, a shared expert of
    # shared_intermediate_size, dense layers of dense_intermediate_size (hf_config._minimax3_config)
    cohere_moe: bool = False  # Command A Plus: experts of intermediate_size, a dense prefix of its own width and
    # window pattern (hf_config._cohere2_moe_config)
    gate_apart: bool = False  # the attention_gate is its own unbiased projection (AFMoE's gate_proj)
    gate_bias: bool = False  # Beam: a learned bias per head on the gate_apart gate (BeamAttention.gate_bias)
    last_full: bool = False  # without layer_types the last layer attends in full too (BeamConfig)
    shared_key: str = ""  # DeepSeek's keys, but one ungated shared expert of this key's width (Kolibri's)
    score_bias: bool = False  # a learned bias per expert added to the scores that choose them (AFMoE's expert_bias)
    large4: bool = False  # Mistral Large 4: MLA's queries and the indexer's from the layer's input, learned softmax
    # scales, layers without RoPE (no_rope_layers), layers reusing an earlier layer's latent (kv_source_layers)
    hyper: bool = False  # Hy4: hc_mult residual streams (HYV4HyperConnection), an indexer of its own every 4th layer
    moe_post_norm: bool = False  # A.X-K1: a norm over the MoE block's output (AXK1MoE.post_mlp_layernorm)
    gated_norm: bool = False  # A.X-K2: gated_norm_rank gates on its norms (AXK2GatedRMSNorm)
    inkling: int = 0  # Inkling (1), Inkling 2 (2): sliding layers of their own heads and sizes (swa_*), relative
    # logits, four short convolutions per layer, the router scoring the shared experts (hf_config._read_inkling)
    glm5: bool = False  # GLM-5.3: KDA layers, MLA without RoPE, mHC streams, a pooled indexer (_glm5_config)
    dots3: bool = False  # Dots3: sliding layers of their own MLA sizes, the indexer on indexed layers only
    cca: bool = False  # ZAYA: CCA attention on "hybrid" and "hybrid_sliding" layers, residual scalings, an MLP router
    post_norm_key: str = ""  # a key, true by default, that adds norms after attention and the MLP (HyperCLOVA X)
    diff: bool = False  # DiffLlama: four lambda vectors of head_dim per layer, an even number of KV heads
    sub_norms: bool = False  # BitNet: attn_sub_norm before o_proj, ffn_sub_norm before down_proj
    minicpm3: bool = False  # MiniCPM3: v_head_dim hidden / heads when not given (hf_config._minicpm3_config)
    stablelm: bool = False  # StableLM: use_qkv_bias, use_parallel_residual, head_dim hidden / heads (_stablelm)
    laguna: bool = False  # Laguna: query heads per layer, a gate per head or per channel (hf_config._read_laguna)
    moa: bool = False  # JetMoE: attention experts (JetMoeMoA), num_key_value_heads × num_experts_per_tok heads
    griffin: bool = False  # RecurrentGemma: RG-LRU blocks among local-attention ones (hf_config._griffin_config)
    shared_block: bool = False  # Zamba2: transformer blocks shared by the hybrid layers (hf_config._zamba2_config)
    lightning: bool = False  # MiniMax-01: its linear layers lightning attention of the attention heads and head_dim
    # (LinearAttention.lightning), layer_types as MiniMaxConfig makes them or from attn_type_list (_minimax_config)
    qwen4: bool = False  # Qwen4-Exp: gated residual streams, the QSA indexer on indexed layers (_read_qwen4)
    hrm: bool = False  # HRM-Text: two stacks run in cycles, each invocation a layer of its own cache (_hrm_config)
    rwkv: bool = False  # RWKV-4: every layer time mixing and channel mixing (LinearAttention.rwkv)
    cross: bool = False  # Llama 3.2 Vision: cross_attention_layers attend to the image (AttentionKind.CROSS)
    never_tied: bool = False  # the classes tie no head, whatever tie_word_embeddings says (Mllama's)
    doge: bool = False  # Doge: the dynamic mask's A and dt_proj, residual scales, is_moe's CDMoE (hf_config._read_doge)
    legacy: Legacy | None = None  # a decoder of 2019-23 (hf_config._legacy)
    needs: tuple[str, ...] = ()  # keys its class cannot build without: absent or null, the config is refused
    extra: frozenset[str] = frozenset()  # other keys this reader understands


_GEMMA4 = Reader(block=Block.GEMMA2, norms_per_layer=4, compute=NormCompute.RMS_FP32, qk_norm=QkNorm.HEAD, softcap=True,
                 tie_default=True, sliding=Sliding.TYPES, pattern=6, moe=MoeKeys.GEMMA4, global_attention=True)
_MINIMAX = Reader(qkv_bias=False, o_bias=False, moe=MoeKeys.MIXTRAL, linear=True, lightning=True,
                  aliases=(("num_experts", "num_local_experts"),), extra=frozenset({
                      "attn_type_list", "block_size", "postnorm", "rotary_dim"}))
COMMON_KEYS = frozenset({
    "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size",
    "vocab_size", "tie_word_embeddings", "max_position_embeddings", "attention_bias", "partial_rotary_factor",
})
MOE_KEYS = {
    MoeKeys.MIXTRAL: {"num_local_experts", "num_experts_per_tok"},
    MoeKeys.QWEN: {"num_experts", "num_experts_per_tok", "moe_intermediate_size", "shared_expert_intermediate_size",
             "decoder_sparse_step", "mlp_only_layers"},
    MoeKeys.DEEPSEEK: {"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
                 "first_k_dense_replace", "moe_layer_freq", "mlp_layer_types"},
    MoeKeys.GPT_OSS: {"num_local_experts", "num_experts_per_tok", "experts_per_token"},
    MoeKeys.LLAMA4: {"num_local_experts", "num_experts_per_tok", "interleave_moe_layer_step", "intermediate_size_mlp",
               "moe_layers"},
    MoeKeys.OLMOE: {"num_experts", "num_experts_per_tok"},
    MoeKeys.GEMMA4: {"enable_moe_block", "num_experts", "top_k_experts", "moe_intermediate_size"},
    MoeKeys.NEMOTRON: {"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size",
                        "moe_shared_expert_intermediate_size", "moe_latent_size", "n_shared_experts"},
    MoeKeys.GRANITE: {"num_local_experts", "num_experts_per_tok", "shared_intermediate_size"},
    MoeKeys.LFM2: {"num_experts", "num_experts_per_tok", "moe_intermediate_size", "num_dense_layers"},
    MoeKeys.JAMBA: {"num_experts", "num_experts_per_tok", "expert_layer_period", "expert_layer_offset"},
    MoeKeys.HUNYUAN: {"num_experts", "moe_topk"},
    MoeKeys.ERNIE: {"moe_num_experts", "moe_k", "moe_intermediate_size", "moe_num_shared_experts",
                    "moe_layer_start_index", "moe_layer_end_index", "moe_layer_interval"},
}
EXPERTS_KEY = {MoeKeys.MIXTRAL: "num_local_experts", MoeKeys.QWEN: "num_experts", MoeKeys.DEEPSEEK: "n_routed_experts",
                MoeKeys.GPT_OSS: "num_local_experts", MoeKeys.LLAMA4: "num_local_experts", MoeKeys.OLMOE: "num_experts",
                MoeKeys.ERNIE: "moe_num_experts", MoeKeys.GEMMA4: "num_experts", MoeKeys.NEMOTRON: "n_routed_experts",
                MoeKeys.GRANITE: "num_local_experts", MoeKeys.JAMBA: "num_experts", MoeKeys.LFM2: "num_experts",
                MoeKeys.HUNYUAN: "num_experts"}
SLIDING_KEYS = {
    Sliding.ALL: {"sliding_window", "layer_types"},
    Sliding.QWEN: {"sliding_window", "use_sliding_window", "max_window_layers", "layer_types"},
    Sliding.WINDOW_LAYERS: {"sliding_window", "use_sliding_window", "max_window_layers", "layer_types"},
    Sliding.TYPES: {"sliding_window", "layer_types", "sliding_window_pattern"},
    Sliding.FIRST: {"sliding_window", "layer_types"},
    Sliding.MIMO: {"sliding_window", "layer_types", "sliding_window_size", "hybrid_layer_pattern"},
}

READERS: dict[str, Reader] = {
    "gpt2": Reader(block=Block.GPT2),  # read by _read_gpt2
    "llama": Reader(reads_mlp_bias=True),
    "granite": Reader(reads_mlp_bias=True),
    "smollm3": Reader(sliding=Sliding.QWEN, reads_mlp_bias=True),
    "mistral": Reader(sliding=Sliding.ALL, qkv_bias=False, o_bias=False),  # attention_bias is ignored
    "ministral": Reader(sliding=Sliding.TYPES, qkv_bias=False, o_bias=False),
    "ministral3": Reader(sliding=Sliding.TYPES, qkv_bias=False, o_bias=False),
    "mixtral": Reader(sliding=Sliding.ALL, moe=MoeKeys.MIXTRAL, qkv_bias=False, o_bias=False),
    "qwen2": Reader(qkv_bias=True, o_bias=False, sliding=Sliding.QWEN),
    "qwen2_moe": Reader(qkv_bias=True, o_bias=False, sliding=Sliding.QWEN, moe=MoeKeys.QWEN),
    "qwen3": Reader(qk_norm=QkNorm.HEAD, sliding=Sliding.QWEN),
    "mimo_v2_flash": Reader(sliding=Sliding.MIMO, moe=MoeKeys.DEEPSEEK, first_dense=1, mimo=True, extra=frozenset({
        "v_head_dim", "swa_num_attention_heads",
        "swa_num_key_value_heads", "swa_head_dim", "swa_v_head_dim", "add_swa_attention_sink_bias",
        "add_full_attention_sink_bias", "attention_chunk_size"})),
    "qwen3_moe": Reader(qk_norm=QkNorm.HEAD, sliding=Sliding.QWEN, moe=MoeKeys.QWEN,
                        aliases=(("num_local_experts", "num_experts"),),  # Qwen3MoeConfig's attribute_map
                        extra=frozenset({"use_qk_norm"})),  # Qwen3-Coder's files say it; Qwen3MoeAttention always norms
    "qwen3_next": Reader(qk_norm=QkNorm.HEAD, attention_gate=True, moe=MoeKeys.QWEN, linear=True,
                         compute=NormCompute.RMS_FP32),
    "deepseek_v2": Reader(mla=True, moe=MoeKeys.DEEPSEEK, reads_mlp_bias=True),
    "deepseek_v3": Reader(mla=True, moe=MoeKeys.DEEPSEEK),
    "kimi_k2": Reader(mla=True, moe=MoeKeys.DEEPSEEK),  # DeepSeek-V3's architecture under its own name
    "glm4_moe": Reader(qk_norm=QkNorm.HEAD, qk_norm_switched=True, moe=MoeKeys.DEEPSEEK, o_bias=False),
    # GLM-4.1V/4.6V's language model (Glm4vTextModel): biased q/k/v whatever attention_bias says, an unbiased
    # output, a fused gate_up MLP, norms after attention and the MLP too; head_dim is hidden / heads
    "glm4v_text": Reader(qkv_bias=True, o_bias=False, norms_per_layer=4),
    # GLM-4-0414 (Glm4ForCausalLM: GLM-4-9B/32B-0414, GLM-Z1): q/k/v biased by attention_bias (True by default), an
    # unbiased output, a fused gate_up MLP, RMSNorms before and after attention and the MLP (post_self_attn_layernorm,
    # post_mlp_layernorm); head_dim 128 by default, whatever hidden / heads is
    "glm4": Reader(o_bias=False, norms_per_layer=4, extra=frozenset({"rms_norm_eps"})),
    # GLM-4-9B-chat (GlmForCausalLM): GLM-4-0414's layers with two norms each, as Llama's
    "glm": Reader(o_bias=False, extra=frozenset({"rms_norm_eps"})),
    # GLM-4.5V's (Glm4vMoeTextModel): GLM-4.5-Air's layers without the q/k norm, whatever use_qk_norm says
    "glm4v_moe_text": Reader(moe=MoeKeys.DEEPSEEK, o_bias=False, aliases=(("num_local_experts", "n_routed_experts"),),
                             extra=frozenset({"use_qk_norm"})),
    "gemma": Reader(tie_default=True, compute=NormCompute.RMS_FP32),
    "gemma2": Reader(block=Block.GEMMA2, norms_per_layer=4, compute=NormCompute.RMS_FP32, softcap=True,
                     tie_default=True, sliding=Sliding.TYPES, pattern=2),
    "gemma3_text": Reader(block=Block.GEMMA2, norms_per_layer=4, compute=NormCompute.RMS_FP32, qk_norm=QkNorm.HEAD,
                          softcap=True, tie_default=True, sliding=Sliding.TYPES, pattern=6),
    "gpt_oss": Reader(compute=NormCompute.RMS_FP32, qkv_bias=True, o_bias=True, sinks=True, sliding=Sliding.TYPES,
                      pattern=2, moe=MoeKeys.GPT_OSS),
    "llama4_text": Reader(moe=MoeKeys.LLAMA4, chunked=True, qk_norm=QkNorm.L2,
                          qk_norm_switched=True),  # an L2 q/k norm without weights, on RoPE layers
    "phi": Reader(block=Block.PHI, norm=Norm.LAYER, compute=NormCompute.LAYER, norms_per_layer=1, qkv_bias=True,
                  o_bias=True, mlp_bias=True, head_bias=True, gated_mlp=False, extra=frozenset({"qk_layernorm"})),
    "phi3": Reader(fused_qkv=True, sliding=Sliding.ALL, qkv_bias=False, o_bias=False),
    "phimoe": Reader(norm=Norm.LAYER, compute=NormCompute.LAYER, sliding=Sliding.ALL, moe=MoeKeys.MIXTRAL,
                     extra=frozenset({"lm_head_bias"})),
    # OLMo 1 (OlmoForCausalLM: OLMo-1B/7B-hf, OLMo-7B-0424/0724-hf): Llama's layers with OlmoLayerNorm, a LayerNorm
    # without weight or bias (F.layer_norm: no parameters), attention_bias on q/k/v/o, q/k/v clamped by clip_qkv
    "olmo": Reader(norm=Norm.NONE, compute=NormCompute.LAYER, extra=frozenset({"clip_qkv"})),
    "olmo2": Reader(qk_norm=QkNorm.FULL, compute=NormCompute.RMS_FP32, post_norms=True),
    "cohere": Reader(norm=Norm.LAYER_NO_BIAS, compute=NormCompute.LAYER_FP32, norms_per_layer=1, qk_norm=QkNorm.FULL,
                     qk_norm_switched=True, tie_default=True),
    "cohere2": Reader(norm=Norm.LAYER_NO_BIAS, compute=NormCompute.LAYER_FP32, norms_per_layer=1, tie_default=True,
                      sliding=Sliding.TYPES, pattern=4),
    # The types of 2025-26 (transformers 5.23), each checked on the meta device (tests/golden/types.json).
    "qwen3_5_text": Reader(qk_norm=QkNorm.HEAD, attention_gate=True, linear=True, compute=NormCompute.RMS_FP32),
    "qwen3_5_moe_text": Reader(qk_norm=QkNorm.HEAD, attention_gate=True, moe=MoeKeys.QWEN, linear=True,
                               compute=NormCompute.RMS_FP32),
    "olmo3": Reader(qk_norm=QkNorm.FULL, compute=NormCompute.RMS_FP32, post_norms=True, sliding=Sliding.TYPES,
                    pattern=4),
    "olmoe": Reader(qk_norm=QkNorm.FULL, moe=MoeKeys.OLMOE),
    "seed_oss": Reader(o_bias=False, o_bias_key="attention_out_bias", reads_mlp_bias=True),
    "exaone4": Reader(qk_norm=QkNorm.HEAD, post_norms=True, sliding=Sliding.TYPES, pattern=4),
    "ernie4_5": Reader(bias_key="use_bias", tie_default=True),
    "ernie4_5_moe": Reader(bias_key="use_bias", bias_key_on_head=True, tie_default=True, moe=MoeKeys.ERNIE),
    "minimax_m2": Reader(qk_norm=QkNorm.FULL, moe=MoeKeys.MIXTRAL,
                         extra=frozenset({"use_qk_norm"})),  # MiniMaxM2Attention has q/k norms whatever it says
    "apertus": Reader(qk_norm=QkNorm.HEAD, gated_mlp=False, activation_params=2),
    "glm4_moe_lite": Reader(mla=True, moe=MoeKeys.DEEPSEEK, first_dense=1),
    "mistral4": Reader(mla=True, moe=MoeKeys.DEEPSEEK),
    "deepseek_v32": Reader(mla=True, moe=MoeKeys.DEEPSEEK, indexer=True),
    "glm_moe_dsa": Reader(mla=True, moe=MoeKeys.DEEPSEEK, indexer=True),
    # LongCat-Flash: MLA sublayers, each with a dense MLP; a shortcut MoE with zero experts every second one
    "longcat_flash": Reader(mla=True, moe=MoeKeys.DEEPSEEK, longcat=True, extra=frozenset({
        "num_layers", "ffn_hidden_size", "expert_ffn_hidden_size", "moe_topk", "zero_expert_num", "router_bias",
        "qk_head_dim"})),
    # DeepSeek-V4: every layer a sliding window of one KV head, some with a compressor; experts in every layer
    "deepseek_v4": Reader(moe=MoeKeys.DEEPSEEK, sliding=Sliding.ALL, qkv_bias=False, o_bias=False, reads_mlp_bias=True,
                          compressed=True, extra=frozenset({
                              "compress_ratios", "compress_rates", "compress_rate_csa", "compress_rate_hca", "hc_mult",
                              "o_groups", "o_lora_rank", "q_lora_rank", "index_n_heads", "index_head_dim",
                              "index_topk", "num_hash_layers", "qk_rope_head_dim"})),
    "gemma4_text": _GEMMA4,
    "gemma4_unified_text": dataclasses.replace(_GEMMA4, moe=None),  # Gemma4UnifiedTextModel: no experts, no per-layer
    # inputs (hf_config._read_gemma4), otherwise Gemma 4's layers
    # Gemma 3n (Gemma3nTextModel): Gemma 3's layers (four norms, q/k norms per head) with AltUp's streams, a Laurel
    # block, per-layer embeddings, and the last num_kv_shared_layers layers reusing an earlier layer's K/V
    "gemma3n_text": Reader(block=Block.GEMMA2, norms_per_layer=4, compute=NormCompute.RMS_FP32, qk_norm=QkNorm.HEAD,
                           softcap=True, tie_default=True, sliding=Sliding.TYPES, pattern=5, gemma3n=True,
                           extra=frozenset({"num_kv_shared_layers", "hidden_size_per_layer_input",
                                            "vocab_size_per_layer_input", "altup_num_inputs", "laurel_rank",
                                            "activation_sparsity_pattern"})),
    # GPT-NeoX (Pythia, GPT-NeoX-20B): two LayerNorms feeding attention and the MLP in parallel, a fused
    # query_key_value, biases on every projection, a GELU MLP, an untied embed_out
    "gpt_neox": Reader(block=Block.PHI, norm=Norm.LAYER, compute=NormCompute.LAYER, norms_per_layer=2,
                       fused_qkv=True, mlp_bias=True, gated_mlp=False),
    # Falcon (7B, 40B, 180B): a fused query_key_value, parallel attention and GELU MLP after one or two
    # LayerNorms, `bias` on every projection or none, a tied head
    "falcon": Reader(block=Block.PHI, norm=Norm.LAYER, compute=NormCompute.LAYER, fused_qkv=True, gated_mlp=False,
                     tie_default=True, bias_key="bias", falcon=True,
                     extra=frozenset({"multi_query", "new_decoder_architecture", "num_kv_heads", "parallel_attn",
                                      "num_ln_in_parallel_attn", "ffn_hidden_size", "alibi"})),
    # MiniMax-Text-01 and MiniMax-M1 (MiniMaxForCausalLM): lightning-attention layers (no convolution, a state of
    # head_dim² per head) among Llama-style attention layers without biases (every 8th in the releases), Mixtral's
    # experts in every layer. The hub's remote-code files (minimax_text_01, minimax_m1) give attn_type_list and
    # layernorm_* factors instead; their shared_intermediate_size (0 in every release) is not read
    # RecurrentGemma (Griffin): RG-LRU recurrent blocks and local attention by block_types, o_proj and MLPs biased
    "recurrent_gemma": Reader(compute=NormCompute.RMS_FP32, o_bias=True, mlp_bias=True, tie_default=True, linear=True,
                              sliding=Sliding.ALL, griffin=True, extra=frozenset({"block_types", "lru_width",
                              "conv1d_width", "logits_soft_cap", "attention_window_size"})),
    # JetMoE: q and o projections per expert (a mixture of attention heads) beside the MLP experts, each with a bias
    "jetmoe": Reader(qkv_bias=False, o_bias=False, tie_default=True, moe=MoeKeys.MIXTRAL, moa=True,
                     aliases=(("kv_channels", "head_dim"),)),
    # Aria's MoE text model: experts of intermediate_size in every layer beside moe_num_shared_experts of that width
    "aria_text": Reader(moe=MoeKeys.DEEPSEEK, reads_mlp_bias=True, aliases=(
        ("moe_num_experts", "n_routed_experts"), ("moe_topk", "num_experts_per_tok"),
        ("moe_num_shared_experts", "n_shared_experts"), ("intermediate_size", "moe_intermediate_size"))),
    "minimax": _MINIMAX,
    "minimax_text_01": _MINIMAX,
    "minimax_m1": _MINIMAX,
    # Mamba-2 hybrids. Nemotron-H: one RMSNorm and one mixer per layer, relu² MLPs and experts (up, down).
    "nemotron_h": Reader(norms_per_layer=1, qkv_bias=False, o_bias=False, reads_mlp_bias=True, gated_mlp=False,
                         mamba=MambaKeys.NEMOTRON_H, mlp_apart=True, moe=MoeKeys.NEMOTRON,
                         extra=frozenset({"expand"})),  # NemotronHMamba2Mixer: inner = heads × head_dim
    "bamba": Reader(reads_mlp_bias=True, mamba=MambaKeys.BAMBA),
    "granitemoehybrid": Reader(mamba=MambaKeys.GRANITE, moe=MoeKeys.GRANITE,
                               extra=frozenset({"position_embedding_type"})),
    "mamba2": Reader(norms_per_layer=1, mamba=MambaKeys.MAMBA2, mlp_apart=True),
    "falcon_h1": Reader(reads_mlp_bias=True, mamba=MambaKeys.FALCON_H1, parallel_mamba=True,
                        extra=frozenset({"mamba_d_ssm", "mamba_rms_norm", "projectors_bias", "mamba_norm_before_gate",
                                         "mamba_chunk_size"})),
    # Zamba2 (Zyphra): a Mamba-2 mixer (and its norm) in every layer; each "hybrid" layer first runs one of
    # num_mem_blocks shared transformer blocks (a norm over the input and the embeddings side by side, attention from
    # that 2 × hidden width with heads of 2 × hidden ÷ heads, a norm and a gated MLP of intermediate_size) with a LoRA
    # of adapter_rank per use on the MLP's gate_up (and on q, k, v with use_shared_attention_adapter), then a linear
    # hidden → hidden of its own; add_bias_linear biases the mixer's and the MLP's projections
    "zamba2": Reader(norms_per_layer=1, qkv_bias=False, o_bias=False, tie_default=True, bias_key="add_bias_linear",
                     mamba=MambaKeys.ZAMBA2, parallel_mamba=True, shared_block=True, extra=frozenset({
                         "num_mem_blocks", "adapter_rank", "use_shared_attention_adapter", "use_conv_bias",
                         "attention_hidden_size", "attention_head_dim", "mamba_headdim", "kv_channels",
                         "num_query_groups", "hybrid_layer_ids", "use_long_context", "use_mem_rope"})),
    # Zamba (Zamba-7B): Zamba2's layout with a Mamba-1 mixer (ZambaMambaMixer: n_mamba_heads heads side by side, the
    # shapes of one Mamba-1 mixer) and one shared block of attention_hidden_size input, no adapters
    "zamba": Reader(norms_per_layer=1, qkv_bias=False, o_bias=False, tie_default=True, mamba=MambaKeys.ZAMBA,
                    parallel_mamba=True, shared_block=True, extra=frozenset({
                        "attention_hidden_size", "attention_head_dim", "n_mamba_heads", "attn_layer_period",
                        "attn_layer_offset", "use_associative_scan"})),
    # Mamba-1: the original selective scan alone (Mamba), or with attention and experts (Jamba)
    "mamba": Reader(norms_per_layer=1, mamba=MambaKeys.MAMBA1, mlp_apart=True, tie_default=True,
                    extra=frozenset({"intermediate_size"})),  # MambaConfig: expand × hidden, whatever it says
    "jamba": Reader(mamba=MambaKeys.JAMBA, moe=MoeKeys.JAMBA, extra=frozenset({"attn_layer_period",
                                                                               "attn_layer_offset"})),
    # OLMo hybrid: OLMo 3's attention layers (norms after, q/k RMSNorm over all heads) among Gated DeltaNet
    # layers of separate q, k, v, a, b and gate projections, the same shapes as Qwen3-Next's fused ones
    "olmo_hybrid": Reader(qk_norm=QkNorm.FULL, compute=NormCompute.RMS_FP32, post_norms=True, linear=True),
    # Kimi Linear: Kimi Delta Attention among MLA layers, DeepSeek-style experts after the first dense layer
    "kimi_linear": Reader(mla=True, linear=True, kda="kimi", moe=MoeKeys.DEEPSEEK,
                          extra=frozenset({"linear_attn_config", "linear_num_heads", "linear_head_dim", "num_experts",
                                           "num_experts_per_token", "num_shared_experts", "mlp_layer_types"})),
    "bailing_hybrid": Reader(mla=True, linear=True, kda="bailing", moe=MoeKeys.DEEPSEEK,
                             extra=frozenset({"num_experts", "num_experts_per_token", "num_shared_experts",
                                              "mlp_layer_types", "layer_group_size", "short_conv_kernel_size",
                                              "linear_num_heads", "linear_head_dim", "head_dim"})),
    # LFM2: gated short convolutions and attention (q/k RMSNorm per head), a SwiGLU MLP after each
    "lfm2": Reader(qk_norm=QkNorm.HEAD, tie_default=True, short_conv=True, lfm2_ffn=True,
                   extra=frozenset({"num_heads"})),  # the files' copy of num_attention_heads, unread by Lfm2Config
    "lfm3": Reader(qk_norm=QkNorm.HEAD, tie_default=True, short_conv=True, sliding=Sliding.TYPES, lfm3=True,
                   extra=frozenset({"use_sandwich_norm", "use_attention_gate"})),
    # Hunyuan (Hunyuan-7B, Hunyuan-A13B): Llama-style with an RMSNorm over each q and k head, always (whatever
    # use_qk_norm says); the MoE's experts and its shared MLP all intermediate_size wide
    "hunyuan_v1_dense": Reader(qk_norm=QkNorm.HEAD, extra=frozenset({"use_qk_norm"})),
    "hunyuan_v1_moe": Reader(qk_norm=QkNorm.HEAD, moe=MoeKeys.HUNYUAN,
                             extra=frozenset({"use_qk_norm", "moe_intermediate_size"})),  # checked: _hunyuan_widths
    # Granite 3 MoE: Mixtral's layers (Llama attention with attention_bias, experts in every layer, no window);
    # GraniteMoeShared adds a shared MLP; the SWA variants a sink per head and layers 0, 4, 8... full, the others
    # sliding; GraniteSWA is Granite (dense) so
    "granitemoe": Reader(moe=MoeKeys.MIXTRAL),
    "granitemoeshared": Reader(moe=MoeKeys.GRANITE),
    "granitemoe_swa": Reader(moe=MoeKeys.GRANITE, sinks=True, sliding=Sliding.FIRST, pattern=4),
    "granite_swa": Reader(reads_mlp_bias=True, sinks=True, sliding=Sliding.FIRST, pattern=4),
    # FlexOlmo: OLMo 2's layers (norms after attention and MLP, q/k RMSNorm over all heads) with OLMoE's experts
    "flex_olmo": Reader(qk_norm=QkNorm.FULL, compute=NormCompute.RMS_FP32, post_norms=True, moe=MoeKeys.OLMOE),
    # K-EXAONE: EXAONE 4's attention (q/k norm per head, sliding layers, no biases) in pre-norm layers, dense
    # then DeepSeek-V3's experts (ExaoneMoeSparseMoEBlock) by mlp_layer_types or first_k_dense_replace
    "exaone_moe": Reader(qk_norm=QkNorm.HEAD, sliding=Sliding.TYPES, pattern=4, qkv_bias=False, o_bias=False,
                         moe=MoeKeys.DEEPSEEK, aliases=(("num_experts", "n_routed_experts"),
                                                        ("num_shared_experts", "n_shared_experts"))),
    "lfm2_moe": Reader(qk_norm=QkNorm.HEAD, tie_default=True, short_conv=True, moe=MoeKeys.LFM2,
                       extra=frozenset({"use_expert_bias"})),  # a buffer, not a parameter
    # Step 3.5 / 3.7 Flash (Step3p7TextConfig): q/k RMSNorm per head, a sigmoid gate per head (g_proj), sliding
    # layers with num_sliding_attention_heads, dense then DeepSeek-style experts beside a shared expert
    "step3p5": Reader(qk_norm=QkNorm.HEAD, compute=NormCompute.RMS_FP32, sliding=Sliding.TYPES, moe=MoeKeys.DEEPSEEK,
                      reads_mlp_bias=True, step=True,
                      aliases=(("num_attention_groups", "num_key_value_heads"), ("moe_num_experts", "n_routed_experts"),
                               ("num_local_experts", "n_routed_experts"), ("moe_top_k", "num_experts_per_tok"),
                               ("share_expert_dims", "share_expert_dim"),
                               ("num_mtp_layers", "num_nextn_predict_layers")),
                      extra=frozenset({"share_expert_dim", "moe_layers_enum", "attention_other_setting",
                                       "num_sliding_attention_heads", "per_layer_config", "num_nextn_predict_layers",
                                       "gating"})),
    # Hy3 (HYV3ForCausalLM): Apertus' attention (q/k RMSNorm per head), a dense first layer, then a sigmoid router
    # over num_experts and num_shared_experts × moe_intermediate_size beside them (DeepSeek-V3's layout)
    "hy_v3": Reader(qk_norm=QkNorm.HEAD, moe=MoeKeys.DEEPSEEK, first_dense=1, reads_mlp_bias=True,
                    aliases=(("num_experts", "n_routed_experts"), ("num_shared_experts", "n_shared_experts"))),
    # Llama's classes under other names: InternLM3 (qkv_bias and bias, InternLM3Config's attribute_map) and
    # IQuest-Coder
    "internlm3": Reader(reads_mlp_bias=True, aliases=(("qkv_bias", "attention_bias"), ("bias", "mlp_bias"))),
    "iquestcoder": Reader(reads_mlp_bias=True),
    # CWM: Llama's layers, unbiased q/k/v/o (CwmAttention), layers 0, 4, 8... full and the others sliding
    "cwm": Reader(qkv_bias=False, o_bias=False, reads_mlp_bias=True, sliding=Sliding.FIRST, pattern=4),
    # Solar Open: Llama's attention (attention_bias on q/k/v, none on o) before GLM-4-MoE's experts in every layer
    "solar_open": Reader(moe=MoeKeys.DEEPSEEK, o_bias=False),
    # Helium (HeliumForCausalLM, Helium-1): Llama's layers, q/k/v biased by attention_bias, an unbiased o_proj,
    # mlp_bias on the MLP; HeliumRMSNorm multiplies by its weight in fp32
    "helium": Reader(o_bias=False, reads_mlp_bias=True, compute=NormCompute.RMS_FP32,
                     extra=frozenset({"rms_norm_eps"})),
    # VaultGemma (VaultGemmaForCausalLM): Gemma 2's attention (attention_bias on q/k/v/o, logit soft-capping, every
    # other layer sliding by layer_types) with two RMSNorms (1 + weight) a layer, no post-norms; a tied head
    "vaultgemma": Reader(compute=NormCompute.RMS_FP32, softcap=True, tie_default=True, sliding=Sliding.TYPES,
                         pattern=2, extra=frozenset({"query_pre_attn_scalar", "rms_norm_eps"})),
    # HyperCLOVA X SEED (HyperCLOVAXForCausalLM): Llama's layers (attention_bias on q/k/v/o, mlp_bias) with norms
    # after attention and the MLP too while use_post_norm (Peri-LN, on by default); muP multipliers scale activations
    "hyperclovax": Reader(reads_mlp_bias=True, post_norm_key="use_post_norm",
                          extra=frozenset({"use_post_norm", "embedding_multiplier", "logits_scaling",
                                           "residual_multiplier", "attention_multiplier", "rms_norm_eps"})),
    # DiffLlama (DiffLlamaForCausalLM): Llama's layers (attention_bias on q/k/v/o) with differential attention: two
    # softmax maps over the halves of the heads, lambda_q1, lambda_k1, lambda_q2, lambda_k2 (head_dim each) learned,
    # a GroupNorm without weights; the values split in two along the KV heads, which must be even
    "diffllama": Reader(diff=True, extra=frozenset({"lambda_std_dev", "rms_norm_eps"})),
    # BitNet b1.58 (BitNetForCausalLM, bitnet-b1.58-2B-4T): Llama's layers (attention_bias on q/k/v/o) with an RMSNorm
    # over attention's output before o_proj and one over the gated product (ReLU²) before down_proj; its released
    # weights are ternary, packed four to a byte (quantization_config: bitnet), which the answer names as unread
    "bitnet": Reader(sub_norms=True, extra=frozenset({"rms_norm_eps"})),
    # MiniCPM3 (MiniCPM3ForCausalLM, MiniCPM3-4B): DeepSeek-V2's latent attention (a q latent of q_lora_rank, or q_proj
    # when None; attention_bias on q_a, kv_a and o) before Llama's gated MLP (mlp_bias), a tied head by default;
    # scale_emb, scale_depth and dim_model_base scale activations only
    "minicpm3": Reader(mla=True, tie_default=True, reads_mlp_bias=True, minicpm3=True,
                       extra=frozenset({"scale_emb", "scale_depth", "dim_model_base", "rms_norm_eps",
                                        "pretraining_tp"})),
    # Youtu-LLM: DeepSeek-V3's latent attention before a dense SwiGLU MLP, a tied head
    "youtu": Reader(mla=True, tie_default=True),
    # Command A Plus (Cohere2MoeForCausalLM): Cohere 2's parallel block (one norm, attention_bias on q/k/v/o,
    # sliding layers but every 4th) with experts of intermediate_size and a shared expert of num_shared_experts
    # times that, after a dense prefix of prefix_dense_intermediate_size
    "cohere2_moe": Reader(norm=Norm.LAYER_NO_BIAS, compute=NormCompute.LAYER_FP32, norms_per_layer=1, tie_default=True,
                          sliding=Sliding.TYPES, pattern=4, moe=MoeKeys.DEEPSEEK, cohere_moe=True, extra=frozenset({
                              "num_experts", "num_shared_experts", "prefix_dense_intermediate_size",
                              "prefix_dense_sliding_window_pattern", "rms_norm_eps", "layer_norm_eps"})),
    # MiniMax-M3 (MiniMaxM3VLForCausalLM): M2's attention (q/k RMSNorm (1 + weight) per head), a lightning indexer
    # on the minimax_m3_sparse layers, sigmoid-routed experts of intermediate_size beside a shared expert, and
    # dense layers by mlp_layer_types (or the hub's moe_layer_freq)
    "minimax_m3_vl_text": Reader(qk_norm=QkNorm.HEAD, compute=NormCompute.RMS_FP32, qkv_bias=False, o_bias=False,
                                 moe=MoeKeys.DEEPSEEK, minimax3=True, extra=frozenset({
                                     "num_local_experts", "dense_intermediate_size", "shared_intermediate_size",
                                     "index_n_heads", "index_head_dim", "index_block_size", "index_topk_blocks",
                                     "index_local_blocks", "sparse_attention_config", "rotary_dim", "layer_types",
                                     "use_qk_norm"})),  # MiniMaxM3VLAttention norms q and k whatever it says
    # AFMoE (Arcee Trinity): q/k RMSNorm per head, a sigmoid gate per channel over attention's output (gate_proj),
    # four norms per layer (before and after attention and the MLP), every global_attn_every_n_layers-th layer
    # full and the others sliding, num_dense_layers dense then sigmoid-routed experts beside num_shared_experts
    # of moe_intermediate_size and a learned expert_bias (an nn.Parameter: counted)
    "afmoe": Reader(qk_norm=QkNorm.HEAD, compute=NormCompute.RMS_FP32, norms_per_layer=4, attention_gate=True,
                    gate_apart=True, score_bias=True, sliding=Sliding.TYPES, pattern=4, moe=MoeKeys.DEEPSEEK,
                    aliases=(("num_experts", "n_routed_experts"), ("num_shared_experts", "n_shared_experts"),
                             ("num_dense_layers", "first_k_dense_replace"),
                             ("global_attn_every_n_layers", "sliding_window_pattern")),
                    extra=frozenset({"mup_enabled", "route_scale", "rms_norm_eps"})),
    # Mistral Large 4 (MistralLarge4TextModel): GLM-5's DSA without a q latent (q_proj from the input; the indexer's
    # queries from a LayerNorm over it), a learned softmax scale and bias per head, NoPE every 4th layer, DeepSeek's
    # experts after first_k_dense_replace dense layers, an fp32 softmax router
    "mistral_large4_text": Reader(mla=True, moe=MoeKeys.DEEPSEEK, indexer=True, large4=True, softcap=True,
                                  aliases=(("num_local_experts", "n_routed_experts"),),
                                  extra=frozenset({"no_rope_layers", "kv_source_layers", "rms_norm_eps", "n_group",
                                                   "topk_group", "routed_scaling_factor", "no_rope_layer_interval"})),
    # Hy4 (HYV4ForCausalLM): GLM-5's DSA (MLA, an indexer on the indexer_types "full" layers) with a sigmoid gate per
    # value channel (gate_proj) and a sink per head, GLM-4.7-Flash's experts after a dense first layer, and hc_mult
    # residual streams mixed around each block (HYV4HyperConnection) and collapsed before the final norm
    "hy_v4": Reader(mla=True, moe=MoeKeys.DEEPSEEK, indexer=True, first_dense=1, attention_gate=True, gate_apart=True,
                    sinks=True, hyper=True, aliases=(("num_local_experts", "n_routed_experts"),),
                    extra=frozenset({"hc_mult", "hc_magnitude", "hc_eps", "learnable_sink_init", "swiglu_limit",
                                     "rms_norm_eps", "n_group", "topk_group", "routed_scaling_factor"})),
    # Laguna (LagunaForCausalLM): AFMoE's attention (q/k RMSNorm per head, sliding layers by layer_types) with
    # num_attention_heads_per_layer query heads and a softplus gate g_proj; a dense first layer (mlp_layer_types),
    # then sigmoid-routed experts beside a shared expert of shared_expert_intermediate_size, the router's
    # e_score_correction_bias an nn.Parameter (counted). Qwen2-MoE's mlp_only_layers and decoder_sparse_step are
    # not read by LagunaConfig; no layer_types: every layer full (pattern 1).
    "laguna": Reader(qk_norm=QkNorm.HEAD, sliding=Sliding.TYPES, pattern=1, moe=MoeKeys.DEEPSEEK, first_dense=1,
                     score_bias=True, laguna=True, aliases=(("num_experts", "n_routed_experts"),),
                     extra=frozenset({"shared_expert_intermediate_size", "num_attention_heads_per_layer", "gating",
                                      "mlp_only_layers", "decoder_sparse_step", "rms_norm_eps",
                                      "moe_routed_scaling_factor", "moe_router_logit_softcapping"})),
    # Cohere Compass (North-Micro-Vision's language model, CohereCompassForCausalLM): Cohere 2's parallel block (one
    # LayerNorm without bias, attention_bias on q/k/v/o, a tied head) with layers by layer_types (every layer full
    # without it: pattern 1); rope_parameters per layer kind (None: NoPE), no parameters
    "cohere_compass_text": Reader(norm=Norm.LAYER_NO_BIAS, compute=NormCompute.LAYER_FP32, norms_per_layer=1,
                                  tie_default=True, sliding=Sliding.TYPES, pattern=1,
                                  extra=frozenset({"logit_scale", "pooling", "layer_norm_eps"})),
    # dots.llm1 (Dots1ForCausalLM): Qwen3's attention (q/k RMSNorm per head, attention_bias on q/k/v/o; the layers
    # from max_window_layers on sliding when sliding_window is set) before DeepSeek-V3's experts (a sigmoid router,
    # n_shared_experts × moe_intermediate_size beside them, its e_score_correction_bias a buffer) after
    # first_k_dense_replace dense layers (0 by default); moe_layer_freq is not read by Dots1DecoderLayer
    "dots1": Reader(qk_norm=QkNorm.HEAD, sliding=Sliding.WINDOW_LAYERS, moe=MoeKeys.DEEPSEEK,
                    aliases=(("num_local_experts", "n_routed_experts"),),
                    needs=("n_routed_experts", "n_shared_experts", "num_experts_per_tok"),
                    extra=frozenset({"rms_norm_eps", "n_group", "topk_group", "routed_scaling_factor",
                                     "norm_topk_prob", "scoring_func"})),
    # Nemotron-4 and Minitron (NemotronForCausalLM): Llama's attention (attention_bias on q/k/v/o, partial rotary)
    # with LayerNorm1P (a LayerNorm, weight and bias, scaling by 1 + weight) and an up/down MLP (ReLU², no gate)
    # biased by mlp_bias, an untied head
    "nemotron": Reader(norm=Norm.LAYER, compute=NormCompute.LAYER, gated_mlp=False, reads_mlp_bias=True,
                       extra=frozenset({"norm_eps"})),
    # A.X-K1 (AXK1ForCausalLM): DeepSeek-V3 (MLA with a q latent, its experts after first_k_dense_replace dense
    # layers: 1 when not given, AXK1Config pops it) with an RMSNorm over each MoE block's output
    "axk1": Reader(mla=True, moe=MoeKeys.DEEPSEEK, moe_post_norm=True,
                   aliases=(("num_local_experts", "n_routed_experts"),),
                   extra=frozenset({"rms_norm_eps", "n_group", "topk_group", "routed_scaling_factor"})),
    # A.X-K2 (AXK2ForCausalLM): DeepSeek-V3.2 (MLA, its indexer on every layer) whose q_gate_proj reads the q latent
    # and its norm side by side and adds a sigmoid gate per value channel (attention_gate), with a low-rank gate
    # on input_layernorm and, on MoE layers, post_attention_layernorm; first_k_dense_replace 1 when not given
    "axk2": Reader(mla=True, moe=MoeKeys.DEEPSEEK, indexer=True, attention_gate=True, gated_norm=True,
                   extra=frozenset({"gated_norm_rank", "rms_norm_eps", "n_group", "topk_group",
                                    "routed_scaling_factor"})),
    # Inkling (InklingForCausalLM; the text model of InklingForConditionalGeneration): "hybrid" layers (full) of
    # num_attention_heads, num_key_value_heads and head_dim, "hybrid_sliding" ones of the swa_* keys and
    # sliding_window_size; q/k RMSNorm per head, r_proj and a relative-logits table, four short convolutions; a
    # normed embedding; sigmoid-routed experts (DeepSeek's keys, mlp_layer_types) beside n_shared_experts stacked
    "inkling_text": Reader(qk_norm=QkNorm.HEAD, sliding=Sliding.TYPES, pattern=6, moe=MoeKeys.DEEPSEEK, inkling=1,
                           qkv_bias=False, o_bias=False,
                           aliases=(("sliding_window_size", "sliding_window"),
                                    ("num_local_experts", "n_routed_experts"),
                                    ("sconv_kernel_size", "conv_kernel_size"),
                                    ("model_max_length", "max_position_embeddings")),
                           extra=frozenset({"swa_num_attention_heads", "swa_num_key_value_heads", "swa_head_dim",
                                            "d_rel", "rel_extent", "conv_kernel_size", "local_layer_ids", "layer_types",
                                            "dense_intermediate_size", "dense_mlp_idx", "unpadded_vocab_size",
                                            "num_mtp_layers", "rms_norm_eps", "route_scale", "shared_expert_sink"})),
    # GLM-5.3 (the text model of Glm5NextForConditionalGeneration): Kimi's KDA layers and MLA without RoPE, DSA's
    # indexer (shared on indexer_types' "shared" layers) scoring pools of index_kpool keys, mHC streams (hc_mult)
    "glm5_next_text": Reader(mla=True, linear=True, kda="kimi", moe=MoeKeys.DEEPSEEK, indexer=True, hyper=True,
                             glm5=True, aliases=(("num_local_experts", "n_routed_experts"),),
                             extra=frozenset({"linear_attn_config", "linear_num_heads", "linear_head_dim", "hc_mult",
                                              "hc_eps", "hc_sinkhorn_iters", "index_kpool", "swiglu_limit",
                                              "linear_lower_bound", "rms_norm_eps", "n_group", "topk_group",
                                              "routed_scaling_factor", "index_kpool_always_select_tail"})),
    # Dots3 (Dots3NoteForCausalLM; the text model of Dots3NoteForConditionalGeneration, whose released files keep
    # the text keys at the top): MLA with a gate per head and a normed rotary key, sliding layers of their own sizes
    # (per_layer_config or swa_*), DSA's indexer on the indexed layers, DeepSeek's experts beside a shared MLP
    "dots3_note_text": Reader(mla=True, moe=MoeKeys.DEEPSEEK, indexer=True, sliding=Sliding.TYPES, dots3=True,
                              aliases=(("sliding_window_size", "sliding_window"),
                                       ("num_local_experts", "n_routed_experts"),
                                       ("moe_shared_expert_intermediate_size", "shared_experts_intermediate_size")),
                              extra=frozenset({"per_layer_config", "use_dsa", "use_sliding_window", "swa_head_dim",
                                               "shared_experts_intermediate_size", "first_k_dense_replace",
                                               "moe_layer_freq", "rms_norm_eps", "n_group", "topk_group",
                                               "routed_scaling_factor", *("swa_" + k for k in (
                                                   "num_attention_heads", "num_key_value_heads", "q_lora_rank",
                                                   "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                                                   "v_head_dim"))})),
    # Inkling 2 (Inkling2ForCausalLM): Inkling's layers, untied head and keys with an output gate (gate_proj), a sink
    # logit per head from h (sink_proj), learned q and relative-state clip scales in place of q/k norms, full layers'
    # separate q/k/v input norms and input-dependent k/v taps, attention-residual queries; no shared or dense MLPs
    "inkling2_text": Reader(sliding=Sliding.TYPES, pattern=6, moe=MoeKeys.DEEPSEEK, inkling=2, attention_gate=True,
                            gate_apart=True, softcap=True,
                            aliases=(("sliding_window_size", "sliding_window"),
                                     ("num_local_experts", "n_routed_experts"),
                                     ("sconv_kernel_size", "conv_kernel_size")),
                            extra=frozenset({"swa_num_attention_heads", "swa_num_key_value_heads", "swa_head_dim",
                                             "d_rel", "rel_extent", "conv_kernel_size", "layer_types",
                                             "unpadded_vocab_size", "rms_norm_eps", "route_scale",
                                             "n_layers_per_attn_res_block"})),
    # ZAYA (ZayaForCausalLM): CCA attention (convolutions over q and k, a delayed value half, a key scale per KV
    # head) on "hybrid" layers (full) and "hybrid_sliding" ones, every layer num_experts of moe_intermediate_size
    # (OLMoE's keys) routed top-1 by an MLP of router_hidden_size among them and a skip expert; the residual and
    # each block's output scaled and shifted; lm_head_bias
    "zaya": Reader(moe=MoeKeys.OLMOE, sliding=Sliding.TYPES, pattern=1, tie_default=True, cca=True,
                   aliases=(("moe_intermediate_size", "intermediate_size"),),
                   extra=frozenset({"router_hidden_size", "cca_time0", "cca_time1", "lm_head_bias", "rms_norm_eps",
                                    "layer_types"})),
    # StarCoder2 (Starcoder2ForCausalLM): Mistral's attention (every layer windowed when sliding_window is set)
    # with LayerNorms (weight and bias), a plain c_fc/c_proj MLP, `use_bias` on q/k/v/o and the MLP (not the
    # head), a tied head by default; the hub's norm_type and mlp_type are not read by the class
    "starcoder2": Reader(norm=Norm.LAYER, compute=NormCompute.LAYER, gated_mlp=False, bias_key="use_bias",
                         tie_default=True, sliding=Sliding.ALL),
    # StableLM (StableLmForCausalLM: StableLM-3B-4E1T, StableLM 2): LayerNorms (weight and bias), q/k/v biased by
    # use_qkv_bias, an unbiased o_proj, a LayerNorm without bias of its own per q and k head when qk_layernorm,
    # Llama's gated MLP, one norm and attention beside the MLP when use_parallel_residual (StableLM 2 12B), an untied
    # head; head_dim hidden / heads whatever a config says (StableLmAttention reads no head_dim)
    "stablelm": Reader(norm=Norm.LAYER, compute=NormCompute.LAYER, o_bias=False, qk_norm=QkNorm.PER_HEAD,
                       qk_norm_switched=True, stablelm=True, aliases=(("qk_layernorm", "use_qk_norm"),),
                       extra=frozenset({"use_qkv_bias", "use_parallel_residual", "layer_norm_eps"})),
    # Arcee AFM (ArceeForCausalLM): Llama's layers with NemotronMLP's up/down MLP (ReLU², no gate), mlp_bias on it
    "arcee": Reader(gated_mlp=False, reads_mlp_bias=True),
    # NanoChat (NanoChatForCausalLM): every norm an RMSNorm without a weight (F.rms_norm: the layers' two, the q/k
    # norms per head, the one over the embeddings and the final one), attention_bias on q/k/v/o, an unbiased fc1/fc2
    # MLP (ReLU², no gate), final_logit_softcapping, an untied head
    "nanochat": Reader(norm=Norm.NONE, qk_norm=QkNorm.HEAD, gated_mlp=False, softcap=True,
                       extra=frozenset({"rms_norm_eps"})),
    # Jais 2 (Jais2ForCausalLM): Llama's attention (attention_bias on q/k/v/o, True by default) with LayerNorms (weight
    # and bias) and an up/down MLP (ReLU², no gate) biased by mlp_bias (True by default), an untied head
    "jais2": Reader(norm=Norm.LAYER, compute=NormCompute.LAYER, gated_mlp=False, reads_mlp_bias=True),
    # Persimmon (PersimmonForCausalLM; Fuyu's language model): LayerNorms (weight and bias), a biased fused
    # query_key_value and dense, a LayerNorm (weight and bias) per q and k head when qk_layernorm (on by default), a
    # biased dense_h_to_4h/dense_4h_to_h MLP (ReLU², no gate), an untied head; every head its own K/V and head_dim
    # hidden / heads, whatever a config says (PersimmonAttention reads neither key)
    "persimmon": Reader(norm=Norm.LAYER, compute=NormCompute.LAYER, fused_qkv=True, qkv_bias=True, o_bias=True,
                        mlp_bias=True, gated_mlp=False, qk_norm=QkNorm.HEAD, qk_norm_switched=True,
                        aliases=(("qk_layernorm", "use_qk_norm"),),
                        legacy=Legacy(fixed=(("head_dim", None), ("num_key_value_heads", None)))),
    # Mellum 2 (MellumForCausalLM): Qwen3-MoE's attention (q/k RMSNorm per head) and experts (softmax router, no
    # shared expert), sliding layers by layer_types (every layer full without it), dense gated MLPs of
    # intermediate_size where mlp_layer_types says "dense" (every layer sparse without it). MellumConfig's
    # attribute_map reads num_experts as num_local_experts; the hub's use_sliding_window and max_window_layers
    # (Qwen's) are not read; its MTP layers (num_mtp_layers) are not built (mtp.* ignored on load).
    "mellum": Reader(qk_norm=QkNorm.HEAD, sliding=Sliding.TYPES, pattern=1, moe=MoeKeys.DEEPSEEK, first_dense=0,
                     aliases=(("num_local_experts", "n_routed_experts"), ("num_experts", "n_routed_experts")),
                     extra=frozenset({"use_sliding_window", "max_window_layers", "num_mtp_layers",
                                      "num_nextn_predict_layers", "mtp_layer_types", "mtp_mlp_layer_types",
                                      "rms_norm_eps"})),
    # Kolibri-1 (Kolibri1ForCausalLM): EXAONE 4's attention (q/k RMSNorm per head, no biases), four norms per layer
    # (GLM-4's), sliding layers by layer_types (every 5th full), experts of moe_intermediate_size in every layer beside
    # an ungated shared MLP; num_experts is num_local_experts (its attribute_map), e_score_correction_bias a buffer
    "kolibri1": Reader(qk_norm=QkNorm.HEAD, norms_per_layer=4, qkv_bias=False, o_bias=False, sliding=Sliding.TYPES,
                       pattern=5, moe=MoeKeys.DEEPSEEK, first_dense=0, shared_key="shared_expert_intermediate_size",
                       aliases=(("num_local_experts", "n_routed_experts"), ("num_experts", "n_routed_experts")),
                       extra=frozenset({"shared_expert_intermediate_size", "norm_topk_prob", "rms_norm_eps",
                                        "use_sliding_window"})),  # in public ports' files; the class drops it
    # Beam (BeamForCausalLM): Qwen3-MoE's attention (q/k RMSNorm per head) with an unbiased sigmoid gate per channel
    # and a learned bias per head on it, four norms per layer, sliding layers by layer_types (every 6th and the last
    # full, without RoPE), three dense layers (mlp_layer_types) then experts of moe_intermediate_size, no shared
    # expert, the router's e_score_correction_bias a buffer; final_logit_softcapping
    "beam": Reader(qk_norm=QkNorm.HEAD, norms_per_layer=4, attention_gate=True, gate_apart=True, gate_bias=True,
                   sliding=Sliding.TYPES, pattern=6, last_full=True, moe=MoeKeys.DEEPSEEK, first_dense=3, softcap=True,
                   aliases=(("num_experts", "n_routed_experts"),),
                   extra=frozenset({"norm_topk_prob", "n_group", "topk_group", "routed_scaling_factor",
                                    "rms_norm_eps"})),
    # Qwen4-Exp (Qwen4ExpForCausalLM; the text model of Qwen4ExpForConditionalGeneration): Qwen3.5-MoE's Gated
    # DeltaNet and gated attention with the QSA indexer (a key per token) on its indexed layers, no norm but the
    # hc_count residual streams' (Qwen4ExpTextGatedResidual, before attention and the MLP, once at the end); PLE
    "qwen4_exp_text": Reader(qk_norm=QkNorm.HEAD, attention_gate=True, moe=MoeKeys.QWEN, linear=True,
                             compute=NormCompute.RMS_FP32, norms_per_layer=0, qwen4=True, extra=frozenset({
                                 "hc_count", "hc_lowrank", "indexer_n_heads", "indexer_kv_heads", "indexer_head_dim",
                                 "indexer_budget", "indexer_compress_ratio", "output_gate_type", "norm_topk_prob",
                                 "rms_norm_eps", "full_attention_interval", "ple_layer_ids", "ple_embed_dim",
                                 "ple_conv_kernel_size", "ngram_size", "heads_per_ngram", "ngram_vocab_size_base",
                                 "make_ngram_vocab_size_divisible_by", "seed", "split_ngram_parts"})),
    # Llama 3.2 Vision's language model (MllamaTextModel): Llama's layers (head_dim hidden / heads, whatever a config
    # says; no biases) but those cross_attention_layers list, which attend to the image's tokens instead of the text's
    # (MllamaCrossAttentionDecoderLayer: q, k, v, o, RMSNorms over q and k per head, two tanh gates; the MLP); an
    # embedding of vocab_size + 8 rows, an untied head of vocab_size (hf_config._read_decoder)
    "mllama_text_model": Reader(cross=True, never_tied=True, extra=frozenset({"cross_attention_layers",
                                                                               "rms_norm_eps"})),
    # Emu3's language model (Emu3ForCausalLM; Emu3ForConditionalGeneration's text_config beside its VQ-VAE, which is
    # not counted and said): Llama's layers, head_dim when given, q/k/v/o biased by attention_bias, the MLP by mlp_bias
    "emu3_text_model": Reader(reads_mlp_bias=True, extra=frozenset({"rms_norm_eps"})),
    # Doge (DogeForCausalLM): Llama's attention biased by attention_bias (o too) with an RMSNorm over q and k per head,
    # the dynamic mask's A and dt_proj, two residual scales a layer, every layer sliding when sliding_window is set;
    # the MLP by mlp_bias, or with is_moe DogeCDMoE: that MLP shared beside num_experts one-row experts
    # (num_experts_per_tok a token) routed by product keys
    "doge": Reader(qk_norm=QkNorm.HEAD, sliding=Sliding.ALL, reads_mlp_bias=True, doge=True, extra=frozenset({
        "keep_window_size", "is_moe", "num_experts", "num_experts_per_tok", "norm_topk_prob", "rms_norm_eps"})),
    # HRM-Text (HrmTextForCausalLM): two stacks (L and H) of num_layers_per_stack Llama layers, every head its own K/V,
    # an output gate per channel (gate_proj, biased by attention_bias), norms without weights, run H_cycles times as
    # L_cycles L-stack passes and one H-stack pass, each pass a cache slot; z_L_init, an untied head
    "hrm_text": Reader(norm=Norm.NONE, attention_gate=True, gate_apart=True, reads_mlp_bias=True, hrm=True,
                       extra=frozenset({"H_cycles", "L_cycles", "L_bp_cycles", "num_layers_per_stack",
                                        "embedding_scale", "prefix_lm", "rms_norm_eps"})),
}
# Decoders of 2019-23 (transformers 5.23's classes), their keys under their own names; each counted on the meta
# device, full-size and perturbed (tests/golden/types.json), but those whose Legacy names an approximation.
_GPT = (("n_embd", "hidden_size"), ("n_layer", "num_hidden_layers"), ("n_head", "num_attention_heads"),
        ("n_positions", "max_position_embeddings"), ("n_inner", "intermediate_size"))
_MPT = (("d_model", "hidden_size"), ("n_heads", "num_attention_heads"), ("n_layers", "num_hidden_layers"),
        ("max_seq_len", "max_position_embeddings"))
_LN = Reader(norm=Norm.LAYER, compute=NormCompute.LAYER, gated_mlp=False, legacy=Legacy())
_BIASED = dataclasses.replace(_LN, qkv_bias=True, o_bias=True, mlp_bias=True, tie_default=True)
_new = dataclasses.replace
_GPTJ = _new(_LN, block=Block.PHI, norms_per_layer=1, qkv_bias=False, o_bias=False, mlp_bias=True, head_bias=True,
             aliases=_GPT, extra=frozenset({"rotary_dim", "n_ctx"}))  # parallel attention and MLP
_RECURRENT = (("num_attention_heads", 1), ("sliding_window", 1))  # a fixed state: one token's K/V per layer
READERS.update({"gpt-sw3": Reader(block=Block.GPT2), "openai-gpt": Reader(block=Block.GPT2),  # _read_gpt2
           "gptj": _GPTJ, "codegen": dataclasses.replace(_GPTJ, fused_qkv=True),
           "gpt_neo": _new(_BIASED, qkv_bias=False, sliding=Sliding.TYPES, legacy=Legacy(positions=0),
                             aliases=(("num_layers", "num_hidden_layers"), ("num_heads", "num_attention_heads"),
                                      ("window_size", "sliding_window")),
                             extra=frozenset({"attention_layers", "attention_types"})),
           "gpt_bigcode": _new(_BIASED, fused_qkv=True, aliases=_GPT, legacy=Legacy(positions=0),
                                 extra=frozenset({"multi_query"})),
           "bloom": _new(_BIASED, fused_qkv=True, legacy=Legacy(embed_norm=True),
                           aliases=(("n_layer", "num_hidden_layers"), ("n_head", "num_attention_heads"),
                                    ("n_embed", "hidden_size"))),
           "opt": _new(_LN, tie_default=True, bias_key="enable_bias", aliases=(("ffn_dim", "intermediate_size"),),
                         legacy=Legacy(positions=2), extra=frozenset({"word_embed_proj_dim", "do_layer_norm_before"})),
           "xglm": _new(_BIASED, aliases=(
               ("d_model", "hidden_size"), ("num_layers", "num_hidden_layers"),
               ("attention_heads", "num_attention_heads"), ("ffn_dim", "intermediate_size"))),
           "ctrl": _new(_BIASED, head_bias=True, aliases=(*_GPT, ("dff", "intermediate_size"))),
           "mpt": _new(_LN, norm=Norm.LAYER_NO_BIAS, fused_qkv=True, qkv_bias=False, o_bias=False,
                         tie_default=True, aliases=_MPT, legacy=Legacy(nested=("attn_config",),
                                                                       ffn=("expansion_ratio", 4, "")),
                         extra=frozenset({"expansion_ratio", "no_bias", "attn_config", "learned_pos_emb"})),
           "dbrx": Reader(norm=Norm.LAYER_NO_BIAS, compute=NormCompute.LAYER, fused_qkv=True, qkv_bias=False,
                          o_bias=False, moe=MoeKeys.MIXTRAL, legacy=Legacy(nested=("attn_config", "ffn_config")),
                          aliases=(*_MPT, ("kv_n_heads", "num_key_value_heads"),
                                   ("ffn_hidden_size", "intermediate_size"),
                                   ("moe_num_experts", "num_local_experts"), ("moe_top_k", "num_experts_per_tok")),
                          extra=frozenset({"attn_config", "ffn_config", "clip_qkv"})),
           "gpt_neox_japanese": _new(_LN, fused_qkv=True, tie_default=True, legacy=Legacy(
               ffn=("intermediate_multiple_size", 4, ""), approx="gpt_neox_japanese"),
               extra=frozenset({"intermediate_multiple_size"})),
           # BioGPT: OPT's learned positions (2 rows more), BART's pre-LN layers, biases everywhere, a tied head
           "biogpt": _new(_BIASED, legacy=Legacy(positions=2)),
           # GIT's text decoder (GitForCausalLM): BERT's post-LN layers (no final norm), a LayerNorm over the
           # embeddings and learned positions, biases everywhere, the head's too; its image tower is not read
           "git": _new(_BIASED, head_bias=True, tie_default=False, legacy=Legacy(
               positions=0, embed_norm=True, fixed=(("do_layer_norm_before", False),)),
                       extra=frozenset({"vision_config", "num_image_with_embedding"})),
           "falcon_mamba": READERS["mamba"],  # FalconMambaMixer: Mamba's weights, RMS norms without any
           # RWKV-4: every layer time mixing (a recurrence of one head of attention_hidden_size, its state five
           # vectors of hidden_size: LinearAttention.rwkv) and channel mixing (key and value as a plain MLP,
           # receptance beside them), two LayerNorms, the first layer's pre_ln over the embeddings
           "rwkv": _new(_LN, linear=True, rwkv=True, aliases=(("attention_hidden_size", "head_dim"),
                                                              ("context_length", "max_position_embeddings")),
                          legacy=Legacy(fixed=_RECURRENT[:1], embed_norm=True)),
           "xlstm": Reader(sliding=Sliding.ALL, aliases=(("embedding_dim", "hidden_size"),
                                                         ("num_blocks", "num_hidden_layers"),
                                                         ("num_heads", "num_attention_heads")),
                           legacy=Legacy(ffn=("ffn_proj_factor", 2.667, "ffn_round_up_to_multiple_of"),
                                         fixed=_RECURRENT[1:], approx="xlstm"),
                           extra=frozenset({"ffn_proj_factor", "ffn_round_up_to_multiple_of", "qk_dim_factor"})),
           "cpmant": Reader(qkv_bias=False, o_bias=False,
                            aliases=(("dim_head", "head_dim"), ("dim_ff", "intermediate_size")),
                            legacy=Legacy(fixed=(("tie_word_embeddings", False),), approx="cpmant")),
                })
# Types not read yet, refused by name: encoder-decoder models, and others whose layers are no decoder's.
ENCODER_DECODER = frozenset({"bart", "marian", "mbart", "pegasus", "blenderbot", "blenderbot-small", "plbart",
                             "prophetnet", "mvp", "trocr", "bigbird_pegasus", "musicgen", "musicgen_melody", "moshi",
                             "pegasus_x", "t5", "mt5", "umt5", "longt5", "switch_transformers"})
NOT_READ = {"xlm": "XLM's", "xlnet": "XLNet's", "reformer": "Reformer's", "blt": "BLT's byte-level"}
# Gemma 4's drafters (Gemma4AssistantForCausalLM): their text_config's layers, every one reusing the target's K/V (no
# k/v weights, no cache of their own), a projection from twice the target's width and one back to it
# (hf_config._drafter)
DRAFTERS = {"gemma4_assistant": "gemma4_text", "gemma4_unified_assistant": "gemma4_unified_text"}

# Multimodal wrappers: the language model is in `text_config` (or, for Qwen2.5-VL, at the top level).
TEXT_TYPES = {"gemma3": "gemma3_text", "gemma3n": "gemma3n_text", "gemma4": "gemma4_text", "llama4": "llama4_text",
              "mistral3": "mistral", "qwen2_5_vl": "qwen2", "qwen2_vl": "qwen2", "qwen3_5": "qwen3_5_text",
              "qwen3_5_moe": "qwen3_5_moe_text", "qwen3_vl": "qwen3", "qwen3_vl_moe": "qwen3_moe", "step3p7": "step3p5",
              "exaone4_5": "exaone4", "minimax_m3_vl": "minimax_m3_vl_text",
              "gemma4_unified": "gemma4_unified_text", "internvl": "qwen2",
              "glm4v": "glm4v_text", "glm46v": "glm4v_text", "glm4v_moe": "glm4v_moe_text", "aria": "aria_text",
              "phi4_multimodal": "phi3",  # Phi4MultimodalConfig: a Phi-3's keys at the top, towers beside
              "qwen4_exp": "qwen4_exp_text",
              "dots3_note": "dots3_note_text",  # Dots3NoteConfig: the released files' text keys at the top
              "fuyu": "persimmon",  # FuyuConfig: a Persimmon text_config (adept/fuyu-8b's keys also at the top)
              "mllama": "mllama_text_model", "emu3": "emu3_text_model",
              **DRAFTERS}
# Wrappers whose class ties the head when the config omits tie_word_embeddings (InternVLConfig, Mistral3Config):
# transformers 5.23 ties by the wrapper's key, not its text_config's
WRAPPER_TIES = frozenset({"internvl", "mistral3", *DRAFTERS})  # Gemma4AssistantConfig too (tie_word_embeddings: True)
# The model_type a multimodal config's text_config may carry, read as the language model it is.
TEXT_ALIASES = {"qwen2_5_vl_text": "qwen2", "qwen2_vl_text": "qwen2", "qwen3_vl_text": "qwen3",
                "qwen3_vl_moe_text": "qwen3_moe", "exaone4_5_text": "exaone4",  # Exaone4_5_Config renames it so
                "minimax_m3": "minimax_m3_vl_text",  # the hub's MiniMax-M3 files (vLLM's MiniMaxM3TextConfig)
                "mllama": "mllama_text_model"}  # transformers' own test configs name Llama 3.2 Vision's text so
# Older names a config may carry, which its class reads in place of the new ones (Lfm2Config and
# Lfm2MoeConfig.__post_init__ pop them over the defaults).
LEGACY_KEYS = {"lfm2": {"block_ff_dim": "intermediate_size", "tie_embedding": "tie_word_embeddings"},
               "lfm2_moe": {"tie_embedding": "tie_word_embeddings"}}
