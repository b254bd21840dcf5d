"""Count the model types of 2025-26 exactly, on PyTorch's `meta` device, full-size and perturbed.

A developer tool, not run by CI. For each model_type below it builds the transformers model twice on
`torch.device("meta")` (shapes only): once from the config class's defaults, which are a released
model's sizes (Qwen3.5-9B, DeepSeek-V3.2, GLM-5, MiniMax-M2, ...), and once from a small config of
other depth, other expert counts and other switches, given as a real config.json would give them
(the keys only, the rest left to the class, so the reader's defaults are tested too). It records
each config with its language model's parameter count (a tied head once; vision and audio towers
apart) in tests/golden/types.json, which tests/test_types.py holds the reader to.

Usage: python tools/measure_types.py [--out tests/golden/types.json] [MODEL_TYPE ...]
With model types, only theirs are measured and the other cases kept as they are.
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import re
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoModelForCausalLM
from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

ROOT = Path(__file__).resolve().parent.parent
NOT_TEXT = re.compile(r"(vision|visual|multi_modal_projector|mm_projector|image_newline|patch_embed|audio"
                      r"|embed_tokens_extend)")  # Phi4MultimodalModel's towers: image_embed, audio_embed
# Keys of a class's to_dict() that say nothing about the model's shape.
NOISE = {"transformers_version", "architectures", "output_hidden_states", "return_dict", "dtype",
         "chunk_size_feed_forward", "is_encoder_decoder", "id2label", "label2id", "problem_type",
         "initializer_range", "use_cache", "output_attentions", "pad_token_id", "bos_token_id", "eos_token_id",
         "_name_or_path", "tokenizer_class", "torch_dtype"}

# model_type: (changes to the full-size defaults that make them a consistent real-size config,
#              the small perturbed config's keys)
CASES: dict[str, tuple[dict, dict]] = {
    "qwen3_5_text": ({}, {"num_hidden_layers": 6, "hidden_size": 1024, "intermediate_size": 2816,
                          "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128,
                          "linear_num_key_heads": 8, "linear_num_value_heads": 16, "full_attention_interval": 3,
                          "vocab_size": 32000, "tie_word_embeddings": True}),
    "qwen3_5_moe_text": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "num_attention_heads": 8,
                              "num_key_value_heads": 2, "head_dim": 96, "num_experts": 24, "num_experts_per_tok": 4,
                              "moe_intermediate_size": 384, "shared_expert_intermediate_size": 256,
                              "vocab_size": 32000}),
    "olmo3": ({"max_position_embeddings": 65536}, {"num_hidden_layers": 7, "hidden_size": 1024,
                                                   "intermediate_size": 2048, "num_attention_heads": 16,
                                                   "num_key_value_heads": 4, "sliding_window": 1024,
                                                   "max_position_embeddings": 8192, "vocab_size": 32000}),
    "olmoe": ({}, {"num_hidden_layers": 5, "hidden_size": 512, "intermediate_size": 256, "num_attention_heads": 8,
                   "num_key_value_heads": 4, "num_experts": 12, "num_experts_per_tok": 2, "vocab_size": 32000}),
    "seed_oss": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2048,
                      "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64,
                      "attention_out_bias": True, "vocab_size": 32000}),
    "exaone4": ({"max_position_embeddings": 65536}, {"num_hidden_layers": 9, "hidden_size": 1024,
                                                     "intermediate_size": 2048, "num_attention_heads": 16,
                                                     "num_key_value_heads": 4, "sliding_window": 512,
                                                     "sliding_window_pattern": 3, "max_position_embeddings": 8192,
                                                     "vocab_size": 32000}),
    "ernie4_5": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2048,
                      "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64, "use_bias": True,
                      "tie_word_embeddings": False, "vocab_size": 32000}),
    "ernie4_5_moe": ({}, {"num_hidden_layers": 7, "hidden_size": 768, "intermediate_size": 2048,
                          "num_attention_heads": 12, "num_key_value_heads": 4, "moe_num_experts": 16, "moe_k": 4,
                          "moe_intermediate_size": 512, "moe_num_shared_experts": 1, "moe_layer_start_index": 2,
                          "moe_layer_end_index": 5, "moe_layer_interval": 2, "vocab_size": 32000}),
    "minimax_m2": ({}, {"num_hidden_layers": 4, "hidden_size": 768, "intermediate_size": 384,
                        "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 64, "num_local_experts": 16,
                        "num_experts_per_tok": 4, "vocab_size": 32000}),
    "apertus": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 4096,
                     "num_attention_heads": 16, "num_key_value_heads": 8, "vocab_size": 32000}),
    "glm4_moe_lite": ({}, {"num_hidden_layers": 5, "hidden_size": 1024, "intermediate_size": 2048,
                           "moe_intermediate_size": 512, "num_attention_heads": 12, "num_key_value_heads": 12,
                           "n_routed_experts": 16, "num_experts_per_tok": 4, "q_lora_rank": 384,
                           "kv_lora_rank": 256, "vocab_size": 32000}),
    "mistral4": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2048,
                      "moe_intermediate_size": 512, "num_attention_heads": 8, "num_key_value_heads": 8,
                      "n_routed_experts": 12, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
                      "vocab_size": 32000}),
    "deepseek_v32": ({}, {"num_hidden_layers": 5, "hidden_size": 1024, "intermediate_size": 2048,
                          "moe_intermediate_size": 256, "num_attention_heads": 8, "num_key_value_heads": 8,
                          "n_routed_experts": 16, "num_experts_per_tok": 4, "n_group": 4, "topk_group": 2,
                          "first_k_dense_replace": 2, "q_lora_rank": 512, "index_n_heads": 16,
                          "index_head_dim": 64, "vocab_size": 32000}),
    "glm_moe_dsa": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2048,
                         "moe_intermediate_size": 256, "num_attention_heads": 8, "num_key_value_heads": 8,
                         "n_routed_experts": 16, "num_experts_per_tok": 4, "q_lora_rank": 512,
                         "index_n_heads": 8, "mlp_layer_types": ["dense", "sparse", "dense", "sparse"],
                         "vocab_size": 32000}),
    "gemma4_text": ({}, {"num_hidden_layers": 7, "hidden_size": 512, "intermediate_size": 1024,
                         "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 64, "global_head_dim": 128,
                         "attention_k_eq_v": True, "num_global_key_value_heads": 2, "enable_moe_block": True,
                         "num_experts": 8, "top_k_experts": 2, "moe_intermediate_size": 256,
                         "hidden_size_per_layer_input": 32, "vocab_size_per_layer_input": 1000, "sliding_window": 128,
                         "num_kv_shared_layers": 1, "use_double_wide_mlp": True, "vocab_size": 32000}),
    # Gemma 3n: the class's defaults are E4B's; the perturbed one has other streams, rank, per-layer inputs and
    # shared layers, and an untied head
    "gemma3n_text": ({}, {"num_hidden_layers": 10, "hidden_size": 512, "intermediate_size": 1024,
                          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "sliding_window": 128,
                          "num_kv_shared_layers": 5, "hidden_size_per_layer_input": 32,
                          "vocab_size_per_layer_input": 1000, "altup_num_inputs": 3, "laurel_rank": 16,
                          "vocab_size": 32000, "tie_word_embeddings": False}),
    "gpt_neox": ({}, {"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8,
                      "intermediate_size": 2048, "attention_bias": False, "vocab_size": 32000,
                      "tie_word_embeddings": True}),
    # Mamba-2 hybrids: every layer one mixer (Nemotron-H) or a mixer and an MLP (Bamba, Granite 4)
    "nemotron_h": ({}, {"hidden_size": 1024, "hybrid_override_pattern": "M-M*EM-E", "mamba_num_heads": 16,
                        "mamba_head_dim": 96, "n_groups": 4, "ssm_state_size": 64, "num_attention_heads": 8,
                        "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 3072,
                        "moe_intermediate_size": 512, "moe_shared_expert_intermediate_size": 768,
                        "n_routed_experts": 12, "num_experts_per_tok": 3, "vocab_size": 32000}),
    "bamba": ({}, {"num_hidden_layers": 6, "hidden_size": 1024, "attn_layer_indices": [2, 5],
                   "mamba_n_heads": 32, "mamba_n_groups": 2, "mamba_d_state": 64, "num_attention_heads": 8,
                   "num_key_value_heads": 4, "intermediate_size": 2816, "vocab_size": 32000}),
    "granitemoehybrid": ({}, {"num_hidden_layers": 5, "hidden_size": 768,
                              "layer_types": ["mamba", "mamba", "attention", "mamba", "attention"],
                              "mamba_n_heads": 24, "mamba_d_head": 64, "mamba_n_groups": 2, "mamba_d_state": 64,
                              "num_attention_heads": 12, "num_key_value_heads": 4, "intermediate_size": 384,
                              "shared_intermediate_size": 2048, "num_local_experts": 16, "num_experts_per_tok": 4,
                              "vocab_size": 32000, "tie_word_embeddings": True}),
    # LFM2: short convolutions among attention layers; the MLP's width derived from intermediate_size
    "lfm2": ({"layer_types": ["conv", "conv", "full_attention"] * 10 + ["conv", "conv"]},
             {"num_hidden_layers": 6, "hidden_size": 1024, "intermediate_size": 4608, "num_attention_heads": 16,
                  "num_key_value_heads": 4, "layer_types": ["conv", "conv", "full_attention", "conv", "full_attention",
                                                            "conv"], "conv_L_cache": 4, "conv_bias": True,
                  "block_ffn_dim_multiplier": 1.5, "block_multiple_of": 128, "vocab_size": 32000}),
    "falcon_h1": ({}, {"num_hidden_layers": 4, "hidden_size": 768, "intermediate_size": 2048, "num_attention_heads": 12,
                       "num_key_value_heads": 4, "head_dim": 64, "mamba_n_heads": 24, "mamba_d_head": 32,
                       "mamba_d_ssm": 768, "mamba_n_groups": 2, "mamba_d_state": 64, "mamba_rms_norm": True,
                       "projectors_bias": True, "attention_bias": True, "vocab_size": 32000}),
    "jamba": ({}, {"num_hidden_layers": 6, "hidden_size": 768, "intermediate_size": 2048, "num_attention_heads": 12,
                   "num_key_value_heads": 4, "attn_layer_period": 3, "attn_layer_offset": 2, "expert_layer_period": 2,
                   "expert_layer_offset": 0, "num_experts": 6, "num_experts_per_tok": 2, "mamba_d_state": 32,
                   "mamba_dt_rank": 48, "mamba_expand": 3, "vocab_size": 32000}),
    "mamba": ({}, {"num_hidden_layers": 4, "hidden_size": 768, "state_size": 32, "expand": 3, "conv_kernel": 3,
                   "use_bias": True, "vocab_size": 32000, "tie_word_embeddings": False}),
    "olmo_hybrid": ({}, {"num_hidden_layers": 6, "hidden_size": 1024, "intermediate_size": 2816,
                         "num_attention_heads": 16, "num_key_value_heads": 4, "linear_num_key_heads": 8,
                         "linear_num_value_heads": 16, "linear_key_head_dim": 64, "linear_value_head_dim": 96,
                         "layer_types": ["linear_attention", "full_attention", "linear_attention", "linear_attention",
                                         "full_attention", "linear_attention"], "vocab_size": 32000,
                         "pad_token_id": 1}),
    "lfm2_moe": ({"layer_types": ["conv", "conv", "full_attention", "conv"] * 8},
                 {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048, "moe_intermediate_size": 384,
                  "num_attention_heads": 12, "num_key_value_heads": 4, "num_dense_layers": 1, "num_experts": 12,
                  "num_experts_per_tok": 3, "layer_types": ["conv", "full_attention", "conv", "conv", "full_attention"],
                  "vocab_size": 32000}),
    "kimi_linear": ({}, {"num_hidden_layers": 5, "hidden_size": 1024, "intermediate_size": 2048,
                         "moe_intermediate_size": 256, "num_attention_heads": 8, "num_key_value_heads": 8,
                         "kv_lora_rank": 256, "q_lora_rank": 384, "qk_rope_head_dim": 32, "qk_nope_head_dim": 64,
                         "v_head_dim": 64, "num_experts": 16, "num_experts_per_token": 4, "num_shared_experts": 2,
                         "first_k_dense_replace": 2, "linear_attn_config": {"num_heads": 8, "head_dim": 64,
                         "short_conv_kernel_size": 3, "kda_layers": [1, 2, 4, 5], "full_attn_layers": [3]},
                         "vocab_size": 32000, "pad_token_id": 1}),
    "bailing_hybrid": ({}, {"num_hidden_layers": 8, "hidden_size": 1024, "intermediate_size": 2048,
                            "moe_intermediate_size": 256, "num_attention_heads": 8, "num_key_value_heads": 8,
                            "head_dim": 96, "kv_lora_rank": 256, "qk_rope_head_dim": 32, "qk_nope_head_dim": 64,
                            "v_head_dim": 64, "num_experts": 16, "num_experts_per_token": 4, "num_shared_experts": 1,
                            "first_k_dense_replace": 1, "layer_group_size": 4, "short_conv_kernel_size": 3,
                            "vocab_size": 32000, "pad_token_id": 1}),
    # Falcon: the class defaults are Falcon-7B's (multi-query, one LayerNorm); the perturbed one is 40B-like
    "falcon": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "num_attention_heads": 16, "num_kv_heads": 4,
                    "new_decoder_architecture": True, "bias": True, "ffn_hidden_size": 3072, "vocab_size": 32000}),
    "lfm3": ({}, {"num_hidden_layers": 6, "hidden_size": 1024, "intermediate_size": 3072, "num_attention_heads": 8,
                  "num_key_value_heads": 2, "head_dim": 96, "conv_L_cache": 5, "sliding_window": 128,
                  "layer_types": ["conv", "full_attention", "conv", "sliding_attention", "conv", "full_attention"],
                  "use_sandwich_norm": False, "vocab_size": 32000, "pad_token_id": 1}),
    # MiMo-V2-Flash: the perturbed config as the hub's files write it (their pattern keys agree with the class's)
    "mimo_v2_flash": ({}, {"num_hidden_layers": 7, "hidden_size": 512, "intermediate_size": 1024,
                           "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 48, "v_head_dim": 32,
                           "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 128,
                           "hybrid_layer_pattern": [0, 1, 1, 1, 1, 0, 1], "moe_layer_freq": [0, 1, 1, 1, 1, 1, 1],
                           "sliding_window": 64, "sliding_window_size": 64, "swa_num_key_value_heads": 4,
                           "add_swa_attention_sink_bias": True, "add_full_attention_sink_bias": False,
                           "vocab_size": 32000}),
    # Hunyuan: the classes leave head_dim None, which their attention cannot build with; 128 is the released models'
    "hunyuan_v1_dense": ({"head_dim": 128}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048,
                                             "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 96,
                                             "attention_bias": True, "use_qk_norm": True, "use_cla": False,
                                             "tie_word_embeddings": True, "vocab_size": 32000}),
    "hunyuan_v1_moe": ({"head_dim": 128}, {"num_hidden_layers": 4, "hidden_size": 512, "intermediate_size": 768,
                                           "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
                                           "num_experts": 8, "moe_topk": [2, 2, 3, 2], "moe_intermediate_size":
                                           [768] * 4, "num_shared_expert": [1] * 4, "use_mixed_mlp_moe": True,
                                           "use_qk_norm": True, "vocab_size": 32000}),
    "granitemoe": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 512,
                        "num_attention_heads": 12, "num_key_value_heads": 4, "num_local_experts": 10,
                        "num_experts_per_tok": 3, "attention_bias": True, "embedding_multiplier": 12.0,
                        "residual_multiplier": 0.22, "tie_word_embeddings": True, "vocab_size": 32000}),
    "granitemoeshared": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 512,
                              "num_attention_heads": 16, "num_key_value_heads": 8, "num_local_experts": 12,
                              "num_experts_per_tok": 2, "shared_intermediate_size": 1536, "vocab_size": 32000}),
    "granitemoe_swa": ({}, {"num_hidden_layers": 6, "hidden_size": 768, "intermediate_size": 384,
                            "num_attention_heads": 12, "num_key_value_heads": 4, "num_local_experts": 16,
                            "num_experts_per_tok": 4, "shared_intermediate_size": 1024, "sliding_window": 256,
                            "max_position_embeddings": 8192, "vocab_size": 32000}),
    "granite_swa": ({}, {"num_hidden_layers": 7, "hidden_size": 1024, "intermediate_size": 2816,
                         "num_attention_heads": 16, "num_key_value_heads": 4, "attention_bias": True, "mlp_bias": True,
                         "sliding_window": 512, "layer_types": ["full_attention", "sliding_attention",
                                                                "sliding_attention", "full_attention",
                                                                "sliding_attention", "sliding_attention",
                                                                "full_attention"],
                         "tie_word_embeddings": False, "vocab_size": 32000}),
    "flex_olmo": ({}, {"num_hidden_layers": 4, "hidden_size": 768, "intermediate_size": 1024,
                       "num_attention_heads": 12, "num_key_value_heads": 4, "num_experts": 6, "num_experts_per_tok": 2,
                       "vocab_size": 32000, "pad_token_id": 1}),
    "exaone_moe": ({"max_position_embeddings": 65536},
                   {"num_hidden_layers": 7, "hidden_size": 768, "intermediate_size": 2048, "moe_intermediate_size": 256,
                    "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 64, "num_experts": 16,
                    "num_experts_per_tok": 4, "num_shared_experts": 2, "first_k_dense_replace": 2,
                    "sliding_window": 512, "sliding_window_pattern": 3, "max_position_embeddings": 8192,
                    "vocab_size": 32000}),
    "mamba2": ({}, {"num_hidden_layers": 6, "hidden_size": 768, "num_heads": 24, "head_dim": 64, "n_groups": 4,
                    "state_size": 64, "expand": 2, "vocab_size": 32000, "tie_word_embeddings": True}),
    # LongCat-Flash: two MLA sublayers per layer, zero-computation experts, biases on attention and router
    "longcat_flash": ({}, {"num_layers": 3, "hidden_size": 512, "num_attention_heads": 8, "q_lora_rank": 96,
                           "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
                           "ffn_hidden_size": 1024, "expert_ffn_hidden_size": 128, "n_routed_experts": 8,
                           "zero_expert_num": 4, "moe_topk": 3, "attention_bias": True, "router_bias": True,
                           "vocab_size": 32000}),
    # DeepSeek-V4: the class's defaults are V4-Flash's sizes with V4-Pro's layer schedule; the perturbed one has
    # other rates, a sliding-only layer, two hash layers, the shared expert's count and biases given
    "deepseek_v4": ({}, {"num_hidden_layers": 5, "hidden_size": 512, "num_attention_heads": 8, "head_dim": 64,
                         "q_lora_rank": 96, "o_groups": 2, "o_lora_rank": 48, "hc_mult": 3, "n_routed_experts": 8,
                         "num_experts_per_tok": 2, "moe_intermediate_size": 128, "n_shared_experts": 2,
                         "index_n_heads": 4, "index_head_dim": 32, "sliding_window": 16, "num_hash_layers": 2,
                         "layer_types": ["sliding_attention", "compressed_sparse_attention",
                                         "heavily_compressed_attention", "compressed_sparse_attention",
                                         "sliding_attention"],
                         "compress_rates": {"compressed_sparse_attention": 8, "heavily_compressed_attention": 32},
                         "mlp_bias": True, "vocab_size": 32000, "tie_word_embeddings": True}),
    # Step 3.5/3.7 (its text config, step3p5): the class's 45 full layers; the perturbed one as the hub's files
    # write it: legacy keys, sliding layers of their own heads, lists padded with an MTP layer, biases
    "step3p5": ({}, {"num_hidden_layers": 6, "hidden_size": 512, "intermediate_size": 1024, "num_attention_heads": 8,
                     "num_attention_groups": 2, "head_dim": 64, "sliding_window": 64,
                     "attention_other_setting": {"attention_type": "sliding_attention", "num_attention_heads": 12,
                                                 "num_attention_groups": 2, "head_dim": 64},
                     "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "sliding_attention",
                                     "full_attention", "sliding_attention", "full_attention"],
                     "num_nextn_predict_layers": 1, "moe_layers_enum": "2,3,5", "moe_num_experts": 12,
                     "moe_top_k": 3, "moe_intermediate_size": 128, "share_expert_dim": 192, "attention_bias": True,
                     "mlp_bias": True, "vocab_size": 32000}),
    # Hy3: a sigmoid router over experts, shared experts of n × moe_intermediate_size, dense layers by mlp_layer_types
    "hy_v3": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048, "num_attention_heads": 12,
                   "num_key_value_heads": 4, "head_dim": 64, "num_experts": 12, "num_experts_per_tok": 3,
                   "num_shared_experts": 2, "moe_intermediate_size": 256,
                   "mlp_layer_types": ["dense", "sparse", "dense", "sparse", "sparse"], "mlp_bias": True,
                   "attention_bias": True, "vocab_size": 32000}),
    "internlm3": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2816,
                       "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64, "qkv_bias": True,
                       "bias": True, "tie_word_embeddings": True, "vocab_size": 32000}),
    "iquestcoder": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048,
                         "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 96, "attention_bias": True,
                         "vocab_size": 32000}),
    "cwm": ({}, {"num_hidden_layers": 6, "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 16,
                 "num_key_value_heads": 4, "head_dim": 64, "sliding_window": 512, "mlp_bias": True,
                 "vocab_size": 32000}),
    "solar_open": ({}, {"num_hidden_layers": 4, "hidden_size": 768, "num_attention_heads": 12, "num_key_value_heads": 4,
                        "head_dim": 96, "n_routed_experts": 16, "num_experts_per_tok": 4, "n_shared_experts": 2,
                        "moe_intermediate_size": 256, "attention_bias": True, "vocab_size": 32000}),
    "youtu": ({}, {"num_hidden_layers": 5, "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 8,
                   "num_key_value_heads": 8, "q_lora_rank": 384, "kv_lora_rank": 256, "qk_rope_head_dim": 32,
                   "qk_nope_head_dim": 64, "v_head_dim": 96, "tie_word_embeddings": False, "vocab_size": 32000}),
    # Llama 3.2 Vision's language model inside its wrapper (the tower apart): cross-attention layers (one past the
    # depth, built by nothing), a tie the classes never make, a padding row within the 8 extra embedding rows
    "mllama": ({"text_config": {"model_type": "mllama_text_model"}},
               {"text_config": {"model_type": "mllama_text_model", "num_hidden_layers": 6, "hidden_size": 768,
                                "intermediate_size": 2048, "num_attention_heads": 12, "num_key_value_heads": 4,
                                "cross_attention_layers": [0, 4, 9], "vocab_size": 32000, "pad_token_id": 0,
                                "tie_word_embeddings": True}}),
    # Emu3's language model inside its wrapper (the VQ-VAE apart): head_dim given, q/k/v/o and MLP biases
    "emu3": ({"text_config": {"model_type": "emu3_text_model"}},
             {"text_config": {"model_type": "emu3_text_model", "num_hidden_layers": 5, "hidden_size": 768,
                              "intermediate_size": 2048, "num_attention_heads": 12, "num_key_value_heads": 4,
                              "head_dim": 96, "attention_bias": True, "mlp_bias": True, "vocab_size": 32000,
                              "pad_token_id": 0}}),
    # Doge: the class's dense model; perturbed with DogeCDMoE (is_moe: 1,000 one-row experts, 31 product keys a
    # set), biases, head_dim given, a window, a tied head
    "doge": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 1536, "num_attention_heads": 12,
                  "num_key_value_heads": 4, "head_dim": 96, "attention_bias": True, "mlp_bias": True,
                  "sliding_window": 256, "is_moe": True, "num_experts": 1000, "num_experts_per_tok": 16,
                  "tie_word_embeddings": True, "vocab_size": 32000}),
    # EXAONE 4.5: EXAONE 4 inside a vision wrapper, its text_config's model_type in the first files' spelling
    "exaone4_5": ({"text_config": {"model_type": "exaone4", "max_position_embeddings": 65536}},
                  {"text_config": {"model_type": "exaone4_5_text", "num_hidden_layers": 5, "hidden_size": 768,
                                   "intermediate_size": 2048, "num_attention_heads": 12, "num_key_value_heads": 4,
                                   "sliding_window": 256, "max_position_embeddings": 8192, "vocab_size": 32000}}),
    # Command A Plus: the perturbed one with a dense prefix (its own width and window pattern), a shared expert,
    # biases, RMSNorms and an untied head, first_k_dense_replace as the hub's files may give it
    "cohere2_moe": ({}, {"num_hidden_layers": 7, "hidden_size": 768, "intermediate_size": 512,
                         "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 64, "num_experts": 12,
                         "num_experts_per_tok": 3, "num_shared_experts": 2, "first_k_dense_replace": 2,
                         "prefix_dense_intermediate_size": 2048, "prefix_dense_sliding_window_pattern": 2,
                         "sliding_window": 256, "attention_bias": True, "rms_norm_eps": 1e-5,
                         "tie_word_embeddings": False, "vocab_size": 32000}),
    # MiniMax-M3: the perturbed one as the hub's files write it (sparse_attention_config, moe_layer_freq as lists),
    # a shared expert and dense layers of their own widths, an indexer on four of six layers
    "minimax_m3_vl_text": ({}, {"num_hidden_layers": 6, "hidden_size": 768, "intermediate_size": 256,
                                "dense_intermediate_size": 2048, "shared_intermediate_size": 384,
                                "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 64,
                                "num_local_experts": 16, "num_experts_per_tok": 4, "moe_layer_freq": [0, 0, 1, 1, 1, 1],
                                "sparse_attention_config": {"use_sparse_attention": True, "sparse_index_dim": 64,
                                                            "sparse_num_index_heads": 2, "sparse_topk_blocks": 8,
                                                            "sparse_block_size": 64,
                                                            "sparse_attention_freq": [0, 1, 0, 1, 1, 1]},
                                "vocab_size": 32000}),
    # AFMoE: the perturbed one with biases (q/k/v/o, not the gate), two dense layers, every third layer full
    "afmoe": ({}, {"num_hidden_layers": 7, "hidden_size": 768, "intermediate_size": 2048,
                   "moe_intermediate_size": 256, "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 64,
                   "num_experts": 12, "num_experts_per_tok": 3, "num_shared_experts": 1, "num_dense_layers": 2,
                   "global_attn_every_n_layers": 3, "sliding_window": 256, "attention_bias": True,
                   "tie_word_embeddings": True, "vocab_size": 32000}),
    # Mistral Large 4: the perturbed one with biases, two dense layers, shared indexers (FFSFSFF), NoPE every 3rd
    "mistral_large4_text": ({}, {"num_hidden_layers": 7, "hidden_size": 768, "intermediate_size": 2048,
                                 "moe_intermediate_size": 256, "num_attention_heads": 12, "num_key_value_heads": 12,
                                 "kv_lora_rank": 128, "qk_rope_head_dim": 32, "qk_nope_head_dim": 48,
                                 "v_head_dim": 64, "head_dim": 32, "n_routed_experts": 12, "num_experts_per_tok": 3,
                                 "n_shared_experts": 2, "first_k_dense_replace": 2, "index_n_heads": 4,
                                 "index_head_dim": 64, "index_topk_pattern": "FFSFSFF", "no_rope_layer_interval": 3,
                                 "attention_bias": True, "vocab_size": 32000}),
    # Hy4: the perturbed one with other streams, heads, experts and depth, two shared experts, biases, a tied head,
    # dense layers by mlp_layer_types and the class's own indexer_types (layers 0, 1 and 5 full)
    "hy_v4": ({}, {"num_hidden_layers": 6, "hidden_size": 768, "intermediate_size": 2048, "moe_intermediate_size": 256,
                   "num_attention_heads": 8, "q_lora_rank": 384, "kv_lora_rank": 128, "qk_nope_head_dim": 48,
                   "qk_rope_head_dim": 32, "v_head_dim": 64, "n_routed_experts": 12, "num_experts_per_tok": 3,
                   "n_shared_experts": 2, "index_n_heads": 4, "index_head_dim": 64, "hc_mult": 3,
                   "mlp_layer_types": ["dense", "dense", "sparse", "sparse", "dense", "sparse"],
                   "attention_bias": True, "tie_word_embeddings": True, "vocab_size": 32000, "pad_token_id": 1}),
    # Gemma 4 unified: the perturbed one with full layers of their own head (K = V, 2 KV heads), a layer reusing
    # K/V with a double-wide MLP, an untied head
    "gemma4_unified_text": ({}, {"num_hidden_layers": 7, "hidden_size": 512, "intermediate_size": 1024,
                                 "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 64,
                                 "global_head_dim": 128, "attention_k_eq_v": True, "num_global_key_value_heads": 2,
                                 "num_kv_shared_layers": 1, "use_double_wide_mlp": True, "sliding_window": 128,
                                 "tie_word_embeddings": False, "vocab_size": 32000}),
    # Laguna: the perturbed one with sliding layers of their own heads (12, full 8), a gate per channel, biases,
    # two dense layers, a shared expert of its own width, a tied head
    "laguna": ({}, {"num_hidden_layers": 6, "hidden_size": 768, "intermediate_size": 2048, "num_attention_heads": 8,
                    "num_key_value_heads": 4, "head_dim": 64, "num_attention_heads_per_layer": [8, 12, 12, 8, 12, 12],
                    "layer_types": ["full_attention", "sliding_attention", "sliding_attention", "full_attention",
                                    "sliding_attention", "sliding_attention"], "sliding_window": 128,
                    "mlp_layer_types": ["dense", "dense", "sparse", "sparse", "sparse", "sparse"], "num_experts": 12,
                    "num_experts_per_tok": 3, "moe_intermediate_size": 256, "shared_expert_intermediate_size": 384,
                    "gating": "per-element", "attention_bias": True, "tie_word_embeddings": True,
                    "vocab_size": 32000}),
    # A.X-K1: the perturbed one with two dense layers (first_k_dense_replace, which AXK1Config pops), two shared
    # experts, biases (q_a, kv_a, o), an untied head
    "axk1": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048, "moe_intermediate_size": 256,
                  "num_attention_heads": 8, "num_key_value_heads": 8, "q_lora_rank": 256, "kv_lora_rank": 128,
                  "qk_rope_head_dim": 32, "qk_nope_head_dim": 48, "v_head_dim": 64, "n_routed_experts": 12,
                  "num_experts_per_tok": 3, "n_group": 4, "topk_group": 2, "n_shared_experts": 2,
                  "first_k_dense_replace": 2, "attention_bias": True, "tie_word_embeddings": False,
                  "vocab_size": 32000}),
    # A.X-K2: the perturbed one with two dense layers, two shared experts, another gate rank, biases, an untied head
    "axk2": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048, "moe_intermediate_size": 256,
                  "num_attention_heads": 8, "num_key_value_heads": 8, "q_lora_rank": 256, "kv_lora_rank": 128,
                  "qk_rope_head_dim": 32, "qk_nope_head_dim": 48, "v_head_dim": 64, "n_routed_experts": 12,
                  "num_experts_per_tok": 3, "n_shared_experts": 2, "first_k_dense_replace": 2, "index_n_heads": 4,
                  "index_head_dim": 64, "gated_norm_rank": 24, "attention_bias": True, "tie_word_embeddings": False,
                  "vocab_size": 32000}),
    # Inkling: the perturbed one with sliding layers of their own heads, KV heads and head size, another window,
    # relative extent, d_rel and kernel, two dense layers, one shared expert; tie_word_embeddings, which
    # InklingForCausalLM does not act on
    "inkling_text": ({}, {"num_hidden_layers": 6, "hidden_size": 512, "num_attention_heads": 8,
                          "num_key_value_heads": 2, "head_dim": 64, "swa_num_attention_heads": 12,
                          "swa_num_key_value_heads": 4,
                          "swa_head_dim": 32, "sliding_window_size": 64, "rel_extent": 96, "d_rel": 8,
                          "conv_kernel_size": 3, "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding",
                                                                 "hybrid_sliding", "hybrid_sliding", "hybrid"],
                          "mlp_layer_types": ["dense", "dense", "sparse", "sparse", "sparse", "sparse"],
                          "intermediate_size": 1024, "n_routed_experts": 8, "num_experts_per_tok": 2,
                          "n_shared_experts": 1, "moe_intermediate_size": 256, "vocab_size": 32000,
                          "tie_word_embeddings": True}),
    # GLM-5.3: the perturbed one with Kimi's linear_attn_config, its own layer kinds ("full_attention" read as
    # indexed), an index_topk_pattern with a shared layer, other MLA, pool, stream and expert sizes
    "glm5_next_text": ({}, {"num_hidden_layers": 6, "hidden_size": 512, "intermediate_size": 1024,
                            "num_attention_heads": 8, "num_key_value_heads": 8, "q_lora_rank": 128, "kv_lora_rank": 64,
                            "qk_nope_head_dim": 32, "v_head_dim": 48,
                            "linear_attn_config": {"num_heads": 4, "head_dim": 32, "short_conv_kernel_size": 3},
                            "layer_types": ["linear_attention", "full_attention", "linear_attention",
                                            "linear_attention", "full_attention", "full_attention"],
                            "index_topk_pattern": "FFFFFS", "index_n_heads": 4, "index_head_dim": 32,
                            "index_topk": 64, "index_kpool": 8, "hc_mult": 3, "n_routed_experts": 8,
                            "num_experts_per_tok": 2, "moe_intermediate_size": 128, "n_shared_experts": 2,
                            "vocab_size": 32000, "pad_token_id": 0}),
    # Dots3: the perturbed one as its released files give it (top-level keys, "full_attention" layers read as
    # indexed, swa_* sizes, sliding_window_size, first_k_dense_replace, the shared MLP's own width), with other
    # sizes everywhere, biases, two shared experts and a tied head
    "dots3_note_text": ({}, {"num_hidden_layers": 6, "hidden_size": 512, "intermediate_size": 1024,
                             "num_attention_heads": 8, "num_key_value_heads": 8, "q_lora_rank": 128,
                             "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
                             "swa_num_attention_heads": 4, "swa_num_key_value_heads": 4, "swa_q_lora_rank": 96,
                             "swa_kv_lora_rank": 128, "swa_qk_nope_head_dim": 48, "swa_qk_rope_head_dim": 32,
                             "swa_head_dim": 80, "swa_v_head_dim": 40, "sliding_window_size": 65,
                             "layer_types": ["full_attention", "sliding_attention", "full_attention",
                                             "sliding_attention", "sliding_attention", "full_attention"],
                             "index_n_heads": 4, "index_head_dim": 32, "n_routed_experts": 8, "num_experts_per_tok": 2,
                             "moe_intermediate_size": 128, "n_shared_experts": 2,
                             "moe_shared_expert_intermediate_size": 96, "first_k_dense_replace": 2,
                             "attention_bias": True, "tie_word_embeddings": True, "vocab_size": 32000,
                             "pad_token_id": 0}),
    # Inkling 2: the perturbed one with sliding layers of their own heads, KV heads and head size, its own layer
    # kinds (a full first layer), window, extent, d_rel, kernel and block length; a tie_word_embeddings it ignores
    "inkling2_text": ({}, {"num_hidden_layers": 7, "hidden_size": 512, "num_attention_heads": 8,
                           "num_key_value_heads": 2, "head_dim": 64, "swa_num_attention_heads": 12,
                           "swa_num_key_value_heads": 4, "swa_head_dim": 32, "sliding_window_size": 64,
                           "rel_extent": 96, "d_rel": 8, "conv_kernel_size": 3, "n_layers_per_attn_res_block": 3,
                           "layer_types": ["hybrid", "hybrid_sliding", "hybrid_sliding", "hybrid",
                                           "hybrid_sliding", "hybrid_sliding", "hybrid"],
                           "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 256,
                           "vocab_size": 32000, "tie_word_embeddings": True}),
    # ZAYA: the perturbed one with sliding layers, other kernels, another router width, biases (q/k/v/o and the
    # head's), an untied head
    "zaya": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "num_attention_heads": 8, "num_key_value_heads": 2,
                  "head_dim": 48, "num_experts": 6, "moe_intermediate_size": 512, "router_hidden_size": 96,
                  "cca_time0": 3, "cca_time1": 2, "layer_types": ["hybrid_sliding", "hybrid", "hybrid_sliding",
                                                                  "hybrid_sliding", "hybrid"],
                  "sliding_window": 128, "attention_bias": True, "lm_head_bias": True, "tie_word_embeddings": False,
                  "vocab_size": 32000, "eos_token_id": 1}),
    # StarCoder2: the perturbed one as StarCoder2-15B's config.json gives it (a window on every layer, GQA, the
    # hub's norm_type and mlp_type, dropouts) at other sizes, an untied head
    "starcoder2": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 3072,
                        "num_attention_heads": 12, "num_key_value_heads": 4, "sliding_window": 128,
                        "max_position_embeddings": 4096, "use_bias": True, "norm_type": "layer_norm",
                        "mlp_type": "default", "residual_dropout": 0.1, "embedding_dropout": 0.1,
                        "attention_dropout": 0.1, "tie_word_embeddings": False, "vocab_size": 32000}),
    # Arcee AFM: the perturbed one with GQA, a head_dim of its own, biases on attention and the MLP, a tied head
    "arcee": ({}, {"num_hidden_layers": 5, "hidden_size": 640, "intermediate_size": 4608, "num_attention_heads": 10,
                   "num_key_value_heads": 2, "head_dim": 96, "attention_bias": True, "mlp_bias": True,
                   "tie_word_embeddings": True, "vocab_size": 32000}),
    # Jais 2: the perturbed one with no KV heads given (the class's: all heads), no biases on attention (the class's
    # default is on), the MLP's left to the class (on)
    "jais2": ({}, {"num_hidden_layers": 5, "hidden_size": 832, "intermediate_size": 3328, "num_attention_heads": 13,
                   "attention_bias": False, "vocab_size": 32000}),
    # Mellum 2: the perturbed one as Mellum 2.1's config.json gives it (three sliding layers then a full one,
    # num_experts, Qwen's use_sliding_window and max_window_layers, per-kind rope_parameters) with two dense layers,
    # biases on q/k/v/o and another head size
    "mellum": ({}, {"num_hidden_layers": 8, "hidden_size": 768, "intermediate_size": 2048, "num_attention_heads": 8,
                    "num_key_value_heads": 2, "head_dim": 64, "num_experts": 12, "num_experts_per_tok": 3,
                    "moe_intermediate_size": 256, "sliding_window": 128, "use_sliding_window": True,
                    "max_window_layers": 0, "attention_bias": True,
                    "layer_types": ["full_attention" if i % 4 == 3 else "sliding_attention" for i in range(8)],
                    "mlp_layer_types": ["dense", "dense"] + ["sparse"] * 6,
                    "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0},
                                        "sliding_attention": {"rope_type": "default", "rope_theta": 500000.0}},
                    "tie_word_embeddings": False, "vocab_size": 32000}),
    # NanoChat: the perturbed one with GQA, a head_dim of its own, biases on attention, a tied head
    "nanochat": ({}, {"num_hidden_layers": 5, "hidden_size": 640, "intermediate_size": 2560,
                      "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 96, "attention_bias": True,
                      "final_logit_softcapping": 30.0, "tie_word_embeddings": True, "vocab_size": 32000}),
    # Persimmon: the perturbed one at other sizes and rotary fraction, with the q/k LayerNorms off
    "persimmon": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 3072,
                       "num_attention_heads": 12, "qk_layernorm": False, "partial_rotary_factor": 0.25,
                       "vocab_size": 32000}),
    # MiniMax-Text-01 / MiniMax-M1 (the hub's MiniMax-Text-01-hf sizes: 80 layers, every 8th softmax attention);
    # the perturbed one with its own layer kinds, a head_dim apart from hidden / heads, other experts, a tied head
    "minimax": ({"vocab_size": 200064, "hidden_size": 6144, "intermediate_size": 9216, "num_hidden_layers": 80,
                 "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 32,
                 "num_experts_per_tok": 2, "max_position_embeddings": 10240000,
                 "layer_types": ["full_attention" if i % 8 == 7 else "linear_attention" for i in range(80)]},
                {"num_hidden_layers": 7, "hidden_size": 512, "intermediate_size": 384, "num_attention_heads": 8,
                 "num_key_value_heads": 2, "head_dim": 48, "num_local_experts": 6, "num_experts_per_tok": 3,
                 "layer_types": ["linear_attention", "linear_attention", "full_attention", "linear_attention",
                                 "full_attention", "linear_attention", "linear_attention"],
                 "tie_word_embeddings": True, "vocab_size": 32000}),
    # Zamba2: the perturbed one with two shared blocks, attention adapters of another rank, biases, grouped B and C,
    # the hub's older "mamba" layer names, a use_conv_bias the class ignores, an untied head
    "zamba2": ({}, {"hidden_size": 512, "num_attention_heads": 8, "num_key_value_heads": 8, "intermediate_size": 1536,
                    "num_hidden_layers": 8, "layers_block_type": ["mamba", "mamba", "hybrid", "mamba", "hybrid",
                                                                   "mamba", "hybrid", "mamba"],
                    "num_mem_blocks": 2, "use_shared_attention_adapter": True, "adapter_rank": 32,
                    "add_bias_linear": True, "n_mamba_heads": 16, "mamba_ngroups": 2, "mamba_d_state": 32,
                    "mamba_d_conv": 3, "use_conv_bias": False, "tie_word_embeddings": False, "vocab_size": 32000}),
    # Zamba: the perturbed one with its hybrid layers by another period and offset, its own attention head size, KV
    # heads, time-step rank and Mamba heads, projection biases, an unbiased conv, an untied head (a block per use)
    "zamba": ({}, {"hidden_size": 512, "num_hidden_layers": 9, "num_attention_heads": 8, "num_key_value_heads": 4,
                   "attention_head_dim": 96, "intermediate_size": 1536, "attn_layer_period": 3,
                   "attn_layer_offset": 1, "n_mamba_heads": 4, "mamba_d_state": 8, "mamba_dt_rank": 24,
                   "mamba_proj_bias": True, "mamba_conv_bias": False, "tie_word_embeddings": False,
                   "vocab_size": 32000}),
    # decoders of 2019-23 (readers.Legacy), their keys under their own names
    "gptj": ({}, {"n_layer": 3, "n_embd": 512, "n_head": 8, "n_inner": 1536, "rotary_dim": 32, "vocab_size": 1000,
                  "tie_word_embeddings": True}),
    "codegen": ({}, {"n_layer": 3, "n_embd": 512, "n_head": 8, "n_inner": 1536, "rotary_dim": 32, "vocab_size": 1000}),
    "gpt_neo": ({}, {"num_layers": 5, "hidden_size": 512, "num_heads": 8, "intermediate_size": 1536,
                     "attention_types": [[["global", "local", "local"], 1], [["global", "local"], 1]],
                     "window_size": 64, "max_position_embeddings": 512, "vocab_size": 1000}),
    "gpt_bigcode": ({}, {"n_layer": 3, "n_embd": 512, "n_head": 8, "n_inner": 1536, "multi_query": False,
                         "n_positions": 300, "vocab_size": 1000, "tie_word_embeddings": False}),
    "bloom": ({"hidden_size": 4096, "n_layer": 30, "n_head": 32}, {"n_layer": 3, "hidden_size": 512, "n_head": 8,
                                                                    "vocab_size": 1000}),
    "opt": ({}, {"num_hidden_layers": 3, "hidden_size": 512, "num_attention_heads": 8, "ffn_dim": 1536,
                 "max_position_embeddings": 300, "do_layer_norm_before": False, "enable_bias": False,
                 "word_embed_proj_dim": 512, "vocab_size": 1000}),
    "xglm": ({}, {"num_layers": 3, "d_model": 512, "attention_heads": 8, "ffn_dim": 1536, "vocab_size": 1000}),
    "ctrl": ({}, {"n_layer": 3, "n_embd": 512, "n_head": 8, "dff": 1536, "vocab_size": 1000}),
    "mpt": ({}, {"n_layers": 3, "d_model": 512, "n_heads": 8, "max_seq_len": 300, "vocab_size": 1000}),
    "dbrx": ({}, {"n_layers": 3, "d_model": 512, "n_heads": 8, "vocab_size": 1000, "attn_config": {"kv_n_heads": 2},
                  "ffn_config": {"ffn_hidden_size": 768, "moe_num_experts": 6, "moe_top_k": 2}}),
    "falcon_mamba": ({}, {"num_hidden_layers": 3, "hidden_size": 512, "state_size": 8, "expand": 3,
                          "time_step_rank": 40, "vocab_size": 1000}),
    "gpt-sw3": ({}, {"n_layer": 3, "n_embd": 512, "n_head": 8, "n_inner": 1536, "vocab_size": 1000}),
    "openai-gpt": ({}, {"n_layer": 3, "n_embd": 512, "n_head": 8, "n_positions": 300, "vocab_size": 1000}),
    "recurrent_gemma": ({}, {"num_hidden_layers": 5, "hidden_size": 512, "intermediate_size": 1536,
                             "num_attention_heads": 8, "num_key_value_heads": 2, "lru_width": 384, "conv1d_width": 3,
                             "attention_window_size": 16, "block_types": ["recurrent", "attention"],
                             "attention_bias": True, "tie_word_embeddings": False, "vocab_size": 1000}),
    "jetmoe": ({}, {"num_hidden_layers": 3, "hidden_size": 512, "intermediate_size": 384, "num_key_value_heads": 4,
                    "kv_channels": 48, "num_local_experts": 6, "num_experts_per_tok": 3, "tie_word_embeddings": False,
                    "vocab_size": 1000}),
    "phi4_multimodal": ({}, {"num_hidden_layers": 3, "hidden_size": 512, "intermediate_size": 1536,
                             "num_attention_heads": 8, "tie_word_embeddings": True}),
    "aria_text": ({}, {"num_hidden_layers": 3, "hidden_size": 512, "intermediate_size": 192, "num_attention_heads": 8,
                       "num_key_value_heads": 2, "moe_num_experts": 12, "moe_topk": 3, "mlp_bias": True,
                       "vocab_size": 1000}),
    # BioGPT: the perturbed one at other sizes and context, an untied head
    "biogpt": ({}, {"num_hidden_layers": 3, "hidden_size": 512, "num_attention_heads": 8, "intermediate_size": 1536,
                    "max_position_embeddings": 300, "tie_word_embeddings": False, "vocab_size": 1000}),
    # GIT: the perturbed one at other sizes and context, a tied head (its bias kept), its own image tower
    "git": ({}, {"num_hidden_layers": 3, "hidden_size": 512, "num_attention_heads": 8, "intermediate_size": 1536,
                 "max_position_embeddings": 300, "tie_word_embeddings": True, "vocab_size": 1000,
                 "vision_config": {"hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
                                   "intermediate_size": 512, "image_size": 64}}),
    # Kolibri-1: the perturbed one with its own layer kinds and window, a shared MLP of its own width, a tied head
    "kolibri1": ({}, {"num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8, "num_key_value_heads": 2,
                      "head_dim": 48, "num_experts": 12, "num_experts_per_tok": 3, "moe_intermediate_size": 128,
                      "shared_expert_intermediate_size": 320, "sliding_window": 64,
                      "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"],
                      "tie_word_embeddings": True, "vocab_size": 1000}),
    # Beam: the perturbed one without layer_types (every 6th and the last full), two dense layers, biases on q/k/v/o,
    # no soft-capping, a tied head
    "beam": ({}, {"num_hidden_layers": 8, "hidden_size": 512, "intermediate_size": 1536, "num_attention_heads": 8,
                  "num_key_value_heads": 2, "head_dim": 48, "num_experts": 16, "num_experts_per_tok": 4,
                  "moe_intermediate_size": 128, "n_group": 4, "topk_group": 2, "sliding_window": 64,
                  "mlp_layer_types": ["dense", "dense"] + ["sparse"] * 6, "attention_bias": True,
                  "final_logit_softcapping": None, "tie_word_embeddings": True, "vocab_size": 1000}),
    # RWKV-4: the perturbed one with a time mixing narrower than hidden_size, its own MLP width and context, a tied head
    "rwkv": ({}, {"num_hidden_layers": 3, "hidden_size": 512, "attention_hidden_size": 384, "intermediate_size": 1536,
                  "context_length": 300, "tie_word_embeddings": True, "vocab_size": 1000}),
    # HRM-Text: the perturbed one with other cycles, its own head size, biases on attention and the MLP, a tied head
    "hrm_text": ({}, {"num_hidden_layers": 2, "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 4,
                      "head_dim": 48, "H_cycles": 2, "L_cycles": 2, "attention_bias": True, "mlp_bias": True,
                      "tie_word_embeddings": True, "vocab_size": 1000}),
    # Qwen4-Exp: its class defaults do not build (indexed_attention layers without the QSA keys: None // None); the
    # smallest change that builds gives the five (indexer_head_dim at least head_dim × partial_rotary_factor, 256).
    # The perturbed one as the checkpoint writes its layers ("full_attention"), other streams and rank, two PLE layers,
    # a tied head
    "qwen4_exp_text": ({"indexer_n_heads": 4, "indexer_kv_heads": 1, "indexer_head_dim": 256, "indexer_budget": 2048,
                        "indexer_compress_ratio": 4},
                       {"num_hidden_layers": 6, "hidden_size": 512, "num_attention_heads": 8, "num_key_value_heads": 2,
                        "head_dim": 64, "linear_num_key_heads": 4, "linear_num_value_heads": 8,
                        "linear_key_head_dim": 32, "linear_value_head_dim": 48, "linear_conv_kernel_dim": 3,
                        "layer_types": ["linear_attention", "linear_attention", "full_attention", "linear_attention",
                                        "linear_attention", "full_attention"], "num_experts": 12,
                        "num_experts_per_tok": 3, "moe_intermediate_size": 128, "shared_expert_intermediate_size": 192,
                        "hc_count": 3, "hc_lowrank": 48, "indexer_n_heads": 2, "indexer_kv_heads": 1,
                        "indexer_head_dim": 64, "indexer_budget": 16, "indexer_compress_ratio": 4,
                        "ple_layer_ids": [2, 4], "ple_embed_dim": 96, "heads_per_ngram": 3, "ple_conv_kernel_size": 3,
                        "ngram_vocab_size_base": 1000, "make_ngram_vocab_size_divisible_by": 8, "eos_token_id": 5,
                        "tie_word_embeddings": True, "vocab_size": 1000}),
    # Ministral: the class leaves head_dim None, which MinistralAttention reads as is (getattr finds the None): the
    # smallest change that builds is head_dim 128 (hidden / heads, Ministral-8B's). The perturbed one interleaves
    # full and sliding layers by layer_types, a tied head
    "ministral": ({"head_dim": 128}, {"num_hidden_layers": 6, "hidden_size": 768, "intermediate_size": 2048,
                                      "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 96,
                                      "sliding_window": 64, "layer_types": ["full_attention", "sliding_attention",
                                                                            "sliding_attention", "sliding_attention",
                                                                            "full_attention", "sliding_attention"],
                                      "tie_word_embeddings": True, "vocab_size": 32000}),
    # dots.llm1: the class leaves n_routed_experts, n_shared_experts and num_experts_per_tok None (torch.empty(None,
    # ...)); the smallest change that builds gives dots.llm1's 128, 2 and 6. The perturbed one: two dense layers,
    # sliding layers from max_window_layers on (no use_sliding_window: Dots1Config does not read it), biases, tied
    "dots1": ({"n_routed_experts": 128, "n_shared_experts": 2, "num_experts_per_tok": 6},
              {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048, "moe_intermediate_size": 256,
               "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 64, "n_routed_experts": 12,
               "num_experts_per_tok": 3, "n_shared_experts": 1, "first_k_dense_replace": 2, "sliding_window": 64,
               "max_window_layers": 3, "attention_bias": True, "tie_word_embeddings": True, "vocab_size": 32000}),
    # Nemotron-4: the class leaves num_key_value_heads None, which NemotronAttention divides by; the smallest change
    # that builds gives Nemotron-4-15B's 8 (GQA). The perturbed one: its own head size, biases on attention and the
    # MLP, a quarter of each head rotary, a tied head
    "nemotron": ({"num_key_value_heads": 8}, {"num_hidden_layers": 4, "hidden_size": 768, "intermediate_size": 3072,
                                              "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 96,
                                              "attention_bias": True, "mlp_bias": True, "partial_rotary_factor": 0.25,
                                              "tie_word_embeddings": True, "vocab_size": 32000}),
    # Cohere Compass (North-Micro-Vision's text model): the class's rope_parameters have no entry per layer kind, which
    # its rotary embedding looks up (KeyError 'full_attention'); the smallest change that builds gives the full layers
    # one. The perturbed one as the hub's file writes it: sliding layers with their rope, NoPE full ones, its own head
    # size, biases, an untied head
    "cohere_compass_text": ({"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10000.0}}},
                            {"num_hidden_layers": 6, "hidden_size": 768, "intermediate_size": 2048,
                             "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 32, "sliding_window": 64,
                             "layer_types": ["sliding_attention", "sliding_attention", "full_attention",
                                             "sliding_attention", "sliding_attention", "full_attention"],
                             "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 50000.0},
                                                 "full_attention": None},
                             "attention_bias": True, "logit_scale": 0.25, "tie_word_embeddings": False,
                             "vocab_size": 32000}),
    # Gemma 3n's wrapper: its text_config's defaults (E4B's), and a perturbed text_config; the towers apart
    "gemma3n": ({"text_config": {"model_type": "gemma3n_text"}},
                {"text_config": {"num_hidden_layers": 10, "hidden_size": 512, "intermediate_size": 1536,
                                 "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
                                 "sliding_window": 128, "num_kv_shared_layers": 5, "hidden_size_per_layer_input": 48,
                                 "vocab_size_per_layer_input": 1000, "altup_num_inputs": 2, "laurel_rank": 32,
                                 "vocab_size": 32000}}),
    # Gemma 4's drafters (Gemma4AssistantForCausalLM): every layer reuses the target's K/V. Their class defaults fail:
    # gemma4_assistant's text_config keeps Gemma4TextConfig's per-layer inputs, which validate_architecture refuses
    # (the smallest change: none, hidden_size_per_layer_input 0, vocab_size_per_layer_input 0); both then need the
    # kv_sharing_modes patch below. The perturbed ones with their own head sizes, K = V full layers, another
    # backbone width, the centroid head (use_ordered_embeddings) and an untied head
    "gemma4_assistant": ({"text_config": {"model_type": "gemma4_text", "hidden_size_per_layer_input": 0,
                                          "vocab_size_per_layer_input": 0}},
                         {"backbone_hidden_size": 768, "use_ordered_embeddings": True, "num_centroids": 64,
                          "tie_word_embeddings": False,
                          "text_config": {"num_hidden_layers": 4, "hidden_size": 256, "intermediate_size": 1024,
                                          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
                                          "global_head_dim": 128, "attention_k_eq_v": True,
                                          "num_global_key_value_heads": 1, "hidden_size_per_layer_input": 0,
                                          "vocab_size_per_layer_input": 0, "sliding_window": 128,
                                          "layer_types": ["sliding_attention"] * 3 + ["full_attention"],
                                          "vocab_size": 32000}}),
    "gemma4_unified_assistant": ({}, {"backbone_hidden_size": 640, "use_ordered_embeddings": True, "num_centroids": 32,
                                      "text_config": {"num_hidden_layers": 3, "hidden_size": 384,
                                                      "intermediate_size": 768, "num_attention_heads": 6,
                                                      "num_key_value_heads": 2, "head_dim": 64,
                                                      "global_head_dim": 96, "sliding_window": 64,
                                                      "layer_types": ["full_attention", "sliding_attention",
                                                                      "full_attention"],
                                                      "vocab_size": 32768}}),
    # GLM-4-0414: the perturbed one with a head_dim of its own (not hidden / heads), GQA, partial rotary as the
    # released files give it, no q/k/v bias, a tied head
    "glm4": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048, "num_attention_heads": 12,
                  "num_key_value_heads": 4, "head_dim": 80, "partial_rotary_factor": 0.5, "attention_bias": False,
                  "rms_norm_eps": 1e-05, "tie_word_embeddings": True, "vocab_size": 32000, "pad_token_id": 0}),
    # GLM-4-9B-chat's class: the perturbed one with head_dim left to the class (128 whatever hidden / heads), GQA,
    # the q/k/v bias by default, partial rotary
    "glm": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 16,
                 "num_key_value_heads": 4, "partial_rotary_factor": 0.5, "rms_norm_eps": 1.5625e-07,
                 "vocab_size": 32000, "pad_token_id": 0}),
    # StableLM: the perturbed one as StableLM 2 12B's config.json sets it (q/k/v biases, a LayerNorm per q and k
    # head, parallel attention and MLP, partial rotary) at other sizes, with GQA
    "stablelm": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2816,
                      "num_attention_heads": 16, "num_key_value_heads": 4, "use_qkv_bias": True,
                      "qk_layernorm": True, "use_parallel_residual": True, "partial_rotary_factor": 0.25,
                      "layer_norm_eps": 1e-05, "tie_word_embeddings": False, "vocab_size": 32000}),
    # OLMo 1: the perturbed one as OLMo-7B-0424-hf's config.json sets it (clip_qkv) at other sizes, with GQA, biases
    # on q/k/v/o and a tied head
    "olmo": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 16,
                  "num_key_value_heads": 4, "clip_qkv": 8.0, "attention_bias": True, "tie_word_embeddings": True,
                  "max_position_embeddings": 4096, "vocab_size": 32000}),
    # MiniCPM3: the perturbed one as MiniCPM3-4B's config.json gives it (no v_head_dim: hidden / heads; scale_emb,
    # scale_depth, dim_model_base) at other sizes and ranks, with biases on q_a, kv_a, o and the MLP, an untied head
    "minicpm3": ({}, {"num_hidden_layers": 4, "hidden_size": 768, "intermediate_size": 2048, "num_attention_heads": 12,
                      "num_key_value_heads": 12, "q_lora_rank": 192, "kv_lora_rank": 128, "qk_nope_head_dim": 48,
                      "qk_rope_head_dim": 16, "scale_emb": 12, "scale_depth": 1.4, "dim_model_base": 256,
                      "attention_bias": True, "mlp_bias": True, "tie_word_embeddings": False, "vocab_size": 32000}),
    # BitNet b1.58: the perturbed one at other sizes, with GQA, biases on q/k/v/o and a tied head
    "bitnet": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 16,
                    "num_key_value_heads": 4, "attention_bias": True, "tie_word_embeddings": True,
                    "hidden_act": "relu2", "vocab_size": 32000, "bos_token_id": 1, "eos_token_id": 2}),
    # Helium: the perturbed one at other sizes, with GQA, biases on q/k/v and the MLP, a tied head
    "helium": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2816, "num_attention_heads": 8,
                    "num_key_value_heads": 2, "head_dim": 128, "attention_bias": True, "mlp_bias": True,
                    "tie_word_embeddings": True, "vocab_size": 32000}),
    # VaultGemma: the perturbed one with its own layer kinds, window and head size, biases on q/k/v/o, an untied head
    "vaultgemma": ({}, {"num_hidden_layers": 5, "hidden_size": 768, "intermediate_size": 2048,
                        "num_attention_heads": 6, "num_key_value_heads": 2, "head_dim": 96, "sliding_window": 128,
                        "layer_types": ["sliding_attention", "sliding_attention", "full_attention",
                                        "sliding_attention", "full_attention"], "query_pre_attn_scalar": 96,
                        "attention_bias": True, "tie_word_embeddings": False, "vocab_size": 32000}),
    # HyperCLOVA X SEED: the perturbed one with GQA, a head_dim of its own, biases on q/k/v/o and the MLP, the muP
    # multipliers, a tied head (post-norms on, the class default)
    "hyperclovax": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2816,
                         "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 80, "attention_bias": True,
                         "mlp_bias": True, "embedding_multiplier": 10.0, "logits_scaling": 0.125,
                         "residual_multiplier": 0.5, "attention_multiplier": 0.0125, "tie_word_embeddings": True,
                         "vocab_size": 32000}),
    # DiffLlama: the perturbed one with GQA (an even number of KV heads), a head_dim of its own, biases on q/k/v/o,
    # a tied head
    "diffllama": ({}, {"num_hidden_layers": 4, "hidden_size": 1024, "intermediate_size": 2816,
                       "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 80, "attention_bias": True,
                       "lambda_std_dev": 0.1, "tie_word_embeddings": True, "vocab_size": 32000}),
}
# Released configs as public copies give them: a third case, "<type>/released". Qwen3.8-Flash-Next (qwen4_exp_text):
# its text_config as ports' tests copy it (48 layers, every 4th full_attention, PLE on layer 2; no config.json stored)
RELEASED = {"qwen4_exp_text": {
    "vocab_size": 248320, "hidden_size": 2560, "num_hidden_layers": 48, "num_attention_heads": 24,
    "num_key_value_heads": 2, "head_dim": 256, "max_position_embeddings": 262144,
    "layer_types": ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(48)],
    "linear_num_key_heads": 16, "linear_num_value_heads": 48, "linear_key_head_dim": 128,
    "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "num_experts": 512, "num_experts_per_tok": 10,
    "moe_intermediate_size": 640, "shared_expert_intermediate_size": 640, "hc_count": 4, "hc_lowrank": 320,
    "indexer_n_heads": 4, "indexer_kv_heads": 1, "indexer_head_dim": 128, "indexer_budget": 2048,
    "indexer_compress_ratio": 4, "ple_layer_ids": [2], "ple_embed_dim": 2560, "ple_conv_kernel_size": 4,
    "ngram_size": 3, "heads_per_ngram": 8, "ngram_vocab_size_base": 20000000, "split_ngram_parts": 128,
    "make_ngram_vocab_size_divisible_by": 128, "output_gate_type": "sigmoid", "eos_token_id": 248044,
    "rope_parameters": {"mrope_interleaved": True, "mrope_section": [11, 11, 10], "partial_rotary_factor": 0.25,
                        "rope_theta": 10000000, "rope_type": "default"}, "tie_word_embeddings": False},
    # LFM2-8B-A1B as a port's test copies its config.json (mlxcel, models/lfm2 tests: the shape keys, tie left to the
    # class: tied)
    "lfm2_moe": {"vocab_size": 65536, "hidden_size": 2048, "intermediate_size": 7168, "moe_intermediate_size": 1792,
                 "num_hidden_layers": 24, "num_attention_heads": 32, "num_key_value_heads": 8,
                 "max_position_embeddings": 128000, "norm_eps": 1e-05, "conv_bias": False, "conv_L_cache": 3,
                 "num_dense_layers": 2, "num_experts": 32, "num_experts_per_tok": 4, "norm_topk_prob": True,
                 "use_expert_bias": True, "routed_scaling_factor": 1.0,
                 "layer_types": ["conv", "conv", "full_attention", "conv", "conv", "conv", "full_attention", "conv",
                                 "conv", "conv", "full_attention", "conv", "conv", "conv", "full_attention", "conv",
                                 "conv", "conv", "full_attention", "conv", "conv", "full_attention", "conv", "conv"]},
    # Hunyuan-A13B as a port's test copies it (per-layer lists; tie left to the class: untied)
    "hunyuan_v1_moe": {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                       "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 3072, "vocab_size": 128167,
                       "num_experts": 64, "moe_intermediate_size": [3072] * 32, "moe_topk": [8] * 32,
                       "num_shared_expert": [1] * 32},
    # Hunyuan-7B as a port's test copies it
    "hunyuan_v1_dense": {"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                         "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 14336, "vocab_size": 128167,
                         "tie_word_embeddings": True, "max_position_embeddings": 32768},
    # dots.llm1.inst as a port's test copies it (mlxcel, models/dots1 tests)
    "dots1": {"hidden_size": 4096, "num_hidden_layers": 62, "intermediate_size": 10944, "num_attention_heads": 32,
              "num_key_value_heads": 32, "rms_norm_eps": 1e-05, "vocab_size": 152064, "first_k_dense_replace": 1,
              "moe_intermediate_size": 1408, "n_routed_experts": 128, "n_shared_experts": 2, "num_experts_per_tok": 6,
              "norm_topk_prob": True, "routed_scaling_factor": 2.5, "max_position_embeddings": 32768,
              "attention_bias": False, "tie_word_embeddings": False},
    # North-Micro-Vision's text model as a port's notes give it: 28 layers, every 4th full (NoPE), tied
    "cohere_compass_text": {"vocab_size": 262144, "hidden_size": 2048, "intermediate_size": 6144,
                            "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 8,
                            "head_dim": 128, "layer_types": (["sliding_attention"] * 3 + ["full_attention"]) * 7,
                            "sliding_window": 4096,
                            "logit_scale": 0.25, "tie_word_embeddings": True,
                            "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 50000.0,
                                                                      "mrope_section": [24, 20, 20],
                                                                      "mrope_interleaved": True},
                                                "full_attention": None}}}
# BitNet b1.58 2B4T's bf16 release as a public model card copies its config.json (its quantization_config, bitnet
# autobitlinear online, left out: from_config builds no quantizer; the card lists 2,412,820,480 parameters)
RELEASED["bitnet"] = {"hidden_act": "relu2", "hidden_size": 2560, "intermediate_size": 6912,
                      "max_position_embeddings": 4096, "rms_norm_eps": 1e-05, "num_attention_heads": 20,
                      "num_hidden_layers": 30, "num_key_value_heads": 5, "rope_theta": 500000.0,
                      "tie_word_embeddings": True, "vocab_size": 128256, "bos_token_id": 128000,
                      "eos_token_id": 128001}
# Gemma 4's released drafters as ports' notes and tests copy their config.json (no file stored): E2B's (centroid head,
# backbone 1536) and the 12B unified model's (K = V full layers, backbone 3840)
_DRAFTER = {"num_hidden_layers": 4, "num_kv_shared_layers": 4, "head_dim": 256, "global_head_dim": 512,
            "vocab_size": 262144, "hidden_size_per_layer_input": 0,
            "layer_types": ["sliding_attention"] * 3 + ["full_attention"]}
RELEASED.update({
    "gemma4_assistant": {"backbone_hidden_size": 1536, "use_ordered_embeddings": True, "num_centroids": 2048,
                         "centroid_intermediate_top_k": 32, "tie_word_embeddings": True, "text_config": {
                             **_DRAFTER, "hidden_size": 256, "intermediate_size": 2048, "num_attention_heads": 4,
                             "num_key_value_heads": 1, "vocab_size_per_layer_input": 0, "sliding_window": 512,
                             "enable_moe_block": False, "use_double_wide_mlp": False, "attention_k_eq_v": False,
                             "max_position_embeddings": 131072}},
    "gemma4_unified_assistant": {"backbone_hidden_size": 3840, "use_ordered_embeddings": False, "num_centroids": 2048,
                                 "centroid_intermediate_top_k": 32, "tie_word_embeddings": True, "text_config": {
                                     **_DRAFTER, "model_type": "gemma4_unified_text", "hidden_size": 1024,
                                     "intermediate_size": 8192, "num_attention_heads": 16, "num_key_value_heads": 8,
                                     "num_global_key_value_heads": 1, "attention_k_eq_v": True, "sliding_window": 1024,
                                     "max_position_embeddings": 262144}}})


def _all_layers_reuse(config_class) -> None:
    """transformers 5.23's Gemma4TextConfig.kv_sharing_modes (and Gemma4UnifiedTextConfig's) raises when every layer
    reuses K/V ("The set of layer types producing a cache is different ..."), which a drafter's text_config must
    (Gemma4AssistantConfig.validate_architecture): the class cannot build. Patched to what the drafter's layers are,
    every one "reuse" (Gemma4TextAttention without k_proj, v_proj, k_norm, v_norm); other configs unchanged."""
    modes = config_class.kv_sharing_modes

    def patched(self):
        if self.num_kv_shared_layers == self.num_hidden_layers:
            return ["reuse"] * self.num_hidden_layers
        return modes.fget(self)
    config_class.kv_sharing_modes = property(patched)


# Text configs with no causal LM of their own: counted inside their wrapper (its towers left out by NOT_TEXT)
WRAPPED = {"step3p5": "Step3p7", "mistral_large4_text": "MistralLarge4", "glm5_next_text": "Glm5Next"}


def text_params(config) -> int:
    if config.model_type == "dbrx":  # DbrxAttention reads attn_config.rope_theta, which 5.23's DbrxConfig never sets
        config.attn_config.rope_theta = config.rope_parameters["rope_theta"]
    with torch.device("meta"):
        try:
            model = AutoModelForCausalLM.from_config(config)
        except ImportError:  # Gemma 3n's wrapper builds its vision tower with timm: the language model and the
            # head are its text_config's causal LM's, the towers (left out below) apart
            model = AutoModelForCausalLM.from_config(config.text_config)
        except ValueError:  # a text model the Auto map lists only inside its multimodal wrapper (Mistral 4)
            wrapper = WRAPPED.get(config.model_type)
            if wrapper:
                outer = getattr(transformers, wrapper + "Config")(text_config=config.to_dict())
                model = getattr(transformers, wrapper + "ForConditionalGeneration")(outer)
            else:
                name = MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.get(config.model_type)  # a wrapper, whole
                name = name or type(config).__name__.removesuffix("Config") + "ForCausalLM"
                model = getattr(transformers, name)(config)
    seen, total = set(), 0
    for name, param in model.named_parameters(remove_duplicate=True):
        if id(param) not in seen and not NOT_TEXT.search(name):
            seen.add(id(param))
            total += param.numel()
    return total


def main(argv=None):
    from transformers.models.gemma4.configuration_gemma4 import Gemma4TextConfig
    from transformers.models.gemma4_unified.configuration_gemma4_unified import Gemma4UnifiedTextConfig
    _all_layers_reuse(Gemma4TextConfig)
    _all_layers_reuse(Gemma4UnifiedTextConfig)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "types.json"))
    parser.add_argument("types", nargs="*")
    args = parser.parse_args(argv)
    before = json.loads(Path(args.out).read_text(encoding="utf-8")) if args.types else {"cases": []}
    kept = {case["name"]: case for case in before["cases"] if case["name"].split("/")[0] not in args.types}
    cases = []
    for model_type, (full_changes, small) in CASES.items():
        if args.types and model_type not in args.types:
            cases += [kept[name] for name in (f"{model_type}/full", f"{model_type}/perturbed", f"{model_type}/released")
                      if name in kept]
            continue
        if "text_config" in full_changes:  # a wrapper: its text model's defaults, the vision tower left to the class
            text = dict(full_changes["text_config"])
            text = AutoConfig.for_model(text.pop("model_type"), **text).to_dict()
            full = {"text_config": {k: v for k, v in text.items() if k not in NOISE}}
        else:
            full = {k: v for k, v in AutoConfig.for_model(model_type, **full_changes).to_dict().items()
                    if k not in NOISE}
        released = (("released", RELEASED[model_type]),) if model_type in RELEASED else ()
        for label, given in (("full", full), ("perturbed", small), *released):
            kwargs = {k: v for k, v in given.items() if k != "model_type"}
            count = text_params(AutoConfig.for_model(model_type, **kwargs))
            cases.append({"name": f"{model_type}/{label}", "config": {"model_type": model_type, **kwargs},
                          "text_params": count})
            print(f"{model_type:18s} {label:9s} {count:>18,}")
    about = (f"tools/measure_types.py, {datetime.date.today()}, transformers {transformers.__version__}, "
             f"torch {torch.__version__}, Python {platform.python_version()}")
    if args.types:
        about = f"{before['_about']}; {', '.join(args.types)}: {about}"
    out = {"_about": about, "cases": cases}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
