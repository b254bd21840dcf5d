"""`estimate`: a Workload in, a Breakdown out, assembled by the workload's engine (engines/)."""

from __future__ import annotations

import dataclasses

from ..core.choices import GGUF_RUNTIMES, Checkpointing, Framework, Runtime
from ..core.dtypes import Precision
from ..core.phrase import Part, Phrase, phrase
from ..core.units import format_count, format_gb, format_gib
from ..engines import engine_for
from ..engines.cards import cards_of, fallback_rule
from ..engines.vllm import VLLM_NO_FP16
from ..formats.weights import native_format_phrase
from ..memory.activations import compiled, largest_layer_saved, old_bitsandbytes, saved_per_token
from ..memory.components import Breakdown
from ..memory.reserve import allocator_reserve
from ..memory.states import weights_bytes
from ..model.families.decoder.saved import lora_measured
from ..model.families.decoder.tensors import fp32_kept_params, reused_kv_params
from ..model.families.decoder.traits import TRAINING_MEASURED_TYPES
from ..model.table import active_param_count, param_count
from ..speed.triton_moe import mxfp4_experts
from ..training.lora import ALL_LINEAR
from ..workload import Workload


def breakdown_notes(workload: Workload) -> tuple[Part, ...]:
    model = workload.model
    notes: list[Part] = list(model.notes)
    if workload.image_tokens:
        notes.append(phrase("note.images", images=workload.images, width=workload.image_width,
                            height=workload.image_height, tokens=workload.image_tokens))
    if workload.video_tokens:
        notes.append(phrase("note.videos", videos=workload.videos, seconds=f"{workload.video_seconds:g}",
                            fps=f"{workload.video_fps:g}", width=workload.image_width, height=workload.image_height,
                            tokens=workload.video_tokens))
    if model.max_positions and workload.seq > model.max_positions and not workload.transcribes:
        notes.append(phrase("note.seq_over_context", seq=workload.seq, context=model.max_positions))
    if model.is_moe:
        notes.append(phrase("note.moe", total=format_count(param_count(model)),
                            active=format_count(active_param_count(model))))
    if model.mla is not None and not workload.is_training:
        notes.append(phrase("note.mla"))
    notes += (phrase(key) for key in engine_for(workload.runtime).notes(workload))
    if workload.is_training and workload.framework is not Framework.TRAINER:
        notes += framework_notes(workload)
    if old_bitsandbytes(workload) and workload.bnb_version is not None:
        extra = saved_per_token(workload) - saved_per_token(workload.but(bnb_version=None))
        if extra:
            notes.append(phrase("note.bnb_old", version=".".join(map(str, workload.bnb_version)), bytes=f"{extra:,}"))
    if compiled(workload):
        notes.append(phrase("note.compile_chunked" if workload.ce_output_chunks else "note.compile",
                            bytes=f"{largest_layer_saved(workload):,}",
                            eager=f"{largest_layer_saved(workload.but(compile=False)):,}"))
    if workload.is_training and model.linear is not None:
        notes.append(phrase("note.linear_training"))
    if model.native_format:
        as_published = workload.precision.value in ("native", "mxfp4_moe")
        notes.append(phrase("note.native_format_used" if as_published else "note.native_format",
                            format=native_format_phrase(model.native_format)))
    fallback = fallback_rule(workload)
    if fallback is None and mxfp4_needs_kernels(workload):
        notes.append(phrase("note.mxfp4_kernels", kept=format_gb(weights_bytes(workload).bytes),
                            bf16=format_gb(weights_bytes(workload.but(precision=Precision.BF16)).bytes)))
    if fallback is not None:
        card = next((gpu for gpu in cards_of(workload) if not fallback.runs(gpu)), workload.gpu)
        notes.append(phrase(fallback.note, gpu=card.display_name if card else "", format=fallback.family.upper(),
                            capability=card.compute_capability if card and card.compute_capability else "MPS"))
    if isinstance(workload.precision, Precision) and not workload.precision.is_float:
        notes.append(phrase("note.quantised", precision=workload.precision.value, bits=workload.precision.bits))
    if workload.gpu is not None and not workload.gpu.bf16 and uses_bf16(workload):
        fp32 = workload.runtime is Runtime.VLLM and model.model_type in VLLM_NO_FP16 and (
            workload.precision is Precision.BF16)  # vLLM loads these in float32 there: not as shown
        notes.append(phrase("note.no_bf16_fp32" if fp32 else "note.no_bf16", gpu=workload.gpu.display_name,
                            model_type=model.model_type))
    return tuple(notes)


def mxfp4_needs_kernels(workload: Workload) -> bool:
    """transformers inference keeping MXFP4 weights, which it does only with the `kernels` package and Triton
    installed (quantizers/quantizer_mxfp4.py validate_environment: otherwise `dequantize = True`, bf16)."""
    return workload.runtime is Runtime.TRANSFORMERS and not workload.is_training and mxfp4_experts(workload)


def uses_bf16(workload: Workload) -> bool:
    """Whether any tensor the answer counts is in bfloat16 (weights, cache, activations, adapters)."""
    used = {workload.precision, workload.effective_kv_precision, workload.activation_precision}
    return Precision.BF16 in used or (workload.lora is not None and workload.lora_dtype is Precision.BF16)


def framework_notes(workload: Workload) -> tuple[Phrase, ...]:
    """What the framework's defaults set (training/frameworks.py), and what of its mechanics is or is not modelled."""
    name = workload.framework.value
    values = {"checkpointing": workload.checkpointing.value, "recipe": workload.recipe.value,
              "precision": workload.precision.value, "lora_dtype": workload.lora_dtype.value,
              "lora_targets": ",".join(workload.lora_targets), "lora_dropout": f"{workload.lora_dropout:g}",
              "ce_output_chunks": str(workload.ce_output_chunks)}  # the rest are flags: on, 1
    settings = ", ".join(f"{key} = {values.get(key, '1')}" for key in workload.framework_set)
    notes = [phrase("note.framework.set", framework=name, settings=settings) if settings
             else phrase("note.framework.unchanged", framework=name)]
    if workload.framework is Framework.TORCHTUNE or (workload.framework is Framework.UNSLOTH
                                                    and workload.checkpointing is Checkpointing.LAYER):
        notes.append(phrase(f"note.framework.{name}"))  # Unsloth's offloading is its per-layer checkpointing's
    return tuple(notes)


def estimate(workload: Workload) -> Breakdown:
    """All components of one workload, as the engine it runs on holds them: training, the live bytes at
    the step's peak phase (training/step.py); inference, the engine's resident bytes at its peak."""
    engine = engine_for(workload.runtime)
    held = engine.breakdown(workload)
    reserve = allocator_reserve(workload, {component.key: component.bytes for component in held.components})
    breakdown = Breakdown(
        workload=workload,
        params=param_count(workload.model),
        active_params=active_param_count(workload.model),
        components=held.components,
        notes=breakdown_notes(workload),
        reserve=reserve,
        assumptions=assumptions(workload),
        facts=held.facts,
        host_bytes=held.host_bytes,
        sizes=held.sizes or {component.key: component.bytes for component in held.components},
        phases=held.phases,
        peak_phase=held.peak_phase,
    )
    reserved = breakdown.reserved_bytes
    if reserved is None or reserve is None:
        return breakdown
    said = phrase("note.counter_reserved", reserved=format_gib(reserved), low=format_gib(reserve[0]),
                  high=format_gib(reserve[2]), smi=format_gib(reserved + breakdown.bytes_of("overhead")))
    # the counters' note, with the reserve's number
    return dataclasses.replace(breakdown, notes=tuple(said if note == phrase("note.counter") else note
                                                      for note in breakdown.notes))


# Model types llama.cpp has no architecture for (its source at 0c1e57098bba): no GGUF of them runs
LLAMACPP_UNREAD = frozenset({"longcat_flash"})


def pipelined(workload: Workload) -> bool:
    """llama.cpp turns on pipeline parallelism (src/llama-context.cpp:430-435): several GPUs, every layer and the
    output on them (-ngl above n_layer), the layer split, the cache on the GPUs, no tensor overrides; its
    scheduler's copies then hold compute buffers 1.25-2.3x those modelled (tests/test_llamacpp_split.py)."""
    every_layer = workload.gpu_layers is None or workload.gpu_layers > workload.model.layers
    return (workload.runtime in GGUF_RUNTIMES and workload.devices > 1 and every_layer and not workload.embeds
            and not workload.override_tensor and not workload.n_cpu_moe and not workload.cpu_moe)


def assumptions(workload: Workload) -> tuple[Part, ...]:
    model = workload.model
    extra: tuple[Phrase, ...] = ()
    if workload.is_training and model.model_type and model.model_type not in TRAINING_MEASURED_TYPES:
        extra = (phrase("assumption.training_unmeasured", model_type=model.model_type),)
    elif model.mamba is not None or model.short_conv is not None or (model.linear is not None and model.linear.kda):
        extra = (phrase("assumption.mamba_activations"),)
    elif model.compressed is not None:
        extra = (phrase("assumption.dsv4_activations"),)
    elif model.altup_inputs:
        extra = (phrase("assumption.altup_activations"),)
    if model.model_type in LLAMACPP_UNREAD and workload.runtime in GGUF_RUNTIMES:
        extra += (phrase("assumption.llamacpp_unsupported", model_type=model.model_type),)
    if pipelined(workload):
        extra += (phrase("assumption.llamacpp_pipeline"),)
    if model.reusing_layers and not model.drafter_backbone and workload.runtime is not Runtime.TRANSFORMERS:
        # vLLM's qkv_proj, llama.cpp's create_tensor_qkv on every layer: the K/V weights transformers does not build
        # for Gemma 3n/4's shared layers (a drafter's checkpoint has none: llama_model_gemma4_assistant loads q, o)
        extra += (phrase("assumption.kv_shared_weights", count=model.reusing_layers,
                         params=format_count(reused_kv_params(model))),)
    if model.drafter_backbone:  # it decodes only beside its target (and transformers 5.23 cannot build it)
        extra += (phrase("assumption.drafter_alone"),)
    if model.compressed is not None and workload.runtime is Runtime.VLLM:
        extra += (phrase("assumption.dsv4_vllm"),)
    if model.hyper:  # Hy4
        extra += (phrase("assumption.hy4", streams=model.hyper, params=format_count(fp32_kept_params(model))),)
        if workload.runtime is Runtime.VLLM:
            extra += (phrase("assumption.hy4_vllm"),)
    if workload.lora and not lora_measured(model):
        extra += (phrase("assumption.lora_activations"),)
    if workload.compile and workload.is_training and not compiled(workload):
        extra += (phrase("assumption.compile"),)
    if workload.lora and model.moe is not None and ALL_LINEAR in workload.lora.targets:
        extra += (phrase("assumption.lora_moe_experts"),)
    return model.assumptions + extra
