"""Every weight tensor of a model, with the name llama.cpp's GGUF files give it.

The parameter count is the sum of these shapes, checked exactly against the
transformers implementation of every preset built on PyTorch's meta device
(tools/measure_params.py, tests/golden/params.json). The same list tells
which tensors are experts, attention or embeddings, which quantisation
formats and parallel layouts need. Shapes are in PyTorch order (out, in);
stacked experts are one 3-D tensor (experts, out, in), as GGUF stores them.
"""

from __future__ import annotations

import functools
import math

from ...tensor import Role, Tensor
from ..encoder import Encoder
from ..speech import decoder_layer_tensors, encoder_tensors
from .spec import AttentionKind, Block, Cca, Compressed, Inkling, ModelSpec, Norm, QkNorm


@functools.lru_cache(maxsize=64)  # a spec's tensors never change; estimates ask for them many times per update
def model_tensors(spec: ModelSpec) -> tuple[Tensor, ...]:
    """The whole model: embeddings, every layer, the final norm and the head (once if tied)."""
    first, last = outside_tensors(spec)
    return (*first, *(t for index in range(spec.layers) for t in layer_tensors(spec, index)), *last)


def outside_tensors(spec: ModelSpec) -> tuple[list[Tensor], list[Tensor]]:
    """The tensors before the layers (embeddings) and after them (final norm, head)."""
    h = spec.hidden
    wide = spec.encoder.embedding if spec.encoder is not None and spec.encoder.embedding else h  # ELECTRA's tables
    first = [Tensor("token_embd.weight", (spec.vocab + spec.image_rows, wide), Role.EMBEDDING)]
    if spec.learned_positions:
        first.append(Tensor("position_embd.weight", (spec.learned_positions, wide), Role.EMBEDDING))
    if spec.embed_norm:
        first += _norm("token_embd_norm", h, spec.norm)
    if spec.speech is not None:  # Whisper's audio encoder
        first += encoder_tensors(spec.speech, h)
    if spec.encoder is not None:
        first += _encoder_embeddings(spec.encoder, h, wide)
    if spec.per_layer_input:  # Gemma 3n/4's per-layer embeddings: a table, a projection from h, a norm
        packed = spec.layers * spec.per_layer_input
        first += [Tensor("per_layer_token_embd.weight", (spec.per_layer_vocab, packed), Role.EMBEDDING),
                  Tensor("per_layer_model_proj.weight", (packed, h), Role.ATTENTION),
                  Tensor("per_layer_proj_norm.weight", (spec.per_layer_input,), Role.NORM)]
    if spec.hrm:  # HrmTextModel.z_L_init, the L stack's first input (a parameter, not trained)
        first.append(Tensor("z_l_init", (h,), Role.NORM))
    if spec.cca is not None:  # ZayaModel.input_hidden_states_scale and _bias, over the embeddings
        first += [Tensor("token_embd_scale.weight", (h,), Role.NORM), Tensor("token_embd_scale.bias", (h,), Role.NORM)]
    if spec.drafter_backbone:  # Gemma4AssistantForCausalLM.pre_projection: the target's embedding and hidden state
        first.append(Tensor("nextn.pre_projection.weight", (h, 2 * spec.drafter_backbone), Role.ATTENTION))
    if spec.altup_inputs > 1:  # Gemma3nTextModel.altup_projections and altup_unembed_projections, one h × h per stream
        first += [Tensor("altup_proj.weight", (spec.altup_inputs - 1, h, h), Role.ATTENTION),
                  Tensor("altup_unembd_proj.weight", (spec.altup_inputs - 1, h, h), Role.ATTENTION)]
    last = []
    # DeepseekV4HyperHead, HYV4HyperHead (GLM-5.3's a mean: no parameters)
    if n := spec.compressed.hc_mult if spec.compressed else spec.hyper * (not spec.hyper_comb):
        last += [Tensor("output_hc_fn.weight", (n, n * h), Role.NORM),
                 Tensor("output_hc_base.weight", (n,), Role.NORM), Tensor("output_hc_scale.weight", (1,), Role.NORM)]
    if spec.gated_residual:  # Qwen4ExpTextModel.hyper_connection_mixer
        last += _gated_residual(spec, "output_hc", inject=False)
    if spec.inkling is not None and spec.inkling.two:  # Inkling2TextModel.final_input
        last.append(Tensor("output_res.weight", (h,), Role.NORM))
    if spec.final_norm:
        last.extend(_norm("output_norm", h, spec.norm))
    if not spec.tie_embeddings:
        last.append(Tensor("output.weight", (spec.vocab, h), Role.HEAD))
    if spec.head_bias:
        last.append(Tensor("output.bias", (spec.vocab,), Role.BIAS))
    if spec.drafter_backbone:  # ... post_projection back to the target's width; Gemma4AssistantMaskedEmbedder.centroids
        last.append(Tensor("nextn.post_projection.weight", (spec.drafter_backbone, h), Role.ATTENTION))
        if spec.drafter_centroids:
            last.append(Tensor("masked_embd_centroids.weight", (spec.drafter_centroids, h), Role.ATTENTION))
    if spec.encoder is not None:
        last += _encoder_head(spec, spec.encoder)
    if spec.reranker is not None and spec.reranker.rows:  # a decoder reranker's score (vLLM's, llama.cpp's cls.output)
        last.append(Tensor("cls.output.weight", (spec.reranker.rows, h), Role.HEAD))
    return first, last


def _encoder_embeddings(encoder: Encoder, h: int, wide: int) -> list[Tensor]:
    """BERT's token_type_embeddings, ERNIE's task_type_embeddings; ELECTRA's LayerNorm at the embeddings' width and
    embeddings_project (DeBERTa-v2's embed_proj); DeBERTa-v2's rel_embeddings, their LayerNorm and its ConvLayer."""
    tensors = [Tensor("token_types.weight", (encoder.type_vocab, wide), Role.EMBEDDING)] if encoder.type_vocab else []
    tensors += [Tensor(f"extra_embd.{i}.weight", shape, Role.EMBEDDING) for i, shape in enumerate(encoder.tables)]
    tensors += _linear("token_embd_map", h, encoder.mapping, Role.ATTENTION, bias=True) if encoder.mapping else []
    if encoder.task_types:
        tensors.append(Tensor("task_types.weight", (encoder.task_types, wide), Role.EMBEDDING))
    if encoder.embedding:
        tensors += _norm("token_embd_norm", wide, Norm.LAYER) if encoder.projection_bias else []
        tensors += _linear("token_embd_proj", h, wide, Role.ATTENTION, encoder.projection_bias)
    if encoder.relative:
        tensors.append(Tensor("rel_embd.weight", (encoder.relative, h), Role.EMBEDDING))
    tensors += _norm("rel_embd_norm", h, Norm.LAYER) if encoder.relative_norm else []
    kernel, groups = encoder.conv
    if kernel:
        tensors += [Tensor("conv.weight", (h, h // groups, kernel), Role.ATTENTION),
                    Tensor("conv.bias", (h,), Role.BIAS), *_norm("conv_norm", h, Norm.LAYER)]
    return tensors


def _encoder_head(spec: ModelSpec, encoder: Encoder) -> list[Tensor]:
    """BertPooler (dense h -> h); a reranker's XLMRobertaClassificationHead or ModernBertPredictionHead (dense
    h -> h, ModernBERT's LayerNorm) and its classifier to the labels, with a bias."""
    h = spec.hidden
    tensors = _linear("cls.pooler", h, h, Role.MLP, bias=True) if encoder.pooler else []
    if encoder.head_dense:
        tensors += _linear("cls.dense", h, h, Role.MLP, encoder.head_bias)
    if encoder.head_norm:
        tensors += _norm("cls.norm", h, Norm.LAYER if encoder.head_norm == 2 else Norm.RMS)
    if encoder.labels:
        tensors += _linear("cls.output", encoder.labels, h, Role.HEAD, bias=True)
    return tensors


def _norm(prefix: str, width: int, norm: Norm) -> list[Tensor]:
    if norm is Norm.NONE:
        return []
    tensors = [Tensor(f"{prefix}.weight", (width,), Role.NORM)]
    if norm is Norm.LAYER:
        tensors.append(Tensor(f"{prefix}.bias", (width,), Role.NORM))
    return tensors


def _linear(name: str, out: int, inp: int, role: Role, bias: bool = False) -> list[Tensor]:
    tensors = [Tensor(f"{name}.weight", (out, inp), role)]
    if bias:
        tensors.append(Tensor(f"{name}.bias", (out,), Role.BIAS))
    return tensors


def layer_tensors(spec: ModelSpec, index: int) -> list[Tensor]:
    p, h = f"blk.{index}.", spec.hidden
    if spec.speech is not None:  # Whisper's decoder layer, with its cross-attention
        return decoder_layer_tensors(p, h, spec.ffn)
    if spec.shared_block is not None:  # Zamba2: a Mamba mixer, and on hybrid layers a shared block first
        return _shared_block_layer(spec, p, index)
    if spec.reuses_weights(index):  # HRM-Text: a later pass of a stack layer, its weights the first pass's
        return []
    tensors: list[Tensor] = []
    norm_names = ("attn_norm", "ffn_norm", "post_attention_norm", "post_ffw_norm")[: spec.norms_per_layer]
    for name in norm_names:
        tensors += _norm(p + name, h, spec.norm)
    if spec.sub_norms:  # BitNetAttention.attn_sub_norm, BitNetMLP.ffn_sub_norm (llama.cpp names them alike)
        tensors += _norm(p + "attn_sub_norm", h, spec.norm) + _norm(p + "ffn_sub_norm", spec.ffn, spec.norm)
    for name in ("attn_norm", "ffn_norm")[:1 + spec.layer_is_moe(index)] if spec.gated_norm else ():
        tensors += (_linear(f"{p}{name}_gate_a", spec.gated_norm, h, Role.NORM)
                    + _linear(f"{p}{name}_gate_b", h, spec.gated_norm, Role.NORM))
    kind = spec.kinds[index]
    if spec.block is Block.GPT2:
        # BigBird's use_bias false: q, k and v without one (every other GPT-2 block's have one)
        tensors += _linear(p + "attn_qkv", 3 * h, h, Role.ATTENTION, bias=spec.qkv_bias or spec.encoder is None)
        tensors += _linear(p + "attn_output", h, h, Role.ATTENTION, bias=True)
        if spec.encoder is not None and spec.encoder.position_projections:  # DeBERTa-v2's pos_key_proj, pos_query_proj
            tensors += _linear(p + "attn_pos", spec.encoder.position_projections * h, h, Role.ATTENTION, bias=True)
        languages, bottleneck, norm = spec.encoder.adapters if spec.encoder is not None else (0, 0, False)
        for lang in range(languages):  # X-MOD's adapter_modules, one a language
            tensors += (_linear(f"{p}adapter.{lang}.down", bottleneck, h, Role.MLP, bias=True)
                        + _linear(f"{p}adapter.{lang}.up", h, bottleneck, Role.MLP, bias=True))
        tensors += _norm(p + "adapter_norm", h, Norm.LAYER) if norm else []
    elif kind is AttentionKind.LINEAR:
        tensors += _linear_attention(spec, p)
    elif kind is AttentionKind.MAMBA:
        tensors += _mamba(spec, p)
    elif kind is AttentionKind.CONV:
        tensors += _short_conv(spec, p)
    elif kind is AttentionKind.NONE:
        pass
    elif spec.mla is not None:
        tensors += _mla(spec, p, index)
    elif spec.compressed is not None:
        tensors += _compressed(spec, spec.compressed, p, index)
    elif spec.cca is not None:
        tensors += _cca(spec, spec.cca, p, index)
    else:
        tensors += _attention(spec, p, kind, reuses_kv=index >= spec.layers - spec.reusing_layers)
        if spec.indexer is not None and index not in spec.indexer.shared:  # MiniMaxM3VLIndexer: q, k, their norms
            ix = spec.indexer
            tensors += [*_linear(p + "indexer.attn_q", ix.heads * ix.head_dim, h, Role.ATTENTION),
                        *_linear(p + "indexer.attn_k", ix.head_dim, h, Role.ATTENTION),
                        Tensor(p + "indexer.q_norm.weight", (ix.head_dim,), Role.NORM),
                        Tensor(p + "indexer.k_norm.weight", (ix.head_dim,), Role.NORM)]
    if spec.inkling is not None:
        tensors += _inkling(spec, spec.inkling, p, kind, index)
    if spec.parallel_mamba:  # Falcon-H1: a Mamba mixer beside the attention
        tensors += _mamba(spec, p)
    if not spec.layer_has_mlp(kind):
        pass
    else:  # Gemma 4 (use_double_wide_mlp): the dense MLP of a layer reusing K/V is twice as wide, experts or not
        wide = 2 if spec.double_wide_shared_mlp and index >= spec.layers - spec.reusing_layers else 1
        tensors += _moe(spec, p, wide) if spec.layer_is_moe(index) else _dense_mlp(spec, p, wide * spec.ffn)
    if spec.per_layer_input:  # Gemma 3n/4: the per-layer input's gate, projection and norm
        tensors += (_linear(p + "inp_gate", spec.per_layer_input, h, Role.ATTENTION)
                    + _linear(p + "proj", h, spec.per_layer_input, Role.ATTENTION)
                    + _norm(p + "post_norm", h, spec.norm))
    if spec.altup_inputs:  # Gemma3nTextAltUp: correction and prediction coefficients, the modality router, its norm
        n = spec.altup_inputs
        tensors += [Tensor(p + "altup_correct_coef.weight", (n, n), Role.NORM),
                    Tensor(p + "altup_correct_scale.weight", (h,), Role.NORM),
                    Tensor(p + "altup_predict_coef.weight", (n * n, n), Role.NORM),
                    Tensor(p + "altup_router.weight", (n, h), Role.ATTENTION),
                    *_norm(p + "altup_router_norm", h, spec.norm)]
    if spec.laurel_rank:  # Gemma3nTextLaurelBlock: linear_left, linear_right, post_laurel_norm
        tensors += (_linear(p + "laurel_l", spec.laurel_rank, h, Role.ATTENTION)
                    + _linear(p + "laurel_r", h, spec.laurel_rank, Role.ATTENTION)
                    + _norm(p + "laurel_post_norm", h, spec.norm))
    for name in ("hc_attn", "hc_ffn") if spec.hyper else ():  # HYV4HyperConnection: pre and post mixes, 2 scales
        n, comb = spec.hyper, spec.hyper_comb  # Glm5NextTextHyperConnection: a comb of n × n and its scale too
        tensors += [Tensor(f"{p}{name}_fn.weight", ((2 + comb * n) * n, n * h), Role.NORM),
                    Tensor(f"{p}{name}_base.weight", ((2 + comb * n) * n,), Role.NORM),
                    Tensor(f"{p}{name}_scale.weight", (2 + comb,), Role.NORM)]
    if spec.ple and index in spec.ple.layers:  # Qwen4ExpTextPLELayer
        ple, w = spec.ple, spec.gated_residual[0] * h
        tensors += [Tensor(p + "ple_embd.weight", (ple.rows[ple.layers.index(index)], ple.width // ple.heads),
                           Role.EMBEDDING), *_linear(p + "ple_key", w, ple.width, Role.ATTENTION),
                    *_linear(p + "ple_value", h, ple.width, Role.ATTENTION),
                    *[Tensor(f"{p}ple_norm_{n}.weight", (w,), Role.NORM) for n in "kqc"],
                    Tensor(p + "ple_conv1d.weight", (w, 1, ple.kernel), Role.ATTENTION)]
    for name in ("hc_attn", "hc_ffn") if spec.gated_residual else ():
        tensors += _gated_residual(spec, p + name)
    if index >= spec.layers - spec.mtp_built:
        tensors += mtp_tensors(spec, p)
    return tensors


def _gated_residual(spec: ModelSpec, name: str, *, inject: bool = True) -> list[Tensor]:
    """Qwen4ExpTextGatedResidual: hc_norm over the n streams, input_mix_weight_down and _up (rank r), and
    block_inject_weight (n outputs) where it injects the block's output back."""
    n, r = spec.gated_residual
    w = n * spec.hidden
    return ([Tensor(name + "_norm.weight", (w,), Role.NORM), *_linear(name + "_down", r, w, Role.NORM),
             *_linear(name + "_up", w, r, Role.NORM)] + (_linear(name + "_inject", n, w, Role.NORM) if inject else []))


def _shared_block_layer(spec: ModelSpec, p: str, index: int) -> list[Tensor]:
    """A Zamba2 layer (Zamba2MambaDecoderLayer, Zamba2HybridLayer): the mixer's norm and the Mamba-2 mixer; on a
    hybrid layer the linear after the shared block, the block's own weights on its first use (q, k, v from the
    2h-wide norm over the input and the embeddings, o back to h, a norm, the gated MLP) and this use's adapters
    (gate_up's h -> rank -> 2I; q's, k's and v's 2h -> rank -> 2h)."""
    block, h = spec.shared_block, spec.hidden
    assert block is not None
    tensors = _norm(p + "ssm_in_norm", h, spec.norm) + _mamba(spec, p)
    if spec.kinds[index] is not AttentionKind.FULL:
        return tensors
    r, wide, n = block.rank, block.width, spec.shared_block_adapters(index)
    tensors += _linear(p + "shared_out", h, h, Role.ATTENTION)
    if not n:  # a later use of a tied block: its weights and adapters are the first use's
        return tensors
    q, kv = spec.heads * spec.head_dim, spec.kv_heads * spec.head_dim
    tensors += (_norm(p + "attn_norm", wide, spec.norm) + _linear(p + "attn_q", q, wide, Role.ATTENTION)
                + _linear(p + "attn_k", kv, wide, Role.ATTENTION) + _linear(p + "attn_v", kv, wide, Role.ATTENTION)
                + _linear(p + "attn_output", h, q, Role.ATTENTION) + _norm(p + "ffn_norm", h, spec.norm)
                + _dense_mlp(spec, p, spec.ffn))
    for use in range(n if r else 0):  # the adapters of each use of this block
        tensors += (_linear(f"{p}ffn_gate_up_lora_a.{use}", r, h, Role.MLP)
                    + _linear(f"{p}ffn_gate_up_lora_b.{use}", 2 * spec.ffn, r, Role.MLP))
        for name in ("q", "k", "v") if block.attention_adapters else ():
            tensors += (_linear(f"{p}attn_{name}_lora_a.{use}", r, wide, Role.ATTENTION)
                        + _linear(f"{p}attn_{name}_lora_b.{use}", wide, r, Role.ATTENTION))
    return tensors


def mtp_tensors(spec: ModelSpec, p: str) -> list[Tensor]:
    """What a multi-token-prediction layer holds beside its decoder layer, by llama.cpp's names (src/models/
    glm4-moe.cpp, deepseek2.cpp, qwen35moe.cpp: LLM_TENSOR_NEXTN_*): the norms of the token's embedding and of the
    model's hidden state (DeepSeek-V3's enorm and hnorm; Qwen3.5's pre_fc_norm_embedding and pre_fc_norm_hidden), the
    projection of the two concatenated back to h (eh_proj, h × 2h, no bias; Qwen3.5's fc), the norm before the head
    (shared_head.norm; Qwen3.5's mtp.norm), and, where the engine holds them, the layer's own head and embedding
    (DeepSeek-V3's shared_head.head and embed_tokens, vocab × h each: `mtp_copies`). eh_proj is a plain nn.Linear in
    vLLM (deepseek_mtp.py), neither quantised nor split: the router's role says so."""
    h = spec.hidden
    tensors = [*_norm(p + "nextn.enorm", h, spec.norm), *_norm(p + "nextn.hnorm", h, spec.norm),
               Tensor(p + "nextn.eh_proj.weight", (h, 2 * h), Role.ROUTER),
               *_norm(p + "nextn.shared_head_norm", h, spec.norm)]
    if spec.mtp_copies:
        tensors += [Tensor(p + "nextn.embed_tokens.weight", (spec.vocab, h), Role.EMBEDDING),
                    Tensor(p + "nextn.shared_head_head.weight", (spec.vocab, h), Role.HEAD)]
    return tensors


def _attention(spec: ModelSpec, p: str, kind: AttentionKind, *, reuses_kv: bool = False) -> list[Tensor]:
    """q, k, v and the output projection, their norms, sinks and gates. A layer that reuses an earlier layer's K/V
    (Gemma 3n/4's last num_kv_shared_layers: Gemma3nTextAttention, Gemma4TextAttention) has no k/v weights."""
    head_dim, v_dim, heads = spec.head_dim_of(kind), spec.v_dim_of(kind), spec.heads_of(kind)
    h, q, kv = spec.hidden, heads * head_dim, spec.kv_heads_of(kind) * head_dim
    gate = 2 if spec.attention_gate and not spec.gate_apart else 1
    if spec.moa and spec.moe:  # JetMoeMoA: q and o per expert, its router, a bias on its output; kv_proj
        e = spec.moe.experts
        return [Tensor(p + "attn_q_exps.weight", (e, kv, h), Role.EXPERT),
                *_linear(p + "attn_kv", 2 * kv, h, Role.ATTENTION), Tensor(p + "attn_output_exps.weight", (e, h, kv),
                                                                             Role.EXPERT),
                *_linear(p + "attn_gate_inp", e, h, Role.ROUTER), Tensor(p + "attn_output.bias", (h,), Role.BIAS)]
    tensors = (
        _linear(p + "attn_q", gate * q, h, Role.ATTENTION, spec.qkv_bias)
        + ([] if reuses_kv else _linear(p + "attn_k", kv, h, Role.ATTENTION, spec.qkv_bias))
        + ([] if reuses_kv or (spec.full_k_eq_v and kind is AttentionKind.FULL)  # Gemma 4: the keys are the values
           else _linear(p + "attn_v", spec.kv_heads_of(kind) * v_dim, h, Role.ATTENTION, spec.qkv_bias))
        + _linear(p + "attn_output", h, heads * v_dim, Role.ATTENTION, spec.o_bias)
    )
    if spec.qk_norm is QkNorm.HEAD:  # of the model's norm kind: Persimmon's LayerNorms, NanoChat's weightless ones
        tensors += _norm(p + "attn_q_norm", head_dim, spec.norm)
        if not reuses_kv:
            tensors += _norm(p + "attn_k_norm", head_dim, spec.norm)
    elif spec.qk_norm is QkNorm.PER_HEAD:  # a LayerNorm(head_dim, bias=False) for each head
        tensors += [Tensor(p + "attn_q_norm.weight", (q,), Role.NORM),
                    Tensor(p + "attn_k_norm.weight", (kv,), Role.NORM)]
    elif spec.qk_norm is QkNorm.FULL:
        tensors += [*_norm(p + "attn_q_norm", q, spec.norm), *_norm(p + "attn_k_norm", kv, spec.norm)]
    if kind is AttentionKind.CROSS:  # MllamaTextCrossAttention's q_norm and k_norm, the layer's two tanh gates
        tensors += [*_norm(p + "cross_attn_q_norm", head_dim, spec.norm), *_norm(p + "cross_attn_k_norm", head_dim,
                                                                                  spec.norm),
                    Tensor(p + "cross_attn_attn_gate", (1,), Role.NORM), Tensor(p + "cross_attn_mlp_gate", (1,),
                                                                                Role.NORM)]
    if spec.sinks or (spec.sliding_sinks and kind is AttentionKind.SLIDING):
        tensors.append(Tensor(p + "attn_sinks.weight", (heads,), Role.NORM))
    if spec.head_gate:  # Lfm3Attention.g_proj, Step3p7Attention.g_proj: a gate per head from the layer's input
        tensors += _linear(p + "attn_gate", heads, spec.hidden, Role.ATTENTION)
    if spec.gate_apart:  # AfmoeAttention.gate_proj: an output gate per channel, no bias
        tensors += _linear(p + "attn_gate", q, h, Role.ATTENTION)
    if spec.dynamic_mask:  # DogeAttention.A and dt_proj; DogeDecoderLayer's input_residual, post_attention_residual
        tensors += [Tensor(p + "attn_dt_a", (spec.kv_heads_of(kind),), Role.NORM),
                    *_linear(p + "attn_dt", spec.kv_heads_of(kind), kv, Role.ATTENTION, spec.qkv_bias),
                    Tensor(p + "attn_residual.weight", (h,), Role.NORM), Tensor(p + "ffn_residual.weight", (h,),
                                                                                Role.NORM)]
    if spec.diff_lambdas:  # DiffLlamaAttention: the differential attention's four learned vectors
        tensors += [Tensor(f"{p}attn_lambda_{name}", (head_dim,), Role.NORM) for name in ("q1", "k1", "q2", "k2")]
    if spec.gate_bias:  # BeamAttention.gate_bias (one per head, broadcast over head_dim), HrmTextAttention's
        tensors.append(Tensor(p + "attn_gate.bias", (heads * spec.gate_bias,), Role.BIAS))
    return tensors


def _cca(spec: ModelSpec, cca: Cca, p: str, index: int) -> list[Tensor]:
    """ZayaAttention: ZayaCCAProjection's q and k, the two value halves (v_proj_current, v_proj_delayed), the
    depthwise convolution over q and k (time0 taps a channel) and the grouped one (a group per q and k head, head_dim
    inputs, time1 taps), both with biases; ZayaQKNorm's key scale per KV head; o_proj. Then what ZAYA adds around the
    block: the two ZayaResidualScaling (a scale and bias on the block's output and on the residual each), and, past
    the first layer, ZayaRouter.router_states_scale over the state the previous layer's router passes on."""
    h, bias, d = spec.hidden, spec.qkv_bias, spec.head_dim
    q, kv, half = spec.q_dim, spec.kv_dim, spec.kv_dim // 2
    width = q + kv
    tensors = [*_linear(p + "attn_q", q, h, Role.ATTENTION, bias), *_linear(p + "attn_k", kv, h, Role.ATTENTION, bias),
               *_linear(p + "attn_v", half, h, Role.ATTENTION, bias),
               *_linear(p + "attn_v_prev", half, h, Role.ATTENTION, bias),
               Tensor(p + "cca_conv_dw.weight", (width, 1, cca.time0), Role.ATTENTION),
               Tensor(p + "cca_conv_dw.bias", (width,), Role.BIAS),
               Tensor(p + "cca_conv_gr.weight", (width, d, cca.time1), Role.ATTENTION),
               Tensor(p + "cca_conv_gr.bias", (width,), Role.BIAS),
               Tensor(p + "attn_k_temp.weight", (spec.kv_heads,), Role.NORM),
               *_linear(p + "attn_output", h, q, Role.ATTENTION, spec.o_bias)]
    for name in ("attn_res", "ffn_res"):
        tensors += [Tensor(f"{p}{name}_{part}", (h,), Role.NORM) for part in ("hs_scale", "hs_bias", "scale", "bias")]
    if index and spec.layer_is_moe(index):
        tensors.append(Tensor(p + "ffn_router_states_scale", (cca.router,), Role.ROUTER))
    return tensors


def _inkling(spec: ModelSpec, ink: Inkling, p: str, kind: AttentionKind, index: int) -> list[Tensor]:
    """What InklingAttention and InklingDecoderLayer add to q, k, v, o and the q/k norms: r_proj (d_rel per head),
    the relative-logits table (d_rel × the layer kind's extent), the four depthwise convolutions (k_sconv, v_sconv,
    attn_sconv, mlp_sconv: no bias), and a dense layer's InklingMLP.global_scale."""
    h, heads, kv = spec.hidden, spec.heads_of(kind), spec.kv_heads_of(kind) * spec.head_dim_of(kind)
    extent = spec.sliding_window if kind is AttentionKind.SLIDING else ink.rel_extent
    tensors = [*_linear(p + "attn_rel", heads * ink.d_rel, h, Role.ATTENTION),
               Tensor(p + "attn_rel_logits", (ink.d_rel, extent), Role.NORM)]
    for name, width in (("attn_k_conv", kv), ("attn_v_conv", kv), ("attn_out_conv", h), ("ffn_out_conv", h)):
        tensors.append(Tensor(f"{p}{name}.weight", (width, 1, ink.kernel), Role.ATTENTION))
    if not spec.layer_is_moe(index):
        tensors.append(Tensor(p + "ffn_scale", (1,), Role.NORM))
    if ink.two:  # Inkling2*Attention, Inkling2*DecoderLayer (its gate_proj: attention_gate, gate_apart)
        full = kind is AttentionKind.FULL
        tensors += [*_linear(p + "attn_sink", heads, h, Role.ATTENTION),
                    Tensor(p + "attn_q_scale", (heads * (spec.head_dim_of(kind) + ink.d_rel),), Role.NORM),
                    Tensor(p + "res_query", ((((3 if full else 1) if index else 0) + 1) * h,), Role.NORM)]
        if full:  # k and v input norms; Inkling2DynamicShortConvolution.weight_proj
            tensors += [Tensor(p + "attn_kv_norm", (2 * h,), Role.NORM),
                        *_linear(p + "attn_kv_taps", 2 * spec.kv_heads_of(kind) * ink.kernel, h, Role.ATTENTION)]
    return tensors


def reused_kv_params(spec: ModelSpec) -> int:
    """The k/v weights (and k norms) the layers reusing an earlier layer's K/V would have: the checkpoints of Gemma
    3n/4 carry them and llama.cpp loads them, transformers builds none."""
    total = 0
    for index in range(spec.layers - spec.reusing_layers, spec.layers):
        kind = spec.kinds[index]
        built = {t.name for t in _attention(spec, "", kind, reuses_kv=True)}
        total += sum(t.numel for t in _attention(spec, "", kind) if t.name not in built)
    return total


def fp32_kept_params(spec: ModelSpec) -> int:
    """Hy4's parameters transformers holds in fp32 whatever the dtype (HYV4ForCausalLM._keep_in_fp32_modules_strict:
    lm_head, the hyper-connections' fn, base and scale, sinks, the indexer's weights_proj and k_norm)."""
    kept = ("hc_", "attn_sinks", "indexer.proj", "indexer.k_norm")
    return sum(t.numel for t in model_tensors(spec) if t.name == "output.weight" or any(k in t.name for k in kept)
               ) if spec.hyper and not spec.hyper_comb else 0


def _mla(spec: ModelSpec, p: str, index: int) -> list[Tensor]:
    """DeepSeek-V2/V3 attention: q through a low-rank pair (or directly), K/V from a latent."""
    kind = spec.kinds[index]
    mla, h, a = spec.mla_of(kind), spec.hidden, spec.heads_of(kind)
    q_width = a * (mla.qk_nope_head_dim + mla.qk_rope_head_dim)
    rope = 0 if index in spec.nope_layers else mla.qk_rope_head_dim  # MistralLarge4TextAttention: no RoPE, no k_rot
    bias = spec.qkv_bias  # DeepSeek's attention_bias: on q_a, kv_a and the output projection
    if mla.q_lora_rank:  # AXK2Attention.q_gate_proj: q and a gate per value channel from q_a's input and output
        gate = spec.attention_gate and not spec.gate_apart  # Hy4's gate is a projection of its own
        tensors = [*_linear(p + "attn_q_a", mla.q_lora_rank, h, Role.ATTENTION, bias),
                   Tensor(p + "attn_q_a_norm.weight", (mla.q_lora_rank,), Role.NORM),
                   *_linear(p + "attn_q_b", q_width + gate * a * mla.v_head_dim, (1 + gate) * mla.q_lora_rank,
                            Role.ATTENTION)]
    else:
        tensors = _linear(p + "attn_q", q_width, h, Role.ATTENTION)
    tensors = [
        *tensors,
        *_linear(p + "attn_kv_a_mqa", mla.kv_lora_rank + rope, h, Role.ATTENTION, bias),
        Tensor(p + "attn_kv_a_norm.weight", (mla.kv_lora_rank,), Role.NORM),
        *_linear(p + "attn_kv_b", a * (q_width // a - rope + mla.v_head_dim), mla.kv_lora_rank, Role.ATTENTION),
        *_linear(p + "attn_output", h, a * mla.v_head_dim, Role.ATTENTION, bias),
    ]
    if spec.head_gate:  # BailingHybridAttention.g_proj: a gate per head from the layer's input
        tensors += _linear(p + "attn_gate", a, h, Role.ATTENTION)
    if spec.rope_norm:
        tensors.append(Tensor(p + "attn_k_rope_norm.weight", (rope,), Role.NORM))
    if spec.gate_apart:  # HYV4Attention: gate_proj, a sigmoid gate per value channel, and a sink per head
        tensors += _linear(p + "attn_gate", a * mla.v_head_dim, h, Role.ATTENTION)
    if spec.sinks:
        tensors.append(Tensor(p + "attn_sinks.weight", (a,), Role.NORM))
    # DeepseekV32Indexer: wq_b from the q latent, wk, a LayerNorm, weights_proj (none on GLM-5.2's shared layers)
    if spec.softmax_scaling:  # MistralLarge4TextSoftmaxScaling: a scale and a bias per head
        tensors += [Tensor(p + "attn_softmax_scale", (a,), Role.NORM), Tensor(p + "attn_softmax_bias", (a,), Role.NORM)]
    if spec.indexer is not None and index not in spec.indexer.shared:
        ix = spec.indexer
        tensors += [*_linear(p + "indexer.attn_q_b", ix.heads * ix.head_dim, mla.q_lora_rank or h, Role.ATTENTION),
                    *_linear(p + "indexer.attn_k", ix.head_dim, h, Role.ATTENTION),
                    *_norm(p + "indexer.k_norm", ix.head_dim, Norm.LAYER),
                    *_linear(p + "indexer.proj", ix.heads, h, Role.ATTENTION)]
        if ix.kpool:  # Glm5NextTextIndexer: index_kpool_compress_ape and _gate
            tensors += [Tensor(p + "indexer.pool_ape", (ix.kpool, ix.head_dim), Role.NORM),
                        *_linear(p + "indexer.pool_gate", ix.head_dim, h, Role.ATTENTION)]
        if spec.softmax_scaling:  # MistralLarge4TextIndexer: q_input_norm (a LayerNorm over h), its softmax scaling
            tensors += [*_norm(p + "indexer.q_input_norm", h, Norm.LAYER),
                        Tensor(p + "indexer.softmax_scale", (ix.heads,), Role.NORM),
                        Tensor(p + "indexer.softmax_bias", (ix.heads,), Role.NORM)]
    return tensors


def _compressed(spec: ModelSpec, c: Compressed, p: str, index: int) -> list[Tensor]:
    """DeepseekV4Attention: q_a, its norm and q_b; kv_proj to one head and its norm; the grouped o_a (each group of
    heads to o_lora_rank) and o_b; a sink per head. A CSA layer's compressor (DeepseekV4CSACompressor): kv and gate
    to two heads' width, a position bias per window slot, a norm, and its indexer, the same at index_head_dim with
    q_b from the q latent and a weight per index head; an HCA layer's (DeepseekV4HCACompressor): one head's width.
    Both hyper-connections of the layer (attn_hc, ffn_hc): fn, base and the three scales."""
    h, d, a, n = spec.hidden, spec.head_dim, spec.heads, c.hc_mult
    tensors = [*_linear(p + "attn_q_a", c.q_lora_rank, h, Role.ATTENTION),
               Tensor(p + "attn_q_a_norm.weight", (c.q_lora_rank,), Role.NORM),
               *_linear(p + "attn_q_b", a * d, c.q_lora_rank, Role.ATTENTION),
               *_linear(p + "attn_kv", d, h, Role.ATTENTION), Tensor(p + "attn_kv_a_norm.weight", (d,), Role.NORM),
               *_linear(p + "attn_output_a", c.o_groups * c.o_lora_rank, a * d // c.o_groups, Role.ATTENTION),
               *_linear(p + "attn_output_b", h, c.o_groups * c.o_lora_rank, Role.ATTENTION),
               Tensor(p + "attn_sinks.weight", (a,), Role.NORM)]
    kind = c.types[index]
    if kind:
        rate, wide = c.rates[kind - 1], 2 * d if kind == 1 else d
        tensors += [*_linear(p + "attn_compressor_kv", wide, h, Role.ATTENTION),
                    *_linear(p + "attn_compressor_gate", wide, h, Role.ATTENTION),
                    Tensor(p + "attn_compressor_ape.weight", (rate, wide), Role.NORM),
                    Tensor(p + "attn_compressor_norm.weight", (d,), Role.NORM)]
    if kind == 1:
        i = c.index_head_dim
        tensors += [*_linear(p + "indexer_compressor_kv", 2 * i, h, Role.ATTENTION),
                    *_linear(p + "indexer_compressor_gate", 2 * i, h, Role.ATTENTION),
                    Tensor(p + "indexer_compressor_ape.weight", (c.rates[0], 2 * i), Role.NORM),
                    Tensor(p + "indexer_compressor_norm.weight", (i,), Role.NORM),
                    *_linear(p + "indexer.attn_q_b", c.index_heads * i, c.q_lora_rank, Role.ATTENTION),
                    *_linear(p + "indexer.proj", c.index_heads, h, Role.ATTENTION)]
    for name in ("hc_attn", "hc_ffn"):
        tensors += [Tensor(f"{p}{name}_fn.weight", ((2 + n) * n, n * h), Role.NORM),
                    Tensor(f"{p}{name}_base.weight", ((2 + n) * n,), Role.NORM),
                    Tensor(f"{p}{name}_scale.weight", (3,), Role.NORM)]
    return tensors


def _linear_attention(spec: ModelSpec, p: str) -> list[Tensor]:
    """Qwen3-Next Gated DeltaNet: in_proj_qkvz, in_proj_ba, a depthwise conv, per-head
    decay parameters, a gated RMSNorm of the value head width and the output projection."""
    if spec.linear is not None and spec.linear.kda:
        return _kimi_delta_attention(spec, p)
    lin, h = spec.linear, spec.hidden
    assert lin is not None  # a LINEAR layer exists only with a LinearAttention spec (hf_config._read_layers)
    if lin.lightning:  # MiniMaxLightningAttention: qkv_proj, output_gate, norm over all heads, out_proj; no biases
        width = lin.value_heads * lin.value_head_dim
        return (_linear(p + "attn_qkv", 3 * width, h, Role.ATTENTION)
                + _linear(p + "attn_gate", width, h, Role.ATTENTION)
                + [Tensor(p + "attn_norm_out.weight", (width,), Role.NORM)]
                + _linear(p + "attn_output", h, width, Role.ATTENTION))
    key, value = lin.key_heads * lin.key_head_dim, lin.value_heads * lin.value_head_dim
    if lin.rwkv:  # RwkvSelfAttention: key, value, receptance, output, time_decay, time_first and three time_mix of h;
        # RwkvFeedForward's receptance and two time_mix (its key and value are the MLP's up and down)
        kvr = [t for n in ("key", "value", "receptance") for t in _linear(f"{p}time_mix_{n}", value, h, Role.ATTENTION)]
        return (kvr + _linear(p + "time_mix_output", h, value, Role.ATTENTION)
                + [Tensor(p + f"time_mix_{n}", (value,), Role.NORM) for n in ("decay", "first")]
                + [Tensor(p + f"time_mix_lerp_{n}", (h,), Role.NORM) for n in ("k", "v", "r")]
                + _linear(p + "channel_mix_receptance", h, h, Role.MLP)
                + [Tensor(p + f"channel_mix_lerp_{n}", (h,), Role.NORM) for n in ("k", "r")])
    if lin.griffin:  # RecurrentGemmaRecurrentBlock: linear_y, linear_x, conv_1d, RG-LRU's gates per head, linear_out
        n, b, a = lin.value_heads, lin.value_head_dim, Role.ATTENTION
        return (_linear(p + "ssm_y", value, h, a, True) + _linear(p + "ssm_x", value, h, a, True)
                + [Tensor(p + "ssm_conv1d.weight", (value, 1, lin.conv_kernel), a),
                   Tensor(p + "ssm_conv1d.bias", (value,), Role.BIAS), Tensor(p + "ssm_a", (value,), Role.NORM)]
                + [Tensor(f"{p}ssm_gate_{g}.{w}", (n, b, b)[:3 - i], (a, Role.BIAS)[i])
                   for g in "xa" for i, w in ((0, "weight"), (1, "bias"))]
                + _linear(p + "ssm_out", h, value, a, True))
    return (
        _linear(p + "attn_qkvz", 2 * key + 2 * value, h, Role.ATTENTION)
        + _linear(p + "attn_ba", 2 * lin.value_heads, h, Role.ATTENTION)
        + [Tensor(p + "ssm_conv1d.weight", (lin.conv_dim, 1, lin.conv_kernel), Role.ATTENTION),
           Tensor(p + "ssm_dt.bias", (lin.value_heads,), Role.NORM),
           Tensor(p + "ssm_a", (lin.value_heads,), Role.NORM),
           Tensor(p + "ssm_norm.weight", (lin.value_head_dim,), Role.NORM)]
        + _linear(p + "ssm_out", h, value, Role.ATTENTION)
    )


def _kimi_delta_attention(spec: ModelSpec, p: str) -> list[Tensor]:
    """Kimi Delta Attention (KimiLinearDeltaAttention): q, k and v of heads × d; one depthwise conv1d over the
    three; the forget gate (f_a h -> d, f_b d -> heads·d, dt_bias per channel, A_log per head); b per head; the
    output gate (g_a h -> d, g_b d -> heads·d); the gated RMSNorm over d; o_proj."""
    lin, h = spec.linear, spec.hidden
    assert lin is not None
    width, d = lin.value_heads * lin.value_head_dim, lin.value_head_dim
    if lin.full_rank_gates:  # bailing_hybrid: f_proj and g_proj, h -> heads·d each
        gates = [*_linear(p + "ssm_f", width, h, Role.ATTENTION), *_linear(p + "ssm_g", width, h, Role.ATTENTION)]
    else:
        gates = [*_linear(p + "ssm_f_a", d, h, Role.ATTENTION), *_linear(p + "ssm_f_b", width, d, Role.ATTENTION),
                 *_linear(p + "ssm_g_a", d, h, Role.ATTENTION), *_linear(p + "ssm_g_b", width, d, Role.ATTENTION)]
    return [
        *_linear(p + "attn_q", width, h, Role.ATTENTION), *_linear(p + "attn_k", width, h, Role.ATTENTION),
        *_linear(p + "attn_v", width, h, Role.ATTENTION),
        Tensor(p + "ssm_conv1d.weight", (lin.conv_dim, 1, lin.conv_kernel), Role.ATTENTION), *gates,
        Tensor(p + "ssm_dt.bias", (width,), Role.NORM), Tensor(p + "ssm_a", (lin.value_heads,), Role.NORM),
        *_linear(p + "ssm_beta", lin.value_heads, h, Role.ATTENTION),
        Tensor(p + "ssm_norm.weight", (d,), Role.NORM),
        *_linear(p + "attn_output", h, width, Role.ATTENTION),
    ]


def _mamba(spec: ModelSpec, p: str) -> list[Tensor]:
    """A Mamba-2 mixer (transformers' NemotronHMamba2Mixer, BambaMixer): in_proj to the gate z, the convolved
    x, B and C, and dt (inner + conv_dim + heads); the depthwise conv1d; dt_bias, A_log and D per head; the gated
    RMSNorm over the inner width; out_proj. Names as llama.cpp's GGUF files give them."""
    m, h = spec.mamba, spec.hidden
    assert m is not None  # a MAMBA layer exists only with a Mamba spec (hf_config._read_layers)
    conv = [Tensor(p + "ssm_conv1d.weight", (m.conv_dim, 1, m.conv_kernel), Role.ATTENTION)]
    if m.conv_bias:
        conv.append(Tensor(p + "ssm_conv1d.bias", (m.conv_dim,), Role.BIAS))
    if m.version == 1:  # MambaMixer, JambaMambaMixer: in_proj to x and z; x_proj to dt, B, C; dt_proj; A; D
        norms = [Tensor(p + "ssm_dt_norm.weight", (m.dt_rank,), Role.NORM),
                 Tensor(p + "ssm_b_norm.weight", (m.state,), Role.NORM),
                 Tensor(p + "ssm_c_norm.weight", (m.state,), Role.NORM)] if m.bc_dt_norms else []
        return (_linear(p + "ssm_in", 2 * m.inner, h, Role.ATTENTION, m.proj_bias) + conv
                + _linear(p + "ssm_x", m.dt_rank + 2 * m.state, m.inner, Role.ATTENTION)
                + _linear(p + "ssm_dt", m.inner, m.dt_rank, Role.ATTENTION, bias=True)
                + [Tensor(p + "ssm_a", (m.inner, m.state), Role.NORM), Tensor(p + "ssm_d", (m.inner,), Role.NORM)]
                + norms + _linear(p + "ssm_out", h, m.inner, Role.ATTENTION, m.proj_bias))
    return (
        _linear(p + "ssm_in", m.inner + m.conv_dim + m.heads, h, Role.ATTENTION, m.proj_bias)
        + conv
        + [Tensor(p + "ssm_dt.bias", (m.heads,), Role.NORM), Tensor(p + "ssm_a", (m.heads,), Role.NORM),
           Tensor(p + "ssm_d", (m.heads,), Role.NORM)]
        + ([Tensor(p + "ssm_norm.weight", (m.inner,), Role.NORM)] if m.norm else [])
        + _linear(p + "ssm_out", h, m.inner, Role.ATTENTION, m.proj_bias if m.out_bias is None else m.out_bias)
    )


def _short_conv(spec: ModelSpec, p: str) -> list[Tensor]:
    """LFM2's short convolution (Lfm2ShortConv): in_proj h -> 3h, a depthwise conv1d of conv_L_cache taps,
    out_proj h -> h; a bias on each with conv_bias. Names as llama.cpp's GGUF files give them."""
    c, h = spec.short_conv, spec.hidden
    assert c is not None  # a CONV layer exists only with a ShortConv spec (hf_config._read_layers)
    conv = [Tensor(p + "shortconv.conv.weight", (h, 1, c.kernel), Role.ATTENTION)]
    if c.bias:
        conv.append(Tensor(p + "shortconv.conv.bias", (h,), Role.BIAS))
    return (_linear(p + "shortconv.in_proj", 3 * h, h, Role.ATTENTION, c.bias) + conv
            + _linear(p + "shortconv.out_proj", h, h, Role.ATTENTION, c.bias))


def _dense_mlp(spec: ModelSpec, p: str, width: int, suffix: str = "", role: Role = Role.MLP) -> list[Tensor]:
    h, bias = spec.hidden, spec.mlp_bias or spec.block is Block.GPT2
    down = bias if spec.down_bias is None else spec.down_bias
    if spec.block is Block.GPT2 or not spec.gated_mlp:
        activation = [Tensor(f"{p}ffn_act.{i}", (1,), Role.NORM) for i in range(spec.activation_params)]
        return (_linear(f"{p}ffn_up{suffix}", width, h, role, bias)
                + _linear(f"{p}ffn_down{suffix}", h, width, role, down) + activation)
    return (
        _linear(f"{p}ffn_gate{suffix}", width, h, role, spec.mlp_bias)
        + _linear(f"{p}ffn_up{suffix}", width, h, role, spec.mlp_bias)
        + _linear(f"{p}ffn_down{suffix}", h, width, role, down)
    )


def _moe(spec: ModelSpec, p: str, wide: int = 1) -> list[Tensor]:
    """Router, routed experts (stacked), and the shared expert(s) with their optional gate (Gemma 4's dense MLP
    beside the experts `wide` times as wide)."""
    moe, h = spec.moe, spec.hidden
    assert moe is not None  # layer_is_moe holds only when the spec has experts
    e, i = moe.experts, moe.ffn
    z = e + moe.zero_experts  # router rows; the gate/up slots too where the engine holds them
    slots = z if moe.zero_slots else e
    if spec.cca is not None:  # ZayaRouter: down_proj to the router's width, an RMSNorm, two biased h -> h layers
        r = spec.cca.router  # of that width (ZayaRouterMLP), and out_proj to the experts and one skip expert
        tensors = [*_linear(p + "ffn_router_down", r, h, Role.ROUTER, bias=True),
                   Tensor(p + "ffn_router_norm.weight", (r,), Role.ROUTER),
                   *_linear(p + "ffn_router_fc1", r, r, Role.ROUTER, bias=True),
                   *_linear(p + "ffn_router_fc2", r, r, Role.ROUTER, bias=True),
                   *_linear(p + "ffn_gate_inp", z + 1, r, Role.ROUTER)]
    elif spec.inkling is not None and not spec.inkling.two:  # InklingTopkRouter: shared experts' rows, a global scale
        tensors = [*_linear(p + "ffn_gate_inp", z + spec.inkling.shared, h, Role.ROUTER),
                   Tensor(p + "ffn_gate_inp.scale", (1,), Role.ROUTER)]
    else:  # DogeCDMoE.router_gate: two sets of √experts product keys
        tensors = _linear(p + "ffn_gate_inp", 2 * math.isqrt(e) if moe.product_keys else z, h, Role.ROUTER,
                          moe.router_bias)
    if moe.score_bias:
        tensors.append(Tensor(p + "exp_probs_b.bias", (e,), Role.ROUTER))
    x = moe.latent or h  # the width the experts read and write
    if moe.latent:  # Nemotron 3 Super: fc1_latent_proj h -> latent before the experts, fc2 back after
        tensors += (_linear(p + "ffn_latent_in", moe.latent, h, Role.SHARED_EXPERT, spec.mlp_bias)
                    + _linear(p + "ffn_latent_out", h, moe.latent, Role.SHARED_EXPERT, spec.mlp_bias))
    if moe.gated:
        tensors.append(Tensor(p + "ffn_gate_exps.weight", (slots, i, x), Role.EXPERT))
    tensors += [
        Tensor(p + "ffn_up_exps.weight", (slots, i, x), Role.EXPERT),
        Tensor(p + "ffn_down_exps.weight", (e, x, i), Role.EXPERT),
    ]
    if moe.expert_bias:
        tensors += [
            Tensor(p + "ffn_gate_exps.bias", (e, i), Role.EXPERT),
            Tensor(p + "ffn_up_exps.bias", (e, i), Role.EXPERT),
            Tensor(p + "ffn_down_exps.bias", (e, h), Role.EXPERT),
        ]
    if moe.shared_ffn:
        tensors += _dense_mlp(spec, p, wide * moe.shared_ffn, suffix="_shexp", role=Role.SHARED_EXPERT)
    if moe.shared_gate:
        tensors.append(Tensor(p + "ffn_gate_inp_shexp.weight", (1, h), Role.ROUTER))
    if spec.moa:  # JetMoeMoE.bias
        tensors.append(Tensor(p + "ffn_out.bias", (h,), Role.BIAS))
    if moe.post_norm:
        tensors += _norm(p + "ffn_post_norm", h, spec.norm)
    if moe.beside_dense:  # Gemma4TextRouter's scale and per_expert_scale; the experts' own three norms
        tensors += [Tensor(p + "ffn_gate_inp.scale", (h,), Role.ROUTER), Tensor(p + "exp_probs_s", (e,), Role.ROUTER),
                    *_norm(p + "post_ffw_norm_1", h, spec.norm), *_norm(p + "post_ffw_norm_2", h, spec.norm),
                    *_norm(p + "pre_ffw_norm_2", h, spec.norm)]
    return tensors
