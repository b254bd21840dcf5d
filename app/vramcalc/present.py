"""What the page shows, as plain strings and numbers: one view of a Breakdown
that both the build (jinja2 prerender) and the browser module (DOM updates)
use, so the first paint and every later update come from the same code."""

from __future__ import annotations

import dataclasses

from . import capacity
from .charts import Chart, sweep
from .fit import GpuFit, fit_all
from .memory import Breakdown
from .messages import EN
from .models import MAX_LAYERS
from .solve import solve
from .units import GB, format_binary, format_count, format_gb, format_gib
from .workload import MAX_BATCH, MAX_SEQ, CapacityQuery, Target, Workload

BAR_WIDTH = 1000  # the SVG viewBox width of the stacked bar


@dataclasses.dataclass(frozen=True, kw_only=True)
class Row:
    key: str
    label: str
    bytes: int
    size: str
    share: str
    formula: str
    bar_x: float
    bar_width: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class GpuRow:
    slug: str
    name: str
    memory: str
    utilization: str
    bar_percent: float
    count: str
    verdict: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class View:
    total_bytes: int
    total_gb: str
    total_gib: str
    summary: str
    params: str
    rows: tuple[Row, ...]
    bar_text: str
    gpus: tuple[GpuRow, ...]
    notes: tuple[str, ...]


def present(breakdown: Breakdown) -> View:
    total = breakdown.total_bytes
    rows = []
    x = 0.0
    for component in breakdown.components:
        share = component.bytes / total if total else 0.0
        width = share * BAR_WIDTH
        rows.append(
            Row(
                key=component.key,
                label=EN[component.key],
                bytes=component.bytes,
                size=format_binary(component.bytes) if component.bytes else "0",
                share=f"{share:.1%}",
                formula=component.formula,
                bar_x=round(x, 3),
                bar_width=round(width, 3),
            )
        )
        x += width
    workload = breakdown.workload
    params = f"{format_count(breakdown.params)} parameters"
    if breakdown.active_params != breakdown.params:
        params += f" ({format_count(breakdown.active_params)} active per token)"
    bar_text = "; ".join(f"{row.label} {row.size} ({row.share})" for row in rows if row.bytes)
    return View(
        total_bytes=total,
        total_gb=format_gb(total),
        total_gib=format_gib(total),
        summary=f"{workload.model.display_name}, {workload.mode.value}, {workload.precision.value}, "
        f"batch {workload.batch}, {workload.seq:,} tokens",
        params=params,
        rows=tuple(rows),
        bar_text=bar_text,
        gpus=tuple(_gpu_row(fit) for fit in fit_all(breakdown)),
        notes=breakdown.notes,
    )


def _gpu_row(fit: GpuFit) -> GpuRow:
    return GpuRow(
        slug=fit.gpu.slug,
        name=fit.gpu.display_name,
        memory=f"{format_gib(fit.gpu.usable_bytes)} ({fit.gpu.marketed_memory_gb} GB marketed)",
        utilization=f"{fit.utilization:.0%}",
        bar_percent=round(min(fit.utilization, 1.0) * 100, 2),
        count="–" if fit.count is None else str(fit.count),
        verdict=fit.verdict.value,
    )


# ---------------------------------------------------------------- the reverse questions


@dataclasses.dataclass(frozen=True, kw_only=True)
class Answer:
    key: str  # max_seq, max_batch, min_gpus, max_params: the names of the --json output
    label: str
    value: int | None  # the exact answer, for data-value
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class TargetView:
    heading: str
    answers: tuple[Answer, ...]
    charts: tuple[Chart, ...]


def present_target(workload: Workload, target: Target) -> TargetView:
    solution = solve(workload, target)
    model = workload.model
    seq = solution.max_seq
    if seq is None:
        seq_text = "none: even 1 token does not fit"
    elif seq >= MAX_SEQ:
        seq_text = f"at least {seq:,} tokens (the input limit)"
    else:
        seq_text = f"{seq:,} tokens"
        if model.max_positions and seq > model.max_positions:
            seq_text += f" (beyond the model's {model.max_positions:,}-token context)"
    batch = solution.max_batch
    batch_text = "none: even 1 does not fit" if batch is None else (
        f"at least {batch:,} (the input limit)" if batch >= MAX_BATCH else f"{batch:,}"
    )
    gpus_text = "none: the overhead alone fills one GPU" if solution.min_gpus is None else (
        f"{solution.min_gpus:,} × {target.gpu.display_name}"
    )
    layers = solution.max_layers
    params_text = "none: even 1 layer does not fit" if layers is None else (
        f"{'at least ' if layers >= MAX_LAYERS else ''}{format_count(solution.max_params or 0)} parameters "
        f"({layers:,} layers of this width; now {model.layers:,})"
    )
    count = f"{target.count} × " if target.count > 1 else ""
    return TargetView(
        heading=f"On {count}{target.gpu.display_name} ({format_gib(target.gpu.usable_bytes)} each"
        + (", the workload split evenly)" if target.count > 1 else ")"),
        answers=(
            Answer(key="max_seq", label="Longest sequence", value=seq, text=seq_text),
            Answer(key="max_batch", label="Largest batch", value=batch, text=batch_text),
            Answer(key="min_gpus", label="Fewest GPUs", value=solution.min_gpus, text=gpus_text),
            Answer(key="max_params", label="Largest model, same family", value=solution.max_params, text=params_text),
        ),
        charts=(sweep(workload, target, "seq", seq), sweep(workload, target, "batch", batch)),
    )


# ---------------------------------------------------------------- the capacity table


@dataclasses.dataclass(frozen=True, kw_only=True)
class CapacityRow:
    id: str
    memory: str
    cells: tuple[str, ...]
    examples: str


def present_capacity_row(row: capacity.Row, *, id_: str) -> CapacityRow:
    return CapacityRow(
        id=id_,
        memory=format_gb(row.memory_bytes, digits=0) if row.memory_bytes % GB == 0 else format_gb(row.memory_bytes),
        cells=tuple(capacity.format_range(c) for c in row.cells),
        examples="; ".join(capacity.format_placement(p) for p in row.examples) or "–",
    )


def present_capacity(query: CapacityQuery) -> tuple[tuple[CapacityRow, ...], CapacityRow | None]:
    """The standard rows (examples new or more precise than the row above) and the user's row (all examples)."""
    table = capacity.table(query.headroom)
    rows = tuple(present_capacity_row(r, id_=f"capacity-{r.memory_bytes // GB}") for r in table.rows)
    user = None
    if query.memory_bytes is not None:
        user = present_capacity_row(capacity.row(query.memory_bytes, query.headroom), id_="capacity-user")
    return rows, user
