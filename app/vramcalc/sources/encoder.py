"""Encoder embedders and rerankers in a config.json (`bert`, `xlm-roberta`, `modernbert`), read as transformers
5.23 builds them: an embedder as `AutoModel` loads it (no masked-LM head; BERT's and XLM-R's pooler), a reranker
(`architectures` naming a *ForSequenceClassification) with its classifier. Keys a config omits take the config
class's defaults. Held to the meta device by tests/golden/encoders.json (tools/measure_encoders.py)."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import ValidationError
from ..model.families.decoder.spec import AttentionKind, Block, ModelSpec, Norm, NormCompute
from ..model.families.encoder import Encoder
from .hf_config import MAX_DIM, MAX_HEADS, MAX_LAYERS, _bool, _int

ENCODER_TYPES = ("bert", "xlm-roberta", "modernbert")


def _labels(config: Mapping[str, object]) -> int:
    """PreTrainedConfig.num_labels: the length of id2label, else num_labels, else 2."""
    id2label = config.get("id2label")
    if isinstance(id2label, Mapping) and id2label:
        return len(id2label)
    return _int(config, "num_labels", 1, MAX_DIM, default=2)


def read_encoder(config: Mapping[str, object], model_type: str, name: str, display: str) -> ModelSpec:
    architectures = config.get("architectures")
    reranker = isinstance(architectures, list) and any(
        isinstance(a, str) and a.endswith("ForSequenceClassification") for a in architectures)
    labels = _labels(config) if reranker else 0
    if model_type == "modernbert":
        return _modernbert(config, name, display, labels)
    # BertModel / XLMRobertaModel: word, position and token-type embeddings with a LayerNorm (counted as the
    # final norm: the same weight and bias); layers of q, k, v, o with biases, two LayerNorms, a GELU MLP with
    # biases (the GPT-2 block's tensors, the same shapes); the pooler, unless XLM-R's classifier replaces it.
    hidden = _int(config, "hidden_size", 1, MAX_DIM, default=768)
    heads = _int(config, "num_attention_heads", 1, MAX_HEADS, default=12)
    if hidden % heads:
        raise ValidationError("num_attention_heads", heads, f"must divide hidden_size ({hidden})")
    positions = _int(config, "max_position_embeddings", 1, MAX_DIM * 10, default=512)
    roberta = model_type == "xlm-roberta"
    encoder = Encoder(model_type, type_vocab=_int(config, "type_vocab_size", 0, MAX_DIM, default=2),
                      pooler=not (roberta and reranker), labels=labels, head_dense=roberta and reranker)
    return ModelSpec(
        name=name, display_name=display, block=Block.GPT2, model_type=model_type, hidden=hidden, heads=heads,
        layers=_int(config, "num_hidden_layers", 1, MAX_LAYERS, default=12), kv_heads=heads, head_dim=hidden // heads,
        ffn=_int(config, "intermediate_size", 1, MAX_DIM, default=3072),
        vocab=_int(config, "vocab_size", 1, MAX_DIM * 10, default=30522), tie_embeddings=True, gated_mlp=False,
        norm=Norm.LAYER, norm_compute=NormCompute.LAYER, qkv_bias=True, o_bias=True, mlp_bias=True,
        learned_positions=positions, max_positions=positions, encoder=encoder)


def _modernbert(config: Mapping[str, object], name: str, display: str, labels: int) -> ModelSpec:
    """ModernBertModel: token embeddings and their LayerNorm; layers of a fused Wqkv, Wo, a GeGLU MLP (Wi to
    twice the width, Wo) and two LayerNorms, the first layer's attn_norm an Identity (so the embeddings' norm
    counts in its place); the final norm. Biases by attention_bias, mlp_bias, norm_bias. Rotary positions; every
    global_attn_every_n_layers-th layer global, the others a window of local_attention tokens (layer_types)."""
    hidden = _int(config, "hidden_size", 1, MAX_DIM, default=768)
    heads = _int(config, "num_attention_heads", 1, MAX_HEADS, default=12)
    if hidden % heads:
        raise ValidationError("num_attention_heads", heads, f"must divide hidden_size ({hidden})")
    layers = _int(config, "num_hidden_layers", 1, MAX_LAYERS, default=22)
    every = _int(config, "global_attn_every_n_layers", 1, MAX_LAYERS, default=3)
    types = config.get("layer_types")
    if isinstance(types, list) and len(types) == layers and set(types) <= {"full_attention", "sliding_attention"}:
        kinds = tuple(AttentionKind.FULL if t == "full_attention" else AttentionKind.SLIDING for t in types)
    else:
        kinds = tuple(AttentionKind.SLIDING if i % every else AttentionKind.FULL for i in range(layers))
    norm_bias = _bool(config, "norm_bias", default=False)
    attention_bias = _bool(config, "attention_bias", default=False)
    encoder = Encoder("modernbert", labels=labels, head_dense=bool(labels),
                      head_bias=_bool(config, "classifier_bias", default=False),
                      head_norm=(1 + norm_bias) if labels else 0)
    return ModelSpec(
        name=name, display_name=display, block=Block.LLAMA, model_type="modernbert", hidden=hidden, heads=heads,
        layers=layers, kv_heads=heads, head_dim=hidden // heads,
        ffn=_int(config, "intermediate_size", 1, MAX_DIM, default=1152),
        vocab=_int(config, "vocab_size", 1, MAX_DIM * 10, default=50368), tie_embeddings=True,
        norm=Norm.LAYER if norm_bias else Norm.LAYER_NO_BIAS, norm_compute=NormCompute.LAYER,
        qkv_bias=attention_bias, o_bias=attention_bias, mlp_bias=_bool(config, "mlp_bias", default=False),
        kinds=kinds, sliding_window=_int(config, "local_attention", 1, MAX_DIM * 10, default=128),
        max_positions=_int(config, "max_position_embeddings", 1, MAX_DIM * 10, default=8192), encoder=encoder)
