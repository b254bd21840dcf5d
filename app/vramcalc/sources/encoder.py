"""Encoder embedders and rerankers in a config.json (`bert`, `xlm-roberta`, `modernbert`), read as transformers
5.23 builds them: an embedder as `AutoModel` loads it (no masked-LM head; BERT's and XLM-R's pooler), a reranker
(`architectures` naming a *ForSequenceClassification) with its classifier, as many outputs as id2label (else
num_labels, else 2). Keys a config omits take the config class's defaults. Held to the meta device by
tests/golden/encoders.json (tools/measure_encoders.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import ValidationError
from ..model.families.decoder.spec import Block, ModelSpec, Norm, NormCompute
from ..model.families.encoder import Encoder
from .hf_config import MAX_DIM, MAX_HEADS, MAX_LAYERS, _bool, _int

# the config classes' defaults: hidden_size, num_attention_heads, num_hidden_layers, intermediate_size, vocab_size,
# max_position_embeddings
ENCODER_TYPES = {"bert": (768, 12, 12, 3072, 30522, 512), "xlm-roberta": (768, 12, 12, 3072, 30522, 512),
                 "modernbert": (768, 12, 22, 1152, 50368, 8192)}


def read_encoder(config: Mapping[str, object], model_type: str, name: str, display: str) -> ModelSpec:
    """BertModel / XLMRobertaModel: word, position and token-type embeddings and their LayerNorm (counted as the
    final norm: the same shape), layers of q, k, v, o, a GELU MLP, all with biases, and two LayerNorms (the GPT-2
    block's tensors); the pooler unless XLM-R's classifier head replaces it. ModernBertModel: token embeddings and
    their LayerNorm (counted as the first layer's attn_norm, an Identity), layers of a fused Wqkv, Wo, a GeGLU MLP
    and two LayerNorms, biases by attention_bias, mlp_bias, norm_bias. (Its sliding-window layers are read as
    full: an encoder keeps no KV cache, and its measured forward builds the window's mask whatever the window.)"""
    h, a, n, i, v, p = (_int(config, key, 1, high, default=default) for key, high, default in zip(
        ("hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size", "vocab_size",
         "max_position_embeddings"), (MAX_DIM, MAX_HEADS, MAX_LAYERS, MAX_DIM, MAX_DIM * 10, MAX_DIM * 10),
        ENCODER_TYPES[model_type], strict=True))
    if h % a:
        raise ValidationError("num_attention_heads", a, f"must divide hidden_size ({h})")
    names = config.get("architectures")
    labels = 0
    if isinstance(names, list) and any(str(x).endswith("ForSequenceClassification") for x in names):
        id2label = config.get("id2label")
        labels = len(id2label) if isinstance(id2label, Mapping) and id2label else _int(
            config, "num_labels", 1, MAX_DIM, default=2)
    common: dict[str, Any] = {"name": name, "display_name": display, "model_type": model_type, "hidden": h,
                              "heads": a, "layers": n, "kv_heads": a, "head_dim": h // a, "ffn": i, "vocab": v,
                              "tie_embeddings": True, "max_positions": p, "norm_compute": NormCompute.LAYER}
    if model_type != "modernbert":
        roberta = model_type == "xlm-roberta" and labels > 0
        return ModelSpec(**common, block=Block.GPT2, gated_mlp=False, norm=Norm.LAYER, qkv_bias=True, o_bias=True,
                         mlp_bias=True, learned_positions=p, encoder=Encoder(
                             model_type, _int(config, "type_vocab_size", 0, MAX_DIM, default=2), not roberta,
                             labels, roberta))
    bias, attention = _bool(config, "norm_bias", default=False), _bool(config, "attention_bias", default=False)
    return ModelSpec(
        **common, block=Block.LLAMA, norm=Norm.LAYER if bias else Norm.LAYER_NO_BIAS, qkv_bias=attention,
        o_bias=attention, mlp_bias=_bool(config, "mlp_bias", default=False), encoder=Encoder(
            model_type, 0, False, labels, labels > 0, _bool(config, "classifier_bias", default=False),
            (1 + bias) * (labels > 0)))
