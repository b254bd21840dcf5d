"""`vramcalc diffusion`: the memory of an image or video diffusion pipeline run, part by part and stage by stage."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ..core.errors import ValidationError
from ..core.phrase import Phrase
from ..core.units import GIB
from ..inputs.parse import parse_machine
from ..render.messages import ENGLISH
from ..sources import hub
from ..sources.gpus import GpuSpec, gpu
from ..speed import Speed
from ..speed import cost_of as priced
from ..workload import Machine
from .imported import INDEX, MAX_JSON_CHARS, counted, import_pipeline
from .pipelines import Pipeline, load_pipelines, pipeline
from .run import PLACEMENTS, TEXT_ENCODER_DEVICES, Request, Run, Settings, evaluate, fewest_blocks_to_swap, single_fixes
from .speed import DiffusionSpeed, speed_of
from .training import ADAPTER_DTYPES, OPTIMIZERS, TARGETS, Step, Training, train
from .training import as_json as training_json
from .weights import GGUF_TYPES, PRECISIONS

DEFAULT = "flux.1-dev"
_FOLDER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffusionCost:
    """The JSON's `cost` of `vramcalc diffusion --gpu`: the card's price per hour (the user's, or its cloud price)
    and an image's or clip's share of it at the run's time; None without a price (`price` says why)."""

    usd_per_hour: float | None
    usd_per_output: float | None
    price: Phrase

    def as_json(self) -> dict[str, object]:  # four significant figures, as the speed's
        return {key: None if value is None else float(f"{value:.4g}")
                for key, value in (("usd_per_hour", self.usd_per_hour), ("usd_per_output", self.usd_per_output))}


def cost_of(speed: DiffusionSpeed | None, gpu: GpuSpec, machine: Machine) -> DiffusionCost:
    """The price of one GPU-hour as the language models' cost takes it (speed.cost_of: the user's, else the card's
    cloud price, else why there is none), times the time of one image or clip (None when it is not timed)."""
    hour = priced(Speed(), gpu, 1, machine)
    assert hour.price is not None
    per_output = None if hour.usd_per_hour is None or speed is None else hour.usd_per_hour * speed.per_output_s / 3600
    return DiffusionCost(usd_per_hour=hour.usd_per_hour, usd_per_output=per_output, price=hour.price)


def build_diffusion_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vramcalc diffusion",
        description="GPU memory of a diffusers image or video pipeline: each part's weights in its precision and "
                    "the working memory of each stage (text encoding, one denoising step, VAE decode); the peak is "
                    "the largest stage with what stays on the GPU.")
    parser.add_argument("--pipeline", "--model", help=f"one of: {', '.join(load_pipelines())} (default {DEFAULT})")
    parser.add_argument("--folder", metavar="DIR", help="instead of --pipeline, a diffusers folder: its "
                        "model_index.json and each component's <folder>/config.json (the run's defaults: the closest "
                        "preset's)")
    parser.add_argument("--hf", metavar="ORG/NAME[@REV]", help="instead of --pipeline, a diffusers repository on the "
                        "Hugging Face Hub, its model_index.json and components' config.json read (HF_TOKEN from the "
                        "environment)")
    parser.add_argument("--hf-endpoint", metavar="URL", help="the Hub's address for --hf (default: HF_ENDPOINT, else "
                                                             "https://huggingface.co)")
    parser.add_argument("--width", type=int, help="pixels (default: the pipeline's)")
    parser.add_argument("--height", type=int, help="pixels (default: the pipeline's)")
    parser.add_argument("--frames", type=int,
                        help="video frames, 4k + 1 (LTX-Video: 8k + 1; default: the pipeline's; 1 for images)")
    parser.add_argument("--batch", "--per-prompt", type=int, default=1, help="images or videos per prompt (default 1)")
    parser.add_argument("--cfg", choices=("on", "off"), help="classifier-free guidance (default: the pipeline's)")
    parser.add_argument("--precision", "--denoiser-precision", default="bf16", choices=PRECISIONS + GGUF_TYPES,
                        help="the denoiser's weights (GGUF: city96's files in ComfyUI-GGUF)")
    parser.add_argument("--text-precision", default="bf16", choices=PRECISIONS, help="the text encoders' weights")
    parser.add_argument("--vae-precision", default="bf16", choices=PRECISIONS, help="the VAE's weights")
    parser.add_argument("--placement", default="gpu", choices=PLACEMENTS,
                        help="gpu: every part on the GPU; model: enable_model_cpu_offload (one part at a time); "
                             "sequential: enable_sequential_cpu_offload (one module at a time)")
    parser.add_argument("--text-encoders", default="gpu", choices=TEXT_ENCODER_DEVICES,
                        help="gpu: as --placement says; cpu: the text encoders kept and run on the CPU, only their "
                             "prompt embeddings reach the GPU (ComfyUI's CLIP on the CPU)")
    parser.add_argument("--vae-tiling", type=int, default=0, metavar="PIXELS",
                        help="decode tile by tile (the VAE's enable_tiling()), this many pixels a side; 0: off")
    parser.add_argument("--blocks-to-swap", type=int, default=0, metavar="N",
                        help="the denoiser's first N transformer blocks kept in system RAM, one at a time on the GPU "
                             "(ComfyUI-WanVideoWrapper's block swap; placement gpu or model)")
    parser.add_argument("--gpu", help="a GPU (as the main command's --gpu): the fewest blocks to swap for it, and the "
                                      "run's time on it")
    parser.add_argument("--steps", type=int, help="denoising steps (num_inference_steps; default: the pipeline's)")
    parser.add_argument("--gpu-tflops", metavar="T", help="the card's dense FP16 tensor TFLOPS, for its time "
                        "(default: the card's own; a card given as NNgb has none)")
    parser.add_argument("--gpu-hour-price", metavar="USD", help="price of the GPU for an hour, in US dollars, for the "
                        "cost of an image or clip (default: a cloud price for the cards that have one)")
    training = parser.add_argument_group("LoRA training (Flux, FLUX.2 and Wan; the step as sd-scripts, musubi-tuner "
                                         "and ai-toolkit run it)")
    training.add_argument("--train-lora", type=int, metavar="RANK", help="one training step of LoRA adapters of "
                          "this rank instead of a generation (0: a generation); --precision is the frozen base's "
                          "(bf16 or fp8)")
    training.add_argument("--lora-targets", "--train-lora-targets", default="all", choices=TARGETS,
                          help="all: every Linear of the transformer blocks (sd-scripts, ai-toolkit); "
                               "no-modulation: less Flux's AdaLN modulation (musubi-tuner)")
    training.add_argument("--adapter-precision", default="bf16", choices=ADAPTER_DTYPES,
                          help="the adapters' weights, gradients and AdamW state (fp32: --mixed_precision bf16)")
    training.add_argument("--optimizer", "--train-optimizer", default="adamw", choices=OPTIMIZERS,
                          help="adamw8bit: bitsandbytes")
    training.add_argument("--checkpointing", "--train-checkpointing", choices=("on", "off"), default="on",
                          help="gradient checkpointing of the transformer blocks (default on)")
    training.add_argument("--cache-latents", choices=("on", "off"), default="on", help="latents and text "
                          "embeddings cached (default on): the VAE and text encoders are not on the GPU")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def as_json(run: Run, fewest_blocks_to_swap: int | None = None, steps: int | None = None,
            speed: DiffusionSpeed | Phrase | None = None, fixes: tuple[Settings, ...] = (),
            cost: DiffusionCost | None = None) -> dict[str, object]:
    """The run's JSON; with `speed` (a time, or why there is none) and `cost`, their words in speed_basis and
    cost_basis ([] without --gpu)."""
    request = run.request
    timed = speed if isinstance(speed, DiffusionSpeed) else None
    return {
        "pipeline": run.pipeline.slug, "width": request.width, "height": request.height, "frames": request.frames,
        "batch": request.batch, "cfg": request.cfg, "placement": request.placement, "vae_tiling": request.vae_tiling,
        "blocks_to_swap": request.blocks_to_swap, "text_encoders": request.text_encoders,
        "parts": [{"role": w.part.role, "class": w.part.class_name, "params": w.part.params,
                   "precision": w.precision, "weight_bytes": w.bytes, "device": w.device} for w in run.weights],
        "stages": [{"stage": s.name, "part": s.part, "weight_bytes": s.weight_bytes, "working_bytes": s.working_bytes,
                    "carried_bytes": s.carried_bytes, "total_bytes": s.total_bytes} for s in run.stages],
        "peak_stage": run.peak.name, "peak_bytes": run.peak.total_bytes, "complete": run.complete,
        "fewest_blocks_to_swap": fewest_blocks_to_swap, "steps": steps or run.pipeline.steps,
        "speed": None if timed is None else timed.as_json(), **imported_json(run.pipeline),
        "fits_with": list(fixes),
        "speed_basis": [ENGLISH.say(line) for line in (
            timed.basis if timed else (speed,) if isinstance(speed, Phrase) else ())],
        "cost": None if cost is None else cost.as_json(),
        "cost_basis": [] if cost is None else [ENGLISH.say(cost.price)],
    }


def imported_json(chosen: Pipeline) -> dict[str, object]:
    """An imported pipeline's origin, the preset whose defaults it runs with, and its components not counted."""
    return {"imported_from": chosen.hf_id if chosen.defaults_of else None, "defaults_of": chosen.defaults_of or None,
            "ignored": [{"role": role, "class": cls} for role, cls in chosen.ignored]}


def imported_lines(chosen: Pipeline) -> list[str]:
    if not chosen.defaults_of:
        return []
    preset = load_pipelines()[chosen.defaults_of]
    return [f"imported from {chosen.hf_id}: {chosen.pipeline_class}; defaults of {preset.display_name} "
            f"({preset.slug}): {preset.width} x {preset.height}" + (f" x {preset.frames} frames" if preset.frames > 1
                                                                     else "")
            + f", {preset.steps} steps, CFG {'on' if preset.cfg else 'off'}"] + (
        ["not counted: " + ", ".join(f"{role} ({cls})" for role, cls in chosen.ignored)] if chosen.ignored else [])


def read_folder(folder: str) -> tuple[str, dict[str, str]]:
    """A diffusers folder's model_index.json and each of its components' <folder>/config.json, as text."""
    root = Path(folder)

    def text(path: Path, field: str) -> str:
        try:
            with path.open(encoding="utf-8") as file:
                return file.read(MAX_JSON_CHARS + 1)
        except UnicodeDecodeError:
            raise ValidationError(field, str(path), "UTF-8 text") from None
        except OSError as error:
            raise ValidationError(field, str(path), f"a file this user can read ({error.strerror or error})") from None

    if not (root / INDEX).is_file():
        raise ValidationError("folder", folder, f"a diffusers folder: {INDEX} and a folder per component with its "
                                                "config.json")
    index = text(root / INDEX, INDEX)
    try:
        keys = json.loads(index)
    except (ValueError, RecursionError):
        keys = {}  # imported.py says what is wrong with it
    folders = [key for key in keys if isinstance(keys, dict) and isinstance(key, str) and counted(key)
               and _FOLDER_NAME.fullmatch(key) and (root / key / "config.json").is_file()]
    return index, {key: text(root / key / "config.json", f"{key}/config.json") for key in folders}


def hub_files(hf: str, endpoint: str | None) -> tuple[str, dict[str, str], str]:
    """`--hf`: a diffusers repository's model_index.json and the config.json of each counted component it names,
    read at the commit the model info names (sources/hub.py: the token, the endpoint, the errors in words)."""
    repo, reader, info, commit = hub.model_info(hf, endpoint, os.environ)
    names = {name for name, _ in hub.files_of(info)}
    if INDEX not in names:
        said = " (a language model: vramcalc --hf reads it)" if "config.json" in names else ""
        raise ValidationError("hf", hf, f"{repo} holds no {INDEX}, so no diffusers pipeline{said}")
    resolve = f"{repo}/resolve/{quote(commit, safe='')}/"
    index = reader.text(resolve + INDEX)
    try:
        keys = json.loads(index)
    except (ValueError, RecursionError):
        keys = {}  # imported.py says what is wrong with it
    folders = [key for key in keys if isinstance(keys, dict) and isinstance(key, str) and counted(key)
               and f"{key}/config.json" in names][:64]
    return index, {key: reader.text(f"{resolve}{quote(key)}/config.json") for key in folders}, f"{repo}@{commit}"


def chosen_pipeline(args: argparse.Namespace) -> Pipeline:
    """--pipeline's preset, or the pipeline --folder or --hf imports."""
    given = [flag for flag, value in (("pipeline", args.pipeline), ("folder", args.folder), ("hf", args.hf)) if value]
    if len(given) > 1:
        raise ValidationError(given[1], getattr(args, given[1]), "give one of --pipeline, --folder and --hf")
    if args.hf_endpoint and not args.hf:
        raise ValidationError("hf-endpoint", args.hf_endpoint, "--hf-endpoint goes with --hf ORG/NAME")
    if args.folder:
        return import_pipeline(*read_folder(args.folder), str(Path(args.folder).resolve()))
    if args.hf:
        return import_pipeline(*hub_files(args.hf, args.hf_endpoint))
    return pipeline(args.pipeline or DEFAULT)


def _gib(value: int | None) -> str:
    return "not modelled yet" if value is None else f"{value / GIB:.2f} GiB"


def lines(run: Run) -> list[str]:
    r = run.request
    out = [f"{run.pipeline.display_name}: {r.width} x {r.height}" + (f" x {r.frames} frames" if r.frames > 1 else "")
           + f", batch {r.batch}, CFG {'on' if r.cfg else 'off'}, placement {r.placement}"
           + (f", VAE tiles of {r.vae_tiling} px" if r.vae_tiling else "")
           + (f", {r.blocks_to_swap} blocks swapped" if r.blocks_to_swap else "")
           + (", text encoders on the CPU" if r.text_encoders == "cpu" else ""), *imported_lines(run.pipeline), "",
           "weights:"]
    out += [f"  {w.part.role:<16}{w.part.class_name:<30}{w.part.params:>16,} params  {w.precision:<10}"
            f"{_gib(w.bytes):>12}" + ("  (on the CPU)" if w.device == "cpu" else "") for w in run.weights]
    out += ["", "stages (on the GPU: weights + working memory + carried tensors):"]
    out += [f"  {s.name:<24}{_gib(s.weight_bytes):>12} + {_gib(s.working_bytes):>16} + {_gib(s.carried_bytes):>10}"
            f" = {_gib(s.total_bytes)}" for s in run.stages]
    out += ["", f"peak: {_gib(run.peak.total_bytes)} ({run.peak.name})"
            + ("" if run.complete else ", at least: a stage's working memory is not modelled yet")]
    return out


def _given(value: int | None, default: int) -> int:
    """A flag's value, or the pipeline's own when it is left out (0 is a value, refused by run.check)."""
    return default if value is None else value


def diffusion_main(argv: Sequence[str]) -> int:
    args = build_diffusion_parser().parse_args(argv)
    if args.train_lora:  # 0, as on the page: a generation
        return training_main(args)
    try:
        chosen = chosen_pipeline(args)
        run = evaluate(chosen, Request(
            width=_given(args.width, chosen.width), height=_given(args.height, chosen.height),
            frames=_given(args.frames, chosen.frames), batch=args.batch,
            cfg=chosen.cfg if args.cfg is None else args.cfg == "on", placement=args.placement,
            precision=args.precision, text_precision=args.text_precision, vae_precision=args.vae_precision,
            vae_tiling=args.vae_tiling, blocks_to_swap=args.blocks_to_swap, text_encoders=args.text_encoders))
        card = gpu(args.gpu) if args.gpu else None
        machine = parse_machine({"gpu_tflops": args.gpu_tflops or "", "gpu_hour_price": args.gpu_hour_price or ""})
        steps = chosen.steps if args.steps is None else args.steps
        if not 1 <= steps <= 1000:
            raise ValidationError("steps", steps, "from 1 to 1000")
    except ValidationError as error:
        print(f"vramcalc: error: {error}", file=sys.stderr)
        return 2
    fewest = fewest_blocks_to_swap(run, card.usable_bytes) if card else None
    fixes = single_fixes(run, card.usable_bytes) if card and run.peak.total_bytes > card.usable_bytes else ()
    timed = speed_of(run, card, steps, machine) if card else None
    cost = cost_of(timed if isinstance(timed, DiffusionSpeed) else None, card, machine) if card else None
    if args.json:
        print(json.dumps(as_json(run, fewest, steps, timed, fixes, cost)))
        return 0
    print("\n".join(lines(run)))
    if card:
        print(f"fewest blocks to swap for {card.display_name} ({_gib(card.usable_bytes)} usable): "
              + ("none fits" if fewest is None else str(fewest)))
        if fixes:
            print("it fits with any one of: " + "; ".join(
                ", ".join(f"--{k.replace('_', '-')} {v}" for k, v in fix.items()) for fix in fixes))
        print("\n".join(speed_lines(timed, card.display_name, run.request.frames > 1)
                        if isinstance(timed, DiffusionSpeed) else ["", f"time: {ENGLISH.say(timed or '')}"]))
    if cost is not None:
        output = "clip" if run.request.frames > 1 else "image"
        print("cost: " + ", ".join(([f"US${cost.usd_per_hour:,.2f} per hour"] if cost.usd_per_hour else [])
                                    + ([f"US${cost.usd_per_output:,.4f} per {output}"] if cost.usd_per_output else []))
              + f" ({ENGLISH.say(cost.price)})")
    return 0


def _seconds(value: float | None) -> str:
    if value is None:
        return "not modelled"
    return f"{value:,.2f} s" if value < 120 else f"{value:,.0f} s ({value / 60:,.1f} min)"


def speed_lines(speed: DiffusionSpeed, card: str, video: bool) -> list[str]:
    """The run's time on the card, stage by stage, with its basis."""
    out = ["", f"time on {card} ({'validated' if speed.validated else 'unvalidated'}):",
           (f"  {speed.steps} steps x {_seconds(speed.step_s)} = {_seconds(speed.denoise_s)} "
            f"({speed.step_flops / 1e12:,.1f} TFLOP a step, guidance passes: {speed.passes})"),
           f"  text encoding {_seconds(speed.encode_s)}, VAE decode {_seconds(speed.decode_s)}",
           f"  total {_seconds(speed.total_s)}, {_seconds(speed.per_output_s)} per {'clip' if video else 'image'}"
           + (f" (weights moved over PCIe: {_seconds(speed.offload_s)} of it)" if speed.offload_s else "")]
    out += [f"  {ENGLISH.say(line)}" for line in speed.basis]
    return out


def training_main(args: argparse.Namespace) -> int:
    """`vramcalc diffusion --train-lora RANK`: one training step's bytes, part by part."""
    training = Training(rank=args.train_lora, targets=args.lora_targets, base=args.precision,
                        adapters=args.adapter_precision, optimizer=args.optimizer,
                        checkpointing=args.checkpointing == "on", cached=args.cache_latents == "on")
    try:
        chosen = chosen_pipeline(args)
        request = Request(width=_given(args.width, chosen.width), height=_given(args.height, chosen.height),
                          frames=_given(args.frames, chosen.frames), batch=args.batch, cfg=False, placement="gpu",
                          precision=args.precision, text_precision=args.text_precision,
                          vae_precision=args.vae_precision)
        result = train(chosen, request, training)
    except ValidationError as error:
        print(f"vramcalc: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(training_document(chosen, request, training, result, on_gpu=bool(args.gpu))))
        return 0
    rows = [("frozen denoiser", result.weight_bytes), ("VAE and text encoders", result.encoder_bytes),
            ("adapters", result.adapter_bytes), ("their gradients", result.gradient_bytes),
            ("optimizer state", result.optimizer_bytes), ("latents and text embeddings", result.input_bytes),
            ("saved activations", result.activation_bytes), ("backward transients", result.transient_bytes)]
    print(f"{chosen.display_name}: LoRA rank {training.rank} ({result.adapter_params:,} params, "
          f"{training.adapters}), base {request.precision}, {request.width} x {request.height}"
          + (f" x {request.frames} frames" if request.frames > 1 else "") + f", batch {request.batch}, checkpointing "
          f"{'on' if training.checkpointing else 'off'}, {training.optimizer}, latents and embeddings "
          f"{'cached' if training.cached else 'encoded in the step'}\n")
    print("\n".join(f"  {label:<30}{value / GIB:>10.2f} GiB" for label, value in rows))
    print(f"\npeak (in the backward): {result.total_bytes / GIB:.2f} GiB")
    if args.gpu:
        print(f"time: {ENGLISH.message('diffusion.speed.training')}")
    return 0


def training_document(chosen: Pipeline, request: Request, training: Training, result: Step, *,
                      on_gpu: bool = False) -> dict[str, object]:
    """`vramcalc diffusion --train-lora RANK --json`: the step is not timed, and with --gpu its words say so."""
    return {"pipeline": chosen.slug, "width": request.width, "height": request.height, "frames": request.frames,
            "batch": request.batch, "train_lora": training_json(result, training), **imported_json(chosen),
            "speed": None, "speed_basis": [ENGLISH.message("diffusion.speed.training")] if on_gpu else []}
