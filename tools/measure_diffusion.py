"""Count the parts of the diffusion pipeline presets exactly, on PyTorch's `meta` device.

A developer tool, not run by CI. For every part of every preset in app/vramcalc/data/diffusion/ it builds the
diffusers class (`from_config`) or the transformers class (its config class from the config.json keys) on
`torch.device("meta")` (shapes only) and records its parameter count, its number of parameter tensors and the
elements of its one-dimensional tensors (biases, norms: what GGUF keeps in F32). It does the same for small
configs of other depth, width and switches, given as a config.json would give them, so that the engine's
counters (vramcalc/diffusion/tensors.py) are tested off the presets too, and loads each small config through
save_pretrained/from_pretrained in bf16, fp16 and fp32 (and with diffusers' fp8 layerwise casting) for the bytes
it holds. Then it runs small denoisers and VAEs in bf16 on the CPU (SDPA) under tools/measure_peak.py's tracker
for the working memory of one denoising step (a DiT's, a UNet's) and of one decode, untiled and tiled, and the text
encoders (transformers' classes) for one prompt's forward (tests/golden/diffusion_stages.json). --only measures one
section and keeps the others as the file has them (the date of each section is kept).
tests/test_diffusion.py holds the engine to both files.

Usage: python tools/measure_diffusion.py [--out tests/golden/diffusion_params.json]
       [--only params|steps|decodes|encoders|unet_steps] [--classes Flux2Transformer2DModel,...]
Needs: pip install torch==2.13.0 transformers==5.23.0 diffusers==0.42.1
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import tempfile
from pathlib import Path

import diffusers
import torch
import transformers

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "app"))
sys.path.insert(0, str(ROOT / "tools"))

from vramcalc.diffusion.pipelines import load_pipelines  # noqa: E402

# Small configs of each class, other than the presets' (depth, width, switches), as config.json keys.
PERTURBED: list[tuple[str, dict]] = [
    ("FluxTransformer2DModel", {"num_layers": 2, "num_single_layers": 3, "num_attention_heads": 4,
                                "attention_head_dim": 32, "joint_attention_dim": 96, "pooled_projection_dim": 48,
                                "in_channels": 16, "guidance_embeds": True}),
    ("FluxTransformer2DModel", {"num_layers": 1, "num_single_layers": 2, "num_attention_heads": 2,
                                "attention_head_dim": 64, "in_channels": 64, "out_channels": 16, "patch_size": 2}),
    ("SD3Transformer2DModel", {"num_layers": 4, "num_attention_heads": 3, "attention_head_dim": 32,
                               "caption_projection_dim": 96, "joint_attention_dim": 80, "pooled_projection_dim": 40,
                               "qk_norm": "rms_norm", "dual_attention_layers": [0, 2], "pos_embed_max_size": 32}),
    ("SD3Transformer2DModel", {"num_layers": 2, "num_attention_heads": 2, "attention_head_dim": 48,
                               "caption_projection_dim": 96, "patch_size": 1, "pos_embed_max_size": 32}),
    ("WanTransformer3DModel", {"num_layers": 3, "num_attention_heads": 4, "attention_head_dim": 32, "ffn_dim": 200,
                               "text_dim": 64, "freq_dim": 32, "in_channels": 8, "out_channels": 8}),
    ("WanTransformer3DModel", {"num_layers": 2, "num_attention_heads": 2, "attention_head_dim": 16, "ffn_dim": 64,
                               "text_dim": 24, "cross_attn_norm": False, "patch_size": [2, 2, 2]}),
    ("HunyuanVideoTransformer3DModel", {"num_layers": 2, "num_single_layers": 3, "num_refiner_layers": 1,
                                        "num_attention_heads": 3, "attention_head_dim": 32, "mlp_ratio": 2.5,
                                        "text_embed_dim": 80, "pooled_projection_dim": 48, "in_channels": 8,
                                        "out_channels": 4, "patch_size": 1, "patch_size_t": 2,
                                        "guidance_embeds": False, "rope_axes_dim": [8, 12, 12]}),
    ("HunyuanVideoTransformer3DModel", {"num_layers": 1, "num_single_layers": 1, "num_refiner_layers": 3,
                                        "num_attention_heads": 2, "attention_head_dim": 16, "text_embed_dim": 24,
                                        "pooled_projection_dim": 16, "rope_axes_dim": [4, 6, 6]}),
    ("HunyuanVideo15Transformer3DModel", {"num_layers": 2, "num_refiner_layers": 3, "num_attention_heads": 3,
                                          "attention_head_dim": 16, "mlp_ratio": 2.5, "text_embed_dim": 40,
                                          "text_embed_2_dim": 24, "image_embed_dim": 20, "in_channels": 9,
                                          "out_channels": 4, "patch_size": 2, "use_meanflow": True,
                                          "rope_axes_dim": [4, 6, 6]}),
    ("HunyuanVideo15Transformer3DModel", {"num_layers": 1, "num_refiner_layers": 1, "num_attention_heads": 2,
                                          "attention_head_dim": 32, "text_embed_dim": 48, "text_embed_2_dim": 32,
                                          "image_embed_dim": 24, "patch_size_t": 2, "rope_axes_dim": [8, 12, 12]}),
    ("UNet2DConditionModel", {"block_out_channels": [32, 64], "layers_per_block": 1, "cross_attention_dim": 24,
                              "attention_head_dim": 8, "norm_num_groups": 8,
                              "down_block_types": ["CrossAttnDownBlock2D", "DownBlock2D"],
                              "up_block_types": ["UpBlock2D", "CrossAttnUpBlock2D"]}),
    ("UNet2DConditionModel", {"block_out_channels": [32, 64, 96], "layers_per_block": [1, 2, 1],
                              "transformer_layers_per_block": [1, 2, 3], "cross_attention_dim": 40,
                              "attention_head_dim": [2, 4, 6], "norm_num_groups": 16, "use_linear_projection": True,
                              "addition_embed_type": "text_time", "addition_time_embed_dim": 8,
                              "projection_class_embeddings_input_dim": 88,
                              "down_block_types": ["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
                              "up_block_types": ["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"]}),
    ("AutoencoderKL", {"block_out_channels": [32, 64], "layers_per_block": 1, "latent_channels": 8,
                       "norm_num_groups": 8, "down_block_types": ["DownEncoderBlock2D"] * 2,
                       "up_block_types": ["UpDecoderBlock2D"] * 2}),
    ("AutoencoderKL", {"block_out_channels": [16, 32, 48], "layers_per_block": 2, "latent_channels": 4,
                       "norm_num_groups": 8, "use_quant_conv": False, "mid_block_add_attention": False,
                       "down_block_types": ["DownEncoderBlock2D"] * 3, "up_block_types": ["UpDecoderBlock2D"] * 3}),
    ("AutoencoderKLHunyuanVideo", {"block_out_channels": [16, 32, 48], "layers_per_block": 1, "latent_channels": 8,
                                   "norm_num_groups": 8, "down_block_types": ["HunyuanVideoDownBlock3D"] * 3,
                                   "up_block_types": ["HunyuanVideoUpBlock3D"] * 3, "mid_block_add_attention": False}),
    ("AutoencoderKLHunyuanVideo", {"block_out_channels": [8, 16, 16, 32, 32], "latent_channels": 4,
                                   "norm_num_groups": 4, "spatial_compression_ratio": 16,
                                   "down_block_types": ["HunyuanVideoDownBlock3D"] * 5,
                                   "up_block_types": ["HunyuanVideoUpBlock3D"] * 5}),
    ("AutoencoderKLHunyuanVideo15", {"block_out_channels": [8, 16, 16, 32, 32], "latent_channels": 4,
                                     "layers_per_block": 1}),
    ("AutoencoderKLHunyuanVideo15", {"block_out_channels": [16, 32, 64, 64], "latent_channels": 8,
                                     "spatial_compression_ratio": 8, "temporal_compression_ratio": 2}),
    ("AutoencoderKLWan", {"base_dim": 16, "z_dim": 4, "dim_mult": [1, 2, 2], "num_res_blocks": 1,
                          "temperal_downsample": [True, False]}),
    ("AutoencoderKLWan", {"base_dim": 8, "decoder_base_dim": 12, "z_dim": 6, "num_res_blocks": 2}),
    ("AutoencoderKLWan", {"base_dim": 8, "decoder_base_dim": 16, "z_dim": 12, "is_residual": True, "in_channels": 12,
                          "out_channels": 12, "patch_size": 2, "scale_factor_spatial": 16}),  # Wan 2.2's
    ("AutoencoderKLWan", {"base_dim": 16, "z_dim": 8, "dim_mult": [1, 2, 2], "num_res_blocks": 1, "is_residual": True,
                          "temperal_downsample": [True, False]}),
    ("QwenImageTransformer2DModel", {"num_layers": 2, "num_attention_heads": 3, "attention_head_dim": 32,
                                     "joint_attention_dim": 80, "in_channels": 32, "out_channels": 8}),
    ("QwenImageTransformer2DModel", {"num_layers": 1, "num_attention_heads": 2, "attention_head_dim": 48,
                                     "joint_attention_dim": 64, "in_channels": 16, "patch_size": 1}),
    ("AutoencoderKLQwenImage", {"base_dim": 16, "z_dim": 8, "dim_mult": [1, 2, 2], "num_res_blocks": 1,
                                "temperal_downsample": [True, False]}),
    ("Qwen2_5_VLForConditionalGeneration", {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4,
                                            "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 500,
                                            "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
                                            "vision_config": {"depth": 3, "hidden_size": 32, "intermediate_size": 48,
                                                              "num_heads": 2, "out_hidden_size": 64}}),
    ("Qwen2_5_VLForConditionalGeneration", {"hidden_size": 48, "intermediate_size": 128, "num_attention_heads": 6,
                                            "num_key_value_heads": 6, "num_hidden_layers": 3, "vocab_size": 300,
                                            "tie_word_embeddings": True, "vision_config": {
                                                "depth": 2, "hidden_size": 48, "intermediate_size": 64,
                                                "num_heads": 4, "out_hidden_size": 48, "patch_size": 8,
                                                "spatial_merge_size": 1}}),
    ("LTXVideoTransformer3DModel", {"num_layers": 2, "num_attention_heads": 3, "attention_head_dim": 32,
                                    "cross_attention_dim": 80, "caption_channels": 48, "in_channels": 32,
                                    "out_channels": 16}),
    ("LTXVideoTransformer3DModel", {"num_layers": 1, "num_attention_heads": 2, "attention_head_dim": 48,
                                    "cross_attention_dim": 96, "caption_channels": 64, "attention_bias": False,
                                    "attention_out_bias": False}),
    # LTX-Video 0.9.0's VAE (no timestep conditioning), 0.9.1's (noise injection, a timestep-conditioned decoder)
    # and 0.9.5's (the 32x encoder), small
    ("AutoencoderKLLTXVideo", {"block_out_channels": [16, 32, 64, 64], "decoder_block_out_channels": [16, 32, 64, 64],
                               "latent_channels": 16, "layers_per_block": [1, 2, 1, 1, 1],
                               "decoder_layers_per_block": [1, 1, 2, 1, 1], "patch_size": 2}),
    ("AutoencoderKLLTXVideo", {"block_out_channels": [16, 32, 64, 64], "decoder_block_out_channels": [32, 64, 128],
                               "latent_channels": 16, "layers_per_block": [1, 1, 1, 1, 2],
                               "decoder_layers_per_block": [1, 2, 1, 1],
                               "decoder_spatio_temporal_scaling": [True, True, True],
                               "decoder_inject_noise": [True, True, True, False],
                               "upsample_residual": [True, True, True], "upsample_factor": [2, 2, 2],
                               "timestep_conditioning": True}),
    ("AutoencoderKLLTXVideo", {"block_out_channels": [16, 32, 64, 128, 256],
                               "decoder_block_out_channels": [32, 64, 128], "latent_channels": 16,
                               "layers_per_block": [1, 2, 1, 1, 1],
                               "decoder_layers_per_block": [1, 1, 2, 1],
                               "down_block_types": ["LTXVideo095DownBlock3D"] * 4,
                               "downsample_type": ["spatial", "temporal", "spatiotemporal", "spatiotemporal"],
                               "spatio_temporal_scaling": [True, True, True, True],
                               "decoder_spatio_temporal_scaling": [True, True, True],
                               "decoder_inject_noise": [False, False, False, False],
                               "upsample_residual": [True, True, True], "upsample_factor": [2, 2, 2],
                               "timestep_conditioning": True, "spatial_compression_ratio": 32,
                               "temporal_compression_ratio": 8}),
    # HiDream-I1's: routed experts (one active), and a dense feed-forward (no experts)
    ("HiDreamImageTransformer2DModel", {"num_layers": 2, "num_single_layers": 3, "num_attention_heads": 3,
                                        "attention_head_dim": 32, "caption_channels": [48, 64], "text_emb_dim": 40,
                                        "in_channels": 8, "out_channels": 4, "num_routed_experts": 3,
                                        "num_activated_experts": 1, "llama_layers": [0, 1, 2, 3, 4],
                                        "axes_dims_rope": [16, 8, 8], "patch_size": 2}),
    ("HiDreamImageTransformer2DModel", {"num_layers": 1, "num_single_layers": 1, "num_attention_heads": 2,
                                        "attention_head_dim": 48, "caption_channels": [32, 32], "text_emb_dim": 24,
                                        "in_channels": 4, "patch_size": 1, "num_routed_experts": 0,
                                        "llama_layers": [0, 0], "axes_dims_rope": [16, 16, 16]}),
    ("LlamaForCausalLM", {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4,
                          "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 500}),
    ("LlamaForCausalLM", {"hidden_size": 48, "intermediate_size": 128, "num_attention_heads": 6, "num_hidden_layers": 2,
                          "vocab_size": 300, "tie_word_embeddings": True, "attention_bias": True}),
    ("CLIPTextModel", {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4,
                       "num_hidden_layers": 3, "vocab_size": 1000, "max_position_embeddings": 40}),
    ("CLIPTextModelWithProjection", {"hidden_size": 48, "intermediate_size": 128, "num_attention_heads": 4,
                                     "num_hidden_layers": 2, "vocab_size": 500, "projection_dim": 24}),
    ("T5EncoderModel", {"d_model": 64, "d_kv": 16, "num_heads": 6, "d_ff": 100, "num_layers": 3, "vocab_size": 700,
                        "feed_forward_proj": "gated-gelu"}),
    ("T5EncoderModel", {"d_model": 48, "d_kv": 8, "num_heads": 4, "d_ff": 64, "num_layers": 2, "vocab_size": 300,
                        "feed_forward_proj": "relu", "relative_attention_num_buckets": 16}),
    ("UMT5EncoderModel", {"d_model": 64, "d_kv": 16, "num_heads": 6, "d_ff": 100, "num_layers": 3,
                          "vocab_size": 700, "feed_forward_proj": "gated-gelu"}),
    ("LlamaModel", {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4, "num_key_value_heads": 2,
                    "head_dim": 24, "num_hidden_layers": 3, "vocab_size": 500, "attention_bias": True,
                    "mlp_bias": True}),
    ("LlamaModel", {"hidden_size": 48, "intermediate_size": 128, "num_attention_heads": 6, "num_hidden_layers": 2,
                    "vocab_size": 300}),
    ("Qwen2_5_VLTextModel", {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4,
                             "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 500,
                             "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]}}),
    ("Qwen2_5_VLTextModel", {"hidden_size": 48, "intermediate_size": 128, "num_attention_heads": 6,
                             "num_key_value_heads": 6, "num_hidden_layers": 2, "vocab_size": 300}),
    # FLUX.2: its transformer (guidance embedded or not, another MLP ratio), VAE, Mistral 3 and Qwen3 text encoders
    ("Flux2Transformer2DModel", {"num_layers": 2, "num_single_layers": 3, "num_attention_heads": 3,
                                 "attention_head_dim": 32, "joint_attention_dim": 96, "in_channels": 64,
                                 "timestep_guidance_channels": 64, "axes_dims_rope": [8, 8, 8, 8]}),
    ("Flux2Transformer2DModel", {"num_layers": 1, "num_single_layers": 2, "num_attention_heads": 2,
                                 "attention_head_dim": 48, "joint_attention_dim": 72, "in_channels": 32,
                                 "out_channels": 16, "mlp_ratio": 2.5, "guidance_embeds": False,
                                 "axes_dims_rope": [12, 12, 12, 12]}),
    ("AutoencoderKLFlux2", {"block_out_channels": [32, 64], "layers_per_block": 1, "latent_channels": 8,
                            "norm_num_groups": 8, "down_block_types": ["DownEncoderBlock2D"] * 2,
                            "up_block_types": ["UpDecoderBlock2D"] * 2}),
    ("AutoencoderKLFlux2", {"block_out_channels": [16, 32, 48], "layers_per_block": 2, "latent_channels": 4,
                            "norm_num_groups": 8, "use_quant_conv": False, "mid_block_add_attention": False,
                            "patch_size": [1, 1], "down_block_types": ["DownEncoderBlock2D"] * 3,
                            "up_block_types": ["UpDecoderBlock2D"] * 3}),
    ("Mistral3ForConditionalGeneration", {"text_config": {"model_type": "mistral", "hidden_size": 64,
                                                          "intermediate_size": 96, "num_attention_heads": 4,
                                                          "num_key_value_heads": 2, "head_dim": 24,
                                                          "num_hidden_layers": 3, "vocab_size": 500},
                                          "vision_config": {"model_type": "pixtral", "hidden_size": 32,
                                                            "intermediate_size": 48, "num_attention_heads": 2,
                                                            "num_hidden_layers": 2, "patch_size": 14},
                                          "tie_word_embeddings": False}),
    ("Mistral3ForConditionalGeneration", {"text_config": {"model_type": "mistral", "hidden_size": 48,
                                                          "intermediate_size": 128, "num_attention_heads": 6,
                                                          "num_key_value_heads": 6, "num_hidden_layers": 2,
                                                          "vocab_size": 300},
                                          "vision_config": {"model_type": "pixtral", "hidden_size": 48,
                                                            "intermediate_size": 64, "num_attention_heads": 4,
                                                            "head_dim": 16, "num_hidden_layers": 3,
                                                            "patch_size": 8},
                                          "spatial_merge_size": 1, "multimodal_projector_bias": True}),
    ("Qwen3ForCausalLM", {"hidden_size": 64, "intermediate_size": 96, "num_attention_heads": 4,
                          "num_key_value_heads": 2, "head_dim": 24, "num_hidden_layers": 3, "vocab_size": 500,
                          "attention_bias": True}),
    ("Qwen3ForCausalLM", {"hidden_size": 48, "intermediate_size": 128, "num_attention_heads": 6,
                          "num_key_value_heads": 6, "num_hidden_layers": 2, "vocab_size": 300,
                          "tie_word_embeddings": True}),
]


def build(class_name: str, config: dict) -> torch.nn.Module:
    with torch.device("meta"):
        if hasattr(diffusers, class_name):
            return getattr(diffusers, class_name).from_config(config)
        model_class = getattr(transformers, class_name)
        return model_class(model_class.config_class(**config))


def counted(class_name: str, config: dict) -> dict:
    model = build(class_name, config)
    parameters = list(model.named_parameters())  # each shared (tied) tensor once, as a checkpoint stores it
    blocks = [block for name in ("transformer_blocks", "single_transformer_blocks", "blocks", "double_stream_blocks",
                                 "single_stream_blocks")
              for block in getattr(model, name, ()) if isinstance(getattr(model, name), torch.nn.ModuleList)]
    return {"params": sum(p.numel() for _, p in parameters), "tensors": len(parameters),
            "vector_params": sum(p.numel() for _, p in parameters if p.dim() == 1),
            **({"block_params": [sum(p.numel() for p in block.parameters()) for block in blocks]} if blocks else {})}


DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def loaded_bytes(class_name: str, config: dict, precision: str) -> int:
    """Bytes of the parameters and buffers of the class loaded as a pipeline loads it: saved from a random-weight
    instance, then from_pretrained(torch_dtype=...) (fp8: bf16, then diffusers' enable_layerwise_casting)."""
    with tempfile.TemporaryDirectory() as folder:
        if hasattr(diffusers, class_name):
            model_class = getattr(diffusers, class_name)
            model_class.from_config(config).save_pretrained(folder)
        else:
            model_class = getattr(transformers, class_name)
            model_class(model_class.config_class(**config)).save_pretrained(folder)
        dtype = DTYPES["bf16" if precision == "fp8" else precision]
        model = model_class.from_pretrained(folder, torch_dtype=dtype)
    if precision == "fp8":
        if hasattr(model, "enable_layerwise_casting"):
            model.enable_layerwise_casting(storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.bfloat16)
        else:
            from diffusers.hooks import apply_layerwise_casting

            apply_layerwise_casting(model, storage_dtype=torch.float8_e4m3fn, compute_dtype=torch.bfloat16)
    tensors = {id(t): t for t in [*model.parameters(), *model.buffers()]}.values()
    return sum(t.numel() * t.element_size() for t in tensors)


# Working memory: small configs of each denoiser and VAE, run in bf16 on the CPU with SDPA, at several requests.
FLUX_A = {"num_layers": 2, "num_single_layers": 2, "num_attention_heads": 4, "attention_head_dim": 32,
          "joint_attention_dim": 64, "pooled_projection_dim": 32, "in_channels": 64, "axes_dims_rope": [8, 12, 12],
          "guidance_embeds": True}
FLUX_B = {**FLUX_A, "num_attention_heads": 2, "attention_head_dim": 64, "axes_dims_rope": [16, 24, 24]}
SD3 = {"num_layers": 3, "num_attention_heads": 4, "attention_head_dim": 32, "caption_projection_dim": 128,
       "joint_attention_dim": 64, "pooled_projection_dim": 32, "pos_embed_max_size": 96, "sample_size": 32,
       "qk_norm": "rms_norm"}
HUNYUAN = {"num_layers": 2, "num_single_layers": 2, "num_refiner_layers": 1, "num_attention_heads": 4,
           "attention_head_dim": 32, "text_embed_dim": 64, "pooled_projection_dim": 32, "rope_axes_dim": [8, 12, 12]}
HUNYUAN15 = {"num_layers": 2, "num_refiner_layers": 1, "num_attention_heads": 4, "attention_head_dim": 32,
             "text_embed_dim": 64, "text_embed_2_dim": 48, "image_embed_dim": 40, "rope_axes_dim": [8, 12, 12]}
WAN = {"num_layers": 2, "num_attention_heads": 4, "attention_head_dim": 32, "text_dim": 64, "freq_dim": 32}
VAE = {"down_block_types": ["DownEncoderBlock2D"] * 4, "up_block_types": ["UpDecoderBlock2D"] * 4,
       "layers_per_block": 2, "latent_channels": 16, "norm_num_groups": 8, "use_quant_conv": False,
       "use_post_quant_conv": False}
# (class, config, batch, latent shape (channels, [frames,] height, width), text tokens)
STEPS: list[tuple[str, dict, int, tuple[int, ...], int]] = [
    ("FluxTransformer2DModel", FLUX_A, 1, (16, 64, 64), 64),
    ("FluxTransformer2DModel", FLUX_A, 2, (16, 128, 128), 64),
    ("FluxTransformer2DModel", FLUX_A, 1, (16, 128, 128), 512),
    ("FluxTransformer2DModel", FLUX_B, 1, (16, 96, 96), 128),
    ("SD3Transformer2DModel", {**SD3, "dual_attention_layers": [0]}, 1, (16, 128, 128), 64),
    ("SD3Transformer2DModel", {**SD3, "dual_attention_layers": [0]}, 2, (16, 96, 96), 154),
    ("SD3Transformer2DModel", SD3, 1, (16, 128, 128), 64),
    ("SD3Transformer2DModel", SD3, 2, (16, 64, 64), 333),
    ("WanTransformer3DModel", {**WAN, "ffn_dim": 512}, 1, (16, 5, 64, 64), 64),
    ("WanTransformer3DModel", {**WAN, "ffn_dim": 346}, 1, (16, 5, 64, 64), 64),  # 14B's ffn/d, 2.7
    ("WanTransformer3DModel", {**WAN, "ffn_dim": 746}, 2, (16, 3, 64, 64), 128),  # 1.3B's, 5.83
    ("HunyuanVideoTransformer3DModel", HUNYUAN, 1, (16, 5, 64, 64), 64),
    ("HunyuanVideoTransformer3DModel", HUNYUAN, 2, (16, 3, 64, 96), 128),
    ("HunyuanVideoTransformer3DModel", {**HUNYUAN, "num_attention_heads": 2, "attention_head_dim": 64,
                                        "rope_axes_dim": [16, 24, 24]}, 1, (16, 9, 48, 64), 256),
    ("HunyuanVideoTransformer3DModel", {**HUNYUAN, "mlp_ratio": 2.0}, 1, (16, 5, 64, 64), 32),
    # HunyuanVideo 1.5: text tokens are the Qwen prompt's, ByT5's 256 and the 729 image tokens
    ("HunyuanVideo15Transformer3DModel", HUNYUAN15, 1, (65, 5, 32, 32), 1985),
    ("HunyuanVideo15Transformer3DModel", HUNYUAN15, 2, (65, 3, 16, 24), 1985),
    ("HunyuanVideo15Transformer3DModel", {**HUNYUAN15, "patch_size": 2}, 1, (65, 5, 48, 48), 1985),
    ("HunyuanVideo15Transformer3DModel", {**HUNYUAN15, "num_attention_heads": 8, "attention_head_dim": 64,
                                          "rope_axes_dim": [16, 24, 24]}, 1, (65, 2, 16, 16), 1185),
    ("HunyuanVideo15Transformer3DModel", {**HUNYUAN15, "num_attention_heads": 8, "attention_head_dim": 128,
                                          "rope_axes_dim": [32, 48, 48]}, 1, (65, 1, 8, 8), 1985),  # wide, short
]
QWEN_IMAGE = {"num_layers": 2, "num_attention_heads": 4, "attention_head_dim": 32, "joint_attention_dim": 64,
              "in_channels": 64, "axes_dims_rope": [8, 12, 12]}
STEPS += [  # QwenImageTransformer2DModel: latents (channels, height, width), packed 2 x 2 into in_channels
    ("QwenImageTransformer2DModel", QWEN_IMAGE, 1, (16, 64, 64), 64),
    ("QwenImageTransformer2DModel", QWEN_IMAGE, 2, (16, 96, 64), 128),
    ("QwenImageTransformer2DModel", QWEN_IMAGE, 1, (16, 64, 64), 512),
    ("QwenImageTransformer2DModel", {**QWEN_IMAGE, "num_attention_heads": 2, "attention_head_dim": 64,
                                     "axes_dims_rope": [16, 24, 24]}, 1, (16, 96, 96), 256),
    ("QwenImageTransformer2DModel", {**QWEN_IMAGE, "in_channels": 32, "num_layers": 3}, 1, (8, 64, 64), 64),
]
HIDREAM = {"num_layers": 2, "num_single_layers": 2, "num_attention_heads": 4, "attention_head_dim": 32,
           "caption_channels": [64, 64], "text_emb_dim": 32, "in_channels": 16, "out_channels": 16, "patch_size": 2,
           "llama_layers": [0, 1, 2, 3], "axes_dims_rope": [16, 8, 8], "max_resolution": [64, 64]}
STEPS += [  # HiDreamImageTransformer2DModel: latents (channels, height, width); the text tokens its blocks attend to,
    # three prompts' worth (T5's, the last Llama layer's, the block's own Llama layer's: T5 and the Llama read a third
    # each); a non-square latent is padded to max_resolution's tokens
    ("HiDreamImageTransformer2DModel", HIDREAM, 1, (16, 64, 64), 384),
    ("HiDreamImageTransformer2DModel", HIDREAM, 2, (16, 64, 48), 384),
    ("HiDreamImageTransformer2DModel", {**HIDREAM, "num_attention_heads": 2, "attention_head_dim": 64,
                                        "axes_dims_rope": [32, 16, 16]}, 1, (16, 48, 48), 384),
    ("HiDreamImageTransformer2DModel", {**HIDREAM, "num_layers": 1, "num_single_layers": 3, "num_routed_experts": 3,
                                        "num_activated_experts": 1}, 1, (16, 64, 64), 192),
    ("HiDreamImageTransformer2DModel", {**HIDREAM, "num_attention_heads": 8}, 1, (16, 32, 32), 384),
]
LTX = {"num_layers": 2, "num_attention_heads": 4, "attention_head_dim": 32, "cross_attention_dim": 128,
       "caption_channels": 64, "in_channels": 32, "out_channels": 32}
STEPS += [  # LTXVideoTransformer3DModel: latents (channels, frames, height, width), patch 1 (d 128: RoPE padded)
    ("LTXVideoTransformer3DModel", LTX, 1, (32, 3, 16, 16), 64),
    ("LTXVideoTransformer3DModel", LTX, 2, (32, 5, 8, 12), 128),
    ("LTXVideoTransformer3DModel", {**LTX, "num_attention_heads": 6, "cross_attention_dim": 192}, 1, (32, 3, 16, 16),
     64),  # d 192: no padding
    ("LTXVideoTransformer3DModel", {**LTX, "num_attention_heads": 2, "attention_head_dim": 64}, 1, (32, 2, 16, 24), 32),
    ("LTXVideoTransformer3DModel", {**LTX, "num_layers": 3, "in_channels": 16, "out_channels": 16}, 1,
     (16, 3, 16, 16), 256),
]
FLUX2 = {"num_layers": 2, "num_single_layers": 2, "num_attention_heads": 4, "attention_head_dim": 32,
         "joint_attention_dim": 96, "in_channels": 128, "axes_dims_rope": [8, 8, 8, 8]}
STEPS += [  # Flux2Transformer2DModel: latents (32 channels, height, width), 2 x 2-patched into in_channels and packed
    ("Flux2Transformer2DModel", FLUX2, 1, (32, 64, 64), 64),
    ("Flux2Transformer2DModel", FLUX2, 2, (32, 96, 64), 128),
    ("Flux2Transformer2DModel", FLUX2, 1, (32, 128, 128), 512),
    ("Flux2Transformer2DModel", {**FLUX2, "num_attention_heads": 2, "attention_head_dim": 64,
                                 "axes_dims_rope": [16, 16, 16, 16]}, 1, (32, 96, 96), 256),
    ("Flux2Transformer2DModel", {**FLUX2, "guidance_embeds": False, "num_single_layers": 3}, 1, (32, 64, 96), 512),
]
WAN22 = {**WAN, "in_channels": 48, "out_channels": 48}
# Wan 2.2 TI2V (WanPipeline's expand_timesteps): a timestep per latent token, the same (class, config, ...) tuples
EXPANDED_STEPS: list[tuple[str, dict, int, tuple[int, ...], int]] = [
    ("WanTransformer3DModel", {**WAN22, "ffn_dim": 597}, 1, (48, 5, 64, 64), 64),  # TI2V-5B's ffn/d, 4.67
    ("WanTransformer3DModel", {**WAN22, "ffn_dim": 597}, 2, (48, 3, 64, 64), 128),
    ("WanTransformer3DModel", {**WAN22, "ffn_dim": 346}, 1, (48, 5, 64, 64), 64),
    ("WanTransformer3DModel", {**WAN22, "ffn_dim": 1024, "num_attention_heads": 2, "attention_head_dim": 64}, 1,
     (48, 9, 32, 48), 256),
]
HUNYUAN15_VAE = {"block_out_channels": [16, 32, 32, 64, 64], "latent_channels": 8}
WAN22_VAE = {"base_dim": 16, "decoder_base_dim": 24, "z_dim": 8, "is_residual": True, "in_channels": 12,
             "out_channels": 12, "patch_size": 2, "scale_factor_spatial": 16}
HUNYUAN_VAE = {"block_out_channels": [16, 32, 64, 64], "norm_num_groups": 8, "latent_channels": 16}
LTX_VAE = {"block_out_channels": [16, 32, 64, 128, 256], "decoder_block_out_channels": [32, 64, 128],
           "decoder_causal": False, "decoder_inject_noise": [False, False, False, False],
           "decoder_layers_per_block": [5, 5, 5, 5], "decoder_spatio_temporal_scaling": [True, True, True],
           "down_block_types": ["LTXVideo095DownBlock3D"] * 4,
           "downsample_type": ["spatial", "temporal", "spatiotemporal", "spatiotemporal"], "encoder_causal": True,
           "latent_channels": 16, "layers_per_block": [4, 6, 6, 2, 2], "patch_size": 4, "patch_size_t": 1,
           "spatial_compression_ratio": 32, "spatio_temporal_scaling": [True, True, True, True],
           "temporal_compression_ratio": 8, "timestep_conditioning": True, "upsample_factor": [2, 2, 2],
           "upsample_residual": [True, True, True]}  # LTX-Video 0.9.7's layout, narrower
# (class, config, batch, width, height, frames, tile: 0 untiled, else enable_tiling() with this tile in pixels)
DECODES: list[tuple[str, dict, int, int, int, int, int]] = [
    ("AutoencoderKL", {**VAE, "block_out_channels": [32, 64, 64, 64]}, 1, 256, 256, 1, 0),
    ("AutoencoderKL", {**VAE, "block_out_channels": [16, 32, 48, 48]}, 2, 384, 256, 1, 0),
    ("AutoencoderKLWan", {"base_dim": 16, "z_dim": 16}, 1, 256, 256, 9, 0),
    ("AutoencoderKLWan", {"base_dim": 8, "z_dim": 16}, 1, 384, 384, 21, 0),
    ("AutoencoderKLWan", {"base_dim": 8, "z_dim": 16}, 1, 128, 128, 25, 0),
    ("AutoencoderKL", {**VAE, "block_out_channels": [32, 64, 64, 64]}, 1, 256, 256, 1, 128),
    ("AutoencoderKL", {**VAE, "block_out_channels": [32, 64, 64, 64]}, 1, 512, 384, 1, 128),
    ("AutoencoderKL", {**VAE, "block_out_channels": [32, 64, 64, 64]}, 1, 512, 384, 1, 256),
    ("AutoencoderKL", {**VAE, "block_out_channels": [16, 32, 48, 48]}, 2, 384, 256, 1, 128),
    ("AutoencoderKL", {**VAE, "block_out_channels": [16, 32, 48, 48]}, 1, 256, 256, 1, 256),  # not tiled: fits
    ("AutoencoderKLWan", {"base_dim": 16, "z_dim": 16}, 1, 256, 256, 9, 128),
    ("AutoencoderKLWan", {"base_dim": 8, "z_dim": 16}, 1, 384, 256, 9, 128),
    ("AutoencoderKLWan", {"base_dim": 8, "z_dim": 16}, 1, 384, 320, 5, 256),
    # a single latent frame: Wan 2.1's VAE, and Qwen-Image's (the same network, its decode over one frame)
    ("AutoencoderKLWan", {"base_dim": 16, "z_dim": 16}, 1, 256, 256, 1, 0),
    ("AutoencoderKLQwenImage", {"base_dim": 16, "z_dim": 16}, 1, 256, 256, 1, 0),
    ("AutoencoderKLQwenImage", {"base_dim": 8, "z_dim": 16}, 1, 384, 256, 1, 0),
    ("AutoencoderKLQwenImage", {"base_dim": 16, "z_dim": 16}, 2, 192, 128, 1, 0),
    ("AutoencoderKLQwenImage", {"base_dim": 32, "z_dim": 16}, 1, 128, 128, 1, 0),
    ("AutoencoderKLQwenImage", {"base_dim": 16, "z_dim": 16}, 1, 512, 384, 1, 256),
    ("AutoencoderKLQwenImage", {"base_dim": 16, "z_dim": 16}, 1, 512, 512, 1, 128),
    # Wan 2.2's (is_residual, patch 2, 16x): the first latent frame alone, a second over 1-frame caches, then more
    ("AutoencoderKLWan", WAN22_VAE, 1, 256, 256, 1, 0),
    ("AutoencoderKLWan", WAN22_VAE, 1, 256, 256, 5, 0),
    ("AutoencoderKLWan", WAN22_VAE, 1, 256, 256, 9, 0),
    ("AutoencoderKLWan", {**WAN22_VAE, "base_dim": 8, "decoder_base_dim": 16}, 1, 384, 256, 13, 0),
    ("AutoencoderKLWan", WAN22_VAE, 2, 192, 128, 5, 0),
    ("AutoencoderKLWan", WAN22_VAE, 1, 384, 256, 9, 128),
    ("AutoencoderKLWan", WAN22_VAE, 1, 512, 384, 5, 256),
    # AutoencoderKLHunyuanVideo, framewise (its default): one call up to 4 latent frames, else 5-frame tiles every 3
    ("AutoencoderKLHunyuanVideo", HUNYUAN_VAE, 1, 128, 128, 9, 0),
    ("AutoencoderKLHunyuanVideo", HUNYUAN_VAE, 1, 128, 128, 33, 0),
    ("AutoencoderKLHunyuanVideo", HUNYUAN_VAE, 2, 192, 128, 25, 0),
    ("AutoencoderKLHunyuanVideo", {**HUNYUAN_VAE, "block_out_channels": [16, 32, 32, 32]}, 1, 160, 96, 45, 0),
    ("AutoencoderKLHunyuanVideo", HUNYUAN_VAE, 1, 384, 256, 9, 128),  # enable_tiling(): tiled in space too
    ("AutoencoderKLHunyuanVideo", HUNYUAN_VAE, 1, 320, 256, 21, 128),
    # AutoencoderKLHunyuanVideo15: every frame in one call; enable_tiling() tiles in space only
    ("AutoencoderKLHunyuanVideo15", HUNYUAN15_VAE, 1, 256, 256, 9, 0),
    # (batch 1 only: with 2 its mid-block attention broadcasts its (batch, seq, seq) mask over the batch and fails)
    ("AutoencoderKLHunyuanVideo15", HUNYUAN15_VAE, 1, 256, 192, 5, 0),
    ("AutoencoderKLHunyuanVideo15", {"block_out_channels": [8, 16, 16, 32, 32], "latent_channels": 4}, 1, 320, 256,
     13, 0),
    ("AutoencoderKLHunyuanVideo15", HUNYUAN15_VAE, 1, 512, 384, 5, 256),
    ("AutoencoderKLHunyuanVideo15", HUNYUAN15_VAE, 1, 384, 384, 9, 128),
    # AutoencoderKLLTXVideo (0.9.5 on: 32x, 8x, a timestep-conditioned decoder), every frame in one call; one frame:
    # conv_out's moment
    ("AutoencoderKLLTXVideo", LTX_VAE, 1, 256, 192, 17, 0),
    ("AutoencoderKLLTXVideo", LTX_VAE, 2, 128, 128, 9, 0),
    ("AutoencoderKLLTXVideo", LTX_VAE, 1, 128, 96, 25, 0),
    ("AutoencoderKLLTXVideo", LTX_VAE, 1, 256, 256, 1, 0),
    ("AutoencoderKLLTXVideo", {**LTX_VAE, "decoder_block_out_channels": [64, 128, 256]}, 1, 128, 128, 17, 0),
    ("AutoencoderKLLTXVideo", {**LTX_VAE, "decoder_layers_per_block": [2, 2, 2, 2]}, 1, 192, 128, 17, 0),
    # AutoencoderKLFlux2: AutoencoderKL's decoder over 32 latent channels, untiled and tiled
    ("AutoencoderKLFlux2", {**VAE, "latent_channels": 32, "block_out_channels": [32, 64, 64, 64]}, 1, 256, 256, 1, 0),
    ("AutoencoderKLFlux2", {**VAE, "latent_channels": 32, "block_out_channels": [16, 32, 48, 48]}, 2, 384, 256, 1,
     0),
    ("AutoencoderKLFlux2", {**VAE, "latent_channels": 32, "block_out_channels": [32, 64, 64, 64]}, 1, 512, 384, 1,
     128),
]


UNET_SD15 = {"block_out_channels": [32, 64, 64, 64], "layers_per_block": 2, "cross_attention_dim": 48,
             "attention_head_dim": 8, "norm_num_groups": 8, "sample_size": 32,
             "down_block_types": ["CrossAttnDownBlock2D"] * 3 + ["DownBlock2D"],
             "up_block_types": ["UpBlock2D"] + ["CrossAttnUpBlock2D"] * 3}
UNET_SDXL = {"block_out_channels": [32, 64, 96], "layers_per_block": 2, "transformer_layers_per_block": [1, 2, 3],
             "cross_attention_dim": 64, "attention_head_dim": [2, 4, 6], "norm_num_groups": 8,
             "use_linear_projection": True, "addition_embed_type": "text_time", "addition_time_embed_dim": 8,
             "projection_class_embeddings_input_dim": 88, "sample_size": 32,
             "down_block_types": ["DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"],
             "up_block_types": ["CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"]}
# (config, batch, latent height, latent width, text tokens): one UNet2DConditionModel forward, 4 latent channels
UNET_STEPS: list[tuple[dict, int, int, int, int]] = [
    (UNET_SD15, 1, 64, 64, 77),  # a transformer at the top level is the peak
    (UNET_SD15, 2, 48, 64, 77),
    (UNET_SDXL, 1, 64, 64, 77),  # the second level's transformer, the top level's skips held
    (UNET_SDXL, 2, 64, 48, 77),
    ({**UNET_SDXL, "block_out_channels": [32, 64, 128], "attention_head_dim": [2, 4, 8]}, 1, 64, 64, 77),
    ({**UNET_SDXL, "block_out_channels": [32, 64, 64], "transformer_layers_per_block": 1,  # the top resnet's cat
      "attention_head_dim": [2, 4, 4], "down_block_types": ["DownBlock2D", "DownBlock2D", "CrossAttnDownBlock2D"],
      "up_block_types": ["CrossAttnUpBlock2D", "UpBlock2D", "UpBlock2D"]}, 1, 64, 64, 77),
]


def unet_step_bytes(config: dict, batch: int, height: int, width: int, text_tokens: int) -> int:
    """Working memory of one UNet2DConditionModel forward (SDXL's added time and text embeddings given)."""
    torch.manual_seed(0)
    dtype = torch.bfloat16
    model = build_real("UNet2DConditionModel", config).to(dtype).eval()
    inputs = {"sample": torch.randn(batch, 4, height, width, dtype=dtype), "timestep": torch.ones(batch, dtype=dtype),
              "encoder_hidden_states": torch.randn(batch, text_tokens, config["cross_attention_dim"], dtype=dtype)}
    extra = {}
    if config.get("addition_embed_type") == "text_time":
        pooled = config["projection_class_embeddings_input_dim"] - 6 * config["addition_time_embed_dim"]
        extra = {"added_cond_kwargs": {"text_embeds": torch.randn(batch, pooled, dtype=dtype),
                                       "time_ids": torch.zeros(batch, 6, dtype=dtype)}}
    tensors = [*inputs.values(), *extra.get("added_cond_kwargs", {}).values()]
    return _peak_above_start(model, tensors, lambda: model(**inputs, **extra, return_dict=False))


T5_SMALL = {"d_model": 64, "d_kv": 16, "num_heads": 6, "d_ff": 160, "num_layers": 3, "vocab_size": 700,
            "feed_forward_proj": "gated-gelu"}
CLIP_SMALL = {"hidden_size": 64, "intermediate_size": 256, "num_attention_heads": 4, "num_hidden_layers": 3,
              "vocab_size": 1000, "max_position_embeddings": 77}
LLAMA_SMALL = {"hidden_size": 64, "intermediate_size": 224, "num_attention_heads": 4, "num_key_value_heads": 2,
               "num_hidden_layers": 4, "vocab_size": 1000}
QWEN_SMALL = {**LLAMA_SMALL, "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]}}
QWEN_VISION = {"depth": 2, "hidden_size": 32, "intermediate_size": 48, "num_heads": 2, "out_hidden_size": 64}
MISTRAL3_TEXT = {**LLAMA_SMALL, "model_type": "mistral", "head_dim": 16}
MISTRAL3_SMALL = {"text_config": MISTRAL3_TEXT, "tie_word_embeddings": False,
                  "vision_config": {"model_type": "pixtral", "hidden_size": 32, "intermediate_size": 48,
                                    "num_attention_heads": 2, "num_hidden_layers": 2, "patch_size": 14}}
QWEN3_SMALL = {**LLAMA_SMALL, "head_dim": 16, "tie_word_embeddings": False}
# (class, config, tokens, output_hidden_states): one prompt through a text encoder, as the pipelines call them
ENCODERS: list[tuple[str, dict, int, bool]] = [
    ("T5EncoderModel", T5_SMALL, 512, False),  # the position buckets' int64 temporaries are the peak
    ("T5EncoderModel", {**T5_SMALL, "num_heads": 32, "d_kv": 8}, 512, False),  # the bias and its SDPA mask
    ("T5EncoderModel", {**T5_SMALL, "num_heads": 2, "d_ff": 2048}, 64, False),  # the feed-forward
    ("T5EncoderModel", {**T5_SMALL, "d_model": 96, "num_heads": 8, "d_kv": 12, "d_ff": 384}, 256, False),
    ("UMT5EncoderModel", {**T5_SMALL, "num_heads": 32, "d_kv": 8}, 512, False),
    ("UMT5EncoderModel", {**T5_SMALL, "num_heads": 4, "d_ff": 1024}, 128, False),
    ("CLIPTextModel", CLIP_SMALL, 77, False),
    ("CLIPTextModel", {**CLIP_SMALL, "num_hidden_layers": 4, "intermediate_size": 512}, 77, True),
    ("CLIPTextModelWithProjection", {**CLIP_SMALL, "num_hidden_layers": 6, "projection_dim": 32}, 77, True),
    ("CLIPTextModelWithProjection", {**CLIP_SMALL, "num_hidden_layers": 2, "projection_dim": 32}, 77, False),
    ("LlamaModel", LLAMA_SMALL, 351, True),  # HunyuanVideo's 256 + the template's 95
    ("LlamaModel", LLAMA_SMALL, 351, False),
    ("LlamaModel", {**LLAMA_SMALL, "num_hidden_layers": 6, "intermediate_size": 400, "num_key_value_heads": 4}, 351,
     True),
    ("LlamaModel", {**LLAMA_SMALL, "hidden_size": 96, "num_attention_heads": 6, "head_dim": 24}, 128, True),
    # HunyuanVideo 1.5's Qwen2.5-VL: 1,000 prompt tokens after its 108, padded (a quarter valid here)
    ("Qwen2_5_VLTextModel", QWEN_SMALL, 1108, True),  # the masks in the last layer's attention
    ("Qwen2_5_VLTextModel", {**QWEN_SMALL, "intermediate_size": 4096}, 512, True),  # the SwiGLU
    ("Qwen2_5_VLTextModel", {**QWEN_SMALL, "num_hidden_layers": 6, "hidden_size": 96, "num_attention_heads": 6},
     1108, True),
    ("Qwen2_5_VLTextModel", QWEN_SMALL, 1108, False),
    # HiDream-I1's Llama 3.1 (LlamaForCausalLM) over its prompt padded to 128 tokens: the logits, or the SwiGLU; its
    # long CLIPs over 128 tokens
    ("LlamaForCausalLM", LLAMA_SMALL, 128, True),
    ("LlamaForCausalLM", {**LLAMA_SMALL, "vocab_size": 8000}, 128, True),
    ("LlamaForCausalLM", {**LLAMA_SMALL, "intermediate_size": 4096}, 128, True),
    ("LlamaForCausalLM", {**LLAMA_SMALL, "num_hidden_layers": 6, "hidden_size": 96, "num_attention_heads": 6}, 256,
     True),
    ("CLIPTextModelWithProjection", {**CLIP_SMALL, "max_position_embeddings": 248, "projection_dim": 32}, 128, True),
    # Qwen-Image's whole Qwen2.5-VL over one unpadded prompt (34 template tokens and 512): the logits, or the SwiGLU
    ("Qwen2_5_VLForConditionalGeneration", {**QWEN_SMALL, "vision_config": QWEN_VISION}, 546, True),
    ("Qwen2_5_VLForConditionalGeneration", {**QWEN_SMALL, "vocab_size": 8000, "vision_config": QWEN_VISION}, 546, True),
    ("Qwen2_5_VLForConditionalGeneration", {**QWEN_SMALL, "intermediate_size": 4096, "vision_config": QWEN_VISION},
     128, True),
    ("Qwen2_5_VLForConditionalGeneration", {**QWEN_SMALL, "num_hidden_layers": 6, "hidden_size": 96,
                                            "num_attention_heads": 6, "vision_config": QWEN_VISION}, 1058, True),
    # FLUX.2's text encoders over one prompt padded to 512 (Flux2Pipeline: Mistral 3 whole, its logits over every
    # position; Flux2KleinPipeline: Qwen3ForCausalLM), every layer's output asked for
    ("Mistral3ForConditionalGeneration", MISTRAL3_SMALL, 512, True),
    ("Mistral3ForConditionalGeneration", {**MISTRAL3_SMALL, "text_config": {**MISTRAL3_TEXT, "vocab_size": 8000}},
     512, True),
    ("Mistral3ForConditionalGeneration", {**MISTRAL3_SMALL, "text_config": {**MISTRAL3_TEXT,
                                                                            "intermediate_size": 4096}}, 128, True),
    ("Mistral3ForConditionalGeneration", {**MISTRAL3_SMALL, "text_config": {
        **MISTRAL3_TEXT, "num_hidden_layers": 6, "hidden_size": 96, "num_attention_heads": 6}}, 512, True),
    ("Qwen3ForCausalLM", QWEN3_SMALL, 512, True),
    ("Qwen3ForCausalLM", {**QWEN3_SMALL, "vocab_size": 8000}, 512, True),
    ("Qwen3ForCausalLM", {**QWEN3_SMALL, "intermediate_size": 4096}, 128, True),
    ("Qwen3ForCausalLM", {**QWEN3_SMALL, "num_hidden_layers": 6, "hidden_size": 96, "num_attention_heads": 6,
                          "tie_word_embeddings": True}, 512, True),
]


def encode_bytes(class_name: str, config: dict, tokens: int, hidden_states: bool, explain: bool = False) -> int:
    """Working memory of a text encoder's forward over one prompt of `tokens` ids (bf16, SDPA)."""
    torch.manual_seed(0)
    model_class = getattr(transformers, class_name)
    model = model_class(model_class.config_class(**config)).to(torch.bfloat16).eval()
    vocab = config["text_config"]["vocab_size"] if "text_config" in config else config["vocab_size"]
    ids = torch.randint(0, vocab, (1, tokens))
    if class_name == "Qwen2_5_VLTextModel":  # HunyuanVideo15Pipeline pads the prompt: a quarter of it valid
        mask = torch.zeros(1, tokens, dtype=torch.int64)
        mask[:, :tokens // 4] = 1
        return _peak_above_start(model, [ids, mask], lambda: model(input_ids=ids, attention_mask=mask,
                                                                   output_hidden_states=hidden_states))
    if class_name == "Qwen2_5_VLForConditionalGeneration":  # QwenImagePipeline: one prompt, padding=True (no pad)
        mask = torch.ones(1, tokens, dtype=torch.int64)
        return _peak_above_start(model, [ids, mask], lambda: model(input_ids=ids, attention_mask=mask,
                                                                   output_hidden_states=hidden_states),
                                 explain=explain)
    if class_name in ("Mistral3ForConditionalGeneration", "Qwen3ForCausalLM", "LlamaForCausalLM"):
        # Flux2Pipeline and Flux2KleinPipeline pad the prompt to max_length (512), HiDreamImagePipeline to 128: a
        # quarter of it valid here; HiDream asks every layer's output and output_attentions (which SDPA, the default
        # attention, does not return)
        mask = torch.zeros(1, tokens, dtype=torch.int64)
        mask[:, :tokens // 4] = 1
        extra = {"output_attentions": True} if class_name == "LlamaForCausalLM" else {"use_cache": False}
        return _peak_above_start(model, [ids, mask], lambda: model(input_ids=ids, attention_mask=mask,
                                                                   output_hidden_states=hidden_states, **extra),
                                 explain=explain)
    return _peak_above_start(model, [ids], lambda: model(ids, output_hidden_states=hidden_states))


def _peak_above_start(model: torch.nn.Module, inputs: list[torch.Tensor], run, explain: bool = False) -> int:
    import measure_peak  # the project's tracker: every storage an ATen op makes, freed with it

    tracker = measure_peak.PeakTracker(explain=explain)
    tracker.track_all([*model.parameters(), *model.buffers(), *inputs])
    start = tracker.live
    with torch.no_grad(), tracker, tracker.in_phase("run"):  # (a phase: --explain keeps the storages at the peak)
        run()
    if explain:
        measure_peak.explain_peak(tracker)
    return tracker.peak - start


HUNYUAN15_BYT5, HUNYUAN15_IMAGE = 256, 729  # HunyuanVideo15Pipeline: tokenizer_2_max_length, vision tokens


def step_bytes(class_name: str, config: dict, batch: int, latent: tuple, text_tokens: int,
               expand_timesteps: bool = False, explain: bool = False) -> int:
    """Working memory of one forward of the denoiser (the pipeline's inputs made before it count as there);
    `expand_timesteps`: WanPipeline's Wan 2.2 TI2V timestep, one per latent token (batch, tokens)."""
    torch.manual_seed(0)
    dtype = torch.bfloat16
    model = build_real(class_name, config).to(dtype).eval()
    width = next(model.config[key] for key in ("joint_attention_dim", "text_dim", "text_embed_dim", "caption_channels")
                 if key in model.config)
    width = width[0] if isinstance(width, list) else width  # HiDream's caption_channels
    text = torch.randn(batch, text_tokens, width, dtype=dtype)
    t = torch.ones(batch, dtype=dtype)
    if class_name == "FluxTransformer2DModel":
        c, h, w = latent
        tokens = (h // 2) * (w // 2)
        inputs = {"hidden_states": torch.randn(batch, tokens, 4 * c, dtype=dtype), "encoder_hidden_states": text,
                  "pooled_projections": torch.randn(batch, config["pooled_projection_dim"], dtype=dtype),
                  "timestep": t, "img_ids": torch.zeros(tokens, 3), "txt_ids": torch.zeros(text_tokens, 3),
                  "guidance": t}
    elif class_name == "Flux2Transformer2DModel":  # Flux2Pipeline: 2 x 2-patched latents packed, (t, h, w, l) ids
        c, h, w = latent
        grid = torch.cartesian_prod(torch.arange(1), torch.arange(h // 2), torch.arange(w // 2), torch.arange(1))
        words = torch.cartesian_prod(torch.arange(1), torch.arange(1), torch.arange(1), torch.arange(text_tokens))
        inputs = {"hidden_states": torch.randn(batch, (h // 2) * (w // 2), 4 * c, dtype=dtype),
                  "encoder_hidden_states": text, "timestep": t, "img_ids": grid.expand(batch, -1, -1),
                  "txt_ids": words.expand(batch, -1, -1),
                  "guidance": t if config.get("guidance_embeds", True) else None}  # Flux2KleinPipeline: None
    elif class_name == "QwenImageTransformer2DModel":  # QwenImagePipeline: packed 2 x 2, one prompt (mask None)
        c, h, w = latent
        inputs = {"hidden_states": torch.randn(batch, (h // 2) * (w // 2), 4 * c, dtype=dtype),
                  "encoder_hidden_states": text, "timestep": t, "img_shapes": [[(1, h // 2, w // 2)]] * batch}
    elif class_name == "HiDreamImageTransformer2DModel":  # as HiDreamImagePipeline calls it: the latents unpacked,
        # T5's output, every Llama layer's output stacked, the pooled CLIPs
        llama_layers, prompt = max(config["llama_layers"]) + 1, text_tokens // 3
        t5, llama = config["caption_channels"]
        inputs = {"hidden_states": torch.randn(batch, *latent, dtype=dtype), "timesteps": t,
                  "encoder_hidden_states_t5": torch.randn(batch, prompt, t5, dtype=dtype),
                  "encoder_hidden_states_llama3": torch.randn(llama_layers, batch, prompt, llama, dtype=dtype),
                  "pooled_embeds": torch.randn(batch, config["text_emb_dim"], dtype=dtype)}
    elif class_name == "LTXVideoTransformer3DModel":  # LTXPipeline: latents packed (patch 1), the T5 mask, RoPE scale
        c, f, h, w = latent
        inputs = {"hidden_states": torch.randn(batch, f * h * w, c, dtype=dtype),
                  "encoder_hidden_states": torch.randn(batch, text_tokens, config["caption_channels"], dtype=dtype),
                  "encoder_attention_mask": torch.ones(batch, text_tokens, dtype=torch.bool), "timestep": t,
                  "num_frames": f, "height": h, "width": w, "rope_interpolation_scale": (8 / 25, 32, 32)}
    elif class_name == "SD3Transformer2DModel":
        inputs = {"hidden_states": torch.randn(batch, *latent, dtype=dtype), "encoder_hidden_states": text,
                  "pooled_projections": torch.randn(batch, config["pooled_projection_dim"], dtype=dtype),
                  "timestep": t}
    elif class_name == "HunyuanVideo15Transformer3DModel":
        # as HunyuanVideo15Pipeline calls it: the Qwen prompt padded to its length (a quarter of it the prompt's
        # tokens), ByT5's 256 glyph tokens (a quarter valid), the 729 image tokens of zeros (text-to-video)
        mllm = text_tokens - HUNYUAN15_BYT5 - HUNYUAN15_IMAGE
        mask = torch.zeros(batch, mllm, dtype=torch.int64)
        mask[:, :mllm // 4] = 1
        mask_2 = torch.zeros(batch, HUNYUAN15_BYT5, dtype=torch.int64)
        mask_2[:, :HUNYUAN15_BYT5 // 4] = 1
        inputs = {"hidden_states": torch.randn(batch, *latent, dtype=dtype),
                  "encoder_hidden_states": torch.randn(batch, mllm, width, dtype=dtype),
                  "encoder_attention_mask": mask,
                  "encoder_hidden_states_2": torch.randn(batch, HUNYUAN15_BYT5, config["text_embed_2_dim"],
                                                         dtype=dtype),
                  "encoder_attention_mask_2": mask_2,
                  "image_embeds": torch.zeros(batch, HUNYUAN15_IMAGE, config["image_embed_dim"], dtype=dtype),
                  "timestep": t}
    elif class_name == "HunyuanVideoTransformer3DModel":  # the prompt's mask all ones: every text token attends
        inputs = {"hidden_states": torch.randn(batch, *latent, dtype=dtype), "encoder_hidden_states": text,
                  "encoder_attention_mask": torch.ones(batch, text_tokens, dtype=torch.int64),
                  "pooled_projections": torch.randn(batch, config["pooled_projection_dim"], dtype=dtype),
                  "timestep": t, "guidance": t * 1000}
    else:
        if expand_timesteps:  # pipeline_wan.py: (mask[0][0][:, ::2, ::2] * t).flatten() expanded over the batch
            p_t, p_h, p_w = config.get("patch_size", (1, 2, 2))
            tokens = (latent[1] // p_t) * (latent[2] // p_h) * (latent[3] // p_w)
            t = torch.full((tokens,), 500.0).unsqueeze(0).expand(batch, -1)
        inputs = {"hidden_states": torch.randn(batch, *latent, dtype=dtype), "encoder_hidden_states": text,
                  "timestep": t}
    tensors = [v for v in inputs.values() if isinstance(v, torch.Tensor)]
    return _peak_above_start(model, tensors, lambda: model(**inputs, return_dict=False), explain=explain)


def decode_bytes(class_name: str, config: dict, batch: int, width: int, height: int, frames: int, tile: int,
                 explain: bool = False) -> int:
    """Working memory of `decode`, untiled or after `enable_tiling()` with a `tile`-pixel tile (AutoencoderKL's
    tile_sample_min_size and tile_latent_min_size; Wan's enable_tiling arguments, stride 3/4 of the tile)."""
    torch.manual_seed(0)
    model = build_real(class_name, config).to(torch.bfloat16).eval()
    channels = int(config.get("latent_channels", config.get("z_dim", 16)))
    shape: tuple[int, ...] = (batch, channels, height // 8, width // 8)
    if class_name == "AutoencoderKLLTXVideo":  # LTXPipeline: 32x in space, 8x in time, untiled; a decode timestep
        scale, temporal = config.get("spatial_compression_ratio", 32), config.get("temporal_compression_ratio", 8)
        shape = (batch, channels, (frames - 1) // temporal + 1, height // scale, width // scale)
        z = torch.randn(*shape, dtype=torch.bfloat16)
        timestep = torch.full((batch,), 0.05, dtype=torch.bfloat16) if config.get("timestep_conditioning") else None
        return _peak_above_start(model, [z] + ([timestep] if timestep is not None else []),
                                 lambda: model.decode(z, timestep, return_dict=False), explain=explain)
    if class_name == "AutoencoderKLHunyuanVideo15":  # 16x in space, enable_tiling(): its own latent tile
        shape = (batch, channels, (frames - 1) // 4 + 1, height // 16, width // 16)
        if tile:
            model.enable_tiling(tile_sample_min_height=tile, tile_sample_min_width=tile,
                                tile_latent_min_height=tile // 16, tile_latent_min_width=tile // 16)
    elif class_name in ("AutoencoderKLWan", "AutoencoderKLHunyuanVideo", "AutoencoderKLQwenImage"):
        scale = int(config.get("scale_factor_spatial", 8))  # Wan 2.2's VAE: 16
        shape = (batch, channels, (frames - 1) // 4 + 1, height // scale, width // scale)
        if tile:
            model.enable_tiling(tile_sample_min_height=tile, tile_sample_min_width=tile,
                                tile_sample_stride_height=tile * 3 // 4, tile_sample_stride_width=tile * 3 // 4)
    elif tile:
        model.enable_tiling()
        model.tile_sample_min_size, model.tile_latent_min_size = tile, tile // 8
    z = torch.randn(*shape, dtype=torch.bfloat16)
    return _peak_above_start(model, [z], lambda: model.decode(z, return_dict=False), explain=explain)


def build_real(class_name: str, config: dict) -> torch.nn.Module:
    return getattr(diffusers, class_name).from_config(config)


SECTIONS = ("steps", "decodes", "encoders", "unet_steps")


def _entry(old: list[dict], entry: dict, measure, classes: set[str] | None) -> dict:
    """`entry` with its bytes: measured, or (--classes, a class left out) kept as the file has it."""
    if classes and entry["class"] not in classes:
        kept = next((e for e in old if {k: v for k, v in e.items() if k != "bytes"} == entry), None)
        if kept is not None:
            return kept
    return {**entry, "bytes": measure()}


def measure_stages(path: Path, only: str | None, classes: set[str] | None = None) -> None:
    """Each section of the working memory, or the one asked for, the others kept as the file has them; with
    `classes`, only the cases of those classes are measured, the others kept."""
    stages = json.loads(path.read_text(encoding="utf-8")) if (only or classes) and path.exists() else {}
    dates = {**stages.get("measured", {}).get("dates", {}),
             **{section: datetime.date.today().isoformat() for section in SECTIONS if only in (None, section)}}
    stages["measured"] = {"dates": dates, "machine": platform.platform(), "torch": torch.__version__,
                          "transformers": transformers.__version__, "diffusers": diffusers.__version__,
                          "device": "cpu", "dtype": "bfloat16", "attention": "sdpa"}

    def entries(section: str, made: list[tuple[dict, object]]) -> list[dict]:
        return [_entry(stages.get(section, []), entry, measure, classes) for entry, measure in made]

    if only in (None, "steps"):
        stages["steps"] = entries("steps", [
            ({"class": c, "config": cfg, "batch": b, "latent": list(lat), "text_tokens": n},
             lambda c=c, cfg=cfg, b=b, lat=lat, n=n: step_bytes(c, cfg, b, lat, n)) for c, cfg, b, lat, n in STEPS])
        stages["steps"] += entries("steps", [
            ({"class": c, "config": cfg, "batch": b, "latent": list(lat), "text_tokens": n, "expand_timesteps": True},
             lambda c=c, cfg=cfg, b=b, lat=lat, n=n: step_bytes(c, cfg, b, lat, n, expand_timesteps=True))
            for c, cfg, b, lat, n in EXPANDED_STEPS])
    if only in (None, "decodes"):
        stages["decodes"] = entries("decodes", [
            ({"class": c, "config": cfg, "batch": b, "width": w, "height": h, "frames": f, "tile": t},
             lambda c=c, cfg=cfg, b=b, w=w, h=h, f=f, t=t: decode_bytes(c, cfg, b, w, h, f, t))
            for c, cfg, b, w, h, f, t in DECODES])
    if only in (None, "encoders"):
        stages["encoders"] = entries("encoders", [
            ({"class": c, "config": cfg, "tokens": n, "hidden_states": h},
             lambda c=c, cfg=cfg, n=n, h=h: encode_bytes(c, cfg, n, h)) for c, cfg, n, h in ENCODERS])
    if only in (None, "unet_steps"):
        stages["unet_steps"] = entries("unet_steps", [
            ({"class": "UNet2DConditionModel", "config": cfg, "batch": b, "height": h, "width": w, "text_tokens": n},
             lambda cfg=cfg, b=b, h=h, w=w, n=n: unet_step_bytes(cfg, b, h, w, n)) for cfg, b, h, w, n in UNET_STEPS])
    path.write_text(json.dumps(stages, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "diffusion_params.json"))
    parser.add_argument("--stages-out", default=str(ROOT / "tests" / "golden" / "diffusion_stages.json"))
    parser.add_argument("--only", choices=("params", *SECTIONS),
                        help="the parameters only, or one kind of stage only (the others kept from --stages-out)")
    parser.add_argument("--classes", help="comma-separated classes: measure only their cases and perturbed configs, "
                                          "keep the others' numbers from the files")
    args = parser.parse_args()
    classes = set(args.classes.split(",")) if args.classes else None
    transformers.logging.set_verbosity_error()
    diffusers.logging.set_verbosity_error()
    if args.only != "params":
        measure_stages(Path(args.stages_out), args.only, classes)
    if args.only not in (None, "params"):
        return
    presets = {slug: {part.role: {"class": part.class_name, **counted(part.class_name, part.config)}
                      for part in pipeline.parts}
               for slug, pipeline in load_pipelines().items()}
    old = json.loads(Path(args.out).read_text(encoding="utf-8"))["perturbed"] if classes else []
    perturbed = [_entry(old, {"class": name, "config": config, **counted(name, config)},
                        lambda name=name, config=config: {p: loaded_bytes(name, config, p)
                                                          for p in ("bf16", "fp16", "fp32", "fp8")}, classes)
                 for name, config in PERTURBED]
    document = {
        "measured": {"date": datetime.date.today().isoformat(), "machine": platform.platform(),
                     "torch": torch.__version__, "transformers": transformers.__version__,
                     "diffusers": diffusers.__version__, "device": "meta"},
        "presets": presets,
        "perturbed": perturbed,
    }
    Path(args.out).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(presets)} presets, {len(perturbed)} perturbed configs")


if __name__ == "__main__":
    main()
