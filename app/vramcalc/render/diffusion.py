"""An image or video pipeline's run (diffusion/run.py) in words: its peak, each part's weights and each stage's
memory as the page's breakdown rows, and the GPUs of the fit table its peak fits on (one GPU: diffusers runs a
pipeline on one)."""

from __future__ import annotations

import dataclasses

from ..analysis.fit import GpuFit
from ..analysis.fit import Verdict as FitVerdict
from ..diffusion.pipelines import Pipeline
from ..diffusion.run import Request, Run, Settings, fewest_blocks_to_swap, single_fixes
from ..diffusion.speed import DiffusionSpeed, speed_of
from ..diffusion.training import Step, Training, single_changes
from ..sources.gpus import GpuSpec, table_gpus
from ..speed import Speed, cost_of
from ..workload import Machine
from .messages import ENGLISH, Words
from .view import GpuRow, Verdict, _gpu_row, verdict_if_it_fits


@dataclasses.dataclass(frozen=True, kw_only=True)
class DiffusionView:
    total_bytes: int  # the peak stage's
    total_gb: str
    total_gib: str
    summary: str
    params: str
    rows: tuple[tuple[str, str, str], ...]  # (what, size, how): each part's weights, then each stage
    gpus: tuple[GpuRow, ...]
    notes: tuple[str, ...]
    caption: str  # the breakdown table's
    verdict: Verdict | None = None  # on the form's card, when it names one


def pipeline_verdict(run: Run, gpu: GpuSpec, *, words: Words = ENGLISH) -> Verdict:
    """The answer first, as a language model's: the peak stage on one card (diffusers runs a pipeline on one);
    a stage not modelled makes the peak a lower bound, and a fit says so."""
    numbers, fitting = verdict_if_it_fits(run.peak.total_bytes, gpu, words.message("verdict.one", gpu=gpu.display_name),
                                          words=words, caveat="" if run.complete else words.message("verdict.at_least"))
    if fitting:
        return fitting
    swap = fewest_blocks_to_swap(run, gpu.usable_bytes)
    blocks = len(next(w.blocks for w in run.weights if w.part.is_denoiser))
    changes = tuple(fix_text(fix, words) for fix in single_fixes(run, gpu.usable_bytes))
    if swap is not None and swap > run.request.blocks_to_swap:
        changes += (words.message("diffusion.change.swap", blocks=swap, total=blocks),)
    return Verdict(kind=FitVerdict.DOES_NOT_FIT.value, text=words.message("verdict.pipeline_no", **numbers),
                   percent=100.0, changes=changes, short=words.message("verdict.no.short", **numbers))


def fix_text(fix: Settings, words: Words = ENGLISH) -> str:
    """One of `single_fixes` in words: a size as width × height, several settings together joined."""
    said = [words.message("diffusion.fix.size", width=fix["width"], height=fix["height"])] if "width" in fix else []
    said += [words.message(f"diffusion.fix.{key}", value=value) for key, value in fix.items()
             if key not in ("width", "height")]
    return said[0] if len(said) == 1 else words.message("diffusion.fix.together", fixes="; ".join(said))


def present_training(pipeline: Pipeline, request: Request, training: Training, step: Step, *,
                     gpu: GpuSpec | None = None, words: Words = ENGLISH) -> DiffusionView:
    """One LoRA training step of the denoiser (diffusion/training.py): its peak, in the backward, part by part."""
    parts = (("weights", step.weight_bytes), ("encoders", step.encoder_bytes), ("adapters", step.adapter_bytes),
             ("gradients", step.gradient_bytes), ("optimizer", step.optimizer_bytes), ("inputs", step.input_bytes),
             ("activations", step.activation_bytes), ("transients", step.transient_bytes))
    rows = tuple((words.message(f"diffusion.train.{key}"), words.binary(size), words.message(
        f"diffusion.train.{key}.how", params=words.count(step.adapter_params), precision=request.precision,
        adapters=training.adapters, optimizer=training.optimizer)) for key, size in parts if size)
    total = step.total_bytes
    frames = words.message("diffusion.frames", frames=request.frames) if request.frames > 1 else ""
    summary = words.message("diffusion.train.summary", pipeline=pipeline.display_name, rank=training.rank,
                            width=request.width, height=request.height, frames=frames, batch=request.batch,
                            checkpointing=words.message(f"diffusion.train.checkpointing.{training.checkpointing}"))
    verdict = None
    if gpu is not None:
        numbers, verdict = verdict_if_it_fits(total, gpu, words.message("verdict.one", gpu=gpu.display_name),
                                              words=words)
        if verdict is None:
            changes = tuple(words.message(f"diffusion.train.change.{key}", value=value, used=words.gib(need))
                            for key, value, need in single_changes(pipeline, request, training)
                            if need <= gpu.usable_bytes)
            verdict = Verdict(kind=FitVerdict.DOES_NOT_FIT.value, text=words.message("verdict.train_no", **numbers),
                              percent=100.0, changes=changes, short=words.message("verdict.no.short", **numbers))
    fits = (GpuFit(gpu=card, utilization=total / card.usable_bytes, count=1 if total <= card.usable_bytes else None)
            for card in table_gpus().values())
    return DiffusionView(
        total_bytes=total, total_gb=words.gb(total), total_gib=words.gib(total), summary=summary,
        params=words.message("diffusion.train.params", count=words.count(step.adapter_params)), rows=rows,
        caption=words.message("diffusion.train.caption"),
        gpus=tuple(_gpu_row(fit, words=words) for fit in fits),
        notes=(words.message("diffusion.train.note"), words.message("diffusion.tensors_only"),
               *((words.message("diffusion.speed.training"),) if gpu is not None else ())), verdict=verdict)


def speed_notes(run: Run, gpu: GpuSpec, words: Words) -> tuple[str, ...]:
    """The run's time on the card at the pipeline's steps (diffusion/speed.py), and its basis; or why not."""
    speed = speed_of(run, gpu, run.pipeline.steps)
    if not isinstance(speed, DiffusionSpeed):
        return (words.say(speed),)
    cost = cost_of(Speed(), gpu, 1, Machine())  # the card's cloud price (the price field is the language models')
    output = words.message(f"diffusion.speed.{'clip' if run.request.frames > 1 else 'image'}")
    priced = () if not cost.usd_per_hour else (words.message(
        "diffusion.cost.note", usd=f"{cost.usd_per_hour * speed.per_output_s / 3600:,.4f}", output=output,
        hour=f"{cost.usd_per_hour:,.2f}"),)

    def s(value: float) -> str:
        return words.message("speed.value.seconds", value=f"{value:,.3g}" if value < 100 else f"{value:,.0f}")

    return (words.message("diffusion.speed.note", gpu=gpu.display_name, steps=speed.steps, step=s(speed.step_s),
                          denoise=s(speed.denoise_s), total=s(speed.per_output_s), output=output,
                          with_=words.message(f"diffusion.speed.with.{speed.encode_s is not None}."
                                              f"{speed.decode_s is not None}"),
                          validated=words.message(f"diffusion.speed.validated.{speed.validated}")),
            *(words.say(line) for line in speed.basis), *priced, words.say(cost.price or ""))


def present_diffusion(run: Run, *, gpu: GpuSpec | None = None, words: Words = ENGLISH) -> DiffusionView:
    r, peak = run.request, run.peak
    rows = [(words.message("diffusion.weights", role=w.part.role, cls=w.part.class_name), words.binary(w.bytes),
             words.message("diffusion.weights.how_cpu" if w.device == "cpu" else "diffusion.weights.how",
                           params=words.count(w.part.params), precision=w.precision))
            for w in run.weights]
    for stage in run.stages:
        kind, _, role = stage.name.partition(":")
        tiled = kind == "decode" and r.vae_tiling and (r.width > r.vae_tiling or r.height > r.vae_tiling)
        on_cpu = kind == "encode" and r.text_encoders == "cpu"
        expert = kind == "denoise" and len(run.pipeline.denoisers) > 1  # Wan 2.2 A14B's two experts
        label = words.message("diffusion.stage.decode_tiled" if tiled else "diffusion.stage.encode_cpu" if on_cpu
                              else f"diffusion.stage.denoise_{'low' if role else 'high'}" if expert
                              else f"diffusion.stage.{kind}", role=role or stage.part, tile=r.vae_tiling)
        how = words.message("diffusion.stage.how" if stage.working_bytes is not None else "diffusion.stage.how_partial",
                            weights=words.binary(stage.weight_bytes), working=words.binary(stage.working_bytes or 0),
                            carried=words.binary(stage.carried_bytes))
        rows.append((words.message("diffusion.peak", stage=label) if stage is peak else label,
                     words.binary(stage.total_bytes), how))
    frames = words.message("diffusion.frames", frames=r.frames) if r.frames > 1 else ""
    summary = words.message("diffusion.summary", pipeline=run.pipeline.display_name, width=r.width, height=r.height,
                            frames=frames, batch=r.batch, cfg=words.message(f"diffusion.cfg.{r.cfg}"),
                            placement=words.message(f"option.placement.{r.placement}"))
    fits = (GpuFit(gpu=gpu, utilization=peak.total_bytes / gpu.usable_bytes,
                   count=1 if peak.total_bytes <= gpu.usable_bytes else None) for gpu in table_gpus().values())
    return DiffusionView(
        total_bytes=peak.total_bytes, total_gb=words.gb(peak.total_bytes), total_gib=words.gib(peak.total_bytes),
        summary=summary,
        params=words.message("results.params", count=words.count(sum(w.part.params for w in run.weights))),
        rows=tuple(rows), gpus=tuple(_gpu_row(fit, words=words) for fit in fits),
        caption=words.message("diffusion.caption"),
        notes=(() if run.complete else (words.message("diffusion.incomplete"),))
        + (words.message("diffusion.tensors_only"),) + (speed_notes(run, gpu, words) if gpu else ()),
        verdict=pipeline_verdict(run, gpu, words=words) if gpu is not None else None)
