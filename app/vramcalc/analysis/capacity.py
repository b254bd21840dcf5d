"""What fits in a given amount of memory: the capacity table.

A cell is a range of model sizes for one memory size and one weight precision:
  upper bound = the parameters whose weights alone fill the memory: memory × 8 / bits;
  lower bound = the same with a headroom kept free for the runtime, KV cache and
                activations: memory × (1 − headroom) × 8 / bits.
Memory sizes are in GB (10^9 bytes), as the original table and GPU spec sheets use them.
Examples are real models with their real parameter counts (data/examples.json).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from importlib import resources

from ..core.dtypes import Precision
from ..core.units import GB
from ..model.table import param_count
from ..sources.gpus import load_gpus
from ..sources.presets import load_presets, preset_spec

SIZES_GB = (16, 24, 48, 80, 96, 128, 160, 192, 256, 320, 384, 512)
COLUMNS = (Precision.FP32, Precision.FP16, Precision.INT8, Precision.INT4, Precision.INT2)
"""The FP16 column stands for FP16 and BF16: both take 16 bits."""
DEFAULT_HEADROOM = 0.20
"""20 % kept free: 1 GiB of framework overhead plus an 8k-token KV cache is 11–25 % of a
16–80 GB card for the 8–70B presets here, and allocators lose 2–10 % to fragmentation
(reference.md §2.8)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Example:
    name: str
    params: int
    exact: bool
    source: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Placement:
    """An example model at the most precise format whose weights fit a memory size."""

    example: Example
    precision: Precision
    several_gpus: bool  # more than the largest single GPU in data/gpus holds at this precision

    @property
    def quantised(self) -> bool:
        return not self.precision.is_float


@dataclasses.dataclass(frozen=True, kw_only=True)
class Cell:
    precision: Precision
    low_params: int  # with the headroom kept free
    high_params: int  # weights alone fill the memory


@dataclasses.dataclass(frozen=True, kw_only=True)
class Row:
    memory_bytes: int
    cells: tuple[Cell, ...]
    examples: tuple[Placement, ...]


def params_in(memory_bytes: float, precision: Precision) -> int:
    """The most parameters whose weights fit in memory_bytes: memory × 8 / bits, rounded down."""
    return int(memory_bytes * 8 // precision.bits)


def cell(memory_bytes: int, precision: Precision, headroom: float) -> Cell:
    return Cell(
        precision=precision,
        low_params=params_in(memory_bytes * (1 - headroom), precision),
        high_params=params_in(memory_bytes, precision),
    )


@functools.cache
def load_examples() -> tuple[Example, ...]:
    raw = json.loads((resources.files("vramcalc") / "data" / "examples.json").read_text(encoding="utf-8"))
    examples = []
    for entry in raw["models"]:
        if "preset" in entry:
            preset = load_presets()[entry["preset"]]
            examples.append(Example(name=preset.display_name, params=param_count(preset_spec(preset.slug)), exact=True,
                                    source=preset.source))
        else:
            examples.append(Example(name=entry["name"], params=entry["params"], exact=entry["exact"],
                                    source=entry.get("source", "")))  # the page's copy leaves it out
    return tuple(examples)


def largest_gpu_bytes() -> int:
    return max(gpu.usable_bytes for gpu in load_gpus().values())


def best_placement(example: Example, memory_bytes: int, headroom: float, *,
                   single_gpu: float | None = None) -> Placement | None:
    """The most precise column in which the example's weights fit within the headroom, if any.
    `single_gpu`: what the largest GPU holds with the same headroom (computed when not given)."""
    if single_gpu is None:
        single_gpu = largest_gpu_bytes() * (1 - headroom)
    for precision in COLUMNS:
        weights = precision.bytes_for(example.params)
        if weights <= memory_bytes * (1 - headroom):
            return Placement(example=example, precision=precision, several_gpus=weights > single_gpu)
    return None


def placements(memory_bytes: int, headroom: float) -> tuple[Placement, ...]:
    """Every example that fits memory_bytes, each at its most precise format."""
    single_gpu = largest_gpu_bytes() * (1 - headroom)
    found = (best_placement(e, memory_bytes, headroom, single_gpu=single_gpu) for e in load_examples())
    return tuple(p for p in found if p is not None)


def row(memory_bytes: int, headroom: float, examples: tuple[Placement, ...] | None = None) -> Row:
    """One row, listing `examples` (by default every example that fits)."""
    if examples is None:
        examples = placements(memory_bytes, headroom)
    return Row(memory_bytes=memory_bytes, cells=tuple(cell(memory_bytes, p, headroom) for p in COLUMNS),
               examples=examples)


def table(headroom: float = DEFAULT_HEADROOM, sizes_gb: Sequence[int] = SIZES_GB) -> tuple[Row, ...]:
    """The rows for sizes_gb (ascending); each lists only the examples that are new, or at a
    more precise format, than in the row above."""
    rows: list[Row] = []
    before: dict[str, int] = {}  # example name -> index in COLUMNS of its format in the row above
    for size in sizes_gb:
        found = placements(size * GB, headroom)
        new = tuple(p for p in found if COLUMNS.index(p.precision) < before.get(p.example.name, len(COLUMNS)))
        rows.append(row(size * GB, headroom, new))
        before = {p.example.name: COLUMNS.index(p.precision) for p in found}
    return tuple(rows)
