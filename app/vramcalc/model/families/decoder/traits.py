"""What a decoder `model_type` does at run time that its config.json does not say: the implementation
details of transformers' modelling code that the activation formulas (`saved.py`, `prefill.py`) depend
on, as ONE frozen `Traits` record per model_type (`TRAITS`), beside the `Reader` in sources/hf_config.py
that already names each type. A model type not listed gets `DEFAULT` (Llama's behaviour): `traits`.

Each field says where in transformers the behaviour lives; a new model type is one row of `TRAITS`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Traits:
    """How one model_type's transformers implementation allocates its activations, where the config
    does not tell. Every field defaults to what transformers' Llama does."""

    training_measured: bool = False
    """Its training activations are checked against measured runs (tests/golden/measured.json,
    tests/test_golden_measured.py). For the others the same terms are applied to their shapes, and the
    result says that it is approximate (analysis/evaluate.py)."""

    softmax_in_compute_type: bool = False
    """Eager attention's softmax runs in the compute type, not fp32: transformers' Llama 4; gpt-oss, whose
    probabilities include one sink logit per row."""

    attention_output_held: bool = False
    """The decoder layer keeps attention's output bound to its own name through the MLP:
    Llama4TextDecoderLayer.forward (`attention_states`; models/llama4/modeling_llama4.py). The others
    rebind `hidden_states` to the residual sum, or (parallel blocks) count it among their four h·e."""

    always_sliding_mask: bool = False
    """The model's forward builds a sliding-window mask even with no sliding layer: Qwen2MoeModel.forward
    always fills both entries of its mask mapping, and Qwen2MoeConfig sets sliding_window to 0 when
    use_sliding_window is off, so masking_utils cannot skip it (`_ignore_causal_mask_sdpa`, kv_length >= 0)."""

    fp32_router: bool = False
    """The router computes in fp32 whatever the model's dtype (an fp32 `gate.weight` and `F.linear` on the
    input cast to fp32: DeepseekV2TopkRouter, DeepseekV3TopkRouter, Glm4MoeTopkRouter), so its logits and
    routing weights are fp32. Implies `fp32_routing_weights`."""

    fp32_routing_weights: bool = False
    """The top-k routing weights stay fp32: the fp32 routers above, and Mixtral, whose softmax runs on
    `router_logits.float()` (MixtralTopKRouter). The others cast the weights back to the logits' dtype."""

    shared_expert_first: bool = False
    """The MoE block runs the shared expert before the routed ones, whose output waits meanwhile
    (Qwen2MoeSparseMoeBlock, Qwen3NextSparseMoeBlock); DeepSeek and GLM-4-MoE run it after."""

    all_experts_per_token: bool = False
    """The MoE block runs every token through every expert and weights the outputs, with two bmm over
    all E experts (Llama4TextMoe, Llama4TextExperts in models/llama4/modeling_llama4.py), instead of
    gathering the k routed copies of each token."""

    fp32_norm_weight_copies: bool = False
    """Each RMSNorm computes `1 + weight` in fp32 (Gemma's `Gemma*RMSNorm`, Qwen3NextRMSNorm), a copy per
    norm that training saves once for the whole batch (`saved.batch_shared_bytes`)."""


DEFAULT = Traits()
_MEASURED = Traits(training_measured=True)
_GEMMA = Traits(fp32_norm_weight_copies=True)
_GEMMA_MEASURED = Traits(training_measured=True, fp32_norm_weight_copies=True)
_FP32_ROUTER_MEASURED = Traits(training_measured=True, fp32_router=True, fp32_routing_weights=True)

# Measured: "gpt2", "llama", "mistral", "mixtral", "qwen2", "gemma2", "phi3" on 2026-12-02; the others
# marked measured on 2026-12-03; "kimi_k2" is DeepSeek-V3's architecture and code under another name.
TRAITS: Mapping[str, Traits] = {
    "gpt2": _MEASURED,
    "llama": _MEASURED,
    "mistral": _MEASURED,
    "mixtral": Traits(training_measured=True, fp32_routing_weights=True),
    "qwen2": _MEASURED,
    "gemma": _GEMMA,
    "gemma2": _GEMMA_MEASURED,
    "phi3": _MEASURED,
    "qwen3": _MEASURED,
    "qwen3_moe": _MEASURED,
    "qwen2_moe": Traits(training_measured=True, always_sliding_mask=True, shared_expert_first=True),
    "qwen3_next": Traits(training_measured=True, shared_expert_first=True, fp32_norm_weight_copies=True),
    "deepseek_v2": _FP32_ROUTER_MEASURED,
    "deepseek_v3": _FP32_ROUTER_MEASURED,
    "kimi_k2": _FP32_ROUTER_MEASURED,
    "glm4_moe": _FP32_ROUTER_MEASURED,
    "gemma3_text": _GEMMA_MEASURED,
    "gpt_oss": Traits(training_measured=True, softmax_in_compute_type=True),
    "llama4_text": Traits(training_measured=True, softmax_in_compute_type=True, attention_output_held=True,
                          all_experts_per_token=True),
    "phi": _MEASURED,
    "olmo2": _MEASURED,
    "granite": _MEASURED,
    "cohere": _MEASURED,
    "cohere2": _MEASURED,
    "smollm3": _MEASURED,
    "phimoe": _MEASURED,
    "ministral": _MEASURED,
    "ministral3": _MEASURED,
    # The types of 2025-26: parameters checked on the meta device, training activations not measured; each
    # flag read in transformers 5.23's modelling code (the router's F.linear in fp32, RMSNorm's 1 + weight).
    "qwen3_5_text": _GEMMA,  # Qwen3_5RMSNorm: output * (1.0 + self.weight.float())
    "qwen3_5_moe_text": Traits(shared_expert_first=True, fp32_norm_weight_copies=True),
    "olmo3": DEFAULT,
    "olmoe": DEFAULT,
    "seed_oss": DEFAULT,
    "exaone4": DEFAULT,
    "ernie4_5": DEFAULT,
    "ernie4_5_moe": Traits(fp32_router=True, fp32_routing_weights=True),  # F.linear(hidden.float(), weight.float())
    "minimax_m2": Traits(fp32_routing_weights=True),  # sigmoid(router_logits.float())
    "apertus": DEFAULT,
    "glm4_moe_lite": Traits(fp32_router=True, fp32_routing_weights=True),
    "mistral4": DEFAULT,
    "deepseek_v32": Traits(fp32_router=True, fp32_routing_weights=True),
    "glm_moe_dsa": Traits(fp32_router=True, fp32_routing_weights=True),
    # MiMoV2FlashTopkRouter: F.linear of fp32 input and weight; eager softmax in the scores' dtype (with sinks)
    "mimo_v2_flash": Traits(fp32_router=True, fp32_routing_weights=True, softmax_in_compute_type=True),
    "gpt_neox": DEFAULT,
    # Mamba-2 and its hybrids: the mixers' activations are estimated (evaluate.assumptions says so)
    "nemotron_h": DEFAULT,
    "bamba": DEFAULT,
    "granitemoehybrid": DEFAULT,
    "mamba2": DEFAULT,
    "lfm2": DEFAULT,
    "kimi_linear": DEFAULT,
    "falcon": DEFAULT,
    "bailing_hybrid": DEFAULT,
    "lfm2_moe": DEFAULT,
    "lfm3": DEFAULT,
    "olmo_hybrid": DEFAULT,
    "falcon_h1": DEFAULT,
    "zamba": DEFAULT, "zamba2": DEFAULT,  # Zamba2RMSNorm: Llama's (the weight times the input cast back); no router
    "mamba": DEFAULT,
    "jamba": DEFAULT,
    "gemma3n_text": _GEMMA,  # Gemma3nRMSNorm: normed * self.weight.float()
    "gemma4_text": _GEMMA,  # Gemma4RMSNorm: the weight multiply on weight.float()
    "hunyuan_v1_dense": DEFAULT,
    # HunYuanMoEV1Gate: an fp32 wg on hidden.float(), its weights left fp32; shared_mlp runs before the experts
    "hunyuan_v1_moe": Traits(fp32_router=True, fp32_routing_weights=True, shared_expert_first=True),
    "granitemoe": DEFAULT,  # GraniteMoeTopKRouter: fp32 logits, the weights cast back (type_as)
    "granitemoeshared": DEFAULT,
    "granitemoe_swa": DEFAULT,
    "granite_swa": DEFAULT,
    "flex_olmo": DEFAULT,
    "exaone_moe": Traits(fp32_router=True, fp32_routing_weights=True),  # ExaoneMoeTopkRouter: DeepSeek-V3's
    "longcat_flash": Traits(fp32_router=True, fp32_routing_weights=True),  # F.linear on .type(torch.float32)
    # Step3p7TopKRouter: sigmoid on router_logits.float(), the weights kept fp32; Step3p7RMSNorm: 1 + weight.float()
    "step3p5": Traits(fp32_routing_weights=True, fp32_norm_weight_copies=True),
    "deepseek_v4": DEFAULT,  # DeepseekV4TopKRouter: F.linear in the model's dtype; its norms' weights kept in fp32
    "hy_v3": Traits(fp32_router=True, fp32_routing_weights=True),  # HYV3TopKRouter: F.linear(hidden.float(), ...)
    "internlm3": DEFAULT,  # Llama's classes
    "iquestcoder": DEFAULT,
    "cwm": DEFAULT,  # Llama's layers, Qwen2's attention
    "solar_open": Traits(fp32_router=True, fp32_routing_weights=True),  # Glm4MoeTopkRouter: F.linear in fp32
    "youtu": DEFAULT,  # DeepSeek-V3's attention, Qwen3's MLP, Llama's norms
    "cohere2_moe": DEFAULT,  # Cohere2MoeTopKRouter: F.linear in the model's dtype, the softmax's weights cast back
    # MiniMaxM3VLTopKRouter: sigmoid on router_logits.float(), the weights kept fp32; its RMSNorm: 1 + weight.float()
    "minimax_m3_vl_text": Traits(fp32_routing_weights=True, fp32_norm_weight_copies=True),
    "afmoe": Traits(fp32_routing_weights=True),  # AfmoeTokenChoiceRouter: sigmoid on the logits .to(float32), kept
    "mistral_large4_text": Traits(fp32_router=True, fp32_routing_weights=True),  # F.linear(hidden.float(), ...)
    "hy_v4": Traits(fp32_router=True, fp32_routing_weights=True),  # HYV4TopkRouter: F.linear on .type(torch.float32)
    "gemma4_unified_text": _GEMMA,  # Gemma4UnifiedRMSNorm: the weight multiply on weight.float()
    "glm4v_text": DEFAULT,
    # Llama's norms and no router: GLM-4-0414, GLM-4-9B-chat, StableLM (nn.LayerNorm), OLMo 1, MiniCPM3
    "glm4": DEFAULT, "glm": DEFAULT, "stablelm": DEFAULT, "olmo": DEFAULT, "minicpm3": DEFAULT,
    "bitnet": DEFAULT, "helium": DEFAULT, "hyperclovax": DEFAULT, "diffllama": DEFAULT,
    "emu3_text_model": DEFAULT,  # its RMSNorms Llama's; no router
    "mllama_text_model": _MEASURED,  # Llama's layers and its cross-attention ones (tools/measure_mllama.py)
    "doge": DEFAULT,  # DogeRMSNorm: Llama's; DogeCDMoE's product-key router in the compute type
    "vaultgemma": _GEMMA,  # VaultGemmaRMSNorm: output * (1.0 + self.weight.float())
    "glm4v_moe_text": Traits(fp32_router=True, fp32_routing_weights=True),  # Glm4vMoeTextTopkRouter: F.linear in fp32
    # MiniMaxTopKRouter: Mixtral's (softmax on router_logits.float(), the top-k weights kept fp32)
    "recurrent_gemma": _GEMMA,  # RecurrentGemmaRMSNorm: 1 + weight.float()
    "aria_text": DEFAULT,  # AriaTextTopKRouter: F.linear and the top-k softmax in the model's dtype
    "jetmoe": DEFAULT,  # JetMoeTopKGating: softmax over the top-k logits in fp32, the weights cast back
    "minimax": Traits(fp32_routing_weights=True), "minimax_text_01": Traits(fp32_routing_weights=True),
    "minimax_m1": Traits(fp32_routing_weights=True),
    "laguna": DEFAULT,  # LagunaTopKRouter: F.linear in the model's dtype, sigmoid on .float(), the weights cast back
    "dots1": Traits(fp32_router=True, fp32_routing_weights=True),  # Dots1TopkRouter: F.linear on .type(float32)
    "nemotron": DEFAULT,
    "cohere_compass_text": DEFAULT,
    "axk1": Traits(fp32_router=True, fp32_routing_weights=True),  # DeepSeek-V3's router: F.linear on .type(float32)
    "axk2": Traits(fp32_router=True, fp32_routing_weights=True),  # AXK2TopkRouter: F.linear on .type(float32)
    # ZayaRouter: its MLP and softmax in the model's dtype (only the balancing-bias choice in fp32); the residual stream
    # is kept in fp32 (residual_in_fp32), which the training activations do not model: not measured
    "zaya": DEFAULT,
    # InklingTopkRouter: F.linear(flat.float(), weight.float()), its routing weights made in fp32 (cast back to the
    # hidden dtype after); its short convolutions run in fp32 (not modelled in training activations)
    "inkling_text": Traits(fp32_router=True, fp32_routing_weights=True),
    "glm5_next_text": Traits(fp32_router=True, fp32_routing_weights=True),  # Glm5NextTextTopkRouter: DeepSeek's
    "dots3_note_text": Traits(fp32_router=True, fp32_routing_weights=True),  # Dots3NoteTextTopkRouter: DeepSeek's
    "inkling2_text": Traits(fp32_router=True, fp32_routing_weights=True),  # Inkling2TopKRouter: the same
    "starcoder2": DEFAULT,  # Mistral's attention, torch LayerNorms
    "arcee": DEFAULT,  # Llama's classes, NemotronMLP
    "jais2": DEFAULT,
    "nanochat": DEFAULT,  # NanoChatRMSNorm: F.rms_norm, no weight
    "mellum": DEFAULT,  # MellumTopKRouter (Qwen3-MoE's): F.linear in the model's dtype, the softmax's weights cast back
    "persimmon": DEFAULT,
    "kolibri1": Traits(fp32_router=True, fp32_routing_weights=True),  # Kolibri1TopKRouter: F.linear on fp32 input
    "qwen4_exp_text": Traits(fp32_norm_weight_copies=True),  # Qwen4ExpTextRMSNorm: (1.0 + self.weight.float())
    "hrm_text": DEFAULT,  # no router; HrmTextRMSNorm without a weight (training activations not measured)
    "beam": Traits(fp32_router=True, fp32_routing_weights=True),  # BeamTopKRouter: F.linear(hidden.float(), ...)
    # decoders of 2019-23 (readers.Legacy): parameters checked on the meta device, training activations not measured
    **dict.fromkeys(("gpt-sw3", "openai-gpt", "gptj", "codegen", "gpt_neo", "gpt_bigcode", "bloom", "opt", "xglm",
                     "ctrl", "mpt", "dbrx", "gpt_neox_japanese", "falcon_mamba", "rwkv", "xlstm", "cpmant",
                     "biogpt", "git"), DEFAULT),
}


def traits(model_type: str) -> Traits:
    """The record of `model_type`; `DEFAULT` for a type not in `TRAITS`, except that a Gemma-named type
    the calculator does not read exactly (read as a Llama-style decoder) keeps Gemma's fp32 norm weight
    copies, which every Gemma generation makes. One dict lookup: the solvers ask it of hundreds of models
    per update."""
    found = TRAITS.get(model_type)
    if found is not None:
        return found
    return _GEMMA if model_type.startswith("gemma") else DEFAULT


# The model types whose training activations are measured; analysis/evaluate.py imports this name.
TRAINING_MEASURED_TYPES = frozenset(name for name, record in TRAITS.items() if record.training_measured)
