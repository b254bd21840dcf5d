"""llama.cpp's own fit on several GPUs (common/fit.cpp at 0c1e570 with nd > 1; notes in
docs/research/engines.md §1g): the layers filled from the last GPU back, a mixture of experts' layers then
made whole from the first GPU on with one layer overflowing to the next, and -ts in layers. Each trial is
measured by `Devices`, a model of llama.cpp's dry run per GPU that on one GPU is the engine's own
breakdown to the byte; on one GPU the general fit is llamacpp_fit's plan for plan (both held by tests)."""

from __future__ import annotations

import bisect
import dataclasses
import functools
import re
import struct
from collections.abc import Sequence

from ..core.dtypes import Precision
from ..formats import weights
from ..memory.states import vision_bytes
from ..model.families.decoder.spec import ModelSpec
from ..model.families.decoder.tensors import layer_tensors
from ..workload import Workload
from .llamacpp import (
    LLAMACPP_PAD,
    OP_OFFLOAD_MIN_BATCH,
    LlamaCppLayout,
    clip_compute_bytes,
    cpu_moe_layers,
    ffn_term,
    head_bytes,
    llamacpp_layout,
    reserved_outputs,
    uses_flash,
)
from .llamacpp_fit import FIT_CTX, FIT_TARGET, FitPlan, Fraction


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
        self.largest = [max(sizes, default=0.0) for _, sizes in stack.layers]  # op offload's copies
        self.largest_moved = {f: [max((size for size, hit in zip(sizes, masks[key][f], strict=True) if hit),
                                      default=0.0) for key, sizes in stack.layers] for f in Fraction}
        self.head_size = head_bytes(spec, stack)
        self.head = sum(size for tensor, size in stack.outside if tensor.name.startswith("output")) + sum(
            size for tensor, size in stack.outside if tensor.name == "token_embd.weight" and spec.tie_embeddings)
        kv_default = workload.kv_precision or Precision.FP16

        def layout(gpu_layers: int) -> LlamaCppLayout:
            return llamacpp_layout(spec, seq=seq, n_seq=workload.parallel, ubatch=workload.ubatch,
                                   flash=uses_flash(workload.attention), type_k=workload.kv_precision_k or kv_default,
                                   type_v=workload.kv_precision_v or kv_default, gpu_layers=gpu_layers,
                                   n_outputs=reserved_outputs(workload))
        suffix = [layout(spec.layers - a + 1).kv_device_bytes for a in range(spec.layers + 1)]
        self.kv = [suffix[i] - suffix[i + 1] for i in range(spec.layers)]
        whole = layout(spec.layers + 1)
        self.layer_term, self.out_term = whole.terms
        self.ffn_term = ffn_term(spec, whole.n_ub)
        self.offloads, self.head_offloads = (n >= OP_OFFLOAD_MIN_BATCH for n in (whole.n_ub, whole.n_out))

    def memory(self, shares: tuple[Share, ...], to_next: tuple[bool, ...],
               cpu_moe: int = 0) -> list[tuple[float, int, int]]:
        """(model, context, compute) of each GPU for the plan (set_ngl_tensor_split_tbo's layout); the
        first GPU's compute buffer also holds op offload's copy of the largest weight in RAM, beside its MLP's
        tensors (and beside the logits only when it computes them: measured on two devices, the logits stay
        with the output layer's GPU, tests/test_llamacpp_split.py). `cpu_moe`: the
        first layers whose routed experts --n-cpu-moe keeps in RAM (the user's; the fit places its own)."""
        layers = self.spec.layers
        nd = len(shares)
        model = [0.0] * nd
        context, compute = [0] * nd, [0] * nd
        il = layers + 1 - sum(s.n_layer for s in shares)
        copy = max(self.largest[:il], default=0.0) if self.offloads else 0.0
        head_copy = self.head_size if il > layers and self.head_offloads else 0.0
        output = 0  # the device computing the logits: the output layer's, else the first (its head copied)
        for d, share in enumerate(shares):
            first_part = il + share.n_full
            for i in range(il, il + share.n_layer):
                if i == layers:  # the output layer
                    model[d] += self.head
                    compute[d] = max(compute[d], self.out_term)
                    output = d
                    continue
                context[d] += self.kv[i]
                compute[d] = max(compute[d], self.layer_term)
                held = self.total[i]
                if i < cpu_moe and i < first_part:  # --n-cpu-moe: the layer's routed experts in RAM
                    held -= self.moved[Fraction.MOE][i]
                    if self.offloads:
                        copy = max(copy, self.largest_moved[Fraction.MOE][i])
                if i >= first_part:
                    fraction = share.overflow if i == first_part else Fraction.MOE
                    gone = self.moved[fraction][i]
                    held -= gone
                    if i == first_part and to_next[d]:
                        model[d + 1] += gone
                    elif self.offloads:
                        copy = max(copy, self.largest_moved[fraction][i])
                model[d] += held
            il += share.n_layer
        if copy or head_copy:
            compute[0] = max(compute[0], self.ffn_term + round(copy),
                             self.out_term + round(head_copy) if output == 0 else 0)
        return [(model[d], context[d], compute[d]) for d in range(nd)]

    def used(self, shares: tuple[Share, ...], to_next: tuple[bool, ...]) -> list[int]:
        return totals(self.memory(shares, to_next))


def totals(memory: list[tuple[float, int, int]]) -> list[int]:
    """Each GPU's model + context + compute, as the fit compares it with its target."""
    return [round(m) + c + k for m, c, k in memory]


def _f32(value: float) -> float:
    """`value` as a C float (IEEE single precision): llama-model.cpp computes its split points in floats."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def layer_split(weights: Sequence[float], n: int) -> tuple[int, ...]:
    """How many of the n GPU layers (the output layer the last of them) each device gets: llama-model.cpp
    load_tensors (src/llama-model.cpp:1556-1614). `weights` are -ts as given (:1576; missing entries 0), or,
    all zero, each device's free memory (:1559-1574). The split points are their running sums over the
    total, in floats (:1579-1587); GPU layer k goes to the first device whose point exceeds float(k) / n
    (std::upper_bound, :1597), so each device holds a run of consecutive layers."""
    if not any(weights):  # no free memory anywhere: nothing will fit, the layers shared evenly
        weights = (1.0,) * len(weights)
    points, total = [], 0.0
    for weight in weights:
        total = _f32(total + _f32(weight))
        points.append(total)
    points = [_f32(point / total) for point in points]
    counts = [0] * len(weights)
    for k in range(n):
        counts[min(bisect.bisect_right(points, _f32(k / n)), len(weights) - 1)] += 1
    return tuple(counts)


def split_weights(workload: Workload, free: Sequence[int]) -> Sequence[float]:
    """What llama.cpp splits the layers by on these devices: --tensor-split's first entry per device, missing
    ones 0 (common/arg.cpp:2845-2851; llama-model.cpp:1576 copies n_devices() of them, so more are ignored),
    unless those are all zero (:1557): then each device's free memory."""
    given = (*workload.tensor_split[:len(free)], *(0.0,) * (len(free) - len(workload.tensor_split)))
    return given if any(given) else free


def free_on(workload: Workload, gpus: int) -> tuple[int, ...]:
    """Each GPU's free memory as llama.cpp reads it (cudaMemGetInfo, after its CUDA context): the card's
    usable memory less the engine's overhead and what other programs hold; `gpus` of the workload's card,
    or its mixed cards."""
    cards = workload.cards or (workload.gpu,) * gpus
    return tuple(max(0, (card.usable_bytes if card is not None else 0) - workload.held_bytes) for card in cards)


@dataclasses.dataclass(frozen=True)
class DevicePlan:
    """Each GPU's share of a llama.cpp load as it is given (no fit): its layers (-ts in layers, the output
    layer counted on the GPU that holds it) and its (model, context, compute) bytes, as
    llama_memory_breakdown_print shows them per device (the CUDA context and other programs not included)."""

    layers: tuple[int, ...]
    memory: tuple[tuple[int, int, int], ...]

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(parts) for parts in self.memory)


def split_of(workload: Workload, free: Sequence[int]) -> tuple[int, ...]:
    """Each device's layers as llama.cpp loads the workload as given (-ngl's layers, -ts or free memory)."""
    layers = workload.model.layers
    given = layers + 1 if workload.gpu_layers is None else min(workload.gpu_layers, layers + 1)
    return layer_split(split_weights(workload, free), given)


def device_plan(workload: Workload, free: Sequence[int]) -> DevicePlan:
    """What each of the devices (`free`: each one's free memory, CUDA0 first) holds for the workload as
    given: -ngl's layers split by layer_split; a layer's weights and its cache on its device, the output
    layer on the device the rule gives its index (the last one with layers), each device's compute buffer
    (Devices: the layers' term where it has layers, the logits' where the output is, op offload's copy on
    the first); the projector (mmproj) and its compute buffer on the first GPU, where clip.cpp starts its
    backend (tools/mtmd/clip.cpp:196, ggml_backend_init_by_type(GPU): the first GPU device)."""
    layers = split_of(workload, free)
    table = Devices(workload, workload.seq)
    parts = table.memory(tuple(Share(n) for n in layers), (False,) * len(free), cpu_moe=cpu_moe_layers(workload))
    memory = [(round(model), context, compute) for model, context, compute in parts]
    if not workload.no_mmproj_offload:
        model, context, compute = memory[0]
        memory[0] = (model + vision_bytes(workload), context, compute + clip_compute_bytes(workload)[0])
    return DevicePlan(layers=layers, memory=tuple(memory))


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
                overrides.append(((share.overflow if first else Fraction.MOE).of_layer(i), device))
            il += share.n_part
        worst = max(range(nd), key=lambda d: used[d] - targets[d])
        return FitPlan(seq=seq, gpu_layers=sum(s.n_layer for s in shares), overrides=tuple(overrides),
                       device_bytes=used[worst], target_bytes=targets[worst], changed=changed,
                       fits=all(u <= t for u, t in zip(used, targets, strict=True)),
                       tensor_split=tuple(s.n_layer for s in shares), devices_bytes=tuple(used))

    given = layers + 1 if workload.gpu_layers is None else workload.gpu_layers
    start = tuple(Share(n) for n in layer_split(split_weights(workload, free), given))
    trained = spec.max_positions or workload.seq
    seq = trained if ctx_auto else workload.seq
    full = devices(seq).memory(start, cpu)
    used = totals(full)
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
    if (workload.gpu_layers is not None or workload.override_tensor or workload.n_cpu_moe or workload.cpu_moe
            or any(workload.tensor_split)):  # step 3: fit.cpp:463-486, each "already set by user, abort"
        return plan(seq, start, cpu, devices(seq).used(start, cpu), changed=True)
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

