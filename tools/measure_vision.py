"""Count the vision tower and projector of multimodal models exactly, on PyTorch's `meta` device.

A developer tool, not run by CI. For each family it builds the whole model with
`AutoModelForImageTextToText.from_config` on `torch.device("meta")` (shapes only), full-size (a released
model's config.json: a preset's, or the class's defaults, which are a released model's) and perturbed (a
small config of other depth, widths and switches, the keys only, as a config.json gives them). Every
parameter outside the language model (`language_model`, `lm_head`) is the vision part; it records both
counts in tests/golden/vision.json, which tests/test_vision.py holds the reader to.

Usage: python tools/measure_vision.py [--out tests/golden/vision.json] [MODEL_TYPE ...]
With model types, only their counts are measured and the rest of the file kept as it is.
Needs: pip install torch==2.13.0 transformers==5.23.0 (and torchvision for the video processors: here 0.28.0's
Python transforms, its compiled ops not loaded, on PYTHONPATH)
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
from pathlib import Path
from typing import Any

import torch
import transformers
from transformers import AutoConfig, AutoModelForImageTextToText

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "app" / "vramcalc" / "data" / "models"
# Qwen3-VL-4B-Instruct's config.json, as DiffSynth-Studio's WanMLLMEncoder writes it (find_string id 2019652574)
QWEN3_VL_4B = {
    "text_config": {"head_dim": 128, "hidden_size": 2560, "intermediate_size": 9728, "max_position_embeddings": 262144,
                    "model_type": "qwen3_vl_text", "num_attention_heads": 32, "num_hidden_layers": 36,
                    "num_key_value_heads": 8, "tie_word_embeddings": True, "vocab_size": 151936},
    "tie_word_embeddings": True,
    "vision_config": {"deepstack_visual_indexes": [5, 11, 17], "depth": 24, "hidden_act": "gelu_pytorch_tanh",
                      "hidden_size": 1024, "in_channels": 3, "intermediate_size": 4096, "num_heads": 16,
                      "num_position_embeddings": 2304, "out_hidden_size": 2560, "patch_size": 16,
                      "spatial_merge_size": 2, "temporal_patch_size": 2}}
# InternViT-300M-448px as OpenGVLab's own custom-to-HF converter writes it (InternVL3.5's; find_string id 49265602798)
INTERNVIT_300M = {"attention_bias": True, "hidden_act": "gelu", "hidden_size": 1024, "image_size": [448, 448],
                  "intermediate_size": 4096, "layer_norm_eps": 1e-06, "layer_scale_init_value": 0.1,
                  "model_type": "internvl_vision", "norm_type": "layer_norm", "num_attention_heads": 16,
                  "num_channels": 3, "num_hidden_layers": 24, "patch_size": [14, 14],
                  "use_absolute_position_embeddings": True, "use_mask_token": False, "use_mean_pooling": True,
                  "use_qk_norm": False}
# GLM-4.5V's config, as transformers 5.7.0 printed it from the released files (find_string id 62538297598)
GLM_45V: dict[str, Any] = {
    "text_config": {"attention_bias": True, "first_k_dense_replace": 1, "head_dim": 128, "hidden_size": 4096,
                    "intermediate_size": 10944, "max_position_embeddings": 65536, "model_type": "glm4v_moe_text",
                    "moe_intermediate_size": 1408, "n_group": 1, "n_routed_experts": 128, "n_shared_experts": 1,
                    "norm_topk_prob": True, "num_attention_heads": 96, "num_experts_per_tok": 8,
                    "num_hidden_layers": 46, "num_key_value_heads": 8, "partial_rotary_factor": 0.5,
                    "tie_word_embeddings": False, "topk_group": 1, "use_qk_norm": False, "vocab_size": 151552},
    "tie_word_embeddings": False,
    "vision_config": {"attention_bias": False, "depth": 24, "hidden_act": "silu", "hidden_size": 1536,
                      "image_size": 336, "in_channels": 3, "intermediate_size": 10944, "model_type": "glm4v_moe_vision",
                      "num_heads": 12, "out_hidden_size": 4096, "patch_size": 14, "spatial_merge_size": 2,
                      "temporal_patch_size": 2}}
# Llama 3.2 11B Vision's vision_config as danbev/learning-ai's notes copy it from the release (notes/vision/
# mllama.md: 560-pixel tiles; find_string id 40415686548), beside the classes' text model (the 11B's)
MLLAMA_11B_VISION = {"attention_heads": 16, "hidden_act": "gelu", "hidden_size": 1280, "image_size": 560,
                     "intermediate_size": 5120, "max_num_tiles": 4, "model_type": "mllama_vision_model",
                     "num_channels": 3, "num_global_layers": 8, "num_hidden_layers": 32, "patch_size": 14,
                     "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]],
                     "vision_output_dim": 7680}
SMALL_QWEN_TEXT = {"hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 3, "num_attention_heads": 8,
                   "num_key_value_heads": 2, "vocab_size": 32000}


def preset(name: str) -> dict:
    config = json.loads((PRESETS / f"{name}.json").read_text(encoding="utf-8"))["config"]
    return {k: v for k, v in config.items() if k != "model_type"}


# model_type: (the full-size config: a preset's or {} for the class's defaults, the perturbed config)
CASES: dict[str, tuple[dict, dict]] = {
    "qwen2_vl": ({}, {**SMALL_QWEN_TEXT, "vision_config": {
        "depth": 5, "embed_dim": 320, "hidden_size": 512, "mlp_ratio": 3, "num_heads": 5, "patch_size": 16,
        "spatial_merge_size": 3, "temporal_patch_size": 1}}),
    "qwen2_5_vl": (preset("qwen2.5-vl-7b-instruct"), {**SMALL_QWEN_TEXT, "vision_config": {
        "depth": 6, "hidden_size": 384, "intermediate_size": 1000, "num_heads": 6, "out_hidden_size": 512,
        "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 3, "in_channels": 4,
        "fullatt_block_indexes": [2, 5]}}),
    "qwen3_vl": (QWEN3_VL_4B, {"text_config": {**SMALL_QWEN_TEXT, "head_dim": 64}, "vision_config": {
        "depth": 5, "hidden_size": 384, "intermediate_size": 1000, "num_heads": 6, "out_hidden_size": 512,
        "patch_size": 14, "spatial_merge_size": 3, "num_position_embeddings": 1024,
        "deepstack_visual_indexes": [1, 3]}}),
    "qwen3_vl_moe": ({}, {"text_config": {**SMALL_QWEN_TEXT, "head_dim": 64, "num_experts": 8,
                                          "num_experts_per_tok": 2, "moe_intermediate_size": 256},
                          "vision_config": {"depth": 4, "hidden_size": 256, "intermediate_size": 768,
                                            "num_heads": 4, "out_hidden_size": 512, "num_position_embeddings": 576,
                                            "deepstack_visual_indexes": [0]}}),
    "qwen3_5": (preset("qwen3.5-27b"), {"text_config": preset("qwen3.5-27b")["text_config"], "vision_config": {
        "depth": 4, "hidden_size": 256, "intermediate_size": 768, "num_heads": 4, "out_hidden_size": 1024,
        "num_position_embeddings": 576, "patch_size": 14}}),
    "qwen3_5_moe": (preset("qwen3.5-35b-a3b"), {"text_config": preset("qwen3.5-35b-a3b")["text_config"],
                                                "vision_config": {
        "depth": 3, "hidden_size": 320, "intermediate_size": 640, "num_heads": 5, "out_hidden_size": 2048,
        "num_position_embeddings": 1024, "spatial_merge_size": 3}}),
    "gemma3": (preset("gemma-3-27b-it"), {
        "text_config": {"hidden_size": 640, "intermediate_size": 2048, "num_hidden_layers": 4,
                        "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 128, "vocab_size": 32000},
        "vision_config": {"hidden_size": 384, "intermediate_size": 1536, "num_hidden_layers": 5,
                          "num_attention_heads": 6, "image_size": 448, "patch_size": 16, "vision_use_head": True},
        "mm_tokens_per_image": 64}),
    "gemma4": (preset("gemma-4-31b-it"), {
        "text_config": {"hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 6,
                        "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 64, "global_head_dim": 128,
                        "vocab_size": 32000},
        "vision_config": {"hidden_size": 384, "intermediate_size": 1024, "num_hidden_layers": 3,
                          "num_attention_heads": 6, "num_key_value_heads": 2, "head_dim": 96, "patch_size": 14,
                          "position_embedding_size": 4096, "use_clipped_linears": True}}),
    "llama4": (preset("llama-4-scout-17b-16e-instruct"), {
        "text_config": {"hidden_size": 512, "intermediate_size": 1024, "intermediate_size_mlp": 1536,
                        "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
                        "num_local_experts": 4, "vocab_size": 32000},
        "vision_config": {"hidden_size": 384, "intermediate_size": 1280, "num_hidden_layers": 3,
                          "num_attention_heads": 6, "image_size": 224, "patch_size": 16, "vision_output_dim": 768,
                          "projector_input_dim": 1024, "projector_output_dim": 768}}),
    "mistral3": ({}, {
        "text_config": {"model_type": "mistral", "hidden_size": 512, "intermediate_size": 1024,
                        "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
                        "vocab_size": 32000},
        "vision_config": {"hidden_size": 384, "intermediate_size": 1024, "num_hidden_layers": 4,
                          "num_attention_heads": 6, "patch_size": 16, "image_size": 1024, "num_channels": 4},
        "spatial_merge_size": 3, "vision_feature_layer": [-1, -4], "multimodal_projector_bias": True,
        "tie_word_embeddings": False}),
    "internvl": ({"text_config": {**preset("qwen3-8b"), "model_type": "qwen3"}, "vision_config": INTERNVIT_300M,
                  "downsample_ratio": 0.5, "tie_word_embeddings": False}, {
        "text_config": {**SMALL_QWEN_TEXT, "model_type": "qwen2"},
        "vision_config": {"hidden_size": 384, "intermediate_size": 1000, "num_hidden_layers": 3,
                          "num_attention_heads": 6, "image_size": [224, 280], "patch_size": 14, "norm_type": "rms_norm",
                          "use_qk_norm": True, "use_mask_token": True, "use_mean_pooling": False, "num_channels": 4},
        "downsample_ratio": 0.25}),
    "glm4v": ({}, {"text_config": {**SMALL_QWEN_TEXT, "model_type": "glm4v_text", "vocab_size": 1000},
                   "vision_config": {"depth": 3, "hidden_size": 256, "out_hidden_size": 512, "intermediate_size": 700,
                                     "num_heads": 4, "image_size": 224, "patch_size": 16, "spatial_merge_size": 3,
                                     "temporal_patch_size": 1, "in_channels": 4, "attention_bias": True}}),
    "glm4v_moe": (GLM_45V, {"text_config": {**GLM_45V["text_config"], "hidden_size": 512, "num_hidden_layers": 3,
                                           "num_attention_heads": 8, "head_dim": 96, "n_routed_experts": 8,
                                           "moe_intermediate_size": 128, "intermediate_size": 1024,
                                           "n_shared_experts": 2, "first_k_dense_replace": 2, "attention_bias": False,
                                           "vocab_size": 2000},
                            "vision_config": {"depth": 2, "hidden_size": 192, "out_hidden_size": 512,
                                              "intermediate_size": 640, "num_heads": 3, "image_size": 280}}),
    "glm46v": ({}, {"text_config": {"hidden_size": 384, "intermediate_size": 768, "num_hidden_layers": 2,
                                    "num_attention_heads": 6, "num_key_value_heads": 3, "vocab_size": 1000},
                    "vision_config": {"depth": 2, "hidden_size": 128, "out_hidden_size": 384, "intermediate_size": 500,
                                      "num_heads": 2, "patch_size": 7}}),
    # LLaVA 1.5 and NeXT (CLIP-L/336 and Llama 2 7B: the classes' defaults, llava-1.5-7b's and llava-v1.6's shape),
    # OneVision (SigLIP so400m and Qwen2): perturbed with SigLIP and CLIP towers, several feature layers, no biases
    "llava": ({}, {"text_config": {**SMALL_QWEN_TEXT, "model_type": "llama"}, "vision_config": {
        "model_type": "siglip_vision_model", "hidden_size": 384, "intermediate_size": 1000, "num_hidden_layers": 3,
        "num_attention_heads": 6, "image_size": 224, "patch_size": 16}, "vision_feature_layer": [-2, -5],
        "multimodal_projector_bias": False}),
    "llava_next": ({}, {"text_config": {**SMALL_QWEN_TEXT, "model_type": "mistral"}, "vision_config": {
        "hidden_size": 256, "intermediate_size": 700, "num_hidden_layers": 2, "num_attention_heads": 4,
        "image_size": 280, "patch_size": 14}, "image_grid_pinpoints": [[280, 560], [560, 280]]}),
    "llava_onevision": ({}, {"text_config": {**SMALL_QWEN_TEXT, "model_type": "qwen2"}, "vision_config": {
        "model_type": "clip_vision_model", "hidden_size": 320, "intermediate_size": 900, "num_hidden_layers": 2,
        "num_attention_heads": 5, "image_size": 224, "patch_size": 14}, "vision_feature_layer": -1}),
    # Llama 3.2 Vision: the 11B's tower over the classes' text model; perturbed with 2 tiles of 112 pixels, three
    # aspect ratios, 4 channels and the tower's heads under their attribute_map name
    "mllama": ({"text_config": {k: v for k, v in AutoConfig.for_model("mllama_text_model").to_dict().items()
                                if k not in ("transformers_version", "architectures", "dtype")},
                "vision_config": MLLAMA_11B_VISION}, {
        "text_config": {"model_type": "mllama_text_model", "num_hidden_layers": 6, "hidden_size": 768,
                        "intermediate_size": 2048, "num_attention_heads": 12, "num_key_value_heads": 4,
                        "cross_attention_layers": [0, 4, 9], "vocab_size": 32000, "pad_token_id": 0},
        "vision_config": {"hidden_size": 256, "intermediate_size": 640, "num_hidden_layers": 3,
                          "num_global_layers": 2, "num_attention_heads": 4, "image_size": 112, "patch_size": 16,
                          "max_num_tiles": 2, "supported_aspect_ratios": [[1, 1], [1, 2], [2, 1]],
                          "intermediate_layers_indices": [0, 2], "vision_output_dim": 768, "num_channels": 4}}),
}


def counts(config) -> tuple[int, int]:
    """(parameters outside the language model, the language model's), each tensor once (a tied head once)."""
    with torch.device("meta"):
        model = AutoModelForImageTextToText.from_config(config)
    vision = text = 0
    for name, param in model.named_parameters(remove_duplicate=True):
        if "language_model" in name or "lm_head" in name:
            text += param.numel()
        else:
            vision += param.numel()
    return vision, text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "vision.json"))
    parser.add_argument("types", nargs="*", help="only these families' counts (the rest of the file kept)")
    args = parser.parse_args(argv)
    before = json.loads(Path(args.out).read_text(encoding="utf-8")) if args.types else {}
    kept = {case["name"]: case for case in before.get("cases", [])}
    cases = []
    for model_type, (full, small) in CASES.items():
        if args.types and model_type not in args.types:
            cases += [kept[name] for name in (f"{model_type}/full", f"{model_type}/perturbed") if name in kept]
            continue
        if not full:
            full = {k: v for k, v in AutoConfig.for_model(model_type).to_dict().items()
                    if k not in ("transformers_version", "architectures", "model_type")}
        for label, given in (("full", full), ("perturbed", small)):
            vision, text = counts(AutoConfig.for_model(model_type, **json.loads(json.dumps(given))))
            cases.append({"name": f"{model_type}/{label}", "config": {"model_type": model_type, **given},
                          "vision_params": vision, "text_params": text})
            print(f"{model_type:14s} {label:9s} {vision:>15,} {text:>18,}")
    about = (f"tools/measure_vision.py, {datetime.date.today()}, transformers {transformers.__version__}, "
             f"torch {torch.__version__}, Python {platform.python_version()}")
    if args.types:
        out = {**before, "_about": f"{before['_about']}; {', '.join(args.types)}: {about}", "cases": cases}
    else:
        out = {"_about": about, "cases": cases, "image_tokens": image_tokens(), "video_tokens": video_tokens()}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")



# ---------------------------------------------------------------- image tokens, by each family's own processor

SIZES = [(224, 224), (50, 40), (640, 480), (1280, 720), (1920, 1080), (2592, 1944), (4032, 3024), (300, 1200),
         (3000, 100), (1540, 1000)]  # (width, height)


def image_tokens() -> list[dict]:
    """Tokens one image of each size becomes, by the processor with the released models' preprocessor_config.json
    (Qwen2/2.5-VL: min 3,136, max 12,845,056 pixels; Qwen3-VL and Qwen3.5: 65,536 and 16,777,216, patch 16;
    InternVL3: 448-pixel tiles, at most 12; GLM-4.1V/4.5V: 12,544 and 9,633,792;
    Mistral Small 3.1: longest edge 1,540, patch 14 × merge 2; the others the class defaults)."""
    import importlib.util
    import sys
    import types

    import numpy as np
    import torch
    if importlib.util.find_spec("torchvision") is None:  # the video processors need it
        for name in ("torchvision", "torchvision.transforms", "torchvision.transforms.v2"):  # the module imports it,
            sys.modules.setdefault(name, types.ModuleType(name))  # the two functions used never call it
        sys.modules["torchvision.transforms.v2"].functional = types.ModuleType("functional")  # type: ignore[attr-defined]
    from transformers.image_utils import SizeDict
    from transformers.models.gemma4.image_processing_pil_gemma4 import Gemma4ImageProcessorPil
    from transformers.models.glm4v.image_processing_pil_glm4v import Glm4vImageProcessorPil
    from transformers.models.got_ocr2.image_processing_pil_got_ocr2 import GotOcr2ImageProcessorPil
    from transformers.models.internvl.processing_internvl import InternVLProcessor
    from transformers.models.llama4.image_processing_llama4 import find_supported_resolutions, get_best_fit
    from transformers.models.llama4.processing_llama4 import Llama4Processor
    from transformers.models.pixtral.image_processing_pil_pixtral import PixtralImageProcessorPil
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    def qwen(patch, low, high):
        processor = Qwen2VLImageProcessorPil(size={"shortest_edge": low, "longest_edge": high}, patch_size=patch,
                                          merge_size=2)
        return lambda image: int(np.prod(processor(images=image)["image_grid_thw"][0].tolist())) // 4

    gemma4 = Gemma4ImageProcessorPil()
    pixtral = PixtralImageProcessorPil(size={"longest_edge": 1540}, patch_size={"height": 28, "width": 28})

    def llama4_tokens(image):  # Llama4ImageProcessor's canvas (its own functions: it has no PIL backend), 336 tiles
        canvases = torch.tensor(find_supported_resolutions(16, SizeDict(height=336, width=336)))
        height, width = get_best_fit(image.shape[:2], canvases).tolist()
        return Llama4Processor._prompt_split_image(None, (height // 336, width // 336), 144).count("<|")

    def pixtral_tokens(image):
        height, width = (int(x) for x in pixtral(images=image)["image_sizes"][0])
        return (width // 28 + 1) * (height // 28)  # PixtralProcessor: a break after each row, the last one the end

    internvl = GotOcr2ImageProcessorPil(size={"height": 448, "width": 448}, crop_to_patches=True, max_patches=12)
    internvl_prompt = types.SimpleNamespace(start_image_token="<img>", image_token="<IMG_CONTEXT>",
                                            end_image_token="</img>", image_seq_length=256)

    def internvl_tokens(image):  # InternVL3's 448-pixel tiles, InternVLProcessor's <img>, 256 per tile, </img>
        text = InternVLProcessor.replace_image_token(internvl_prompt, internvl(images=image), 0)
        return text.count("<IMG_CONTEXT>") + text.count("img>")

    # GLM-4.1V/4.5V's preprocessor_config.json size, as quoted in find_string ids 56156970137 and 67245192323
    glm = Glm4vImageProcessorPil(size={"shortest_edge": 12544, "longest_edge": 9633792})
    from transformers.models.llava.image_processing_pil_llava import LlavaImageProcessorPil
    from transformers.models.llava.processing_llava import LlavaProcessor
    from transformers.models.llava_next.image_processing_pil_llava_next import LlavaNextImageProcessorPil
    from transformers.models.llava_next.processing_llava_next import LlavaNextProcessor
    from transformers.models.llava_onevision.image_processing_pil_llava_onevision import (
        LlavaOnevisionImageProcessorPil,
    )
    from transformers.models.llava_onevision.processing_llava_onevision import LlavaOnevisionProcessor

    def llava(processor_class, image_processor, **settings):  # the released processor_config.json's settings
        prompt = types.SimpleNamespace(image_processor=image_processor, image_token="<image>", **settings)
        for name in ("_get_number_of_features", "_get_unpadded_features"):
            if hasattr(processor_class, name):
                setattr(prompt, name, getattr(processor_class, name).__get__(prompt))
        return lambda image: processor_class.replace_image_token(
            prompt, {**image_processor(images=image), "batch_num_images": [1]}, 0).count("<image>")

    # llava-1.5 and NeXT: CLIP's 336 crop (NeXT: the class's pinpoints, llava-v1.6's: find_string id 35614015929);
    # OneVision: the class's 384 tiles and pinpoints, 729 tokens, anyres_max_9
    clip = {"patch_size": 14, "num_additional_image_tokens": 1, "vision_feature_select_strategy": "default"}
    crop = {"size": {"shortest_edge": 336}, "crop_size": {"height": 336, "width": 336}}
    counters = {"llava": llava(LlavaProcessor, LlavaImageProcessorPil(**crop), **clip),
                "llava_next": llava(LlavaNextProcessor, LlavaNextImageProcessorPil(**crop), **clip),
                "llava_onevision": llava(LlavaOnevisionProcessor, LlavaOnevisionImageProcessorPil(),
                                         num_image_tokens=729, vision_aspect_ratio="anyres_max_9",
                                         vision_feature_select_strategy="full")}
    counters |= {"qwen2_5_vl": qwen(14, 3136, 12845056), "qwen3_vl": qwen(16, 65536, 16777216),
                "internvl": internvl_tokens,
                "glm4v": lambda image: int(np.prod(glm(images=image)["image_grid_thw"][0].tolist())) // 4,
                "gemma4": lambda image: int(gemma4(images=image)["num_soft_tokens_per_image"][0]),
                "llama4": llama4_tokens, "mistral3": pixtral_tokens}
    rows = []
    for width, height in SIZES:
        image = np.zeros((height, width, 3), dtype=np.uint8)
        row = {"width": width, "height": height, **{family: count(image) for family, count in counters.items()}}
        print(row)
        rows.append(row)
    return rows


# (width, height, seconds, fps): sizes and durations of videos, the frames' source rate 24 per second
VIDEOS = [(640, 480, 10, 2), (1280, 720, 4, 2), (1920, 1080, 3, 1), (3840, 2160, 2, 2), (64, 48, 1, 2),
          (224, 224, 3, 1), (320, 240, 60, 2), (160, 120, 600, 2), (96, 64, 1500, 2), (854, 480, 45, 0.5),
          (300, 1200, 7, 3), (1000, 40, 20, 2)]


def video_tokens() -> list[dict]:
    """Tokens one video becomes, by each family's video processor and processor's replace_video_token, with the
    released settings: Qwen2.5-VL's preprocessor_config.json pixels (no video_preprocessor_config.json: the video
    processor reads those), sampling at fps; Qwen3-VL's video_preprocessor_config.json (4,096 to 25,165,824 pixels,
    fps sampling, find_string id 52457624213); Glm4vVideoProcessor's defaults. Timestamps in tokens: Qwen's a token
    per character of "0.5" with "<", " seconds", ">" (its tokenizer: [27, 15, 13, 20, 6486, 29] for "<0.5 seconds>",
    find_string id 58496177140); GLM's a token per three digits (not checked against its tokenizer).
    Needs torchvision (0.28.0's Python transforms: its compiled ops are not used)."""
    import re
    import types

    from transformers.models.glm4v.processing_glm4v import Glm4vProcessor
    from transformers.models.glm4v.video_processing_glm4v import Glm4vVideoProcessor
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor
    from transformers.models.qwen3_vl.processing_qwen3_vl import Qwen3VLProcessor
    from transformers.models.qwen3_vl.video_processing_qwen3_vl import Qwen3VLVideoProcessor
    from transformers.video_utils import VideoMetadata

    qwen2 = Qwen2VLVideoProcessor(min_pixels=3136, max_pixels=12845056, cap_pixels_per_frame=False)
    qwen3 = types.SimpleNamespace(video_processor=Qwen3VLVideoProcessor(
        size={"longest_edge": 25165824, "shortest_edge": 4096}, cap_pixels_per_frame=False),
        vision_start_token="<|vision_start|>", video_token="<|video_pad|>", vision_end_token="<|vision_end|>")
    qwen3._calculate_timestamps = lambda *a: Qwen3VLProcessor._calculate_timestamps(qwen3, *a)
    glm = types.SimpleNamespace(video_processor=Glm4vVideoProcessor(), image_token="<|image|>")
    glm.replace_frame_token_id = lambda *a, **k: Glm4vProcessor.replace_frame_token_id(glm, *a, **k)

    def run(processor, width, height, seconds, fps):
        frames = int(seconds * 24)
        video = torch.zeros(1, 3, height, width, dtype=torch.uint8).expand(frames, 3, height, width)
        meta = VideoMetadata(total_num_frames=frames, fps=24, width=width, height=height, duration=seconds)
        return processor(videos=[video], video_metadata=[meta], do_sample_frames=True, fps=fps, return_metadata=True)

    def qwen3_tokens(*video):
        text = Qwen3VLProcessor.replace_video_token(qwen3, run(qwen3.video_processor, *video), 0)
        stamps = re.findall(r"<([0-9.]+) seconds>", text)
        return text.count("<|v") + sum(len(t) + 3 for t in stamps)  # video_pad, vision_start, vision_end

    def glm_tokens(*video):
        text = Glm4vProcessor.replace_video_token(glm, run(glm.video_processor, *video), 0)
        return text.count("<|") + sum(-(-len(t) // 3) for t in re.findall(r"\|>([0-9]+)", text))

    counters = {"qwen2_5_vl": lambda *v: int(np.prod(run(qwen2, *v)["video_grid_thw"][0].tolist())) // 4,
                "qwen3_vl": qwen3_tokens, "glm4v": glm_tokens}
    import numpy as np
    rows = []
    for video in VIDEOS:
        row = {**dict(zip(("width", "height", "seconds", "fps"), video, strict=True)),
               **{family: count(*video) for family, count in counters.items()}}
        print(row)
        rows.append(row)
    return rows


if __name__ == "__main__":
    main()
