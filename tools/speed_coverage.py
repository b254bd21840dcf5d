"""Run the command line's `--json` (and `fit --json`) over a grid of modes, engines, layouts, cards and formats,
and flag what its speed and cost say wrong (issue 24's coverage audit):

- a figure missing without a stated reason (the JSON's speed_basis names why: "unknown", "No cost", ...);
- NaN, infinite, negative or zero figures;
- figures that disagree: tpot vs decode, ttft vs prefill, output vs sequences × decode, $ per million vs $ per hour
  and the throughput, run hours vs --train-tokens and the training rate, requests vs embedded tokens, the
  real-time factor vs the audio, the basis line's step vs tpot and its prompt tokens vs the prompt;
- monotonicity: more bandwidth not slower, more TFLOPS not a longer first token, a longer prompt not a shorter
  first token, more output tokens not a faster average decode, more RAM bandwidth not slower with layers in RAM,
  a dearer GPU-hour not cheaper tokens;
- `fit --json`'s reverse answers: the fastest format and the most sequences at a speed (inference), the fewest
  GPUs for a run in N hours (training with --train-tokens and --max-run-hours), the cheapest card (priced cards).

    PYTHONPATH=app python tools/speed_coverage.py            # the summary and every flag
    PYTHONPATH=app python tools/speed_coverage.py --list     # every combination and what it said

A refusal with a clear message (exit status 2) is an answer, not a gap; a traceback is a defect."""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import math
import re
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from vramcalc.cli import main
from vramcalc.formats.weights import GGUF_FORMATS
from vramcalc.sources.gpus import all_gpus

Argv = tuple[str, ...]
REL = 2e-3  # the JSON rounds to 6 significant figures; the basis to 0.1 ms
INFERENCE = ("prefill_tokens_per_s", "decode_tokens_per_s", "output_tokens_per_s", "ttft_s", "tpot_s")
TRAINING = ("step_s", "train_tokens_per_s", "mfu")
EMBEDDING = ("prefill_tokens_per_s", "requests_per_s")
SPEECH = ("transcribe_s", "real_time_factor")
REASONS = re.compile(r"unknown|not known|cannot", re.IGNORECASE)  # the speed.unknown_* words
STEP_MS = re.compile(r"\(([\d,.]+) ms per (?:token|step)")
NUMBER = r"([\d,.]+)"
MEMORY = re.compile(  # speed.basis.memory, as English words it
    rf"Memory-bound: {NUMBER} GB read per step(?: by each of its (\d+) GPUs)? at (\d+)% of {NUMBER} GB/s"
    rf"(?: \({NUMBER} GB of it the KV cache, read at (\d+)%\))?: {NUMBER} ms(?:, and {NUMBER} GB from system RAM at "
    rf"(\d+)% of {NUMBER} GB/s: {NUMBER} ms)?, plus {NUMBER} ms of fixed cost per step \({NUMBER} ms per token")
TRAINING_STEP = re.compile(rf"^Step: {NUMBER} PFLOP for [\d,]+ tokens per replica at {NUMBER}% model FLOPs utilisation "
                           rf"of {NUMBER} TFLOPS per GPU")
PROMPT = re.compile(r"^Prompt: [\d,.]+ TFLOP for ([\d,]+) tokens")
PROMPT_TIME = re.compile(rf"^Prompt: {NUMBER} TFLOP for [\d,]+ tokens at {NUMBER}% of {NUMBER} TFLOPS"
                         r"(?: on each of its (\d+) GPUs)?")
PROMPT_HOST = re.compile(rf"^Of the prompt's {NUMBER} s, {NUMBER} s copy")
PROMPT_REST = re.compile(rf"^The matmuls take {NUMBER} s of it; .* bring the first token to {NUMBER} s")
SPEECH_BASIS = re.compile(rf"in (\d+) (?:pass|passes) of .* Encoder {NUMBER} s: .* Decoder {NUMBER} s: (\d+) tokens a "
                          rf"window .*?, {NUMBER} ms a step .* on the CPU: {NUMBER} s\.")
ALL_SEQUENCES = re.compile(rf"^All sequences: {NUMBER} output tokens/s")
EMBED_REST = re.compile(rf"^The matmuls take {NUMBER} s of it; .* bring the batch's forward to {NUMBER} s")
LLM, MOE, BIG = "llama-3.1-8b", "qwen3-30b-a3b", "llama-3.1-70b"
CARDS = ("rtx-4090", "rtx-3060", "h100-80gb", "a100-80gb", "l40s", "tesla-t4", "rx-7900-xtx", "mi300x",
         "apple-m4-max-128gb", "dgx-spark", "strix-halo", "24gb")
CUSTOM = ("--gpu", "24gb", "--gpu-bandwidth", "936", "--gpu-tflops", "142")
FORMATS = {"transformers": ("bf16", "fp16", "fp32", "int8", "nf4", "nf4-dq", "bnb-int8", "gptq-int4", "awq-int4",
                            "fp8"),
           "vllm": ("bf16", "fp8", "awq-int4", "gptq-int4", "gptq-int8", "nvfp4", "mxfp4", "fp8-block"),
           "llamacpp": ("q4_k_m", "q8_0", "q6_k", "iq4_xs", "q4_0", "f16", "bf16", "q2_k"),
           "ollama": ("q4_k_m", "q8_0", "f16")}


def run(argv: Argv) -> tuple[int, Any, str]:
    """The command line's exit status, its JSON (None if it printed none) and its error text."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exit_:
            status = int(exit_.code or 0)
        except Exception as error:  # a traceback: the defect this grid is for
            return -1, None, f"{type(error).__name__}: {error}"
    try:
        return status, json.loads(out.getvalue()), err.getvalue()
    except json.JSONDecodeError:
        return status, None, err.getvalue()


def grid() -> Iterator[Argv]:
    """Every combination run: each mode with each engine, layout, card and format it takes."""
    base: Argv
    layout: Argv
    tune: Argv
    more: Argv
    moe: Argv
    for runtime, formats in FORMATS.items():
        for model, precision, card in itertools.product((LLM, MOE), formats, ("rtx-4090", "h100-80gb")):
            yield ("--model", model, "--runtime", runtime, "--precision", precision, "--gpu", card)
    for runtime, card in itertools.product(("transformers", "vllm", "llamacpp", "ollama"), CARDS):
        precision = "q4_k_m" if runtime in ("llamacpp", "ollama") else "bf16"
        yield ("--model", LLM, "--runtime", runtime, "--precision", precision, "--gpu", card)
    for runtime in ("transformers", "vllm", "llamacpp", "ollama"):
        precision = "q4_k_m" if runtime in ("llamacpp", "ollama") else "bf16"
        base = ("--model", LLM, "--runtime", runtime, "--precision", precision)
        yield base + CUSTOM
        yield (*base, "--gpu", "24gb", "--gpu-bandwidth", "936")  # bandwidth without TFLOPS
        yield (*base, "--gpu", "24gb", "--gpu-hour-price", "0.5", *CUSTOM[2:])
        for batch in ("1", "8", "64"):
            key = "--parallel" if runtime in ("llamacpp", "ollama") else "--batch"
            yield (*base, "--gpu", "h100-80gb", key, batch, "--prompt-tokens", "1000", "--output-tokens", "500")
    # several GPUs
    for runtime, layout in itertools.product(("transformers", "vllm"), (("--tp", "2"), ("--pp", "2"), ("--dp", "2"))):
        yield ("--model", BIG, "--runtime", runtime, "--precision", "bf16", "--gpu", "h100-80gb", "--gpus", "2",
               *layout)
    yield ("--model", BIG, "--runtime", "vllm", "--gpu", "h100-80gb", "--gpus", "8", "--tp", "4", "--dp", "2")
    yield ("--model", "qwen3-235b-a22b", "--runtime", "vllm", "--gpu", "h100-80gb", "--gpus", "8", "--tp", "8")
    yield ("--model", "qwen3-235b-a22b", "--runtime", "vllm", "--gpu", "h100-80gb", "--gpus", "8", "--dp", "8",
           "--ep", "8")
    for runtime in ("llamacpp", "ollama"):
        yield ("--model", BIG, "--runtime", runtime, "--precision", "q4_k_m", "--gpu", "rtx-3090", "--gpus", "2")
        yield ("--model", BIG, "--runtime", runtime, "--precision", "q4_k_m", "--gpu", "rtx-3090,rtx-4060-ti-16gb")
    yield ("--model", BIG, "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "rtx-3090", "--gpus", "2",
           "--tensor-split", "3,1")
    for layers in ("0", "10", "20", "40"):
        yield ("--model", LLM, "--runtime", "llamacpp", "--precision", "q8_0", "--gpu", "rtx-3060", "--gpu-layers",
               layers)
    for moe in (("--cpu-moe",), ("--n-cpu-moe", "10"), ("--n-cpu-moe", "40"),
                ("--override-tensor", r"blk\.(1[0-9])\.ffn_.*_exps=CPU")):
        yield ("--model", MOE, "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "rtx-4060-ti-8gb", *moe)
        yield ("--model", "gpt-oss-120b", "--runtime", "llamacpp", "--gpu", "rtx-4090", *moe)
    for runtime in ("llamacpp", "vllm", "transformers"):
        yield ("--model", LLM, "--runtime", runtime, "--gpu", "rtx-4090", "--draft-model", "llama-3.2-1b")
    for runtime in ("llamacpp", "vllm"):
        yield ("--model", "qwen3.5-35b-a3b", "--runtime", runtime, "--gpu", "h100-80gb", "--mtp", "1")
    # every card: one small model on each engine that runs there, and a training step
    for card in all_gpus():
        yield ("--model", "llama-3.2-3b", "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", card)
        yield ("--model", "llama-3.2-3b", "--gpu", card, "--batch", "4", "--prompt-tokens", "512")
        yield ("--model", "llama-3.2-3b", "--runtime", "vllm", "--gpu", card)
        yield ("--model", "qwen3-0.6b", "--mode", "training", "--gpu", card, "--seq", "512", "--train-tokens",
               "1000000")
    for precision in GGUF_FORMATS:
        yield ("--model", LLM, "--runtime", "llamacpp", "--precision", precision, "--gpu", "rtx-4090")
    for kv in ("q8_0", "q4_0", "fp8", "int8"):
        for runtime in ("llamacpp", "vllm", "transformers"):
            yield ("--model", LLM, "--runtime", runtime, "--kv-precision", kv, "--gpu", "h100-80gb")
    for runtime, gpus in itertools.product(("llamacpp", "vllm", "transformers"), ("2", "4")):
        yield ("--model", BIG, "--runtime", runtime, "--gpu", "rtx-4090", "--gpus", gpus, "--precision",
               "q4_k_m" if runtime == "llamacpp" else "awq-int4")
    yield ("--model", LLM, "--runtime", "vllm", "--gpu", "h100-80gb", "--batch", "256", "--max-num-seqs", "64")
    yield ("--model", LLM, "--runtime", "vllm", "--gpu", "h100-80gb", "--batch", "32", "--enforce-eager")
    yield ("--model", LLM, "--runtime", "vllm", "--gpu", "h100-80gb", "--gpus", "2", "--tp", "2", "--batch", "64")
    yield ("--model", LLM, "--runtime", "llamacpp", "--gpu", "rtx-4090", "--draft-model", "llama-3.2-1b",
           "--spec-acceptance", "0.3")
    yield ("--model", LLM, "--runtime", "llamacpp", "--gpu", "rtx-3060", "--draft-model", "llama-3.2-1b",
           "--gpu-layers", "20", "--draft-gpu-layers", "8")
    yield ("--model", "gpt-oss-20b", "--gpu", "rx-9070-xt")
    yield ("--model", "gpt-oss-20b", "--runtime", "llamacpp", "--gpu", "apple-m4-pro-24gb")
    yield ("--model", MOE, "--runtime", "llamacpp", "--gpu", "apple-m4-max-36gb", "--cpu-moe")
    yield ("--model", MOE, "--runtime", "llamacpp", "--gpu", "strix-halo", "--n-cpu-moe", "20", "--ram-bandwidth",
           "100")
    yield ("--model", "qwen3-235b-a22b", "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu",
           "rtx-3090,rtx-3090,rtx-4090", "--cpu-moe")
    yield ("--model", "qwen2.5-vl-7b-instruct", "--runtime", "vllm", "--gpu", "h100-80gb", "--images", "2")
    yield ("--model", "qwen2.5-vl-7b-instruct", "--runtime", "llamacpp", "--gpu", "rtx-4090", "--images", "1")
    # training: every objective and framework, full, LoRA and QLoRA, and the layouts of several GPUs
    batches = {"grpo": "8", "rloo": "2", "kto": "2"}  # TRL's checks: num_generations divides the batch; KTO's KL
    for objective in ("sft", "dpo", "grpo", "orpo", "kto", "rloo", "ppo"):
        for tune in (("--lora-rank", "16"), ("--lora-rank", "16", "--precision", "nf4"), ()):
            yield ("--model", "qwen3-1.7b", "--mode", "training", "--objective", objective, "--gpu", "h100-80gb",
                   "--seq", "1024", "--batch", batches.get(objective, "1"), "--train-tokens", "100000000", *tune)
    for framework in ("trainer", "unsloth", "torchtune", "litgpt", "axolotl"):
        yield ("--model", LLM, "--mode", "training", "--framework", framework, "--lora-rank", "16", "--gpu",
               "rtx-4090", "--seq", "2048", "--train-tokens", "50000000")
    for layout in (("--zero", "3"), ("--zero", "2"), ("--zero", "1"), ("--fsdp", "full-shard"),
                   ("--zero", "3", "--offload", "optimizer"), ("--zero", "3", "--offload", "optimizer+params"),
                   ("--tp", "2", "--dp", "4"), ("--pp", "2", "--dp", "4"), ("--tp", "8")):
        yield ("--model", LLM, "--mode", "training", "--gpu", "a100-80gb", "--gpus", "8", "--seq", "4096",
               "--train-tokens", "1000000000", *layout)
    for card in CARDS:
        yield ("--model", "llama-3.2-1b", "--mode", "training", "--gpu", card, "--seq", "1024", "--train-tokens",
               "10000000")
    yield ("--model", "llama-3.2-1b", "--mode", "training", "--seq", "1024", "--train-tokens", "10000000", *CUSTOM)
    # embedding and speech, with their engines
    for runtime in ("transformers", "tei", "vllm", "llamacpp"):
        for model in ("bge-m3", "qwen3-embedding-0.6b"):
            yield ("--model", model, "--mode", "embedding", "--runtime", runtime, "--gpu", "l4", "--batch", "32",
                   "--seq", "512")
    for runtime in ("transformers", "faster-whisper"):
        for card in ("rtx-4090", "apple-m4-max-128gb", "tesla-t4"):
            yield ("--model", "whisper-large-v3", "--mode", "speech", "--runtime", runtime, "--gpu", card,
                   "--audio-seconds", "600")
        for more in (("--beams", "5"), ("--batch", "8"), ("--audio-seconds", "20"), ("--gpus", "2")):
            yield ("--model", "whisper-small", "--mode", "speech", "--runtime", runtime, "--gpu", "l4", *more)
    yield ("--model", "whisper-small", "--mode", "speech", "--runtime", "faster-whisper", "--gpu", "l4",
           "--no-fallback", "--window-tokens", "100")
    for runtime in ("transformers", "tei"):
        yield ("--model", "bge-m3", "--mode", "embedding", "--runtime", runtime, "--gpu", "l4", "--gpus", "2")
    yield ("--model", "bge-reranker-v2-m3", "--mode", "embedding", "--gpu", "l4", "--batch", "16")
    yield ("--model", "qwen3-embedding-0.6b", "--mode", "embedding", "--runtime", "llamacpp", "--gpu",
           "apple-m4-max-128gb")
    # training: more settings of one step
    for more in (("--grad-accum", "8"), ("--checkpointing", "none"), ("--checkpointing", "sqrt"), ("--fused-ce",),
                 ("--activation-offload",), ("--optimizer", "adamw-8bit"), ("--optimizer-in-backward",),
                 ("--compile",), ("--recipe", "mixed"), ("--batch", "8"), ("--precision", "fp32"),
                 ("--precision", "fp8")):
        yield ("--model", "llama-3.2-1b", "--mode", "training", "--gpu", "h100-80gb", "--seq", "2048",
               "--train-tokens", "100000000", *more)
    for rollout in ("transformers", "vllm-colocate", "vllm-colocate-sleep", "vllm-server"):
        yield ("--model", "qwen3-1.7b", "--mode", "training", "--objective", "grpo", "--rollout", rollout,
               "--gpu", "h100-80gb", "--gpus", "2", "--batch", "8", "--seq", "1024", "--train-tokens", "10000000")
    yield ("--model", "qwen3-1.7b", "--mode", "training", "--objective", "grpo", "--batch", "8", "--gpu", "h100-80gb",
           "--num-iterations", "2", "--steps-per-generation", "4", "--seq", "1024")
    yield ("--model", MOE, "--mode", "training", "--lora-rank", "16", "--gpu", "h100-80gb", "--gpus", "8", "--ep",
           "8", "--seq", "2048", "--train-tokens", "100000000")
    yield ("--model", LLM, "--mode", "training", "--gpu", "h100-80gb", "--gpus", "4", "--cp", "4", "--seq",
           "32768", "--train-tokens", "100000000")


RUN_IN_HOURS = ("--model", LLM, "--mode", "training", "--gpu", "a100-80gb", "--lora-rank", "16", "--seq", "2048",
                "--train-tokens", "1000000000", "--max-run-hours", "5")  # fit's fewest GPUs for a run in N hours


def diffusion_grid() -> Iterator[Argv]:
    """`vramcalc diffusion` runs: image and video pipelines, formats, placements, cards, and a LoRA step."""
    for pipeline, card in itertools.product(("flux.1-dev", "sdxl", "sd3.5-medium", "wan2.1-t2v-1.3b", "qwen-image",
                                             "hunyuanvideo1.5-480p"), ("h100-80gb", "rtx-4090", "apple-m4-max-128gb")):
        yield ("diffusion", "--pipeline", pipeline, "--gpu", card)
    for more in (("--precision", "fp8"), ("--precision", "gguf-q4_0"), ("--precision", "nf4"), ("--precision", "fp32"),
                 ("--placement", "model"), ("--placement", "sequential"), ("--blocks-to-swap", "10"),
                 ("--text-encoders", "cpu"), ("--batch", "4"), ("--steps", "4"), ("--gpu-hour-price", "1"),
                 ("--gpu-tflops", "100")):
        yield ("diffusion", "--gpu", "rtx-4090", *more)
    yield ("diffusion", "--gpu", "24gb")
    yield ("diffusion", "--gpu", "24gb", "--gpu-tflops", "142", "--gpu-hour-price", "0.5")
    yield ("diffusion", "--train-lora", "16", "--gpu", "h100-80gb")
    yield ("diffusion", "--pipeline", "wan2.1-t2v-1.3b", "--train-lora", "16", "--gpu", "rtx-4090")


def diffusion_check(argv: Argv, data: dict[str, Any]) -> list[str]:
    """What a diffusion run's JSON says wrong: its time and cost there or a reason, and agreeing."""
    flags: list[str] = []
    speed, cost = data.get("speed"), data.get("cost")
    if speed is None and not data.get("speed_basis"):
        flags.append("diffusion: no time and no reason")
    if "--train-lora" in argv:
        return flags
    if cost is None or (cost["usd_per_hour"] is None and not data.get("cost_basis")):
        flags.append("diffusion: no cost and no reason")
    for key, value in ((speed or {}) | (cost or {})).items():
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value) or value < 0):
            flags.append(f"diffusion: {key} is {value}")
    if speed:
        if not _close(speed["denoise_s"], speed["steps"] * speed["step_s"], 5e-3):
            flags.append(f"diffusion: {speed['steps']} steps × {speed['step_s']} s is not {speed['denoise_s']} s")
        parts = speed["denoise_s"] + (speed["encode_s"] or 0) + (speed["decode_s"] or 0)
        if speed["total_s"] < parts * (1 - 5e-3) or speed["total_s"] > (parts + speed["offload_s"]) * (1 + 5e-3):
            flags.append(f"diffusion: total {speed['total_s']} s is not its stages' {parts:.4g} s (+ offload)")
        if not _close(speed["per_output_s"] * data["batch"], speed["total_s"], 5e-3):
            flags.append("diffusion: per output × batch is not the total")
        if cost and cost["usd_per_hour"] and not (cost["usd_per_output"] and _close(
                cost["usd_per_output"], cost["usd_per_hour"] * speed["per_output_s"] / 3600, 5e-3)):
            flags.append(f"diffusion: {cost['usd_per_output']} $ per output is not $/h × its time")
    return flags


def diffusion_pairs() -> Iterator[tuple[str, Argv, Argv, str, int]]:
    base = ("diffusion", "--gpu", "24gb")
    yield "diffusion: TFLOPS", (*base, "--gpu-tflops", "50"), (*base, "--gpu-tflops", "150"), "total_s", -1
    base = ("diffusion", "--gpu", "rtx-4090")
    yield "diffusion: steps", (*base, "--steps", "10"), (*base, "--steps", "40"), "total_s", 1
    yield "diffusion: price", (*base, "--gpu-hour-price", "0.5"), (*base, "--gpu-hour-price", "2"), "usd_per_output", 1


# Monotonic pairs: (name, the smaller setting, the larger, the field, +1 if it must not fall, -1 if not rise)
def pairs() -> Iterator[tuple[str, Argv, Argv, str, int]]:
    base: Argv
    for runtime, precision in (("transformers", "bf16"), ("vllm", "bf16"), ("llamacpp", "q4_k_m")):
        base = ("--model", LLM, "--runtime", runtime, "--precision", precision, "--gpu", "24gb", "--gpu-tflops", "142")
        yield (f"{runtime}: bandwidth", (*base, "--gpu-bandwidth", "500"), (*base, "--gpu-bandwidth", "1000"),
               "decode_tokens_per_s", 1)
        yield (f"{runtime}: bandwidth, all sequences", (*base, "--gpu-bandwidth", "500", "--batch", "8"),
               (*base, "--gpu-bandwidth", "1000", "--batch", "8"), "output_tokens_per_s", 1)
        base = ("--model", LLM, "--runtime", runtime, "--precision", precision, "--gpu", "24gb", "--gpu-bandwidth",
                "936")
        yield (f"{runtime}: TFLOPS", (*base, "--gpu-tflops", "50"), (*base, "--gpu-tflops", "150"), "ttft_s", -1)
        base = ("--model", LLM, "--runtime", runtime, "--precision", precision, "--gpu", "rtx-4090")
        yield (f"{runtime}: prompt", (*base, "--prompt-tokens", "500"), (*base, "--prompt-tokens", "5000"),
               "ttft_s", 1)
        yield (f"{runtime}: output tokens", (*base, "--prompt-tokens", "1000", "--output-tokens", "100"),
               (*base, "--prompt-tokens", "1000", "--output-tokens", "4000"),
               "decode_tokens_per_s", -1)
        yield (f"{runtime}: price", (*base, "--gpu-hour-price", "0.5"), (*base, "--gpu-hour-price", "2"),
               "usd_per_million_output_tokens", 1)
    base = ("--model", LLM, "--runtime", "llamacpp", "--precision", "q8_0", "--gpu", "rtx-3060", "--gpu-layers", "16")
    yield ("llamacpp: RAM bandwidth", (*base, "--ram-bandwidth", "40"), (*base, "--ram-bandwidth", "100"),
           "decode_tokens_per_s", 1)
    base = ("--model", LLM, "--runtime", "llamacpp", "--precision", "q8_0", "--gpu", "rtx-3060")
    yield ("llamacpp: layers on the GPU", (*base, "--gpu-layers", "8"), (*base, "--gpu-layers", "24"),
           "decode_tokens_per_s", 1)
    base = ("--model", MOE, "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "rtx-4090")
    yield ("llamacpp: experts in RAM", (*base, "--n-cpu-moe", "40"), (*base, "--n-cpu-moe", "10"),
           "decode_tokens_per_s", 1)
    for runtime in ("transformers", "vllm", "llamacpp"):
        key = "--parallel" if runtime == "llamacpp" else "--batch"
        base = ("--model", LLM, "--runtime", runtime, "--gpu", "h100-80gb", "--prompt-tokens", "1000",
                "--output-tokens", "500", "--precision", "q4_k_m" if runtime == "llamacpp" else "bf16")
        yield (f"{runtime}: more sequences, all of them", (*base, key, "4"), (*base, key, "16"),
               "output_tokens_per_s", 1)
        yield (f"{runtime}: more sequences, each", (*base, key, "4"), (*base, key, "16"), "decode_tokens_per_s", -1)
        longer = (*base[:-6], "--prompt-tokens", "4000", "--output-tokens", "500", *base[-2:])
        yield f"{runtime}: a longer prompt, the first token", base, longer, "ttft_s", 1
    base = ("--model", LLM, "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "rtx-3090")
    drafted = (*base, "--draft-model", "llama-3.2-1b", "--spec-acceptance")
    yield ("llamacpp: a draft accepted more often", (*drafted, "0.4"), (*drafted, "0.9"), "decode_tokens_per_s", 1)
    base = ("--model", MOE, "--runtime", "llamacpp", "--precision", "q4_k_m", "--gpu", "rtx-4090", "--cpu-moe")
    yield ("llamacpp: RAM bandwidth, experts in RAM", (*base, "--ram-bandwidth", "40"),
           (*base, "--ram-bandwidth", "120"), "decode_tokens_per_s", 1)
    base = ("--model", LLM, "--mode", "training", "--gpu", "a100-80gb", "--seq", "4096", "--train-tokens", "10000000")
    yield ("training: more GPUs", (*base, "--gpus", "2"), (*base, "--gpus", "8"), "train_tokens_per_s", 1)
    yield ("training: more GPUs, the run", (*base, "--gpus", "2"), (*base, "--gpus", "8"), "run_hours", -1)
    base = ("--model", "whisper-small", "--mode", "speech", "--gpu", "l4")
    yield ("speech: longer audio", (*base, "--audio-seconds", "60"), (*base, "--audio-seconds", "600"),
           "transcribe_s", 1)
    base = ("--model", "bge-m3", "--mode", "embedding", "--gpu", "l4", "--batch", "8")
    yield ("embedding: longer inputs", (*base, "--seq", "128"), (*base, "--seq", "2048"), "requests_per_s", -1)
    base = ("--model", LLM, "--mode", "training", "--gpu", "24gb", "--gpu-bandwidth", "936", "--seq", "1024",
            "--lora-rank", "16")
    yield ("training: TFLOPS", (*base, "--gpu-tflops", "50"), (*base, "--gpu-tflops", "150"), "train_tokens_per_s", 1)
    base = ("--model", "bge-m3", "--mode", "embedding", "--gpu", "24gb", "--gpu-bandwidth", "936", "--batch", "32")
    yield ("embedding: TFLOPS", (*base, "--gpu-tflops", "50"), (*base, "--gpu-tflops", "150"), "requests_per_s", 1)
    base = ("--model", "whisper-small", "--mode", "speech", "--gpu", "24gb", "--gpu-tflops", "142")
    yield ("speech: bandwidth", (*base, "--gpu-bandwidth", "300"), (*base, "--gpu-bandwidth", "1000"),
           "real_time_factor", -1)


def _value(argv: Argv, flag: str, default: float | None = None) -> float | None:
    return float(argv[argv.index(flag) + 1]) if flag in argv else default


def _close(a: float, b: float, rel: float = REL) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def _mode(argv: Argv) -> str:
    return argv[argv.index("--mode") + 1] if "--mode" in argv else "inference"


def check(argv: Argv, data: dict[str, Any]) -> list[str]:
    """What this answer says wrong, in words (empty: nothing)."""
    flags: list[str] = []
    speed, cost, basis = data["speed"], data["cost"], data["speed_basis"]
    reason = any(REASONS.search(line) for line in basis)
    for key, value in (speed | cost).items():
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value) or value <= 0):
            flags.append(f"{key} is {value}")
    expected = {"inference": INFERENCE, "training": TRAINING, "embedding": EMBEDDING, "speech": SPEECH}[_mode(argv)]
    missing = [key for key in expected if speed[key] is None]
    if missing and not reason:
        flags.append(f"missing without a reason: {', '.join(missing)}")
    if cost["usd_per_hour"] is None and not data.get("cost_basis"):
        flags.append("cost missing without a reason")
    if _mode(argv) == "training" and "--train-tokens" in argv and speed["train_tokens_per_s"] and (
            cost["run_hours"] is None):
        flags.append("run_hours missing with --train-tokens")
    decode, tpot, out, n = speed["decode_tokens_per_s"], speed["tpot_s"], speed["output_tokens_per_s"], speed[
        "sequences"]
    if decode and tpot and not _close(decode * tpot, 1.0):
        flags.append(f"tpot {tpot} is not 1 / decode {decode}")
    replicas = data["per_gpu"]["layout"]
    dp = int(m.group(1)) if (m := re.search(r"DP (\d+)", replicas)) else 1
    if decode and out and out > decode * n * dp * (1 + REL):
        flags.append(f"all sequences' {out} tokens/s exceed {n} × {decode} × {dp} replicas")
    ttft, prefill, prompt = speed["ttft_s"], speed["prefill_tokens_per_s"], speed["prompt_tokens"]
    if ttft and prefill and n == 1 and not _close(ttft * prefill, prompt, 5e-3):
        flags.append(f"ttft {ttft} s is not prompt {prompt} / prefill {prefill}")
    if ttft and prefill and n > 1 and prompt / ttft > prefill * (1 + REL):  # the batch is no slower than one
        flags.append(f"one prompt's rate {prompt / ttft:.0f} exceeds the batch's {prefill}")
    hour, million = cost["usd_per_hour"], cost["usd_per_million_output_tokens"]
    if hour and out and million is None and _mode(argv) == "inference":
        flags.append("$ per million output tokens missing with a price and a throughput")
    embedded, audio_hour = cost.get("usd_per_million_input_tokens"), cost.get("usd_per_audio_hour")
    if hour and speed["requests_per_s"] and not (embedded and _close(embedded, hour / (prefill * 3600) * 1e6)):
        flags.append(f"$ per million embedded tokens {embedded} is not {hour} $/h over {prefill} tokens/s")
    if hour and speed["real_time_factor"] and not (audio_hour and _close(
            audio_hour, hour / (_value(argv, "--gpus", 1) or 1) * speed["real_time_factor"])):
        flags.append(f"$ per audio hour {audio_hour} is not one GPU's {hour} $/h × {speed['real_time_factor']}")
    if hour and out and million and not _close(million, hour / (out * 3600) * 1e6):
        flags.append(f"$ per million {million} is not {hour} $/h over {out} tokens/s")
    tokens = _value(argv, "--train-tokens")
    if tokens and speed["train_tokens_per_s"] and cost["run_hours"] and not _close(
            cost["run_hours"], tokens / speed["train_tokens_per_s"] / 3600):
        flags.append(f"run_hours {cost['run_hours']} is not {tokens} tokens over {speed['train_tokens_per_s']}/s")
    if hour and cost["run_hours"] and cost["run_usd"] and not _close(cost["run_usd"], hour * cost["run_hours"]):
        flags.append(f"run_usd {cost['run_usd']} is not {hour} $/h × {cost['run_hours']} h")
    if speed["requests_per_s"] and prefill and not _close(prefill, speed["requests_per_s"] * speed["prompt_tokens"]):
        flags.append(f"embedded tokens/s {prefill} are not requests/s × {speed['prompt_tokens']}")
    audio = _value(argv, "--audio-seconds")
    if audio and speed["transcribe_s"] and speed["real_time_factor"] and not _close(
            speed["real_time_factor"] * audio, speed["transcribe_s"]):
        flags.append("real-time factor is not the time over the audio")
    if speed["step_s"] and speed["train_tokens_per_s"] and _mode(argv) == "training" and (
            "--objective" not in argv or "sft" in argv):
        steps_tokens = speed["step_s"] * speed["train_tokens_per_s"]
        seq, batch = _value(argv, "--seq", 0) or 0, _value(argv, "--batch", 1) or 1
        gpus = _value(argv, "--gpus", 1) or 1
        model_parallel = 1
        for flag in ("--tp", "--pp", "--cp"):
            model_parallel *= int(_value(argv, flag, 1) or 1)
        grad = _value(argv, "--grad-accum", 1) or 1
        expected_tokens = seq * batch * grad * gpus / model_parallel
        if seq and not _close(steps_tokens, expected_tokens, 1e-2):
            flags.append(f"step × tokens/s = {steps_tokens:,.0f} tokens, not {expected_tokens:,.0f}")
    if speed["mfu"] is not None and not 0 < speed["mfu"] <= 1:
        flags.append(f"model FLOPs utilisation {speed['mfu']} outside (0, 1]")
    for line in basis:
        if speed["step_s"] and (m := TRAINING_STEP.search(line)):
            pflop, mfu, tflops = (float(g.replace(",", "")) for g in m.groups())
            model_parallel = 1
            for flag in ("--tp", "--pp", "--cp"):
                model_parallel *= int(_value(argv, flag, 1) or 1)
            if not pflop or not mfu:
                flags.append(f"basis: {pflop} PFLOP at {mfu}%: a figure shown as 0")
                continue
            seconds = pflop * 1e15 / (mfu / 100 * tflops * 1e12 * model_parallel)
            if not _close(seconds, speed["step_s"], 0.5 / mfu + 0.01):
                flags.append(f"basis: {pflop} PFLOP at {mfu}% of {tflops} TFLOPS × {model_parallel} is "
                             f"{seconds:.3g} s, not the step's {speed['step_s']} s")
        if speed["transcribe_s"] and (m := SPEECH_BASIS.search(line)):
            passes, encode, decode, tokens, step, host = (float(g.replace(",", "")) for g in m.groups())
            if not _close(encode + decode + host, speed["transcribe_s"], 0.01):
                flags.append(f"basis: {encode} + {decode} + {host} s is not the transcription's "
                             f"{speed['transcribe_s']}")
            if not _close(passes * tokens * step / 1000, decode, 0.01):
                flags.append(f"basis: {passes:.0f} passes × {tokens:.0f} tokens × {step} ms is not {decode} s")
        if out and (m := ALL_SEQUENCES.search(line)) and not _close(float(m.group(1).replace(",", "")), out, 0.01):
            flags.append(f"basis: all sequences at {m.group(1)} tokens/s, the JSON's {out}")
        if speed["requests_per_s"] and prefill and (m := PROMPT_TIME.search(line)):  # an embedder's forward
            tflop, share, tflops, gpus = (float(g.replace(",", "")) if g else 1.0 for g in m.groups())
            seconds = tflop / (share / 100 * tflops * gpus)
            forward = speed["sequences"] * speed["prompt_tokens"] * dp / prefill
            rest = next(((float(r.group(1).replace(",", "")), float(r.group(2).replace(",", "")))
                         for other in basis if (r := EMBED_REST.search(other))), None)
            if rest and not (_close(rest[0], seconds, 0.5 / share + 0.02) and _close(rest[1], forward, 0.01)):
                flags.append(f"basis: the matmuls' {rest[0]} s ({seconds:.3g} s) and the forward's {rest[1]} s "
                             f"({forward:.3g} s)")
            elif not rest and not _close(seconds, forward, 0.5 / share + 0.02):
                flags.append(f"basis: {tflop} TFLOP at {share}% of {tflops} TFLOPS is {seconds:.3g} s, not the "
                             f"forward's {forward:.3g} s")
        if ttft and speed["sequences"] == 1 and (m := PROMPT_TIME.search(line)):
            tflop, share, tflops, gpus = (float(g.replace(",", "")) if g else 1.0 for g in m.groups())
            tflops *= gpus
            host = next((float(h.group(2).replace(",", "")) for other in basis
                         if (h := PROMPT_HOST.search(other))), 0.0)
            seconds = tflop / (share / 100 * tflops)
            rest = next(((float(r.group(1).replace(",", "")), float(r.group(2).replace(",", "")))
                         for other in basis if (r := PROMPT_REST.search(other))), None)
            if rest and not (_close(rest[0], seconds, 0.5 / share + 0.02) and _close(rest[1], ttft, 0.01)):
                flags.append(f"basis: the matmuls' {rest[0]} s ({seconds:.3g} s) and the first token's {rest[1]} s "
                             f"({ttft} s)")
            elif not rest and not _close(seconds + host, ttft, 0.5 / share + 0.03):
                flags.append(f"basis: {tflop} TFLOP at {share}% of {tflops} TFLOPS (+ {host} s) is {seconds:.3g} s, "
                             f"not the first token's {ttft} s")
        if tpot and (m := MEMORY.search(line)):
            flags += _memory_flags(argv, [float(g.replace(",", "")) if g else 0.0 for g in m.groups()])
        if tpot and (m := STEP_MS.search(line)) and "per token" in m.group(0) and not _close(
                float(m.group(1).replace(",", "")), 1000 * tpot, 0.06 / (1000 * tpot) + 1e-3):
            flags.append(f"basis says {m.group(1)} ms per token, tpot is {1000 * tpot:.2f} ms")
        batch = n if speed["requests_per_s"] else 1  # an embedder's basis counts the batch's tokens
        if (m := PROMPT.search(line)) and prompt and int(m.group(1).replace(",", "")) != prompt * batch:
            flags.append(f"basis prompt of {m.group(1)} tokens, the JSON's {prompt} × {batch}")
        if re.search(r"\d GiB/s|GiB read", line):
            flags.append(f"GiB where the speed reads GB: {line[:80]}")
    return flags


def _memory_flags(argv: Argv, numbers: list[float]) -> list[str]:
    """The memory-bound basis's own arithmetic: its bytes over its shares of the bandwidths are its milliseconds,
    and those add up to the step (the middle step against the mean: a few per cent)."""
    gb, _, share, bandwidth, cache, kv_share, read, host, ram_share, ram, host_ms, fixed, step = numbers
    flags = []
    expected = 1000 * ((gb - cache) / (share / 100) + (cache / (kv_share / 100) if cache else 0)) / bandwidth
    if not _close(read, expected, 0.03) and "gpt-oss" not in " ".join(argv):  # RDNA MXFP4 kernels add their own
        flags.append(f"basis: {gb} GB at {share}% of {bandwidth} GB/s is {expected:.1f} ms, not its {read} ms")
    if host and not _close(host_ms, 1000 * host / (ram_share / 100 * ram), 0.03):
        flags.append(f"basis: {host} GB at {ram_share}% of {ram} GB/s is not its {host_ms} ms")
    speculative = "--draft-model" in argv or "--mtp" in argv  # per token: the check and drafts over the tokens
    if not speculative and not _close(read + host_ms + fixed, step, 0.05):
        flags.append(f"basis: {read} + {host_ms} + {fixed} ms is not its {step} ms per token")
    return flags


def fit_check(argv: Argv) -> tuple[list[str], dict[str, Any] | None]:
    """`fit --json`'s reverse answers for this combination: each there or a reason."""
    status, data, error = run(("fit", *argv, "--json"))
    if data is None:
        return ([f"fit: exit {status}: {error.strip()[:120]}"] if status != 2 else []), None
    flags, mode = [], _mode(argv)
    if mode == "inference" and data["speed"]["decode_tokens_per_s"] is not None:
        if data["fits"] and data["fastest_format"] is None:
            flags.append("fit: no fastest format though it fits")
        said = data.get("speed_figures", {}).get("max_concurrency", "")
        if data["fits"] and not data["max_concurrency"] and data["speed"]["decode_tokens_per_s"] >= 10 and (
                not said or "slower than" in said):
            flags.append(f"fit: no concurrency though one sequence keeps 10 tokens/s ({said or 'no reason'})")
    if not data.get("speed_basis"):
        flags.append("fit: a speed without its basis")
    if mode == "training" and "--max-run-hours" in argv and data["min_gpus_for_run"] is None:
        flags.append("fit: no fewest GPUs for the run")
    return flags, data


def monotonic(name: str, low: Argv, high: Argv, key: str, sign: int) -> str:
    """A flag if `key` moves against `sign` from the `low` setting to the `high` one ("": it does not)."""
    answers = [run((*argv, "--json"))[1] for argv in (low, high)]
    if None in answers:
        return f"monotonic {name}: no answer"
    a, b = (((answer["speed"] or {}) | (answer.get("cost") or {}))[key] for answer in answers)
    if a is None or b is None or (b - a) * sign < -REL * max(abs(a), abs(b)):
        return f"monotonic {name}: {key} {a} -> {b}"
    return ""


def audit(argvs: Sequence[Argv], *, listing: bool = False) -> dict[str, Any]:
    results: dict[str, Any] = {"runs": 0, "refused": 0, "flags": [], "tracebacks": []}
    for argv in argvs:
        status, data, error = run((*argv, "--json"))
        results["runs"] += 1
        if status == -1 or (status not in (0, 2)):
            results["tracebacks"].append((argv, error.strip()[-200:]))
            continue
        if data is None:
            results["refused"] += 1
            if listing:
                print(" ".join(argv), "->", "refused:", error.strip().splitlines()[-1][:120])
            continue
        flags = diffusion_check(argv, data) if argv[0] == "diffusion" else check(argv, data)
        results["flags"] += [(argv, flag) for flag in flags]
        if listing:
            print(" ".join(argv), "->", json.dumps({k: v for k, v in data["speed"].items() if v is not None}),
                  json.dumps({k: v for k, v in data["cost"].items() if v is not None}), flags or "")
    return results


def main_(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every combination and its answer")
    parser.add_argument("--no-fit", action="store_true", help="skip the reverse answers (fit --json)")
    args = parser.parse_args(argv)
    argvs = list(dict.fromkeys(grid()))
    results = audit(argvs + list(diffusion_grid()), listing=args.list)
    monotonic_pairs = list(pairs()) + list(diffusion_pairs())
    for name, low, high, key, sign in monotonic_pairs:
        flag = monotonic(name, low, high, key, sign)
        if flag:
            results["flags"].append((low, flag))
    fitted = 0
    if not args.no_fit:
        for argv in [*[a for a in argvs if "--gpus" not in a][::3], RUN_IN_HOURS]:
            flags, _ = fit_check(argv)
            fitted += 1
            results["flags"] += [(argv, flag) for flag in flags]
    print(f"{results['runs']} combinations run ({results['refused']} refused with a message), "
          f"{len(monotonic_pairs)} monotonic pairs, {fitted} fit answers; {len(results['flags'])} flags, "
          f"{len(results['tracebacks'])} tracebacks")
    for argv, flag in results["flags"]:
        print(f"FLAG {' '.join(argv)}: {flag}")
    for argv, error in results["tracebacks"]:
        print(f"TRACEBACK {' '.join(argv)}: {error}")
    return 1 if results["flags"] or results["tracebacks"] else 0


if __name__ == "__main__":
    sys.exit(main_())
