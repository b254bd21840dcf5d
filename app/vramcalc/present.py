"""What the page shows, as plain strings and numbers: one view of a Breakdown
that both the build (jinja2 prerender) and the browser module (DOM updates)
use, so the first paint and every later update come from the same code."""

from __future__ import annotations

import dataclasses

from . import capacity
from .charts import Chart, sweep
from .fit import TIGHT_RATIO, GpuFit, fit_all
from .fit import Verdict as FitVerdict
from .memory import COMPONENTS, Breakdown, estimate
from .parallel import Offload, stage_layers
from .pergpu import PerGpu, most_loaded, per_gpu
from .messages import localize, message
from .models import MAX_LAYERS
from .errors import ValidationError
from .options import Checkpointing
from .solve import Solution, fits, solve
from .units import GB, format_binary, format_count, format_gb, format_gib
from .workload import (MAX_BATCH, MAX_SEQ, CapacityQuery, Target, Workload, check_consistency, parse_precision,
                       resolve_layout)

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
    verdict: str  # fits, tight, does not fit: the key the page's styles use
    verdict_text: str  # the same in words, in the page's language


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
                label=message(component.key),
                bytes=component.bytes,
                size=format_binary(component.bytes) if component.bytes else "0",
                share=localize(f"{share:.1%}"),
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
            "results.summary", model=workload.model.display_name, mode=message(f"option.mode.{workload.mode.value}").lower(),
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
        utilization=localize(f"{fit.utilization:.0%}"),
        bar_percent=round(min(fit.utilization, 1.0) * 100, 2),
        count="–" if fit.count is None else str(fit.count),
        verdict=fit.verdict.value,
        verdict_text=message(f"fit.{fit.verdict.value}"),
    )


# ---------------------------------------------------------------- the reverse questions


@dataclasses.dataclass(frozen=True, kw_only=True)
class Answer:
    key: str  # max_seq, max_batch, min_gpus, max_params: the names of the --json output
    label: str
    value: int | None  # the exact answer, for data-value
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class RankRow:
    key: str
    label: str
    bytes: int
    size: str
    how: str  # how this component was split across the GPUs
    bar_x: float
    bar_width: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class RankView:
    """The most loaded GPU of a layout: its breakdown, how each part was split, the stages, host memory."""
    title: str
    total_bytes: int
    rows: tuple[RankRow, ...]  # every component, in COMPONENTS order (zero ones too: the page hides them)
    lines: tuple[str, ...]  # the stages side by side, host memory, vLLM's pool on this GPU


@dataclasses.dataclass(frozen=True, kw_only=True)
class TargetView:
    heading: str
    answers: tuple[Answer, ...]
    charts: tuple[Chart, ...]
    rank: RankView | None = None  # more than one GPU
    verdict: Verdict | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Verdict:
    """The answer first: does it fit on the user's card(s), how full, and the nearest changes that fit."""
    kind: str  # fits, tight, does not fit (fit.Verdict's values)
    text: str
    percent: float  # of the most loaded GPU's usable memory, for the meter (capped at 100)
    changes: tuple[str, ...]  # each one change that makes it fit, the smallest first
    short: str = ""  # for the phone's sticky summary: "17.87 GiB per GPU · fits one RTX 4090 (76%)"


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
        batch_text = message("answer.batch_capped", value=batch) if batch >= MAX_BATCH else localize(f"{batch:,}")
    if solution.min_gpus is None:
        gpus_text = message("answer.gpus_none" if workload.overhead_bytes >= target.gpu.usable_bytes
                            else "answer.gpus_none_rank")
    else:
        gpus_text = message("answer.gpus", value=solution.min_gpus, gpu=target.gpu.display_name)
        if solution.min_gpus > 1:
            gpus_text += f" ({resolve_layout(workload, solution.min_gpus).describe()})"
    layers = solution.max_layers
    if layers is None:
        params_text = message("answer.params_none")
    else:
        params_text = message(
            "answer.params", at_least=message("answer.at_least") if layers >= MAX_LAYERS else "",
            count=format_count(solution.max_params or 0), layers=layers, now=model.layers,
        )
    loaded = most_loaded(workload, target.count)
    rank = loaded
    if rank.layout.gpus == 1 and rank.layout.offload is Offload.NONE:
        rank = None  # one GPU holds what the breakdown above shows
    heading = message(
        "reverse.heading_split" if rank else "reverse.heading",
        target=target.label, memory=format_gib(target.gpu.usable_bytes),
        layout=rank and layout_text(workload, rank),
    )
    if target.count == 1 and rank is None and (workload.zero or workload.fsdp.value):
        heading += message("layout.zero_one_gpu")
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
        rank=rank and present_rank(workload, target, rank),
        verdict=present_verdict(workload, target, solution, loaded),
    )


def present_verdict(workload: Workload, target: Target, solution: Solution, rank: PerGpu) -> Verdict:
    """`rank`: the most loaded GPU of the workload on the target (pergpu.per_gpu)."""
    usable = target.gpu.usable_bytes
    used = rank.total_bytes / usable
    where = message("verdict.one", gpu=target.gpu.display_name) if target.count == 1 else message(
        "verdict.many", count=target.count, gpu=target.gpu.display_name, layout=rank.layout.describe())
    numbers = dict(where=where, used=format_gib(rank.total_bytes), usable=format_gib(usable), share=f"{used:.0%}")
    if rank.runs and used <= 1.0:
        kind = FitVerdict.FITS if used <= TIGHT_RATIO else FitVerdict.TIGHT
        key = "verdict.fits" if kind is FitVerdict.FITS else "verdict.tight"
        return Verdict(kind=kind.value, text=message(key, **numbers), percent=round(used * 100, 1), changes=(),
                       short=message(key + ".short", **numbers))
    if not rank.runs:  # vLLM: its share of the card leaves no room for the sequences asked
        text = message("verdict.no_pool", where=where, pool=format_gib(int(rank.engine.get("kv_pool_bytes", 0))),
                       kv=format_gib(rank.components.get("kv_cache", 0)))
    else:
        largest = max((k for k in rank.components if k != "overhead"), key=rank.components.__getitem__)
        text = message("verdict.no", **numbers, part=message(largest).lower() if largest != "kv_cache" else message(largest),
                       part_share=f"{rank.components[largest] / rank.total_bytes:.0%}")
    return Verdict(kind=FitVerdict.DOES_NOT_FIT.value, text=text, percent=100.0,
                   changes=_changes(workload, target, solution), short=message("verdict.no.short", **numbers))


def _changes(workload: Workload, target: Target, solution: Solution) -> tuple[str, ...]:
    """The single changes that fit, from the reverse answers: a smaller KV format, a shorter context or
    batch keep the model as it is, so they come first; then a smaller weight format; then more GPUs."""
    changes = []
    if solution.best_kv_format and solution.best_kv_format != workload.effective_kv_precision.value:
        changes.append(message("change.kv", format=solution.best_kv_format))
    if solution.max_seq and solution.max_seq < workload.seq:
        changes.append(message("change.seq", value=solution.max_seq))
    if solution.max_batch and solution.max_batch < workload.batch:
        changes.append(message("change.batch", value=solution.max_batch))
    if solution.best_format and solution.best_format != workload.precision.value:
        changes.append(message("change.format", format=solution.best_format))
    if workload.is_training:  # the fine-tuner's usual ways down: checkpointing, LoRA, QLoRA
        for key, change in (("change.checkpointing", {"checkpointing": Checkpointing.LAYER}),
                            ("change.lora", {"lora_rank": 16}),
                            ("change.qlora", {"lora_rank": 16, "precision": parse_precision("nf4")}),
                            ("change.qlora_checkpointing", {"lora_rank": 16, "precision": parse_precision("nf4"),
                                                            "checkpointing": Checkpointing.LAYER})):
            if key == "change.qlora_checkpointing" and changes:
                continue  # the combination only when no single change fits
            if all(getattr(workload, k) == v for k, v in change.items()):
                continue
            try:
                candidate = dataclasses.replace(workload, **change)
                check_consistency(candidate)
                if fits(candidate, target):
                    changes.append(message(key))
            except ValidationError:
                continue
    if solution.min_gpus and solution.min_gpus > target.count:
        layout = resolve_layout(workload, solution.min_gpus).describe()
        changes.append(message("change.gpus", count=solution.min_gpus, gpu=target.gpu.display_name, layout=layout))
    return tuple(changes)


def rank_rows(view: TargetView) -> tuple[RankRow, ...]:
    """The per-GPU rows to prerender: the view's, or empty ones for one GPU (the page fills them later)."""
    if view.rank:
        return view.rank.rows
    return tuple(RankRow(key=key, label=message(key), bytes=0, size="0", how="", bar_x=0.0, bar_width=0.0)
                 for key in COMPONENTS)


def layout_text(workload: Workload, rank: PerGpu) -> str:
    """'TP 4', or 'TP 4, assumed (tensor parallel within the node): set the layout to change it'."""
    text = rank.layout.describe()
    if workload.layout_given:
        return text
    return message("layout.assumed", layout=text, why=message(
        "layout.default_training" if workload.is_training else
        "layout.default_llamacpp" if workload.runtime.value == "llamacpp" else "layout.default_inference"))


def present_rank(workload: Workload, target: Target, rank: PerGpu) -> RankView:
    total, usable = rank.total_bytes, target.gpu.usable_bytes
    scale = max(total, usable)  # the bar is the card, filled; past it, the bar is the total and the card is short
    rows, x = [], 0.0
    how = split_notes(workload, rank)
    for key in COMPONENTS:
        value = rank.components.get(key, 0)
        width = value / scale * BAR_WIDTH
        rows.append(RankRow(key=key, label=message(key), bytes=value, size=format_binary(value) if value else "0",
                            how=how.get(key, ""), bar_x=round(x, 3), bar_width=round(width, 3)))
        x += width
    lines = [message("rank.stages", stages="; ".join(f"{name}: {format_gib(b)}" for name, b in rank.stages.items()))
             ] if rank.stages else []
    if rank.host_bytes:
        lines.append(message("rank.host", bytes=format_gib(rank.host_bytes)))
    if rank.engine.get("kv_pool_bytes") is not None:
        lines.append(message("rank.vllm_pool", pool=format_gib(rank.engine["kv_pool_bytes"]),
                             tokens=f"{rank.engine['kv_tokens']:,}", seq=f"{workload.seq:,}",
                             concurrency=f"{rank.engine['max_concurrency'] or 0:,.2f}"))
    title = message("rank.title" if rank.stages else "rank.title_same", rank=rank.rank, total=format_gib(total), share=f"{total / usable:.0%}",
                    memory=format_gib(usable), phase=message(f"phase.{rank.peak_phase}")
                    if workload.is_training else message("rank.inference"))
    return RankView(title=title, total_bytes=total, rows=tuple(rows), lines=tuple(lines))


def split_notes(workload: Workload, rank: PerGpu) -> dict[str, str]:
    """One phrase per component: how the layout split it onto this GPU."""
    layout, model = rank.layout, workload.model
    n, zero = layout.shard_group, layout.stage
    notes: dict[str, list[str]] = {key: [] for key in COMPONENTS}
    if layout.pp > 1:
        on = stage_layers(model.layers, layout.pp, rank.stage)
        where = message("split.layers", count=len(on), layers=model.layers)
        ends = message("split.embedding") * (rank.stage == 0) + message("split.head") * (rank.stage == layout.pp - 1)
        for key in ("weights", "kv_cache", "activations", "gradients", "optimizer", "master_weights"):
            notes[key].append(where + (ends if key != "kv_cache" and key != "activations" else ""))
        notes["logits"].append(message("split.last_stage"))
    if layout.tp > 1:
        notes["weights"].append(message("split.tp", tp=layout.tp))
        if model.mla is not None:
            notes["kv_cache"].append(message("split.kv_latent"))
        elif model.kv_heads:
            per = -(-model.kv_heads // layout.tp)
            notes["kv_cache"].append(message("split.kv_replicated" if model.kv_heads < layout.tp else "split.kv_heads",
                                             per=per, heads=model.kv_heads, tp=layout.tp))
        notes["logits"].append(message("split.vocab", tp=layout.tp))
    if layout.ep > 1:
        notes["weights"].append(message("split.ep", ep=layout.ep))
    if workload.is_training:
        if layout.tp > 1 or layout.cp > 1:
            notes["activations"].append(message("split.sp" if layout.sp else "split.tp_activations", tp=layout.tp)
                                        if layout.tp > 1 else message("split.cp", cp=layout.cp))
        if layout.dp > 1:
            notes["activations"].append(message("split.own_batch", batch=workload.batch))
        if layout.pp > 1:
            notes["activations"].append(message("split.in_flight", count=min(layout.pp - rank.stage,
                                                                              max(1, workload.grad_accum))))
        offloaded = layout.offload is not Offload.NONE
        for key, stage in (("gradients", 2), ("optimizer", 1), ("master_weights", 1)):
            if offloaded:
                notes[key].append(message("split.offloaded"))
            elif zero >= stage and n > 1:
                notes[key].append(message("split.sharded", n=n, zero=zero))
            elif layout.dp > 1:
                notes[key].append(message("split.replicated", dp=layout.dp))
        if layout.offload is Offload.OPTIMIZER_PARAMS:
            notes["weights"].append(message("split.offloaded"))
        elif zero == 3 and n > 1:
            notes["weights"].append(message("split.zero3", n=n, gather=format_binary(rank.gather_bytes)))
        elif layout.dp > 1:
            notes["weights"].append(message("split.replicated", dp=layout.dp))
    elif workload.runtime.value == "vllm":
        notes["activations"].append(message("split.vllm_peak"))
        notes["overhead"].append(message("split.vllm_nccl"))
    notes["overhead"].insert(0, message("split.every_gpu"))
    return {key: "; ".join(parts) for key, parts in notes.items() if parts}


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
