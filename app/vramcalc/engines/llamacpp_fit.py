"""llama.cpp's own fit (`--fit on`, the default at the pinned commit): the context, the layers on the GPU and the
experts it moves to system RAM so that the model leaves `--fit-target` free, as common/fit.cpp decides
them (llama.cpp 0c1e570, the pinned llama-cpp-python 0.3.36; notes in docs/research/engines.md §1g).

llama.cpp measures each trial by a dry-run load; here each trial is the engine's own llama.cpp
breakdown of that configuration (weights, cache and compute buffer on the GPU, as --override-tensor
places them). One GPU: the calculator's llama.cpp runs on one card."""

from __future__ import annotations

import bisect
import dataclasses
import enum
import functools
import itertools
import re
from collections.abc import Callable

from ..core.dtypes import Precision
from ..core.units import MIB
from ..formats import weights
from ..model.families.decoder.spec import ModelSpec
from ..model.families.decoder.tensors import layer_tensors
from ..workload import Workload
from .llamacpp import (
    LLAMACPP_PAD,
    LlamaCppFacts,
    LlamaCppLayout,
    compute_terms,
    llamacpp_breakdown,
    llamacpp_layout,
    uses_flash,
)
from .llamacpp_overrides import Overrides, overrides_text

FIT_TARGET = 1024 * MIB  # --fit-target: what each device keeps free (common.h)
FIT_CTX = 4096  # --fit-ctx: the smallest context the fit lowers to (common.h)


class Fraction(enum.Enum):
    """What of a layer's MLP leaves the GPU (common_layer_fraction_t): its pattern after `blk\\.N\\.`."""

    MOE = r"ffn_(up|down|gate_up|gate)_(ch|)exps"  # the routed experts
    ATTN = r"ffn_(gate|up|gate_up|down).*"  # the whole MLP: only attention stays
    UP = r"ffn_(gate|gate_up|down).*"  # all but the up projections
    GATE = r"ffn_down.*"  # the down projections


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
        return tuple((rf"blk\.{i}\.{(overflow if i == first else Fraction.MOE).value}", "CPU")
                     for i in range(first, layers))

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


# ---------------------------------------------------------------- several GPUs (fit.cpp with nd > 1)


@dataclasses.dataclass(frozen=True)
class Share:
    """One GPU's layers as fit.cpp keeps them (ngl_t): `n_layer` of the GPU layers (the last GPU's count
    takes in the output layer), of which the last `n_part` are partial: the first of those loses
    `overflow` (to system RAM, or to the next GPU), the others their routed experts (to system RAM)."""

    n_layer: int = 0
    n_part: int = 0
    overflow: Fraction = Fraction.MOE

    @property
    def n_full(self) -> int:
        return self.n_layer - self.n_part


@functools.lru_cache(maxsize=16)
def _fraction_masks(spec: ModelSpec) -> dict[object, dict[Fraction, tuple[bool, ...]]]:
    """For each layer group, which of its tensors (layer_tensors order) each fraction's pattern names."""
    masks: dict[object, dict[Fraction, tuple[bool, ...]]] = {}
    for key, index, _ in spec.layer_groups:
        names = [t.name.split(".", 2)[2] for t in layer_tensors(spec, index)]
        masks[key] = {f: tuple(bool(re.match(f.value, name)) for name in names) for f in Fraction}
    return masks


class Devices:
    """What each GPU holds for a plan of shares, as llama.cpp's dry run measures it (model + context +
    compute per device): a layer's tensors and its cache on its GPU (llama-model.cpp: the GPU layers are
    the last ones, the first GPU the lowest; -ts in layers gives each GPU exactly its count), a partial
    layer's named tensors where its overflow goes, the output layer on the last GPU with layers; each GPU
    with layers reserves the layers' compute term, the one with the output layer also the logits'.
    One sequence length: the tables are built once for a context, and each plan is then sums."""

    def __init__(self, workload: Workload, seq: int) -> None:
        spec = self.spec = workload.model
        fmt = workload.precision if isinstance(workload.precision, weights.WeightFormat) else None
        stack = weights.stack(spec, fmt, group_size=workload.group_size,
                              nominal_bits=weights.nominal_bits(workload.precision))
        masks = _fraction_masks(spec)
        self.total = [sum(sizes) for _, sizes in stack.layers]
        self.moved = {f: [sum(size for size, hit in zip(sizes, masks[key][f], strict=True) if hit)
                          for key, sizes in stack.layers] for f in Fraction}
        self.head = sum(size for tensor, size in stack.outside if tensor.name.startswith("output")) + sum(
            size for tensor, size in stack.outside if tensor.name == "token_embd.weight" and spec.tie_embeddings)
        kv_default = workload.kv_precision or Precision.FP16

        def layout(gpu_layers: int) -> LlamaCppLayout:
            return llamacpp_layout(spec, seq=seq, n_seq=workload.parallel, ubatch=workload.ubatch,
                                   flash=uses_flash(workload.attention), type_k=workload.kv_precision_k or kv_default,
                                   type_v=workload.kv_precision_v or kv_default, gpu_layers=gpu_layers)
        suffix = [layout(spec.layers - a + 1).kv_device_bytes for a in range(spec.layers + 1)]
        self.kv = [suffix[i] - suffix[i + 1] for i in range(spec.layers)]
        whole = layout(spec.layers + 1)
        self.layer_term, self.out_term = compute_terms(spec, n_ub=whole.n_ub, n_kv=whole.n_ctx if spec.attends else 0,
                                                       flash=uses_flash(workload.attention))

    def memory(self, shares: tuple[Share, ...], to_next: tuple[bool, ...]) -> list[tuple[float, int, int]]:
        """(model, context, compute) of each GPU for the plan (set_ngl_tensor_split_tbo's layout)."""
        layers = self.spec.layers
        nd = len(shares)
        model = [0.0] * nd
        context, compute = [0] * nd, [0] * nd
        il = layers + 1 - sum(s.n_layer for s in shares)
        for d, share in enumerate(shares):
            first_part = il + share.n_full
            for i in range(il, il + share.n_layer):
                if i == layers:  # the output layer
                    model[d] += self.head
                    compute[d] = max(compute[d], self.out_term)
                    continue
                context[d] += self.kv[i]
                compute[d] = max(compute[d], self.layer_term)
                held = self.total[i]
                if i >= first_part:
                    fraction = share.overflow if i == first_part else Fraction.MOE
                    gone = self.moved[fraction][i]
                    held -= gone
                    if i == first_part and to_next[d]:
                        model[d + 1] += gone
                model[d] += held
            il += share.n_layer
        return [(model[d], context[d], compute[d]) for d in range(nd)]

    def used(self, shares: tuple[Share, ...], to_next: tuple[bool, ...]) -> list[int]:
        return [round(m) + c + k for m, c, k in self.memory(shares, to_next)]


def default_split(free: tuple[int, ...], n: int) -> tuple[int, ...]:
    """llama-model.cpp without -ts: the GPU layers in shares of the devices' free memory, layer k of n on
    the first device whose cumulative share exceeds k / n."""
    total = sum(free)
    points = list(itertools.accumulate(f / total for f in free))
    counts = [0] * len(free)
    for k in range(n):
        counts[min(bisect.bisect_right(points, k / n), len(free) - 1)] += 1
    return tuple(counts)


def llamacpp_fit_gpus(workload: Workload, free: tuple[int, ...], *, ctx_auto: bool = False,
                      margin: int = FIT_TARGET, fit_ctx: int = FIT_CTX) -> FitPlan:
    """common_params_fit_impl on several GPUs (`free`: each one's free memory), with the same margin on
    each: 1. as given, the layers split by free memory, each GPU's own margin checked; 2. without -c,
    the context lowered by one interpolation on the sum of the GPUs, less an allowance for whole layers
    ((nd + 1) · a layer's bytes / 2, / 6 for experts), and the fit goes on; 3. given -ngl or tensor
    overrides, it stops; 4. the GPUs filled back to front, each with the most layers that fit it by false
    position (a mixture of experts dense-only); 5. a mixture of experts whose dense weights leave a surplus
    in all: front to back, each GPU takes full layers from the dense-only ones behind it, then one layer
    in part (UP, GATE or ATTN) overflowing to the next GPU (the last: to system RAM), kept only if both
    stay strictly under their targets. The plan: -ngl, -ts in layers, and the overrides."""
    spec = workload.model
    layers = spec.layers
    nd = len(free)
    moe = spec.moe is not None
    targets = [f - margin for f in free]
    cpu = (False,) * nd
    tables: dict[int, Devices] = {}

    def devices(seq: int) -> Devices:
        if seq not in tables:
            tables[seq] = Devices(workload, seq)
        return tables[seq]

    def plan(seq: int, shares: tuple[Share, ...], to_next: tuple[bool, ...], used: list[int],
             changed: bool = True) -> FitPlan:
        overrides = []
        il = layers + 1 - sum(s.n_layer for s in shares)
        for d, share in enumerate(shares):
            il += share.n_full
            for i in range(il, min(il + share.n_part, layers)):  # the output layer's index names no tensor
                first = i == il
                device = f"CUDA{d + 1}" if first and to_next[d] else "CPU"
                overrides.append((rf"blk\.{i}\.{(share.overflow if first else Fraction.MOE).value}", device))
            il += share.n_part
        worst = max(range(nd), key=lambda d: used[d] - targets[d])
        return FitPlan(seq=seq, gpu_layers=sum(s.n_layer for s in shares), overrides=tuple(overrides),
                       device_bytes=used[worst], target_bytes=targets[worst], changed=changed,
                       fits=all(u <= t for u, t in zip(used, targets, strict=True)),
                       tensor_split=tuple(s.n_layer for s in shares), devices_bytes=tuple(used))

    given = layers + 1 if workload.gpu_layers is None else workload.gpu_layers
    start = tuple(Share(n) for n in default_split(free, given))
    trained = spec.max_positions or workload.seq
    seq = trained if ctx_auto else workload.seq
    full = devices(seq).memory(start, cpu)
    used = [round(m) + c + k for m, c, k in full]
    if all(u <= t for u, t in zip(used, targets, strict=True)):  # step 1
        return plan(seq, start, cpu, used, changed=seq != workload.seq)
    if sum(free) - sum(used) - nd * margin < 0 and ctx_auto and trained > fit_ctx:  # step 2
        goal = sum(free) - nd * margin
        if nd > 1:  # whole layers (or tensors, of experts) leave some of each GPU unused
            per_layer = round(sum(m for m, _, _ in full)) // min(given, layers)
            goal -= (nd + 1) * per_layer // (6 if moe else 2)
        low = sum(devices(fit_ctx).used(start, cpu))
        seq = fit_ctx
        if goal > low:
            seq = fit_ctx + (trained - fit_ctx) * (goal - low) // (sum(used) - low)
            seq = max(seq - seq % LLAMACPP_PAD, fit_ctx)
            if nd == 1:  # the context alone is taken to fit, unmeasured
                return plan(seq, start, cpu, devices(seq).used(start, cpu))
    if workload.gpu_layers is not None or workload.override_tensor or workload.n_cpu_moe or workload.cpu_moe:
        return plan(seq, start, cpu, devices(seq).used(start, cpu), changed=True)  # step 3
    table = devices(seq)
    surplus_moe = 0
    if moe:  # every layer's routed experts in RAM, the layers split as in step 1
        every = tuple(Share(s.n_layer, s.n_layer) for s in start)
        surplus_moe = sum(f - u - margin for f, u in zip(free, table.used(every, cpu), strict=True))
    shares = [Share()] * nd
    memory = table.used(tuple(shares), cpu)
    for d in range(nd - 1, -1, -1):  # step 4: back to front
        high = list(shares)
        n = layers + 1 - sum(s.n_layer for s in shares[d + 1:])
        high[d] = Share(n, (n if d < nd - 1 else n - 1) if moe else 0)
        if n == 0:
            continue
        high_memory = table.used(tuple(high), cpu)
        if high_memory[d] <= targets[d]:
            shares, memory = high, high_memory
            continue
        delta = high[d].n_layer - shares[d].n_layer
        while delta > 1:
            step = min(max(delta * (targets[d] - memory[d]) // (high_memory[d] - memory[d]), 1), delta - 1)
            test = list(shares)
            part = shares[d].n_part + (step - 1 if d == nd - 1 and shares[d].n_part == 0 else step) if moe else 0
            test[d] = Share(shares[d].n_layer + step, part)
            test_memory = table.used(tuple(test), cpu)
            if test_memory[d] <= targets[d]:
                shares, memory = test, test_memory
            else:
                high, high_memory = test, test_memory
            delta = high[d].n_layer - shares[d].n_layer
    if not moe or surplus_moe <= 0:
        return plan(seq, tuple(shares), cpu, memory)
    to_next = list(cpu)
    dense_start = nd  # step 5: the first GPU of the run of GPUs with layers at the back
    for d in range(nd - 1, -1, -1):
        if shares[d].n_layer == 0:
            break
        dense_start = d
    d = 0
    while d <= dense_start < nd:
        high = list(shares)
        for j in range(dense_start, nd):  # every layer of the GPUs behind, full, on this one
            move = high[j].n_layer - (1 if j == nd - 1 else 0)
            high[d] = dataclasses.replace(high[d], n_layer=high[d].n_layer + move)
            high[j] = dataclasses.replace(high[j], n_layer=high[j].n_layer - move, n_part=0)
        high_start = nd - 1
        high_memory = table.used(tuple(high), tuple(to_next))
        if high_memory[d] > targets[d]:
            delta = high[d].n_full - shares[d].n_full
            while delta > 1:
                step = min(max(delta * (targets[d] - memory[d]) // (high_memory[d] - memory[d]), 1), delta - 1)
                test, test_start, done = list(shares), dense_start, 0
                while test_start < nd:
                    k = min(step - done, test[test_start].n_part)
                    test[test_start] = dataclasses.replace(test[test_start], n_layer=test[test_start].n_layer - k,
                                                           n_part=test[test_start].n_part - k)
                    test[d] = dataclasses.replace(test[d], n_layer=test[d].n_layer + k)
                    done += k
                    if test[test_start].n_part > 0:
                        break
                    test_start += 1
                test_memory = table.used(tuple(test), tuple(to_next))
                if test_memory[d] <= targets[d]:
                    shares, memory, dense_start = test, test_memory, test_start
                else:
                    high, high_memory, high_start = test, test_memory, test_start
                delta = high[d].n_full - shares[d].n_full
        else:
            shares, memory, dense_start = high, high_memory, high_start
        if shares[dense_start].n_layer > (0 if d < nd - 1 else 1) and shares[dense_start].n_part > 0:
            # part of one more layer, overflowing to the next GPU (the last: to RAM). With no partial layer
            # left behind, fit.cpp's unsigned n_part wraps and its overrides overrun: not followed here.
            test = list(shares)
            test[dense_start] = dataclasses.replace(test[dense_start], n_layer=test[dense_start].n_layer - 1,
                                                    n_part=test[dense_start].n_part - 1)
            test[d] = dataclasses.replace(test[d], n_layer=test[d].n_layer + 1, n_part=test[d].n_part + 1)
            test_start = dense_start + 1 if test[dense_start].n_part == 0 else dense_start
            test_next = [*to_next[:d], d < nd - 1, *to_next[d + 1:]]

            def tried(overflow: Fraction, test: list[Share] = test, d: int = d,
                      test_next: list[bool] = test_next) -> tuple[list[Share], list[int], bool]:
                """The plan with that overflow, its memory, and fit.cpp's strict test of it on both GPUs."""
                plan = [*test[:d], dataclasses.replace(test[d], overflow=overflow), *test[d + 1:]]
                used = table.used(tuple(plan), tuple(test_next))
                return plan, used, used[d] < targets[d] and (d + 1 == nd or used[d + 1] < targets[d + 1])
            up, up_memory, up_fits = tried(Fraction.UP)
            if up_fits:
                shares, to_next, memory, dense_start = up, test_next, up_memory, test_start
                gate, gate_memory, gate_fits = tried(Fraction.GATE)
                if gate_fits:
                    shares, memory = gate, gate_memory
            else:
                attn, attn_memory, attn_fits = tried(Fraction.ATTN)
                if attn_fits:
                    shares, to_next, memory, dense_start = attn, test_next, attn_memory, test_start
        d += 1
    return plan(seq, tuple(shares), tuple(to_next), memory)

