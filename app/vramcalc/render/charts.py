"""Memory against sequence length and against batch size, as SVG geometry.

The page keeps one prerendered <svg> per chart and sets these coordinates and labels
on it, so the build and the browser draw from the same numbers. Readable without
colour: the GPU's memory is a dashed, labelled line; where the workload stops
fitting is a hatched, labelled region; the current value is a labelled marker.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable

from ..analysis.ranks import most_loaded
from ..analysis.solve import batch_key, media_tokens, need, seq_limit
from ..core.units import GIB
from ..engines.layouts import seq_step
from ..engines.ollama import context_key, num_ctx, searched
from ..workload import Target, Workload
from .messages import ENGLISH, Words

WIDTH, HEIGHT = 640, 260  # the viewBox
LEFT, RIGHT, TOP, BOTTOM = 84, 30, 14, 40  # plot margins, wide enough for the labels at phone size
BOX = {  # the plot area, for the page template
    "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP, "bottom": HEIGHT - BOTTOM,
    "plot_height": HEIGHT - TOP - BOTTOM,
}
SAMPLES = 24  # grid points per curve: smooth enough for the quadratic eager-attention curve
FIRST_SPLIT = 4  # the curve is always estimated at the ends and the quarters of the grid
FLAT_PX = 0.5  # a stretch whose middle lies within this of the straight line is drawn straight
TICKS = 5  # on each axis, from 0 to the maximum
HEADROOM_ABOVE_LIMIT = 1.15  # the axis goes a little above the GPU's memory
CLIP_ABOVE_LIMIT = 3.0  # and no further than this multiple of it, so the limit stays readable


@dataclasses.dataclass(frozen=True, kw_only=True)
class Tick:
    pos: float
    label: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Chart:
    key: str
    x_label: str
    path: str  # the memory curve, an SVG path
    limit_y: float
    limit_label: str
    over_x: float  # the hatched "does not fit" region starts here ...
    over_width: float  # ... and is this wide (0: it fits across the whole range)
    now_x: float
    now_label: str
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    desc: str


def nice_ceil(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k that is at least value."""
    if value <= 0:
        return 1.0
    power: float = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value * (1 - 1e-12):
            return step * power
    return 10 * power


def _count_label(value: float, *, words: Words) -> str:
    return words.localize(f"{value:,.0f}") if value < 10_000 else words.count(round(value))


def _trace(grid: list[int], at: Callable[[int], int], y_max: float, flat: float) -> None:
    """Estimate the curve at enough grid points to draw it: the ends and quarters, then the middle of
    every stretch whose middle is more than `flat` bytes (half a pixel) off the straight line between
    its ends, until the stretches are straight or one grid step wide. Quadratic pieces (eager attention)
    are furthest from their chord at the middle, so their drawing stays within half a pixel; straight
    ones cost the five first estimates instead of 25."""
    last = len(grid) - 1
    edges = sorted({round(last * i / FIRST_SPLIT) for i in range(FIRST_SPLIT + 1)})
    for index in edges:
        at(index)
    stretches = list(itertools.pairwise(edges))
    while stretches:
        low, high = stretches.pop()
        if high - low < 2:
            continue
        middle = (low + high) // 2
        y_low, y_high = min(at(low), y_max), min(at(high), y_max)
        line = y_low + (y_high - y_low) * (grid[middle] - grid[low]) / (grid[high] - grid[low])
        if abs(min(at(middle), y_max) - line) > flat:
            stretches += [(low, middle), (middle, high)]


def sweep(workload: Workload, target: Target, key: str, answer: int | None, *, words: Words = ENGLISH) -> Chart:
    """Per-GPU memory as `key` goes from 1 to a round number past `answer` (the solver's result). The sequence axis
    is the whole sequence, images' and videos' tokens included, as the memory depends on it; the longest sequence
    and the seq field leave those tokens out, so their marks are moved by them and their labels are the field's."""
    workload = searched(workload)  # as the answers it draws are searched: Ollama's model whole on the card
    # Ollama allocates num_ctx whatever the sequence: its sequence chart sweeps that, as its longest-sequence answer
    # and llama.cpp's and Ollama's batch chart their --parallel slots, as their largest-batch answer
    media = media_tokens(workload) if key == "seq" and context_key(workload) == "seq" else 0
    # the whole sequence's bound is the field's (solve.seq_limit) with the images' tokens
    attribute, limit = (context_key(workload), seq_limit(workload) + media) if key == "seq" else batch_key(workload)
    x_label = words.message(f"chart.axis.{attribute}")
    current = num_ctx(workload)[0] if attribute == "num_ctx" else getattr(workload, attribute)
    answer_x = None if answer is None else answer + media
    x_max = nice_ceil(min(limit, max(2 * current, 1.25 * (answer_x or 0))))
    step = seq_step(workload) if attribute == "seq" else 1  # context parallel: multiples of 2 × cp, as the field takes
    grid = sorted({max(step, step * min(round(x_max * i / SAMPLES / step), int(x_max // step)))
                   for i in range(SAMPLES + 1)})
    memory: dict[int, int] = {}  # the estimates, by index into grid

    def at(index: int) -> int:  # different cards: the GPU furthest over its own card, as against the first (need)
        if index not in memory:
            moved = workload.but(**{attribute: grid[index]})
            memory[index] = round(need(moved, target)) if target.cards else most_loaded(moved, target.count).total_bytes
        return memory[index]

    usable = target.gpu.usable_bytes
    # Memory never decreases along the axis, so the last point is the largest and sets the scale.
    top = max(usable * HEADROOM_ABOVE_LIMIT, min(at(len(grid) - 1), usable * CLIP_ABOVE_LIMIT))
    y_max = nice_ceil(top / GIB) * GIB
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    _trace(grid, at, y_max, FLAT_PX * y_max / plot_h)
    xs = [grid[index] for index in sorted(memory)]
    ys = [memory[index] for index in sorted(memory)]

    def px(x: float) -> float:
        return round(LEFT + plot_w * x / x_max, 2)

    def py(y: float) -> float:
        return round(TOP + plot_h * (1 - min(y, y_max) / y_max), 2)

    path = " ".join(f"{'M' if i == 0 else 'L'}{px(x)},{py(y)}" for i, (x, y) in enumerate(zip(xs, ys, strict=True)))
    name, usable_text = words.say(target.label), words.gib(usable)
    if answer_x is None:
        over_x = float(LEFT)
        ending = words.message("chart.ending.none", name=attribute, target=name)
    else:
        over_x = px(min(answer_x, x_max))
        if answer_x >= x_max:
            ending = words.message("chart.ending.all", target=name)
        else:
            ending = words.message("chart.ending.stop", target=name, memory=usable_text, answer=answer)
    return Chart(
        key=key,
        x_label=x_label,
        path=path,
        limit_y=py(usable),
        limit_label=words.message("chart.limit", target=name, memory=usable_text),
        over_x=over_x,
        over_width=round(LEFT + plot_w - over_x, 2),
        now_x=px(min(current, x_max)),
        now_label=words.message("chart.now", value=current - media),
        x_ticks=tuple(  # on an axis shorter than its ticks (assisted generation's one sequence) whole counts alone
            Tick(pos=px(x), label=_count_label(x, words=words) if x == int(x) or x_max >= TICKS - 1 else "")
            for x in (x_max * i / (TICKS - 1) for i in range(TICKS))
        ),
        y_ticks=tuple(
            Tick(pos=py(y_max * i / (TICKS - 1)), label=words.localize(f"{y_max * i / (TICKS - 1) / GIB:,.4g} GiB"))
            for i in range(TICKS)
        ),
        desc=words.message(
            "chart.desc", axis=x_label, first=words.gib(ys[0]), last=words.gib(ys[-1]),
            end=_count_label(xs[-1], words=words), ending=ending,
        ),
    )
