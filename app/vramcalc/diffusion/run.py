"""A pipeline run's memory: each part's weights in its precision, each stage (text encoding, one denoising step,
VAE decode) with what it holds on the GPU under a placement, and the peak as the largest stage.

Placements (diffusers):
- `gpu`: every part on the GPU for the whole run (`pipe.to("cuda")`).
- `model`: `enable_model_cpu_offload()`, one part on the GPU at a time, the one running.
- `sequential`: `enable_sequential_cpu_offload()`, one leaf module's weights at a time.
With `blocks_to_swap` N (gpu or model placement), the denoiser's first N transformer blocks stay in system RAM and each
is moved to the GPU for its forward and back (ComfyUI-WanVideoWrapper's block swap, model.py at 721cd65: `block.to(
main_device)`, the forward, `block.to(offload_device, non_blocking=True)`, on one stream): one swapped block is on
the GPU at a time, during the denoising. diffusers' `enable_group_offload(offload_type="block_level",
num_blocks_per_group=1)` without streams moves every block so: N = all.
With `text_encoders` "cpu" the text encoders are kept and run on the CPU whatever the placement (ComfyUI's CLIP
loader with device cpu, `--cpu` text encoders; in diffusers, the text encoders left on the CPU and the prompt
embeddings made there): their weights never reach the GPU and their stage holds on it only what stays resident and
the embeddings copied to it.
A stage holds its working memory (stages.py) and what it carries: the prompt embeddings during the denoising, the
latents during the decode."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.errors import ValidationError
from ..core.search import first_true, last_true
from .pipelines import Part, Pipeline
from .stages import decode_bytes, denoise_bytes, encode_bytes, image_tokens, latent_shape, ltx_scales, unet_step_bytes
from .weights import GGUF_KEEP, GGUF_TYPES, PRECISIONS, block_bytes, largest_module_bytes, part_bytes

PLACEMENTS = ("gpu", "model", "sequential")
TEXT_ENCODER_DEVICES = ("gpu", "cpu")  # gpu: as the placement says; cpu: kept and run on the CPU
# the others concatenate cond and uncond in one batch (HunyuanVideoPipeline: true_cfg_scale > 1, a negative prompt)
# (HunyuanVideo15Pipeline: its ClassifierFreeGuidance guider runs one forward per condition)
CFG_IN_SEPARATE_PASSES = ("FluxPipeline", "WanPipeline", "HunyuanVideoPipeline", "HunyuanVideo15Pipeline",
                          "QwenImagePipeline", "Flux2Pipeline", "Flux2KleinPipeline")
# the pipelines that ask their CLIP encoders for every layer's output (output_hidden_states=True: the penultimate's)
CLIP_HIDDEN_STATES = ("StableDiffusionXLPipeline", "StableDiffusion3Pipeline", "HiDreamImagePipeline")
# HunyuanVideoPipeline asks its Llama for every layer's output (the third from last's) over the prompt template's
# tokens and the prompt's, then crops the template's 95 (crop_start) before the transformer
LLM_HIDDEN_STATES = {"HunyuanVideoPipeline": "text_encoder", "HunyuanVideo15Pipeline": "text_encoder",
                     "QwenImagePipeline": "text_encoder", "Flux2Pipeline": "text_encoder",
                     "Flux2KleinPipeline": "text_encoder", "HiDreamImagePipeline": "text_encoder_4"}
HUNYUAN_CROP_START = 95
# HunyuanVideo15Pipeline: its Qwen2.5-VL reads the system prompt's 108 tokens (prompt_template_encode_start_idx) and
# the prompt's 1,000, the transformer the 1,000 with ByT5's 256 and 729 image tokens (zeros for text-to-video,
# vision_num_semantic_tokens of image_embed_dim); the denoiser's input joins the latents, the condition latents
# (zeros) and a mask channel (prepare_cond_latents_and_mask)
HUNYUAN15_CROP_START, HUNYUAN15_IMAGE_TOKENS = 108, 729
# QwenImagePipeline: its whole Qwen2.5-VL reads the template's 34 tokens (prompt_template_encode_start_idx) and the
# prompt unpadded, every layer's output asked for (the last one taken); the transformer reads the prompt's tokens
QWEN_IMAGE_CROP_START = 34
# Flux2Pipeline (Mistral 3) and Flux2KleinPipeline (Qwen3) pad the prompt to 512 tokens and stack three layers'
# outputs (text_encoder_out_layers (10, 20, 30), (9, 18, 27)) into each token's embedding: three hidden sizes wide
FLUX2_PIPELINES, FLUX2_STACKED_LAYERS = ("Flux2Pipeline", "Flux2KleinPipeline"), 3
# HiDreamImagePipeline: every encoder reads the prompt padded to max_sequence_length (128); the pooled CLIP outputs,
# T5's and every Llama layer's output (hidden_states[1:]) are kept; each block attends to T5's tokens, the last
# Llama layer's and its own Llama layer's (sequence_text_tokens)
HIDREAM = "HiDreamImagePipeline"


def hidream_size(width: int, height: int, side: int = 1024, multiple: int = 16) -> tuple[int, int]:
    """HiDreamImagePipeline.__call__ scales any requested size to the area of its default 1024 x 1024
    (default_sample_size x vae_scale_factor) and down to a multiple of 16 (the VAE's 8 x the patch)."""
    scale = math.sqrt(side * side / (width * height))
    return int(width * scale // multiple * multiple), int(height * scale // multiple * multiple)


MAX_DIFFUSION_PX = 16_384  # width and height, in pixels
MAX_FRAMES = 1_025  # a video's frames


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    width: int
    height: int
    frames: int
    batch: int
    cfg: bool
    placement: str
    precision: str  # the denoiser's
    text_precision: str
    vae_precision: str
    vae_tiling: int = 0  # the VAE's tile in pixels (enable_tiling()); 0: decoded in one call
    blocks_to_swap: int = 0  # the denoiser's transformer blocks kept in system RAM
    text_encoders: str = "gpu"  # cpu: the text encoders kept and run on the CPU


@dataclass(frozen=True, slots=True, kw_only=True)
class PartWeights:
    part: Part
    precision: str
    bytes: int
    largest_module_bytes: int
    blocks: tuple[int, ...] = ()  # the denoiser's transformer blocks' bytes, in forward order
    device: str = "gpu"  # cpu: never on the GPU (text encoders on the CPU)


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage:
    name: str  # encode:<role>, denoise, decode
    part: str
    weight_bytes: int  # of the parts on the GPU during the stage
    working_bytes: int | None  # None: not modelled yet
    carried_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.weight_bytes + (self.working_bytes or 0) + self.carried_bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    pipeline: Pipeline
    request: Request
    weights: tuple[PartWeights, ...]
    stages: tuple[Stage, ...]

    @property
    def peak(self) -> Stage:
        return max(self.stages, key=lambda stage: stage.total_bytes)

    @property
    def complete(self) -> bool:
        return all(stage.working_bytes is not None for stage in self.stages)


def _activation_bytes(precision: str) -> int:
    return 4 if precision == "fp32" else 2  # fp8, NF4 and GGUF parts compute in bf16


def _precision(part: Part, request: Request) -> str:
    if part.is_denoiser:
        return request.precision
    return request.text_precision if part.is_text_encoder else request.vae_precision


def check(pipeline: Pipeline, request: Request) -> None:
    # LTXPipeline: latents of 32 x 32 pixels and 8 frames (the first alone); the others 16 pixels (or less), 4 frames
    scale, temporal = ltx_scales(pipeline.vae.config) if pipeline.vae.class_name == "AutoencoderKLLTXVideo" else (16, 4)
    for key, value in (("width", request.width), ("height", request.height)):
        if value < 64 or value % scale or value > MAX_DIFFUSION_PX:
            raise ValidationError(key, value, f"a multiple of {scale}, from 64 to {MAX_DIFFUSION_PX:,}")
    if not 1 <= request.frames <= MAX_FRAMES or (pipeline.is_video and (request.frames - 1) % temporal) or (
            not pipeline.is_video and request.frames != 1):
        raise ValidationError("frames", request.frames, f"{temporal}k + 1 for this video pipeline ("
                              f"{temporal * 20 + 1}, {temporal * 12 + 1}, ...), 1 for an image one")
    if not 1 <= request.batch <= 64:
        raise ValidationError("batch", request.batch, "from 1 to 64")
    if request.placement not in PLACEMENTS:
        raise ValidationError("placement", request.placement, f"one of: {', '.join(PLACEMENTS)}")
    if request.text_encoders not in TEXT_ENCODER_DEVICES:
        raise ValidationError("text_encoders", request.text_encoders, f"one of: {', '.join(TEXT_ENCODER_DEVICES)}")
    if request.precision not in PRECISIONS + GGUF_TYPES:
        raise ValidationError("precision", request.precision, f"one of: {', '.join(PRECISIONS + GGUF_TYPES)}")
    if request.precision in GGUF_TYPES and pipeline.denoiser.class_name not in GGUF_KEEP:
        raise ValidationError("precision", request.precision, f"one of: {', '.join(PRECISIONS)} (no GGUF rules "
                              f"read for {pipeline.denoiser.class_name})")
    if request.vae_tiling and not (128 <= request.vae_tiling <= 4096 and request.vae_tiling % 32 == 0):
        raise ValidationError("vae_tiling", request.vae_tiling, "128 to 4096 pixels, a multiple of 32 (0: off)")
    for key, precision in (("text_precision", request.text_precision), ("vae_precision", request.vae_precision)):
        if precision not in PRECISIONS:
            raise ValidationError(key, precision, f"one of: {', '.join(PRECISIONS)} (GGUF is for the denoiser)")


def evaluate(pipeline: Pipeline, request: Request) -> Run:
    check(pipeline, request)
    if pipeline.pipeline_class == HIDREAM:  # the size the pipeline generates
        width, height = hidream_size(request.width, request.height)
        request = dataclasses.replace(request, width=width, height=height)
    weights = tuple(dataclasses.replace(
        _part_weights(part, _precision(part, request)),
        device="cpu" if part.is_text_encoder and request.text_encoders == "cpu" else "gpu")
        for part in pipeline.parts)
    blocks = next(w.blocks for w in weights if w.part.is_denoiser)
    if not 0 <= request.blocks_to_swap <= len(blocks) or (request.blocks_to_swap and request.placement == "sequential"):
        raise ValidationError("blocks_to_swap", request.blocks_to_swap,
                              f"0 to {len(blocks)}, the denoiser's transformer blocks (placement gpu or model)")
    return _run(pipeline, request, weights)


_WEIGHTS: dict[tuple[int, str], tuple[Part, PartWeights]] = {}


def _part_weights(part: Part, precision: str) -> PartWeights:
    """A part's bytes in a precision, remembered: a walk over its tensors that the searches (`single_fixes`,
    `fewest_blocks_to_swap`) would otherwise repeat for every trial (kept by the part's identity, checked)."""
    hit = _WEIGHTS.get((id(part), precision))
    if hit is not None and hit[0] is part:
        return hit[1]
    tensors = part.tensors
    found = PartWeights(part=part, precision=precision, bytes=part_bytes(tensors, part.class_name, precision),
                        largest_module_bytes=largest_module_bytes(tensors, part.class_name, precision),
                        blocks=block_bytes(tensors, part.class_name, precision) if part.is_denoiser else ())
    if len(_WEIGHTS) > 512:
        _WEIGHTS.clear()
    _WEIGHTS[id(part), precision] = (part, found)
    return found


def fewest_blocks_to_swap(run: Run, usable_bytes: int) -> int | None:
    """The fewest transformer blocks to swap for the peak to fit in `usable_bytes` (None: swapping every block is
    not enough, or the placement swaps none); the peak never grows as more blocks are swapped."""
    blocks = len(next(w.blocks for w in run.weights if w.part.is_denoiser))
    if run.request.placement == "sequential" or not blocks:
        return None

    def fits(swapped: int) -> bool:
        request = dataclasses.replace(run.request, blocks_to_swap=swapped)
        return _run(run.pipeline, request, run.weights).peak.total_bytes <= usable_bytes

    return first_true(fits, 0, blocks)


DENOISER_LADDER = ("fp8", "gguf-q8_0", "gguf-q5_0", "gguf-q4_0", "nf4")  # from the most faithful to the least


Settings = dict[str, object]  # a Request's fields to change: {"placement": "model"}, {"width": .., "height": ..}


def single_fixes(run: Run, usable_bytes: int) -> tuple[Settings, ...]:
    """The single settings that make a run that does not fit `usable_bytes` fit, each alone: the
    ones that keep the picture first (diffusers' model CPU offload, the text encoders on the CPU, a tiled VAE
    decode), then the denoiser's most faithful smaller format, then the largest size (same aspect) and the most
    frames that fit; when none of the first four is enough alone, the fewest of them together first. The fewest blocks
    to swap is `fewest_blocks_to_swap`."""
    request, pipeline = run.request, run.pipeline

    def fits(**change: Any) -> bool:
        try:
            return evaluate(pipeline, dataclasses.replace(request, **change)).peak.total_bytes <= usable_bytes
        except ValidationError:
            return False

    fixes: list[Settings] = []
    for key, value in (("placement", "model"), ("text_encoders", "cpu"), ("vae_tiling", 512)):
        if getattr(request, key) in ("gpu", 0) and fits(**{key: value}):
            fixes.append({key: value})
    ladder = DENOISER_LADDER[DENOISER_LADDER.index(request.precision) + 1:] if request.precision in DENOISER_LADDER \
        else DENOISER_LADDER
    smaller = next((p for p in ladder if fits(precision=p)), None)
    if smaller is not None:
        fixes.append({"precision": smaller})
    step = ltx_scales(pipeline.vae.config)[0] if pipeline.vae.class_name == "AutoencoderKLLTXVideo" else 16
    sizes = [(w, round(request.height * w / request.width / step) * step)
             for w in range(step * max(1, 64 // step), request.width, step)]
    sizes = [(w, h) for w, h in sizes if h >= 64]
    largest = last_true(lambda i: fits(width=sizes[i][0], height=sizes[i][1]), 0, len(sizes) - 1)
    if largest is not None:
        fixes.append({"width": sizes[largest][0], "height": sizes[largest][1]})
    if pipeline.is_video and request.frames > 1:
        temporal = ltx_scales(pipeline.vae.config)[1] if pipeline.vae.class_name == "AutoencoderKLLTXVideo" else 4
        counts = list(range(1, request.frames, temporal))
        most = last_true(lambda i: fits(frames=counts[i]), 0, len(counts) - 1)
        if most is not None:
            fixes.append({"frames": counts[most]})
    if not any(fix.keys() & {"placement", "text_encoders", "vae_tiling", "precision"} for fix in fixes):
        together = _together(fits, request)  # no one setting is enough at this size: the first few together
        if together:
            fixes.insert(0, together)
    return tuple(fixes)


def _together(fits: Callable[..., bool], request: Request) -> Settings:
    """The settings of `single_fixes` added one after another (the denoiser's formats one at a time, the last
    one kept) until the run fits at its size: () when even all of them do not."""
    chosen: dict[str, object] = {}
    for key, value in (("placement", "model"), ("text_encoders", "cpu"), ("vae_tiling", 512)):
        if getattr(request, key) in ("gpu", 0):
            chosen[key] = value
            if fits(**chosen):
                return chosen
    precision = next((p for p in DENOISER_LADDER if fits(**chosen, precision=p)), None)
    if precision is None:
        return {}
    chosen["precision"] = precision
    for key in ("placement", "text_encoders", "vae_tiling"):  # those the smaller format makes needless
        if key in chosen and fits(**{k: v for k, v in chosen.items() if k != key}):
            del chosen[key]
    return chosen


def _run(pipeline: Pipeline, request: Request, weights: tuple[PartWeights, ...]) -> Run:
    by_role = {w.part.role: w for w in weights}
    swapped = next(w.blocks for w in weights if w.part.is_denoiser)[:request.blocks_to_swap]

    on_cpu = request.text_encoders == "cpu"

    def on_gpu(role: str) -> int:
        kept = sum(swapped) if request.placement == "gpu" or by_role[role].part.is_denoiser else 0
        if request.placement == "gpu":  # every denoiser's first blocks kept in system RAM (Wan 2.2 A14B: both)
            return sum(w.bytes for w in weights if w.device == "gpu") - kept * len(pipeline.denoisers)
        if by_role[role].device == "cpu":
            return 0
        return by_role[role].bytes - kept if request.placement == "model" else by_role[role].largest_module_bytes

    denoiser, vae = pipeline.denoiser, pipeline.vae
    e = _activation_bytes(request.precision)
    prompts = 2 if request.cfg else 1  # the negative prompt's embeddings too
    # HiDreamImagePipeline joins the negative and positive embeddings and keeps the negative ones' variables
    copies = prompts + (1 if request.cfg and pipeline.pipeline_class == HIDREAM else 0)
    embeddings = sum(request.batch * copies * _carried_tokens(pipeline, p) * _carried_width(pipeline, p) * e
                     for p in pipeline.parts if p.is_text_encoder)
    latent = latent_shape(vae.class_name, vae.config, request.width, request.height, request.frames)
    latent_bytes = request.batch * _product(latent) * e
    denoise_carried = embeddings + latent_bytes
    if pipeline.pipeline_class == "HunyuanVideo15Pipeline":  # the condition latents, the mask, the joined input
        grid = _product(latent[1:])
        denoise_carried += request.batch * e * (grid * (3 * latent[0] + 2) + HUNYUAN15_IMAGE_TOKENS * int(
            denoiser.config.get("image_embed_dim", 1152)))
    in_one_batch = request.cfg and pipeline.pipeline_class not in CFG_IN_SEPARATE_PASSES
    text_tokens = sequence_text_tokens(pipeline)
    def hidden_states(part: Part) -> bool:
        return pipeline.pipeline_class in CLIP_HIDDEN_STATES or LLM_HIDDEN_STATES.get(pipeline.pipeline_class) == (
            part.role)

    stages = [Stage(name=f"encode:{p.role}", part=p.role, weight_bytes=on_gpu(p.role), carried_bytes=embeddings,
                    working_bytes=0 if on_cpu else encode_bytes(
                        p.class_name, p.config, pipeline.text_tokens[p.role], hidden_states(p),
                        _activation_bytes(request.text_precision)))
              for p in pipeline.parts if p.is_text_encoder]
    batch = request.batch * (2 if in_one_batch else 1)
    expand = bool(pipeline.options.get("expand_timesteps"))  # Wan 2.2 TI2V: a timestep per token

    def step(part: Part) -> int | None:
        if part.class_name == "UNet2DConditionModel":
            return unet_step_bytes(part.config, batch, latent[-2], latent[-1], e)
        return denoise_bytes(part.class_name, part.config, batch, image_tokens(part.class_name, part.config, latent),
                             text_tokens, e, expand_timesteps=expand)

    # Wan 2.2 A14B: the high-noise expert's steps, then the low-noise expert's; model offload moves one expert at a
    # time (WanPipeline's model_cpu_offload_seq text_encoder->transformer->transformer_2->vae)
    stages += [Stage(name="denoise" if part is denoiser else f"denoise:{part.role}", part=part.role,
                     weight_bytes=on_gpu(part.role) + max(swapped, default=0), carried_bytes=denoise_carried,
                     working_bytes=step(part)) for part in pipeline.denoisers]
    stages.append(Stage(
        name="decode", part=vae.role, weight_bytes=on_gpu(vae.role), carried_bytes=latent_bytes,
        working_bytes=decode_bytes(vae.class_name, vae.config, request.batch, request.width, request.height,
                                   request.frames, _activation_bytes(request.vae_precision), request.vae_tiling)))
    return Run(pipeline=pipeline, request=request, weights=weights, stages=tuple(stages))


def sequence_text_tokens(pipeline: Pipeline) -> int:
    """The text tokens the denoiser attends to: SD3's CLIP pair (side by side, 77) then T5's; Flux's T5 (CLIP gives
    a pooled vector only); Wan's UMT5; HunyuanVideo's Llama without the template; HunyuanVideo 1.5's Qwen without its
    system prompt, ByT5's and the image's; HiDream's T5 and twice its Llama's (the last layer's, each block's own);
    a UNet's CLIP (the widest encoder in every other case)."""
    tokens = pipeline.text_tokens
    if pipeline.pipeline_class == HIDREAM:
        return tokens["text_encoder_3"] + 2 * tokens["text_encoder_4"]
    if pipeline.pipeline_class == "HunyuanVideo15Pipeline":
        return tokens["text_encoder"] - HUNYUAN15_CROP_START + tokens["text_encoder_2"] + HUNYUAN15_IMAGE_TOKENS
    if pipeline.pipeline_class == "HunyuanVideoPipeline":
        return tokens["text_encoder"] - HUNYUAN_CROP_START
    if pipeline.pipeline_class == "QwenImagePipeline":
        return tokens["text_encoder"] - QWEN_IMAGE_CROP_START
    if "text_encoder_3" in tokens:
        return tokens["text_encoder"] + tokens["text_encoder_3"]
    widest = max((p for p in pipeline.parts if p.is_text_encoder), key=_width)
    return tokens[widest.role]


def _carried_tokens(pipeline: Pipeline, part: Part) -> int:
    """The tokens of a text encoder's embeddings kept through the denoising (HunyuanVideo15Pipeline's repeat copies
    the Qwen output without its system prompt; HiDream keeps its CLIPs' pooled outputs and every Llama layer's)."""
    if pipeline.pipeline_class == "HunyuanVideo15Pipeline" and part.role == "text_encoder":
        return pipeline.text_tokens[part.role] - HUNYUAN15_CROP_START
    if pipeline.pipeline_class == "QwenImagePipeline":
        return pipeline.text_tokens[part.role] - QWEN_IMAGE_CROP_START
    if pipeline.pipeline_class == HIDREAM and part.class_name.startswith("CLIP"):  # the pooled output
        return 1
    if pipeline.pipeline_class == HIDREAM and part.class_name == "LlamaForCausalLM":  # every layer's output
        return int(part.config["num_hidden_layers"]) * pipeline.text_tokens[part.role]
    return pipeline.text_tokens[part.role]


def _carried_width(pipeline: Pipeline, part: Part) -> int:
    """The width of a text encoder's embeddings kept through the denoising (FLUX.2's: three layers' outputs side by
    side, its language model's hidden size three times)."""
    if pipeline.pipeline_class in FLUX2_PIPELINES:
        text = part.config.get("text_config") or part.config
        return FLUX2_STACKED_LAYERS * int(text.get("hidden_size", 0))
    return _width(part)


def _width(part: Part) -> int:
    config = part.config
    return int(config.get("d_model", config.get("hidden_size", 0)))


def _product(shape: tuple[int, ...]) -> int:
    total = 1
    for size in shape:
        total *= size
    return total
