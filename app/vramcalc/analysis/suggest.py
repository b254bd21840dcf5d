"""The single changes to a workload that make it fit (the page's suggestions)."""

from __future__ import annotations

import dataclasses

from ..core.choices import Attention, Checkpointing
from ..core.errors import ValidationError
from ..core.phrase import Phrase, phrase
from ..engines import engine_for
from ..engines.layouts import resolve_layout
from ..inputs.options import parse_precision
from ..inputs.parse import as_run, check_consistency
from ..workload import Target, Workload
from .solve import Solution, fits, largest_image, max_images, seq_now


def changes(workload: Workload, target: Target, solution: Solution) -> tuple[Phrase, ...]:
    """The single changes that fit, from the reverse answers: a smaller KV format, a shorter context or
    batch keep the model as it is, so they come first; then a smaller weight format; then more GPUs."""
    changes = []
    if workload.attention is Attention.EAGER:  # the s × s probabilities go: the first change to try where it runs
        try:
            candidate = workload.but(attention=Attention.FLASH)
            check_consistency(candidate)
            if fits(candidate, target):
                changes.append(phrase("change.attention"))
        except ValidationError:
            pass
    if solution.best_kv_format and solution.best_kv_format != workload.effective_kv_precision.value:
        changes.append(phrase("change.kv", format=solution.best_kv_format))
    if solution.max_seq and solution.max_seq < seq_now(workload):
        changes.append(phrase("change.seq", value=solution.max_seq))
    if solution.max_batch and solution.max_batch < workload.batch:
        changes.append(phrase("change.batch", value=solution.max_batch))
    if workload.images:  # fewer images, or smaller ones of the same aspect
        most = max_images(workload, target)
        if most and most < workload.images:
            changes.append(phrase("change.images", value=most))
        largest = largest_image(workload, target)
        if largest and largest[0] * largest[1] < workload.image_width * workload.image_height:
            changes.append(phrase("change.image_size", width=largest[0], height=largest[1]))
    changes += engine_for(workload.runtime).settings_that_fit(workload, lambda candidate: fits(candidate, target))
    if solution.best_format and solution.best_format != workload.precision.value and not workload.is_training:
        changes.append(phrase("change.format", format=solution.best_format))
    if workload.is_training:  # the fine-tuner's usual ways down: checkpointing, LoRA, QLoRA
        for key, change in (("change.checkpointing", {"checkpointing": Checkpointing.LAYER}),
                            ("change.lora", {"lora_rank": 16}),
                            ("change.qlora", {"lora_rank": 16, "precision": parse_precision("nf4")}),
                            ("change.qlora_checkpointing", {"lora_rank": 16, "precision": parse_precision("nf4"),
                                                            "checkpointing": Checkpointing.LAYER})):
            if key == "change.qlora_checkpointing" and changes:
                continue  # the combination only when no single change fits
            if all(getattr(workload, k) == v for k, v in change.items()):
                continue
            try:
                candidate = dataclasses.replace(workload, **change)
                if "precision" in change:  # QLoRA's nf4 as its framework loads it
                    candidate = candidate.but(precision=as_run(candidate, candidate.precision))
                check_consistency(candidate)
                if fits(candidate, target):
                    changes.append(phrase(key))
            except ValidationError:
                continue
    if solution.min_gpus and solution.min_gpus > target.count:
        layout = resolve_layout(workload, solution.min_gpus).describe()
        changes.append(phrase("change.gpus", count=solution.min_gpus, gpu=target.gpu.display_name, layout=layout))
    return tuple(changes)
