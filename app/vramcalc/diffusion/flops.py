"""The FLOPs of a pipeline run's stages, counted from each part's tensor list (tensors.py): every Linear and
convolution weight is multiplied by the positions it runs over (2 FLOPs, a multiply and an add, per weight and
position: tokens for a Linear, output pixels (times frames) for a convolution), and every attention adds
4 x query tokens x key tokens x its width (QK^T and the weighted sum of V). Which positions a weight runs over comes
from its module's name: the stream (image, text, both joined) of a DiT, the level of a UNet or a VAE decoder.
Norms, activations, RoPE and the sampler's arithmetic are left out (they move bytes, not FLOPs). Held to PyTorch's
FlopCounterMode over the real diffusers and transformers classes on the meta device (tools/measure_diffusion_flops.py,
tests/golden/diffusion_flops.json)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .stages import HUNYUAN_STRIDE, HUNYUAN_TILE, VAE_SCALE, WAN_TEMPORAL, _spatial_scale, _tile_edges, ltx_scales
from .tensors import Tensor

# A rule: a name pattern and the stream its weights run over; the first rule that matches wins. Streams: "sample"
# (one position per sample: the timestep and pooled-text embedders, the AdaLN modulations), "image", "text" (the
# text tokens the denoiser attends to), "joint" (both), and the streams of HunyuanVideo 1.5's extra inputs.
Rules = Sequence[tuple[str, str]]
_ADALN = (r"(^|\.)(time_text_embed|time_embed|timestep_embedder|guidance_embedder)\.|\.norm1(_context)?\.linear\."
          r"|\.norm\.linear\.|(^|\.)norm_out\.linear\.|^condition_embedder\.time_")
_DUAL = ((r"^transformer_blocks\.\d+\.(attn\.(add_|to_add_out)|ff_context\.)", "text"),
         (r"^transformer_blocks\.\d+\.attn2?\.", "image"), (r"^transformer_blocks\.\d+\.ff\.", "image"),
         (r"^single_transformer_blocks\.", "joint"), (r"^(x_embedder|pos_embed|proj_out|patch_embedding)", "image"))
RULES: Mapping[str, Rules] = {
    "FluxTransformer2DModel": ((_ADALN, "sample"), (r"^context_embedder\.", "text"), *_DUAL),
    # FLUX.2: three shared modulations over the time embedding, once per sample; its SwiGLU MLPs (ff.linear_in/out)
    "Flux2Transformer2DModel": ((_ADALN, "sample"), (r"_modulation_?\w*\.linear\.", "sample"),
                                (r"^context_embedder\.", "text"), *_DUAL),
    "SD3Transformer2DModel": ((_ADALN, "sample"), (r"^context_embedder\.", "text"), *_DUAL),
    "HunyuanVideoTransformer3DModel": ((_ADALN, "sample"), (r"^context_embedder\.", "text"), *_DUAL),
    "HunyuanVideo15Transformer3DModel": ((_ADALN, "sample"), (r"^context_embedder\.", "refiner"),
                                         (r"^context_embedder_2\.", "glyph"), (r"^image_embedder\.", "vision"),
                                         *_DUAL),
    "WanTransformer3DModel": ((_ADALN, "sample"), (r"^condition_embedder\.text_embedder\.", "text"),
                              (r"\.attn2\.to_(k|v)\.", "text"), (r"^blocks\.", "image"), *_DUAL),
    "QwenImageTransformer2DModel": ((_ADALN, "sample"), (r"_mod\.", "sample"), (r"^txt_in\.|\.txt_mlp\.", "text"),
                                    (r"^img_in\.|\.img_mlp\.", "image"), *_DUAL),
    # HiDream: the caption projections over each prompt's tokens (a Llama layer per block, T5's); the double-stream
    # blocks' text stream (T5's, the last Llama layer's and the block's own: "text"), the single-stream blocks over all
    "HiDreamImageTransformer2DModel": ((r"^(t_embedder|p_embedder)\.|\.adaLN_modulation\.", "sample"),
                                       (r"^caption_projection\.", "caption"),
                                       (r"^double_stream_blocks\.\d+\.block\.(attn1\.\w+_t\.|ff_t\.)", "text"),
                                       (r"^(double_stream_blocks|x_embedder|final_layer)\.", "image"),
                                       (r"^single_stream_blocks\.", "joint")),
    # AdaLN-single: one time embedding per sample (time_embed); the caption projection over each text token
    "LTXVideoTransformer3DModel": ((_ADALN, "sample"), (r"^caption_projection\.|\.attn2\.to_(k|v)\.", "text"),
                                   (r"^(transformer_blocks|proj_in|proj_out)\.", "image")),
}
# The attentions: the pattern of the query projection's weight, and the streams of its queries and keys.
ATTENTIONS: Mapping[str, Sequence[tuple[str, str, str]]] = {
    "FluxTransformer2DModel": ((r"transformer_blocks\.\d+\.attn\.to_q\.", "joint", "joint"),),
    # a single-stream block's q comes out of its fused to_qkv_mlp_proj: its attention is counted at to_out (d rows)
    "Flux2Transformer2DModel": ((r"^transformer_blocks\.\d+\.attn\.to_q\.", "joint", "joint"),
                                (r"^single_transformer_blocks\.\d+\.attn\.to_out\.", "joint", "joint")),
    "SD3Transformer2DModel": ((r"^transformer_blocks\.\d+\.attn\.to_q\.", "joint", "joint"),
                              (r"^transformer_blocks\.\d+\.attn2\.to_q\.", "image", "image")),
    "HunyuanVideoTransformer3DModel": ((r"token_refiner\.refiner_blocks\.\d+\.attn\.to_q\.", "text", "text"),
                                       (r"transformer_blocks\.\d+\.attn\.to_q\.", "joint", "joint")),
    "HunyuanVideo15Transformer3DModel": ((r"token_refiner\.refiner_blocks\.\d+\.attn\.to_q\.", "refiner", "refiner"),
                                         (r"^transformer_blocks\.\d+\.attn\.to_q\.", "joint", "joint")),
    "WanTransformer3DModel": ((r"\.attn1\.to_q\.", "image", "image"), (r"\.attn2\.to_q\.", "image", "text")),
    "QwenImageTransformer2DModel": ((r"^transformer_blocks\.\d+\.attn\.to_q\.", "joint", "joint"),),
    "LTXVideoTransformer3DModel": ((r"\.attn1\.to_q\.", "image", "image"), (r"\.attn2\.to_q\.", "image", "text")),
    "HiDreamImageTransformer2DModel": ((r"\.attn1\.to_q\.", "joint", "joint"),),
}
MULTIPLIED = ("linear", "conv")


def _weights(tensors: Sequence[Tensor], skip: str = "") -> list[Tensor]:
    return [t for t in tensors if t.kind in MULTIPLIED and t.name.endswith(".weight") and len(t.shape) >= 2
            and not (skip and re.search(skip, t.name))]


def _count(tensors: Sequence[Tensor], positions: Callable[[str], int],
           attention: Callable[[str, int], int], skip: str = "") -> int:
    """2 x weights x positions over every multiplied weight, and each attention's FLOPs at its query projection."""
    total = 0
    for t in _weights(tensors, skip):
        total += 2 * t.numel * positions(t.name) + attention(t.name, t.shape[0])
    return total


def dit_flops(class_name: str, tensors: Sequence[Tensor], streams: Mapping[str, int],
              config: Mapping[str, Any] | None = None) -> int:
    """One forward of a DiT denoiser over one sample: `streams` gives the tokens of each stream ("image", "text" and,
    for HunyuanVideo 1.5, "refiner", "glyph", "vision"; HiDream's "caption", one prompt's); "joint" is derived,
    "sample" is 1 unless given (Wan 2.2 TI2V's expand_timesteps: a timestep per image token, its time embedding and
    projection over each). HiDream's MoE (its `config`): each token runs num_activated_experts of the routed experts,
    all of one size, so the first that many count over every token; the gate's table over every token too."""
    if class_name == "HiDreamImageTransformer2DModel":
        active = int((config or {}).get("num_activated_experts", 2))
        tensors = [t._replace(kind="linear") if t.name.endswith(".gate.weight") else t for t in tensors
                   if not ((match := re.search(r"\.experts\.(\d+)\.", t.name)) and int(match.group(1)) >= active)]
    sizes = {"sample": 1, "joint": streams["image"] + streams["text"], **streams}
    rules, attentions = RULES[class_name], ATTENTIONS[class_name]

    def positions(name: str) -> int:
        for pattern, stream in rules:
            if re.search(pattern, name):
                return sizes[stream]
        raise ValueError(f"{class_name}: no stream for {name}")

    def attention(name: str, width: int) -> int:
        for pattern, queries, keys in attentions:
            if re.search(pattern, name):
                return 4 * sizes[queries] * sizes[keys] * width
        return 0

    return _count(tensors, positions, attention)


_UNET = re.compile(r"^(down_blocks|up_blocks)\.(\d+)\.|^mid_block\.")


def unet_flops(config: Mapping[str, Any], tensors: Sequence[Tensor], height: int, width: int, text: int) -> int:
    """One UNet2DConditionModel forward over one sample's latents of height x width: a level's pixels are a quarter
    of the one above; down block i runs at level i (its downsampler's output at i + 1), the mid block at the last,
    up block i at the last - i (its upsampler's output one level up); the transformers' Linears run over the level's
    pixels as tokens, cross-attention's keys and values over the `text` tokens; the time and added-condition
    embeddings and each resnet's time projection once per sample."""
    levels = len(config.get("block_out_channels", (320, 640, 1280, 1280)))

    def level(name: str) -> int:
        match = _UNET.match(name)
        if not match:
            return 0  # conv_in, conv_out
        if match.group(0) == "mid_block.":
            return levels - 1
        block = int(match.group(2))
        if match.group(1) == "down_blocks":
            return block + 1 if ".downsamplers." in name else block
        return levels - 2 - block if ".upsamplers." in name else levels - 1 - block

    def pixels(name: str) -> int:
        return (height >> level(name)) * (width >> level(name))

    def positions(name: str) -> int:
        if re.search(r"^(time_embedding|add_embedding)\.|\.time_emb_proj\.", name):
            return 1
        return text if re.search(r"\.attn2\.to_(k|v)\.", name) else pixels(name)

    def attention(name: str, channels: int) -> int:
        if ".attn1.to_q." in name:
            return 4 * pixels(name) ** 2 * channels
        return 4 * pixels(name) * text * channels if ".attn2.to_q." in name else 0

    return _count(tensors, positions, attention)


def encoder_flops(tensors: Sequence[Tensor], tokens: int) -> int:
    """One text encoder's forward over one prompt of `tokens`: every Linear over every token (CLIP's text_projection
    over the pooled token only; Qwen2.5-VL's LM head too, its forward computes the logits of every token), and each
    layer's self-attention (its query projection named q, q_proj or to_q) over tokens x tokens. Qwen2.5-VL's vision
    tower does not run on a text prompt (no pixel_values): not counted, nor Mistral 3's (FLUX.2 [dev]'s) with its
    projector. A causal LM's head tied to its embeddings (no lm_head tensor) computes the logits all the same."""

    def attention(name: str, width: int) -> int:
        return 4 * tokens * tokens * width if re.search(r"(\.q|q_proj|to_q)\.weight$", name) else 0

    total = _count(tensors, lambda name: 1 if name.startswith("text_projection") else tokens, attention,
                   skip=r"^model\.(visual|vision_tower|multi_modal_projector)\.")
    # a causal LM whose head is tied to its embeddings (FLUX.2 [klein] 4B's Qwen3): the logits are still computed
    names = {t.name: t for t in tensors}
    embedding = r"model\.(language_model\.)?embed_tokens\.weight"
    tied = next((t for name, t in names.items() if re.fullmatch(embedding, name)), None)
    return total + (2 * tokens * tied.numel if tied is not None and "lm_head.weight" not in names else 0)


# ---------------------------------------------------------------- VAE decoders

_UP = re.compile(r"^decoder\.up_blocks\.(\d+)\.")


def _decoder_level(name: str) -> tuple[int, bool]:
    """The up block a decoder weight is in (-1: before the first, the conv_in and the mid block; 99: conv_out) and
    whether it is in the block's upsampler."""
    match = _UP.match(name)
    if match:
        return int(match.group(1)), ".upsampler" in name  # upsamplers.0 (upsampler: Wan 2.2's residual blocks)
    return (99, False) if name.startswith("decoder.conv_out") else (-1, False)


def _kl_call(tensors: Sequence[Tensor], height: int, width: int, frames: Sequence[int] = ()) -> int:
    """One decoder call over latents of height x width: the conv_in and the mid block at the latents' pixels, up
    block k at 2^k times them (every up block but the last ends in an upsampler doubling the pixels, its conv counted
    at the next block's size), conv_out at the last block's. `frames` (a causal 3-D decoder's): the frames of the mid
    block, of each up block, then of the output; an image decoder's are all 1."""
    blocks = 1 + max((i for i, _ in (_decoder_level(t.name) for t in tensors) if i < 99), default=0)
    times = list(frames) or [1] * (blocks + 2)

    def pixels(block: int) -> int:
        return (height << block) * (width << block)

    def positions(name: str) -> int:
        if not name.startswith(("decoder.", "post_quant_conv")):
            return 0  # the encoder is not run
        block, upsampler = _decoder_level(name)
        if block == 99:
            return pixels(blocks - 1) * times[blocks + 1]
        if block < 0:
            return height * width * times[0]
        return pixels(block + 1) * times[block + 2] if upsampler else pixels(block) * times[block + 1]

    def attention(name: str, channels: int) -> int:
        if re.search(r"^decoder\.mid_block\.attentions\.0\.to_q\.", name):
            tokens = height * width * times[0]
            return 4 * tokens * tokens * channels
        return 0

    return _count(tensors, positions, attention, skip=r"\.time_conv\.|\.to_qkv\.|\.attentions\.0\.proj\.")


def _tiles(height: int, width: int, tile: int, scale: int = VAE_SCALE) -> Counter[tuple[int, int]]:
    """Each tile size and how many tiles have it (a tile's count depends only on its size: counted once)."""
    if not tile or (width <= tile and height <= tile):
        return Counter([(height, width)])
    return Counter((h, w) for h in _tile_edges(height, tile, scale) for w in _tile_edges(width, tile, scale))


def decode_flops(vae_class: str, vae: Mapping[str, Any], tensors: Sequence[Tensor], width: int, height: int,
                 frames: int, tile: int = 0) -> int | None:
    """The VAE decode of one sample (pixels width x height, `frames`), tile by tile when tiled (each tile decoded
    whole, overlaps included); None where not counted (HunyuanVideo 1.5's VAE, LTX-Video's tiled). Qwen-Image's is
    Wan 2.1's over one frame; Wan 2.2's (is_residual) decodes at 1/16 of the pixels to the 2 x 2 patches that
    unpatchify unfolds (no FLOPs, nor in its DupUp3D shortcuts)."""
    if vae_class in ("AutoencoderKL", "AutoencoderKLFlux2"):  # FLUX.2's: AutoencoderKL's decoder and tiling
        return sum(n * _kl_call(tensors, h // VAE_SCALE, w // VAE_SCALE)
                   for (h, w), n in _tiles(height, width, tile).items())
    if vae_class in ("AutoencoderKLWan", "AutoencoderKLQwenImage"):
        scale = _spatial_scale(vae_class, vae)
        return sum(n * _wan_decode(vae, tensors, h // scale, w // scale, frames)
                   for (h, w), n in _tiles(height, width, tile, scale).items())
    if vae_class == "AutoencoderKLHunyuanVideo":
        return _hunyuan_decode(tensors, height, width, frames, tile)
    if vae_class == "AutoencoderKLLTXVideo" and not tile:  # LTXPipeline decodes in one call (tiling: not read)
        return _ltx_decode(vae, tensors, height, width, frames)
    return None


def _wan_decode(vae: Mapping[str, Any], tensors: Sequence[Tensor], height: int, width: int, frames: int) -> int:
    """AutoencoderKLWan.decode: one causal chunk per latent frame; up block i's upsampler doubles the frames where
    the config's temperal_downsample, reversed, says so (its time_conv skipped for the first chunk, which stays one
    frame); the mid block's attention is per frame over its pixels."""
    latent = (frames - 1) // WAN_TEMPORAL + 1
    up = list(vae.get("temperal_downsample", (False, True, True)))[::-1]
    times = [latent]
    for doubles in up:
        times.append(1 + 2 * (times[-1] - 1) if doubles else times[-1])
    times.append(times[-1])  # the last up block and conv_out
    calls = _kl_call(tensors, height, width, [latent, *times])
    # time_conv: (3, 1, 1) kernels over every chunk but the first, at the input's pixels and frames
    level_pixels = [(height << i) * (width << i) for i in range(len(up) + 1)]
    for t in _weights(tensors):
        if t.name.startswith("decoder.") and ".time_conv." in t.name:
            block, _ = _decoder_level(t.name)
            calls += 2 * t.numel * level_pixels[block] * (times[block] - 1)
    tokens = height * width
    for t in _weights(tensors):
        if re.search(r"^decoder\.mid_block\.attentions\.0\.(to_qkv|proj)\.", t.name):
            calls += 2 * t.numel * tokens * latent
            if ".to_qkv." in t.name:
                calls += 4 * tokens * tokens * (t.shape[0] // 3) * latent
    return calls


def _hunyuan_decode(tensors: Sequence[Tensor], height: int, width: int, frames: int, tile: int) -> int:
    """AutoencoderKLHunyuanVideo.decode with its framewise decoding (stages.hunyuan_decode_bytes: up to HUNYUAN_TILE
    latent frames in one call, else a call every HUNYUAN_STRIDE latent frames over the next HUNYUAN_TILE + 1); up
    blocks 1 and 2 double the frames (their upsamplers are causal 3-D in time too), every block but the last the
    pixels; the mid block attends over all of a call's latent tokens."""
    latent = (frames - 1) // WAN_TEMPORAL + 1

    def call(t: int, h: int, w: int) -> int:
        middle = 1 + 2 * (t - 1)
        times = [t, t, t, middle, 1 + 4 * (t - 1), 1 + 4 * (t - 1)]
        return _kl_call(tensors, h // VAE_SCALE, w // VAE_SCALE, times)

    starts = [(0, latent)] if latent <= HUNYUAN_TILE else [
        (start, min(HUNYUAN_TILE + 1, latent - start)) for start in range(0, latent, HUNYUAN_STRIDE)]
    calls = Counter(t for _, t in starts)
    return sum(n * m * call(t, h, w) for t, n in calls.items() for (h, w), m in _tiles(height, width, tile).items())


_LTX_UP = re.compile(r"^decoder\.up_blocks\.(\d+)\.(conv_in|upsamplers)?")


def _ltx_decode(vae: Mapping[str, Any], tensors: Sequence[Tensor], height: int, width: int, frames: int) -> int:
    """AutoencoderKLLTXVideo.decode of every frame in one call: conv_in and the mid block at the latents' grid; up
    block i's conv_in (a resnet to its width) and upsampler conv at its input's grid, then the upsampler's 2 x 2 x 2
    depth-to-space (where decoder_spatio_temporal_scaling, reversed, says so) doubles the pixels each way and the
    frames (2 t - 1: its first frame dropped), and its resnets run there; conv_out at the last grid (the patch_size
    unpatchify moves values only); the timestep-conditioned decoder's time embedders once per sample."""
    scale, temporal = ltx_scales(vae)
    frames, h, w = (frames - 1) // temporal + 1, height // scale, width // scale
    grids = [frames * h * w]  # each up block's input grid, then the output's
    for scaled in list(vae.get("decoder_spatio_temporal_scaling", (True, True, True, False)))[::-1]:
        if scaled:
            frames, h, w = 2 * frames - 1, 2 * h, 2 * w
        grids.append(frames * h * w)

    def positions(name: str) -> int:
        if not name.startswith("decoder.") or ".time_embedder." in name:
            return int(name.startswith("decoder."))  # the encoder is not run; a time embedder once per sample
        match = _LTX_UP.match(name)
        if match:
            block = int(match.group(1))
            return grids[block] if match.group(2) else grids[block + 1]
        return grids[-1] if name.startswith("decoder.conv_out") else grids[0]

    return _count(tensors, positions, lambda name, width: 0)
