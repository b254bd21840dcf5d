"""`estimate`: a Workload in, a Breakdown out, assembled by the workload's engine (engines/)."""

from __future__ import annotations

from ..model.table import active_param_count, param_count
from ..core.choices import Runtime
from ..core.dtypes import Precision
from ..engines.llamacpp import llamacpp_breakdown
from ..engines.transformers import prefill_window, training_step
from ..engines.vllm import vllm_breakdown
from ..memory.activations import activations_bytes
from ..memory.components import Breakdown, overhead_bytes
from ..memory.kv_cache import kv_cache_bytes
from ..memory.logits import logits_bytes
from ..memory.states import gradients_bytes, master_weights_bytes, optimizer_state_bytes, weights_bytes
from ..model.families.decoder.saved import lora_measured
from ..model.families.decoder.traits import TRAINING_MEASURED_TYPES
from ..render.messages import message
from ..render.numbers import format_count
from ..training.lora import ALL_LINEAR
from ..workload import Workload


def notes(workload: Workload) -> tuple[str, ...]:
    model = workload.model
    notes = list(model.notes)
    if model.max_positions and workload.seq > model.max_positions:
        notes.append(message("note.seq_over_context", seq=workload.seq, context=model.max_positions))
    if model.is_moe:
        notes.append(message("note.moe", total=format_count(param_count(model)), active=format_count(active_param_count(model))))
    if model.mla is not None and not workload.is_training:
        notes.append(message("note.mla"))
    if workload.runtime is Runtime.LLAMACPP:
        notes.append(message("note.ollama"))
    if workload.runtime is Runtime.VLLM:
        notes.append(message("note.vllm_fit"))
    if workload.is_training and model.linear is not None:
        notes.append(message("note.linear_training"))
    if model.native_format:
        notes.append(message("note.native_format", format=model.native_format))
    if isinstance(workload.precision, Precision) and not workload.precision.is_float:
        notes.append(message("note.quantised", precision=workload.precision.value, bits=workload.precision.bits))
    return tuple(notes)


def estimate(workload: Workload) -> Breakdown:
    """All components of one workload, for the engine it runs on: training, the live bytes at the
    step's peak phase (step.py); inference, the engine's resident bytes at its peak."""
    runtime: dict[str, object] = {"name": workload.runtime.value}
    host = 0
    phases: dict[str, dict[str, int]] = {}
    peak = "inference"
    sizes: dict[str, int] = {}
    if workload.runtime is Runtime.VLLM:
        components, runtime = vllm_breakdown(workload)
    elif workload.runtime is Runtime.LLAMACPP:
        components, runtime, host = llamacpp_breakdown(workload)
    elif workload.is_training:
        components, sizes, phases, peak = training_step(workload)
    else:
        components = (
            weights_bytes(workload),
            gradients_bytes(workload),
            optimizer_state_bytes(workload),
            master_weights_bytes(workload),
            kv_cache_bytes(workload),
            activations_bytes(workload),
            logits_bytes(workload),
            prefill_window(workload),
            overhead_bytes(workload),
        )
    return Breakdown(
        workload=workload,
        params=param_count(workload.model),
        active_params=active_param_count(workload.model),
        components=components,
        notes=notes(workload),
        assumptions=assumptions(workload),
        runtime=runtime,
        host_bytes=host,
        sizes=sizes or {component.key: component.bytes for component in components},
        phases=phases,
        peak_phase=peak,
    )


def assumptions(workload: Workload) -> tuple[str, ...]:
    model = workload.model
    extra = ()
    if workload.is_training and model.model_type and model.model_type not in TRAINING_MEASURED_TYPES:
        extra = (message("assumption.training_unmeasured", model_type=model.model_type),)
    if workload.lora and not lora_measured(model):
        extra += (message("assumption.lora_activations"),)
    if workload.lora and model.moe is not None and workload.lora.targets == (ALL_LINEAR,):
        extra += (message("assumption.lora_moe_experts"),)
    return model.assumptions + extra
