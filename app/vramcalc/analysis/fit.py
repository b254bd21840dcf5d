"""How a workload fits on each GPU.

Several GPUs hold what the most loaded rank of a layout holds (pergpu.py): the layout the workload
names, or the mode's default (tensor parallel for inference, ZeRO-3 data parallel for training)."""

from __future__ import annotations

import dataclasses
import enum
import math

from ..core.errors import ValidationError
from ..engines import engine_for
from ..engines.cards import on_card
from ..engines.layouts import seq_step
from ..engines.llamacpp import one_gpu_only
from ..engines.ollama import searched
from ..memory.components import Breakdown
from ..sources.gpus import GpuSpec, table_gpus
from ..training.grpo import generation_gpus
from ..workload import Workload
from .evaluate import estimate
from .ranks import PerGpu, per_gpu

TIGHT_RATIO = 0.9  # above 90 % of a card the allocator's fragmentation (2–10 %, reference.md §2.8) may not leave room


class Verdict(enum.Enum):
    FITS = "fits"
    TIGHT = "tight"
    DOES_NOT_FIT = "does not fit"


@dataclasses.dataclass(frozen=True, kw_only=True)
class GpuFit:
    gpu: GpuSpec
    utilization: float  # total / usable memory of one GPU
    count: int | None  # GPUs needed; None when even the overhead alone does not fit one
    refused: str | None = None  # why the engine cannot run this format on this card (engines/cards.py); count None

    @property
    def verdict(self) -> Verdict:
        if self.refused is not None or (self.count or 1) > 1:  # more than one (vLLM: a pool too small)
            return Verdict.DOES_NOT_FIT
        if self.utilization <= TIGHT_RATIO:
            return Verdict.FITS
        if self.utilization <= 1.0:
            return Verdict.TIGHT
        return Verdict.DOES_NOT_FIT


MAX_SEARCH_GPUS = 1024


def fewest_gpus(breakdown: Breakdown, usable_bytes: int, *, engine_card: bool = False,
                ranks: dict[int, PerGpu | None] | None = None, gpu: GpuSpec | None = None) -> int | None:
    """The fewest GPUs whose most loaded rank fits (None: none up to 1,024), each count judged as the same
    options with --gpus n run (Workload.on_gpus): one GPU without a layout (the page hides its fields), more
    under the layout the user named (kept in `named_layout` when they named it with one GPU). One GPU first;
    then a layout that names every degree has one count, one that leaves dp open grows in steps of
    tp × pp × cp, and without a layout the mode's default for n = 2, 4, ... and then the smallest n below
    that fits.
    `engine_card`: the card is the one the engine sizes itself on (vLLM's pool must then hold
    the requested sequences too). `ranks` keeps the most loaded GPU per count between calls for
    other cards (fit_all), since it does not depend on the card. `gpu`: a Mac's or unified PC's one memory
    also holds each rank's offloaded states (ZeRO-Offload), which leave less room for its GPU part."""
    workload = breakdown.workload
    if workload.held_bytes >= usable_bytes:
        return None
    ranks = {} if ranks is None else ranks
    laid = {1: workload.on_gpus(1), 2: workload.on_gpus(2)}  # one GPU, and more
    breakdowns = {key: breakdown for key, value in laid.items() if value is workload}

    def on(n: int) -> Breakdown:
        key = min(n, 2)
        if key not in breakdowns:
            breakdowns[key] = estimate(laid[key])
        return breakdowns[key]

    unit = generation_gpus(workload)  # GRPO's and RLOO's generation batch: TRL refuses other counts

    def ok(n: int) -> bool:
        if n % unit:
            return False
        if n not in ranks:
            try:
                ranks[n] = per_gpu(on(n), n)
            except ValidationError:  # a layout n GPUs cannot run
                ranks[n] = None
        rank = ranks[n]
        if rank is None:
            return False
        room = usable_bytes
        if gpu is not None and rank.host_bytes:  # what the rank's offloaded states take of a shared memory
            ram = on(n).host_bytes
            room -= room_on(gpu, ram) - room_on(gpu, ram + rank.host_bytes)
        return rank.total_bytes <= room and (rank.runs or not engine_card)

    if ok(1):  # one GPU runs without a layout: the fewest whatever the layout named for more
        return 1
    if one_gpu_only(workload):  # llama.cpp's speculative decoding, modelled on one GPU: more are refused
        return None
    several = laid[2]
    if several.seq % seq_step(several):  # a sequence the layout named with one GPU cannot split (check_seq)
        return None
    step = 1
    if several.layout_given:
        step = (several.tp or 1) * (several.pp or 1) * (several.cp or 1)
        if several.dp is not None:
            return step * several.dp if ok(step * several.dp) else None
    step = math.lcm(step, unit)
    high = step
    while not ok(high):
        high *= 2
        if high > MAX_SEARCH_GPUS:
            return None
    return next(n for n in range(high // 2 + step, high + 1, step) if ok(n)) if high > step else high


def room_on(gpu: GpuSpec, ram: int) -> int:
    """The bytes the GPU part of a workload may take on `gpu`: its usable memory; on a Mac or a unified-memory PC,
    whose one memory the GPU shares with the CPU, no more than what system RAM's part (`ram`: llama.cpp's layers or
    experts off the GPU, offloaded activations or states) leaves of it. Under a BIOS carve-out (`carved_out`) the
    share is the GPU's whether used or not: the whole share while `ram` fits the rest, else less than nothing."""
    shared = gpu.shared_memory_bytes
    if shared is None or not ram:
        return gpu.usable_bytes
    if gpu.carved_out:
        left = shared - gpu.usable_bytes  # what the OS and system RAM's part have
        return gpu.usable_bytes if ram <= left else left - ram
    return min(gpu.usable_bytes, shared - ram)


def shared_fill(gpu: GpuSpec, device: float, ram: int) -> float | None:
    """How full a shared memory is with `device` bytes on the GPU and `ram` in system RAM (over 1: it does not
    hold them), as `room_on` rules; None for a card of its own memory, or with nothing in system RAM."""
    shared = gpu.shared_memory_bytes
    if shared is None or not ram:
        return None
    return ram / (shared - gpu.usable_bytes) if gpu.carved_out else (device + ram) / shared


def with_shared_memory(gpu: GpuSpec, device: float, ram: int) -> float:
    """`device` bytes raised by what `ram` takes of a shared memory beyond the GPU's usable part: within
    `gpu.usable_bytes` exactly when `device` is within `room_on(gpu, ram)`, and growing with `device`."""
    return device + gpu.usable_bytes - room_on(gpu, ram)


def fit_all(breakdown: Breakdown) -> tuple[GpuFit, ...]:
    """Each listed card: how full one is, how many of that kind it takes (never the user's mixed cards), for the
    model as the searches take it (Ollama's: whole, not as llama-server fitted it to the form's card), in the
    format the engine runs on that card (engines/cards.py: refused there, or another one it falls back to)."""
    whole = searched(breakdown.workload)
    if whole is not breakdown.workload:
        breakdown = estimate(whole)
    if breakdown.workload.cards:
        breakdown = dataclasses.replace(breakdown, workload=breakdown.workload.but(cards=()))
    form = breakdown
    # by the format run (the form's, the asked one, a fallback) and the engine's card key: its breakdown and its
    # most loaded GPU by count, the same for every card of that format and key
    runs: dict[tuple[object, object, object], tuple[Breakdown, dict[int, PerGpu | None]]] = {}
    engine = engine_for(form.workload.runtime)
    form_card = engine.card_key(form.workload, form.workload.gpu) if form.workload.gpu else None
    fits = []
    for gpu in table_gpus().values():
        try:
            run = on_card(form.workload, gpu)
            engine.check(run.but(gpu=gpu))  # what it refuses on that card (vLLM on a Mac, CTranslate2 off CUDA)
        except ValidationError as error:
            fits.append(GpuFit(gpu=gpu, utilization=0.0, count=None, refused=str(error)))
            continue
        card = engine.card_key(run, gpu)  # what else of the breakdown the card changes (vLLM's KV block)
        key = (run.precision, run.asked_precision, card)
        if key not in runs:
            same = key == (form.workload.precision, form.workload.asked_precision, form_card)
            runs[key] = (form if same else estimate(run if card == form_card else run.but(gpu=gpu)), {})
        breakdown, ranks = runs[key]
        total, ram = breakdown.total_bytes, breakdown.host_bytes
        shift = own_overhead(breakdown, gpu)  # each GPU holds one overhead: the card's, less the form's
        used = (total + shift) / gpu.usable_bytes
        fill = shared_fill(gpu, total + shift, ram)  # a Mac's or unified PC's one memory also holds system RAM's
        if fill is not None:
            used = max(used, fill)
        fits.append(GpuFit(gpu=gpu, utilization=used,
                           count=fewest_gpus(breakdown, room_on(gpu, ram) - shift, ranks=ranks, gpu=gpu,
                                             engine_card=breakdown.workload.gpu == gpu)))
    return tuple(fits)


def overhead_on(workload: Workload, gpu: GpuSpec) -> int:
    """The workload's overhead on `gpu`: the user's, or the engine's default for that card (transformers': its
    CUDA context by card class, sources/gpu_overhead.py)."""
    if workload.overhead_given:
        return workload.overhead_bytes
    return engine_for(workload.runtime).default_overhead({**vars(workload), "gpu": gpu})


def own_overhead(breakdown: Breakdown, gpu: GpuSpec) -> int:
    """What `gpu`'s own overhead adds to the breakdown's, computed for the form's card."""
    return overhead_on(breakdown.workload, gpu) - breakdown.workload.overhead_bytes
