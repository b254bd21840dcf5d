"""llama.cpp's own fit (`--fit on`, the default at the pinned commit): the context, the layers on the GPU and the
experts it moves to system RAM so that the model leaves `--fit-target` free, as common/fit.cpp decides
them (llama.cpp 0c1e570, the pinned llama-cpp-python 0.3.36; notes in docs/research/engines.md §1g).

llama.cpp measures each trial by a dry-run load; here each trial is the engine's own llama.cpp
breakdown of that configuration (weights, cache and compute buffer on the GPU, as --override-tensor
places them). One GPU: the calculator's llama.cpp runs on one card."""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Callable

from ..core.units import MIB
from ..workload import Workload
from .llamacpp import LLAMACPP_PAD, LlamaCppFacts, llamacpp_breakdown
from .llamacpp_overrides import Overrides, overrides_text

FIT_TARGET = 1024 * MIB  # --fit-target: what each device keeps free (common.h)
FIT_CTX = 4096  # --fit-ctx: the smallest context the fit lowers to (common.h)


class Fraction(enum.Enum):
    """What of a layer's MLP leaves the GPU (common_layer_fraction_t): its pattern after `blk\\.N\\.`."""

    MOE = r"ffn_(up|down|gate_up|gate)_(ch|)exps"  # the routed experts
    ATTN = r"ffn_(gate|up|gate_up|down).*"  # the whole MLP: only attention stays
    UP = r"ffn_(gate|gate_up|down).*"  # all but the up projections
    GATE = r"ffn_down.*"  # the down projections

    def of_layer(self, i: int) -> str:
        """The fit's pattern for layer i (llama_get_layer_fraction's regex, fit.cpp:520-527)."""
        return rf"blk\.{i}\.{self.value}"


@dataclasses.dataclass(frozen=True)
class FitPlan:
    """What llama-server would start with: -c (per sequence here), -ngl, and the overrides to the CPU of
    the layers whose experts (or part of whose MLP) it keeps in RAM."""

    seq: int  # the context of each sequence
    gpu_layers: int  # -ngl: repeating layers on the GPU plus the output layer
    overrides: Overrides
    device_bytes: int  # the GPU's weights, cache and compute buffer, as the fit measures them
    target_bytes: int  # free memory less --fit-target
    changed: bool  # False: llama.cpp keeps the given plan ("no changes needed")
    fits: bool
    tensor_split: tuple[int, ...] = ()  # several GPUs: -ts, each GPU's layers
    devices_bytes: tuple[int, ...] = ()  # several GPUs: each one's memory as the fit measures it

    def as_json(self) -> dict[str, object]:
        return {"seq": self.seq, "gpu_layers": self.gpu_layers,
                "override_tensor": overrides_text(self.overrides),
                "device_bytes": self.device_bytes, "target_bytes": self.target_bytes, "changed": self.changed,
                "fits": self.fits, "tensor_split": list(self.tensor_split)}


# one change asks it of the same run several times (Ollama's breakdown, the verdict, the Speed section's fit answer)
@functools.lru_cache(maxsize=16)
def llamacpp_fit(workload: Workload, free_bytes: int, *, ctx_auto: bool = False, margin: int = FIT_TARGET,
                 fit_ctx: int = FIT_CTX) -> FitPlan:
    """common_params_fit_impl for one GPU with `free_bytes` free (cudaMemGetInfo after the CUDA context):
    1. as given (all layers on the GPU unless -ngl says, at the model's trained context with `ctx_auto`,
       llama-server without -c); if that leaves `margin` free, nothing changes;
    2. without -c, the context lowered by one linear interpolation between --fit-ctx and the trained
       context, rounded down to 256 per sequence; on one GPU that ends the fit, unmeasured;
    3. given -ngl or tensor overrides (--n-cpu-moe, -ot), the fit stops there, the lowered context kept;
    4. the most layers that fit, filled from the output layer back by false position; a mixture of experts
       fills them "dense-only" (each layer's routed experts in RAM, but the first's: a quirk of fit.cpp,
       whose partial layers end at the output layer's index, kept here);
    5. a mixture of experts whose dense weights all fit then takes whole layers back by false position,
       then tries one layer's MLP in part: UP (its up projections back on the GPU), then GATE (all but
       down), each kept if the GPU stays strictly under its target; if UP does not, ATTN (its whole MLP,
       router and shared experts too, to RAM: less on the GPU than before, accepted as fit.cpp does)."""
    spec = workload.model
    layers = spec.layers
    target = free_bytes - margin
    moe = spec.moe is not None

    def measure(seq: int, gpu_layers: int | None = None, overrides: Overrides | None = None) -> int:
        """One trial: the GPU's weights, cache and compute buffer (llama.cpp counts no more: its CUDA context
        is outside the free memory it reads). Overrides None: the user's own placement."""
        trial = workload.but(seq=seq) if overrides is None else workload.but(
            seq=seq, gpu_layers=gpu_layers, override_tensor=overrides, n_cpu_moe=0, cpu_moe=False)
        engine = llamacpp_breakdown(trial)
        assert isinstance(engine.facts, LlamaCppFacts)
        overhead = next(c.bytes for c in engine.components if c.key == "overhead")
        return engine.facts.device_bytes - overhead

    def plan(seq: int, gpu_layers: int, overrides: Overrides, used: int, changed: bool = True) -> FitPlan:
        return FitPlan(seq=seq, gpu_layers=gpu_layers, overrides=overrides, device_bytes=used, target_bytes=target,
                       changed=changed, fits=used <= target)

    given_layers = layers + 1 if workload.gpu_layers is None else workload.gpu_layers
    trained = spec.max_positions or workload.seq
    seq = trained if ctx_auto else workload.seq
    used = measure(seq)  # step 1
    if used <= target:
        return plan(seq, given_layers, workload.override_tensor, used, changed=seq != workload.seq)
    if ctx_auto and trained > fit_ctx:  # step 2
        low = measure(fit_ctx)
        seq = fit_ctx
        if target > low:
            seq = fit_ctx + (trained - fit_ctx) * (target - low) // (used - low)
            seq = max(seq - seq % LLAMACPP_PAD, fit_ctx)
            return plan(seq, given_layers, workload.override_tensor, measure(seq))
    if workload.gpu_layers is not None or workload.override_tensor or workload.n_cpu_moe or workload.cpu_moe:
        return plan(seq, given_layers, workload.override_tensor, measure(seq), changed=seq != workload.seq)  # 3

    def layout(n_layer: int, n_part: int, overflow: Fraction = Fraction.MOE) -> Overrides:
        """set_ngl_tensor_split_tbo: of the last n_layer indices (the output layer's is `layers`), the first
        n_layer - n_part whole, then n_part partial: the first losing `overflow`, the others their experts."""
        first = layers + 1 - n_part
        return tuple(((overflow if i == first else Fraction.MOE).of_layer(i), "CPU") for i in range(first, layers))

    def false_position(low: int, low_mem: int, high: int, high_mem: int,
                       trial: Callable[[int], int]) -> tuple[int, int]:
        """fit.cpp's search: guess where memory meets the target between a fitting and a failing count,
        measure, keep the guess as the new bound; stop one apart and keep the fitting one."""
        while high - low > 1:
            step = min(max((high - low) * (target - low_mem) // (high_mem - low_mem), 1), high - low - 1)
            memory = trial(low + step)
            if memory <= target:
                low, low_mem = low + step, memory
            else:
                high, high_mem = low + step, memory
        return low, low_mem

    def dense_only(n: int) -> Overrides:  # n layers on the GPU; of an MoE, dense-only but the first
        return layout(n, max(0, n - 1)) if moe else ()

    n_layer, memory = layers + 1, measure(seq, layers + 1, dense_only(layers + 1))  # step 4
    if memory > target:
        n_layer, memory = false_position(0, measure(seq, 0, ()), layers + 1, memory,
                                         lambda n: measure(seq, n, dense_only(n)))
    overrides = dense_only(n_layer)
    every_expert_out: Overrides = ((rf"blk\.\d+\.{Fraction.MOE.value}", "CPU"),)
    if not moe or measure(seq, layers + 1, every_expert_out) >= target:  # the dense weights leave no surplus
        return plan(seq, n_layer, overrides, memory)
    n_part = max(0, n_layer - 1)  # step 5: whole layers back (k of the n_part), then part of one more

    def taken_back(k: int) -> int:
        return measure(seq, n_layer, layout(n_layer, n_part - k))

    whole = taken_back(n_part)
    k, memory = (n_part, whole) if whole <= target else false_position(0, memory, n_part, whole, taken_back)
    n_part -= k
    overrides = layout(n_layer, n_part)
    if n_layer > 1:
        up = layout(n_layer, n_part, Fraction.UP)
        if (up_memory := measure(seq, n_layer, up)) < target:  # strict, as fit.cpp's test of one more layer
            overrides, memory = up, up_memory
            gate = layout(n_layer, n_part, Fraction.GATE)
            if (gate_memory := measure(seq, n_layer, gate)) < target:
                overrides, memory = gate, gate_memory
        else:
            attn = layout(n_layer, n_part, Fraction.ATTN)
            if (attn_memory := measure(seq, n_layer, attn)) < target:
                overrides, memory = attn, attn_memory
    return plan(seq, n_layer, overrides, memory)

