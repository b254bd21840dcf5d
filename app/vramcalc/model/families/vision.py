"""A multimodal model's vision part: the vision tower and its projector, a named part beside the language
model (its parameters counted apart from `param_count`), and the tokens an image becomes."""

from __future__ import annotations

import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class Vision:
    family: str  # the multimodal config's model_type (qwen2_5_vl, gemma3, llama4, mistral3, ...)
    params: int  # the vision tower and projector: AutoModelForImageTextToText's parameters less the language model's
    patch: int = 14  # pixels per patch side
    merge: int = 1  # patches merged into one token, per side (Qwen's spatial_merge_size, Mistral 3's)
    size: int = 0  # Llama 4's tile side, Pixtral's longest edge, Gemma 3's image side
    tokens: int = 0  # tokens of every image, whatever its size (Gemma 3's mm_tokens_per_image)


def image_tokens(vision: Vision, width: int, height: int) -> int:
    """Tokens an image of width × height pixels becomes in the prompt, as transformers 5.23's processor makes
    them with the released preprocessor_config.json (tools/measure_vision.py holds each family to it)."""
    p, k, family = vision.patch, vision.merge, vision.family
    if family == "gemma3":  # Gemma3Processor: mm_tokens_per_image, whatever the size (no pan-and-scan crops)
        return vision.tokens
    if family == "gemma4":  # get_aspect_ratio_preserving_size: at most tokens × k² patches, sides of k × patch
        side, scale = k * p, math.sqrt(vision.tokens * k * k * p * p / (height * width))
        h, w = math.floor(height * scale / side) * side, math.floor(width * scale / side) * side
        if not h:
            h, w = side, min(width // height * side, vision.tokens * side)
        elif not w:
            h, w = min(height // width * side, vision.tokens * side), side
        return (h // p) * (w // p) // (k * k)
    if family == "llama4":  # Llama4ImageProcessor's canvas of size-pixel tiles (get_best_fit), then a global tile
        rows, cols = _llama4_tiles(vision.size, width, height)
        tile = (vision.size // p) ** 2 // (k * k)  # after the pixel shuffle
        return 3 + tile + (rows * cols * tile + rows * cols if rows * cols > 1 else 0)  # separators, start, end
    if family == "mistral3":  # PixtralImageProcessor: within the longest edge, (patch × merge)-pixel tokens, a
        f, ratio = p * k, max(width, height) / vision.size  # break after each row (the last one the end)
        if ratio > 1:
            width, height = math.floor(width / ratio), math.floor(height / ratio)
        return ((width - 1) // f + 2) * ((height - 1) // f + 1)
    # Qwen2VLImageProcessor's smart_resize: sides rounded to patch × merge, the area within min and max pixels
    f = p * k
    low, high = (3136, 12845056) if family in ("qwen2_vl", "qwen2_5_vl") else (65536, 16777216)
    h, w = round(height / f) * f, round(width / f) * f
    if h * w > high:
        beta = math.sqrt(height * width / high)
        h, w = max(f, math.floor(height / beta / f) * f), max(f, math.floor(width / beta / f) * f)
    elif h * w < low:
        beta = math.sqrt(low / (height * width))
        h, w = math.ceil(height * beta / f) * f, math.ceil(width * beta / f) * f
    return h * w // (f * f)


def _llama4_tiles(size: int, width: int, height: int, chunks: int = 16) -> tuple[int, int]:
    """find_supported_resolutions and get_best_fit: the smallest upscale (else the least downscale) among the
    canvases of at most `chunks` tiles, the smallest area among equals."""
    shapes: dict[float, list[tuple[int, int]]] = {}
    for n in range(chunks, 0, -1):
        for a in (a for a in range(1, n + 1) if n % a == 0):
            shapes.setdefault(a / (n // a), []).append((a, n // a))
    canvases = [shape for same in shapes.values() for shape in same]
    scales = [min(a * size / height, b * size / width) for a, b in canvases]
    up = [s for s in scales if s >= 1]
    best = min(up) if up else max(scales)
    return min((c for c, s in zip(canvases, scales, strict=True) if s == best), key=lambda c: c[0] * c[1])
