"""Measure the vision tower's activation peak per request: the live tensor bytes `get_image_features` reaches.

A developer tool, not run by CI. For Qwen2.5-VL, Gemma 3 (SigLIP), Mistral 3 (Pixtral), InternVL, GLM-4.1V/4.5V
(Glm4vMoe's tower is the same code) and LLaVA 1.5, NeXT and OneVision it builds the whole
multimodal model with `AutoModelForImageTextToText.from_config` (random weights, bf16, a tiny language model) in
two shapes: small (narrow, few layers) and full-width (a released model's vision_config with two layers, one of
Qwen2.5-VL's windowed and one full-attention), under eager and sdpa attention; then runs the model's own
`get_image_features` (the call its forward makes in the prefill) on pixel values of several image sizes and
(and, for Qwen2.5-VL, Qwen3-VL and GLM, `get_video_features` on short clips of small towers) and
counts, with tools/measure_peak.py's PeakTracker (every storage an ATen op makes, until it is freed), the peak
above the weights (the pixel values, fp32 as the processor gives them, count in it).
tests/golden/vision_peak.json keeps the results; tests/test_vision.py holds `encoder_peak`
(app/vramcalc/model/families/vision.py) to them.

Usage: python tools/measure_vision_peak.py [--out tests/golden/vision_peak.json]
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig, AutoModelForImageTextToText
from transformers.models.glm4v.image_processing_pil_glm4v import smart_resize as glm_resize
from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import GotOcr2ImageProcessorPil
from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import smart_resize

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import PeakTracker
from measure_vision import GLM_45V, INTERNVIT_300M

ROOT = Path(__file__).resolve().parent.parent
TEXT = {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 1, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1024}


def preset(name: str) -> dict:
    return json.loads((ROOT / "app/vramcalc/data/models" / f"{name}.json").read_text(encoding="utf-8"))["config"]


QWEN_FULL = dict(preset("qwen2.5-vl-7b-instruct")["vision_config"])
GEMMA_FULL = preset("gemma-3-27b-it")["vision_config"]
# the LLaVA configs' own towers (LlavaConfig's and LlavaOnevisionConfig's vision_config defaults)
CLIP_L = {"model_type": "clip_vision_model", "hidden_size": 1024, "intermediate_size": 4096, "patch_size": 14,
          "image_size": 336, "num_attention_heads": 16, "hidden_act": "quick_gelu"}
SO400M = {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304, "patch_size": 14,
          "image_size": 384, "num_attention_heads": 16, "vision_use_head": False, "hidden_act": "gelu_pytorch_tanh"}
# model_type: {shape: (vision_config, the wrapper's other keys)}
CONFIGS: dict[str, dict[str, tuple[dict, dict]]] = {
    "qwen2_5_vl": {
        "small": ({"depth": 2, "hidden_size": 256, "intermediate_size": 640, "num_heads": 4, "out_hidden_size": 256,
                   "fullatt_block_indexes": [1]}, {}),
        "full": ({**QWEN_FULL, "depth": 2, "fullatt_block_indexes": [1], "out_hidden_size": 256}, {})},
    "gemma3": {
        "small": ({"hidden_size": 192, "intermediate_size": 768, "num_hidden_layers": 2, "num_attention_heads": 3,
                   "image_size": 448, "patch_size": 14, "vision_use_head": False}, {"mm_tokens_per_image": 64}),
        "full": ({**GEMMA_FULL, "num_hidden_layers": 2}, {"mm_tokens_per_image": 256})},
    "mistral3": {
        "small": ({"hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "head_dim": 64, "patch_size": 14, "image_size": 1540}, {"spatial_merge_size": 2}),
        # Mistral3Config's own vision_config (Mistral Small 3.1's), given whole: a dict takes PixtralVisionConfig's
        "full": ({"hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 16,
                  "head_dim": 64, "patch_size": 14, "image_size": 1540, "hidden_act": "gelu"}, {})},
    "internvl": {
        "small": ({"hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "attention_bias": True}, {}),
        "full": ({**INTERNVIT_300M, "num_hidden_layers": 2}, {})},  # InternVL3.5's InternViT-300M
    "qwen3_vl": {  # videos only (its images are held as Qwen2.5-VL's form, not measured)
        "small": ({"depth": 2, "hidden_size": 256, "intermediate_size": 640, "num_heads": 4, "out_hidden_size": 256,
                   "num_position_embeddings": 576, "deepstack_visual_indexes": [0]}, {})},
    "glm4v": {
        "small": ({"depth": 2, "hidden_size": 256, "out_hidden_size": 512, "intermediate_size": 640, "num_heads": 4},
                  {}),
        "full": ({**GLM_45V["vision_config"], "depth": 2, "model_type": "glm4v_vision"}, {})},  # GLM-4.5V's
    # LLaVA 1.5 (CLIP-L/336, the class's own), LLaVA-NeXT (the same tower on anyres tiles), LLaVA-OneVision (SigLIP)
    "llava": {"small": ({"hidden_size": 256, "intermediate_size": 640, "num_hidden_layers": 3,
                         "num_attention_heads": 4, "image_size": 224, "patch_size": 14}, {}),
              "full": ({**CLIP_L, "num_hidden_layers": 2}, {})},
    "llava_next": {"small": ({"hidden_size": 256, "intermediate_size": 640, "num_hidden_layers": 3,
                              "num_attention_heads": 4, "image_size": 336, "patch_size": 14},
                             {"vision_feature_layer": [-2, -1]}),
                   "full": ({**CLIP_L, "num_hidden_layers": 2}, {})},
    "llava_onevision": {"small": ({"hidden_size": 256, "intermediate_size": 640, "num_hidden_layers": 2,
                                   "num_attention_heads": 4, "image_size": 384, "patch_size": 14}, {}),
                        "full": ({**SO400M, "num_hidden_layers": 2}, {})},
}
# (images, width, height): Gemma 3 resizes every image to its image_size, so only the count matters there
SIZES = {
    "qwen2_5_vl": [(1, 448, 448), (1, 1024, 768), (1, 1024, 1024), (2, 700, 500), (3, 448, 448)],
    "gemma3": [(1, 0, 0), (2, 0, 0), (3, 0, 0)],
    "mistral3": [(1, 448, 448), (1, 1024, 768), (1, 1120, 1120), (2, 700, 500), (3, 448, 448)],
    "internvl": [(1, 448, 448), (1, 896, 448), (1, 1024, 768), (2, 700, 500), (3, 448, 448)],
    "glm4v": [(1, 448, 448), (1, 1024, 768), (1, 1024, 1024), (2, 700, 500), (3, 448, 448)],
    "llava": [(1, 0, 0), (2, 0, 0), (3, 0, 0)],
    "llava_next": [(1, 448, 448), (1, 1024, 768), (2, 700, 500)],
    "llava_onevision": [(1, 448, 448), (1, 1000, 400), (2, 500, 700)],
}
LLAVA_TEXT = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128}
# (videos, frames, width, height): a short clip, as the video processors sample and resize it (small towers)
VIDEOS = {"qwen2_5_vl": [(1, 4, 448, 448), (2, 6, 320, 240)], "qwen3_vl": [(1, 4, 448, 448), (2, 6, 320, 240)],
          "glm4v": [(1, 4, 448, 448), (2, 6, 320, 240)]}
INTERNVL_TILES = GotOcr2ImageProcessorPil(size={"height": 448, "width": 448}, crop_to_patches=True, max_patches=12)


def raw_config(family: str, shape: str) -> dict:
    """The config.json of a case: tests/test_vision.py reads it with the calculator's own reader."""
    vision, other = CONFIGS[family][shape]
    text: dict[str, int | str] = {**TEXT, **({"num_key_value_heads": 1, "sliding_window": 64} if family == "gemma3"
                                             else {})}
    if family.startswith("llava"):  # the projector's width is the text's: a released one on the full-width tower
        text |= {"model_type": "qwen2" if family == "llava_onevision" else "llama", **(
            LLAVA_TEXT if shape == "full" else {})}
    return {"model_type": family, "vision_config": vision, "text_config": text, **other}


def build(family: str, shape: str, attention: str):
    raw = raw_config(family, shape)
    config = AutoConfig.for_model(family, **{k: v for k, v in raw.items() if k != "model_type"})
    config.tie_word_embeddings = False
    model = AutoModelForImageTextToText.from_config(config, dtype=torch.bfloat16, attn_implementation=attention)
    return model.eval(), config


def inputs(family: str, config, images: int, width: int, height: int) -> tuple[dict, int]:
    v = config.vision_config
    if family == "qwen2_5_vl":  # Qwen2VLImageProcessor: smart_resize, then rows of t × c × p × p, fp32
        f = v.patch_size * v.spatial_merge_size
        h, w = smart_resize(height, width, factor=f, min_pixels=3136, max_pixels=12845056)
        gh, gw = h // v.patch_size, w // v.patch_size
        pixels = torch.randn(images * gh * gw, v.in_channels * v.temporal_patch_size * v.patch_size ** 2)
        return {"pixel_values": pixels, "image_grid_thw": torch.tensor([[1, gh, gw]] * images)}, gh * gw
    if family == "glm4v":  # Glm4vImageProcessor: smart_resize of two frames, then rows of t × c × p × p, fp32
        f = v.patch_size * v.spatial_merge_size
        h, w = glm_resize(2, height, width, 2, f, 12544, 9633792)
        gh, gw = h // v.patch_size, w // v.patch_size
        pixels = torch.randn(images * gh * gw, v.in_channels * v.temporal_patch_size * v.patch_size ** 2)
        return {"pixel_values": pixels, "image_grid_thw": torch.tensor([[1, gh, gw]] * images)}, gh * gw
    if family == "internvl":  # GotOcr2ImageProcessor: 448-pixel tiles and a thumbnail, each with a class token
        tiles = INTERNVL_TILES.get_number_of_image_patches(height, width)
        side, p = v.image_size[0], v.patch_size[0]
        return {"pixel_values": torch.randn(images * tiles, 3, side, side)}, tiles * ((side // p) ** 2 + 1)
    if family == "llava":  # CLIPImageProcessor: resized and cropped to image_size
        side = v.image_size
        return {"pixel_values": torch.randn(images, 3, side, side)}, (side // v.patch_size) ** 2 + 1
    if family in ("llava_next", "llava_onevision"):  # the base tile and the best grid's tiles, each image_size
        from transformers.image_processing_utils import select_best_resolution
        side = v.image_size
        rows, cols = (x // side for x in select_best_resolution((height, width), config.image_grid_pinpoints))
        crops = 1 + rows * cols
        return {"pixel_values": torch.randn(images, crops, 3, side, side),
                "image_sizes": torch.tensor([[height, width]] * images)}, crops * (
            (side // v.patch_size) ** 2 + (family == "llava_next"))
    if family == "gemma3":  # every image resized to image_size × image_size
        return {"pixel_values": torch.randn(images, 3, v.image_size, v.image_size)}, (v.image_size // v.patch_size) ** 2
    # PixtralImageProcessor (Mistral 3's): within the longest edge, sides rounded up to patch × merge pixels
    ratio = max(width, height) / v.image_size
    if ratio > 1:
        width, height = int(width / ratio), int(height / ratio)
    p, f = v.patch_size, v.patch_size * config.spatial_merge_size
    h, w = ((height - 1) // f + 1) * f, ((width - 1) // f + 1) * f
    return {"pixel_values": torch.randn(images, 3, h, w), "image_sizes": torch.tensor([[h, w]] * images)}, (
        h // p) * (w // p)


def video_inputs(family: str, config, videos: int, frames: int, width: int, height: int) -> tuple[dict, int]:
    """A video processor's output: frames resized (Qwen2-VL's per frame within Qwen2.5-VL's image pixels; Qwen3-VL's
    and GLM's over the whole clip), rows of t × c × p × p in fp32 for each frame pair."""
    v = config.vision_config
    f = v.patch_size * v.spatial_merge_size
    if family == "qwen2_5_vl":
        h, w = smart_resize(height, width, factor=f, min_pixels=3136, max_pixels=12845056)
    else:
        low, high = (4096, 25165824) if family == "qwen3_vl" else (12544, 47040000)
        h, w = glm_resize(frames, height, width, 2, f, low, high)  # Qwen3-VL's video smart_resize is the same
    t, gh, gw = -(-frames // 2), h // v.patch_size, w // v.patch_size
    pixels = torch.randn(videos * t * gh * gw, v.in_channels * v.temporal_patch_size * v.patch_size ** 2)
    return {"pixel_values_videos": pixels, "video_grid_thw": torch.tensor([[t, gh, gw]] * videos)}, gh * gw


def measure(family: str, shape: str, attention: str, images: int, width: int, height: int, frames: int = 0) -> dict:
    model, config = build(family, shape, attention)
    given, patches = (video_inputs(family, config, images, frames, width, height) if frames
                      else inputs(family, config, images, width, height))
    tracker = PeakTracker()
    tracker.track_all(model.parameters())
    tracker.track_all(model.buffers())
    start = tracker.live
    tracker.track_all(given.values())  # the processor's fp32 pixel values, on the device through the forward
    with torch.no_grad(), tracker, tracker.in_phase("encode"):
        out = (model.model.get_video_features if frames else model.model.get_image_features)(**given, return_dict=True)
        features = out.pooler_output
        del out
    kept = sum(t.numel() * t.element_size() for t in (features if isinstance(features, (list, tuple)) else [features]))
    v = config.vision_config
    return {"family": family, "shape": shape, "attention": attention, "images": images, "width": width,
            **({"video_frames": frames, "pairs": images * -(-frames // 2)} if frames else {}),
            "height": height, "patches_per_image": patches,
            "vision": {k: getattr(v, k) for k in ("hidden_size", "intermediate_size", "patch_size") if hasattr(v, k)}
            | {"heads": getattr(v, "num_heads", None) or v.num_attention_heads,
               "layers": getattr(v, "depth", None) or v.num_hidden_layers},
            "peak_bytes": tracker.phases["encode"]["peak"] - start, "peak_op": tracker.phases["encode"]["peak_op"],
            "features_bytes": kept}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="tests/golden/vision_peak.json")
    parser.add_argument("--families", nargs="+", default=list(CONFIGS))
    parser.add_argument("--merge", action="store_true", help="replace only these families' cases in --out")
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    torch.manual_seed(0)
    cases = []
    for family in args.families:
        for shape in CONFIGS[family]:
            for attention in ("eager", "sdpa"):
                runs = [(*size, 0) for size in SIZES.get(family, []) if shape in CONFIGS[family]]
                runs += [(n, w, h, frames) for n, frames, w, h in VIDEOS.get(family, []) if shape == "small"]
                for images, width, height, frames in runs:
                    case = measure(family, shape, attention, images, width, height, frames)
                    print(json.dumps(case), file=sys.stderr, flush=True)
                    cases.append(case)
    if args.merge:  # the other families' cases as they were
        kept = json.loads(Path(args.out).read_text(encoding="utf-8"))["cases"]
        cases = [c for c in kept if c["family"] not in args.families] + cases
        args.families = list(CONFIGS)
    out = {"measured": datetime.date.today().isoformat(), "machine": platform.machine(),
           "torch": torch.__version__, "transformers": transformers.__version__, "dtype": "bfloat16",
           "configs": {f"{family}/{shape}": raw_config(family, shape) for family in args.families
                       for shape in CONFIGS[family]}, "cases": cases}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
