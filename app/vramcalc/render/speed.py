"""The speed and cost of a result in words: the verdict's short line, the figures, their basis and the
expected error (docs/accuracy.md, "Speed"), and the chart of tokens/s against context length."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..analysis.speed_answers import SpeedResult
from ..sources.gpus import gpu
from ..speed.validation import expected_error
from ..workload import Workload
from .messages import ENGLISH, Words

FIGURES = ("ttft", "decode", "output", "prefill", "tpot", "step", "train", "mfu", "run", "cost_hour", "cost_tokens",
           "cost_run", "fastest_format", "max_concurrency", "min_gpus_for_run", "min_n_cpu_moe", "cheapest_card")
"""Every figure the page has a place for, in order (those that do not apply are hidden)."""
CHART_WIDTH, CHART_HEIGHT = 320, 120


@dataclasses.dataclass(frozen=True)
class SpeedView:
    line: str  # the verdict's short line ("" when unknown)
    figures: tuple[tuple[str, str, str], ...]  # (key, label, value) of the figures that apply
    basis: tuple[str, ...]
    chart_path: str  # an SVG path in CHART_WIDTH × CHART_HEIGHT ("" when there is no curve)
    chart_desc: str
    chart_y: str  # the top of the y axis, in words
    chart_x: str  # the right end of the x axis
    moe_path: str = ""  # tokens/s (y) against the GPU's memory (x) as --n-cpu-moe goes from 0 to all layers
    moe_desc: str = ""
    moe_x: str = ""  # the right end of the memory axis, in words
    moe_y: str = ""
    moe_limit_x: float = -1.0  # the card's usable memory on the x axis (-1: off the chart)


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def _duration(seconds: float, words: Words) -> str:
    if seconds < 1:
        return words.message("speed.value.ms", value=_number(1000 * seconds))
    if seconds < 3600 * 2:
        return words.message("speed.value.seconds", value=_number(seconds))
    return words.message("speed.value.hours", value=_number(seconds / 3600))


def present_speed(workload: Workload, result: SpeedResult, *, words: Words = ENGLISH) -> SpeedView:
    """The Speed section of `result` (analysis.speed_answers.evaluate_speed) in words."""
    speed, cost, answers, machine = result.speed, result.cost, result.answers, result.machine
    def tokens_s(value: float) -> str:
        return words.message("speed.value.tokens_s", value=_number(value))

    figures: list[tuple[str, str]] = []
    if speed.ttft_s is not None:
        figures.append(("ttft", _duration(speed.ttft_s, words)))
    if speed.decode_tokens_per_s is not None:
        figures.append(("decode", tokens_s(speed.decode_tokens_per_s)))
    if speed.output_tokens_per_s is not None and speed.sequences > 1:
        figures.append(("output", tokens_s(speed.output_tokens_per_s)))
    if speed.prefill_tokens_per_s is not None:
        figures.append(("prefill", tokens_s(speed.prefill_tokens_per_s)))
    if speed.tpot_s is not None:
        figures.append(("tpot", _duration(speed.tpot_s, words)))
    if speed.step_s is not None:
        figures.append(("step", _duration(speed.step_s, words)))
    if speed.train_tokens_per_s is not None:
        figures.append(("train", tokens_s(speed.train_tokens_per_s)))
    if speed.mfu is not None:
        figures.append(("mfu", f"{100 * speed.mfu:.0f}%"))
    if cost.run_hours is not None:
        figures.append(("run", _duration(cost.run_hours * 3600, words)))
    if cost.usd_per_hour is not None:
        figures.append(("cost_hour", words.message("speed.value.usd_hour", value=f"{cost.usd_per_hour:,.2f}")))
    if cost.usd_per_million_output_tokens is not None:
        figures.append(("cost_tokens", words.message("speed.value.usd_million",
                                                     value=f"{cost.usd_per_million_output_tokens:,.2f}")))
    if cost.run_usd is not None:
        figures.append(("cost_run", words.message("speed.value.usd", value=f"{cost.run_usd:,.0f}")))
    if speed.unknown is None:
        if not workload.is_training:
            figures.append(("fastest_format", answers.fastest_format or words.message("answer.format_none")))
            figures.append(("max_concurrency", words.message(
                "speed.value.concurrency", count=f"{answers.max_concurrency:,}", rate=f"{machine.min_tokens_per_s:g}")
                if answers.max_concurrency else words.message(
                    "speed.value.concurrency_none" if answers.fits else "speed.value.concurrency_no_fit",
                    rate=f"{machine.min_tokens_per_s:g}")))
            if answers.min_n_cpu_moe is not None and answers.n_cpu_moe_tokens_per_s:
                rate = tokens_s(answers.n_cpu_moe_tokens_per_s)
                figures.append(("min_n_cpu_moe", words.message(
                    "speed.value.n_cpu_moe", layers=answers.min_n_cpu_moe, rate=rate)))
        elif machine.max_run_hours is not None and machine.train_tokens:
            figures.append(("min_gpus_for_run", words.message(
                "speed.value.gpus_for_run", count=answers.min_gpus_for_run, hours=f"{machine.max_run_hours:g}")
                if answers.min_gpus_for_run else words.message("speed.value.gpus_for_run_none")))
    if answers.cheapest_card is not None and answers.cheapest_usd_per_million is not None and speed.unknown is None:
        figures.append(("cheapest_card", words.message(
            "speed.value.cheapest_training" if workload.is_training else "speed.value.cheapest",
            gpu=gpu(answers.cheapest_card).display_name, usd=f"{answers.cheapest_usd_per_million:,.2f}")))
    basis = [words.say(part) for part in speed.basis]
    if not answers.fits:  # first and loudly: these are speeds of a run that cannot start
        basis.insert(0, words.message("speed.not_fit"))
    if cost.price is not None:
        basis.append(words.say(cost.price))
    if speed.unknown is not None:
        basis.insert(0, words.say(speed.unknown))
    if speed.decode_tokens_per_s is not None or speed.train_tokens_per_s is not None:
        basis.append(words.say(expected_error(workload)))
    if speed.train_tokens_per_s is not None and speed.step_s is not None:
        line = words.message("speed.line.training", tokens=_number(speed.train_tokens_per_s),
                             step=_duration(speed.step_s, words))
    elif speed.decode_tokens_per_s is not None:
        line = words.message("speed.line" if speed.ttft_s is not None else "speed.line.no_ttft",
                             decode=_number(speed.decode_tokens_per_s),
                             ttft="" if speed.ttft_s is None else _duration(speed.ttft_s, words))
    else:
        line = ""
    path, desc, top = "", "", ""
    if speed.curve:
        high = max(rate for _, rate in speed.curve)
        top_value = high * 1.1
        last = speed.curve[-1][0] or 1
        points = [(CHART_WIDTH * depth / last, CHART_HEIGHT * (1 - rate / top_value)) for depth, rate in speed.curve]
        path = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points)
        low = min(rate for _, rate in speed.curve)
        desc = words.message("speed.chart.desc", low=tokens_s(low), high=tokens_s(high), seq=f"{last:,}")
        top = words.localize(_number(top_value))  # the axis says tokens/s
    labels = {key: words.message(f"speed.figure.{key}") for key in FIGURES}
    moe = _moe_chart(answers.n_cpu_moe_curve, result.target.gpu.usable_bytes, words)
    return SpeedView(line=line, figures=tuple((key, labels[key], value) for key, value in figures),
                     basis=tuple(basis), chart_path=path, chart_desc=desc, chart_y=top,
                     chart_x=words.localize(f"{speed.curve[-1][0]:,}") if speed.curve else "", **moe)


def _moe_chart(curve: tuple[tuple[int, int, float], ...], usable: int, words: Words) -> dict[str, Any]:
    """The trade of --n-cpu-moe as a path: x the most loaded GPU's GiB, y one sequence's tokens/s."""
    if len(curve) < 2:
        return {}
    x_top = max(max(b for _, b, _ in curve), usable) * 1.05
    y_top = max(rate for _, _, rate in curve) * 1.1
    points = [(CHART_WIDTH * b / x_top, CHART_HEIGHT * (1 - rate / y_top)) for _, b, rate in curve]
    (_, most, fast), (layers, least, slow) = curve[0], curve[-1]
    return {"moe_path": "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in points),
            "moe_desc": words.message("speed.moe_chart.desc", fast=f"{fast:,.1f}", most=words.gib(most),
                                      slow=f"{slow:,.1f}", least=words.gib(least), layers=layers),
            "moe_x": words.localize(f"{x_top / 2**30:,.0f} GiB"), "moe_y": words.localize(_number(y_top)),
            "moe_limit_x": round(CHART_WIDTH * usable / x_top, 1)}


def speed_lines(view: SpeedView) -> str:
    """The command line's speed section."""
    lines = ["", "speed:"]
    lines += [f"  {label}: {value}" for _, label, value in view.figures]
    lines += [f"  {text}" for text in view.basis]
    return "\n".join(lines)
