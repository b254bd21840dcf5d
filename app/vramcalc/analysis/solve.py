"""The reverse questions: for a workload and a target (one kind of GPU, `count` of them
under the workload's layout as in pergpu.py), the longest sequence, the largest batch and
the largest model that fit, and the fewest GPUs needed.

"Fits" means the most loaded GPU's bytes are at most the GPU's usable memory (gpus.py).
Memory never decreases as the sequence, the batch or the depth grows, and it is linear or
quadratic in each, so `last_within` predicts the answer from the bytes at two points and
checks it with a few more estimates (regula falsi on integers, falling back to bisection
where the bytes jump). Each answer is exact: it fits and one more does not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable

from ..core.choices import GENERATING, GGUF_RUNTIMES, Objective, Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..engines import engine_for
from ..engines.cards import on_card
from ..engines.layouts import resolve_layout, seq_step
from ..engines.ollama import context_key, num_ctx, searched
from ..engines.transformers import ASSISTED_MAX_BATCH
from ..formats.weights import NATIVE
from ..inputs.options import MAX_BATCH, MAX_IMAGES, MAX_PX, MAX_SEQ, parse_precision
from ..inputs.parse import as_run, check_consistency
from ..memory.states import weights_bytes
from ..model.families.decoder.spec import ModelSpec
from ..model.families.vision import image_tokens, llamacpp_image_tokens, video_tokens
from ..model.table import param_count
from ..sources.fields import MAX_LAYERS, MAX_POSITIONS
from ..training.grpo import steps_per_generation
from ..workload import Target, Workload
from .evaluate import estimate
from .fit import fewest_gpus, room_on, with_shared_memory
from .ranks import most_loaded

# The formats each engine runs, tried from the most bits down (the answer is the first that fits).


@dataclasses.dataclass(frozen=True, kw_only=True)
class Solution:
    max_seq: int | None  # None: not even one token fits
    max_batch: int | None
    min_gpus: int | None  # None: the overhead alone fills one GPU
    max_layers: int | None  # the deepest model of this width that fits
    max_params: int | None  # its parameter count
    best_format: str | None = None  # the most precise weight format of this engine that fits
    best_kv_format: str | None = None  # the most precise KV format of this engine that fits (inference)


def need(workload: Workload, target: Target, *, shared: bool = True) -> float:
    """The most loaded GPU's bytes, what the solvers compare with the card's usable bytes; infinite when
    the layout cannot run at all. On llama.cpp's split over cards of different sizes, the first card's usable
    bytes plus the largest excess of a GPU over its own card: within the first card exactly when every GPU
    fits its own, and growing as each GPU's bytes grow. vLLM will not start when the requested sequences
    need more than the KV pool it sizes from the card: then the usable bytes plus that shortfall, so the bytes
    still grow smoothly with the size and `last_within` can interpolate across the pool's edge instead of
    bisecting (with room in the pool, the usable bytes less that room, which never decides a fit: at most the
    limit). On a Mac or a unified-memory PC, what is kept in system RAM shares the machine's memory with the
    GPU's part (fit.with_shared_memory), unless `shared` is false: the GPU's part alone."""
    try:
        rank = most_loaded(workload, target.count)
    except ValidationError:  # a layout these GPUs cannot run (fewer layers than pipeline stages)
        return math.inf
    if rank.devices:  # llama.cpp's split over cards of their own sizes: the GPU furthest over its own
        return target.gpu.usable_bytes + max(d.total_bytes - d.card.usable_bytes for d in rank.devices)
    if rank.pool is None:
        ram = rank.ram_bytes + rank.host_bytes if shared else 0
        return with_shared_memory(target.gpu, rank.total_bytes, ram)
    room = rank.pool.kv_pool_bytes - rank.components.get("kv_cache", 0)
    return max(rank.total_bytes, target.gpu.usable_bytes - room)


def fits(workload: Workload, target: Target, *, shared: bool = True) -> bool:
    """The per-GPU bytes within the card (and, for vLLM, the sequences within its KV pool); with `shared` false,
    without system RAM's part of a Mac's or unified PC's one memory."""
    return need(workload, target, shared=shared) <= target.gpu.usable_bytes


def last_within(size: Callable[[int], float], limit: float, low: int, high: int, start: int = 1) -> int | None:
    """The largest n in [low, high] with size(n) <= limit, for size never decreasing in n.

    From `start` (a guess such as the current value) it extrapolates the line through the two
    latest points until it passes the limit, then narrows the bracket by interpolating inside
    it, bisecting instead whenever interpolation fails to halve it. On bytes linear in n this
    takes about four estimates, on quadratic ones a few more, where bisection alone takes
    twenty or more (each estimate of a deep model walks every layer).
    """
    memo: dict[int, float] = {}

    def at(n: int) -> float:
        if n not in memo:
            memo[n] = size(n)
        return memo[n]

    if at(low) > limit:
        return None
    good, bad = low, None
    probe = min(max(start, low + 1), high)
    while bad is None:  # grow: each probe is where the line through the last two points meets the limit
        if probe <= good:
            return good  # good == high
        if at(probe) > limit:
            bad = probe
            break
        previous, good = good, probe
        rise = at(good) - at(previous)
        reach = int((limit - at(good)) * (good - previous) / rise) if rise > 0 else good
        probe = min(high, good + max(1, reach))
    guess = None  # after an interpolated probe, its neighbour: on straight lines that closes the bracket
    interpolate = True
    while bad - good > 1:
        y_good, y_bad = at(good), at(bad)
        if guess is not None and good < guess < bad:
            middle, interpolated = guess, False
        elif interpolate and math.isfinite(y_bad) and y_bad > y_good:
            middle, interpolated = good + int((limit - y_good) * (bad - good) / (y_bad - y_good)), True
            middle = min(max(middle, good + 1), bad - 1)
        else:
            middle, interpolated = (good + bad) // 2, False
        before = bad - good
        if at(middle) <= limit:
            good, guess = middle, middle + 1
        else:
            bad, guess = middle, middle - 1
        if not interpolated:
            guess = None
        interpolate = 2 * (bad - good) <= before or interpolated  # bisect after a step that did not halve it
    return good


def scaled_depth(model: ModelSpec, layers: int) -> ModelSpec:
    """The same architecture with another number of layers (a typed total scales with the depth). A model
    that does not exist has no GGUF file: its layers keep the real model's mixture on average
    (`planned_layers`), so its bytes grow by whole layers and cost one layer of each kind to count."""
    override = model.params_override
    if override is not None:
        override = round(override * layers / model.layers)
    return dataclasses.replace(model.with_layers(layers), params_override=override,
                               planned_layers=model.planned_layers or model.layers)


def media_tokens(workload: Workload) -> int:
    """The tokens the request's images and videos add to each sequence (inputs/parse.py counts them in `seq`)."""
    return workload.image_tokens + workload.video_tokens


def seq_limit(workload: Workload) -> int:
    """The most "the longest sequence" answers: the seq field's bound less the images' and videos' tokens, or
    Ollama's num_ctx's (`context_key`)."""
    return MAX_POSITIONS if context_key(workload) == "num_ctx" else MAX_SEQ - media_tokens(workload)


def seq_now(workload: Workload) -> int:
    """The value "the longest sequence" is set beside: the seq field's (without the images' and videos' tokens),
    or Ollama's num_ctx."""
    return num_ctx(workload)[0] if context_key(workload) == "num_ctx" else workload.seq - media_tokens(workload)


def max_seq(workload: Workload, target: Target) -> int | None:
    """The longest sequence, as the seq field takes it: the request's images and videos join it (their tokens
    added); GRPO's, RLOO's and PPO's hold the completion and at least one prompt token; under context (or sequence)
    parallelism the whole sequence is a multiple of `seq_step`, as the seq field then takes it. Under Ollama the largest
    num_ctx, the context it allocates whatever the sequence."""
    if context_key(workload) == "num_ctx":
        return last_within(lambda n: need(workload.but(num_ctx=n), target), target.gpu.usable_bytes,
                           1, MAX_POSITIONS, num_ctx(workload)[0])
    media, step = media_tokens(workload), seq_step(workload)  # whole sequences of `step` tokens (context parallel)
    low = -(-(workload.shortest_seq + media) // step)
    most = last_within(lambda n: need(workload.but(seq=n * step), target), target.gpu.usable_bytes,
                       low, MAX_SEQ // step, max(low, workload.seq // step))
    return None if most is None else most * step - media


def batch_step(workload: Workload) -> int:
    """The batches a workload accepts are multiples of this: GRPO's and RLOO's num_generations must divide
    --batch × GPUs × steps per generation (TRL's check, inputs/parse.py)."""
    if workload.objective not in GENERATING:
        return 1
    return workload.generations // math.gcd(workload.generations, workload.devices * steps_per_generation(workload))


def batch_key(workload: Workload) -> tuple[str, int]:
    """The Workload field "the largest batch" varies, and its limit: llama.cpp's and Ollama's sequences are
    --parallel slots."""
    key = "batch" if workload.is_training else engine_for(workload.runtime).batch_key
    if workload.runtime is Runtime.TRANSFORMERS and workload.draft_model is not None and not workload.is_training:
        return key, ASSISTED_MAX_BATCH  # assisted generation runs one sequence (its check refuses more)
    return key, MAX_BATCH if key == "batch" else engine_for(workload.runtime).max_batch or MAX_BATCH


def max_batch(workload: Workload, target: Target) -> int | None:
    """The largest batch (GRPO's: a multiple of `batch_step`); on llama.cpp, whose sequences are
    --parallel slots, the most slots."""
    key, limit = batch_key(workload)
    step = batch_step(workload) if key == "batch" else 1
    fewest = 2 if key == "batch" and workload.objective is Objective.KTO else 1  # KTO's KL term needs two
    most = last_within(lambda n: need(workload.but(**{key: n * step}), target), target.gpu.usable_bytes,
                       fewest, limit // step, max(fewest, getattr(workload, key) // step))
    return None if most is None else most * step


def with_images(workload: Workload, images: int, width: int, height: int) -> Workload:
    """The workload with other images: their tokens replace the current ones in the sequence (and prompt)."""
    assert workload.model.vision is not None
    per = llamacpp_image_tokens if workload.runtime is Runtime.LLAMACPP else image_tokens
    tokens = images * per(workload.model.vision, width, height)
    videos = workload.videos * video_tokens(workload.model.vision, workload.video_seconds, workload.video_fps,
                                            width, height) if workload.videos else 0  # frames of the image size
    more = tokens + videos - workload.image_tokens - workload.video_tokens
    prompt = None if workload.prompt_tokens is None else workload.prompt_tokens + more
    return workload.but(images=images, image_width=width, image_height=height, image_tokens=tokens,
                        video_tokens=videos, seq=workload.seq + more, prompt_tokens=prompt)


def max_images(workload: Workload, target: Target) -> int | None:
    """The most images of the request's size per request (none fitting: None); under context parallelism, the
    most of those fewer whose sequence the layout splits (`seq_step`: fewer images take less memory)."""
    size = workload.image_width, workload.image_height
    most = last_within(lambda n: need(with_images(workload, n, *size), target), target.gpu.usable_bytes,
                       1, MAX_IMAGES, workload.images)
    step = seq_step(workload)
    while most and with_images(workload, most, *size).seq % step:
        most -= 1
    return most or None


def largest_image(workload: Workload, target: Target) -> tuple[int, int] | None:
    """The largest image of the request's aspect that fits (its longer side in whole pixels), so many per request."""
    width, height = workload.image_width, workload.image_height
    longer = max(width, height)

    def sides(side: int) -> tuple[int, int]:
        return max(1, round(width * side / longer)), max(1, round(height * side / longer))

    def sequence(n: int) -> int:  # never decreasing in n, flat over the sizes whose tokens are the same
        return with_images(workload, workload.images, *sides(n)).seq

    side = last_within(lambda n: need(with_images(workload, workload.images, *sides(n)), target),
                       target.gpu.usable_bytes, 1, MAX_PX, longer)
    step = seq_step(workload)  # under context parallelism, the largest smaller size the layout splits:
    while side and sequence(side) % step:  # from one count of tokens to the next below, not pixel by pixel
        side = (last_within(sequence, sequence(side) - 1, 1, side - 1, side - 1) or 0) if side > 1 else 0
    return sides(side) if side else None


def min_gpus(workload: Workload, target: Target) -> int | None:
    """The fewest GPUs of the target's kind, each count as the same options with --gpus N run it (fit.fewest_gpus):
    one GPU without a layout, more under the layout the workload names (or named with one GPU), else the mode's
    default (parallel.default_layout). None for a machine of different cards, which has no one kind to count."""
    if target.cards:
        return None
    breakdown = estimate(workload)
    return fewest_gpus(breakdown, room_on(target.gpu, breakdown.host_bytes), engine_card=workload.gpu == target.gpu,
                       gpu=target.gpu)


def max_layers(workload: Workload, target: Target) -> int | None:
    """The deepest model of this width that fits. With every layer on the GPU (-ngl past the layers, as the
    answers ask of Ollama) the deeper model keeps every layer there too, not the same count with the rest in RAM."""
    whole = workload.gpu_layers is not None and workload.gpu_layers > workload.model.layers

    def size(layers: int) -> float:
        deeper = workload.but(model=scaled_depth(workload.model, layers))
        return need(deeper.but(gpu_layers=layers + 1) if whole else deeper, target)

    try:  # the shallowest model the layout runs: one layer per pipeline stage
        shallowest = resolve_layout(workload, target.count).pp
    except ValidationError:
        return None
    return last_within(size, target.gpu.usable_bytes, shallowest, MAX_LAYERS, workload.model.layers)


def weight_ladder(workload: Workload) -> list[str]:
    """The formats "the most precise weights that fit" tries, from the most precise down: the engine's
    ladder; for a checkpoint published quantised (inference), its own format first, and then only the
    formats smaller than it (a wider format of an FP8 or MXFP4 checkpoint holds no more precision)."""
    engine = engine_for(workload.runtime)
    names = list(engine.weight_ladder)
    if not workload.model.native_format or workload.is_training:
        return names
    try:
        own = engine.run_format(workload.model, NATIVE, training=False)
    except ValidationError:  # no format of this engine holds the checkpoint as published (FP8 on llama.cpp)
        return names
    own_bytes = weights_bytes(workload.but(precision=own)).bytes
    smaller: list[tuple[int, str]] = []
    for name in names:
        with contextlib.suppress(ValidationError):
            size = weights_bytes(workload.but(precision=as_run(workload, parse_precision(name)))).bytes
            if size < own_bytes:
                smaller.append((size, name))
    # largest first (stable: of two files of one size, the engine's more precise type): gpt-oss's GGUF types
    # differ only in the few tensors beside its MXFP4 experts, so their sizes need not follow their names
    return [own.value, *(name for _, name in sorted(smaller, key=lambda item: -item[0]))]


def _weights_size(workload: Workload) -> int:
    """The weights' bytes in the workload's format: whisper.cpp's own types for a speech model on llama.cpp (its
    files come from whisper-quantize, not llama-quantize, whose plan refuses Whisper's convolutions)."""
    if workload.transcribes and workload.runtime is Runtime.LLAMACPP:
        return estimate(workload).bytes_of("weights")
    return weights_bytes(workload).bytes


def best_format(workload: Workload, target: Target) -> str | None:
    """The weight format with the most bits, among those this engine runs on the target's card and the workload
    can take (training: fp32, fp16 or bf16, or nf4 under LoRA), at which the workload fits; the current format
    when it fits and none of those with more bits does (it may be none of the ladder's: fp32, nf4-dq). A format
    the engine would run as another on that card (transformers' FP8 before compute capability 8.9: bf16) is
    not proposed: it holds no more than the one it runs as."""
    current = _weights_size(workload) if fits(workload, target) else None
    for name in weight_ladder(workload):
        try:
            candidate = workload.but(precision=as_run(workload, parse_precision(name)), asked_precision=None)
            check_consistency(candidate)  # a format this model or mode cannot take (QLoRA's without LoRA)
            if on_card(candidate, None if target.cards else target.gpu).asked_precision is not None:
                continue  # the engine would run another format there (engines/cards.py)
            if current is not None and _weights_size(candidate) < current:
                return workload.precision.value  # what remains has fewer bits than the current format
            if fits(candidate, target):
                return name
        except ValidationError:
            continue
    return None if current is None else workload.precision.value


def best_kv_format(workload: Workload, target: Target) -> str | None:
    """The KV-cache format with the most bits, among this engine's, at which the workload fits; the
    current one when it fits and none with more bits does. None in training, which keeps no KV cache."""
    if workload.is_training:
        return None
    one_format = workload.kv_precision_k is None and workload.kv_precision_v is None
    kept = workload.effective_kv_precision
    if workload.runtime in GGUF_RUNTIMES and workload.kv_precision is None:  # -ctk/-ctv default f16, any weights
        kept = Precision.FP16
    current = kept if one_format and fits(workload, target) else None
    for precision in engine_for(workload.runtime).kv_ladder:
        if current is not None and precision.bits < current.bits:
            return current.value
        candidate = workload.but(kv_precision=precision, kv_precision_k=None, kv_precision_v=None)
        try:
            on_card(candidate, None if target.cards else target.gpu)
            engine_for(candidate.runtime).check(candidate)  # nor in this mode (transformers' int8 for embeddings)
        except ValidationError:  # a cache format the engine cannot keep on this card (vLLM's FP8 before 8.0)
            continue
        if fits(candidate, target):
            return precision.value
    return None if current is None else current.value


def solve(workload: Workload, target: Target) -> Solution:
    workload = searched(workload)
    layers = max_layers(workload, target)
    return Solution(
        best_format=best_format(workload, target),
        best_kv_format=best_kv_format(workload, target),
        max_seq=max_seq(workload, target),
        max_batch=max_batch(workload, target),
        min_gpus=min_gpus(workload, target),
        max_layers=layers,
        max_params=None if layers is None else param_count(scaled_depth(workload.model, layers)),
    )
