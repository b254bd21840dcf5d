"""How long a pipeline run takes on a card: each stage's FLOPs (flops.py) over the share of the card's dense 16-bit
tensor rate (FP32 accumulate, what PyTorch's bf16 matmuls and convolutions run) that published runs reach
(data/speed.json "diffusion", fitted by tools/validate_diffusion_speed.py --fit to
tests/data/speed/diffusion_published.json;
docs/accuracy.md "Speed of image and video pipelines"), plus the weights the placement moves over PCIe.

A step is one denoiser forward per sample and per guidance pass (CFG doubles the batch or runs a second pass: the
same FLOPs); the run is the text encoders over the prompt (and the negative prompt with CFG), the steps, and the VAE
decode of every sample. What is not counted says so in the basis: text encoders on the CPU, a VAE whose FLOPs are not
counted (HunyuanVideo 1.5's: the basis then names the steps and the text encoding only), dequantising GGUF or NF4
weights, fp32 weights (another rate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.phrase import Phrase, phrase
from ..sources.gpus import GpuSpec
from ..speed.hardware import TERA, Device, Memory, calibration, device, pcie_bandwidth
from ..workload import Machine
from .flops import RULES, decode_flops, dit_flops, encoder_flops, unet_flops
from .run import CFG_IN_SEPARATE_PASSES, HUNYUAN15_CROP_START, HUNYUAN15_IMAGE_TOKENS, Run, sequence_text_tokens
from .stages import image_tokens, latent_shape

UNET = "UNet2DConditionModel"


@dataclass(frozen=True, slots=True, kw_only=True)
class StageFlops:
    forward: int  # one denoiser forward over one sample
    forwards_per_step: int  # samples x guidance passes
    encode: dict[str, int]  # per text encoder: its forwards over the prompt (and the negative prompt)
    decode: int | None  # every sample's VAE decode; None: not counted


def stage_flops(run: Run) -> StageFlops:
    pipeline, request = run.pipeline, run.request
    denoiser, vae = pipeline.denoiser, pipeline.vae
    latent = latent_shape(vae.class_name, vae.config, request.width, request.height, request.frames)
    if denoiser.class_name == UNET:
        forward = unet_flops(denoiser.config, denoiser.tensors, latent[-2], latent[-1], sequence_text_tokens(pipeline))
    else:
        streams = {"image": image_tokens(denoiser.class_name, denoiser.config, latent),
                   "text": sequence_text_tokens(pipeline)}
        if pipeline.pipeline_class == "HunyuanVideo15Pipeline":
            streams.update(refiner=pipeline.text_tokens["text_encoder"] - HUNYUAN15_CROP_START,
                           glyph=pipeline.text_tokens["text_encoder_2"], vision=HUNYUAN15_IMAGE_TOKENS)
        if pipeline.pipeline_class == "HiDreamImagePipeline":  # each caption projection over one prompt's tokens
            streams["caption"] = pipeline.text_tokens["text_encoder_4"]
        if pipeline.options.get("expand_timesteps"):  # Wan 2.2 TI2V: a timestep per image token
            streams["sample"] = streams["image"]
        # Wan 2.2 A14B: each step runs one expert (transformer while the timestep is at least boundary_ratio x 1000,
        # then transformer_2); its two have the same config, so every step counts the same
        experts = {dit_flops(part.class_name, part.tensors, streams, part.config) for part in pipeline.denoisers}
        if len(experts) > 1:
            raise ValueError(f"{pipeline.slug}: experts of different sizes, whose share of the steps is not counted")
        forward = experts.pop()
    prompts = 2 if request.cfg else 1
    encode = {p.role: prompts * encoder_flops(p.tensors, pipeline.text_tokens[p.role])
              for p in pipeline.parts if p.is_text_encoder}
    one = decode_flops(vae.class_name, vae.config, vae.tensors, request.width, request.height, request.frames,
                       request.vae_tiling)
    return StageFlops(forward=forward, forwards_per_step=request.batch * prompts, encode=encode,
                      decode=None if one is None else request.batch * one)


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffusionSpeed:
    """The JSON's `speed` of `vramcalc diffusion --gpu`: seconds, None where not modelled."""

    gpu: str
    steps: int
    passes: int  # guidance passes per step (1, or 2 with CFG)
    step_flops: int
    step_s: float
    denoise_s: float
    encode_s: float | None
    decode_flops: int | None
    decode_s: float | None
    offload_s: float  # weights moved over PCIe by the placement (model or sequential offload, swapped blocks)
    total_s: float  # every stage that is modelled
    per_output_s: float  # total over the batch: seconds per image or per clip
    share: float  # of the card's dense 16-bit rate
    tflops: float  # the card's dense 16-bit rate
    validated: bool
    basis: tuple[Phrase, ...] = ()

    def as_json(self) -> dict[str, object]:
        names = ("gpu", "steps", "passes", "step_flops", "step_s", "denoise_s", "encode_s", "decode_flops", "decode_s",
                 "offload_s", "total_s", "per_output_s", "share", "tflops", "validated")
        return {name: _rounded(getattr(self, name)) for name in names}


def _rounded(value: object) -> object:
    return float(f"{value:.4g}") if isinstance(value, float) else value


def rates() -> dict[str, Any]:
    """data/speed.json "diffusion": the shares of the dense 16-bit rate by denoiser kind and class of card, and their
    validation."""
    data: dict[str, Any] = calibration()["diffusion"]
    return data


def group(denoiser_class: str, card: Device) -> str:
    """The validation group: the denoiser's kind (dit, unet) and the card's class: hbm_fp8 for an HBM card with an FP8
    rate (Hopper, Blackwell, MI300), whose peak the FlashAttention-2-era kernels reach least of (FlashAttention-3's
    paper: FlashAttention-2 reaches 35% of an H100), other for the rest."""
    kind = "unet" if denoiser_class == UNET else "dit"
    return f"{kind}-{'hbm_fp8' if card.memory is Memory.HBM and card.flops.get('fp8') else 'other'}"


def speed_of(run: Run, gpu: GpuSpec, steps: int, machine: Machine | None = None,
             share: float | None = None) -> DiffusionSpeed | Phrase:
    """The run's time on one `gpu` (at `share` of its dense 16-bit rate instead of the fitted one, when given); a
    phrase saying why not where it cannot be computed."""
    machine = machine or Machine()
    card = device(gpu, machine)
    peak = card.flops.get("16-bit")
    if not peak:
        return phrase("diffusion.speed.unknown_tflops")
    if "fp32" in {run.request.precision, run.request.text_precision, run.request.vae_precision}:
        return phrase("diffusion.speed.fp32")
    if run.pipeline.denoiser.class_name not in (UNET, *RULES):
        return phrase("diffusion.speed.not_counted", name=run.pipeline.denoiser.class_name)
    flops = stage_flops(run)
    name = group(run.pipeline.denoiser.class_name, card)
    share = share or float(rates()["share"][name])
    rate = share * peak
    passes = 2 if run.request.cfg else 1
    step_flops = flops.forward * flops.forwards_per_step
    offload = _offload(run, passes)
    step_s = step_flops / rate + offload["step"]
    on_cpu = run.request.text_encoders == "cpu"
    encode_s = None if on_cpu else sum(flops.encode.values()) / rate
    decode_s = None if flops.decode is None else flops.decode / rate
    total = steps * step_s + (encode_s or 0.0) + (decode_s or 0.0) + offload["run"]
    stats = rates()["validation"].get(name, {})
    validated = bool(stats.get("validated", False))
    basis = [phrase("diffusion.speed.basis" if decode_s is not None else "diffusion.speed.basis_no_decode",
                    steps=steps, tflop=f"{step_flops / TERA:,.1f}", share=f"{100 * share:.0f}%",
                    tflops=f"{peak / TERA:,.0f}")]
    if on_cpu:
        basis.append(phrase("diffusion.speed.encode_on_cpu"))
    if decode_s is None:
        basis.append(phrase("diffusion.speed.decode_not_counted"))
    if offload["run"] or offload["step"]:
        basis.append(phrase("diffusion.speed.offload", seconds=f"{offload['run'] + steps * offload['step']:,.1f}",
                            pcie=f"{pcie_bandwidth() / 1e9:,.0f}"))
    if run.request.precision not in ("bf16", "fp16", "fp8"):
        basis.append(phrase("diffusion.speed.dequantise"))
    if validated:
        basis.append(phrase("diffusion.speed.error", median=f"{stats['median']:.0%}", worst=f"{stats['worst']:.0%}",
                            rows=stats["rows"], held_out=f"{stats['held_out_median']:.0%}"))
    else:
        basis.append(phrase("diffusion.speed.unvalidated", rows=stats.get("rows", 0)))
    return DiffusionSpeed(
        gpu=gpu.slug, steps=steps, passes=passes, step_flops=step_flops, step_s=step_s, denoise_s=steps * step_s,
        encode_s=encode_s, decode_flops=flops.decode, decode_s=decode_s,
        offload_s=offload["run"] + steps * offload["step"], total_s=total, per_output_s=total / run.request.batch,
        share=share, tflops=peak / TERA, validated=validated, basis=tuple(basis))


def _offload(run: Run, passes: int) -> dict[str, float]:
    """Seconds of weights moved over PCIe: with model offload each part once per run (the text encoders, the
    denoiser, the VAE, in turn); with sequential offload the denoiser's weights every forward (each guidance pass
    of a pipeline that runs them apart) and the other parts once; swapped blocks there and back every forward."""
    pcie = pcie_bandwidth()
    moved = [w.bytes for w in run.weights if w.device == "gpu" and not w.part.is_denoiser]
    denoiser = next(w for w in run.weights if w.part.is_denoiser)
    forwards = passes if run.pipeline.pipeline_class in CFG_IN_SEPARATE_PASSES else 1
    per_step = 0.0
    per_run = 0.0
    if run.request.placement == "model":
        per_run = (sum(moved) + denoiser.bytes - sum(denoiser.blocks[:run.request.blocks_to_swap])) / pcie
    elif run.request.placement == "sequential":
        per_run = sum(moved) / pcie
        per_step = forwards * denoiser.bytes / pcie
    if run.request.blocks_to_swap:
        per_step += forwards * 2 * sum(denoiser.blocks[:run.request.blocks_to_swap]) / pcie
    return {"run": per_run, "step": per_step}
