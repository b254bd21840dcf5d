"""An encoder embedder or reranker (BERT, XLM-RoBERTa, ModernBERT): what it has beside the layers that the
decoder's spec does not describe, and how it is used. Its tensors join `outside_tensors`
(decoder/tensors.py), so `param_count` is the model an embedder or a reranker loads."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Encoder:
    family: str  # the config's model_type (bert, xlm-roberta, modernbert, nomic_bert, roberta, electra, distilbert,
    # deberta-v2...); jina-bert-v2(-qk-post-norm); gte (GTE's `new` and `gte`)
    type_vocab: int = 0  # BERT's token_type_embeddings rows (type_vocab_size)
    pooler: bool = False  # BertPooler: a dense h -> h with its bias (AutoModel of BERT and XLM-R)
    labels: int = 0  # a reranker's classifier (AutoModelForSequenceClassification): its outputs; 0: an embedder
    head_dense: bool = False  # the classifier's dense h -> h before it (XLM-R's and ModernBERT's heads)
    head_bias: bool = True  # ... with a bias (ModernBERT: classifier_bias)
    head_norm: int = 0  # ModernBERT's prediction head LayerNorm: 1 weight, 2 with norm_bias
    rotary_rows: int = 0  # GTE's `new` configs, which transformers runs as the hub's remote code (NewModel): the rows
    # of the cos and sin cache it builds at load (max_position_embeddings × the NTK factor); 0: not that code
    embedding: int = 0  # ELECTRA's and DeBERTa-v2's embedding_size when it is not the hidden size: the word,
    # position and token-type tables this wide, then a projection to the hidden size; 0: the hidden size
    projection_bias: bool = False  # ELECTRA's embeddings_project has a bias and its embeddings' LayerNorm is
    # `embedding` wide, before it (DeBERTa-v2's embed_proj has none, its LayerNorm after it, the hidden size wide)
    task_types: int = 0  # ERNIE's task_type_embeddings rows (use_task_id)
    relative: int = 0  # DeBERTa-v2's rel_embeddings rows (relative_attention: 2 × position_buckets or 2 × the span)
    relative_norm: bool = False  # ... and its encoder's LayerNorm over them (norm_rel_ebd layer_norm)
    position_projections: int = 0  # DeBERTa-v2's pos_key_proj and pos_query_proj a layer (without share_att_key)
    conv: tuple[int, int] = (0, 1)  # DeBERTa-v2's ConvLayer (conv_kernel_size, conv_groups); kernel 0: none
    tables: tuple[tuple[int, int], ...] = ()  # more tables (rows, width): RoCBERT's pronunciation and shape,
    # RoFormer's sinusoidal positions (max_position_embeddings × head_dim, a parameter)
    mapping: int = 0  # RoCBERT's map_inputs_layer: its input width (to h, with a bias); 0: none
    adapters: tuple[int, int, bool] = (0, 0, False)  # X-MOD: languages, the adapters' bottleneck, their LayerNorm


def ggml_forward_bytes(h: int, ffn: int, heads: int, *, tokens: int, seqs: int, flash: bool, pooling: str,
                       family: str = "bert", gated: bool = False) -> int:
    """llama.cpp's compute buffer for an encoder's --embedding graph (src/models/bert.cpp at 0c1e57098): ggml-alloc's
    peak over the graph of `tokens` (n_ubatch) tokens and `seqs` sequences, measured to the byte on a CPU build
    (docs/accuracy.md, tests/golden/llamacpp_embedding.json). The inputs stay allocated: token ids, positions and output
    ids (12·n), the pooling's (`pooling` cls or last: the rows' ids, 4·seqs padded to 32; mean: the n × seqs weights,
    4·n·seqs; rank: none at the peak) and the n × n mask (F32; F16 with flash attention). Above them the larger of two
    moments of the first layer, all in F32: attention (the embeddings, the layer's input, Q, K, V and V made contiguous:
    24·n·h, and without flash attention the scores, 4·heads·n²) or the FFN (the embeddings, its input and output:
    12·n·h, and the up projection with its GELU in place: 4·n·ffn; `gated`, the up projection and gate and the
    GLU's own output: 12·n·ffn).

    `family` modernbert: ModernBERT (src/models/modern-bert.cpp), measured the same way. A second n × n mask for the
    sliding-window layers; RANK keeps the rows' ids as CLS does. Attention: the embeddings, their norm (layer 0 has
    none), the fused QKV (12·n·h, Q, K and V are views of it), Q and K rotated and, without flash attention, V made
    contiguous: 32·n·h, then the scores, 4·heads·n², unless they fit in the freed QKV; with flash attention K cast to
    F16 while Q, K and the QKV are alive: 30·n·h. The FFN: the embeddings, the attention's output and a freed n × h,
    12·n·h, the up projection to 2·ffn and the GeGLU's output, 12·n·ffn. Exact while a global layer follows layer 0
    (every checkpoint): with only layer 0 global its mask is freed after it and later tensors may reuse it.

    nomic_bert (bert.cpp's nomic path): ModernBERT's attention (the token embeddings, their norm, the fused QKV, Q
    and K rotated, V made contiguous or K cast to F16) with one mask, and the SwiGLU FFN, up and gate apart and their
    product, 12·n·ffn. jina-bert-v2 (and its qk-post-norm variant): no positions (8·n of ids), BERT's attention with
    the ALiBi slope applied inside the soft-max (no bias tensor), 22·n·h with flash attention (the K cast to F16, not
    V's), and the GEGLU FFN, the fused up of 2·ffn and the product, 12·n·ffn."""
    n = tokens
    modern, jina = family == "modernbert", family.startswith("jina-bert-v2")
    ids = 0 if pooling == "rank" and not modern else -(-4 * seqs // 32) * 32
    pooled = 4 * n * seqs if pooling == "mean" else ids
    inputs = (8 if jina else 12) * n + pooled + (1 + modern) * (2 if flash else 4) * n * n
    kq = 0 if flash else 4 * heads * n * n
    if modern or family == "nomic_bert":
        attention = 30 * n * h if flash else 32 * n * h + (kq if kq > 12 * n * h else 0)
    else:
        attention = (22 if jina and flash else 24) * n * h + kq
    return inputs + max(attention, 12 * n * h + (12 if gated else 4) * n * ffn)


def forward_bytes(h: int, ffn: int, heads: int, head_dim: int, family: str, *, e: int, eager: bool,
                  batch: int, seq: int, gated: bool = True, relative: int = 0, relative_norm: bool = False,
                  wide: int = 0) -> int:
    """The peak above the weights of one encoder forward under no_grad over `batch` unpadded sequences of `seq`
    tokens, `e` bytes per value, as transformers 5.23 allocates it (measured: tools/measure_encoders.py).

    BERT and XLM-R (modeling_bert.py), per token, the largest of three moments of a layer after the first, with
    the embeddings' output and the layer's input alive: attention's q, k and v, its output and the transposed copy
    (SDPA, and its fp32 log-sum-exp per head) or eager's scores and their scaled copy per head (2·a·s); the
    intermediate Linear and its GELU (2·I) beside the attention's output; BertOutput's dense, the residual add and
    the LayerNorm with its two statistics beside the GELU. Eager's probabilities stay alive through the layer.

    ModernBERT (modeling_modernbert.py): the rotary embedding, which works in fp32 (q rotated, k cast, rotated
    half, its negation and a product: 14·h bytes, and the cast when e is not 4) beside the hidden states and the
    fused qkv (6·h); the GeGLU MLP (Wi to 2·I, the GELU and the product: 4·I) beside five hidden states (and
    eager's probabilities); eager's scores in e, their fp32 copy and the fp32 softmax beside q and k cast back, or
    SDPA's call with q and k rotated, its output and the window's mask made additive (s·e per token). The
    sliding-window mask, built once (SDPA: a bool batch × s × s; eager: additive in e), and the cos and sin of both
    layer types.

    nomic-bert as transformers 5 runs it: its own NomicBertModel (models/nomic_bert, which loads the checkpoints
    through conversion_mapping.py; their remote code fails on transformers 5), measured beside that remote code
    (tools/measure_remote_encoders.py, tests/golden/remote_encoders.json, "code"). Per token the larger of
    attention's moment, q, k and v, q and k rotated, SDPA's output and o_proj's beside the embeddings' output, the
    layer's input and its norm (9·h), eager's scores and probabilities (2·a·s) beside 5·h; and the SwiGLU MLP's,
    gate, its SiLU, up and their product (3·I) beside 4·h, with eager's probabilities still held. The rotary cos
    and sin (s × head_dim each, once a forward) and the position ids (int64). (The remote code holds 10·h and 4·I,
    and a table per layer: 16–23 % more. The GELU MLP of rotary_emb_fraction 0, which the class does not build, is
    counted as up and its GELU, 2·I: not measured.) GTE (transformers 5's GteModel, models/gte, which the hub's
    `new` checkpoints load into: jina_embeddings_v3's layer and Gemma's MLP) keeps the same tensors alive, its
    biases aside: measured to the byte, the same formula (tools/measure_gte.py, tests/golden/gte.json, 37
    forwards). JinaBERT v2 runs its own remote code, which keeps the embeddings' output and the extended mask
    (batch × s in e) through the layers, after the first layer the layer's input too; JinaBERT v2
    (jinaai/jina-bert-implementation, rebuilt: the tool says from what): attention as BERT's, q, k, v and with SDPA
    (attn_implementation "torch") its output and fp32 log-sum-exp, and the mask plus the ALiBi slice summed per
    layer, batch × heads × s × s; eager, the scores, the ALiBi added and the softmax (3·a·s per token); or the GLU
    MLP's moment, gated_layers (2·I), the GELU and the product, beside attention's output (qk-post-norm,
    jina-embeddings-v2-base-code's: and layer_norm_1's, the residual its layer keeps). Its ALiBi table, built at
    load, is `alibi_bytes`.

    `new` (GTE's hub configs, family "new" here): transformers 5.23 has no config class for it, so a `new` checkpoint
    runs the hub's remote code (Alibaba-NLP/new-impl NewModel, trust_remote_code), which declares no SDPA: it is
    loaded eager whatever is asked (sdpa is refused). Measured to the byte (tools/measure_gte.py --remote-code,
    tests/golden/gte_remote.json, 19 forwards): per token the larger of attention's moment, the embeddings' output,
    the layer's input, the fused qkv (3·h, its value a view), q and k rotated, v made contiguous and the matmul's
    output (9·h) beside the biased scores and their softmax (2·a·s), and the GLU's, up_gate (2·I) held by its views,
    the GELU of the gate and the product (4·I) and down_proj's output beside three norms' outputs and o_proj's (5·h);
    and the whole forward long, cos and sin gathered per token (2·head_dim) and the extended mask (batch × s in e).
    Its cos/sin cache, built at load, is `rotary_cache_bytes`.

    RoBERTa, CamemBERT, Data2VecText, ERNIE, ELECTRA (its narrow embeddings projected first) and DistilBERT keep
    BERT's tensors (measured: tools/measure_encoders.py). The pre-LN layers keep the norm's output beside attention
    (h a token more) and have no LayerNorm after the MLP's residual: RobertaPreLayerNorm's MLP moment is BERT's,
    XLM-R-XL's holds h more too. RoCBERT and BertGeneration keep BERT's (measured). X-MOD's language adapters and
    BigBird's block-sparse attention are read as BERT's layer: approximate (docs/accuracy.md). Megatron-BERT, RemBERT
    and RoFormer: `_legacy_eager`. DeBERTa-v2: `_deberta`."""
    tokens = batch * seq
    if family == "deberta-v2":
        return _deberta(h, ffn, heads, e, batch, seq, relative, relative_norm)
    if family in LEGACY_EAGER:
        return _legacy_eager(h, ffn, heads, head_dim, family, e, tokens, seq, wide)
    eager = eager or family == "big_bird"  # no SDPA in 5.23 either
    probabilities = heads * seq * e if eager else 0
    if family == "new":
        return tokens * (max(9 * h + 2 * heads * seq, 5 * h + 4 * ffn) + 2 * head_dim) * e + batch * seq * e
    if family in ("nomic_bert", "gte"):
        attention = 5 * h + 2 * heads * seq if eager else 9 * h
        mlp = 4 * h + (3 if gated else 2) * ffn + (heads * seq if eager else 0)  # eager's probabilities held
        return tokens * max(attention, mlp) * e + seq * 2 * head_dim * e + 8 * seq
    if family.startswith("jina-bert-v2"):
        # embeddings, the layer's input, q, k, v; SDPA's output and log-sum-exp, mask + ALiBi (heads × s a token);
        # eager: no output yet, the scores, their sum with the ALiBi and the softmax
        attention = (5 * h + 3 * heads * seq) * e if eager else (6 * h + heads * seq) * e + 4 * heads
        # embeddings, input, attention's output (and qk-post-norm's layer_norm_1); 2·I, the GELU, the product
        mlp = ((4 if family.endswith("qk-post-norm") else 3) * h + (4 if gated else 2) * ffn) * e
        return tokens * (max(attention, mlp) + e)
    if family != "modernbert":
        attention = 5 * h * e + 2 * heads * seq * e if eager else 7 * h * e + 4 * heads
        mlp = (3 * h + 2 * ffn) * e + probabilities
        output = (6 * h + ffn + 2) * e + probabilities
        if family in ("roberta-prelayernorm", "xlm-roberta-xl"):  # pre-LN: the norm's output held beside attention
            return tokens * max(attention + h * e, mlp + h * e * (family == "xlm-roberta-xl"))
        return tokens * max(attention, mlp, output)
    rotary = 6 * h * e + 14 * h + (4 * h if e != 4 else 0)
    mlp = (5 * h + 4 * ffn) * e + probabilities
    # eager's scores and softmax, or SDPA's call: q and k rotated, its output, the window's mask made additive
    scores = 8 * h * e + heads * seq * (e + 8 if e != 4 else 8) if eager else (9 * h + seq) * e + 4 * heads
    mask = batch * seq * seq * (e if eager else 1)
    return tokens * max(rotary, mlp, scores) + mask + 4 * seq * head_dim * e + 8 * seq


LEGACY_EAGER = frozenset({"megatron-bert", "rembert", "roformer"})


def _legacy_eager(h: int, ffn: int, heads: int, head_dim: int, family: str, e: int, tokens: int, seq: int,
                  wide: int) -> int:
    """Megatron-BERT, RemBERT and RoFormer under transformers 5.23: their own self-attention, eager whatever is asked
    (no SDPA), which keeps the scaled scores beside the softmax, and each layer returns its probabilities, which the
    encoder's loop holds until the next layer returns: 3·a·s a token at attention, 2·a·s through the MLP (from the
    second layer: every checkpoint has more than one). And the int64 token-type ids they make (8 bytes a token).
    Megatron-BERT (pre-LN), measured to the byte: attention, the embeddings' output, the layer's input, its norm, q,
    k, v, the context and its contiguous copy (8·h); the MLP, the embeddings, the input, attention's output, the
    norm, the intermediate and its GELU (4·h + 2·I). RemBERT (post-LN): the embeddings' LayerNorm output at their
    `wide` width instead of the embeddings', then 6·h beside the scores, or 2·h + 2·I. RoFormer: the embeddings'
    (projected) output, the input, q and k rotated, v, the context and its copy (7·h) or 3·h + 2·I, and the
    sinusoidal positions gathered (s × head_dim a forward); its rotary moment at short sequences (q and k stacked,
    multiplied and added: up to 12·h beside one layer's probabilities) is not modelled: approximate there."""
    scores = heads * seq
    if family == "megatron-bert":
        per = max(8 * h + 3 * scores, 4 * h + 2 * ffn + 2 * scores)
    elif family == "rembert":
        per = (wide or h) + max(6 * h + 3 * scores, 2 * h + 2 * ffn + 2 * scores)
    else:
        per = max(7 * h + 3 * scores, 3 * h + 2 * ffn + 2 * scores)
    return tokens * (per * e + 8) + (seq * head_dim * e if family == "roformer" else 0)


def _deberta(h: int, ffn: int, heads: int, e: int, batch: int, seq: int, relative: int, norm: bool) -> int:
    """DeBERTa-v2's forward under transformers 5.23 (modeling_deberta_v2.py), which has no SDPA: eager whatever is
    asked. Measured to the byte with relative attention, share_att_key, pos_att_type p2c|c2p, position buckets and
    norm_rel_ebd layer_norm (DeBERTa-v3's and mxbai-rerank's layout; tools/measure_encoders.py). Through a layer after
    the first: the embeddings' output, the layer's input, q, k, v (5·h a token), the int64 mask (batch × s²), the
    int64 relative positions (s²), the LayerNorm of the `relative` rows of rel_embeddings it uses (with `norm`) and
    the int64 token-type ids. Then the largest of: the projections of those rows by query_proj and key_proj, each
    repeated per sequence (beside the content scores); the disentangled bias, both repeats, two int64 index tables
    (s² each) and five batch × heads × s² tensors in e (the scores, c2p gathered, their sum, p2c gathered and
    scaled), or four and p2c's raw product of s × `relative` per head; the MLP (3·h + 2·I a token) and BERT's output
    moment. Without relative attention (the class's default, no released checkpoint): the scores and the softmax,
    read, not measured. Its ConvLayer (v2-xlarge) is not counted."""
    tokens, squares = batch * seq, seq * seq
    held = 8 * batch * squares + 8 * squares + relative * h * e * norm + 8 * tokens
    scores = batch * heads * squares * e
    mlp = tokens * max(3 * h + 2 * ffn, 6 * h + ffn + 2) * e + held
    if not relative:
        return max(mlp, 5 * tokens * h * e + held + 2 * scores + 4)
    rows = relative * h * e
    project = scores + rows * max(batch + 2, 2 * batch + 1) + 4
    bias = 16 * squares + 2 * batch * rows + 8 + max(5 * scores + 2 * (e == 2), 4 * scores + scores * relative // seq)
    return max(mlp, 5 * tokens * h * e + held + max(project, bias))


def vllm_forward_bytes(h: int, ffn: int, heads: int, family: str, *, e: int, tokens: int, gated: bool = True) -> int:
    """The peak above the weights of one step of vLLM 0.34's pooling runner over `tokens` tokens, read from its
    source (not measured). The step is the requests' tokens flattened into one [tokens, h] batch (no padding), and
    encoder-only attention is FlashAttention's varlen kernel over each request's own span (v1/attention/backends/
    flash_attn.py `_forward_encoder_attention`; Triton and FlexAttention, the fallbacks, are varlen too): no
    seq × seq scores, mask or bias, so nothing grows with a sequence's square; per token, the largest moment of a
    layer after the first, with what the model's Python keeps alive (eager; torch.compile, vLLM's default, may free
    the embeddings' output sooner). The kernel's log-sum-exp is fp32 per head (4·heads bytes).

    BERT and XLM-R (models/bert.py; roberta.py builds the same BertModel): the embeddings' output and the layer's
    input beside the fused QKV (3·h) and attention's output, or the intermediate and its GELU (2·I) beside
    attention's output, or BertOutput's dense, residual add and LayerNorm beside the GELU (3·h + I).
    ModernBERT (modernbert.py): the embeddings, the input, attn_norm's output, the fused QKV rotated in place and
    attention's output (7·h); the GeGLU MLP, Wi to 2·I, the GELU and the product (4·I) beside the embeddings, the
    input, the sum, attention's output and mlp_norm's (5·h); Wo's output beside Wi's and the product.
    nomic-bert (bert_with_rope.py NomicBertModel, post-norm): out_proj beside the QKV and attention's output (7·h);
    the SwiGLU MLP, gate_up (2·I) and SiluAndMul (I), then down_proj beside them (5·h + 3·I); GELU: up, act (2·I).
    GTE (bert_with_rope.py GteNewModel, and GteNewForSequenceClassification around it) is the same BertWithRope, its
    GLU the GeGLU ("geglu": GeluAndMul) and gate_up_proj without a bias: nomic-bert's figures."""
    lse = 4 * heads
    if family == "modernbert":
        return tokens * max(7 * h * e + lse, (5 * h + 4 * ffn) * e, (6 * h + 3 * ffn) * e)
    if family in ("nomic_bert", "gte"):
        mlp = 5 * h + 3 * ffn if gated else max(4 * h + 2 * ffn, 5 * h + ffn)
        return tokens * max(6 * h * e + lse, 7 * h * e, mlp * e)
    return tokens * max(6 * h * e + lse, (3 * h + 2 * ffn) * e, (6 * h + ffn) * e)


def rotary_cache_bytes(rows: int, head_dim: int, seq: int, e: int) -> int:
    """The cos and sin cache GTE's remote code (`new`, NewEmbeddings' RotaryEmbedding / NTKScalingRotaryEmbedding)
    builds at load, `rows` (max_position_embeddings × the NTK factor) × head_dim each in the model's dtype (measured
    beside the forward: tests/golden/gte_remote.json "rotary_cache_bytes"); a batch longer rebuilds it at its
    length (read, not measured)."""
    return 2 * max(rows, seq) * head_dim * e


def alibi_bytes(heads: int, positions: int, seq: int, e: int) -> int:
    """JinaBERT v2's ALiBi bias under transformers: its encoder builds the 1 × heads × L × L table at load, L the
    config's max_position_embeddings (8,192 for the checkpoints), in the model's dtype, and rebuilds it at a longer
    batch's length; every forward slices it (jina's modeling_jbert.py, roycms/jina-embeddings-v2-base-en at
    78371375; the MLX port of Nexa AI's SDK keeps the line). 3 GiB in fp32 for the 12 heads of v2-base-en."""
    side = max(positions, seq)
    return heads * side * side * e
