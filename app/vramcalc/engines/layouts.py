"""The layout a workload runs on over several GPUs: the one it names, or its engine's default."""

from __future__ import annotations

import dataclasses

from ..core.choices import Runtime
from ..core.errors import ValidationError
from ..parallel.layout import Layout, check, seq_multiple
from ..workload import Workload
from . import engine_for
from .vllm import check_vllm_draft


def degrees(workload: Workload, dp: int = 1) -> Layout:
    return Layout(tp=workload.tp or 1, pp=workload.pp or 1, dp=workload.dp or dp, ep=workload.ep or 1,
                  cp=workload.cp or 1, sp=workload.sp, vpp=workload.vpp, zero=workload.zero or 0, fsdp=workload.fsdp,
                  offload=workload.offload)


def seq_step(workload: Workload) -> int:
    """The training sequences the workload's layout runs are multiples of this (parallel.layout.seq_multiple);
    1 for inference and for the default layout (data parallel: any length)."""
    return seq_multiple(degrees(workload)) if workload.is_training and workload.layout_given else 1


def resolve_layout(workload: Workload, gpus: int) -> Layout:
    """The layout `gpus` GPUs run: the one the workload names (dp from gpus when not given; the
    product must be gpus), or the mode's default (llama.cpp splits layers across GPUs)."""
    if workload.optimizer_in_backward and gpus > 1:  # the step is modelled as torchtune's single-device recipes run it
        raise ValidationError("optimizer_in_backward", "1", "is modelled on one GPU (torchtune's single-device "
                                                             "recipes); with several GPUs leave it off")
    if workload.activation_offload and gpus > 1:
        raise ValidationError("activation_offload", "1", "is modelled on one GPU; with several GPUs leave it off")
    if workload.runtime is Runtime.TRANSFORMERS and workload.precision.value == "nvfp4" and gpus > 1:
        raise ValidationError("gpus", gpus, "transformers quantises to NVFP4 on one CUDA device only "
                                            "(quantizer_nvfp4.py: no tensor parallelism, no device_map over several "
                                            "GPUs): one GPU, or vLLM")
    if not workload.layout_given:  # sequence parallelism, asked alone, rides on the default's tensor parallel
        default = engine_for(workload.runtime).default_layout(workload.model, gpus, training=workload.is_training)
        layout = dataclasses.replace(default, sp=True) if workload.sp and default.tp > 1 else default
    else:
        layout = degrees(workload)
        if workload.dp is None:
            rest = layout.tp * layout.pp * layout.cp
            if gpus % rest:
                raise ValidationError("gpus", gpus, f"tp × pp × cp = {rest} does not divide the {gpus} GPUs")
            layout = degrees(workload, dp=gpus // rest)
        check(layout, workload.model, training=workload.is_training, gpus=gpus)
    if workload.runtime is Runtime.VLLM:
        check_vllm_draft(workload, layout)  # its draft model split over this layout
    return layout
