"""The speed and cost of a result in words: the verdict's short line, the figures, their basis and the
expected error (docs/accuracy.md, "Speed"), and the charts: tokens/s against context length, and against
GPU memory as --n-cpu-moe moves experts to RAM."""

from __future__ import annotations

import dataclasses

from ..analysis.speed_answers import SpeedResult
from ..sources.gpus import gpu
from ..speed.validation import expected_error
from ..workload import Workload
from .messages import ENGLISH, Words

FIGURES = ("ttft", "decode", "output", "prefill", "embed", "requests", "transcribe", "rtf", "tpot", "step", "train",
           "mfu", "run",
           "cost_hour", "cost_tokens", "cost_embed", "cost_audio",
           "cost_run", "fastest_format", "max_concurrency", "min_gpus_for_run", "min_n_cpu_moe", "llamacpp_fit",
           "cheapest_card")
"""Every figure the page has a place for, in order (those that do not apply are hidden)."""
CHARTS = ("context", "moe")
"""The charts the page has a place for: tokens/s (y) against context length, and against GPU memory over
--n-cpu-moe (x); their words are the catalogue's speed.chart.<key>.*."""
CHART_WIDTH, CHART_HEIGHT = 320, 120


@dataclasses.dataclass(frozen=True)
class SpeedChart:
    path: str = ""  # an SVG path in CHART_WIDTH × CHART_HEIGHT ("": no such chart here)
    desc: str = ""
    x_end: str = ""  # the right end of the x axis, in words
    y_top: str = ""  # the top of the y axis (tokens/s)
    limit_x: float | None = None  # the card's memory on the x axis, where it has one


@dataclasses.dataclass(frozen=True)
class SpeedView:
    line: str  # the verdict's short line ("" when unknown)
    figures: tuple[tuple[str, str, str], ...]  # (key, label, value) of the figures that apply
    basis: tuple[str, ...]
    charts: dict[str, SpeedChart]  # each of CHARTS


def _number(value: float) -> str:
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


def _usd(value: float) -> str:
    """Dollars to the cent, or two significant figures below a dollar (an embedder's million tokens: 0.0026)."""
    return f"{value:,.2f}" if value >= 1 else f"{value:.2g}"


def _tokens_s(value: float, words: Words) -> str:
    return words.message("speed.value.tokens_s", value=_number(value))


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
        return _tokens_s(value, words)

    figures: list[tuple[str, str]] = []
    if speed.ttft_s is not None:
        figures.append(("ttft", _duration(speed.ttft_s, words)))
    if speed.decode_tokens_per_s is not None:
        figures.append(("decode", tokens_s(speed.decode_tokens_per_s)))
    if speed.output_tokens_per_s is not None and speed.sequences > 1:
        figures.append(("output", tokens_s(speed.output_tokens_per_s)))
    embedding = speed.requests_per_s is not None
    if speed.prefill_tokens_per_s is not None:
        figures.append(("embed" if embedding else "prefill", tokens_s(speed.prefill_tokens_per_s)))
    if speed.requests_per_s is not None:
        figures.append(("requests", words.message("speed.value.requests_s", value=_number(speed.requests_per_s))))
    if speed.transcribe_s is not None and speed.real_time_factor:
        figures.append(("transcribe", _duration(speed.transcribe_s, words)))
        figures.append(("rtf", words.message("speed.value.rtf", value=f"{speed.real_time_factor:.3g}",
                                             speed=_number(1 / speed.real_time_factor))))
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
    if cost.usd_per_million_input_tokens is not None:
        figures.append(("cost_embed", words.message("speed.value.usd_million_input",
                                                    value=_usd(cost.usd_per_million_input_tokens))))
    if cost.usd_per_audio_hour is not None:
        figures.append(("cost_audio", words.message("speed.value.usd_audio_hour", value=_usd(cost.usd_per_audio_hour))))
    if cost.run_usd is not None:
        figures.append(("cost_run", words.message("speed.value.usd", value=f"{cost.run_usd:,.0f}")))
    if speed.unknown is None:
        if not workload.is_training and not embedding and speed.transcribe_s is None:
            figures.append(("fastest_format", answers.fastest_format or words.message("answer.format_none")))
            figures.append(("max_concurrency", words.message(
                "speed.value.concurrency", count=f"{answers.max_concurrency:,}", rate=f"{machine.min_tokens_per_s:g}")
                if answers.max_concurrency else words.message(
                    "speed.value.concurrency_no_fit" if not answers.fits else "speed.value.concurrency_not_whole"
                    if not answers.searched_fits else "speed.value.concurrency_none",
                    rate=f"{machine.min_tokens_per_s:g}")))
            if answers.min_n_cpu_moe is not None and answers.n_cpu_moe_tokens_per_s:
                rate = tokens_s(answers.n_cpu_moe_tokens_per_s)
                figures.append(("min_n_cpu_moe", words.message(
                    "speed.value.n_cpu_moe", layers=answers.min_n_cpu_moe, rate=rate)))
            plan = answers.llamacpp_fit
            if plan is not None and plan.changed:
                ram = sum(device == "CPU" for _, device in plan.overrides)  # not those overflowing to the next GPU
                in_ram = words.message("speed.value.fit_parts", count=ram) if ram else ""
                split = f" -ts {','.join(map(str, plan.tensor_split))}" if plan.tensor_split else ""
                figures.append(("llamacpp_fit", words.message(
                    "speed.value.fit", layers=plan.gpu_layers, parts=in_ram, split=split,
                    rate=tokens_s(answers.llamacpp_fit_tokens_per_s)) if answers.llamacpp_fit_tokens_per_s
                    else words.message("speed.value.fit_none")))
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
        basis.append(words.say(expected_error(workload, result.target.count)))
    if speed.train_tokens_per_s is not None and speed.step_s is not None:
        line = words.message("speed.line.training", tokens=_number(speed.train_tokens_per_s),
                             step=_duration(speed.step_s, words))
    elif speed.decode_tokens_per_s is not None:
        line = words.message("speed.line" if speed.ttft_s is not None else "speed.line.no_ttft",
                             decode=_number(speed.decode_tokens_per_s),
                             ttft="" if speed.ttft_s is None else _duration(speed.ttft_s, words))
    elif speed.requests_per_s is not None and speed.prefill_tokens_per_s is not None:
        line = words.message("speed.line.embedding", tokens=_number(speed.prefill_tokens_per_s),
                             requests=_number(speed.requests_per_s))
    elif speed.transcribe_s is not None and speed.real_time_factor:
        line = words.message("speed.line.speech", audio=_duration(speed.transcribe_s / speed.real_time_factor, words),
                             time=_duration(speed.transcribe_s, words), speed=_number(1 / speed.real_time_factor))
    else:
        line = ""
    if line and not answers.fits:  # the verdict says it does not fit: its speed is a run that cannot start
        line = words.message("speed.line.not_fit", line=line.rstrip("."))
    labels = {key: words.message(f"speed.figure.{key}") for key in FIGURES}
    charts = {"context": _context_chart(speed.curve, words),
              "moe": _moe_chart(answers.n_cpu_moe_curve, result.target.gpu.usable_bytes, words)}
    return SpeedView(line=line, figures=tuple((key, labels[key], value) for key, value in figures),
                     basis=tuple(basis), charts=charts)


def _path(points: list[tuple[float, float]], x_top: float, y_top: float) -> str:
    """The SVG path through (x, tokens/s) points, scaled to CHART_WIDTH × CHART_HEIGHT."""
    return "M" + " L".join(f"{CHART_WIDTH * x / x_top:.1f},{CHART_HEIGHT * (1 - y / y_top):.1f}" for x, y in points)


def _context_chart(curve: tuple[tuple[int, float], ...], words: Words) -> SpeedChart:
    """One sequence's tokens/s as the context fills, from empty to the whole sequence."""
    if not curve:
        return SpeedChart()
    high, low, last = max(rate for _, rate in curve), min(rate for _, rate in curve), curve[-1][0] or 1
    return SpeedChart(path=_path([(float(depth), rate) for depth, rate in curve], last, high * 1.1),
                      desc=words.message("speed.chart.context.desc", low=_tokens_s(low, words),
                                         high=_tokens_s(high, words), seq=f"{last:,}"),
                      x_end=words.localize(f"{last:,}"), y_top=words.localize(_number(high * 1.1)))


def _moe_chart(curve: tuple[tuple[int, int, float], ...], usable: int, words: Words) -> SpeedChart:
    """The trade of --n-cpu-moe: x the most loaded GPU's bytes, y one sequence's tokens/s; the card's line. None
    without a speed (a card whose bandwidth is not known: every rate 0)."""
    if len(curve) < 2 or not any(rate for _, _, rate in curve):
        return SpeedChart()
    x_top = max(max(b for _, b, _ in curve), usable) * 1.05
    y_top = max(rate for _, _, rate in curve) * 1.1
    (_, most, fast), (layers, least, slow) = curve[0], curve[-1]
    return SpeedChart(path=_path([(float(b), rate) for _, b, rate in curve], x_top, y_top),
                      desc=words.message("speed.chart.moe.desc", fast=f"{fast:,.1f}", most=words.gib(most),
                                         slow=f"{slow:,.1f}", least=words.gib(least), layers=layers),
                      x_end=words.localize(f"{x_top / 2**30:,.0f} GiB"), y_top=words.localize(_number(y_top)),
                      limit_x=round(CHART_WIDTH * usable / x_top, 1))


def speed_lines(view: SpeedView) -> str:
    """The command line's speed section."""
    lines = ["", "speed:"]
    lines += [f"  {label}: {value}" for _, label, value in view.figures]
    lines += [f"  {text}" for text in view.basis]
    return "\n".join(lines)
