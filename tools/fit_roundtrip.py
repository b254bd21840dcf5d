"""Feed the reverse answers back: for random setups, `vramcalc fit --json`'s longest sequence, largest batch,
fewest GPUs and best formats are set through the command line, and the setup must then fit (and one more
token, sequence or GPU fewer must not). Prints each setup whose answer does not hold when fed back.

    PYTHONPATH=app python tools/fit_roundtrip.py [--n 100] [--seed 0]

An answer of None (nothing fits) is fed back as its smallest value, which must then not fit. A setup the
command line refuses is skipped; an answer + 1 the command line refuses (past a field's bound) counts as not
fitting."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import time
from typing import Any

from vramcalc.analysis.solve import seq_limit
from vramcalc.cli import main
from vramcalc.core.choices import Runtime
from vramcalc.engines import engine_for
from vramcalc.engines.layouts import seq_step
from vramcalc.engines.ollama import context_key
from vramcalc.inputs.options import MAX_BATCH, shown_values
from vramcalc.inputs.parse import parse_workload

MODELS = ("llama-3.1-8b", "qwen3-30b-a3b", "gemma-3-27b-it", "qwen3-0.6b", "mistral-7b", "gpt-oss-20b",
          "deepseek-v2-lite", "qwen2.5-vl-7b-instruct", "gemma-3-4b-it", "phi-3.5-moe-instruct", "granite-4.0-h-tiny",
          "qwen3-next-80b-a3b-thinking", "gpt2", "qwen3-embedding-0.6b", "bge-m3", "whisper-small", "llama-3.1-70b",
          "qwen3.5-35b-a3b", "gemma-4-e2b-it", "lfm2-1.2b")
GPUS = ("rtx-3060", "rtx-4090", "a100-80gb", "h100-80gb", "l4", "apple-m4-max-128gb", "rx-7900-xtx", "24gb",
        "rtx-4060-ti-8gb", "mi300x")
RUNTIMES = ("transformers", "vllm", "llamacpp", "ollama", "tei", "faster-whisper")
INFER_FORMATS = ("auto", "bf16", "fp8", "q4_k_m", "q8_0", "awq-int4", "nf4", "bnb-int8", "iq4_xs")


class Crash(Exception):
    """The command line ended in a traceback rather than an answer or a message."""


def fit_json(flags: dict[str, str]) -> dict[str, Any] | None:
    argv = ["fit", "--json"]
    for key, value in flags.items():
        argv += [key, value]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: object = main(argv)
        except SystemExit as exit_:
            code = exit_.code
        except Exception as error:  # a traceback: the defect this tool exists to find
            raise Crash(f"{' '.join(argv)}: {error!r}") from error
    if code != 0:
        return None
    return json.loads(out.getvalue())


def sample(rng: random.Random) -> dict[str, str]:
    mode = rng.choice(("inference", "inference", "inference", "training", "embedding", "speech"))
    flags = {"--model": rng.choice(MODELS), "--mode": mode, "--gpu": rng.choice(GPUS)}
    if mode == "training":
        flags["--lora-rank"] = rng.choice(("0", "16", "64"))
        if flags["--lora-rank"] != "0" and rng.random() < 0.5:
            flags["--precision"] = "nf4"
        if rng.random() < 0.3:
            flags["--checkpointing"] = rng.choice(("layer", "sqrt", "none"))
        if rng.random() < 0.3:
            flags["--framework"] = rng.choice(("unsloth", "torchtune", "litgpt", "axolotl"))
        if rng.random() < 0.3:
            flags["--objective"] = rng.choice(("dpo", "grpo", "orpo", "kto"))
    else:
        flags["--runtime"] = rng.choice(RUNTIMES)
        if rng.random() < 0.5:
            flags["--precision"] = rng.choice(INFER_FORMATS)
        if rng.random() < 0.3:
            flags["--kv-precision"] = rng.choice(("fp8", "q8_0", "q4_0", "int8"))
    if rng.random() < 0.3:
        flags["--gpus"] = rng.choice(("2", "3", "4", "6", "8", "1024"))
    # a layout, with --gpus or without (one GPU drops it; the fewest GPUs is searched under it)
    if rng.random() < 0.15:
        flags["--tp"] = rng.choice(("2", "3", "4"))
    if mode == "training" and rng.random() < 0.15:  # context parallel: sequences in multiples of 2 × cp
        flags["--cp"] = rng.choice(("2", "4"))
    if mode == "training" and rng.random() < 0.2:
        flags["--zero"] = rng.choice(("1", "2", "3"))
        if rng.random() < 0.5:
            flags["--offload"] = "optimizer"
    if rng.random() < 0.2:
        flags["--images"] = rng.choice(("1", "4"))
    flags["--batch"] = str(rng.choice((1, 1, 2, 4, 8, 32, 1000)))
    flags["--seq"] = str(rng.choice((1, 512, 2048, 8192, 32768, 131072)))
    return flags


def fits(flags: dict[str, str]) -> bool | None:
    """True or False; None when the command line refuses the setup."""
    result = fit_json(flags)
    return None if result is None else bool(result["fits"])


def check(flags: dict[str, str], result: dict[str, Any]) -> list[str]:
    problems = []
    workload = parse_workload(shown_values({flag[2:].replace("-", "_"): value for flag, value in flags.items()}))
    if workload.runtime is Runtime.OLLAMA:  # the answers take the model whole on the card (ollama.searched)
        flags = {**flags, "--gpu-layers": str(workload.model.layers + 1)}
    seq_flag = "--" + context_key(workload).replace("_", "-")  # Ollama: its num_ctx
    batch_flag = "--" + engine_for(workload.runtime).batch_key if not workload.is_training else "--batch"
    limits = {"max_seq": seq_limit(workload), "max_batch": engine_for(workload.runtime).max_batch or MAX_BATCH}
    steps = {"max_seq": seq_step(workload), "max_batch": 1}  # the next sequence context parallelism takes
    for key, flag in (("max_seq", seq_flag), ("max_batch", batch_flag)):
        value = result[key]
        if value is None:
            continue
        if fits({**flags, flag: str(value)}) is not True:
            problems.append(f"{key} {value}: {flag} {value} does not fit (or is refused)")
        more = value + steps[key]
        if value < limits[key] and fits({**flags, flag: str(more)}) is True:  # at the limit: "at least"
            problems.append(f"{key} {value}: {flag} {more} fits too")
    gpus = result["min_gpus"]
    if gpus is not None:  # a layout's counts are multiples of tp × pp × cp: one fewer is refused
        if fits({**flags, "--gpus": str(gpus)}) is not True:
            problems.append(f"min_gpus {gpus}: --gpus {gpus} does not fit (or is refused)")
        if gpus > 1 and fits({**flags, "--gpus": str(gpus - 1)}) is True:
            problems.append(f"min_gpus {gpus}: --gpus {gpus - 1} fits too")
    for key, flag in (("best_format", "--precision"), ("best_kv_format", "--kv-precision")):
        value = result[key]
        if value is not None and fits({**flags, flag: value}) is not True:
            problems.append(f"{key} {value}: {flag} {value} does not fit (or is refused)")
    return problems


def run(n: int, seed: int) -> int:
    rng = random.Random(seed)
    checked = bad = 0
    start = time.perf_counter()
    while checked < n:
        flags = sample(rng)
        try:
            result = fit_json(flags)
            if result is None:
                continue
            checked += 1
            problems = check(flags, result)
        except Crash as crash:
            checked += 1
            problems = [f"traceback: {crash}"]
        if problems:
            bad += 1
            print(" ".join(f"{k} {v}" for k, v in flags.items()), file=sys.stdout)
            for problem in problems:
                print("   ", problem)
    print(f"{checked} setups, {bad} with an answer that does not hold, {time.perf_counter() - start:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    sys.exit(run(options.n, options.seed))
