"""The caching allocator's reserve above max_memory_allocated on the Trainer's LoRA step (issue 28)."""

# What torch.cuda.max_memory_reserved shows beyond max_memory_allocated on the Hugging Face Trainer's LoRA step: the
# caching allocator's reserve (issue 28; docs/accuracy.md, "The caching allocator's reserve on the Trainer's step").
#
# PyTorch's CUDA caching allocator keeps every segment it has reserved (cudaMalloc'd) until the card runs short, so
# max_memory_reserved is every segment the run ever needed, and the free parts of them at the peak are the reserve.
# tools/record_trainer_allocations.py recorded the order in which tools/measure_peak.py's step (the one behind the
# golden peaks) allocates and frees every storage, on Llama 3.1 8B's and Mistral 7B's proportions at 2, 4 and 32
# layers, and replayed it through CUDACachingAllocator.cpp's rules at 512 to 32,768 tokens
# (tests/golden/simulated_allocator_trainer.json). On LoRA's step the reserve grew as a fixed share of what grows with
# the tokens (activations, logits and the loss's temporaries live at the peak), within 0.02 of one share from 2,048 to
# 32,768 tokens, plus 5 to 16 MiB a layer: that share, and the least and most seen over the runs, are the rule.
# Full fine-tuning's reserve swung from none to three quarters of that part with the length and the layers (the
# gradients take the activations' freed blocks): not a rule, so its answer keeps the published range. So does QLoRA,
# whose published reserve is larger than the simulation's (its dequantised weights, not simulated at 32 layers).
#
# A card that runs short gives its wholly free segments back before it raises, so on a card the run barely fits the
# reserve is smaller, down to its fragments. Only for the step recorded: the Trainer (SFT) on one GPU, LoRA on 16-bit
# weights, the engine's default recipe, AdamW (foreach), no or per-layer checkpointing, without the fused or chunked
# loss, offloading, the optimizer in the backward or compile. Elsewhere `None`: the answer keeps the range of published
# out-of-memory reports (inference, other frameworks and engines, vLLM, which sizes its own pool).

from __future__ import annotations

from ..core.choices import Framework, Objective, Optimizer, Recipe, Runtime
from ..core.units import MIB
from ..workload import Workload

# (checkpointing, targets) -> (low, typical, high, MiB a layer): the reserve as a share of the per-token part of the
# peak (activations, logits and temporaries), the slope of the simulated reserve from 8,192 to 32,768 tokens, and what
# is left at no tokens on that line, a layer. typical and the MiB: the run at 32 layers with those targets
# (all-linear: Llama 3.1 8B's proportions; attention, q,k,v,o: Mistral 7B's); low and high: the least and most slope of
# every LoRA run with that checkpointing (2, 4 and 32 layers)
SIMULATED = {
    ("none", "all-linear"): (0.043, 0.057, 0.066, 10),
    ("none", "attention"): (0.043, 0.066, 0.066, 5),
    ("layer", "all-linear"): (0.1, 0.1, 0.206, 16),
    ("layer", "attention"): (0.1, 0.206, 0.206, 8),
}
TARGETS = {"all-linear": "all-linear", "q,k,v,o,gate,up,down": "all-linear", "q,k,v,o": "attention"}
PER_TOKEN_PARTS = ("activations", "logits", "temporaries")


def allocator_reserve(workload: Workload, live: dict[str, int]) -> tuple[int, int, int] | None:
    """(low, typical, high) bytes of reserve at the peak whose components are `live`; None for a step not recorded:
    the Trainer's LoRA SFT step on 16-bit weights, one GPU, AdamW, no or per-layer checkpointing, none of the
    mechanics that change its allocations."""
    lora = workload.lora
    if (lora is None or workload.runtime is not Runtime.TRANSFORMERS or workload.framework is not Framework.TRAINER
            or workload.objective is not Objective.SFT or workload.devices > 1 or workload.recipe is not Recipe.LEGACY
            or workload.mixed_precision or workload.optimizer is not Optimizer.ADAMW
            or workload.optimizer_impl.value not in ("", "foreach") or workload.fused_ce or workload.ce_output_chunks
            or workload.activation_offload or workload.optimizer_in_backward or workload.compile
            or getattr(workload.precision, "value", "") not in ("bf16", "fp16")):
        return None
    entry = SIMULATED.get((workload.checkpointing.value, TARGETS.get(",".join(lora.targets), "")))
    if entry is None:
        return None
    per_token = sum(live.get(key, 0) for key in PER_TOKEN_PARTS)
    fixed = entry[3] * MIB * workload.model.layers
    return fixed + round(per_token * entry[0]), fixed + round(per_token * entry[1]), fixed + round(per_token * entry[2])
