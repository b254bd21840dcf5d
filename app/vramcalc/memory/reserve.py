"""What torch.cuda.max_memory_reserved shows beyond max_memory_allocated on the Hugging Face Trainer's LoRA step: the
caching allocator's reserve (issue 28; docs/accuracy.md, "The caching allocator's reserve on the Trainer's step").

PyTorch's CUDA caching allocator keeps every segment it has reserved (cudaMalloc'd) until the card runs short, so
max_memory_reserved is every segment the run ever needed, and the free parts of them at the peak are the reserve.
tools/record_trainer_allocations.py recorded the order in which tools/measure_peak.py's step (the one behind the
golden peaks) allocates and frees every storage, on Llama 3.1 8B's and Mistral 7B's proportions at 2, 4 and 32
layers, and replayed it through CUDACachingAllocator.cpp's rules at 512 to 32,768 tokens
(tests/golden/simulated_allocator_trainer.json). On LoRA's step the reserve grew as a fixed share of what grows with
the tokens (activations, logits and the loss's temporaries live at the peak), within 0.001 of one share from 2,048 to
32,768 tokens, plus 8 to 16 MiB a layer: that share, and the least and most seen over the runs, are the rule.
Full fine-tuning's reserve swung from none to three quarters of that part with the length and the layers (the
gradients take the activations' freed blocks): not a rule, so its answer keeps the published range. So does QLoRA,
whose published reserve is larger than the simulation's (its dequantised weights, not simulated at 32 layers).

A card that runs short gives its wholly free segments back before it raises, so on a card the run barely fits the
reserve is smaller, down to its fragments. Only for the step recorded: the Trainer (SFT) on one GPU, LoRA on 16-bit
weights, the engine's default recipe, AdamW (foreach), no or per-layer checkpointing, without the fused or chunked
loss, offloading, the optimizer in the backward or compile. Elsewhere `None`: the answer keeps the range of published
out-of-memory reports (inference, other frameworks and engines, vLLM, which sizes its own pool).
"""

from __future__ import annotations

import dataclasses

from ..core.choices import Checkpointing, Framework, Objective, Optimizer, OptimizerImpl, Recipe, Runtime
from ..workload import Workload

# (checkpointing, targets) -> (low, typical, high, MiB a layer): the reserve as a share of the per-token part of the
# peak (activations, logits and temporaries), the slope of the simulated reserve from 8,192 to 32,768 tokens, and what
# is left at no tokens on that line, a layer. typical and the MiB: the run at 32 layers with those targets
# (all-linear: Llama 3.1 8B's proportions; attention, q,k,v,o: Mistral 7B's); low and high: the least and most slope of
# every LoRA run with that checkpointing (2, 4 and 32 layers)
SIMULATED: dict[tuple[str, str], tuple[float, float, float, int]] = {
    ("none", "all-linear"): (0.043, 0.057, 0.057, 10),
    ("layer", "all-linear"): (0.1, 0.1, 0.206, 16),
    ("layer", "attention"): (0.1, 0.206, 0.206, 8),
}
TARGETS = {("all-linear",): "all-linear", ("q", "k", "v", "o", "gate", "up", "down"): "all-linear",
           ("q", "k", "v", "o"): "attention"}
@dataclasses.dataclass(frozen=True)
class Reserve:
    checkpointing: str
    targets: str
    layers: int
    low: float
    typical: float
    high: float
    mib_a_layer: int

    def bytes(self, per_token: int) -> tuple[int, int, int]:
        """(low, typical, high) bytes of reserve, given the peak's per-token part."""
        fixed = (self.mib_a_layer << 20) * self.layers
        return (fixed + round(per_token * self.low), fixed + round(per_token * self.typical),
                fixed + round(per_token * self.high))


def recorded(workload: Workload) -> bool:
    """The step recorded: the Trainer's LoRA SFT step on 16-bit weights, one GPU, AdamW, no or per-layer
    checkpointing, none of the mechanics that change its allocations."""
    if not workload.is_training or workload.runtime is not Runtime.TRANSFORMERS or workload.lora is None:
        return False
    if workload.framework is not Framework.TRAINER or workload.objective is not Objective.SFT:
        return False
    if workload.devices > 1 or workload.recipe is not Recipe.LEGACY or workload.mixed_precision:
        return False
    if workload.optimizer is not Optimizer.ADAMW or workload.optimizer_impl not in (OptimizerImpl.DEFAULT,
                                                                                  OptimizerImpl.FOREACH):
        return False
    if (workload.fused_ce or workload.ce_output_chunks or workload.activation_offload or workload.optimizer_in_backward
            or workload.compile or workload.checkpointing is Checkpointing.SQRT):
        return False
    return getattr(workload.precision, "value", "") in ("bf16", "fp16")


PER_TOKEN_PARTS = ("activations", "logits", "temporaries")
ORDER = ("all-linear", "q", "k", "v", "o", "gate", "up", "down")


def allocator_reserve(workload: Workload) -> Reserve | None:
    lora = workload.lora
    targets = TARGETS.get(tuple(sorted(lora.targets, key=ORDER.index)) if lora is not None and set(
        lora.targets) <= set(ORDER) else (), "")
    entry = SIMULATED.get((workload.checkpointing.value, targets))
    if entry is None or not recorded(workload):
        return None
    return Reserve(workload.checkpointing.value, targets, workload.model.layers, *entry)
