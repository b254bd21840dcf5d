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
from collections.abc import Mapping

from ..analysis import capacity as analysis_capacity
from ..analysis.capacity import Cell, Placement, table
from ..analysis.fit import TIGHT_RATIO, GpuFit, fit_all, room_on, shared_fill
from ..analysis.fit import Verdict as FitVerdict
from ..analysis.ranks import PerGpu, most_loaded, on_gpus
from ..analysis.solve import Solution, batch_step, media_tokens, seq_limit, solve
from ..analysis.suggest import changes
from ..core.choices import Offload
from ..core.dtypes import Precision
from ..core.units import GB, MIB
from ..engines import engine_for
from ..engines.layouts import resolve_layout
from ..engines.llamacpp import one_gpu_only
from ..engines.ollama import context_key
from ..engines.vllm import startup_context
from ..inputs.options import MAX_BATCH
from ..memory.components import COMPONENTS, Breakdown
from ..sources.fields import MAX_LAYERS
from ..sources.gpus import GpuSpec
from ..workload import CapacityQuery, Target, Workload
from .charts import Chart, sweep
from .command import run_lines
from .export import request_summary
from .messages import ENGLISH, Words
from .rank import BAR_WIDTH, RankRow, RankView, layout_text, present_rank


def format_billions(params: int, *, words: Words = ENGLISH) -> str:
    """3.2, 51.2 or 2,048 (billions of parameters): one decimal below 100, whole numbers above."""
    value = params / 1e9
    if value < 100:
        return words.localize(f"{value:.1f}".removesuffix(".0"))
    return words.localize(f"{value:,.0f}")


def format_range(c: Cell, *, words: Words = ENGLISH) -> str:
    return f"{format_billions(c.low_params, words=words)}–{format_billions(c.high_params, words=words)}B"


def format_placement(p: Placement, *, words: Words = ENGLISH) -> str:
    label = "FP16" if p.precision is Precision.FP16 else p.precision.value.upper()
    marks = [label]
    if p.several_gpus:
        marks.append(words.message("capacity.several_gpus"))
    return f"{p.example.name} ({', '.join(marks)})"


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
    absent: bool = False  # a part this workload has not, at its peak or in any phase (gradients in inference)


@dataclasses.dataclass(frozen=True, kw_only=True)
class GpuRow:
    slug: str
    name: str
    memory: str  # usable
    marketed: str  # the card's advertised size, in words (the page hides it on a phone)
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
    command: str = ""  # the lines that run it on its engine (render/command.py)


def absent(breakdown: Breakdown, key: str) -> bool:
    """No byte of this component at the peak nor in any phase of a training step (where activations are 0 at the
    optimizer's peak, the row stays, saying so)."""
    return not breakdown.bytes_of(key) and not any(live.get(key) for live in breakdown.phases.values())


def present(breakdown: Breakdown, gpus: int = 1, *, words: Words = ENGLISH) -> View:
    """The breakdown's view; on `gpus` GPUs, with the engine's figures for their layout (ranks.on_gpus)."""
    breakdown = on_gpus(breakdown, gpus)
    total = breakdown.total_bytes
    rows = []
    x = 0.0
    for component in breakdown.components:
        share = component.bytes / total if total else 0.0
        width = share * BAR_WIDTH
        rows.append(
            Row(
                key=component.key,
                label=words.message(component.key),
                bytes=component.bytes,
                size=words.binary(component.bytes) if component.bytes else "0",
                share=words.localize(f"{share:.1%}"),
                formula=words.say(component.formula),
                bar_x=round(x, 3),
                bar_width=round(width, 3),
                absent=absent(breakdown, component.key),
            )
        )
        x += width
    workload = breakdown.workload
    params = words.message("results.params", count=words.count(breakdown.params))
    if breakdown.active_params != breakdown.params:
        params += words.message("results.active", count=words.count(breakdown.active_params))
    bar_text = "; ".join(f"{row.label} {row.size} ({row.share})" for row in rows if row.bytes)
    return View(
        total_bytes=total,
        total_gb=words.gb(total),
        total_gib=words.gib(total),
        summary=request_summary(workload, words),
        params=params,
        rows=tuple(rows),
        bar_text=bar_text,
        gpus=tuple(_gpu_row(fit, words=words) for fit in fit_all(breakdown)),
        notes=tuple(words.say(note) for note in breakdown.notes),
        assumptions=tuple(words.say(assumption) for assumption in breakdown.assumptions),
        runtime_lines=_runtime_lines(breakdown, words=words),
        command="\n".join(run_lines(breakdown, gpus, words=words)),
    )


def _answer_label(key: str, workload: Workload) -> str:
    if key == "max_seq" and context_key(workload) == "num_ctx":
        return "answer.max_num_ctx"  # Ollama's context, whatever the sequence
    if key == "max_batch" and engine_for(workload.runtime).batch_key == "parallel" and not workload.is_training:
        return "answer.max_parallel"  # llama.cpp's and Ollama's sequences are --parallel slots
    return f"answer.{key}"


def _count(runtime: Mapping[str, object], key: str) -> int:
    """One of the engine's counts in `Breakdown.runtime` (its --json figures, typed object there)."""
    value = runtime[key]
    if not isinstance(value, int):
        raise TypeError(f"runtime {key}: {value!r} is not a count")
    return value


def _memory_breakdown_line(breakdown: Breakdown, *, words: Words) -> str:
    """The figures llama.cpp prints at exit (llama_memory_breakdown_print, MiB), to set beside a real log:
    on the GPU self = model + context + compute, in RAM the same three."""
    runtime = breakdown.runtime

    def mib(value: int) -> str:
        return f"{round(value / MIB):,}"

    model, context, compute = (breakdown.bytes_of("weights"), _count(runtime, "kv_device_bytes"),
                               _count(runtime, "compute_buffer_bytes"))
    host_context, host_compute = _count(runtime, "kv_host_bytes"), _count(runtime, "host_compute_buffer_bytes")
    host_model = _count(runtime, "host_bytes") - host_context - host_compute
    return words.message("runtime.llamacpp_log", self=mib(model + context + compute), model=mib(model),
                         context=mib(context), compute=mib(compute),
                         host=mib(host_model + host_context + host_compute), host_model=mib(host_model),
                         host_context=mib(host_context), host_compute=mib(host_compute))


def _runtime_lines(breakdown: Breakdown, *, words: Words) -> tuple[str, ...]:
    runtime, workload = breakdown.runtime, breakdown.workload
    if breakdown.facts is None and workload.embeds:  # an encoder's pooling run: no pool, no devices' log
        return ()
    if runtime.get("name") == "vllm":
        gpus, context = runtime.get("kv_pool_gpus", 1), startup_context(workload.gpu)
        facts = breakdown.facts
        return (words.message("runtime.vllm_gpus" if gpus != 1 else "runtime.vllm", gpus=gpus,
                        layout=getattr(facts, "layout", ""), gpu=runtime["gpu"], util=runtime["gpu_memory_utilization"],
                        claimed=words.gib(_count(runtime, "claimed_bytes")),
                        pool=words.gib(_count(runtime, "kv_pool_bytes")),
                        tokens=f"{runtime['kv_tokens']:,}", concurrency=f"{runtime['max_concurrency']:,.2f}",
                        seq=f"{workload.seq:,}"),
                *((words.message("runtime.vllm_margin" if context else "runtime.vllm_margin_no_context",
                                 margin=words.gib(_count(runtime, "kv_margin_bytes")), context=words.gib(context)),)
                  if runtime.get("kv_margin_bytes") else ()))
    if runtime.get("name") in ("llamacpp", "ollama"):
        return (words.message("runtime.llamacpp", gpu_bytes=words.gib(_count(runtime, "device_bytes")),
                        host_bytes=words.gib(_count(runtime, "host_bytes")),
                        layers=_count(runtime, "gpu_layers") - 1 if runtime["gpu_layers"] else 0,
                        total=workload.model.layers, n_ctx=f"{runtime['n_ctx']:,}", n_seq=runtime["n_seq"]),
                _memory_breakdown_line(breakdown, words=words))
    if breakdown.phases:  # a training step: every phase's total with the overhead, the peak named
        overhead = breakdown.bytes_of("overhead")
        return tuple(words.message("phase.line.peak" if name == breakdown.peak_phase else "phase.line",
                             phase=words.message(f"phase.{name}"), total=words.gib(total + overhead))
                     for name, total in breakdown.phase_totals().items())
    return ()


def _gpu_row(fit: GpuFit, *, words: Words) -> GpuRow:
    return GpuRow(
        slug=fit.gpu.slug,
        name=fit.gpu.display_name,
        memory=words.gib(fit.gpu.usable_bytes),
        marketed=words.message("gpus.marketed", marketed=fit.gpu.marketed_memory_gb),
        utilization="–" if fit.refused else words.localize(f"{fit.utilization:.0%}"),
        bar_percent=0.0 if fit.refused else round(min(fit.utilization, 1.0) * 100, 2),
        count="–" if fit.count is None else str(fit.count),
        verdict=fit.verdict.value,
        verdict_text=words.message("fit.cannot_run" if fit.refused else f"fit.{fit.verdict.value}"),
    )


# ---------------------------------------------------------------- the reverse questions


@dataclasses.dataclass(frozen=True, kw_only=True)
class Answer:
    key: str  # max_seq, max_batch, min_gpus, max_params: the names of the --json output
    label: str
    value: int | str | None  # the exact answer, for data-value (a format's name for best_format)
    text: str


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


def best_format_text(workload: Workload, best: str | None, words: Words) -> str:
    """The most precise weights that fit; with weights read from a file, another file of this model (a format
    that cannot be given beside --weights), or the file itself."""
    if best is None:
        return words.message("answer.format_none")
    if getattr(workload.precision, "file", None) is None:
        return best
    return words.message("answer.format_this_file" if best == "file" else "answer.format_other_file", format=best)


def present_target(workload: Workload, target: Target, *, words: Words = ENGLISH) -> TargetView:
    solution = solve(workload, target)
    model = workload.model
    seq = solution.max_seq
    if seq is None:
        seq_text = words.message("answer.seq_none")
    elif seq >= seq_limit(workload):
        seq_text = words.message("answer.seq_capped", value=seq)
    else:
        seq_text = words.message("answer.seq", value=seq)
        media = 0 if context_key(workload) == "num_ctx" else media_tokens(workload)  # num_ctx holds them
        if model.max_positions and seq + media > model.max_positions:
            seq_text += words.message("answer.seq_beyond_context", context=model.max_positions)
    batch = solution.max_batch
    if batch is None:
        batch_text = words.message("answer.batch_none", smallest=batch_step(workload))  # GRPO: its step
    else:
        batch_text = (words.message("answer.batch_capped", value=batch) if batch >= MAX_BATCH
                      else words.localize(f"{batch:,}"))
    if target.cards:
        gpus_text = words.message("answer.gpus_mixed")
    elif solution.min_gpus is None:
        gpus_text = words.message("answer.gpus_none" if workload.held_bytes >= target.gpu.usable_bytes
                                  else "answer.gpus_one_only" if one_gpu_only(workload) else "answer.gpus_none_rank")
    else:
        gpus_text = words.message("answer.gpus", value=solution.min_gpus, gpu=target.gpu.display_name)
        if solution.min_gpus > 1:
            gpus_text += f" ({resolve_layout(workload.on_gpus(solution.min_gpus), solution.min_gpus).describe()})"
    layers = solution.max_layers
    if layers is None:
        params_text = words.message("answer.params_none")
    else:
        params_text = words.message(
            "answer.params", at_least=words.message("answer.at_least") if layers >= MAX_LAYERS else "",
            count=words.count(solution.max_params or 0), layers=layers, now=model.layers,
        )
    loaded = most_loaded(workload, target.count)
    rank: PerGpu | None = loaded
    if loaded.layout.gpus == 1 and loaded.layout.offload is Offload.NONE:
        rank = None  # one GPU holds what the breakdown above shows
    heading = words.message(
        "reverse.heading_mixed" if target.cards else "reverse.heading_split" if rank else "reverse.heading",
        target=words.say(target.label), memory=words.gib(target.gpu.usable_bytes),
        memories=" + ".join(words.gib(card.usable_bytes) for card in target.cards),
        layout=rank and layout_text(workload, rank, words=words),
    )
    if target.count == 1 and rank is None and (workload.zero or workload.fsdp.value):
        heading += words.message("layout.zero_one_gpu")
    values = {"max_seq": seq, "max_batch": batch, "min_gpus": solution.min_gpus, "max_params": solution.max_params,
              "best_format": solution.best_format, "best_kv_format": solution.best_kv_format}
    texts = {"max_seq": seq_text, "max_batch": batch_text, "min_gpus": gpus_text, "max_params": params_text,
             "best_format": best_format_text(workload, solution.best_format, words),
             "best_kv_format": solution.best_kv_format or words.message(
                 "answer.kv_not_applicable" if workload.is_training else "answer.format_none")}
    return TargetView(
        heading=heading,
        answers=tuple(
            Answer(key=key, label=words.message(_answer_label(key, workload)), value=values[key], text=texts[key])
            for key in values
        ),
        charts=(sweep(workload, target, "seq", seq, words=words), sweep(workload, target, "batch", batch, words=words)),
        rank=present_rank(workload, target, rank, words=words) if rank is not None else None,
        verdict=present_verdict(workload, target, solution, loaded, words=words),
    )


def verdict_if_it_fits(need: int, gpu: GpuSpec, where: str, *, words: Words = ENGLISH,
                       caveat: str = "") -> tuple[dict[str, str], Verdict | None]:
    """The verdict's numbers for `need` bytes on one `gpu`, and the verdict when they fit (fits or tight), with
    `caveat` after its sentence; None when they do not."""
    used = need / gpu.usable_bytes
    numbers = dict(where=where, used=words.gib(need), usable=words.gib(gpu.usable_bytes), share=f"{used:.0%}")
    if used > 1.0:
        return numbers, None
    kind = FitVerdict.FITS if used <= TIGHT_RATIO else FitVerdict.TIGHT
    key = "verdict.fits" if kind is FitVerdict.FITS else "verdict.tight"
    text = f"{words.message(key, **numbers)} {caveat}" if caveat else words.message(key, **numbers)
    return numbers, Verdict(kind=kind.value, text=text, percent=round(used * 100, 1), changes=(),
                            short=words.message(key + ".short", **numbers))


def present_verdict(workload: Workload, target: Target, solution: Solution, rank: PerGpu, *,
                    words: Words = ENGLISH) -> Verdict:
    """`rank`: the most loaded GPU of the workload on the target (pergpu.per_gpu)."""
    card = rank.devices[rank.stage].card if rank.devices else target.gpu  # mixed cards: the fullest for its size
    if target.cards:
        where = words.message("verdict.mixed", gpus=words.say(target.label), device=rank.rank, gpu=card.display_name)
    elif target.count == 1:
        where = words.message("verdict.one", gpu=target.gpu.display_name)
    else:
        where = words.message("verdict.many", count=target.count, gpu=target.gpu.display_name,
                              layout=rank.layout.describe())
    numbers, fitting = verdict_if_it_fits(rank.total_bytes, card, where, words=words)
    ram, shared = rank.ram_bytes + rank.host_bytes, card.shared_memory_bytes or 0
    # the GPU's part fits its share, but with system RAM's part not the whole memory of a Mac or unified PC
    over_shared = fitting is not None and rank.total_bytes > room_on(card, ram)
    if rank.runs and fitting is not None and not over_shared:
        return fitting
    if over_shared and card.carved_out:  # a BIOS carve-out: system RAM's part has only what the share leaves
        text = words.message("verdict.no_carve_out", where=where, ram=words.gib(ram),
                             share=words.gib(card.usable_bytes), left=words.gib(shared - card.usable_bytes),
                             memory=words.gib(shared),
                             fill=f"{shared_fill(card, rank.total_bytes, ram) or 0:.0%}")
    elif over_shared:  # a Mac or a unified-memory PC: the GPU's part and system RAM's share one memory
        text = words.message("verdict.no_shared", where=where, used=words.gib(rank.total_bytes), ram=words.gib(ram),
                             total=words.gib(rank.total_bytes + ram), memory=words.gib(shared),
                             share=f"{(rank.total_bytes + ram) / (shared or 1):.0%}")
    elif not rank.runs:  # vLLM: its share of the card leaves no room for the sequences asked
        text = words.message("verdict.no_pool", where=where,
                             pool=words.gib(rank.pool.kv_pool_bytes if rank.pool else 0),
                             kv=words.gib(rank.components.get("kv_cache", 0)))
    else:
        largest = max((k for k in rank.components if k != "overhead"), key=rank.components.__getitem__)
        part = words.message(largest).lower() if largest != "kv_cache" else words.message(largest)
        text = words.message("verdict.no", **numbers, part=part,
                             part_share=f"{rank.components[largest] / rank.total_bytes:.0%}")
    return Verdict(kind=FitVerdict.DOES_NOT_FIT.value, text=text, percent=100.0,
                   changes=tuple(words.say(change) for change in changes(workload, target, solution)),
                   short=words.message("verdict.no.short", **numbers))


def rank_rows(view: TargetView, *, words: Words = ENGLISH) -> tuple[RankRow, ...]:
    """The per-GPU rows to prerender: the view's, or empty ones for one GPU (the page fills them later)."""
    if view.rank:
        return view.rank.rows
    return tuple(RankRow(key=key, label=words.message(key), bytes=0, size="0", how="", bar_x=0.0, bar_width=0.0)
                 for key in COMPONENTS)


# ---------------------------------------------------------------- the capacity table


@dataclasses.dataclass(frozen=True, kw_only=True)
class CapacityRow:
    id: str
    memory: str
    cells: tuple[str, ...]
    examples: str


def present_capacity_row(row: analysis_capacity.Row, *, id_: str, words: Words = ENGLISH) -> CapacityRow:
    return CapacityRow(
        id=id_,
        memory=words.gb(row.memory_bytes, digits=0) if row.memory_bytes % GB == 0 else words.gb(row.memory_bytes),
        cells=tuple(format_range(c, words=words) for c in row.cells),
        examples="; ".join(format_placement(p, words=words) for p in row.examples) or "–",
    )


def present_capacity(query: CapacityQuery, *,
                     words: Words = ENGLISH) -> tuple[tuple[CapacityRow, ...], CapacityRow | None]:
    """The standard rows (examples new or more precise than the row above) and the user's row (all examples)."""
    rows = tuple(present_capacity_row(r, id_=f"capacity-{r.memory_bytes // GB}", words=words)
                 for r in table(query.headroom))
    user = None
    if query.memory_bytes is not None:
        user = present_capacity_row(analysis_capacity.row(query.memory_bytes, query.headroom), id_="capacity-user",
                                    words=words)
    return rows, user
