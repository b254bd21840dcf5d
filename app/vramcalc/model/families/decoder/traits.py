"""What a decoder `model_type` does at run time that its config.json does not say: the
implementation details the activation formulas depend on, one set of model types per trait."""

from __future__ import annotations


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


# Decoder layers that keep attention's output bound to its own name through the MLP:
# Llama4TextDecoderLayer.forward (`attention_states`; models/llama4/modeling_llama4.py). The others
# rebind `hidden_states` to the residual sum, or (parallel blocks) count it among their four h·e.
ATTENTION_OUTPUT_HELD_TYPES = frozenset({"llama4_text"})


# Models whose forward builds a sliding-window mask even with no sliding layer: Qwen2MoeModel.forward
# always fills both entries of its mask mapping, and Qwen2MoeConfig sets sliding_window to 0 when
# use_sliding_window is off, so masking_utils cannot skip it (`_ignore_causal_mask_sdpa`, kv_length >= 0).
ALWAYS_SLIDING_MASK_TYPES = frozenset({"qwen2_moe"})


# Routers that compute in fp32 whatever the model's dtype (an fp32 `gate.weight` and `F.linear` on the
# input cast to fp32: transformers' DeepseekV2TopkRouter, DeepseekV3TopkRouter, Glm4MoeTopkRouter), so their
# logits and routing weights are fp32; Mixtral's softmax runs on `router_logits.float()` and its top-k
# weights stay fp32 (MixtralTopKRouter). The others cast the weights back to the logits' dtype.
FP32_ROUTER_TYPES = frozenset({"deepseek_v2", "deepseek_v3", "kimi_k2", "glm4_moe"})
FP32_ROUTING_WEIGHT_TYPES = FP32_ROUTER_TYPES | {"mixtral"}
# MoE blocks that run the shared expert before the routed ones, whose output waits meanwhile
# (Qwen2MoeSparseMoeBlock, Qwen3NextSparseMoeBlock); DeepSeek and GLM-4-MoE run it after.
SHARED_EXPERT_FIRST_TYPES = frozenset({"qwen2_moe", "qwen3_next"})
