"""What the page shows, as plain strings and numbers: one view of a Breakdown
that both the build (jinja2 prerender) and the browser module (DOM updates)
use, so the first paint and every later update come from the same code."""

from __future__ import annotations

import dataclasses

from .fit import GpuFit, fit_all
from .memory import Breakdown
from .messages import EN
from .units import format_binary, format_count, format_gb, format_gib

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
