"""What the page shows, as plain strings and numbers: one view of a Breakdown
that both the build (jinja2 prerender) and the browser module (DOM updates)
use, so the first paint and every later update come from the same code."""

from __future__ import annotations

import dataclasses

from . import capacity
from .charts import Chart, sweep
from .fit import GpuFit, fit_all
from .memory import Breakdown
from .messages import EN, message
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
    assumptions: tuple[str, ...]  # non-empty: the result is approximate, and these say why
    runtime_lines: tuple[str, ...]  # the engine's own figures in words (vLLM's pool, llama.cpp's devices)


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
    params = message("results.params", count=format_count(breakdown.params))
    if breakdown.active_params != breakdown.params:
        params += message("results.active", count=format_count(breakdown.active_params))
    bar_text = "; ".join(f"{row.label} {row.size} ({row.share})" for row in rows if row.bytes)
    return View(
        total_bytes=total,
        total_gb=format_gb(total),
        total_gib=format_gib(total),
        summary=message(
            "results.summary", model=workload.model.display_name, mode=workload.mode.value,
            precision=workload.precision.value, batch=workload.batch, seq=workload.seq,
        ),
        params=params,
        rows=tuple(rows),
        bar_text=bar_text,
        gpus=tuple(_gpu_row(fit) for fit in fit_all(breakdown)),
        notes=breakdown.notes,
        assumptions=breakdown.assumptions,
        runtime_lines=_runtime_lines(breakdown),
    )


def _answer_label(key: str, workload: Workload) -> str:
    if key == "max_batch" and workload.runtime.value == "llamacpp" and not workload.is_training:
        return "answer.max_parallel"  # llama.cpp's sequences are --parallel slots
    return f"answer.{key}"


def _runtime_lines(breakdown: Breakdown) -> tuple[str, ...]:
    runtime, workload = breakdown.runtime, breakdown.workload
    if runtime.get("name") == "vllm":
        return (message("runtime.vllm", gpu=runtime["gpu"], util=runtime["gpu_memory_utilization"],
                        claimed=format_gib(runtime["claimed_bytes"]), pool=format_gib(runtime["kv_pool_bytes"]),
                        tokens=f"{runtime['kv_tokens']:,}", concurrency=f"{runtime['max_concurrency']:,.2f}",
                        seq=f"{workload.seq:,}"),)
    if runtime.get("name") == "llamacpp":
        return (message("runtime.llamacpp", gpu_bytes=format_gib(runtime["device_bytes"]),
                        host_bytes=format_gib(runtime["host_bytes"]), layers=runtime["gpu_layers"] - 1 if
                        runtime["gpu_layers"] else 0, total=workload.model.layers, n_ctx=f"{runtime['n_ctx']:,}",
                        n_seq=runtime["n_seq"]),)
    if breakdown.phases:  # a training step: every phase's total with the overhead, the peak named
        overhead = breakdown.bytes_of("overhead")
        return tuple(message("phase.line.peak" if name == breakdown.peak_phase else "phase.line",
                             phase=message(f"phase.{name}"), total=format_gib(total + overhead))
                     for name, total in breakdown.phase_totals().items())
    return ()


def _gpu_row(fit: GpuFit) -> GpuRow:
    return GpuRow(
        slug=fit.gpu.slug,
        name=fit.gpu.display_name,
        memory=message("gpus.memory", usable=format_gib(fit.gpu.usable_bytes), marketed=fit.gpu.marketed_memory_gb),
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
        seq_text = message("answer.seq_none")
    elif seq >= MAX_SEQ:
        seq_text = message("answer.seq_capped", value=seq)
    else:
        seq_text = message("answer.seq", value=seq)
        if model.max_positions and seq > model.max_positions:
            seq_text += message("answer.seq_beyond_context", context=model.max_positions)
    batch = solution.max_batch
    if batch is None:
        batch_text = message("answer.batch_none")
    else:
        batch_text = message("answer.batch_capped", value=batch) if batch >= MAX_BATCH else f"{batch:,}"
    if solution.min_gpus is None:
        gpus_text = message("answer.gpus_none")
    else:
        gpus_text = message("answer.gpus", value=solution.min_gpus, gpu=target.gpu.display_name)
    layers = solution.max_layers
    if layers is None:
        params_text = message("answer.params_none")
    else:
        params_text = message(
            "answer.params", at_least=message("answer.at_least") if layers >= MAX_LAYERS else "",
            count=format_count(solution.max_params or 0), layers=layers, now=model.layers,
        )
    heading = message(
        "reverse.heading_split" if target.count > 1 else "reverse.heading",
        target=target.label, memory=format_gib(target.gpu.usable_bytes),
    )
    values = {"max_seq": seq, "max_batch": batch, "min_gpus": solution.min_gpus, "max_params": solution.max_params,
              "best_format": solution.best_format, "best_kv_format": solution.best_kv_format}
    texts = {"max_seq": seq_text, "max_batch": batch_text, "min_gpus": gpus_text, "max_params": params_text,
             "best_format": solution.best_format or message("answer.format_none"),
             "best_kv_format": solution.best_kv_format or message("answer.format_none")}
    return TargetView(
        heading=heading,
        answers=tuple(
            Answer(key=key, label=message(_answer_label(key, workload)), value=values[key], text=texts[key])
            for key in values
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
    rows = tuple(present_capacity_row(r, id_=f"capacity-{r.memory_bytes // GB}") for r in capacity.table(query.headroom))
    user = None
    if query.memory_bytes is not None:
        user = present_capacity_row(capacity.row(query.memory_bytes, query.headroom), id_="capacity-user")
    return rows, user
