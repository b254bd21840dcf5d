"""The vision part of a multimodal config.json (`vision_config` beside the language model's keys), counted
as transformers 5.23 builds it: each family's tower and projector from its modeling file, keys a config
omits taking its config class's defaults. Held to the meta device by tests/golden/vision.json
(tools/measure_vision.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..core.errors import ValidationError
from ..model.families.vision import Vision

Key = Callable[[str, Any], Any]  # a key of the vision_config (v) or of the whole config (t), with its class default


def _lin(i: int, o: int, bias: bool = True) -> int:
    """nn.Linear(i, o)'s parameters."""
    return i * o + o * bias


def _qwen2_vl(v: Key, t: Key, text: int) -> Vision:
    """Qwen2VisionTransformerPretrainedModel: a Conv3d patch embedding, blocks of two LayerNorms, a fused qkv
    and a GELU MLP (embed_dim × mlp_ratio), a PatchMerger (LayerNorm, two Linears) out to hidden_size."""
    e, s, p = v("embed_dim", 1280), v("spatial_merge_size", 2), v("patch_size", 14)
    m = int(e * v("mlp_ratio", 4))
    block = 4 * e + _lin(e, 3 * e) + _lin(e, e) + _lin(e, m) + _lin(m, e)
    merger = 2 * e + _lin(e * s * s, e * s * s) + _lin(e * s * s, v("hidden_size", 3584))
    params = v("in_channels", 3) * v("temporal_patch_size", 2) * p * p * e + v("depth", 32) * block + merger
    return Vision("qwen2_vl", params, p, s, hidden=e, heads=v("num_heads", 16), inter=m,
                  channels=v("in_channels", 3) * v("temporal_patch_size", 2))


def _qwen2_5_vl(v: Key, t: Key, text: int) -> Vision:
    """Qwen2_5_VisionTransformerPretrainedModel: Qwen2-VL's, with RMSNorms and a gated MLP (with biases)."""
    h, i, s, p = v("hidden_size", 3584), v("intermediate_size", 3420), v("spatial_merge_size", 2), v("patch_size", 14)
    block = 2 * h + _lin(h, 3 * h) + _lin(h, h) + 2 * _lin(h, i) + _lin(i, h)
    merger = h + _lin(h * s * s, h * s * s) + _lin(h * s * s, v("out_hidden_size", 3584))
    params = v("in_channels", 3) * v("temporal_patch_size", 2) * p * p * h + v("depth", 32) * block + merger
    return Vision("qwen2_5_vl", params, p, s, hidden=h, heads=v("num_heads", 16), inter=i,
                  channels=v("in_channels", 3) * v("temporal_patch_size", 2))


def _qwen3_vl(v: Key, t: Key, text: int) -> Vision:
    """Qwen3VLVisionModel (and Qwen3.5's): a biased Conv3d, learned positions, LayerNorm blocks with a GELU MLP,
    the merger, and Qwen3-VL's deepstack mergers (their LayerNorm over the merged width), one per listed layer."""
    h, i, s, p = v("hidden_size", 1152), v("intermediate_size", 4304), v("spatial_merge_size", 2), v("patch_size", 16)
    merged = h * s * s

    def merger(norm: int) -> int:
        return 2 * norm + _lin(merged, merged) + _lin(merged, v("out_hidden_size", 3584))
    deep = len(v("deepstack_visual_indexes", [8, 16, 24])) if t("model_type", "").startswith("qwen3_vl") else 0
    block = 4 * h + _lin(h, 3 * h) + _lin(h, h) + _lin(h, i) + _lin(i, h)
    params = (v("in_channels", 3) * v("temporal_patch_size", 2) * p * p * h + h + v("num_position_embeddings", 2304) * h
              + v("depth", 27) * block + merger(h) + deep * merger(merged))
    return Vision(t("model_type", ""), params, p, s, hidden=h, heads=v("num_heads", 16), inter=i,
                  channels=v("in_channels", 3) * v("temporal_patch_size", 2), deep=deep * v("out_hidden_size", 3584))


def _gemma3(v: Key, t: Key, text: int) -> Vision:
    """SiglipVisionModel (patch embedding, learned positions, LayerNorm blocks, the attention-pooling head when
    vision_use_head) and Gemma3MultiModalProjector (a weight of vision × text hidden, an RMSNorm)."""
    h, i, p, size = v("hidden_size", 768), v("intermediate_size", 3072), v("patch_size", 16), v("image_size", 224)
    mlp = _lin(h, i) + _lin(i, h)
    layer = 4 * h + 4 * _lin(h, h) + mlp
    head = h + _lin(h, 3 * h) + _lin(h, h) + 2 * h + mlp if v("vision_use_head", True) else 0
    params = (v("num_channels", 3) * p * p * h + h + (size // p) ** 2 * h + v("num_hidden_layers", 12) * layer
              + 2 * h + head + h * text + h)
    return Vision("gemma3", params, p, 1, size, t("mm_tokens_per_image", 256), h, v("num_attention_heads", 12), i,
                  v("num_channels", 3))


def _gemma4(v: Key, t: Key, text: int) -> Vision:
    """Gemma4VisionModel: a Linear patch embedding with a two-axis position table, layers of four RMSNorms,
    q/k norms and a gated MLP, no biases; Gemma4MultimodalEmbedder's projection to the text hidden size."""
    h, i, p, d = v("hidden_size", 768), v("intermediate_size", 3072), v("patch_size", 16), v("head_dim", 64)
    q, kv = v("num_attention_heads", 12) * d, v("num_key_value_heads", 12) * d
    layer = 4 * h + 2 * h * q + 2 * h * kv + 2 * d + 3 * h * i
    params = 3 * p * p * h + 2 * v("position_embedding_size", 10240) * h + v("num_hidden_layers", 16) * layer + h * text
    return Vision("gemma4", params, p, v("pooling_kernel_size", 3), 0, t("vision_soft_tokens_per_image", 280), h,
                  v("num_attention_heads", 12), i)


def _llama4(v: Key, t: Key, text: int) -> Vision:
    """Llama4VisionModel: a class token, learned positions, an unfolded Linear patch embedding, LayerNorms before
    and after, LayerNorm layers with biased projections and a GELU MLP, the pixel-shuffle adapter's two Linears;
    Llama4MultiModalProjector's Linear to the text hidden size."""
    h, i, p, size = v("hidden_size", 768), v("intermediate_size", 5632), v("patch_size", 14), v("image_size", 448)
    layer = 4 * _lin(h, h) + _lin(h, i) + _lin(i, h) + 4 * h
    adapter = i * v("projector_input_dim", 4096) + v("projector_output_dim", 4096) ** 2
    params = (h + ((size // p) ** 2 + 1) * h + v("num_channels", 3) * p * p * h + 4 * h
              + v("num_hidden_layers", 34) * layer + adapter + v("vision_output_dim", 7680) * text)
    return Vision("llama4", params, p, round(1 / v("pixel_shuffle_ratio", 0.5)), size, hidden=h,
                  heads=v("num_attention_heads", 16), inter=i, channels=v("num_channels", 3))


def _mistral3(v: Key, t: Key, text: int) -> Vision:
    """PixtralVisionModel (a Conv2d without bias, RMSNorms, bias-free attention and gated MLP) and
    Mistral3MultiModalProjector: an RMSNorm, the patch merger (spatial_merge_size² patches in one), two Linears
    (biased by multimodal_projector_bias) from the vision feature layers to the text hidden size."""
    h, i, p, s = v("hidden_size", 1024), v("intermediate_size", 4096), v("patch_size", 14), t("spatial_merge_size", 2)
    bias = bool(t("multimodal_projector_bias", False))
    tower = v("num_channels", 3) * p * p * h + h + v("num_hidden_layers", 24) * (2 * h + 4 * h * h + 3 * h * i)
    projector = h + h * s * s * h + _lin(h * len(t("vision_feature_layer", [-1])), text, bias) + _lin(
        text, text, bias)
    return Vision("mistral3", tower + projector, p, s, v("image_size", 1540), hidden=h,
                  heads=v("num_attention_heads", 16), inter=i, channels=v("num_channels", 3))


def _sides(v: Key, key: str, default: int) -> list[int]:
    """A size given as one number or as [height, width] (InternVL's image_size and patch_size)."""
    value: list[int] = v(key, [default])
    if not value or len(value) > 2 or any(type(x) is not int or x < 1 for x in value):
        raise ValidationError(f"vision_config.{key}", value, "expected a positive integer or two")
    return value


def _internvl(v: Key, t: Key, text: int) -> Vision:
    """InternVLVisionModel: a class token, learned positions, a biased Conv2d patch embedding, layers of two norms
    (LayerNorm, or RMSNorm by norm_type), q/k/v (biased by attention_bias, RMSNorms over q and k by use_qk_norm), a
    biased output, LayerScale's two vectors and a GELU MLP, a last LayerNorm unless use_mean_pooling; and
    InternVLMultiModalProjector: a LayerNorm over the pixel-shuffled width, two Linears to the text hidden size."""
    h, i, size, p = v("hidden_size", 1024), v("intermediate_size", 4096), _sides(v, "image_size", 448), _sides(
        v, "patch_size", 14)
    s, bias, norm = int(1 / t("downsample_ratio", 0.5)), v("attention_bias", False), v("norm_type", "layer_norm")
    layer = ((2 if norm == "rms_norm" else 4) * h + 3 * _lin(h, h, bias) + _lin(h, h) + 2 * h * v("use_qk_norm", False)
             + _lin(h, i) + _lin(i, h) + 2 * h)
    grid = (size[0] // p[0]) * (size[-1] // p[-1])
    embed = h * (1 + v("use_mask_token", False)) + _lin(v("num_channels", 3) * p[0] * p[-1], h) + (
        grid + 1) * h * v("use_absolute_position_embeddings", True)
    params = (embed + v("num_hidden_layers", 24) * layer + 2 * h * (not v("use_mean_pooling", True))
              + 2 * h * s * s + _lin(h * s * s, text) + _lin(text, text))
    return Vision("internvl", params, p[0], s, size[0], hidden=h, heads=v("num_attention_heads", 16), inter=i,
                  channels=v("num_channels", 3))


def _glm4v(v: Key, t: Key, text: int) -> Vision:
    """Glm4vVisionModel (GLM-4.1V, GLM-4.5V, GLM-4.6V): a biased Conv3d, an RMSNorm, learned positions over an
    image_size grid, RMSNorm blocks with a fused qkv (biased by attention_bias), an unbiased output and a gated MLP
    out_hidden_size wide, an RMSNorm, a Conv2d merging spatial_merge_size² patches out to out_hidden_size, then
    the merger: a Linear, a LayerNorm and a gated MLP of intermediate_size."""
    h, o, i, s = v("hidden_size", 1536), v("out_hidden_size", 4096), v("intermediate_size", 13696), v(
        "spatial_merge_size", 2)
    p, c = _sides(v, "patch_size", 14)[0], v("in_channels", 3) * v("temporal_patch_size", 2)
    block = 2 * h + _lin(h, 3 * h, v("attention_bias", False)) + h * h + 3 * h * o
    params = (_lin(c * p * p, h) + h + (_sides(v, "image_size", 336)[0] // p) ** 2 * h + v("depth", 24) * block + h
              + _lin(h * s * s, o) + o * o + 2 * o + 3 * o * i)
    return Vision(t("model_type", ""), params, p, s, hidden=h, heads=v("num_heads", 12), inter=o, channels=c)


def _llava(v: Key, t: Key, text: int) -> Vision:
    """LLaVA (1.5), LLaVA-NeXT (1.6) and LLaVA-OneVision: the vision_config's tower whole (AutoModel:
    CLIPVisionModel, a class token and LayerNorms before and after, or SigLIP's: a biased patch embedding, a
    LayerNorm after; keys it omits take that class's defaults), the projector's two Linears (from the
    vision_feature_layer widths, biased by multimodal_projector_bias) and NeXT's and OneVision's image_newline."""
    family, layers = t("model_type", ""), t("vision_feature_layer", [-2])
    bias = bool(t("multimodal_projector_bias", True))
    siglip = v("model_type", "siglip_vision_model" if family == "llava_onevision" else "") == "siglip_vision_model"
    h, i, p, size = v("hidden_size", 768), v("intermediate_size", 3072), v("patch_size", 16 if siglip else 32), v(
        "image_size", 224)
    grid = (size // p) ** 2
    tower = (v("num_channels", 3) * p * p * h + (grid + (not siglip)) * h + (3 + 2 * (not siglip)) * h
             + v("num_hidden_layers", 12) * (4 * h + 4 * _lin(h, h) + _lin(h, i) + _lin(i, h)))
    if siglip and v("vision_use_head", True):
        tower += h + _lin(h, 3 * h) + _lin(h, h) + 2 * h + _lin(h, i) + _lin(i, h)
    params = tower + _lin(h * len(layers), text, bias) + _lin(text, text, bias) + text * (family != "llava")
    pinpoints = t("image_grid_pinpoints", [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]] if
                  family != "llava_onevision" else [[384 * a, 384 * b] for a in range(1, 7) for b in range(1, 7)])
    if not pinpoints or any(not isinstance(x, list) or len(x) != 2 or any(type(n) is not int or n < size for n in x)
                            for x in pinpoints):
        raise ValidationError("image_grid_pinpoints", pinpoints, "expected [height, width] pairs of whole tiles")
    strategy = t("vision_feature_select_strategy", "full" if family == "llava_onevision" else "default")
    return Vision(family, params, p, 1, size, grid + (not siglip) - (strategy == "default"), h,
                  v("num_attention_heads", 12), i, v("num_channels", 3), out=text, cls=not siglip,
                  grid=tuple((a, b) for a, b in pinpoints) if family != "llava" else ())


def _mllama(v: Key, t: Key, text: int) -> Vision:
    """MllamaVisionModel: a Conv2d patch embedding without bias, a class token, gated positions with a table per
    aspect ratio of every tile's patches, two gated tile embeddings (pre and post), LayerNorms before and after, the
    local layers (LayerNorms, unbiased q/k/v/o, a biased GELU MLP) and the global ones (two gates each more); and the
    multi_modal_projector: a biased Linear from vision_output_dim to the text hidden size."""
    h, i, p, size = v("hidden_size", 1280), v("intermediate_size", 5120), v("patch_size", 14), v("image_size", 448)
    tiles, ratios = v("max_num_tiles", 4), v("supported_aspect_ratios", [])
    if not ratios and tiles != 4:  # MllamaVisionConfig.validate_architecture: the default ratios are 4 tiles'
        raise ValidationError("vision_config.max_num_tiles", tiles, "must be 4 with the default "
                              "supported_aspect_ratios: give the ratios")
    rows, n = (len(ratios) or 8) + 1, (size // p) ** 2 + 1  # an embedding row per ratio and one for padding
    layer = 4 * h + 4 * h * h + _lin(h, i) + _lin(i, h)
    params = (v("num_channels", 3) * p * p * h + h + 1 + n * h + rows * tiles * n * h + 2 * (rows * tiles * h + 1)
              + 4 * h + v("num_hidden_layers", 32) * layer + v("num_global_layers", 8) * (layer + 2)
              + _lin(v("vision_output_dim", 7680), text))
    heads = v("attention_heads", 0) or v("num_attention_heads", 16)  # MllamaVisionConfig's attribute_map
    return Vision("mllama", params, p, 1, size, hidden=h, heads=heads, inter=i,
                  channels=v("num_channels", 3), tiles=tiles, depth=v("num_hidden_layers", 32),
                  global_depth=v("num_global_layers", 8), features=v("vision_output_dim", 7680))


CLIP_L = {"model_type": "clip_vision_model", "hidden_size": 1024, "intermediate_size": 4096, "patch_size": 14,
          "image_size": 336, "num_hidden_layers": 24, "num_attention_heads": 16}
# the tower a LLaVA config without a vision_config gets: its config class's (LLaVA 1.5's and NeXT's CLIP-L/336,
# OneVision's SigLIP so400m without its head)
LLAVA_TOWERS = {"llava": CLIP_L, "llava_next": CLIP_L, "llava_onevision": {
    "model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304, "patch_size": 14,
    "image_size": 384, "num_hidden_layers": 26, "num_attention_heads": 16, "vision_use_head": False}}


FAMILIES: Mapping[str, Callable[[Key, Key, int], Vision]] = {
    "qwen2_vl": _qwen2_vl, "qwen2_5_vl": _qwen2_5_vl, "qwen3_vl": _qwen3_vl, "qwen3_vl_moe": _qwen3_vl,
    "qwen3_5": _qwen3_vl, "qwen3_5_moe": _qwen3_vl, "gemma3": _gemma3, "gemma4": _gemma4, "llama4": _llama4,
    "mistral3": _mistral3, "internvl": _internvl, "glm4v": _glm4v, "glm4v_moe": _glm4v, "glm46v": _glm4v,
    "llava": _llava, "llava_next": _llava, "llava_onevision": _llava, "mllama": _mllama}
"""The multimodal model types whose vision part is counted; the wrapper's own defaults create a tower when
the config gives no vision_config (Gemma 4's create none)."""


def read_vision(config: Mapping[str, object], text_hidden: int, read: Callable[..., Any]) -> Vision | None:
    """The vision part of a multimodal `config`; `read(mapping, name, key, default)` checks each value as the
    text reader does (an integer in range, a list, true or false), naming it `name` when refused."""
    family = FAMILIES.get(str(config.get("model_type")))
    given = config.get("vision_config")
    if family is None or (given is None and config.get("model_type") == "gemma4"):
        return None
    keys = given if isinstance(given, Mapping) else LLAVA_TOWERS.get(str(config.get("model_type")), {})
    vision = family(lambda key, default: read(keys, f"vision_config.{key}", key, default),
                    lambda key, default: read(config, key, key, default), text_hidden)
    if vision.size and vision.patch > vision.size:  # no whole patch along a side: no tokens, nothing to divide by
        raise ValidationError("vision_config.patch_size", str(vision.patch),
                              f"at most the image's side, vision_config.image_size ({vision.size} pixels)")
    return vision
