"""Bytes of a part's weights in each storage format, tensor by tensor, and where they sit during a run.

Formats (a part's `precision`):
- `bf16`, `fp16`, `fp32`: `from_pretrained(torch_dtype=...)`. diffusers keeps its class's `_keep_in_fp32_modules`
  in fp32 whatever the dtype (`models/model_loading_utils.py` load_model_dict_into_meta: Wan's time embedder,
  modulation tables, norms and rotary tables); transformers only under fp16 (`modeling_utils.py`: T5's `wo`).
- `fp8`: diffusers' layerwise casting (`enable_layerwise_casting(storage_dtype=float8_e4m3fn,
  compute_dtype=bfloat16)`, `hooks/layerwise_casting.py`; `apply_layerwise_casting` for a transformers text
  encoder): the Linear, Conv and Embedding layers' weights and biases stored in one byte, except modules whose path
  matches DEFAULT_SKIP_MODULES_PATTERN, the class's
  `_skip_layerwise_casting_patterns` or `_keep_in_fp32_modules`; the rest in bf16.
- `nf4`: bitsandbytes 4-bit NF4 (`BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")`): each Linear
  weight in 4 bits plus an fp32 absmax per 64 values; biases and every other tensor in bf16.
- `gguf-q8_0`, `gguf-q5_1`, `gguf-q5_0`, `gguf-q4_1`, `gguf-q4_0` (the denoiser only): city96's GGUF files as
  ComfyUI-GGUF keeps them on the GPU. city96/ComfyUI-GGUF `tools/convert.py` (795e451) writes 1-D tensors, tensors of
  at most 1,024 values and `keys_hiprec` in F32, more than 4-D ones in F32 (`tools/fix_5d_tensors.py`), the rest in
  BF16; its patched llama-quantize (`tools/lcpp.patch`; FLUX.2's lines on branch auto_convert, ec7506d) quantises
  only 2-D tensors whose name ends in `weight`, not the per-architecture input and output layers, and stores the FFN
  down projections of Q4_0/Q5_0 in Q4_1/Q5_1 where the original checkpoint's name matches its list (Wan's `.ffn.2`,
  SD's `.ff.net.2`, HiDream's experts' `w2`; not FLUX's `img_mlp.2` nor SD3's `mlp.fc2`).
"""

from __future__ import annotations

import math
import re

from ..formats.ggml_types import GGML_TYPES
from .tensors import Tensor

FLOAT_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}
PRECISIONS = ("bf16", "fp16", "fp32", "fp8", "nf4")
GGUF_TYPES = ("gguf-q8_0", "gguf-q5_1", "gguf-q5_0", "gguf-q4_1", "gguf-q4_0")
COMPUTE = "bf16"  # the dtype fp8, NF4 and GGUF parts compute in and keep their other tensors in
NF4_BLOCK = 64  # bitsandbytes blocksize for 4-bit: an fp32 absmax per 64 values
INDEX_BYTES = 8  # int64 position ids

# diffusers classes: `_keep_in_fp32_modules` (held in fp32 whatever the dtype) and `_skip_layerwise_casting_patterns`.
KEEP_FP32 = {"WanTransformer3DModel": ("rope", "time_embedder", "scale_shift_table", "norm1", "norm2", "norm3")}
KEEP_FP32_UNDER_FP16 = {"T5EncoderModel": ("wo",), "UMT5EncoderModel": ("wo",)}  # transformers
# transformers keeps the rotary inv_freq tables in fp32 whatever the dtype
FP32_BUFFERS = {"LlamaModel": ("rotary_emb",), "LlamaForCausalLM": ("rotary_emb",),
                "Qwen2_5_VLTextModel": ("rotary_emb",),
                "Qwen2_5_VLForConditionalGeneration": ("rotary_emb", "rotary_pos_emb"),
                "Mistral3ForConditionalGeneration": ("rotary_emb", "patch_positional_embedding"),
                "Qwen3ForCausalLM": ("rotary_emb",)}
SKIP_CASTING = {
    "FluxTransformer2DModel": ("pos_embed", "norm"),
    "Flux2Transformer2DModel": ("pos_embed", "norm"),
    "SD3Transformer2DModel": ("pos_embed", "norm"),
    "WanTransformer3DModel": ("patch_embedding", "condition_embedder", "norm"),
    "HunyuanVideoTransformer3DModel": ("x_embedder", "context_embedder", "norm"),
    "HunyuanVideo15Transformer3DModel": ("x_embedder", "context_embedder", "norm"),
    "QwenImageTransformer2DModel": ("pos_embed", "norm"),
    "LTXVideoTransformer3DModel": ("norm",),
    "UNet2DConditionModel": ("norm",),
}
DEFAULT_SKIP_CASTING = ("pos_embed", "patch_embed", "norm", "^proj_in$", "^proj_out$")

# GGUF: what the patched llama-quantize leaves unquantised, by the original checkpoint's name (lcpp.patch), written
# here as the diffusers module paths those tensors load into; and the FFN down projections it stores one type up.
GGUF_KEEP = {
    # txt_in, img_in, time_in, vector_in, guidance_in, final_layer
    "FluxTransformer2DModel": ("context_embedder.", "x_embedder.", "time_text_embed.", "norm_out.", "proj_out."),
    # final_layer, t_embedder, y_embedder, x_embedder, context_embedder, pos_embed
    "SD3Transformer2DModel": ("norm_out.", "proj_out.", "time_text_embed.", "pos_embed.", "context_embedder."),
    # modulation, patch_embedding, text_embedding, time_embedding, time_projection, head
    "WanTransformer3DModel": ("scale_shift_table", "patch_embedding.", "condition_embedder.", "proj_out."),
    # time_embedding, add_embedding (label_emb), conv_in, conv_out
    "UNet2DConditionModel": ("time_embedding.", "add_embedding.", "conv_in.", "conv_out."),
    # img_in, txt_in, time_in, guidance_in, double_stream_modulation_*, single_stream_modulation, final_layer
    "Flux2Transformer2DModel": ("x_embedder.", "context_embedder.", "time_guidance_embed.", "double_stream_modulation_",
                                "single_stream_modulation.", "norm_out.", "proj_out."),
    # HiDream's diffusers names are its checkpoint's; ".ff_i.gate.weight" is kept too (F32 by keys_hiprec)
    "HiDreamImageTransformer2DModel": ("p_embedder.", "t_embedder.", "x_embedder.", "final_layer.",
                                       "caption_projection."),
}
# convert.py keys_hiprec: Wan's ".modulation", HiDream's MoE gates
GGUF_HIPREC = {"WanTransformer3DModel": ("scale_shift_table",), "HiDreamImageTransformer2DModel": (r"\.ff_i\.gate\.",)}
# the FFN down projections lcpp.patch stores one type up: Wan ".ffn.2", SD1/SDXL ".ff.net.2", HiDream "experts." w2
GGUF_FFN_DOWN = {"WanTransformer3DModel": r"\.ffn\.net\.2\.weight$", "UNet2DConditionModel": r"\.ff\.net\.2\.weight$",
                 "HiDreamImageTransformer2DModel": r"experts\.(\d+\.)?w2\.weight$"}
GGUF_ONE_UP = {"q4_0": "q4_1", "q5_0": "q5_1"}
GGUF_RESHAPED = ("UNet2DConditionModel",)  # convert.py shape_fix (sd1, sdxl): rows of 256 where the last dim is not
GGUF_QUANTIZATION_THRESHOLD = 1024


def _matches(module: str, patterns: tuple[str, ...]) -> bool:
    return any(re.search(pattern, module) for pattern in patterns)


def _in_module(module: str, names: tuple[str, ...]) -> bool:
    """diffusers and transformers match `_keep_in_fp32_modules` against the parts of the dotted name."""
    return any(name in module.split(".") for name in names)


def _float_bytes(tensor: Tensor, class_name: str, dtype: str) -> int:
    """Bytes per value of a parameter or buffer loaded in `dtype`."""
    if tensor.kind == "index":
        return INDEX_BYTES
    keep = KEEP_FP32.get(class_name, ()) + FP32_BUFFERS.get(class_name, ()) + (
        KEEP_FP32_UNDER_FP16.get(class_name, ()) if dtype == "fp16" else ())
    return FLOAT_BYTES["fp32"] if _in_module(tensor.name, keep) else FLOAT_BYTES[dtype]


def tensor_bytes(tensor: Tensor, class_name: str, precision: str) -> int:
    """Bytes of one tensor of a part stored in `precision` (one of PRECISIONS or GGUF_TYPES)."""
    if precision in ("bf16", "fp16", "fp32"):
        return tensor.numel * _float_bytes(tensor, class_name, precision)
    if precision == "fp8":
        skip = DEFAULT_SKIP_CASTING + SKIP_CASTING.get(class_name, ()) + KEEP_FP32.get(class_name, ())
        if tensor.kind in ("linear", "conv", "embedding") and not _matches(tensor.module, skip):
            return tensor.numel
        return tensor.numel * _float_bytes(tensor, class_name, COMPUTE)
    if precision == "nf4":
        if tensor.kind == "linear" and tensor.name.endswith(".weight") and not _in_module(
                tensor.name, KEEP_FP32.get(class_name, ()) + KEEP_FP32_UNDER_FP16.get(class_name, ())):
            return tensor.numel // 2 + math.ceil(tensor.numel / NF4_BLOCK) * FLOAT_BYTES["fp32"]
        return tensor.numel * _float_bytes(tensor, class_name, COMPUTE)
    return _gguf_bytes(tensor, class_name, precision.removeprefix("gguf-"))


def gguf_type(tensor: Tensor, class_name: str, ftype: str) -> str:
    """The ggml type city96's conversion and patched llama-quantize give one tensor of a denoiser."""
    if tensor.kind == "index":
        return "i64"
    if tensor.kind == "buffer" and not _in_module(tensor.name, ("pos_embed",)):
        return "none"  # computed at load (Wan's rotary tables): not in the file
    shape = tensor.shape
    if len(shape) > 4 or len(shape) == 1 or tensor.numel <= GGUF_QUANTIZATION_THRESHOLD or _matches(
            tensor.name, GGUF_HIPREC.get(class_name, ())):
        return "f32"
    if class_name in GGUF_RESHAPED and tensor.numel % 256 == 0 and shape[-1] % 256:
        shape = (tensor.numel // 256, 256)
    quantised = (tensor.name.endswith("weight") and len(shape) == 2
                 and not any(tensor.name.startswith(prefix) for prefix in GGUF_KEEP[class_name]))
    if not quantised:
        return "bf16"
    down = GGUF_FFN_DOWN.get(class_name)
    return GGUF_ONE_UP.get(ftype, ftype) if down and re.search(down, tensor.name) else ftype


def _gguf_bytes(tensor: Tensor, class_name: str, ftype: str) -> int:
    if class_name not in GGUF_KEEP:
        raise ValueError(f"GGUF files of {class_name} are not read")
    kind = gguf_type(tensor, class_name, ftype)
    if kind in ("none", "i64"):
        return tensor.numel * INDEX_BYTES if kind == "i64" else 0
    values, block = GGML_TYPES[kind]
    return tensor.numel // values * block


def part_bytes(tensors: tuple[Tensor, ...], class_name: str, precision: str) -> int:
    return sum(tensor_bytes(tensor, class_name, precision) for tensor in tensors)


def largest_module_bytes(tensors: tuple[Tensor, ...], class_name: str, precision: str) -> int:
    """The most bytes one leaf module holds: what enable_sequential_cpu_offload (accelerate's cpu_offload, one hook
    per leaf module) brings to the GPU at a time."""
    modules: dict[str, int] = {}
    for tensor in tensors:
        modules[tensor.module] = modules.get(tensor.module, 0) + tensor_bytes(tensor, class_name, precision)
    return max(modules.values(), default=0)


# a DiT's nn.ModuleLists, in forward order (HiDream's double_stream_blocks, then its single_stream_blocks)
BLOCK_LISTS = ("transformer_blocks", "single_transformer_blocks", "blocks", "double_stream_blocks",
               "single_stream_blocks")


def block_bytes(tensors: tuple[Tensor, ...], class_name: str, precision: str) -> tuple[int, ...]:
    """The bytes of each transformer block, in the order the forward runs them (Flux's double-stream blocks, then its
    single-stream ones): what a block swap moves. A UNet has none."""
    blocks: dict[tuple[int, int], int] = {}
    for tensor in tensors:
        head, _, rest = tensor.name.partition(".")
        index = rest.partition(".")[0]
        if head in BLOCK_LISTS and index.isdigit():
            key = (BLOCK_LISTS.index(head), int(index))
            blocks[key] = blocks.get(key, 0) + tensor_bytes(tensor, class_name, precision)
    return tuple(blocks[key] for key in sorted(blocks))
