"""Multi-token-prediction (MTP) layers as an engine loads them for speculative decoding: the model with its MTP
layers appended to the stack (`with_mtp`), so that their weights, their split over GPUs and, on vLLM, their KV cache
follow from the same tensor list as every other layer's.

An MTP layer is one decoder layer of the model (full attention; the experts of the stack's last layer) with its own
norms and projection in front (tensors.mtp_tensors). transformers does not build it (DeepseekV3ForCausalLM,
Glm4MoeForCausalLM and Qwen3_5 drop `model.layers.<num_hidden_layers>.*` and `mtp.*` on load), so it is counted from
the checkpoints' tensor names and shapes (DeepSeek-V3's model.safetensors.index.json: model.layers.61.embed_tokens
[129280, 7168], enorm and hnorm [7168], eh_proj [7168, 14336], shared_head.norm [7168], shared_head.head
[129280, 7168], and layer 61's attention and experts as every other layer's) and from the engines' modules:
- vLLM 0.19 (vllm/model_executor/models/deepseek_mtp.py, glm4_moe_mtp.py, qwen3_5_mtp.py; v1/spec_decode/
  eagle.py _maybe_share_embeddings, _maybe_share_lm_head): an MTP drafter always shares the model's embedding ("Detected
  MTP model. Sharing target model embedding weights") and its lm_head, also as each layer's shared_head.head (since
  PR #34385), so no copy stays on the GPU even where the checkpoint has one;
- llama.cpp (src/models/glm4-moe.cpp, deepseek32.cpp, qwen35moe.cpp): the tensors of blk.<n_layer> are created
  with TENSOR_SKIP unless `load_mtp` (--spec-type draft-mtp); its own embed_tokens and shared_head_head are loaded
  when the GGUF has them (TENSOR_NOT_REQUIRED), which it has when the checkpoint does: DeepSeek-V3.2's (the
  DeepSeek-V3 layout, `CHECKPOINT_COPIES`) and GLM-4.5's, not GLM-4.6's, GLM-4.7's or GLM-5's (vLLM PR #27597,
  #34385: their checkpoints omit them); the config does not say which, so GLM's are counted without.
"""

from __future__ import annotations

import dataclasses

from ....core.phrase import Phrase, phrase
from .spec import AttentionKind, ModelSpec

NEXTN = "nextn"  # DeepSeek-V3's layout: num_nextn_predict_layers
QWEN = "qwen"  # Qwen3.5's: mtp_num_hidden_layers


def with_mtp(spec: ModelSpec, *, copies: bool) -> ModelSpec:
    """The model with its `mtp_layers` MTP layers loaded, appended after the stack as llama.cpp numbers them (blk.
    <n_layer>...; vLLM's model.layers.<num_hidden_layers>): full attention, MoE when the stack's last layer is, with
    their own embedding and head copies when the engine holds them (`copies`)."""
    n = spec.mtp_layers
    moe = bool(spec.moe_layers) and spec.moe_layers[-1]
    return dataclasses.replace(
        spec, layers=spec.layers + n, kinds=spec.kinds + (AttentionKind.FULL,) * n,
        moe_layers=spec.moe_layers + (moe,) * n if spec.moe_layers else (), mtp_built=n, mtp_copies=copies)


def without_mtp(spec: ModelSpec) -> ModelSpec:
    """`with_mtp`'s model as it was: the stack without its built MTP layers (what the model runs to verify a draft)."""
    n = spec.mtp_built
    if not n:
        return spec
    return dataclasses.replace(spec, layers=spec.layers - n, kinds=spec.kinds[:-n],
                               moe_layers=spec.moe_layers[:-n] if spec.moe_layers else (), mtp_built=0,
                               mtp_copies=False)


def noted(spec: ModelSpec, params: int, engine: str, tokens: int) -> ModelSpec:
    """`spec` (with_mtp's) whose note on the MTP layers says what is counted of them: model.note.mtp replaced.
    `engine`: "vllm" or "llamacpp"."""
    copies = ("model.note.mtp_on.embed_head" if spec.mtp_copies else f"model.note.mtp_on.shared_{engine}")
    note = phrase("model.note.mtp_on", layers=spec.mtp_built, params=f"{params:,}",
                  engine="vLLM" if engine == "vllm" else "llama.cpp", tokens=tokens, copies=phrase(copies),
                  rest=phrase(f"model.note.mtp_on.{engine}"))
    kept = tuple(n for n in spec.notes if not (isinstance(n, Phrase) and n.key == "model.note.mtp"))
    return dataclasses.replace(spec, notes=(*kept, note))


# The model types whose MTP layers each engine runs, as read (their layers as `with_mtp` builds them):
# vLLM's registry (model_executor/models/registry.py _SPECULATIVE_DECODING_MODELS: DeepSeekMTPModel for
# deepseek_v3, deepseek_v32 and glm_moe_dsa, Glm4MoeMTPModel, Glm4MoeLiteMTPModel, Qwen3_5MTP, Qwen3_5MoeMTP);
# llama.cpp's graphs for LLAMA_CONTEXT_TYPE_MTP (glm4-moe.cpp, deepseek2.cpp for GLM-4.7-Flash, deepseek32.cpp,
# glm-dsa.cpp, qwen35.cpp, qwen35moe.cpp) whose converter keeps the layers: conversion/deepseek.py drops
# DeepSeek-V3's (DeepseekV2Model.skip_mtp = True), so its GGUF files have none.
VLLM_TYPES = frozenset({"deepseek_v3", "deepseek_v32", "glm_moe_dsa", "glm4_moe", "glm4_moe_lite", "qwen3_5_text",
                        "qwen3_5_moe_text"})
LLAMACPP_TYPES = frozenset({"deepseek_v32", "glm_moe_dsa", "glm4_moe", "glm4_moe_lite", "qwen3_5_text",
                            "qwen3_5_moe_text"})
# The model types whose checkpoints give each MTP layer its own embed_tokens and shared_head.head (vocab × h each),
# which llama.cpp's GGUF keeps and loads: DeepSeek-V3.2's model.safetensors.index.json (model.layers.61.*).
CHECKPOINT_COPIES = frozenset({"deepseek_v32"})
