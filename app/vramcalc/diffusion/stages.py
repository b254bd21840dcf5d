"""The working memory of each stage of a diffusers pipeline run, above the weights: the live tensors at the stage's
peak, counted from what tools/measure_diffusion.py saw live there (the storages made by ATen ops, as
tools/measure_peak.py tracks them) on small random-weight configs of the same classes, bf16, PyTorch SDPA (no
attention score matrix is made). Each formula names the tensors it counts; e is the bytes of an activation value
(2 for bf16 and fp16), fp32 temporaries count 4. The tests hold the formulas to the measurements within 10 %.

"""

from __future__ import annotations

from collections.abc import Mapping
from math import prod
from typing import Any

from .tensors import QWEN3_DEFAULTS

FP32 = 4
VAE_SCALE = 8  # every VAE here: 8x spatial compression (2 ** (len(block_out_channels) - 1) for AutoencoderKL)
WAN_TEMPORAL = 4  # AutoencoderKLWan and AutoencoderKLHunyuanVideo: 4x temporal compression, the first frame alone
VIDEO_VAES = ("AutoencoderKLWan", "AutoencoderKLHunyuanVideo")
HIDREAM = "HiDreamImageTransformer2DModel"
# Wan VAE decode, one causal chunk: the live tensors per base_dim channel of a full-resolution pixel (the last up
# block's activations over its 4-frame chunk, its fp32 RMS-norm temporaries and the 2-frame caches of every causal
# conv above it), counted on base_dim 16, 256 x 256 (tools/measure_diffusion.py, --explain); dims scale with base_dim.
WAN_DECODE_PER_BASE_CHANNEL = 53
# ... and for a single latent frame (an image: Qwen-Image's AutoencoderKLQwenImage, the same network), the first chunk
# alone: 18, counted on base_dim 16 at 256 x 256 (num_res_blocks 2: each resnet adds its causal caches)
WAN_FIRST_CHUNK_PER_BASE_CHANNEL = 18
# Wan 2.2's VAE (AutoencoderKLWan with is_residual, TI2V-5B) decode, one causal chunk: the live values per
# decoder_base_dim channel of a pixel of the decoder's own grid (the picture over patch_size): the last up block's
# input, its x_copy (WanResidualUpBlock clones it), the first resnet's shortcut, SiLU, the causal conv's cat with its
# 2-frame cache and padded input, and every causal conv's cache. By the latent frames decoded: the first chunk
# alone (1 output frame), a second chunk over the first's 1-frame caches, later chunks over 2-frame caches. Counted
# on decoder_base_dim 24, 256 x 256 (1, 5 and 9 frames), tools/measure_diffusion.py.
WAN22_DECODE_PER_BASE_CHANNEL = {1: 22, 2: 72, 3: 84}


def latent_shape(vae_class: str, vae: dict[str, Any], width: int, height: int, frames: int) -> tuple[int, ...]:
    """(channels, [latent frames,] latent height, latent width) of the VAE's latents."""
    if vae_class == "AutoencoderKLHunyuanVideo15":
        scale, temporal = int(vae.get("spatial_compression_ratio", 16)), int(vae.get("temporal_compression_ratio", 4))
        return (int(vae.get("latent_channels", 32)), (frames - 1) // temporal + 1, height // scale, width // scale)
    if vae_class == "AutoencoderKLLTXVideo":  # 32x in space, 8x in time (0.9.5 on; 0.9.0 and 0.9.1: the defaults)
        scale, temporal = ltx_scales(vae)
        return (int(vae.get("latent_channels", 128)), (frames - 1) // temporal + 1, height // scale, width // scale)
    if vae_class == "AutoencoderKLQwenImage":  # Wan 2.1's VAE over one frame
        return (int(vae.get("z_dim", 16)), height // VAE_SCALE, width // VAE_SCALE)
    if vae_class in VIDEO_VAES:
        channels, scale = int(vae.get("z_dim", vae.get("latent_channels", 16))), _spatial_scale(vae_class, vae)
        return (channels, (frames - 1) // WAN_TEMPORAL + 1, height // scale, width // scale)
    return (int(vae.get("latent_channels", 4)), height // VAE_SCALE, width // VAE_SCALE)


def ltx_scales(vae: Mapping[str, Any]) -> tuple[int, int]:
    """AutoencoderKLLTXVideo's (spatial, temporal) compression ratios, its config's or its defaults' (32, 8)."""
    return int(vae.get("spatial_compression_ratio") or 32), int(vae.get("temporal_compression_ratio") or 8)


def _spatial_scale(vae_class: str, vae: Mapping[str, Any]) -> int:
    """Pixels per latent a side: AutoencoderKLWan's scale_factor_spatial (16 for Wan 2.2's, its 8x network and a 2 x 2
    patch), 8 for the others read here."""
    return int(vae.get("scale_factor_spatial", VAE_SCALE)) if vae_class == "AutoencoderKLWan" else VAE_SCALE


def image_tokens(denoiser_class: str, config: dict[str, Any], latent: tuple[int, ...]) -> int:
    """Tokens of the latent sequence: the latent grid over the patch (Flux packs 2 x 2 latents before its patch 1)."""
    if denoiser_class == "FluxTransformer2DModel":
        return (latent[-2] // 2) * (latent[-1] // 2)
    if denoiser_class == "Flux2Transformer2DModel":  # Flux2Pipeline: the 8x VAE's latents 2 x 2-patched, patch 1
        return (latent[-2] // 2) * (latent[-1] // 2)
    if denoiser_class == "WanTransformer3DModel":
        t, p, q = (int(size) for size in config.get("patch_size", (1, 2, 2)))
        return (latent[1] // t) * (latent[2] // p) * (latent[3] // q)
    if denoiser_class in ("HunyuanVideoTransformer3DModel", "HunyuanVideo15Transformer3DModel",
                          "LTXVideoTransformer3DModel"):
        t = int(config.get("patch_size_t", 1))
        p = int(config.get("patch_size", 2 if denoiser_class == "HunyuanVideoTransformer3DModel" else 1))
        return (latent[1] // t) * (latent[2] // p) * (latent[3] // p)
    patch = int(config.get("patch_size", 2))
    if denoiser_class == HIDREAM and latent[-2] != latent[-1]:  # patchify pads a non-square latent to max_seq
        return prod(int(side) for side in config.get("max_resolution", (128, 128))) // patch ** 2
    return (latent[-2] // patch) * (latent[-1] // patch)


def denoise_bytes(denoiser_class: str, config: dict[str, Any], batch: int, tokens: int, text_tokens: int,
                  e: int = 2, *, expand_timesteps: bool = False) -> int | None:
    """Working memory of one forward pass of the denoiser over `batch` latents (CFG in one batch doubles it);
    `expand_timesteps`: WanPipeline's Wan 2.2 TI2V timestep, one per latent token."""
    if denoiser_class == "UNet2DConditionModel":
        return None  # its latent grid is not a token count: unet_step_bytes
    h = int(config["attention_head_dim"])
    d = int(config["num_attention_heads"]) * h
    if denoiser_class == "FluxTransformer2DModel":
        joint = tokens + text_tokens
        mlp = 4 * d
        # single-stream block while RoPE turns q and k (embeddings.apply_rotary_emb, in fp32): per joint token the
        # block input, its AdaLN output, the GELU'd MLP, v, q and k back in e, the rotation's stack and three fp32
        # temporaries; the image stream's residual; the RoPE cos and sin tables (fp32, not per batch)
        per_token = mlp * e + 6 * d * e + 3 * d * FP32
        return batch * (joint * per_token + tokens * d * e) + 2 * joint * h * FP32
    if denoiser_class == "Flux2Transformer2DModel":
        joint, mlp = tokens + text_tokens, int(d * float(config.get("mlp_ratio", 3.0)))
        # a single-stream block joining attention and SwiGLU (transformer_flux2.py Flux2ParallelSelfAttnProcessor)
        # at the concatenation before its output projection: per joint token the block input, its modulated norm,
        # the fused projection (q, k, v and the SwiGLU input, 3 d + 2 mlp; q, k, v and the MLP halves views of it),
        # the rotated q and k, the attention output, the SwiGLU output and the concatenation (d + mlp); the text
        # stream's last double-block output; the modulations of the three streams and the time embedding (16 d)
        # per sample; the RoPE cos and sin tables in fp32 of the joint, the image and the text tokens (not per batch)
        per_joint = (9 * d + 4 * mlp) * e
        return batch * (joint * per_joint + text_tokens * d * e + 16 * d * e) + 2 * h * FP32 * (
            joint + tokens + text_tokens)
    if denoiser_class == "HunyuanVideoTransformer3DModel":
        joint, mlp = tokens + text_tokens, int(d * float(config.get("mlp_ratio", 4.0)))
        # single-stream block while RoPE turns k (embeddings.apply_rotary_emb, in fp32, the video tokens only): per
        # joint token the block input (its residual), its AdaLN output, the GELU-tanh'd MLP, v, the rotated q and
        # k's RMSNorm tensors; per video token the stream's input, the rotation's stack and three fp32
        # temporaries; the text stream's input; the RoPE cos and sin tables (fp32, not per batch)
        per_joint, per_video = mlp * e + 6 * d * e, 2 * d * e + 3 * d * FP32
        return batch * (joint * per_joint + tokens * per_video + text_tokens * d * e) + 2 * tokens * h * FP32
    if denoiser_class == "HunyuanVideo15Transformer3DModel":
        # a dual-stream block's joint attention (transformer_hunyuan_video15.py HunyuanVideo15AttnProcessor2_0): the
        # processor turns the padded mask into a (batch, 1, joint, joint) bool by repeat, and into another by &
        # with its transpose, both held while SDPA converts it to an additive mask of the activations' dtype
        # (convert_boolean_attn_mask); beside them q, k and v joined over the joint tokens, SDPA's output and its
        # fp32 log-sum-exp per head; the text stream: the reordered text kept in the forward's list and stacked,
        # its AdaLN output, its normed q and k and its v, and each source's condition-type embedding and sum (the
        # forward keeps both); the video stream's input and AdaLN output; the RoPE cos and sin (fp32, not per batch)
        joint, heads = tokens + text_tokens, int(config["num_attention_heads"])
        masks = joint * joint * (2 + e)
        per_batch = masks + joint * 4 * d * e + FP32 * heads * joint + 8 * text_tokens * d * e + 2 * tokens * d * e
        return batch * per_batch + 2 * tokens * h * FP32
    if denoiser_class == "QwenImageTransformer2DModel":
        # the image stream's MLP (transformer_qwenimage.py QwenImageTransformerBlock): its 4d projection and GELU
        # output beside 7 d-wide tensors of the block (its input, norm1 and modulated outputs, the attention output,
        # the new residual, norm2 and modulated outputs), 5 of the text stream; the complex64 RoPE tables, not per
        # batch: the 4,096 positive and negative positions moved to the device, the image tokens' table cached by
        # _compute_video_freqs and its concatenation
        rope = sum(int(a) for a in config.get("axes_dims_rope", (16, 56, 56))) // 2 * 8
        return batch * (tokens * 15 * d * e + 5 * text_tokens * d * e) + (2 * 4096 + 2 * tokens) * rope
    if denoiser_class == HIDREAM:
        # transformer_hidream_image.py: a double-stream block's attention while apply_rope turns q and k in fp32 (their
        # copies, q's rotated, and k's two products and their sum: 4 fp32 temporaries, 2 more when the activations
        # are not fp32), beside q, k and v joined over the joint tokens; the image stream's input, modulated norm and
        # q, k, v; the text stream's (the previous block's output, its join with the block's Llama layer, the
        # modulated norm, q, k, v); the fp32 RoPE table over the joint tokens; the forward's caption projections (a
        # Llama layer per block and T5's, a third of the text tokens each). The MoE feed-forward (an expert at a
        # time over its tokens) holds less. Per sample
        joint, prompt = tokens + text_tokens, text_tokens // 3
        captions = int(config.get("num_layers", 16)) + int(config.get("num_single_layers", 32)) + 1
        rotation = (4 + (2 if e != FP32 else 0)) * FP32 + 3 * e
        return batch * (joint * (d * rotation + 2 * h * FP32) + (5 * tokens + 6 * text_tokens + captions * prompt)
                        * d * e)
    if denoiser_class == "LTXVideoTransformer3DModel":
        # transformer_ltx.py: RoPE's cos and sin tables in fp32 for every token of every sample (d wide, the grid
        # repeated over the batch), kept through the blocks. The peak is self-attention's rotation of q or k
        # (apply_rotary_emb, in fp32: the input's copy or the rotated copy, and the two products; with fp32
        # activations the input is not copied) beside the block's input, its modulated norm1 output, the normed q
        # and k, v and the rotated stack; the feed-forward (its 4d projection and GELU-tanh output beside the
        # residual, the cross-attention output and the modulated norm2 output) is the larger only with fp32
        # activations (read from the code, not measured). Per sample the caption projection's output and the time
        # embedding (6 d), its modulation sum (6 d) and the embedded timestep (d)
        copies = 3 if e != FP32 else 2
        attention, feed_forward = 6 * d * e + copies * d * FP32, 11 * d * e
        return batch * (tokens * (max(attention, feed_forward) + 2 * d * FP32) + (text_tokens + 13) * d * e)
    if denoiser_class == "SD3Transformer2DModel":
        # the image stream's feed-forward: its 4d projection and GELU output, with 5 d-wide tensors of the block
        # (residual, AdaLN output and modulations, attention output), 6 where MMDiT-X adds its second attention
        width_tensors = 6 if config.get("dual_attention_layers") else 5
        return batch * (tokens * (2 * 4 * d * e + width_tensors * d * e) + 3 * text_tokens * d * e)
    ffn = int(config.get("ffn_dim", 4 * d))  # WanTransformer3DModel
    # the larger of two moments of a block: the feed-forward (its projection and GELU output, 4 d-wide
    # tensors) and self-attention's q/k RMSNorm across heads (in fp32: 3 temporaries and the rsqrt, with 5
    # d-wide tensors); the RoPE cos and sin tables in e over the video tokens
    feed_forward = 2 * ffn * e + 4 * d * e
    attention = 5 * d * e + 3 * d * FP32 + FP32
    if not expand_timesteps:
        return batch * (tokens * max(feed_forward, attention) + 3 * text_tokens * d * e) + 2 * tokens * h * e
    # a timestep per token (Wan 2.2 TI2V, transformer_wan.py): the time embedding (d) and its projection (6 d) per
    # token, kept through the blocks, and in each block the fp32 sum of the modulation table and the projection (6 d,
    # its six chunks views of it); at a block's start beside it the projection's fp32 copy being added (6 d) and the
    # block's input: a third moment, often the largest
    kept = 6 * d * FP32 + 7 * d * e
    modulation = 6 * d * FP32 + d * e
    per_token = kept + max(feed_forward, attention, modulation)
    return batch * (tokens * per_token + 3 * text_tokens * d * e) + 2 * tokens * h * e


def _per_level(value: Any, levels: int) -> list[int]:
    return [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)] * levels


def unet_step_bytes(config: dict[str, Any], batch: int, height: int, width: int, e: int = 2) -> int:
    """Working memory of one UNet2DConditionModel forward over latents of height x width, the largest moment of its
    up path (unet_2d_condition.py: the caller keeps every skip tensor of the down path not yet consumed, and the
    up block's input `sample`, until each up block returns), in each up block:
    - its first resnet: torch.cat of the input and the last skip, GroupNorm's output and SiLU's (ResnetBlock2D);
    - a transformer (CrossAttnUpBlock2D): the resnet's output, four tensors of its width over the tokens (proj_in,
      the attention residual, LayerNorm) and GEGLU's projection (8 x the width), GELU and product (4 x each).
    Channels per level from block_out_channels, a level's pixels a quarter of the one above it."""
    channels = [int(c) for c in config.get("block_out_channels", (320, 640, 1280, 1280))]
    levels = len(channels)
    layers = _per_level(config.get("layers_per_block", 2), levels)
    pixels = [(height >> level) * (width >> level) for level in range(levels)]
    skips = [channels[0] * pixels[0]]  # conv_in's output, then each down resnet's and each downsampler's
    for level in range(levels):
        skips += [channels[level] * pixels[level]] * layers[level]
        if level < levels - 1:
            skips.append(channels[level] * pixels[level + 1])
    up_types = config.get("up_block_types", ("UpBlock2D",) + ("CrossAttnUpBlock2D",) * (levels - 1))
    largest, entering = 0, channels[-1]  # the mid block's output enters the first up block
    for i, up_type in enumerate(up_types):
        level = levels - 1 - i
        n, c = pixels[level], channels[level]
        held = sum(skips) + entering * n
        first_resnet = 3 * (entering + skips[-1] // n) * n
        transformer = (1 + 4 + 16) * c * n if "CrossAttn" in up_type else 0
        largest = max(largest, held + max(first_resnet, transformer))
        skips = skips[:-(layers[::-1][i] + 1)]
        entering = c
    return batch * largest * e


def encode_bytes(encoder_class: str, config: dict[str, Any], tokens: int, hidden_states: bool, e: int = 2) -> int:
    """Working memory of a text encoder's forward over one prompt (the pipelines encode the prompt and the negative
    prompt in calls of their own, one sequence each), transformers 5.23 with SDPA; `hidden_states`: the pipeline asks
    for every layer's output (output_hidden_states=True)."""
    s = tokens
    d = int(config.get("d_model", config.get("hidden_size", 0)))
    if encoder_class in ("T5EncoderModel", "UMT5EncoderModel"):
        heads, f = int(config.get("num_heads", 8)), int(config.get("d_ff", 2048))
        inner = heads * int(config.get("d_kv", 64))
        # T5Attention.compute_bias: the relative-position buckets (six int64 temporaries and a bool mask), and the
        # bias (seq, seq, heads) with the SDPA mask cloned from it; q, k, v and the attention output beside it;
        # the gated-GELU feed-forward (wi_0's output and NewGELU's three temporaries), with T5's bias kept for the
        # next layers (UMT5 makes one per layer: modeling_umt5.py)
        kept_bias = s * s * heads * e if encoder_class == "T5EncoderModel" else 0
        buckets = 6 * 8 * s * s + s * s + s * (3 * inner + 2 * d) * e + 2 * 8 * s
        attention = 2 * s * s * heads * e + s * (4 * inner + 3 * d) * e + FP32 * heads * s
        feed_forward = 4 * s * f * e + kept_bias + 4 * s * d * e
        return max(buckets, attention, feed_forward)
    if encoder_class in ("Mistral3ForConditionalGeneration", "Qwen3ForCausalLM"):
        # FLUX.2's (Flux2Pipeline, Flux2KleinPipeline): the prompt padded to max_length (a mask with zeros) and
        # use_cache=False. The model keeps a (seq, seq) bool causal-and-padding mask through the layers, SDPA makes an
        # additive one of the activations' dtype in each. The largest of the last layer's attention (the layers'
        # outputs kept, the RMSNorm output, the rotated q and k, v, k and v repeated to every head, SDPA's output and
        # its fp32 log-sum-exp), its SwiGLU (the layers' outputs, the residual and the norm, three ffn-wide tensors)
        # and the LM head's logits over every position beside every layer's output, after the inner model returns
        text = {**(QWEN3_DEFAULTS if encoder_class == "Qwen3ForCausalLM" else {}),
                **(config.get("text_config") or config)}
        d, layers = int(text.get("hidden_size", 4096)), int(text.get("num_hidden_layers", 32))
        ffn, heads = int(text.get("intermediate_size", 14336)), int(text.get("num_attention_heads", 32))
        head_dim = int(text.get("head_dim") or d // heads)
        kv = int(text.get("num_key_value_heads", heads)) * head_dim
        kept = layers if hidden_states else 1
        shared, mask = 2 * head_dim * s * e + 8 * s, s * s
        attention = s * ((kept + 1) * d + 4 * heads * head_dim + 2 * kv) * e + FP32 * heads * s + mask * (
            1 + e) + shared
        mlp = s * (3 * ffn + (kept + 2) * d) * e + mask + shared
        logits = s * (int(text.get("vocab_size", 32000)) + (kept + 1) * d) * e
        return max(attention, mlp, logits)
    if encoder_class in ("Qwen2_5_VLTextModel", "Qwen2_5_VLForConditionalGeneration", "LlamaForCausalLM"):
        # HunyuanVideo15Pipeline pads the prompt (an attention mask with zeros): the model keeps a (seq, seq) bool
        # causal-and-padding mask for every layer, and SDPA turns it into an additive one of the activations'
        # dtype in each layer. The larger of the last layer's SwiGLU (as LlamaModel's, with the bool mask) and its
        # attention: every layer's output kept with the embeddings, the RMSNorm output, the rotated q, k and v
        # repeated to every head (repeat_kv), SDPA's output and its fp32 log-sum-exp, the KV cache, cos and sin.
        # QwenImagePipeline's whole model (ForConditionalGeneration) reads one unpadded prompt: no mask is made,
        # and its LM head's logits over every position, beside the layers' outputs, are a third moment
        # HiDreamImagePipeline's LlamaForCausalLM reads its prompt padded (the mask) and computes the logits
        full = encoder_class != "Qwen2_5_VLTextModel"
        config = {**config, **(config.get("text_config") or {})}
        d = int(config.get("hidden_size", 3584))
        layers, ffn = int(config.get("num_hidden_layers", 28)), int(config.get("intermediate_size", 18944))
        heads = int(config.get("num_attention_heads", 28))
        head_dim = int(config.get("head_dim", d // heads))
        kv = int(config.get("num_key_value_heads", heads)) * head_dim
        shared = s * (2 * layers * kv + 2 * head_dim) * e + 8 * s
        mask = 0 if encoder_class == "Qwen2_5_VLForConditionalGeneration" else s * s
        mlp = s * (3 * ffn + (layers + 2 if hidden_states else 4) * d) * e + mask + shared
        attention = s * ((layers + 1 if hidden_states else 2) * d + 4 * heads * head_dim) * e + shared + mask * (
            1 + e) + FP32 * heads * s
        # (the logits after the inner model returns: its cos, sin and positions gone, the KV cache returned)
        logits = s * (int(config.get("vocab_size", 152064)) + (layers + 1 if hidden_states else 1) * d
                      + 2 * layers * kv) * e
        return max(mlp, attention, logits if full else 0)
    if encoder_class == "LlamaModel":
        layers, ffn = int(config.get("num_hidden_layers", 32)), int(config.get("intermediate_size", 11008))
        head_dim = int(config.get("head_dim", d // int(config.get("num_attention_heads", 32))))
        kv = int(config.get("num_key_value_heads", config.get("num_attention_heads", 32))) * head_dim
        # the last layer's SwiGLU (gate's SiLU, up, their product); every layer's output kept with the embeddings,
        # the residual and the RMSNorm output (four hidden-width tensors when the layers' outputs are not asked
        # for); the KV cache the forward fills (use_cache, on in the config); the rotary cos and sin; the int64
        # position ids
        kept = layers + 2 if hidden_states else 4
        return s * (3 * ffn + kept * d + 2 * layers * kv + 2 * head_dim) * e + 8 * s
    # CLIPTextModel(WithProjection): the MLP's fc1 output and quick_gelu's two temporaries, four d-wide tensors (the
    # residual, its LayerNorm, the attention output), and every layer's output but two when they are all returned
    layers = int(config.get("num_hidden_layers", 12))
    return s * (3 * int(config.get("intermediate_size", 4 * d)) + (4 + (layers - 2 if hidden_states else 0)) * d) * e


def decode_bytes(vae_class: str, vae: dict[str, Any], batch: int, width: int, height: int, frames: int,
                 e: int = 2, tile: int = 0) -> int | None:
    """Working memory of decoding the latents in one call, or tile by tile (`tile` pixels, 0: untiled); None where
    not measured (an AutoencoderKLHunyuanVideo of another layout than HunyuanVideo's)."""
    if vae_class == "AutoencoderKLHunyuanVideo":
        return hunyuan_decode_bytes(vae, batch, width, height, frames, e, tile)
    if vae_class == "AutoencoderKLHunyuanVideo15":
        return hunyuan15_decode_bytes(vae, batch, width, height, frames, e, tile)
    if vae_class == "AutoencoderKLLTXVideo":
        return None if tile else ltx_decode_bytes(vae, batch, width, height, frames, e)
    if vae_class in ("AutoencoderKLWan", "AutoencoderKLQwenImage") and int(vae.get("num_res_blocks", 2)) != 2:
        return None  # counted with 2 resnets a level (each adds its causal caches)
    if tile and (width > tile or height > tile):
        return tiled_decode_bytes(vae_class, vae, batch, width, height, frames, e, tile)
    return _untiled_decode_bytes(vae_class, vae, batch, width, height, frames, e)


HUNYUAN_TILE, HUNYUAN_STRIDE = 4, 3  # tile_sample_min_num_frames 16 and stride 12, in latent frames


def hunyuan_decode_bytes(vae: dict[str, Any], batch: int, width: int, height: int, frames: int, e: int,
                         tile: int = 0) -> int | None:
    """AutoencoderKLHunyuanVideo.decode with its default framewise decoding (`_temporal_tiled_decode`): up to
    HUNYUAN_TILE latent frames in one decoder call, else a call on every HUNYUAN_STRIDE latent frames over the next
    HUNYUAN_TILE + 1, each decoded tile kept in `row` (a view without its first frame, all but the first, which
    keeps the whole storage) until the last, then blended in place and concatenated into the video. The peak is
    the larger of a call above the tiles decoded before it, and the assembly (every tile and the video). With
    `tile` (enable_tiling()), a call wider or taller than the tile is `tiled_decode`: tiles every 3/4 tile, kept,
    blended, concatenated into rows and the rows into the frames (two copies), as AutoencoderKL's."""
    channels = [int(c) for c in vae.get("block_out_channels", (128, 256, 512, 512))]
    if len(channels) != 4 or int(vae.get("spatial_compression_ratio", 8)) != VAE_SCALE:
        return None  # measured on the four levels of HunyuanVideo's layout only
    latent_frames = (frames - 1) // WAN_TEMPORAL + 1
    z = int(vae.get("latent_channels", 16))

    def call(tile_frames: int, height: int, width: int) -> int:
        """One decoder call at the last upsampler (its channels, channels[1]): the replicate-padded input of its
        causal conv (2 more frames, 2 more pixels a side), the conv's output, the torch.cat of the upsampled frames
        and the nearest-upsampled later frames and first frame; at half resolution the up block's input and its
        last resnet's output; post_quant_conv's output."""
        out, half = (tile_frames - 1) * 4 + 1, (tile_frames - 1) * 2 + 1
        full = channels[1] * ((out + 2) * (height + 2) * (width + 2) + 3 * out * height * width)
        below = (channels[2] + channels[1]) * half * (height // 2) * (width // 2)
        return full + below + z * tile_frames * (height // VAE_SCALE) * (width // VAE_SCALE)

    def tiled(tile_frames: int) -> int:
        if not tile or (width <= tile and height <= tile):
            return call(tile_frames, height, width)
        pixel = 3 * ((tile_frames - 1) * 4 + 1)  # one decoded pixel of every frame
        before, decoding = 0, 0
        for h, w in [(h, w) for h in _tile_edges(height, tile) for w in _tile_edges(width, tile)]:
            decoding = max(decoding, before + call(tile_frames, h, w))
            before += h * w * pixel
        return max(decoding, before + 2 * width * height * pixel)

    if latent_frames <= HUNYUAN_TILE:
        return batch * tiled(latent_frames) * e
    frame = 3 * height * width  # one decoded frame
    before, largest = 0, 0
    for start in range(0, latent_frames, HUNYUAN_STRIDE):
        frames_in = min(HUNYUAN_TILE + 1, latent_frames - start)
        largest = max(largest, before + tiled(frames_in))
        before += ((frames_in - 1) * 4 + 1) * frame
    return batch * max(largest, before + ((latent_frames - 1) * 4 + 1) * frame) * e


def hunyuan15_decode_bytes(vae: dict[str, Any], batch: int, width: int, height: int, frames: int, e: int,
                           tile: int = 0) -> int:
    """AutoencoderKLHunyuanVideo15.decode: every frame in one decoder call (no temporal tiling), the peak at a
    resnet's second RMS norm in the last up block (full resolution, block_out_channels[0] channels): the up block's
    input (the caller holds it), the resnet's input and its conv1 output, the norm's fp32 copy and F.normalize's
    fp32 quotient (the copy is the input itself in fp32), and the fp32 norm over the channels. The mid block's causal
    attention mask (latent tokens squared) stays below it. With `tile` (enable_tiling(): the latent tile tile / 16,
    a tile every 3/4 of it), each tile decoded so and kept until the rows and the video are concatenated."""
    scale, temporal = int(vae.get("spatial_compression_ratio", 16)), int(vae.get("temporal_compression_ratio", 4))
    channels = int(vae.get("block_out_channels", (128,))[0])
    out_frames = ((frames - 1) // temporal) * temporal + 1

    def call(height: int, width: int) -> int:
        pixels = out_frames * height * width
        return batch * (channels * pixels * (3 * e + (FP32 if e != FP32 else 0) + FP32) + FP32 * pixels)

    if not tile or (width <= tile and height <= tile):
        return call(height, width)
    pixel = batch * 3 * out_frames * e
    before, decoding = 0, 0
    for h, w in [(h, w) for h in _tile_edges(height, tile, scale) for w in _tile_edges(width, tile, scale)]:
        decoding = max(decoding, before + call(h, w))
        before += h * w * pixel
    return max(decoding, before + 2 * width * height * pixel)


def ltx_decode_bytes(vae: dict[str, Any], batch: int, width: int, height: int, frames: int, e: int) -> int | None:
    """AutoencoderKLLTXVideo.decode over every frame in one call (LTXPipeline leaves tiling and framewise decoding
    off), the 0.9.1-on decoder (three up blocks, each a 2x2x2 depth-to-space with upsample_factor 2, no noise
    injection; None for other layouts, not measured). Its grid is the video over patch_size (F x H/4 x W/4). The
    larger of two moments: the last up block's resnet at norm2 (RMSNorm in fp32: the input's fp32 copy and its
    square), beside the resnet's input and conv1's output, and the up block's input (the previous block's output, at
    half the grid each way, held by the caller); and conv_out (the SiLU output, its replicate padding of one frame a
    side and their concatenation, conv_out's output of out_channels x patch_size^2), the larger for one frame."""
    channels = [int(c) for c in vae.get("decoder_block_out_channels", (128, 256, 512, 512))][::-1]
    factors = [int(f) for f in vae.get("upsample_factor", (1, 1, 1, 1))][::-1]
    scaling = vae.get("decoder_spatio_temporal_scaling", (True, True, True, False))
    if len(channels) != 3 or factors != [2, 2, 2] or not all(scaling) or any(vae.get("decoder_inject_noise") or ()):
        return None
    patch, temporal = int(vae.get("patch_size", 4)), ltx_scales(vae)[1]
    out_frames = (frames - 1) // temporal * temporal + 1
    plane = (height // patch) * (width // patch)
    last, before = channels[-1] // 2, channels[-2] // 2
    norm = last * out_frames * plane * (2 * e + FP32 + (FP32 if e != FP32 else 0)) + before * (
        (out_frames - 1) // 2 + 1) * plane // 4 * e
    conv_out = (last * (2 * out_frames + 4) + int(vae.get("out_channels", 3)) * patch * patch * out_frames) * plane * e
    return batch * max(norm, conv_out)


def _untiled_decode_bytes(vae_class: str, vae: dict[str, Any], batch: int, width: int, height: int, frames: int,
                          e: int) -> int:
    if vae_class == "AutoencoderKLWan" and vae.get("is_residual"):
        # the decoded video (in patches: as many values as 3 channels of the picture) and the last chunk's live values
        out_frames = ((frames - 1) // WAN_TEMPORAL) * WAN_TEMPORAL + 1
        latent_frames, patch = (frames - 1) // WAN_TEMPORAL + 1, int(vae.get("patch_size") or 1)
        base_dim = int(vae.get("decoder_base_dim") or vae.get("base_dim", 96))
        per_channel = WAN22_DECODE_PER_BASE_CHANNEL[min(latent_frames, 3)]
        return batch * e * (3 * out_frames * width * height + per_channel * base_dim * (width // patch) * (
            height // patch))
    if vae_class in ("AutoencoderKLWan", "AutoencoderKLQwenImage"):
        out_frames = ((frames - 1) // WAN_TEMPORAL) * WAN_TEMPORAL + 1
        # the decoded video (3 channels) and one causal chunk's live tensors
        base_dim = int(vae.get("base_dim", 96))
        per_channel = WAN_FIRST_CHUNK_PER_BASE_CHANNEL if frames < 1 + WAN_TEMPORAL else WAN_DECODE_PER_BASE_CHANNEL
        return batch * width * height * e * (3 * out_frames + per_channel * base_dim)
    channels = [int(c) for c in vae.get("block_out_channels", (64,))]
    entering_last = channels[1] if len(channels) > 1 else channels[0]
    # the last up block's first resnet at full resolution: the upsampler's conv output, GroupNorm and SiLU, each
    # with the channels of the block before it
    return batch * 3 * entering_last * width * height * e


def _tile_edges(pixels: int, tile: int, scale: int = VAE_SCALE) -> list[int]:
    """The pixel edges of the tiles along one side: a tile every 3/4 tile (AutoencoderKL's tile_overlap_factor 0.25,
    AutoencoderKLWan's default stride 192 of 256), cut at the edge of the latents."""
    latent, tile_latent = pixels // scale, tile // scale
    return [scale * min(tile_latent, latent - start) for start in range(0, latent, tile_latent * 3 // 4)]


def tiled_decode_bytes(vae_class: str, vae: dict[str, Any], batch: int, width: int, height: int, frames: int,
                       e: int, tile: int) -> int:
    """`tiled_decode` of AutoencoderKL and AutoencoderKLWan (`enable_tiling()`; tile_sample_min_size, or Wan's
    tile_sample_min_height/width, set to `tile`): every decoded tile is kept in `rows` until all are decoded, then
    blended in place, cropped into the rows (torch.cat) and the rows into the picture (torch.cat; Wan clamps it into
    a third copy). The peak is the larger of a tile's decode above the tiles decoded before it, and the assembly."""
    out_frames = ((frames - 1) // WAN_TEMPORAL) * WAN_TEMPORAL + 1 if vae_class == "AutoencoderKLWan" else 1
    pixel = batch * 3 * out_frames * e  # bytes of one decoded pixel of every frame
    scale = _spatial_scale(vae_class, vae)
    tiles = [(h, w) for h in _tile_edges(height, tile, scale) for w in _tile_edges(width, tile, scale)]
    before, decoding = 0, 0
    for h, w in tiles:
        decoding = max(decoding, before + _untiled_decode_bytes(vae_class, vae, batch, w, h, frames, e))
        before += h * w * pixel
    copies = 3 if vae_class in ("AutoencoderKLWan", "AutoencoderKLQwenImage") else 2
    return max(decoding, before + copies * width * height * pixel)
