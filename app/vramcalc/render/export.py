"""The results as documents: the command line's JSON (a public interface: add names, never
rename them), CSV for a spreadsheet and Markdown for an issue report. The page's export buttons
and `python -m vramcalc --json` write the same JSON."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from ..analysis.fit import GpuFit
from ..analysis.ranks import on_gpus, per_gpu
from ..core.choices import Runtime
from ..memory.components import Breakdown
from ..model.families.speech import windows
from ..speed import Cost, Speed
from ..workload import Workload
from .i18n.en import EN
from .messages import ENGLISH, Words

RESERVE_BASIS = "simulated: tools/record_trainer_allocations.py"


def to_json(breakdown: Breakdown, fits: Sequence[GpuFit], gpus: int = 1, *, words: Words = ENGLISH,
            speed: Speed | None = None, cost: Cost | None = None) -> dict[str, object]:
    """The stable JSON shape scripts rely on (on several GPUs, the engine's figures for their layout);
    with `speed`, its `speed` and `cost` (each figure None where it does not apply) and their basis."""
    breakdown = on_gpus(breakdown, gpus)
    rank = per_gpu(breakdown, gpus)
    return {
        "params": breakdown.params,
        "active_params": breakdown.active_params,
        "components": breakdown.as_dict(),
        "total_bytes": breakdown.total_bytes,
        "total_counter": "nvidia-smi",  # what the total reads against: the process's memory, the overhead row in it
        # PyTorch's own peak (the total less the overhead row); only an engine running on PyTorch's allocator has one
        "max_memory_allocated_bytes": breakdown.total_bytes - breakdown.bytes_of("overhead")
        if breakdown.workload.runtime is Runtime.TRANSFORMERS else None,
        # the caching allocator's reserve above it, where the step was recorded (memory/reserve.py), else None
        **reserved_counters(breakdown if gpus == 1 else None),
        "assumptions": [words.say(text) for text in breakdown.assumptions],
        "runtime": dict(breakdown.runtime),
        "host_bytes": breakdown.host_bytes + rank.host_bytes,
        # training: the host memory offloaded activations take (activation_offload, or Unsloth's checkpointing)
        "activation_offload_host_bytes": breakdown.host_bytes if breakdown.workload.is_training else 0,
        "per_gpu": {"components": rank.components, "total_bytes": rank.total_bytes, "rank": rank.rank,
                    "layout": rank.layout.describe(), "gpus": rank.layout.gpus, "peak_phase": rank.peak_phase,
                    "stages": rank.stages, "host_bytes": rank.host_bytes, "engine": rank.engine,
                    "devices": [device.as_json() for device in rank.devices]},
        "peak_phase": breakdown.peak_phase,
        "phases": breakdown.phase_totals()
        or {breakdown.peak_phase: breakdown.total_bytes - breakdown.bytes_of("overhead")},
        "phase_components": {name: dict(live) for name, live in breakdown.phases.items()},
        "gpus": [
            {"name": fit.gpu.display_name, "memory_bytes": fit.gpu.usable_bytes,
             "utilization": round(fit.utilization, 6), "count": fit.count}
            | ({"refused": fit.refused} if fit.refused else {})
            for fit in fits
        ],
    } | ({} if speed is None else {
        "speed": speed.as_json(), "cost": (cost or Cost()).as_json(),
        "speed_basis": [words.say(text) for text in (*speed.basis, *((speed.unknown,) if speed.unknown else ()))],
        "cost_basis": [words.say(cost.price)] if cost is not None and cost.price is not None else [],
    })


def reserved_counters(breakdown: Breakdown | None) -> dict[str, object]:
    # max_memory_reserved and nvidia-smi with the reserve's spread (memory/reserve.py); None where not modelled
    if breakdown is None or breakdown.reserve is None or breakdown.reserved_bytes is None:
        return {"max_memory_reserved_bytes": None, "nvidia_smi_bytes": None, "allocator_reserve": None}
    low, typical, high = breakdown.reserve
    reserved = breakdown.reserved_bytes
    return {"max_memory_reserved_bytes": reserved, "nvidia_smi_bytes": reserved + breakdown.bytes_of("overhead"),
            "allocator_reserve": {"bytes": typical, "low_bytes": low, "high_bytes": high, "basis": RESERVE_BASIS}}


def to_csv(breakdown: Breakdown, gpus: int = 1, *, words: Words = ENGLISH) -> str:
    """One row per component: bytes, GiB, GB, share of the total, on the most loaded GPU,
    and the formula."""
    breakdown = on_gpus(breakdown, gpus)
    rank = per_gpu(breakdown, gpus)
    total = breakdown.total_bytes
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["component", "label", "bytes", "GiB", "GB", "share", "per_gpu_bytes", "formula"])
    for c in breakdown.components:
        writer.writerow([c.key, EN[c.key], c.bytes, f"{c.bytes / 2**30:.4f}", f"{c.bytes / 1e9:.4f}",
                         f"{c.bytes / total:.4f}" if total else "0", rank.components.get(c.key, 0),
                         words.say(c.formula)])
    writer.writerow(["total", "Total", total, f"{total / 2**30:.4f}", f"{total / 1e9:.4f}", "1.0000",
                     rank.total_bytes, ""])
    return out.getvalue()


def to_markdown(breakdown: Breakdown, gpus: int = 1, *, verdict: str = "", link: str = "",
                words: Words = ENGLISH) -> str:
    """A report to paste into an issue: what was asked, the answer, the table, and the permalink."""
    breakdown = on_gpus(breakdown, gpus)
    workload = breakdown.workload
    total = breakdown.total_bytes
    summary = request_summary(workload, words)
    lines = [f"### {summary}", ""]
    if verdict:
        lines += [f"**{verdict}**", ""]
    lines += [f"Total: **{words.gib(total)}** = {words.gb(total)} ({total:,} bytes)", ""]
    lines += ["| Component | GiB | Share | How it is computed |", "|---|---:|---:|---|"]
    for c in breakdown.components:
        if c.bytes:
            formula = words.say(c.formula).replace("|", "\\|")
            lines.append(f"| {EN[c.key]} | {c.bytes / 2**30:,.2f} | {c.bytes / total:.1%} | {formula} |")
    lines.append(f"| **Total** | **{total / 2**30:,.2f}** | 100% | |")
    if gpus > 1:
        rank = per_gpu(breakdown, gpus)
        lines += ["", f"Per GPU ({rank.layout.describe()}, {rank.rank}): **{words.gib(rank.total_bytes)}**"]
    if breakdown.assumptions:
        lines += ["", "Approximate:"] + [f"- {words.say(text)}" for text in breakdown.assumptions]
    if link:
        lines += ["", f"[Open in the calculator]({link})"]
    return "\n".join(lines) + "\n"


def request_summary(workload: Workload, words: Words = ENGLISH, *, key: str = "results.summary") -> str:
    """What was asked in one line: the model, mode, precision, batch and sequence; for a transcription its beams
    and audio instead ("results.header" keys: without the model, the mode as the link writes it)."""
    header = key == "results.header"
    mode = workload.mode.value if header else words.message(f"option.mode.{workload.mode.value}").lower()
    precision = workload.precision.value + (" (quantise=mlp)" if workload.precision.mlp_only else "")
    if workload.transcribes:
        return words.message("results.header_speech" if header else "results.summary_speech",
                             model=workload.model.display_name, mode=mode, precision=precision,
                             beams=workload.beams, seconds=workload.audio_seconds,
                             windows=windows(workload.audio_seconds), batch=workload.batch)
    if header:
        return f"{mode}, {precision}, batch {workload.batch}, sequence {workload.seq:,}"
    return words.message(key, model=workload.model.display_name, mode=mode, precision=precision,
                         batch=workload.batch, seq=workload.seq)
