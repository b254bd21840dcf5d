"""How fast, and what it costs: time to first token, tokens per second, the training step, from the
byte model's breakdown (speed/reads.py), the card's figures and what each engine achieves of them
(speed/hardware.py, data/speed.json), validated against published runs (docs/accuracy.md, "Speed")."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from ..core.choices import GGUF_RUNTIMES, Runtime
from ..core.errors import ValidationError
from ..core.phrase import Phrase, phrase
from ..core.units import GB
from ..engines.layouts import resolve_layout
from ..engines.llamacpp import as_kept
from ..engines.llamacpp_fit_gpus import free_on, split_of
from ..engines.ollama import within_context
from ..engines.vllm import vllm_batched_tokens
from ..memory.components import Breakdown
from ..parallel.layout import Layout
from ..sources.gpus import GpuSpec
from ..workload import Machine, Workload
from .hardware import (
    TERA,
    Device,
    Memory,
    Platform,
    calibration,
    device,
    engine_rates,
    host_copy_bandwidth,
    ram_bandwidth,
    ram_source,
    split_device,
)
from .inference import (
    Placement,
    Prefill,
    Step,
    decode_step,
    mean_step,
    placement_of,
    prefill,
    serving_rates,
)
from .serving import Steps, seconds, steady
from .speculative import speculation, target
from .speech import transcription
from .training import kernel as training_kernel
from .training import rollout, rollouts, training_step

CURVE_POINTS = 12  # the chart of tokens/s against context length


@dataclasses.dataclass(frozen=True, kw_only=True)
class Speed:
    """The JSON's `speed`: None where it does not apply (training has no decode) or cannot be known
    (a card without its figures: `unknown` says which to give)."""

    prompt_tokens: int = 0
    output_tokens: int = 0
    sequences: int = 1
    prefill_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    output_tokens_per_s: float | None = None
    ttft_s: float | None = None
    tpot_s: float | None = None
    bound: str | None = None
    step_s: float | None = None
    train_tokens_per_s: float | None = None
    mfu: float | None = None
    rollout_s: float | None = None  # GRPO: the generation inside step_s
    requests_per_s: float | None = None  # an embedder: sequences embedded per second (batch × replicas / forward)
    transcribe_s: float | None = None  # a speech model: seconds to transcribe the audio (speed/speech.py)
    real_time_factor: float | None = None  # those seconds over the audio's
    basis: tuple[Phrase, ...] = ()
    unknown: Phrase | None = None
    curve: tuple[tuple[int, float], ...] = ()  # (context depth, one sequence's tokens/s)

    def as_json(self) -> dict[str, object]:
        names = ("prefill_tokens_per_s", "decode_tokens_per_s", "output_tokens_per_s", "ttft_s", "tpot_s", "bound",
                 "step_s", "train_tokens_per_s", "mfu", "rollout_s", "prompt_tokens", "output_tokens", "sequences",
                 "requests_per_s", "transcribe_s", "real_time_factor")
        return {name: _rounded(getattr(self, name)) for name in names}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Cost:
    usd_per_hour: float | None = None
    usd_per_million_output_tokens: float | None = None
    run_hours: float | None = None
    run_usd: float | None = None
    usd_per_million_input_tokens: float | None = None  # an embedder: the tokens it embeds
    usd_per_audio_hour: float | None = None  # a speech model: an hour of audio transcribed
    price: Phrase | None = None  # where the price comes from

    def as_json(self) -> dict[str, object]:
        return {name: _rounded(getattr(self, name)) for name in
                ("usd_per_hour", "usd_per_million_output_tokens", "run_hours", "run_usd",
                 "usd_per_million_input_tokens", "usd_per_audio_hour")}


def _rounded(value: object) -> object:
    return float(f"{value:.6g}") if isinstance(value, float) else value


@functools.cache
def _prices() -> dict[str, Any]:
    with resources.files("vramcalc.data").joinpath("prices.json").open(encoding="utf-8") as file:
        data: dict[str, Any] = json.load(file)
    return data


@functools.cache
def default_prices() -> Mapping[str, float]:
    """Each card's default price for a GPU-hour, in US dollars (data/prices.json)."""
    return {slug: float(usd) for slug, usd in _prices()["usd_per_gpu_hour"].items()}


def _gb_s(value: float) -> str:
    return f"{value / GB:,.0f}"


def _percent(value: float) -> str:
    return f"{100 * value:.0f}%"


def _significant(value: float) -> str:
    """Three significant figures, whatever the size (0.0664, 1.23, 4,560): a figure its basis's arithmetic reads."""
    return f"{float(f'{value:.3g}'):,}".removesuffix(".0")


def _tflops(value: float) -> str:
    return _significant(value / TERA)


def _as_run(breakdown: Breakdown) -> Breakdown:
    """The breakdown with its request as the engine runs it (Ollama cuts a prompt longer than its context; llama.cpp
    keeps every layer whole for the architectures whose window it does not read, engines/llamacpp.py as_kept)."""
    run = within_context(breakdown.workload)
    if run.runtime in GGUF_RUNTIMES and (kept := as_kept(run.model)) is not run.model:
        run = run.but(model=kept)
    return breakdown if run is breakdown.workload else dataclasses.replace(breakdown, workload=run)


def _setup(breakdown: Breakdown, gpu: GpuSpec, gpus: int, machine: Machine) -> tuple[Device, Layout] | Phrase:
    """The card and the layout the speed is computed for, or why it cannot be; on a machine of different
    cards, their layer split as one device (hardware.split_device)."""
    cards = breakdown.workload.cards
    if len(cards) == gpus:
        card = split_device(cards, split_of(breakdown.workload, free_on(breakdown.workload, gpus)), machine)
    else:
        card = device(gpu, machine)
    if breakdown.workload.llamacpp_vulkan:
        card = dataclasses.replace(card, platform=Platform.VULKAN)
    if card.bandwidth is None:
        return phrase("speed.unknown_bandwidth")
    try:
        return card, resolve_layout(breakdown.workload, gpus)
    except ValidationError:
        return phrase("speed.unknown_layout")


def speed_of(breakdown: Breakdown, gpu: GpuSpec, gpus: int, machine: Machine) -> Speed:
    """The speed of the breakdown's workload on `gpus` of `gpu`."""
    breakdown = _as_run(breakdown)
    setup = _setup(breakdown, gpu, gpus, machine)
    if isinstance(setup, Phrase):
        return Speed(unknown=setup)
    card, layout = setup
    if breakdown.workload.transcribes:
        return _transcription(breakdown, card)
    if breakdown.workload.is_training:
        return _training(breakdown, card, machine, layout)
    if breakdown.workload.embeds:
        return _embedding(breakdown, card, machine, layout)
    return _inference(breakdown, card, machine, layout)


def _embedding_error() -> Phrase:
    """The embedders' error against published runs (tools/validate_embedding_speed.py --write)."""
    found = calibration()["validation"]["embedding"]
    return phrase("speed.embedding.checked", rows=found["rows"], median=f"{found['median']:.0%}",
                  within=found["within_2x"])


def _embedding(breakdown: Breakdown, card: Device, machine: Machine, layout: Layout) -> Speed:
    """An embedder's or reranker's batch: one forward of batch × seq tokens, timed as a prefill is (its FLOPs
    over the engine's share of the card's rate, never faster than reading the weights), no head, no decode.
    Held to published embedding runs (tools/validate_embedding_speed.py): its basis gives the error."""
    workload = breakdown.workload
    forward = prefill(workload, card, machine, placement_of(breakdown, layout.pp, layout.tp), batch=workload.batch,
                      prompt=workload.seq)
    if forward is None:
        return Speed(unknown=phrase("speed.unknown_tflops_run"))
    rates = engine_rates(workload.runtime)
    rest = forward.seconds - forward.compute_s - forward.host_s  # the reads beside the matmuls, the fixed costs
    basis = (phrase("speed.basis.prefill", tokens=f"{workload.batch * workload.seq:,}",
                    flops=_significant(forward.flops / TERA), share=_percent(forward.share),
                    tflops=_tflops(forward.peak), kernel=phrase(f"speed.kernel.{forward.kernel}"),
                    each=_on_each(layout.tp)),
             *((phrase("speed.basis.embed_rest", compute=_significant(forward.compute_s),
                       total=_significant(forward.seconds), chunks=forward.chunks),)
               if abs(rest) > 0.02 * forward.seconds else ()),
             phrase("speed.basis.engine", engine=phrase(f"option.runtime.{workload.runtime.value}"),
                    basis=phrase(rates["basis"])), _embedding_error())
    return Speed(prompt_tokens=workload.seq, output_tokens=0, sequences=workload.batch,
                 prefill_tokens_per_s=layout.dp * workload.batch * workload.seq / forward.seconds,
                 requests_per_s=layout.dp * workload.batch / forward.seconds, basis=basis)


def _transcription(breakdown: Breakdown, card: Device) -> Speed:
    """A speech model's audio heard window after window (speed/speech.py); several GPUs each run a whole model on
    their own audio, so one GPU's time is the answer."""
    run = transcription(breakdown, card)
    if run is None:
        return Speed(unknown=phrase("speed.unknown_tflops_run"))
    held = calibration()["speech"]["validation"]
    basis = (phrase("speed.speech.basis", audio=f"{run.audio:,.0f}", windows=run.windows, groups=run.groups,
                    rows=run.rows, encode=_significant(run.encode_s), flops=f"{run.flops / TERA:,.2f}",
                    share=_percent(run.share), tflops=_tflops(run.peak), kernel=phrase(f"speed.kernel.{run.kernel}"),
                    decode=_significant(run.decode_s), tokens=run.tokens, step=f"{1000 * run.step_s:.1f}",
                    fixed=f"{1000 * run.fixed_s:.1f}", host=_significant(run.host_s),
                    given=phrase("speed.speech.given" if breakdown.workload.window_tokens else "speed.speech.typical")),
             phrase("speed.speech.error", fit=_percent(held["fit"]["worst"]), rows=held["fit"]["rows"],
                    held=_percent(held["held_out"]["worst"])))
    return Speed(prompt_tokens=0, output_tokens=run.tokens, sequences=run.rows, transcribe_s=run.seconds,
                 real_time_factor=run.seconds / run.audio, basis=basis)


def _mean_step(breakdown: Breakdown, card: Device, machine: Machine, layout: Layout) -> tuple[float, Step]:
    workload = breakdown.workload
    return mean_step(workload, card, machine, placement_of(breakdown, layout.pp, layout.tp),
                     batch=workload.sequences, prompt=workload.prompt, output=workload.output)


def decode_rate(breakdown: Breakdown, gpu: GpuSpec, gpus: int, machine: Machine) -> float | None:
    """One sequence's tokens/s, as `speed_of` says it, without the prompt, the chart or the words: what the
    reverse answers search over (None in training, or when the card's bandwidth or the layout is unknown)."""
    breakdown = _as_run(breakdown)
    setup = _setup(breakdown, gpu, gpus, machine)
    if isinstance(setup, Phrase) or breakdown.workload.is_training or breakdown.workload.embeds or (
            breakdown.workload.transcribes):
        return None
    card, layout = setup
    mean, _ = _mean_step(breakdown, card, machine, layout)
    return 1 / mean


def throughput(breakdown: Breakdown, gpu: GpuSpec, gpus: int, machine: Machine) -> float | None:
    """Tokens/s of all sequences (training: trained tokens/s), as `speed_of` says them, without the rest:
    what the cheapest-card search compares."""
    breakdown = _as_run(breakdown)
    if breakdown.workload.is_training:
        return speed_of(breakdown, gpu, gpus, machine).train_tokens_per_s
    if breakdown.workload.embeds or breakdown.workload.transcribes:  # no output tokens to price
        return None
    setup = _setup(breakdown, gpu, gpus, machine)
    if isinstance(setup, Phrase):
        return None
    card, layout = setup
    mean, _ = _mean_step(breakdown, card, machine, layout)
    whole = prefill(breakdown.workload, card, machine, placement_of(breakdown, layout.pp, layout.tp),
                    batch=breakdown.workload.sequences, prompt=breakdown.workload.prompt)
    return _serving_rate(breakdown, mean, whole, card, machine, layout)


def served(breakdown: Breakdown, gpu: GpuSpec, gpus: int, machine: Machine, steps: Steps) -> float | None:
    """Output tokens/s of vLLM running `steps` (speed/serving.py) on `gpus` of `gpu`: what
    tools/validate_speed.py predicts a published benchmark's run with (None: the card's figures are unknown)."""
    breakdown = _as_run(breakdown)
    setup = _setup(breakdown, gpu, gpus, machine)
    if isinstance(setup, Phrase):
        return None
    card, layout = setup
    achieved = serving_rates(breakdown.workload, card)
    if achieved is None:
        return None
    return layout.dp * steps.output / seconds(steps, breakdown.workload, card, achieved, tp=layout.tp)


def _serving_rate(breakdown: Breakdown, mean: float, whole: Prefill | None, card: Device, machine: Machine,
                  layout: Layout) -> float:
    """Output tokens/s of all sequences under a steady load: each sequence's prompt is prefilled and its
    output decoded, the engine's time shared between them (continuous batching: the prompts of the
    requests that replace finished ones run between decode steps). vLLM: its scheduler's steps under a
    steady load of the sequences (speed/serving.py `steady`: prompt chunks and decoding rows in one step).
    Held to published vLLM and SGLang serving runs (docs/accuracy.md, "Speed"), where the API server's work
    per request and per streamed token (vLLM's host_s) bounds the rate of many short answers. With speculative
    decoding, vLLM's decoding share of that time is shortened as the decode step model shortens its step at that
    batch (`mean`, per token; a compute-bound batch gains less): not held to a published serving run yet."""
    workload, replicas, tp = breakdown.workload, layout.dp, layout.tp
    if workload.runtime is Runtime.VLLM:
        achieved = serving_rates(workload, card)
        if achieved is not None:
            checker = target(workload)
            steps = steady(checker, running=workload.sequences, budget=vllm_batched_tokens(workload))
            rate = float(replicas * steps.output / seconds(steps, checker, card, achieved, tp=tp))
            if speculation(workload) is None:
                return rate
            plain, _ = mean_step(checker, card, machine, placement_of(breakdown, layout.pp, tp),
                                 batch=workload.sequences, prompt=workload.prompt, output=workload.output)
            decoding = min(1.0, plain * rate / (replicas * workload.sequences))  # decoding's share of the time
            return rate / (1 - decoding + decoding * mean / plain)
    host = engine_rates(workload.runtime).get("host_s", {})  # the server's own work: per request, per token
    tokens = workload.sequences * workload.output
    busy = (workload.output * mean + (whole.seconds if whole else 0.0)
            + workload.sequences * float(host.get("request", 0.0)) + tokens * float(host.get("token", 0.0)))
    return float(replicas * tokens / busy)


def _ram_basis(card: Device, machine: Machine) -> Phrase:
    """Which RAM bandwidth the weights in system RAM are read at, and why: the user's, a unified-memory machine's
    CPU share, or a desktop's (a machine of several cards too: a list never holds a unified-memory one)."""
    return phrase(f"speed.ram.{ram_source(machine, card).value}", ram=_gb_s(ram_bandwidth(machine, card)),
                  desktop=f"{calibration()['ram_bandwidth_gb_s']:,.0f}")


def _on_each(tp: int) -> Phrase | str:
    """Under tensor parallelism, the rate is each GPU's: the words that say so ("" on one)."""
    return phrase("speed.basis.on_each_gpu", gpus=tp) if tp > 1 else ""


def _decode_basis(middle: Step, mean: float, workload: Workload, card: Device, tp: int) -> Phrase:
    """The decode step in words, its numbers adding up as speed/inference.py `forward` adds them: the bytes each GPU
    reads (tensor parallel: its share) at the engine's share of the bandwidth, the cache's part at its own share, the
    part in system RAM at the engine's share of the RAM's bandwidth, and the fixed costs that add to the read (the
    launches transformers overlaps with it do not)."""
    assert card.bandwidth is not None
    share, kv_share, ram_share, ram = middle.share, middle.kv_share, middle.ram_share, middle.ram_bandwidth  # forward's
    cache = (phrase("speed.basis.cache_share", cache=f"{middle.cache_bytes / tp / GB:.2f} GB", share=_percent(kv_share))
             if middle.cache_bytes and kv_share != share else "")
    host = (phrase("speed.basis.host_part", host=f"{middle.host_bytes / GB:.2f} GB", share=_percent(ram_share),
                   ram=_gb_s(ram), ms=f"{1000 * middle.host_read_s:.1f}") if middle.host_read_s else "")
    return phrase(
        f"speed.basis.{middle.bound}", bytes=f"{middle.gpu_bytes / tp / GB:.2f} GB",
        host=f"{middle.host_bytes / GB:.2f} GB",
        each=phrase("speed.basis.each_gpu", gpus=tp) if tp > 1 else "", cache=cache, host_part=host,
        read=f"{1000 * middle.gpu_read_s:.1f}", share=_percent(share), bandwidth=_gb_s(card.bandwidth),
        ram_share=_percent(ram_share), depth=f"{workload.prompt + workload.output // 2:,}",
        sequences=workload.sequences, ram=_gb_s(ram), fixed=f"{1000 * (middle.fixed_s - middle.overlapped_s):.1f}",
        launch=f"{1000 * middle.fixed_s:.1f}", step=f"{1000 * mean:.1f}")


def _inference(breakdown: Breakdown, card: Device, machine: Machine, layout: Layout) -> Speed:
    workload = breakdown.workload
    prompt, output, sequences = workload.prompt, workload.output, workload.sequences
    placement = placement_of(breakdown, layout.pp, layout.tp)
    mean, middle = _mean_step(breakdown, card, machine, layout)
    first = prefill(breakdown.workload, card, machine, placement, batch=1, prompt=prompt)
    whole = prefill(breakdown.workload, card, machine, placement, batch=sequences, prompt=prompt)
    rates = engine_rates(workload.runtime)
    assert card.bandwidth is not None
    basis: list[Phrase] = [_decode_basis(middle, mean, workload, card, layout.tp)]
    if middle.moe_kernel_s:
        table = rates["rdna_mxfp4"]
        basis.append(phrase("speed.basis.rdna_mxfp4", seconds=f"{1000 * middle.moe_kernel_s:.1f}",
                            rows=table["max_rows"], slowdown=f"{table['slowdown']:.1f}"))
    if middle.host_bytes:
        basis.append(_ram_basis(card, machine))
    if first is not None:
        said = "speed.basis.prefill_acc16" if first.accumulate16 else "speed.basis.prefill"
        basis.append(phrase(said, tokens=f"{prompt:,}", flops=_significant(first.flops / TERA),
                            share=_percent(first.share), tflops=_tflops(first.peak),
                            kernel=phrase(f"speed.kernel.{first.kernel}"), each=_on_each(layout.tp)))
        rest = first.seconds - first.compute_s - first.host_s  # the reads beside the matmuls, the fixed costs
        if abs(rest) > 0.02 * first.seconds:
            basis.append(phrase("speed.basis.prefill_rest", compute=_significant(first.compute_s),
                                total=_significant(first.seconds), chunks=first.chunks))
        if first.host_bytes:
            said = "speed.basis.prefill_host" + ("_unified" if card.memory is Memory.UNIFIED else "")
            basis.append(phrase(said, bytes=f"{first.host_bytes / GB:.2f} GB", chunks=first.chunks,
                                pcie=_gb_s(host_copy_bandwidth(card)), seconds=f"{first.host_s:.1f}",
                                total=f"{first.seconds:.1f}"))
    else:
        basis.append(phrase("speed.unknown_tflops"))
    serving = _serving_rate(breakdown, mean, whole, card, machine, layout)
    if sequences > 1:  # the steady rate is below sequences × per-sequence speed by the prompts' share of the time
        decoding = min(1.0, serving * mean / (layout.dp * sequences))
        basis.append(phrase("speed.basis.output", rate=f"{serving:,.0f}", sequences=sequences, prompt=f"{prompt:,}",
                            decoding=f"{layout.dp * sequences / mean:,.0f}", share=_percent(1 - decoding)))
    basis.append(phrase("speed.basis.engine", engine=phrase(f"option.runtime.{workload.runtime.value}"),
                        basis=phrase(rates["basis"])))
    plan = speculation(workload)
    if plan is not None:
        drafter = (phrase("speed.speculative.mtp") if plan.kind == "mtp" else
                   phrase("speed.speculative.draft", draft=workload.draft_model.display_name
                          if workload.draft_model else ""))
        basis.append(phrase(
            "speed.speculative", drafter=drafter, drafted=plan.drafted, acceptance=_percent(plan.acceptance),
            source=phrase("speed.speculative.given" if plan.given else f"speed.speculative.default_{plan.kind}"),
            tokens=f"{plan.tokens:.2f}", checked=plan.drafted + 1, draft=f"{1000 * middle.draft_s:.1f}",
            serving=phrase("speed.speculative.serving" if workload.runtime is Runtime.VLLM
                           else "speed.speculative.single")))
        if plan.kind == "draft" and workload.runtime is Runtime.LLAMACPP:  # tests/test_speculative_speed.py:
            basis.append(phrase("speed.speculative.draft_checked"))  # llama.cpp #5877 on an RTX 3060
        if plan.kind == "draft" and workload.runtime is Runtime.TRANSFORMERS:
            basis.append(phrase("speed.speculative.assistant", drafted=plan.drafted))
    curve = []
    for i in range(CURVE_POINTS + 1):
        depth = max(1, round(i * workload.seq / CURVE_POINTS))
        step = decode_step(breakdown.workload, card, machine, placement, batch=sequences, depth=depth)
        curve.append((depth, 1 / step.seconds))
    return Speed(
        prompt_tokens=prompt, output_tokens=output, sequences=sequences,
        prefill_tokens_per_s=None if whole is None else sequences * prompt / whole.seconds,
        decode_tokens_per_s=1 / mean,
        output_tokens_per_s=serving,
        ttft_s=None if first is None else first.seconds, tpot_s=mean, bound=middle.bound,
        basis=tuple(basis), curve=tuple(curve))


def _rollout_time(workload: Workload, card: Device, machine: Machine, tp: int) -> float:
    """GRPO's and RLOO's generation before the step: the generation batch's prompts prefilled, then its completions
    decoded, on the rollout's engine with every layer on the GPU; per optimizer step, as many times as a step
    generates on average (one generation serves steps_per_generation × num_iterations micro-steps)."""
    run = rollout(workload)
    if run is None:
        return 0.0
    placement = Placement(tp=tp)
    mean, _ = mean_step(run, card, machine, placement, batch=run.batch, prompt=run.prompt, output=run.output)
    first = prefill(run, card, machine, placement, batch=run.batch, prompt=run.prompt)
    return (run.output * mean + (first.seconds if first else 0.0)) * rollouts(workload)


def _training(breakdown: Breakdown, card: Device, machine: Machine, layout: Layout) -> Speed:
    workload = breakdown.workload
    model_parallel, replicas = layout.tp * layout.pp * layout.cp, layout.dp
    generation = _rollout_time(workload, card, machine, layout.tp)
    step = training_step(workload, card, model_parallel, replicas=replicas, stage=layout.stage,
                         gradients=breakdown.sizes.get("gradients", 0), weights=breakdown.sizes.get("weights", 0),
                         generation_s=generation)
    if step is None:
        return Speed(unknown=phrase("speed.unknown_tflops_run"))
    matmuls = training_kernel(workload)
    peak = card.compute(matmuls) or 0.0
    basis: tuple[Phrase, ...] = (phrase(
        "speed.basis.training", tokens=f"{step.tokens:,}", flops=_significant(step.model_flops / 1e15),
        share=_percent(step.mfu) if step.mfu >= 0.095 else f"{100 * step.mfu:.2g}%",
        tflops=_tflops(peak), gpus=model_parallel * replicas, basis=phrase(calibration()["training"]["basis"]),
        kernel=phrase(f"speed.kernel.{matmuls}")),)
    if step.reference_flops:
        basis += (phrase("speed.basis.reference", flops=_significant(step.reference_flops / 1e15)),)
    if step.generation_s:
        run = rollout(workload)
        assert run is not None
        per_step = rollouts(workload)
        basis += (phrase("speed.basis.rollout" if per_step == 1 else "speed.basis.rollout_shared",
                         sequences=f"{run.batch:,}", tokens=f"{run.output:,}", per_step=f"{per_step:,.3g}",
                         seconds=f"{step.generation_s:,.1f}", share=_percent(step.generation_s / step.seconds),
                         engine=phrase(f"option.runtime.{run.runtime.value}")),)
    if step.sync_s:
        basis += (phrase("speed.basis.sync", gpus=replicas, seconds=f"{step.sync_s:,.2f}",
                         compute=f"{step.compute_s:,.2f}",
                         link=_gb_s(card.link)),)
    return Speed(step_s=step.seconds, train_tokens_per_s=replicas * step.tokens / step.seconds, mfu=step.mfu,
                 rollout_s=step.generation_s or None, basis=basis)


def cost_of(speed: Speed, gpu: GpuSpec, gpus: int, machine: Machine, cards: tuple[GpuSpec, ...] = ()) -> Cost:
    """Dollars, from the user's price per GPU-hour or the default for a cloud card (data/prices.json); a
    machine of different `cards`, the sum of their own prices (none unless each has one)."""
    price: float | None = machine.gpu_hour_usd
    said = phrase("cost.price.given") if price is not None else None
    priced = [default_prices().get(card.slug) for card in cards or (gpu,) * gpus]
    if price is None and all(priced):
        said = phrase("cost.price.default", date=_prices()["date"], source=_prices()["source"])
    hours = _run_hours(speed, machine)
    if price is None and not all(priced):  # never a silent absence: which card has no price, and what to give
        unpriced = next(card for card, usd in zip(cards or (gpu,) * gpus, priced, strict=True) if not usd)
        return Cost(run_hours=hours, price=phrase("cost.price.none", gpu=unpriced.display_name))
    per_hour = price * gpus if price is not None else sum(p for p in priced if p)
    per_million = None
    if speed.output_tokens_per_s:
        per_million = per_hour / (speed.output_tokens_per_s * 3600) * 1e6
    embedded = None  # an embedder makes no output tokens: its cost is per token embedded
    if speed.requests_per_s and speed.prefill_tokens_per_s:
        embedded = per_hour / (speed.prefill_tokens_per_s * 3600) * 1e6
    # each GPU transcribes its own audio (speed_of): an hour of audio costs one GPU's price for its time
    audio = per_hour / gpus * speed.real_time_factor if speed.real_time_factor else None
    return Cost(usd_per_hour=per_hour, usd_per_million_output_tokens=per_million, run_hours=hours,
                run_usd=None if hours is None else hours * per_hour, price=said,
                usd_per_million_input_tokens=embedded, usd_per_audio_hour=audio)


def _run_hours(speed: Speed, machine: Machine) -> float | None:
    """Hours to train on `train_tokens` tokens, with or without a price."""
    if machine.train_tokens and speed.train_tokens_per_s:
        return machine.train_tokens / speed.train_tokens_per_s / 3600
    return None


__all__ = ["Cost", "Machine", "Speed", "cost_of", "decode_rate", "default_prices", "speed_of", "throughput"]
