"""The per-GPU panel: what the most loaded rank of a layout holds, in words."""

from __future__ import annotations

import dataclasses

from ..analysis.ranks import PerGpu
from ..core.choices import Offload
from ..core.units import GIB
from ..memory.components import COMPONENTS
from ..parallel.layout import stage_layers
from ..workload import Target, Workload
from .messages import ENGLISH, Words

BAR_WIDTH = 1000  # the SVG viewBox width of the stacked bar


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
    devices: tuple[tuple[str, ...], ...] = ()  # llama.cpp's split: a row of cells per GPU (DEVICE_COLUMNS)


DEVICE_COLUMNS = ("device", "layers", "model", "context", "compute", "overhead", "total", "memory", "share")


def layout_text(workload: Workload, rank: PerGpu, *, words: Words = ENGLISH) -> str:
    """'TP 4', or 'TP 4, assumed (tensor parallel within the node): set the layout to change it'; llama.cpp's
    split over cards of their own sizes, 'layers 27 + 54, by each GPU's free memory'."""
    if rank.devices:
        return words.message("layout.split_given" if workload.tensor_split else "layout.split_free",
                             layers=" + ".join(str(device.layers) for device in rank.devices))
    text = rank.layout.describe()
    if workload.layout_given:
        return text
    return words.message("layout.assumed", layout=text, why=words.message(
        "layout.default_training" if workload.is_training else
        "layout.default_llamacpp" if workload.runtime.value == "llamacpp" else
        "layout.default_inference_replicas" if rank.layout.dp > 1 else "layout.default_inference"))


def present_rank(workload: Workload, target: Target, rank: PerGpu, *, words: Words = ENGLISH) -> RankView:
    total = rank.total_bytes
    usable = rank.devices[rank.stage].card.usable_bytes if rank.devices else target.gpu.usable_bytes
    scale = max(total, usable)  # the bar is the card, filled; past it, the bar is the total and the card is short
    rows, x = [], 0.0
    how = split_notes(workload, rank, words=words)
    for key in COMPONENTS:
        value = rank.components.get(key, 0)
        width = value / scale * BAR_WIDTH
        rows.append(RankRow(key=key, label=words.message(key), bytes=value,
                            size=words.binary(value) if value else "0", how=how.get(key, ""),
                            bar_x=round(x, 3), bar_width=round(width, 3)))
        x += width
    def stage(index: int) -> str:  # the analysis names stages in English (its JSON); the answer in its language
        return words.message("rank.stage", stage=index + 1, stages=len(rank.stages))

    stages = "; ".join(f"{stage(i)}: {words.gib(b)}" for i, b in enumerate(rank.stages.values()))
    lines = [words.message("rank.stages", stages=stages)] if rank.stages else []
    if rank.host_bytes:
        lines.append(words.message("rank.host", bytes=words.gib(rank.host_bytes)))
    if rank.pool is not None:
        lines.append(words.message("rank.vllm_pool", pool=words.gib(rank.pool.kv_pool_bytes),
                             tokens=f"{rank.pool.kv_tokens:,}", seq=f"{workload.seq:,}",
                             concurrency=f"{rank.pool.max_concurrency or 0:,.2f}"))
    title = words.message("rank.title_device" if rank.devices else "rank.title" if rank.stages else "rank.title_same",
                          rank=stage(rank.stage) if rank.stages else rank.rank, total=words.gib(total),
                          share=words.localize(f"{total / usable:.0%}"),
                          memory=words.gib(usable), device=f"CUDA{rank.stage}",
                          gpu=rank.devices[rank.stage].card.display_name if rank.devices else "",
                          phase=words.message(f"phase.{rank.peak_phase}")
                          if workload.is_training else words.message("rank.inference"))
    return RankView(title=title, total_bytes=total, rows=tuple(rows), lines=tuple(lines),
                    devices=device_cells(rank, words=words))


def device_cells(rank: PerGpu, *, words: Words = ENGLISH) -> tuple[tuple[str, ...], ...]:
    """Each GPU of llama.cpp's split as a table row, in DEVICE_COLUMNS order, in GiB: the parts
    llama_memory_breakdown_print names (model, context, compute), the overhead, the total, the card's memory."""
    def gib(value: int) -> str:
        return words.localize(f"{value / GIB:,.2f}")

    return tuple((f"CUDA{d} {device.card.display_name}", str(device.layers),
                  *(gib(device.components[key]) for key in ("weights", "kv_cache", "activations", "overhead")),
                  gib(device.total_bytes), gib(device.card.usable_bytes), words.localize(f"{device.share:.0%}"))
                 for d, device in enumerate(rank.devices))


def device_lines(rank: PerGpu, *, words: Words = ENGLISH) -> list[str]:
    """Each GPU of llama.cpp's split, as llama_memory_breakdown_print's parts (model, context, compute)."""
    return [words.message("rank.device", device=f"CUDA{d}", gpu=device.card.display_name, layers=device.layers,
                          model=words.gib(device.components["weights"]),
                          context=words.gib(device.components["kv_cache"]),
                          compute=words.gib(device.components["activations"]),
                          overhead=words.gib(device.components["overhead"]), total=words.gib(device.total_bytes),
                          memory=words.gib(device.card.usable_bytes), share=words.localize(f"{device.share:.0%}"))
            for d, device in enumerate(rank.devices)]


def split_notes(workload: Workload, rank: PerGpu, *, words: Words = ENGLISH) -> dict[str, str]:
    """One phrase per component: how the layout split it onto this GPU."""
    layout, model = rank.layout, workload.model
    n, zero = layout.shard_group, layout.stage
    notes: dict[str, list[str]] = {key: [] for key in COMPONENTS}
    if rank.devices:  # llama.cpp's own split: this GPU's layers, the output layer among them on the last
        layers = rank.devices[rank.stage].layers
        where = words.message("split.device_layers", count=layers, layers=model.layers + 1)
        for key in ("weights", "kv_cache", "activations"):
            notes[key].append(where)
    elif layout.pp > 1:
        on = stage_layers(model.layers, layout.pp, rank.stage)
        where = words.message("split.layers", count=len(on), layers=model.layers)
        ends = (words.message("split.embedding") * (rank.stage == 0)
                + words.message("split.head") * (rank.stage == layout.pp - 1))
        for key in ("weights", "kv_cache", "activations", "gradients", "optimizer", "master_weights"):
            notes[key].append(where + (ends if key != "kv_cache" and key != "activations" else ""))
        notes["logits"].append(words.message("split.last_stage"))
    if layout.tp > 1:
        notes["weights"].append(words.message("split.tp", tp=layout.tp))
        if model.mla is not None:
            notes["kv_cache"].append(words.message("split.kv_latent"))
        elif model.kv_heads:
            per = -(-model.kv_heads // layout.tp)
            message = "split.kv_replicated" if model.kv_heads < layout.tp else "split.kv_heads"
            notes["kv_cache"].append(words.message(message, per=per, heads=model.kv_heads, tp=layout.tp))
        notes["logits"].append(words.message("split.vocab", tp=layout.tp))
    if layout.ep > 1:
        notes["weights"].append(words.message("split.ep", ep=layout.ep))
    if workload.is_training:
        if layout.tp > 1 or layout.cp > 1:
            notes["activations"].append(words.message("split.sp" if layout.sp else "split.tp_activations", tp=layout.tp)
                                        if layout.tp > 1 else words.message("split.cp", cp=layout.cp))
        if layout.dp > 1:
            notes["activations"].append(words.message("split.own_batch", batch=workload.batch))
        if layout.pp > 1:
            notes["activations"].append(words.message("split.in_flight", count=min(layout.pp - rank.stage,
                                                                              max(1, workload.grad_accum))))
        offloaded = layout.offload is not Offload.NONE
        for key, stage in (("gradients", 2), ("optimizer", 1), ("master_weights", 1)):
            if offloaded:
                notes[key].append(words.message("split.offloaded"))
            elif zero >= stage and n > 1:
                notes[key].append(words.message("split.sharded", n=n, zero=zero))
            elif layout.dp > 1:
                notes[key].append(words.message("split.replicated", dp=layout.dp))
        if layout.offload is Offload.OPTIMIZER_PARAMS:
            notes["weights"].append(words.message("split.offloaded"))
        elif zero == 3 and n > 1:
            notes["weights"].append(words.message("split.zero3", n=n, gather=words.binary(rank.gather_bytes)))
        elif layout.dp > 1:
            notes["weights"].append(words.message("split.replicated", dp=layout.dp))
    elif workload.runtime.value == "vllm":
        notes["activations"].append(words.message("split.vllm_peak"))
        notes["overhead"].append(words.message("split.vllm_nccl"))
    notes["overhead"].insert(0, words.message("split.every_gpu"))
    return {key: "; ".join(parts) for key, parts in notes.items() if parts}
