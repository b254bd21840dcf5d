"""Hugging Face transformers: `generate()` (prefill window) and the Trainer's step, phase by phase."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ..core.choices import (
    GENERATING,
    Attention,
    Checkpointing,
    Framework,
    Objective,
    Recipe,
    Reference,
    Rollout,
    Runtime,
)
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.phrase import Phrase, phrase
from ..core.units import format_binary
from ..formats.weights import BNB_FORMATS, WeightFormat, gpt_oss_mxfp4
from ..memory.activations import (
    activations_bytes,
    checkpointed_masks,
    embedding_components,
    frozen_first_layer_input,
    lora_compute_bytes,
    offloaded_activations,
    training_activations,
    with_vision,
)
from ..memory.components import Component, no_component, overhead_bytes
from ..memory.kv_cache import kv_cache_bytes
from ..memory.logits import chunked_output_loss, logits_bytes
from ..memory.speech import transformers_components as speech_components
from ..memory.states import (
    adapter_bytes,
    gradients_bytes,
    master_weights_bytes,
    optimizer_state_bytes,
    recipe_states,
    trainable,
    training_weight_extras,
    weights_bytes,
)
from ..model.families.decoder.saved import (
    LoraBackward,
    backward_transient,
    batch_shared_bytes,
    full_layer_backward,
    full_recompute_beside,
    layer_input_bytes_per_token,
    lora_backward,
    lora_measured,
)
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.table import counted_tensors, param_count
from ..model.tensor import Counted, Tensor, layer_of, stem
from ..parallel.layout import Layout, default_layout
from ..training import grpo, ppo, preference
from ..training import step as step_module
from ..training.lora import HEAD, QLORA_FORMATS, layer_matrices
from ..training.offload import Offloaded
from ..training.step import LOSS_GRADIENT_BYTES, StepSizes, implementation, phases, update_temporaries
from ..workload import Workload
from .base import (
    EngineBreakdown,
    NoPool,
    check_kv_formats,
    hf_reference,
    pytorch_overhead,
    refuse_gguf,
    run_as_published,
)
from .cards import CardRule, capability_at_least, not_a_mac


def training_step(workload: Workload) -> tuple[tuple[Component, ...], dict[str, int], dict[str, dict[str, int]], str,
                                               int]:
    """The components live at the worst phase of a steady-state step, each phase's bytes, its name, and the host
    bytes offloaded activations take."""
    model = workload.model
    e = int(workload.activation_precision.bits) // 8
    # TRL's fused head scores them
    fused_head = workload.objective in (Objective.DPO, Objective.KTO) or workload.objective in GENERATING
    is_grpo, is_orpo = workload.objective in GENERATING, workload.objective is Objective.ORPO  # GRPO's step, RLOO's
    # DPO, ORPO: chosen and rejected
    run = workload.but(batch=preference.sequences(workload)) if workload.objective is not Objective.SFT else workload
    tokens = run.batch * workload.seq
    weights = weights_bytes(workload)
    extras = training_weight_extras(workload)[0]
    copies = extras if workload.recipe is Recipe.AMP and not workload.lora else 0
    if workload.reference_model is Reference.COPY:
        weights = _with_reference(weights, weights.bytes - extras)
    gradients = gradients_bytes(workload)
    optimizer = optimizer_state_bytes(workload)
    master = master_weights_bytes(workload)
    activations, activations_forward = training_activations(run)
    moved = offloaded_activations(run)
    tensors, _, gradient_bytes = trainable(workload)
    state_bytes = adapter_bytes(workload) if workload.lora else recipe_states(workload).state
    impl = implementation(workload.optimizer, workload.optimizer_impl)
    update = update_temporaries(workload.optimizer, impl, tensors, state_bytes, gradient_bytes)
    is_ppo, value_activations, ppo_sizes = workload.objective is Objective.PPO, 0, {}
    if is_ppo:  # the value model trains beside the policy, whole, and the reward model is frozen (training/ppo.py)
        value = workload.but(model=ppo.classifier(model), lora_rank=0)
        value_weights = weights_bytes(value).bytes
        weights = _plus(weights, 2 * value_weights, "weights.ppo")
        gradients, optimizer, master = (_plus(c, v, "ppo.value") for c, v in (
            (gradients, gradients_bytes(value).bytes), (optimizer, optimizer_state_bytes(value).bytes),
            (master, master_weights_bytes(value).bytes)))
        value_tensors, _, value_gradient = trainable(value)
        value_state = recipe_states(value).state
        update = (update_temporaries(workload.optimizer, impl, (*tensors, *value_tensors), state_bytes, gradient_bytes)
                  if (value_gradient, value_state) == (gradient_bytes, state_bytes)  # one foreach over both
                  else update + update_temporaries(workload.optimizer, impl, value_tensors, value_state,
                                                   value_gradient))
        value_activations = training_activations(value.but(model=model))[0].bytes
        e_out, accumulating = ppo.output(workload, e), workload.grad_accum > 1
        entropy = ppo.responses(workload, e) if accumulating else 0  # the previous micro-batch's softmax
        activations = _plus(activations, value_activations, "ppo.value")
        activations_forward += value_activations
        # the policy's backward ends with the value's activations live, before the value's gradients are made
        ppo_sizes = {"held": ppo.held(workload), "logits_in_update": e_out + entropy, "logits_held": e_out + entropy,
                     "activations_recomputed": value_activations,
                     "gradients_before_first_layer": gradients.bytes - gradients_bytes(value).bytes}
    dequantised = _dequantised_bytes(workload, e)
    transient = backward_transient(model, workload.attention, tokens, workload.seq, e) + dequantised
    lora_terms = _lora_backward(run, moved)
    kept_beside = batch_shared_bytes(model, e, workload.seq) + checkpointed_masks(run)  # rotary tables, masks
    end_transient: int | None = None
    recompute_beside = 0  # LoRA, checkpointing: the first layer's input and the rotary tables beside its recompute
    if lora_terms is not None:
        recompute_beside = (tokens * (lora_terms.first_input - lora_terms.recompute_overlap)
                            + (kept_beside if lora_terms.first_input else 0))
        transient = backward_transient(model, workload.attention, tokens, workload.seq, e, mlp=lora_terms.mlp,
                                       mlp_gradients=lora_terms.down_gradients) + dequantised
    layer_freed = 0  # full fine-tuning, per-layer checkpointing: what a layer's backward has freed at its worst
    if _full_recompute_counted(run, moved):  # (decoder/saved.py full_recompute_beside, full_layer_backward)
        freed, transient = full_layer_backward(model, workload.attention, tokens, workload.seq, e, gradient_bytes)
        layer_freed = tokens * freed
        recompute_beside = tokens * full_recompute_beside(model, e) + kept_beside - layer_freed
        end_transient = tokens * e * model.hidden  # the embedding's backward: the hidden states' gradient
    head_trains = not workload.lora or workload.lora.embeddings
    in_loss: int | None = None  # the logits live at the loss backward's worst, when not the forward's (None)
    chunk_upcast = 0
    if is_ppo:
        logits = _ppo_logits(workload, e)
        loss_gradient = ppo.loss_gradient(workload, e)
        ppo_sizes["logits"] = logits.bytes - ppo.held(workload)
    elif fused_head:
        logits = _dpo_logits(workload)
        loss_gradient = preference.head_backward(workload, e, head_trains)
    elif is_orpo:
        logits = _orpo_logits(workload, e)
        loss_gradient = 3 * preference.orpo_logits(workload, e)
    else:
        logits = logits_bytes(workload)
        loss_gradient = 0 if workload.fused_ce else tokens * model.vocab * LOSS_GRADIENT_BYTES
        if workload.ce_output_chunks:
            _, in_loss, loss_gradient = chunked_output_loss(workload)
            # eager: the last chunk's fp32 copy (none in fp32, where .float() returns the logits themselves)
            chunk_upcast = 0 if workload.compile or e == 4 else loss_gradient // 2
    dpo_reference = (grpo.scores_without_gradients(workload) if is_grpo
                     else fused_head and workload.reference_model is not Reference.PRECOMPUTED)
    share = grpo.colocated_share(workload) if workload.rollout in grpo.VLLM_ROLLOUTS else 0
    generation = ppo.generation(workload) if is_ppo else None
    if is_grpo:
        generation = (share, 0) if workload.rollout is not Rollout.TRANSFORMERS else grpo.generate_sizes(workload)
    fields = dict(
        weights=weights.bytes - copies, weight_copies=copies, master=master.bytes, optimizer=optimizer.bytes,
        gradients=gradients.bytes, head_gradient=_head_gradient_bytes(workload, tensors, gradient_bytes),
        **(_offloaded_sizes(workload, moved) or {
            "activations_forward": activations_forward, "activations_backward": activations.bytes,
            "activations_recomputed": (activations.bytes - activations_forward + recompute_beside
                                       if workload.checkpointing is not Checkpointing.NONE else 0)}),
        gradients_before_first_layer=gradients.bytes - _last_gradient_bytes(workload, tensors, gradient_bytes),
        logits=logits.bytes,
        logits_held=0 if workload.fused_ce or workload.ce_output_chunks or fused_head or is_orpo
        else tokens * model.vocab * e,
        loss_gradient=loss_gradient, logits_in_loss=0 if is_orpo else in_loss,
        layer_transient=transient, end_transient=end_transient, update_temporaries=update,
        accumulating=workload.grad_accum > 1,
        forward_transient=(preference.forward_work(workload, e) if fused_head
                           else preference.orpo_forward(workload, e) if is_orpo else chunk_upcast),
        reference_transient=(ppo.rollout_forward(workload, e) if is_ppo else preference.reference_forward(
            workload, e) if dpo_reference else None),
        reference_alone=is_grpo or is_ppo, generation=generation,
        kl_transient=preference.reference_forward(workload, e) if workload.objective is Objective.KTO else None,
        resident=share if workload.rollout is Rollout.VLLM_COLOCATE else 0,
        in_backward=workload.optimizer_in_backward, **_updates_in_backward(workload, tensors, state_bytes,
                                                                           gradient_bytes),
        **({"layer_released": layer_freed} if layer_freed else {}),
        **({} if lora_terms is None else {
            "norm_backward": tokens * lora_terms.norm, "head_released": tokens * lora_terms.head_released,
            "layer_released": tokens * (lora_terms.layer_released + lora_terms.recompute_overlap),
            "hidden_gradient": tokens * lora_terms.hidden_gradient,
            "recompute_forward": (tokens * lora_terms.recompute_forward + dequantised
                                  if lora_terms.recompute_forward else 0),
            # TRL's trainers' forward phase is the forward's worst; a supervised step's is its end, whose loss phase
            # outweighs the layer's moment (measured below the cross-entropy's, tools/measure_peak.py, docs/accuracy.md)
            **({"layer_forward": tokens * lora_terms.layer_forward + dequantised,
                "layer_forward_kept": tokens * model.layers * layer_input_bytes_per_token(model, e) + kept_beside}
               if lora_terms.layer_forward and workload.objective is not Objective.SFT else {})}))
    sizes = StepSizes(**{**fields, **ppo_sizes})  # type: ignore[arg-type]
    by_phase = phases(sizes)
    peak = step_module.peak(by_phase)
    live = by_phase[peak]
    def backward_temporaries() -> Phrase:
        if live["temporaries"] == sizes.norm_backward != transient + sizes.hidden_gradient:  # LoRA: the final norm's
            return phrase("temporaries.norm_backward", bytes=format_binary(live["temporaries"]))
        if live["temporaries"] == sizes.recompute_forward != transient + sizes.hidden_gradient:  # LoRA, checkpointed
            return phrase("temporaries.recompute_forward", bytes=format_binary(live["temporaries"]))
        if live["temporaries"] != transient + sizes.hidden_gradient:  # the optimizer's update of one tensor
            return phrase("temporaries.in_backward", optimizer=workload.optimizer.value,
                          bytes=format_binary(live["temporaries"]))
        return phrase("temporaries.backward", bytes=format_binary(transient), dequantised=phrase(
            "temporaries.dequantised", bytes=format_binary(dequantised)) if dequantised else "", hidden=phrase(
            "temporaries.hidden_gradient", bytes=format_binary(sizes.hidden_gradient)) if sizes.hidden_gradient else "")

    temporaries = {
        "generation": lambda: phrase("temporaries.ppo_generate" if is_ppo else "temporaries.generate",
                                     chunk=ppo.chunk(workload), bytes=format_binary(live["temporaries"])),
        "kl": lambda: phrase("temporaries.kl", bytes=format_binary(live["temporaries"])),
        "forward": lambda: phrase("temporaries.layer_forward", bytes=format_binary(live["temporaries"]))
        if sizes.layer_forward and live["activations"] == sizes.layer_forward_kept != sizes.activations_forward
        else phrase("temporaries.dpo_head", bytes=format_binary(live["temporaries"]))
        if fused_head else phrase("temporaries.orpo_copy", bytes=format_binary(live["temporaries"])) if is_orpo
        else phrase("temporaries.chunk_upcast", bytes=format_binary(chunk_upcast)) if chunk_upcast
        else phrase("temporaries.none"),
        "reference": lambda: phrase("temporaries.ppo_reference" if is_ppo else "temporaries.reference",
                                    chunk=ppo.chunk(workload), bytes=format_binary(live["temporaries"])),
        "loss": lambda: phrase("temporaries.ppo_backward", bytes=format_binary(loss_gradient)) if is_ppo
        else phrase("temporaries.dpo_backward", bytes=format_binary(loss_gradient)) if fused_head
        else phrase("temporaries.orpo_backward", bytes=format_binary(loss_gradient)) if is_orpo
        else phrase("temporaries.loss_chunk", chunks=min(workload.ce_output_chunks, workload.seq),
                    bytes=format_binary(loss_gradient))
        if workload.ce_output_chunks
        else phrase("temporaries.loss", tokens=f"{tokens:,}", vocab=f"{model.vocab:,}",
                    bytes=format_binary(loss_gradient)),
        "backward_start": lambda: backward_temporaries(),
        "backward_end": lambda: backward_temporaries(),
        "optimizer": lambda: phrase(f"temporaries.optimizer.{impl.value}", optimizer=workload.optimizer.value,
                                     bytes=format_binary(update)),
    }[peak]
    if moved is not None:
        activations = _with_offload(workload, activations, moved)
    whole = {c.key: c for c in (weights, gradients, optimizer, master, activations, logits)}
    phase_name = phrase(f"phase.{peak}")

    def at_peak(component: Component) -> Component:
        bytes_live = live[component.key]
        if bytes_live == component.bytes:
            return component
        return Component(key=component.key, bytes=bytes_live, explain=lambda: (*component.formula, phrase(
            "phase.live", phase=phase_name, bytes=format_binary(bytes_live))))

    components = (
        *(at_peak(whole[key]) for key in ("weights", "gradients", "optimizer", "master_weights")),
        _grpo_cache(workload, live.get("kv_cache", 0), peak) if is_grpo or is_ppo else kv_cache_bytes(workload),
        at_peak(whole["activations"]),
        at_peak(whole["logits"]),
        Component(key="temporaries", bytes=live["temporaries"], explain=temporaries),
        overhead_bytes(workload),
    )
    sizes_by_key = {key: c.bytes for key, c in whole.items()} | {
        "kv_cache": max(phase.get("kv_cache", 0) for phase in by_phase.values()),
        "temporaries": max(phase["temporaries"] for phase in by_phase.values()),
        "overhead": workload.held_bytes}
    return components, sizes_by_key, by_phase, peak, moved.host if moved else 0


def _lora_backward(workload: Workload, moved: Offloaded | None) -> LoraBackward | None:
    """LoRA's terms in the layers' backward (decoder/saved.py LoraBackward), where the layers' saved bytes are
    LoRA's (saved.lora_measured), in eager PyTorch: not under torch.compile, Unsloth's kernels or activation
    offloading (unmeasured there), nor when nothing before the head's adapter needs a gradient (LoRA on the head
    alone without checkpointing), nor with the embeddings and head trained in full (full fine-tuning's terms)."""
    lora, model = workload.lora, workload.model
    if (lora is None or lora.embeddings or not lora_measured(model) or workload.compile or moved is not None
            or workload.framework is Framework.UNSLOTH
            or (tuple(lora.targets) == (HEAD,) and frozen_first_layer_input(workload))):
        return None
    return lora_backward(model, int(workload.activation_precision.bits) // 8, layer_matrices(model, lora), lora.rank,
                         workload.lora_dropout, lora_compute_bytes(workload), head=HEAD in lora.targets,
                         checkpointed=workload.checkpointing is not Checkpointing.NONE)


def _full_recompute_counted(workload: Workload, moved: Offloaded | None) -> bool:
    """Full fine-tuning of Llama-style blocks with per-layer checkpointing in eager PyTorch: where the first layer's
    recompute is measured (decoder/saved.py full_recompute_beside); not under torch.compile, Unsloth's kernels or
    activation offloading, nor the sqrt plan's segments (unmeasured there)."""
    return (workload.lora is None and workload.checkpointing is Checkpointing.LAYER and lora_measured(workload.model)
            and not workload.compile and moved is None and workload.framework is not Framework.UNSLOTH
            and workload.objective is Objective.SFT)


def _offloaded_sizes(workload: Workload, moved: Offloaded | None) -> dict[str, int]:
    """The activations' fields of StepSizes under activation offloading (training/offload.py)."""
    if moved is None:
        return {}
    recompute = workload.checkpointing is not Checkpointing.NONE
    return {"activations_forward": moved.forward + moved.buffers,
            "activations_backward": moved.backward + moved.buffers,
            "activations_recomputed": moved.backward + moved.buffers if recompute else 0,
            "activations_in_flight": moved.buffers + (0 if recompute else moved.backward),
            "activation_buffers": moved.buffers}


def _with_offload(workload: Workload, activations: Component, moved: Offloaded) -> Component:
    """The activations' explanation says what offloading left on the GPU and moved to host memory."""
    how = "unsloth" if workload.framework is Framework.UNSLOTH else "hooks"
    return Component(key="activations", bytes=activations.bytes, explain=lambda: (
        *activations.formula, phrase(f"activations.offload.{how}", forward=format_binary(moved.forward),
                                     backward=format_binary(moved.backward), buffers=format_binary(moved.buffers),
                                     host=format_binary(moved.host))))


def _plus(component: Component, size: int, key: str) -> Component:
    """PPO: a component with the value (and reward) model's share, said after the policy's."""
    return Component(key=component.key, bytes=component.bytes + size, explain=lambda: (
        *component.formula, phrase(key, bytes=format_binary(size))))


def _ppo_logits(workload: Workload, e: int) -> Component:
    """PPO's micro-batch: the policy's logits and hidden states, the saved log-softmax rows; under accumulation the
    previous micro-batch's output and softmax."""
    size = (1 + (workload.grad_accum > 1)) * (ppo.output(workload, e) + ppo.responses(workload, e))
    return Component(key="logits", bytes=size + ppo.held(workload), explain=lambda: phrase(
        "logits.ppo", batch=workload.batch, seq=f"{workload.seq:,}", vocab=f"{workload.model.vocab:,}",
        bytes=format_binary(size), scores=format_binary(ppo.held(workload))))


def _with_reference(weights: Component, size: int) -> Component:
    """DPO's reference copy: the policy's weights again, frozen, in their dtype (TRL loads it with the policy's)."""
    return Component(key="weights", bytes=weights.bytes + size, explain=lambda: (
        *weights.formula, phrase("weights.reference", bytes=format_binary(size))))


def _grpo_cache(workload: Workload, size: int, peak: str) -> Component:
    """GRPO's generation at the peak: transformers' cache for the generation batch, or colocated vLLM's share."""
    if workload.rollout in grpo.VLLM_ROLLOUTS and size:
        return Component(key="kv_cache", bytes=size, explain=lambda: phrase(
            "kv_cache.vllm_colocate", utilization=f"{workload.vllm_gpu_memory_utilization:g}",
            bytes=format_binary(size)))
    if peak != "generation":
        return Component(key="kv_cache", bytes=0, explain=lambda: phrase("kv_cache.none"))
    sequences = ppo.chunk(workload) if workload.objective is Objective.PPO else grpo.generation_sequences(workload)
    return Component(key="kv_cache", bytes=size, explain=lambda: phrase(
        "kv_cache.generate", sequences=f"{sequences:,}", bytes=format_binary(size)))


def _orpo_logits(workload: Workload, e: int) -> Component:
    """ORPO's logits, whole, with what its losses keep: the cross-entropy's log-softmax, the kernel's statistics."""
    size = preference.orpo_saved(workload, e)
    return Component(key="logits", bytes=size, explain=lambda: phrase(
        "logits.orpo", sequences=f"{preference.sequences(workload):,}", seq=f"{workload.seq:,}",
        vocab=f"{workload.model.vocab:,}", logits=format_binary(preference.orpo_logits(workload, e)),
        chosen=format_binary(preference.orpo_chosen(workload, e)), bytes=format_binary(size)))


def _dpo_logits(workload: Workload) -> Component:
    """What TRL's fused head keeps for its backward beyond the final hidden states: fp32 log_z and entropy."""
    size = preference.scored_tokens(workload) * preference.STATS_BYTES
    return Component(key="logits", bytes=size, explain=lambda: phrase(
        "logits.dpo", tokens=f"{preference.scored_tokens(workload):,}", bytes=format_binary(size)))


def _dequantised_bytes(workload: Workload, e: int) -> int:
    """QLoRA: bitsandbytes dequantises each 4-bit matrix to the compute dtype for its matmul, forward
    and backward, and frees it after: one matrix at a time, the largest (out × in × e)."""
    if not isinstance(workload.precision, WeightFormat) or workload.precision.name not in QLORA_FORMATS:
        return 0
    roles = ("mlp", "shared_expert") if workload.precision.mlp_only else ("attention", "mlp", "shared_expert")
    return max((t.numel for t, _ in counted_tensors(workload.model) if len(t.shape) == 2 and t.role in roles),
               default=0) * e


def _last_gradient_bytes(workload: Workload, trainable: Counted, gradient_bytes: int) -> int:
    """The gradients the backward writes last: the first layer's (one of its group), and an untied embedding's."""
    tied = workload.model.tie_embeddings
    return gradient_bytes * sum(t.numel for t, _ in trainable
                                if layer_of(t.name) == 0 or (t.role == "embedding" and not tied))


def _updates_in_backward(workload: Workload, trainable: Counted, state_bytes: int,
                         gradient_bytes: int) -> dict[str, int]:
    """optimizer_in_backward: one optimizer per tensor (torchtune), so an update's temporaries are one tensor's:
    the head's, made first, and the largest's."""
    if not workload.optimizer_in_backward or not trainable:
        return {}
    impl = implementation(workload.optimizer, workload.optimizer_impl)

    def update(tensor: Tensor | None) -> int:
        return 0 if tensor is None else update_temporaries(workload.optimizer, impl, ((tensor, 1),), state_bytes,
                                                            gradient_bytes)
    largest = max(trainable, key=lambda item: item[0].numel)[0]
    return {"head_update": update(_head_tensor(workload, trainable)),
            "largest_gradient": largest.numel * gradient_bytes, "largest_update": update(largest)}


def _head_tensor(workload: Workload, trainable: Counted) -> Tensor | None:
    """The first weight the backward makes a gradient for: the head (a tied head is the embedding), if it trains."""
    heads = [t for t, _ in trainable if t.role == "head"] or [t for t, _ in trainable if t.role == "embedding"]
    return heads[0] if heads and (not workload.lora or workload.lora.embeddings) else None


def _head_gradient_bytes(workload: Workload, trainable: Counted, gradient_bytes: int) -> int:
    """The first weight gradient the backward makes: the head's (a tied head's is the embedding's); under LoRA on the
    head its adapter's A and B (measured at the layers' start, tools/measure_peak.py)."""
    if workload.lora and not workload.lora.embeddings:
        return gradient_bytes * sum(t.numel * count for t, count in trainable
                                    if t.role == "adapter" and stem(t.name) == "output")
    head = _head_tensor(workload, trainable)
    return 0 if head is None else head.numel * gradient_bytes


def prefill_window(workload: Workload) -> Component:
    window = prefill_window_bytes(workload)
    if not window:
        return no_component("temporaries", "temporaries.inference")
    return Component(key="temporaries", bytes=window, explain=lambda: phrase("temporaries.prefill_window",
                                                                                  bytes=format_binary(window)))


# transformers 5.23's quantizers (quantizers/quantizer_*.py validate_environment): FP8 weights dequantised to bf16
# before compute capability 8.9 and off CUDA/XPU (a Mac's MPS); MXFP4 likewise before 7.5 and on MPS (and where
# triton or the `kernels` package is missing, which this answer assumes present); NVFP4 quantised on Blackwell
# only (a published NVFP4 checkpoint it refuses on any card: "not supported yet"), and not on AMD's, whose gfx1100
# and gfx1201 pass the major >= 10 check as (11, 0) and (12, 0) but have no such tensor cores. Off CUDA/XPU only
# a checkpoint published in FP8 or MXFP4 is dequantised: quantising a 16-bit one as it loads stops there.
TRANSFORMERS_CARD_RULES = (
    CardRule("precision", "fp8", not_a_mac, "CUDA and XPU devices (a checkpoint published in FP8 it dequantises to "
             "bf16 elsewhere)", "quantizer_finegrained_fp8.py, quantising on load: \"No GPU or XPU found. A GPU or "
             "XPU is needed for FP8 quantization.\"", on_load=True),
    CardRule("precision", "mxfp4", capability_at_least(7, 5), "CUDA devices of compute capability 7.5 and later, "
             "XPU and the CPU (a checkpoint published in MXFP4 it dequantises to bf16 elsewhere)",
             "quantizer_mxfp4.py, quantising on load: \"Quantizing a model using MXFP4 requires model on "
             "cuda/xpu/cpu\"", on_load=True),
    CardRule("precision", "fp8", capability_at_least(8, 9), "compute capability 8.9 and later (Ada, Hopper, "
             "Blackwell)", "quantizer_finegrained_fp8.py", fallback=Precision.BF16, note="note.dequantised_fp8"),
    CardRule("precision", "mxfp4", capability_at_least(7, 5), "compute capability 7.5 and later (T4 and every later "
             "NVIDIA card), AMD's and the CPU", "quantizer_mxfp4.py", fallback=Precision.BF16,
             note="note.dequantised_mxfp4"),
    CardRule("precision", "nvfp4", capability_at_least(10, 0, amd=False), "NVIDIA's compute capability 10.0 and "
             "later (Blackwell: B200, RTX 50, RTX PRO 6000, DGX Spark)", "quantizers/quantizer_nvfp4.py: \"NVFP4 "
             "requires Blackwell (sm100+) block-scaled tensor cores\", a CUDA GPU and the kernels-community/"
             "nvfp4-gemm kernel"),
)


# The formats transformers quantises to as it loads (from_pretrained's quantization_config, transformers 5.23), and
# those only a checkpoint quantised beforehand holds (its config.json's quantization_config): `command`
QUANTIZATION_CONFIGS = {
    "nf4": 'BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype="{dtype}")',
    "nf4-dq": ('BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True, '
               'bnb_4bit_compute_dtype="{dtype}")'),
    "bnb-int8": "BitsAndBytesConfig(load_in_8bit=True)",
    "fp8-block": "FineGrainedFP8Config()",  # 128 × 128 blocks, an fp32 scale each
    "nvfp4": "NVFP4Config()",  # quantised as it loads only (quantizer_nvfp4.py refuses a pre-quantised checkpoint)
}
PRE_QUANTISED = frozenset({"fp8", "mxfp4", "gptq-int4", "gptq-int8", "awq-int4"})


# ---------------------------------------------------------------- assisted generation (a draft model)
# transformers 5.23 generate(assistant_model=...) (generation/candidate_generator.py AssistedCandidateGenerator,
# generation/utils.py _assisted_decoding): the assistant is a model the user loads beside the target, here in the
# target's compute dtype; it generates its candidates with a cache of its own (assistant_kwargs["past_key_values"],
# a DynamicCache from its own generation config, so never the target's quantized cache), cropped to the accepted
# tokens, at most the sequence's length (_calculate_new_tokens stops at the target's max_length). The target checks
# candidate_length + 1 positions, their logits upcast to fp32 (`.float()`), while the assistant's scores of the
# candidates are kept (output_scores) for the confidence threshold. One sequence only ("assisted generate is only
# supported for batch_size = 1"). A different vocabulary is Universal Assisted Decoding (tokenizer and
# assistant_tokenizer passed to generate), not a refusal. Measured on the CPU with two random Llama models:
# tools/measure_assisted.py, docs/accuracy.md.
ASSISTANT_TOKENS = 20  # GenerationConfig's num_assistant_tokens default (schedule "constant"; configuration_utils.py)
ASSISTED_MAX_BATCH = 1  # the sequences it runs at once (the check refuses more; analysis/solve.py searches no further)


def assistant_weights(workload: Workload) -> int:
    draft = workload.draft_model
    return 0 if draft is None else workload.activation_precision.bytes_for(param_count(draft))


def assistant_cache(workload: Workload) -> int:
    """The assistant's own cache: one sequence of `seq` tokens of its layers, in its dtype."""
    draft = workload.draft_model
    if draft is None:
        return 0
    e = int(workload.activation_precision.bits) // 8
    return workload.activation_precision.bytes_for(draft.kv_values_per_sequence(workload.seq)) + \
        draft.recurrent_state_bytes(e)


def assistant_logits(workload: Workload) -> int:
    """The target's fp32 logits of the candidates and its own next token, and the assistant's kept scores."""
    draft = workload.draft_model
    return 0 if draft is None else 4 * ((ASSISTANT_TOKENS + 1) * workload.model.vocab + ASSISTANT_TOKENS * draft.vocab)


def with_assistant(workload: Workload, weights: Component, kv: Component, logits: Component) -> tuple[
        Component, Component, Component]:
    """The weights, cache and logits rows with assisted generation's added (none without a draft model)."""
    draft = workload.draft_model
    if draft is None:
        return weights, kv, logits
    sizes = assistant_weights(workload), assistant_cache(workload), assistant_logits(workload)
    name, precision = draft.display_name, workload.activation_precision.value
    return (Component(key="weights", bytes=weights.bytes + sizes[0], explain=lambda: (
                *weights.formula, "; ", phrase("transformers.assistant_weights", name=name, precision=precision,
                                               bytes=format_binary(sizes[0])))),
            Component(key="kv_cache", bytes=kv.bytes + sizes[1], explain=lambda: (
                *kv.formula, "; ", phrase("transformers.assistant_kv", seq=f"{workload.seq:,}", precision=precision,
                                          bytes=format_binary(sizes[1])))),
            Component(key="logits", bytes=sizes[2], explain=lambda: phrase(
                "transformers.assistant_logits", rows=ASSISTANT_TOKENS + 1, vocab=f"{workload.model.vocab:,}",
                drafted=ASSISTANT_TOKENS, draft_vocab=f"{draft.vocab:,}", bytes=format_binary(sizes[2]))))


class Transformers(NoPool):
    """Hugging Face transformers: `generate()` for inference, the Trainer (with peft) for training."""

    options = ()  # its settings are the shared ones
    runtime = Runtime.TRANSFORMERS
    kv_formats = (Precision.FP32, Precision.FP16, Precision.BF16, Precision.INT8, Precision.INT4,
                  Precision.INT2)  # int8/int4/int2: nominal bits (the first version's meaning)
    weight_ladder = ("bf16", "bnb-int8", "nf4")
    kv_ladder = (Precision.BF16, Precision.INT8, Precision.INT4)
    card_rules = TRANSFORMERS_CARD_RULES
    batch_key = "batch"
    max_batch: int | None = None  # the request's own limit
    rank_overhead_bytes = 0
    keeps_activation_peak_whole = False

    def default_overhead(self, fields: Mapping[str, object]) -> int:
        return pytorch_overhead(fields)

    def check(self, workload: Workload) -> None:
        refuse_gguf(workload)
        if not workload.is_training:
            check_kv_formats(workload, ("kv_precision",), self.kv_formats)
        if workload.embeds and workload.kv_precision in (Precision.INT8, Precision.INT4, Precision.INT2):
            raise ValidationError("kv_precision", workload.kv_precision.value, "transformers quantises its cache in "
                                  "generate() alone (cache_implementation=\"quantized\"); an embedding's forward "
                                  "keeps a DynamicCache in the model's dtype: leave it empty, or choose bf16")
        fmt = workload.precision
        if isinstance(fmt, WeightFormat) and fmt.name == "mxfp4" and workload.model.model_type != "gpt_oss":
            raise ValidationError("precision", "mxfp4", "transformers runs MXFP4 for gpt-oss's experts alone "
                                  "(integrations/mxfp4.py replace_with_mxfp4_linear converts GptOssMLP); another "
                                  "model's MXFP4 checkpoint (compressed-tensors) is decompressed to 16 bits as it "
                                  "loads (run_compressed=False): choose bf16, or vLLM")
        draft = workload.draft_model
        if draft is not None and workload.batch > ASSISTED_MAX_BATCH:
            raise ValidationError("batch", workload.batch, "transformers' assisted generation (a draft model) runs "
                                  "one sequence: \"assisted generate is only supported for batch_size = 1\" "
                                  "(generation/utils.py)")
        if draft is not None and (workload.devices > 1 or workload.cards):
            raise ValidationError("draft_model", draft.name, "assisted generation is modelled on one GPU for now")

    def run_format(self, model: ModelSpec, precision: Precision | WeightFormat, *,
                   training: bool) -> Precision | WeightFormat:
        published = run_as_published(model, precision, training=training)
        return published if training else as_loaded(model, published)  # training: by its framework (parse)

    def notes(self, workload: Workload) -> tuple[str, ...]:
        encoder = ("note.encoder_training",) if workload.is_training and workload.model.encoder is not None else ()
        ppo_models = ("note.ppo",) if workload.is_training and workload.objective is Objective.PPO else ()
        experts = ("note.bnb_experts",) if getattr(workload.precision, "experts_kept", False) else ()
        remote = workload.model.encoder
        gte = ("note.gte_remote",) if workload.embeds and remote is not None and remote.rotary_rows else ()  # `new`
        return ("note.counter", *encoder, *ppo_models, *experts, *gte)  # which counter the total reads against

    def command(self, workload: Workload, layout: Layout, model: str) -> tuple[str, ...]:
        """Inference: the from_pretrained call the answer assumes (its dtype and attention); training runs
        under a trainer whose settings are the form's, not one command."""
        if workload.is_training:
            return ()
        dtype = {Precision.BF16: "bfloat16", Precision.FP32: "float32"}.get(workload.activation_precision, "float16")
        attention = "sdpa" if workload.attention is Attention.FLASH else "eager"
        auto = "AutoModel" if workload.embeds else "AutoModelForCausalLM"
        if workload.transcribes:
            auto = "WhisperForConditionalGeneration"
        reranker = workload.model.reranker
        if (workload.model.encoder is not None and workload.model.encoder.labels) or (
                reranker is not None and not reranker.from_head):
            auto = "AutoModelForSequenceClassification"
        if workload.embeds and reranker is not None and reranker.from_head:  # its card: the causal LM's logits
            auto = "AutoModelForCausalLM"
        name = workload.precision.value
        quantised = (f", quantization_config={QUANTIZATION_CONFIGS[name].format(dtype=dtype)}"
                     if name in QUANTIZATION_CONFIGS else "")
        call = (f'{auto}.from_pretrained("{model}", dtype="{dtype}", attn_implementation="{attention}", '
                f'device_map="auto"{quantised})')
        if name in PRE_QUANTISED:  # quantised beforehand: the checkpoint's config.json says how, not the call
            call += f"  # a checkpoint published in {name}"
        if workload.transcribes:
            call += f"  # generate(input_features, num_beams={workload.beams})"
        draft = workload.draft_model
        if draft is None:
            return (call,)
        tokenizers = ", tokenizer=..., assistant_tokenizer=..." if draft.vocab != workload.model.vocab else ""
        return (call, (f'assistant = {auto}.from_pretrained("{hf_reference(draft)}", dtype="{dtype}", '
                       f'attn_implementation="{attention}", device_map="auto")  # generate(..., '
                       f'assistant_model=assistant{tokenizers})'))

    def default_layout(self, model: ModelSpec, gpus: int, *, training: bool) -> Layout:
        return default_layout(model, gpus, training=training)

    def breakdown(self, workload: Workload) -> EngineBreakdown:
        if workload.is_training:
            components, sizes, by_phase, peak, host = training_step(workload)
            return EngineBreakdown(components=components, sizes=sizes, phases=by_phase, peak_phase=peak,
                                   host_bytes=host)
        if workload.transcribes:  # WhisperForConditionalGeneration.generate
            return EngineBreakdown(components=speech_components(workload))
        if workload.embeds:  # sentence-transformers: one forward of the batch
            return EngineBreakdown(components=embedding_components(
                workload, batch=workload.batch, seq=workload.seq, engine="transformers"))
        weights, kv, logits = with_assistant(workload, weights_bytes(workload), kv_cache_bytes(workload),
                                             logits_bytes(workload))
        window = prefill_window(workload)
        return EngineBreakdown(components=(
            weights,
            gradients_bytes(workload),
            optimizer_state_bytes(workload),
            master_weights_bytes(workload),
            kv,
            with_vision(workload, activations_bytes(workload), kv.bytes + logits.bytes + window.bytes),
            logits,
            window,
            overhead_bytes(workload),
        ))



ENGINE = Transformers()


def prefill_window_bytes(workload: Workload) -> int:
    """transformers' sliding-window and chunked layers keep the whole prompt's K/V through the
    prefill (the cache holds a view of its last W positions), and drop it with the first new token."""
    model = workload.model
    if workload.is_training:
        return 0
    extra = sum(model.cached_layers(kind) * model.kv_width(kind)
                * (model.tokens_kept(AttentionKind.FULL, workload.seq) - model.tokens_kept(kind, workload.seq))
                for kind, _ in model.kind_counts() if kind in (AttentionKind.SLIDING, AttentionKind.CHUNKED))
    return workload.effective_kv_precision.bytes_for(workload.batch * extra)


LOADS_FUSED_EXPERTS = (Framework.TRAINER, Framework.AXOLOTL)  # through transformers' own from_pretrained


def as_loaded(model: ModelSpec, precision: Precision | WeightFormat,
              framework: Framework = Framework.TRAINER) -> Precision | WeightFormat:
    """The format as transformers 5 loads it (its from_pretrained, also under the Trainer and axolotl):
    bitsandbytes converts `nn.Linear` modules only, so a mixture of experts' fused expert stacks (3-D
    `gate_up_proj` and `down_proj` parameters) stay in the compute dtype (measured by
    tools/measure_bnb_experts.py; bitsandbytes#1849). Unsloth converts them since 2026.6 (unsloth#4032);
    litgpt and torchtune build modules of their own. MXFP4 (Mxfp4HfQuantizer) converts gpt-oss's expert MLPs alone
    (integrations/mxfp4.py replace_with_mxfp4_linear: each GptOssMLP becomes an Mxfp4GptOssMLP), attention stays
    in bf16 as the published checkpoint has it: `quantise=mlp` (amd/playbooks #882: gpt-oss-20b loaded in 12.83 GiB,
    12.82 so, 11.94 with attention in MXFP4)."""
    if not isinstance(precision, WeightFormat) or framework not in LOADS_FUSED_EXPERTS:
        return precision
    if precision.name in BNB_FORMATS and model.moe is not None:
        return dataclasses.replace(precision, experts_kept=True)
    return gpt_oss_mxfp4(model, precision)
