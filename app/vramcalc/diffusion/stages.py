"""The working memory of each stage of a diffusers pipeline run, above the weights: the live tensors at the stage's
peak, counted from what tools/measure_diffusion.py saw live there (the storages made by ATen ops, as
tools/measure_peak.py tracks them) on small random-weight configs of the same classes, bf16, PyTorch SDPA (no
attention score matrix is made). Each formula names the tensors it counts; e is the bytes of an activation value
(2 for bf16 and fp16), fp32 temporaries count 4. The tests hold the formulas to the measurements within 10 %.

Stages whose working memory is not modelled yet (the UNet's step, the text encoders' own activations) return None."""

from __future__ import annotations

from typing import Any

FP32 = 4
VAE_SCALE = 8  # every VAE here: 8x spatial compression (2 ** (len(block_out_channels) - 1) for AutoencoderKL)
WAN_TEMPORAL = 4  # AutoencoderKLWan: 4x temporal compression, the first frame alone
# Wan VAE decode, one causal chunk: the live tensors per base_dim channel of a full-resolution pixel (the last up
# block's activations over its 4-frame chunk, its fp32 RMS-norm temporaries and the 2-frame caches of every causal
# conv above it), counted on base_dim 16, 256 x 256 (tools/measure_diffusion.py, --explain); dims scale with base_dim.
WAN_DECODE_PER_BASE_CHANNEL = 53


def latent_shape(vae_class: str, vae: dict[str, Any], width: int, height: int, frames: int) -> tuple[int, ...]:
    """(channels, [latent frames,] latent height, latent width) of the VAE's latents."""
    if vae_class == "AutoencoderKLWan":
        return (int(vae.get("z_dim", 16)), (frames - 1) // WAN_TEMPORAL + 1, height // VAE_SCALE, width // VAE_SCALE)
    return (int(vae.get("latent_channels", 4)), height // VAE_SCALE, width // VAE_SCALE)


def image_tokens(denoiser_class: str, config: dict[str, Any], latent: tuple[int, ...]) -> int:
    """Tokens of the latent sequence: the latent grid over the patch (Flux packs 2 x 2 latents before its patch 1)."""
    if denoiser_class == "FluxTransformer2DModel":
        return (latent[-2] // 2) * (latent[-1] // 2)
    if denoiser_class == "WanTransformer3DModel":
        t, p, q = (int(size) for size in config.get("patch_size", (1, 2, 2)))
        return (latent[1] // t) * (latent[2] // p) * (latent[3] // q)
    patch = int(config.get("patch_size", 2))
    return (latent[-2] // patch) * (latent[-1] // patch)


def denoise_bytes(denoiser_class: str, config: dict[str, Any], batch: int, tokens: int, text_tokens: int,
                  e: int = 2) -> int | None:
    """Working memory of one forward pass of the denoiser over `batch` latents (CFG in one batch doubles it)."""
    if denoiser_class not in ("FluxTransformer2DModel", "SD3Transformer2DModel", "WanTransformer3DModel"):
        return None  # UNet2DConditionModel: not modelled yet
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
    return batch * (tokens * max(feed_forward, attention) + 3 * text_tokens * d * e) + 2 * tokens * h * e


def decode_bytes(vae_class: str, vae: dict[str, Any], batch: int, width: int, height: int, frames: int,
                 e: int = 2, tile: int = 0) -> int:
    """Working memory of decoding the latents in one call, or tile by tile (`tile` pixels, 0: untiled)."""
    if tile and (width > tile or height > tile):
        return tiled_decode_bytes(vae_class, vae, batch, width, height, frames, e, tile)
    if vae_class == "AutoencoderKLWan":
        out_frames = ((frames - 1) // WAN_TEMPORAL) * WAN_TEMPORAL + 1
        # the decoded video (3 channels) and one causal chunk's live tensors
        base_dim = int(vae.get("base_dim", 96))
        return batch * width * height * e * (3 * out_frames + WAN_DECODE_PER_BASE_CHANNEL * base_dim)
    channels = [int(c) for c in vae.get("block_out_channels", (64,))]
    entering_last = channels[1] if len(channels) > 1 else channels[0]
    # the last up block's first resnet at full resolution: the upsampler's conv output, GroupNorm and SiLU, each
    # with the channels of the block before it
    return batch * 3 * entering_last * width * height * e


def _tile_edges(pixels: int, tile: int) -> list[int]:
    """The pixel edges of the tiles along one side: a tile every 3/4 tile (AutoencoderKL's tile_overlap_factor 0.25,
    AutoencoderKLWan's default stride 192 of 256), cut at the edge of the latents."""
    latent, tile_latent = pixels // VAE_SCALE, tile // VAE_SCALE
    return [VAE_SCALE * min(tile_latent, latent - start) for start in range(0, latent, tile_latent * 3 // 4)]


def tiled_decode_bytes(vae_class: str, vae: dict[str, Any], batch: int, width: int, height: int, frames: int,
                       e: int, tile: int) -> int:
    """`tiled_decode` of AutoencoderKL and AutoencoderKLWan (`enable_tiling()`; tile_sample_min_size, or Wan's
    tile_sample_min_height/width, set to `tile`): every decoded tile is kept in `rows` until all are decoded, then
    blended in place, cropped into the rows (torch.cat) and the rows into the picture (torch.cat; Wan clamps it into
    a third copy). The peak is the larger of a tile's decode above the tiles decoded before it, and the assembly."""
    out_frames = ((frames - 1) // WAN_TEMPORAL) * WAN_TEMPORAL + 1 if vae_class == "AutoencoderKLWan" else 1
    pixel = batch * 3 * out_frames * e  # bytes of one decoded pixel of every frame
    tiles = [(h, w) for h in _tile_edges(height, tile) for w in _tile_edges(width, tile)]
    before, decoding = 0, 0
    for h, w in tiles:
        decoding = max(decoding, before + decode_bytes(vae_class, vae, batch, w, h, frames, e))
        before += h * w * pixel
    copies = 3 if vae_class == "AutoencoderKLWan" else 2
    return max(decoding, before + copies * width * height * pixel)
