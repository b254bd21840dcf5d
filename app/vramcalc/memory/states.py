"""Model states: weights, gradients, optimizer state and master weights (ZeRO paper, §3.1),
for inference and for each training recipe (training/recipes.py) and LoRA (training/lora.py)."""

from __future__ import annotations

from collections.abc import Callable

from ..core.choices import GGUF_RUNTIMES, PAGED, Optimizer, Recipe
from ..core.dtypes import Precision
from ..core.phrase import Formula, Phrase, phrase
from ..core.units import format_binary, format_count
from ..formats.weights import WeightFormat, describe, weights
from ..model.table import counted_tensors, param_count
from ..model.tensor import Counted
from ..training import recipes
from ..training.lora import adapter_tensors
from ..training.recipes import BytesPerParam, recipe_bytes
from ..workload import Workload
from .components import Component

# ---------------------------------------------------------------- model states


def weights_bytes(workload: Workload) -> Component:
    """Weights = parameters × bits per weight / 8 for a nominal precision (no scales); for a
    real format, the sum over tensors of what its layout stores (formats.py). Training: the
    recipe's weight dtype (training.py); LoRA adds its adapters to the frozen base."""
    base_text: Callable[[], Phrase]
    if isinstance(workload.precision, WeightFormat):
        fmt = workload.precision
        parts = weights(workload.model, fmt, group_size=workload.group_size)
        base = sum(part.bytes for part in parts)
        base_text = lambda: phrase(  # noqa: E731
            "weights.format", format=fmt.label, parts=describe(parts), bytes=format_binary(base))
    else:
        params = param_count(workload.model)
        per_param = recipe_states(workload).weights if workload.is_training and not workload.lora else None
        base = params * per_param if per_param else workload.precision.bytes_for(params)
        bits = per_param * 8 if per_param else workload.precision.bits
        name = workload.precision.value if not per_param or per_param * 8 == workload.precision.bits else f"fp{bits}"
        base_text = lambda: phrase(  # noqa: E731
            "weights.formula", params=format_count(params), bits=bits, precision=name, bytes=format_binary(base))
    extra, extra_text = training_weight_extras(workload)
    vision = vision_bytes(workload)
    total = base + extra + vision
    return Component(key="weights", bytes=total, explain=lambda: (base_text(), *extra_text(), *vision_said(workload)))


def vision_bytes(workload: Workload) -> int:
    """The vision tower and projector, in 16 bits (32 when the weights are fp32): quantized checkpoints keep
    them unquantized, and llama.cpp's projector file (mmproj) is f16; none when the use is text only."""
    vision = workload.model.vision
    if vision is None or workload.text_only:
        return 0
    return vision.params * (4 if workload.precision is Precision.FP32 else 2)


def vision_said(workload: Workload) -> tuple[Phrase, ...]:
    vision = workload.model.vision
    if vision is None:
        return ()
    if workload.text_only:
        return (phrase("weights.vision_off", params=format_count(vision.params)),)
    size = vision_bytes(workload)
    full = isinstance(workload.precision, Precision) and workload.precision.is_float
    kept = ("weights.vision.mmproj" if workload.runtime in GGUF_RUNTIMES
            else "" if full else "weights.vision.unquantized")  # a 16-bit model's tower is simply 16-bit too
    return (phrase("weights.vision", params=format_count(vision.params), bits=size * 8 // vision.params,
                   bytes=format_binary(size), kept=phrase(kept) if kept else ""),)


def training_weight_extras(workload: Workload) -> tuple[int, Callable[[], Formula]]:
    """LoRA's adapters (fp32, as peft keeps them by default), or autocast's 16-bit copies of
    the linear weights, which `torch.autocast` caches for the forward and backward of a step."""
    if not workload.is_training:
        return 0, lambda: ()
    if workload.lora:
        adapters = adapter_tensors(workload.model, workload.lora)
        count = sum(t.numel * n for t, n in adapters)
        size = count * adapter_bytes(workload)
        return size, lambda: (phrase("weights.lora", count=format_count(count), dtype=workload.lora_dtype.value,
                                     bytes=format_binary(size)),)
    if workload.recipe is Recipe.AMP:
        linear = sum(t.numel * n for t, n in counted_tensors(workload.model) if t.role in (
            "attention", "mlp", "expert", "shared_expert", "head") and len(t.shape) >= 2)
        size = linear * int(workload.activation_precision.bits) // 8
        return size, lambda: (phrase("weights.autocast", bytes=format_binary(size)),)
    return 0, lambda: ()


def adapter_bytes(workload: Workload) -> int:
    """peft keeps adapters in fp32 by default (autocast_adapter_dtype=True); lora_dtype says otherwise."""
    return int(workload.lora_dtype.bits) // 8


def recipe_states(workload: Workload) -> BytesPerParam:
    return recipe_bytes(workload.recipe, workload.precision if isinstance(workload.precision, Precision)
                                 else Precision.BF16, workload.mixed_precision)


def trainable(workload: Workload) -> tuple[Counted, int, int]:
    """(tensors with their counts, parameters, bytes per parameter of their gradients) that training updates."""
    if workload.lora:
        tensors = adapter_tensors(workload.model, workload.lora)
        return tensors, sum(t.numel * n for t, n in tensors), adapter_bytes(workload)
    tensors = counted_tensors(workload.model)
    params = param_count(workload.model)
    return tensors, params, recipe_states(workload).gradients


def gradients_bytes(workload: Workload) -> Component:
    """Gradients = one value per trainable parameter, in the recipe's gradient dtype (training only)."""
    if not workload.is_training:
        return Component(key="gradients", bytes=0, explain=lambda: phrase("gradients.none"))
    _, params, per_param = trainable(workload)
    num_bytes = params * per_param
    precision = workload.precision  # a Precision unless under LoRA (QLoRA): inputs/parse.py checks it
    return Component(
        key="gradients",
        bytes=num_bytes,
        explain=lambda: phrase(
            "gradients.formula", params=format_count(params), bits=per_param * 8,
            precision=(phrase("gradients.adapters", dtype=workload.lora_dtype.value) if workload.lora
                       else precision.value if isinstance(precision, Precision) and per_param * 8 == precision.bits
                       else f"fp{per_param * 8}"),
            bytes=format_binary(num_bytes),
        ),
    )


def optimizer_state_bytes(workload: Workload) -> Component:
    """Optimizer state for the trainable tensors (training.py): Adam(W) two moments in the
    state dtype, bitsandbytes' paged AdamW two fp32 moments, 8-bit AdamW about 2 bytes,
    Adafactor factored, Lion and SGD with momentum one buffer, SGD none (ZeRO paper §3.1;
    bitsandbytes; Shazeer & Stern 2018)."""
    if not workload.is_training:
        return Component(key="optimizer", bytes=0, explain=lambda: phrase("optimizer.none"))
    optimizer = workload.optimizer
    if optimizer is Optimizer.SGD:
        return Component(key="optimizer", bytes=0, explain=lambda: phrase("optimizer.sgd"))
    tensors, params, _ = trainable(workload)
    state = adapter_bytes(workload) if workload.lora else recipe_states(workload).state
    num_bytes = recipes.optimizer_state_bytes(optimizer, tensors, state)
    paged = recipes.paged_state_bytes(optimizer, tensors)
    listed = sum(t.numel * n for t, n in tensors)
    if listed and listed != params:  # a custom model of three numbers: its tensors only sketch the shapes
        num_bytes, paged = num_bytes * params // listed, paged * params // listed
    per_param = num_bytes / params if params else 0
    return Component(
        key="optimizer",
        bytes=num_bytes,
        explain=lambda: (phrase(
            "optimizer.formula", params=format_count(params), per_param=f"{per_param:.3g}",
            optimizer=optimizer.value, what=phrase(f"optimizer.state.{optimizer.value}"),
            bytes=format_binary(num_bytes),
        ), *((phrase("optimizer.paged", bytes=format_binary(paged)),) if optimizer in PAGED else ())),
    )


def master_weights_bytes(workload: Workload) -> Component:
    """Master weights = trainable parameters × 4 bytes: the fp32 copy mixed-precision training updates."""
    master = recipe_states(workload).master if workload.is_training and not workload.lora else 0
    if not master:
        return Component(key="master_weights", bytes=0, explain=lambda: phrase("master_weights.none"))
    params = param_count(workload.model)
    num_bytes = params * master
    return Component(
        key="master_weights",
        bytes=num_bytes,
        explain=lambda: phrase("master_weights.formula", params=format_count(params), bytes=format_binary(num_bytes)),
    )
