"""Encoder embedders and rerankers in a config.json (`bert`, `xlm-roberta`, `modernbert`, remote-code `nomic_bert`
and JinaBERT v2, a `bert` with ALiBi, Alibaba's GTE: remote-code `new` and transformers' `gte`), read as
transformers 5.23 builds them (remote code as its own file does):
an embedder as `AutoModel` loads it (no masked-LM head; BERT's and XLM-R's pooler), a reranker
(`architectures` naming a *ForSequenceClassification) with its classifier, as many outputs as id2label (else
num_labels, else 2). Keys a config omits take the config class's defaults. Held to the meta device by
tests/golden/encoders.json (tools/measure_encoders.py) and tests/golden/gte.json (tools/measure_gte.py)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..core.errors import ValidationError
from ..model.families.decoder.spec import Block, ModelSpec, Norm, NormCompute, QkNorm
from ..model.families.encoder import Encoder
from .fields import MAX_DIM, MAX_HEADS, MAX_LAYERS, read_bool, read_int, read_text

# the config classes' defaults: hidden_size, num_attention_heads, num_hidden_layers, intermediate_size, vocab_size,
# max_position_embeddings
_BERT = (768, 12, 12, 3072, 30522, 512)
ENCODER_TYPES = {"bert": _BERT, "xlm-roberta": _BERT, "camembert": _BERT, "data2vec-text": _BERT, "ernie": _BERT,
                 "roberta": (768, 12, 12, 3072, 50265, 512), "roberta-prelayernorm": (768, 12, 12, 3072, 50265, 512),
                 "xlm-roberta-xl": (2560, 32, 36, 10240, 250880, 514), "electra": (256, 4, 12, 1024, 30522, 512),
                 "megatron-bert": (1024, 16, 24, 4096, 29056, 512), "distilbert": (768, 12, 6, 3072, 30522, 512),
                 "deberta-v2": (1536, 24, 24, 6144, 128100, 512), "rembert": (1152, 18, 32, 4608, 250300, 512),
                 "roformer": (768, 12, 12, 3072, 50000, 1536), "xmod": _BERT, "roc_bert": _BERT,
                 "big_bird": (768, 12, 12, 3072, 50358, 4096), "bert-generation": (1024, 16, 24, 4096, 50358, 512),
                 "modernbert": (768, 12, 22, 1152, 50368, 8192), "nomic_bert": (768, 12, 12, 0, 50257, 1024),
                 "new": (768, 12, 12, 3072, 30528, 2048), "gte": (768, 12, 12, 3072, 250048, 8192)}
# nomic_bert (NomicBertConfig, a GPT2Config) and distilbert (DistilBertConfig): the keys they read in place of BERT's
NOMIC_KEYS = ("n_embd", "n_head", "n_layer", "n_inner", "vocab_size", "n_positions")
DISTIL_KEYS = ("dim", "n_heads", "n_layers", "hidden_dim", "vocab_size", "max_position_embeddings")
# BERT's layout under other names (transformers 5.23's classes): how AutoModel and *ForSequenceClassification end.
# "bert": BertPooler in both, the classifier on it (ErnieModel, MegatronBertModel); "roberta": the pooler in AutoModel
# only, the reranker's head a dense and out_proj (RoBERTa, CamemBERT, Data2VecText, XLM-R, XLM-R-XL,
# RobertaPreLayerNorm); "dense": no pooler, the reranker's a dense with a bias and the classifier
# (ElectraClassificationHead, DistilBERT's pre_classifier, DeBERTa-v2's ContextPooler, RoFormer's);
# "both": the pooler in both and the reranker's dense and out_proj after it (BigBird); "none": no pooler and no
# *ForSequenceClassification (BertGenerationEncoder). RemBERT and RoCBERT as BERT, X-MOD as RoBERTa.
HEADS = {"bert": "bert", "ernie": "bert", "megatron-bert": "bert", "rembert": "bert", "roc_bert": "bert",
         "electra": "dense", "distilbert": "dense", "deberta-v2": "dense", "roformer": "dense", "big_bird": "both",
         "bert-generation": "none"}
# type_vocab_size's default where it is not 2 (XLMRobertaXLConfig 1, DebertaV2Config 0, DistilBERT and
# BertGeneration have none)
TYPE_VOCAB = {"xlm-roberta-xl": 1, "deberta-v2": 0, "distilbert": 0, "bert-generation": 0}
# the embeddings' own width, its key and default (0: the hidden size), projected to the hidden size with a bias after
# their LayerNorm (ELECTRA, RoFormer when it differs; RemBERT's embedding_hidden_mapping_in always)
WIDE = {"electra": ("embedding_size", 128), "roformer": ("embedding_size", 0), "rembert": ("input_embedding_size", 256),
        "deberta-v2": ("embedding_size", 0)}


def read_encoder(config: Mapping[str, object], model_type: str, name: str, display: str) -> ModelSpec:
    """BertModel / XLMRobertaModel: word, position and token-type embeddings and their LayerNorm (counted as the
    final norm: the same shape), layers of q, k, v, o, a GELU MLP, all with biases, and two LayerNorms (the GPT-2
    block's tensors); the pooler unless XLM-R's classifier head replaces it. ModernBertModel: token embeddings and
    their LayerNorm (counted as the first layer's attn_norm, an Identity), layers of a fused Wqkv, Wo, a GeGLU MLP
    and two LayerNorms, biases by attention_bias, mlp_bias, norm_bias. (Its sliding-window layers are read as
    full: an encoder keeps no KV cache, and its measured forward builds the window's mask whatever the window.)"""
    nomic = model_type == "nomic_bert"
    keys = NOMIC_KEYS if nomic else DISTIL_KEYS if model_type == "distilbert" else (
        "hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size", "vocab_size",
        "max_position_embeddings")
    h, a, n, i, v, p = (read_int(config, key, 0 if key == "n_inner" else 1, high, default=default)
                        for key, high, default in zip(keys, (MAX_DIM, MAX_HEADS, MAX_LAYERS, MAX_DIM, MAX_DIM * 10,
                                                             MAX_DIM * 10), ENCODER_TYPES[model_type], strict=True))
    if h % a:
        raise ValidationError("num_attention_heads", a, f"must divide hidden_size ({h})")
    names = config.get("architectures")
    labels = 0
    if isinstance(names, list) and any(str(x).endswith("ForSequenceClassification") for x in names):
        id2label = config.get("id2label")
        labels = len(id2label) if isinstance(id2label, Mapping) and id2label else read_int(
            config, "num_labels", 1, MAX_DIM, default=2)
    common: dict[str, Any] = {"name": name, "display_name": display, "model_type": model_type, "hidden": h,
                              "heads": a, "layers": n, "kv_heads": a, "head_dim": h // a, "ffn": i, "vocab": v,
                              "tie_embeddings": True, "max_positions": p, "norm_compute": NormCompute.LAYER}
    if nomic:
        return _nomic(config, common, labels)
    if model_type in ("new", "gte"):
        return _gte(config, common, labels, model_type)
    if model_type == "bert" and read_text(config, "position_embedding_type") == "alibi":
        # JinaBERT v2 (jinaai/jina-bert-implementation, modeling_bert.py): no position table; its GLU MLP
        # (feed_forward_type geglu/reglu) is gated_layers h -> 2·I without a bias and wo I -> h with one
        gated = read_text(config, "feed_forward_type") not in ("", "original")
        code = _qk_post_norm(config)
        return ModelSpec(**common, block=Block.LLAMA if gated else Block.GPT2, gated_mlp=gated, norm=Norm.LAYER,
                         qkv_bias=True, o_bias=True, mlp_bias=not gated, down_bias=True,
                         qk_norm=QkNorm.FULL if code else None, norms_per_layer=3 if code else 2, encoder=Encoder(
                             "jina-bert-v2-qk-post-norm" if code else "jina-bert-v2",
                             read_int(config, "type_vocab_size", 0, MAX_DIM, default=2), True, labels))
    if model_type != "modernbert":
        return _bert_like(config, common, labels, model_type)
    bias, attention = read_bool(config, "norm_bias", default=False), read_bool(config, "attention_bias", default=False)
    return ModelSpec(
        **common, block=Block.LLAMA, norm=Norm.LAYER if bias else Norm.LAYER_NO_BIAS, qkv_bias=attention,
        o_bias=attention, mlp_bias=read_bool(config, "mlp_bias", default=False), encoder=Encoder(
            model_type, 0, False, labels, labels > 0, read_bool(config, "classifier_bias", default=False),
            (1 + bias) * (labels > 0)))


def _bert_like(config: Mapping[str, object], common: dict[str, Any], labels: int, model_type: str) -> ModelSpec:
    """BERT's layout, as transformers 5.23 builds each class: word, position and token-type embeddings, layers of q,
    k, v, o and a GELU MLP with biases and two LayerNorms, a LayerNorm the embeddings' or the encoder's last (counted
    as the final norm: XLM-R-XL and Megatron-BERT, pre-LN, have the encoder's only; RobertaPreLayerNorm both), and the
    head `HEADS` names. ELECTRA's embeddings are embedding_size wide (LayerNorm included) and projected to h;
    DistilBERT has no token types; ERNIE adds task-type embeddings with use_task_id; DeBERTa-v2 (`_deberta`)."""
    head = HEADS.get(model_type, "roberta")
    if head == "none" and labels:
        raise ValidationError("architectures", str(config.get("architectures"))[:80], f"transformers has no "
                              f"{model_type} *ForSequenceClassification: read as the encoder (AutoModel) only")
    h = common["hidden"]
    key, default = WIDE.get(model_type, ("", 0))
    wide = read_int(config, key, 1, MAX_DIM, default=default or h) if key else h
    types = read_int(config, "type_vocab_size", 0, MAX_DIM, default=TYPE_VOCAB.get(model_type, 2))
    if model_type in ("distilbert", "bert-generation"):
        types = 0  # DistilBertEmbeddings, BertGenerationEmbeddings: word and position tables only
    extra: dict[str, Any] = {}
    if model_type == "ernie" and read_bool(config, "use_task_id", default=False):
        extra["task_types"] = read_int(config, "task_type_vocab_size", 1, MAX_DIM, default=3)
    if wide != h or model_type == "rembert":
        extra |= {"embedding": wide, "projection_bias": model_type != "deberta-v2"}
    positions = common["max_positions"]
    if model_type == "deberta-v2":
        positions *= read_bool(config, "position_biased_input", default=True)
        extra |= _deberta(config, common)
    elif model_type == "roformer":  # rotary: no table, but a sinusoidal one of head_dim columns, a parameter
        positions, extra["tables"] = 0, ((positions, common["head_dim"]),)
    elif model_type in ("roc_bert", "xmod"):
        extra |= _roc_bert(config, h) if model_type == "roc_bert" else _xmod(config, h)
    pre_norm = model_type == "roberta-prelayernorm" or (model_type == "xmod" and read_bool(config, "pre_norm",
                                                                                        default=False))
    encoder = Encoder(model_type, types, head in ("bert", "both") or (head == "roberta" and not labels), labels,
                      head in ("roberta", "dense", "both") and labels > 0, **extra)
    return ModelSpec(**common, block=Block.GPT2, gated_mlp=False, norm=Norm.LAYER,
                     qkv_bias=model_type != "big_bird" or read_bool(config, "use_bias", default=True), o_bias=True,
                     mlp_bias=True, learned_positions=positions, embed_norm=pre_norm,
                     final_norm=not encoder.projection_bias, encoder=encoder)


def _roc_bert(config: Mapping[str, object], h: int) -> dict[str, Any]:
    """RoCBertEmbeddings: the pronunciation and shape tables, built whatever enable_pronunciation and enable_shape
    say, and with concat_input map_inputs_layer, a dense with a bias from the word embeddings and the enabled ones
    concatenated to h."""
    pron = (read_int(config, "pronunciation_vocab_size", 1, MAX_DIM * 10, default=910),
            read_int(config, "pronunciation_embed_dim", 1, MAX_DIM, default=768))
    shape = (read_int(config, "shape_vocab_size", 1, MAX_DIM * 10, default=24858),
             read_int(config, "shape_embed_dim", 1, MAX_DIM, default=512))
    width = h + pron[1] * read_bool(config, "enable_pronunciation", default=True) + shape[1] * read_bool(
        config, "enable_shape", default=True)
    return {"tables": (pron, shape), "mapping": width * read_bool(config, "concat_input", default=True)}


def _xmod(config: Mapping[str, object], h: int) -> dict[str, Any]:
    """XmodOutput: an adapter a language a layer (dense1 h -> h / adapter_reduction_factor and dense2 back, biased)
    and with adapter_layer_norm their LayerNorm; with pre_norm the encoder's LayerNorm after the layers."""
    languages = config.get("languages", ["en_XX"])
    if not isinstance(languages, (list, tuple)) or not languages:
        raise ValidationError("languages", str(languages)[:60], "expected a list of language codes")
    factor = read_int(config, "adapter_reduction_factor", 1, MAX_DIM, default=2)
    return {"adapters": (len(languages), h // factor, read_bool(config, "adapter_layer_norm", default=False))}


def _deberta(config: Mapping[str, object], common: dict[str, Any]) -> dict[str, Any]:
    """DebertaV2Model (modeling_deberta_v2.py): with relative_attention, rel_embeddings of 2 × position_buckets rows
    (else 2 × max_relative_positions, else 2 × max_position_embeddings) and, without share_att_key, pos_key_proj
    (c2p) and pos_query_proj (p2c) a layer, biased; the encoder's LayerNorm (norm_rel_ebd layer_norm) and ConvLayer
    (conv_kernel_size, conv_groups) whatever relative_attention says. The reranker's ContextPooler is a dense of
    pooler_hidden_size, which its classifier reads as h: refused unless they are equal."""
    h, heads = common["hidden"], common["heads"]
    if read_int(config, "attention_head_size", 1, MAX_DIM, default=h // heads) * heads != h:
        raise ValidationError("attention_head_size", config.get("attention_head_size"),
                              f"read only as hidden_size / num_attention_heads ({h // heads})")
    if read_int(config, "pooler_hidden_size", 1, MAX_DIM, default=h) != h:
        raise ValidationError("pooler_hidden_size", config.get("pooler_hidden_size"), f"must be hidden_size ({h})")
    kinds = config.get("pos_att_type") or []
    if isinstance(kinds, str):
        kinds = [x.strip() for x in kinds.lower().split("|")]
    if not isinstance(kinds, list) or not all(isinstance(x, str) for x in kinds):
        raise ValidationError("pos_att_type", str(kinds)[:60], 'expected "p2c|c2p" or a list of "c2p", "p2c"')
    relative = read_bool(config, "relative_attention", default=False)
    buckets = read_int(config, "position_buckets", -1, MAX_DIM, default=-1)
    span = read_int(config, "max_relative_positions", -1, MAX_DIM * 10, default=-1)
    span = buckets if buckets > 0 else span if span >= 1 else common["max_positions"]
    norms = [x.strip() for x in (read_text(config, "norm_rel_ebd") or "none").lower().split("|")]
    kernel, groups = (read_int(config, "conv_kernel_size", 0, 64, default=0),
                      read_int(config, "conv_groups", 1, h, default=1))
    if h % groups:
        raise ValidationError("conv_groups", groups, f"must divide hidden_size ({h})")
    shared = read_bool(config, "share_att_key", default=False)
    return {"relative": 2 * span * relative, "relative_norm": "layer_norm" in norms, "conv": (kernel, groups),
            "position_projections": 0 if shared or not relative else ("c2p" in kinds) + ("p2c" in kinds)}


def _qk_post_norm(config: Mapping[str, object]) -> bool:
    """jina-embeddings-v2-base-code runs jinaai/jina-bert-v2-qk-post-norm's code, which its config names only in
    `_name_or_path` or `auto_map`'s AutoConfig, as TEI tells them apart (backends/candle/src/lib.rs:108-117 at
    0d124dc). That code (TEI's models/jina_code.rs) has LayerNorms with biases over the whole query and key
    projections, and a third LayerNorm a layer (layer_norm_1 after the attention's output LayerNorm)."""
    auto = config.get("auto_map")
    auto_config = auto.get("AutoConfig") if isinstance(auto, Mapping) else None
    named = (read_text(config, "_name_or_path", 300), auto_config if isinstance(auto_config, str) else "")
    return named[0] == "jinaai/jina-bert-v2-qk-post-norm" or "jinaai/jina-bert-v2-qk-post-norm" in named[1]


def _nomic(config: Mapping[str, object], common: dict[str, Any], labels: int) -> ModelSpec:
    """NomicBertModel (nomic-ai/nomic-bert-2048, modeling_hf_nomic_bert.py), as its from_pretrained builds it: no
    pooler. The vocabulary padded to pad_vocab_size_multiple; word and token-type embeddings (type_vocab_size,
    default 2) and emb_ln; a position table only without rotary (rotary_emb_fraction 0); layers of a fused Wqkv and
    out_proj (biases: qkv_proj_bias), post-norm LayerNorms norm1 and norm2 (emb_ln counted as the final norm), and
    a GELU MLP fc1, fc2 (n_inner, default 4·h) or, for swiglu/geglu/glu, fc11, fc12 and fc2 of n_inner (default
    8·h/3) rounded up to 256; fc1 biases mlp_fc1_bias, fc2 mlp_fc2_bias."""
    h, multiple = common["hidden"], read_int(config, "pad_vocab_size_multiple", 1, MAX_DIM, default=1)
    gated = read_text(config, "activation_function") in ("swiglu", "geglu", "glu")
    ffn = common["ffn"] or (8 * h // 3 if gated else 4 * h)
    rotary = config.get("rotary_emb_fraction", 0.0)
    if not isinstance(rotary, (int, float)) or isinstance(rotary, bool) or not 0 <= rotary <= 1:
        raise ValidationError("rotary_emb_fraction", rotary, "expected a number from 0 to 1")
    bias = read_bool(config, "qkv_proj_bias", default=True)
    spec = {**common, "vocab": -(-common["vocab"] // multiple) * multiple,
            "ffn": -(-ffn // 256) * 256 if gated else ffn}
    return ModelSpec(**spec, block=Block.LLAMA, gated_mlp=gated, norm=Norm.LAYER, qkv_bias=bias, o_bias=bias,
                     mlp_bias=read_bool(config, "mlp_fc1_bias", default=True),
                     down_bias=read_bool(config, "mlp_fc2_bias", default=True),
                     learned_positions=0 if rotary > 0 else common["max_positions"],
                     encoder=Encoder("nomic_bert", read_int(config, "type_vocab_size", 0, MAX_DIM, default=2), False,
                                     labels))


def _gte(config: Mapping[str, object], common: dict[str, Any], labels: int, model_type: str) -> ModelSpec:
    """Alibaba's GTE v1.5 / multilingual (gte-base-en-v1.5, gte-multilingual-base...): its hub configs name the
    remote code's NewModel (model_type `new`, Alibaba-NLP/new-impl modeling.py), which transformers 5.23 builds as its
    own GteModel (models/gte; conversion_mapping.py's "gte" entry loads the `new.` tensors, qkv_proj and up_gate_proj
    chunked): word embeddings, token-type embeddings unless type_vocab_size is 0 (NewConfig's default 1), their
    LayerNorm (counted as the final norm), layers of q, k, v and o with biases, a GLU MLP (up and gate without a
    bias, down with one) and two post-norm LayerNorms; rotary positions, no table. AutoModel has no pooler; a
    reranker (NewForSequenceClassification / GteForSequenceClassification) has the pooler's dense and the
    classifier. The remote code's other switches, absolute positions and RMSNorm layers, are no released
    checkpoint's and transformers' class has neither: refused. A `new` config runs that remote code under
    transformers (AutoConfig has no `new`): its rotary cos/sin cache has max_position_embeddings × rope_scaling's
    factor rows (NTK, the only type the code builds)."""
    rows = 0
    if model_type == "new":
        scaling = config.get("rope_scaling")
        factor: object = 1
        if isinstance(scaling, Mapping):
            if (kind := str(scaling.get("type", ""))) != "ntk":
                raise ValidationError("rope_scaling", kind, "GTE's code (NewModel) builds only the \"ntk\" type")
            factor = scaling.get("factor")
        elif scaling is not None:
            raise ValidationError("rope_scaling", scaling, "expected an object with type and factor, or null")
        if not isinstance(factor, (int, float)) or isinstance(factor, bool) or not 0 < factor <= 1024:
            raise ValidationError("rope_scaling.factor", factor, "expected a number above 0 (at most 1024)")
        rows = math.ceil(common["max_positions"] * factor)
        if (kind := read_text(config, "position_embedding_type") or "rope") != "rope":
            raise ValidationError("position_embedding_type", kind, "GTE is read with rotary positions (rope), as "
                                  "transformers' GteModel and every released checkpoint run it")
        if (norm := read_text(config, "layer_norm_type") or "layer_norm") != "layer_norm":
            raise ValidationError("layer_norm_type", norm, "GTE is read with LayerNorm (layer_norm), as transformers' "
                                  "GteModel and every released checkpoint run it")
    return ModelSpec(**common, block=Block.LLAMA, gated_mlp=True, norm=Norm.LAYER, qkv_bias=True, o_bias=True,
                     mlp_bias=False, down_bias=True, encoder=Encoder(
                         "gte", read_int(config, "type_vocab_size", 0, MAX_DIM, default=1), labels > 0, labels,
                         rotary_rows=rows))
