"""The speed and cost of a workload on its target (`evaluate_speed`), and the reverse questions of speed:
the fastest weight format that fits, the most sequences that each keep a given number of tokens/s, the
fewest GPUs that finish a training run within given hours, the cheapest priced card, and for llama.cpp
with a mixture of experts the fewest expert layers in RAM that fit and the curve of that trade."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re

from ..core.choices import Runtime
from ..core.errors import ValidationError
from ..core.search import first_true, last_true
from ..engines import engine_for
from ..engines.cards import on_card
from ..engines.llamacpp_fit import FitPlan, llamacpp_fit
from ..engines.llamacpp_fit_gpus import free_on, llamacpp_fit_gpus
from ..engines.ollama import LLAMA_SERVER, num_ctx, searched, version_of
from ..inputs.options import parse_precision
from ..inputs.parse import check_consistency
from ..memory.states import weights_bytes
from ..sources.gpus import gpu
from ..speed import Cost, Speed, cost_of, decode_rate, default_prices, speed_of, throughput
from ..workload import Machine, Target, Workload
from .evaluate import estimate
from .fit import overhead_on
from .ranks import most_loaded
from .solve import fits, max_batch, min_gpus, weight_ladder

MAX_GPUS_FOR_RUN = 1024  # as min_gpus: beyond, "none"
CLEAR_GAIN = 1.10  # formats within 10 % of the fastest decode are not ranked: the most precise of them is named
# (decode's goal is a 15 % median error, docs/accuracy.md)
MIN_FASTEST_BITS = 4  # "the fastest format": 4-bit formats and wider (q4_k_s, iq4_xs, nf4, awq-int4; not q3_k_l)
_GGUF_BITS = re.compile(r"i?q(\d)_")
_NAMED_BITS = re.compile(r"(?:int|bpw:)(\d+(?:\.\d+)?)")


@dataclasses.dataclass(frozen=True, kw_only=True)
class SpeedAnswers:
    fastest_format: str | None = None  # inference: the format of the ladder that fits and decodes fastest
    max_concurrency: int | None = None  # inference: the most sequences at >= min_tokens_per_s each
    min_gpus_for_run: int | None = None  # training, with train_tokens and max_run_hours
    min_n_cpu_moe: int | None = None  # llama.cpp, MoE: the fewest first layers with experts in RAM that fit
    n_cpu_moe_tokens_per_s: float | None = None  # one sequence's speed with that many
    n_cpu_moe_curve: tuple[tuple[int, int, float], ...] = ()  # (N, the most loaded GPU's bytes, tokens/s)
    llamacpp_fit: FitPlan | None = None  # llama.cpp: what its own --fit would start with
    llamacpp_fit_tokens_per_s: float | None = None  # one sequence's speed with that plan
    cheapest_card: str | None = None  # of the cards with a default price, the lowest $ per million tokens
    cheapest_usd_per_million: float | None = None  # its price per million output (or training) tokens
    fits: bool = True  # the workload as set fits the target (else its speeds are of a run that cannot start)
    searched_fits: bool = True  # one sequence fits as the answers search (Ollama: every layer on the card)


def _decode(workload: Workload, target: Target, machine: Machine) -> float:
    return decode_rate(estimate(workload), target.gpu, target.count, machine) or 0.0


def _nominal_bits(name: str) -> float:
    """The bits a format is named by: q3_k_l 3, iq4_xs 4, int2 2, bpw:3.5 3.5; 16 for the others
    (every other GPU format stores 4 bits or more)."""
    for pattern in (_GGUF_BITS, _NAMED_BITS):
        match = pattern.match(name)
        if match:
            return float(match.group(1))
    return 16.0


def fastest_format(workload: Workload, target: Target, machine: Machine) -> str | None:
    """Of the engine's formats named by at least MIN_FASTEST_BITS bits (the checkpoint's own first) that
    fit, the most precise whose decode is within CLEAR_GAIN of the fastest: fewer bytes read per token is
    faster, but not always (llama.cpp's k-quants read more slowly per byte, and fixed per-step costs can
    hide the bytes saved), and closer than that the estimates cannot rank them. Below 4 bits quality falls
    off, and the answer would always be the smallest format: those are left to "the most precise weights
    that fit"."""
    rates: list[tuple[str, float]] = []  # from the most precise down
    for name in _candidates(workload):
        if _nominal_bits(name) < MIN_FASTEST_BITS:
            continue
        with contextlib.suppress(ValidationError):
            candidate = workload.but(precision=engine_for(workload.runtime).run_format(
                workload.model, parse_precision(name), training=False))
            check_consistency(candidate)
            if fits(candidate, target):
                rates.append((name, _decode(candidate, target, machine)))
    fastest = max((rate for _, rate in rates), default=0.0)
    return next((name for name, rate in rates if rate * CLEAR_GAIN >= fastest), None)


def _candidates(workload: Workload) -> list[str]:
    """The formats "the fastest that fits" ranks: the engine's ladder, and the format asked for where the ladder
    lacks it (a GPTQ or AWQ checkpoint on transformers), placed among them by its weights' bytes (more is more
    precise): a format that runs and fits is never left out of the answer for not being on the ladder."""
    names = weight_ladder(workload)
    own = workload.precision.value
    if own in names or workload.is_training:
        return names
    sizes = []
    with contextlib.suppress(ValidationError):
        sizes = [weights_bytes(workload.but(precision=parse_precision(name))).bytes for name in names]
    if len(sizes) != len(names):
        return [*names, own]
    mine = weights_bytes(workload).bytes
    at = next((i for i, size in enumerate(sizes) if size < mine), len(names))
    return [*names[:at], own, *names[at:]]


def max_concurrency(workload: Workload, target: Target, machine: Machine, tokens_per_s: float) -> int | None:
    """The most sequences decoded together that fit and still give each `tokens_per_s`: a step reads the
    weights once for all of them, so each gets less as they grow (binary search: the rate only falls)."""
    key = engine_for(workload.runtime).batch_key
    memory_limit = max_batch(workload, target)
    if memory_limit is None:
        return None
    return last_true(lambda n: _decode(workload.but(**{key: n}), target, machine) >= tokens_per_s, 1, memory_limit)


def _moves_experts(workload: Workload) -> bool:
    """Whether --n-cpu-moe is a choice here: llama.cpp (Ollama has no such flag), a mixture of experts, and
    not every expert already in RAM (--cpu-moe)."""
    return workload.runtime is Runtime.LLAMACPP and workload.model.moe is not None and not workload.cpu_moe


def min_n_cpu_moe(workload: Workload, target: Target) -> int | None:
    """llama.cpp with a mixture of experts: the smallest --n-cpu-moe at which the workload fits (each layer's
    experts moved to RAM frees their bytes on the GPU, so the memory falls as N grows: bisect), or None
    when it does not apply (`_moves_experts`) or even all of them do not fit. On a Mac or a unified PC the
    experts moved also fill its one memory, more as N grows (under a BIOS carve-out they fit only up to some N):
    the smallest N at which the GPU's part fits, if system RAM's part fits beside it there, else none."""
    if not _moves_experts(workload):
        return None
    least = first_true(lambda n: fits(workload.but(n_cpu_moe=n), target, shared=False), 0, workload.model.layers)
    return least if least is not None and fits(workload.but(n_cpu_moe=least), target) else None


def fit_plan(workload: Workload, target: Target) -> FitPlan | None:
    """llama.cpp's own fit on the target's cards (engines/llamacpp_fit.py) for llama-server given the
    context (-c) but no placement (no -ngl, -ot or --n-cpu-moe, which would stop the fit): the GPU's free
    memory is its usable memory less the CUDA context the breakdown counts (its overhead). Ollama starts
    llama-server so when num_gpu is not set (engines.md §1d), at its own num_ctx and one cache type,
    since v0.30; before, its own runners placed the layers by its estimate, which is not reproduced."""
    if workload.runtime not in (Runtime.LLAMACPP, Runtime.OLLAMA):
        return None
    if workload.runtime is Runtime.OLLAMA and version_of(workload) < LLAMA_SERVER:
        return None  # its own runner then, placing layers by its own estimate (llm/memory.go)
    free = free_on(workload.but(gpu=target.gpu), target.count)  # less the CUDA context and others: each card its own
    if target.count == 1:
        return llamacpp_fit(_unplaced(workload), free[0])
    return llamacpp_fit_gpus(_unplaced(workload), free)


def _unplaced(workload: Workload) -> Workload:
    """The workload as llama-server runs it when nothing places the layers: Ollama's as its llama-server."""
    if workload.runtime is Runtime.OLLAMA:
        workload = workload.but(runtime=Runtime.LLAMACPP, seq=num_ctx(workload)[0], kv_precision_k=None,
                                kv_precision_v=None)
    return workload.but(gpu_layers=None, override_tensor=(), n_cpu_moe=0, cpu_moe=False, tensor_split=())


CURVE_POINTS = 8  # the trade of --n-cpu-moe: this many spans from no expert in RAM to all of them


def n_cpu_moe_curve(workload: Workload, target: Target, machine: Machine) -> tuple[tuple[int, int, float], ...]:
    """GPU memory and one sequence's tokens/s as the first N layers' experts move to RAM, N from 0 to all
    (llama.cpp, mixture of experts; empty otherwise): the curve a user picks a point on."""
    if not _moves_experts(workload):
        return ()
    layers = workload.model.layers
    points = sorted({round(i * layers / CURVE_POINTS) for i in range(CURVE_POINTS + 1)})
    curve = []
    for n in points:
        moved = workload.but(n_cpu_moe=n)
        curve.append((n, most_loaded(moved, target.count).total_bytes, _decode(moved, target, machine)))
    return tuple(curve)


def cheapest_card(workload: Workload, target: Target, machine: Machine) -> tuple[str, float] | None:
    """Of the cards with a default price (data/prices.json, one provider's list), as many as the target
    has, the one that fits and makes a million output tokens (training: trained tokens) for the fewest
    dollars; the user's own price is for their card and is not compared (nor a machine of different cards)."""
    if target.cards:
        return None
    best: tuple[float, str] | None = None
    for slug, usd in default_prices().items():
        card = gpu(slug)
        candidate = Target(gpu=card, count=target.count)
        moved = workload.but(gpu=card, overhead_bytes=overhead_on(workload, card))  # the card's own overhead
        try:
            moved = on_card(moved, card)  # refused there, or the format the engine falls back to (engines/cards.py)
            if not fits(moved, candidate):
                continue
            rate = throughput(estimate(moved), card, target.count, machine)
        except ValidationError:
            continue
        if rate:
            per_million = usd * target.count / (rate * 3600) * 1e6
            if best is None or per_million < best[0]:
                best = (per_million, slug)
    return None if best is None else (best[1], best[0])


def min_gpus_for_run(workload: Workload, target: Target, machine: Machine, hours: float) -> int | None:
    """The fewest GPUs on which the training run fits and its `train_tokens` take at most `hours`."""
    if not machine.train_tokens:
        return None
    start = min_gpus(workload, target)
    if start is None:
        return None
    count = start
    for _ in range(12):  # the time falls about as 1/GPUs: a guess, then the next counts up
        if count > MAX_GPUS_FOR_RUN:
            return None
        laid = workload.on_gpus(count)  # as the same options with --gpus count run (fit.fewest_gpus)
        try:
            speed = speed_of(estimate(laid), target.gpu, count, machine)
        except ValidationError:
            speed = None
        if speed is not None and speed.train_tokens_per_s and fits(laid, Target(gpu=target.gpu, count=count)):
            taken = machine.train_tokens / speed.train_tokens_per_s / 3600
            if taken <= hours:
                return count
            count = max(count + 1, math.ceil(count * taken / hours))
        else:
            count += 1
    return None


@dataclasses.dataclass(frozen=True, kw_only=True)
class SpeedResult:
    """Everything the Speed section and the JSON's speed say, computed once: renderers only word it."""

    speed: Speed
    cost: Cost
    answers: SpeedAnswers
    machine: Machine
    target: Target


def evaluate_speed(workload: Workload, target: Target, machine: Machine) -> SpeedResult:
    """The speed and cost of the workload on the target, and the reverse answers of speed."""
    speed = speed_of(estimate(workload), target.gpu, target.count, machine)
    return SpeedResult(speed=speed, cost=cost_of(speed, target.gpu, target.count, machine, target.cards),
                       answers=speed_answers(workload, target, machine), machine=machine, target=target)


def speed_answers(workload: Workload, target: Target, machine: Machine) -> SpeedAnswers:
    now = fits(workload, target)
    if workload.transcribes or workload.embeds:  # no decode: the answers about tokens/s per sequence do not apply
        return SpeedAnswers(fits=now)
    plan = fit_plan(workload, target)
    workload = searched(workload)  # Ollama's: whole on the card, as llama.cpp's answers ask
    cheap = cheapest_card(workload, target, machine)
    card, per_million = (None, None) if cheap is None else cheap
    if workload.is_training:
        hours = machine.max_run_hours
        return SpeedAnswers(fits=now, min_gpus_for_run=None if hours is None else min_gpus_for_run(
            workload, target, machine, hours), cheapest_card=card, cheapest_usd_per_million=per_million)
    experts = min_n_cpu_moe(workload, target)
    placed = None if plan is None or not plan.fits else _unplaced(workload).but(
        seq=plan.seq, gpu_layers=plan.gpu_layers, override_tensor=plan.overrides,
        tensor_split=tuple(map(float, plan.tensor_split)))
    # llama.cpp fits the GPU's free memory only: on a Mac what it leaves in system RAM may not fit the rest
    planned = _decode(placed, target, machine) if placed is not None and fits(placed, target) else None
    return SpeedAnswers(fits=now, searched_fits=now and fits(workload, target), cheapest_card=card,
                        cheapest_usd_per_million=per_million,
                        llamacpp_fit=plan, llamacpp_fit_tokens_per_s=planned,
                        fastest_format=fastest_format(workload, target, machine),
                        max_concurrency=max_concurrency(workload, target, machine, machine.min_tokens_per_s),
                        min_n_cpu_moe=experts, n_cpu_moe_tokens_per_s=None if experts is None else _decode(
                            workload.but(n_cpu_moe=experts), target, machine),
                        n_cpu_moe_curve=n_cpu_moe_curve(workload, target, machine))
