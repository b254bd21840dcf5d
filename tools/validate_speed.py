"""Hold the speed model to the published runs in tests/data/speed/ and print its error per backend.

    PYTHONPATH=app python tools/validate_speed.py            # the table of errors (docs/accuracy.md)
    PYTHONPATH=app python tools/validate_speed.py --rows     # every row: measured, predicted, error
    PYTHONPATH=app python tools/validate_speed.py --write    # store the errors in data/speed.json "validation"

A row is predicted when its model, weights and card are ones the calculator knows: llama-bench
`tgN` (N tokens generated after `context_depth` tokens, one sequence: the mean tokens/s) and `ppN`
(an N-token prompt from an empty context: prompt tokens/s), torchtune's fine-tuning tokens/s, and
vLLM/SGLang serving runs (output tokens/s of all sequences at the run's concurrency: `serve`).
Error = predicted / measured - 1."""

from __future__ import annotations

import argparse
import functools
import json
import re
import statistics
import sys
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from vramcalc.analysis.evaluate import estimate
from vramcalc.analysis.ranks import per_gpu
from vramcalc.core.errors import ValidationError
from vramcalc.engines.vllm import card_batch_defaults
from vramcalc.inputs.parse import parse_workload
from vramcalc.memory.components import Breakdown
from vramcalc.sources.gpus import all_gpus, gpu
from vramcalc.speed import served, speed_of
from vramcalc.speed.hardware import Memory, memory_of
from vramcalc.speed.serving import Steps, simulate
from vramcalc.workload import Machine, Workload

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "speed"
SPEED_JSON = Path(__file__).resolve().parent.parent / "app" / "vramcalc" / "data" / "speed.json"
# Models the rows name that are not presets: their Hugging Face configs (meta-llama/Llama-2-7b-hf).
CONFIGS: Mapping[str, Mapping[str, object]] = {
    "llama-2-7b": {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
                   "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 32000,
                   "max_position_embeddings": 4096, "tie_word_embeddings": False, "rms_norm_eps": 1e-5},
    # Qwen/Qwen2.5-14B-Instruct config.json (the same qwen2 shapes as Qwen3-14B-era copies of it in public repos)
    "qwen2.5-14b": {"model_type": "qwen2", "hidden_size": 5120, "num_hidden_layers": 48, "num_attention_heads": 40,
                    "num_key_value_heads": 8, "intermediate_size": 13824, "vocab_size": 152064,
                    "max_position_embeddings": 32768, "tie_word_embeddings": False, "rms_norm_eps": 1e-6},
    # Qwen2.5-32B-Instruct: the shapes of the qwen2.5-coder-32b-instruct preset (its "source" says they are the same)
    "qwen2.5-32b": {"model_type": "qwen2", "hidden_size": 5120, "num_hidden_layers": 64, "num_attention_heads": 40,
                    "num_key_value_heads": 8, "intermediate_size": 27648, "vocab_size": 152064,
                    "max_position_embeddings": 32768, "tie_word_embeddings": False, "rms_norm_eps": 1e-6},
}
SERVING_ENGINES = ("vllm", "sglang")
TEST = re.compile(r"(tg|pp)(\d+)")
BUILD = re.compile(r"\((\d+)\)")  # llama.cpp's build number, as llama-bench prints it: "4426e298 (2824)"
# llama.cpp's CUDA builds before PR #8075 (merged 2024-06-24) sent quantised weights to cuBLAS at batches above 32;
# the rows' numbered builds are 2824-2843 (May 2024) and 3622 or later, none in between.
MMQ_BUILD = 3000
# llama-bench ran without flash attention unless told (-fa 1) until its default became `auto` (2025): a row that
# does not say is taken as off when its build is numbered below this (2024), else as the build's default (on).
FA_AUTO_BUILD = 4000
UNCHECKPOINTED = ("Baseline", "+ Packed Dataset", "+ Compile", "+ Chunked Cross Entropy")
# tables another validator reads: image and video pipelines (tools/validate_diffusion_speed.py), transcriptions
# (validate_speech_speed.py), speculative decoding's speed-ups (tests/test_speculative_speed.py), TRL's step times
# (validate_trl_speed.py), embedders' throughput (validate_embedding_speed.py)
ELSEWHERE = ("diffusion_", "speech_", "speculative_", "trl_", "embedding_")
ENGINE_OF_KIND = {"train": "train", "serve": "vllm"}  # a row's validation group: engine-platform (else llama.cpp's)
OWN_GROUPS = tuple(f"{engine}-" for engine in ("llamacpp", "transformers", *ENGINE_OF_KIND.values()))
HIDDEN = ("llamacpp_cublas", "llamacpp_vulkan")  # Workload fields no option sets: the build a row ran
# a llama.cpp row's placement in system RAM and its batch, as the row states them: form keys of the same names
# (llamacpp_host_ram_published.json: -ngl, --n-cpu-moe, --cpu-moe, -ub, -ctk/-ctv)
HOST_KEYS = ("gpu_layers", "n_cpu_moe", "ubatch")
RAM = "ram_bandwidth"  # the host's RAM bandwidth (GB/s): a Machine field, not the workload's
# a group with fewer rows is printed but not written to data/speed.json: its answers keep saying "not checked"
# (transformers on ROCm: one published run, docs/accuracy.md "transformers decode on Apple and AMD GPUs")
MIN_ROWS = 3
# The serving rows ran vLLM before 0.34 (SGLang's its own split): the pool of the estimate path (0.20-0.33's, and
# 0.34's with --no-enable-extensible-kv-cache) at 0.9, the utilization these rows were held to until 0.34's default
# (none of them records its own; 0.20-0.33 default to 0.92, 0.19 and earlier to 0.9)
VLLM_BEFORE_034 = {"gpu_memory_utilization": "0.9", "no_extensible_kv_cache": "1"}
GOALS = {"decode": 0.15, "prefill": 0.25, "train": 0.25, "serve": 0.25}


def rows(sources: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The published rows, of the tables whose file name contains `sources` (a "!" before it: the others)."""
    for path in sorted(DATA.glob("*.json")):
        if path.stem.startswith(ELSEWHERE):  # tables another validator reads
            continue
        if sources and (sources.removeprefix("!") in path.stem) == sources.startswith("!"):
            continue
        for row in _table(path)["rows"]:
            yield path.stem, row


@functools.cache
def _table(path: Path) -> Mapping[str, Any]:
    table: Mapping[str, Any] = json.loads(path.read_text())
    return table


def _slug(row: Mapping[str, Any]) -> str | None:
    """Our slug for the row's card: as given, or an Apple chip's configuration with its GPU cores."""
    slug = row.get("slug")
    if not slug:
        return None
    gpus = all_gpus()
    if slug in gpus:
        return str(slug)
    cores = row.get("gpu_cores")
    memory = row.get("memory_gb")
    for candidate, spec in gpus.items():
        if candidate.startswith(f"{slug}-") and candidate[len(slug) + 1:-2].isdigit():
            if memory and candidate != f"{slug}-{memory}gb":
                continue
            if cores and getattr(spec, "gpu_cores", None) not in (None, cores):
                continue
            return candidate
    return None


def case(row: Mapping[str, Any]) -> tuple[str, dict[str, str], Mapping[str, object] | None] | None:
    """(what is measured, the form values, a config for models without a preset), or None when not predicted."""
    slug = _slug(row)
    model = str(row["model"])
    if row.get("weights") is None:
        return None  # the quant is not published (a transcription that dropped it): unweighed(), printed by main()
    if slug is None or (_cpu(row) and not (memory_of(gpu(slug)) is Memory.UNIFIED and TEST.match(str(row["test"]))
                                           and str(row["test"]).startswith("tg"))):
        return None  # llama.cpp on the CPU: only a unified-memory machine's decode (its RAM is the chip's)
    values = {"model": model, "gpu": slug, "gpus": str(row.get("gpus") or 1)}
    config = CONFIGS.get(model)
    if config is not None:
        values = {**values, "model": "config"}
    weights = str(row["weights"]).lower()
    if row.get("engine") == "torchtune":
        method = str(row.get("method", "")).lower()
        # torchtune's recipes checkpoint every layer (enable_activation_checkpointing: True), save the rows of its
        # README's 'Optimization flags' table that come before that technique is added
        technique = str(row.get("technique", ""))
        checkpointing = "none" if technique in UNCHECKPOINTED else "layer"
        values |= {"mode": "training", "seq": str(row.get("seq_len") or 2048), "batch": str(row.get("batch") or 1),
                   "precision": "bf16", "recipe": "bf16", "checkpointing": checkpointing, "fused_ce": "1"}
        if "lora" in method:
            values |= {"lora_rank": "8"}
        if "qlora" in method:
            values |= {"precision": "nf4"}
        return "train", values, config
    if row.get("engine") in SERVING_ENGINES:
        return serving_case(row, values, config)
    if row.get("engine") == "transformers":
        return transformers_case(row, values, config)
    if row.get("engine") != "llama.cpp":
        return None
    match = TEST.fullmatch(str(row.get("test", "")))
    split = str(row.get("multi_gpu_split") or row.get("sm") or "layer")
    if match is None or not (split == "layer" or split.startswith("llama.cpp default -sm layer")):
        return None  # a row split by rows (-sm row) or by tensor: not llama.cpp's default, not modelled
    kind, tokens = match.group(1), int(match.group(2))
    depth = int(row.get("context_depth") or 0)
    # "mxfp4": gpt-oss's GGUF files (ggml-org's, MXFP4 experts beside higher-precision attention), a MOSTLY_MXFP4_MOE
    values |= {"runtime": "llamacpp",
               "precision": {"f16": "f16", "bf16": "f16", "mxfp4": "mxfp4_moe"}.get(weights, weights)}
    build = BUILD.search(str(row.get("build")))
    number = int(build.group(1)) if build else None
    flash = row.get("flash_attn")
    if flash is False or (flash is None and number is not None and number < FA_AUTO_BUILD):
        values["attention"] = "eager"
    if number is not None and number < MMQ_BUILD:
        values["llamacpp_cublas"] = "1"  # not an option: predict() sets the workload's field
    if str(row.get("backend")).lower() == "vulkan":
        values["llamacpp_vulkan"] = "1"  # likewise
    values |= {key: str(row[key]) for key in HOST_KEYS if row.get(key) is not None}
    if _cpu(row):  # every layer in the CPU's RAM, read at the platform's default (no ram_bandwidth_gb_s)
        values["gpu_layers"] = "0"
    if row.get("cpu_moe"):
        values["cpu_moe"] = "1"
    if row.get("kv"):
        values["kv_precision"] = str(row["kv"])
    if row.get("ram_bandwidth_gb_s"):
        values[RAM] = str(row["ram_bandwidth_gb_s"])  # not a workload key: predict() gives it to the Machine
    if kind == "tg":
        prompt = max(1, depth)
        values |= {"prompt_tokens": str(prompt), "output_tokens": str(tokens), "seq": str(prompt + tokens)}
        return "decode", values, config
    if depth:
        return None
    values |= {"prompt_tokens": str(tokens), "output_tokens": "1", "seq": str(tokens + 1)}
    return "prefill", values, config


# bitsandbytes' int8 at threshold 0: no format; mxfp4: gpt-oss's own weights (the kernels package's MXFP4 path)
TRANSFORMERS_WEIGHTS = ("bf16", "fp16", "nf4", "nf4-dq", "bnb-int8", "mxfp4")


Case = tuple[str, dict[str, str], Mapping[str, object] | None]


def _cpu(row: Mapping[str, Any]) -> bool:
    """A run of llama.cpp's CPU backend (every layer in system RAM, as `-ngl 0` decodes)."""
    return str(row.get("backend")).lower() == "cpu"


def transformers_case(row: Mapping[str, Any], values: dict[str, str],
                      config: Mapping[str, object] | None) -> Case | None:
    """A Hugging Face transformers `generate` run: `batch` sequences, each a prompt of `prompt_tokens` and
    `output_tokens` generated; measured as one sequence's decode tokens/s (1 / the step's latency)."""
    weights = str(row["weights"])
    if weights not in TRANSFORMERS_WEIGHTS or not row.get("prompt_tokens"):
        return None
    prompt, output = int(row["prompt_tokens"]), int(row["output_tokens"])
    values |= {"runtime": "transformers", "precision": weights, "prompt_tokens": str(prompt),
               "output_tokens": str(output), "seq": str(prompt + output), "batch": str(row.get("batch") or 1)}
    if row.get("bnb_version"):  # the run's bitsandbytes (before 0.45: speed/bnb.py); "0.45.0.dev": 0.45.0
        values["bnb_version"] = ".".join(str(row["bnb_version"]).split(".")[:3])
    return "decode", values, config


def serving_case(row: Mapping[str, Any], values: dict[str, str],
                 config: Mapping[str, object] | None) -> tuple[str, dict[str, str], Mapping[str, object] | None]:
    """A vLLM or SGLang serving run: `concurrency` requests at a time (None: all `num_prompts` at once,
    offline), each a prompt of `prompt_tokens` and its answer: the mean generated (`generated_per_request`,
    where answers stopped before the asked `output_tokens`)."""
    prompt = int(row["prompt_tokens"])
    output = max(1, round(float(row.get("generated_per_request") or row["output_tokens"])))
    values |= {"runtime": "vllm", "prompt_tokens": str(prompt), "output_tokens": str(output),
               "seq": str(prompt + output), "batch": str(row.get("concurrency") or row["num_prompts"]),
               "requests": str(row["num_prompts"]), "concurrency": str(row.get("concurrency") or ""),
               **VLLM_BEFORE_034}
    if str(row["weights"]) in ("bf16", "fp16", "fp8"):  # else the checkpoint's own format (gpt-oss: MXFP4)
        values["precision"] = "bf16" if row["weights"] == "fp16" else str(row["weights"])
    if row.get("kv"):
        values["kv_precision"] = str(row["kv"])
    if row.get("max_num_seqs"):
        values["max_num_seqs"] = str(row["max_num_seqs"])
    return "serve", values, config


def serving_steps(workload: Workload, gpus: int, requests: int, concurrency: int | None) -> Steps:
    """The run's steps as vLLM's scheduler takes them (speed/serving.py `simulate`): its max_num_seqs and
    max_num_batched_tokens (defaults by card), the KV pool the memory model computes on each GPU."""
    tokens, seqs = card_batch_defaults(workload)
    pool = per_gpu(_estimate(workload.but(batch=1)), gpus).pool
    held = pool.kv_tokens if pool else 10**9
    return simulate(workload, requests=requests, concurrency=concurrency,
                    max_num_seqs=workload.max_num_seqs or seqs, budget=workload.max_num_batched_tokens or tokens,
                    pool_tokens=held)


@functools.cache
def _workload(items: tuple[tuple[str, str], ...], config: str | None) -> Workload:
    """The row's workload (kept while tools/fit_speed.py varies the rates); the fields no option sets, apart."""
    values = dict(items)
    workload = parse_workload({key: value for key, value in values.items() if key not in HIDDEN},
                              config=None if config is None else json.loads(config))
    return workload.but(**{key: True for key in HIDDEN if values.get(key) == "1"})


@functools.cache
def _estimate(workload: Workload) -> Breakdown:
    """The byte model's breakdown, which no speed rate changes: kept while tools/fit_speed.py varies the rates."""
    return estimate(workload)


def predict(kind: str, values: Mapping[str, str], config: Mapping[str, object] | None) -> float | None:
    values = dict(values)
    ram = values.pop(RAM, None)
    machine = Machine(ram_bandwidth_gb_s=float(ram)) if ram else Machine()
    if kind == "serve":
        requests, concurrency = int(values.pop("requests")), values.pop("concurrency")
    workload = _workload(tuple(sorted(values.items())), None if config is None else json.dumps(config))
    gpus = int(values["gpus"])
    if kind == "serve":
        steps = serving_steps(workload, gpus, requests, int(concurrency) if concurrency else None)
        return served(_estimate(workload.but(batch=1)), workload.gpu, gpus, machine, steps)  # type: ignore[arg-type]
    speed = speed_of(_estimate(workload), workload.gpu, gpus, machine)  # type: ignore[arg-type]
    return {"decode": speed.decode_tokens_per_s, "prefill": speed.prefill_tokens_per_s,
            "train": speed.train_tokens_per_s, "serve": speed.output_tokens_per_s}[kind]


def results(sources: str = "", *, anomalous: bool = False, kinds: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The predicted rows with their errors (of `kinds` only, when given); a row its file marks `anomalous` (a
    cell suspicious as published, or one whose inputs are not published) only when `anomalous` is asked, and
    then those alone."""
    out = []
    for source, row in rows(sources):
        if bool(row.get("anomalous")) != anomalous:
            continue
        found = case(row)
        if found is None or (kinds and found[0] not in kinds):
            continue
        kind, values, config = found
        try:
            predicted = predict(kind, values, config)
        except ValidationError:  # a model or format the calculator does not know: refused(), printed by main()
            continue
        if predicted is None:
            continue
        measured = float(row["tokens_per_s"])
        engine = "transformers" if row.get("engine") == "transformers" else ENGINE_OF_KIND.get(kind, "llamacpp")
        if RAM in values or _cpu(row):  # weights or experts in system RAM: their own group, apart from all-on-GPU
            engine = f"{engine}-host"
        platform = "metal" if str(values["gpu"]).startswith("apple") and not _cpu(row) else str(
            row.get("backend", "cuda")).lower()
        out.append({"source": source, "kind": kind, "group": f"{engine}-{platform}", "gpu": values["gpu"],
                    "gpus": values["gpus"], "model": row["model"], "weights": row["weights"], "test": row["test"],
                    "measured": measured, "predicted": predicted, "error": predicted / measured - 1})
    return out


def refused() -> dict[tuple[str, str], int]:
    """The rows a case is made of that the calculator refuses, counted by (field, value) of its refusal: what the
    table leaves out besides the anomalous rows, so that nothing drops out of it unsaid."""
    counts: dict[tuple[str, str], int] = {}
    for _, row in rows():
        found = case(row)
        if found is None:
            continue
        try:
            predict(*found)
        except ValidationError as error:
            key = (error.field, str(error.value))
            counts[key] = counts.get(key, 0) + 1
    return counts


def unweighed() -> int:
    """The rows whose weights their source does not state ("weights": null): no format to predict them in,
    counted apart from refused() so that they are not mistaken for a precision named 'none'."""
    return sum(1 for _, row in rows() if row.get("weights") is None)


def fold(result: Mapping[str, Any]) -> int:
    """Which half of a two-fold split a predicted row falls in (0 or 1): a hash of what names the row, so the
    halves are fixed and mix every source, card and model (tools/fit_speed.py --fold)."""
    key = "|".join(str(result[k]) for k in ("source", "model", "weights", "gpu", "gpus", "test"))
    return zlib.crc32(key.encode()) % 2


def summary(found: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[float]] = {}
    for result in found:
        groups.setdefault(f"{result['group']} {result['kind']}", []).append(result["error"])
    table = {}
    for name, errors in sorted(groups.items()):
        absolute = [abs(e) for e in errors]
        table[name] = {"rows": len(errors), "median": statistics.median(absolute), "worst": max(absolute),
                       "bias": statistics.median(errors),
                       "within_2x": sum(1 for e in errors if 0.5 < 1 + e < 2)}
    return table


def serving_ratios() -> list[dict[str, Any]]:
    """The vLLM model's offline throughput (the most sequences the pool holds, each prompt prefilled then
    its output decoded) against TensorRT-LLM's published max throughput on one GPU: a faster engine, so a
    sanity bound beside the vLLM serving rows the rates are fitted to, not a fit."""
    from vramcalc.analysis.solve import max_batch
    from vramcalc.inputs.parse import parse_target
    from vramcalc.speed.hardware import device
    from vramcalc.speed.inference import mean_step, placement_of, prefill

    out = []
    for source, row in rows("tensorrt_llm_perf_overview_v0.17"):
        precision = {"fp8": "fp8", "fp16": "bf16", "bf16": "bf16"}.get(str(row["weights"]))
        if row.get("gpus") != 1 or not row.get("slug") or precision is None:
            continue
        prompt, output = int(row["prompt_tokens"]), int(row["output_tokens"])
        values = {"model": str(row["model"]), "runtime": "vllm", "precision": precision, "gpu": str(row["slug"]),
                  "seq": str(prompt + output), "prompt_tokens": str(prompt), "output_tokens": str(output),
                  "max_num_seqs": "4096", **VLLM_BEFORE_034}
        try:
            workload, target = parse_workload(values), parse_target(values)
            sequences = max_batch(workload, target)
        except ValidationError:
            continue
        if not sequences:
            continue
        breakdown = estimate(workload.but(batch=sequences))
        card, machine = device(target.gpu, Machine()), Machine()
        placement = placement_of(breakdown, 1, 1)
        first = prefill(breakdown.workload, card, machine, placement, batch=sequences, prompt=prompt)
        if first is None:
            continue
        mean, _ = mean_step(breakdown.workload, card, machine, placement, batch=sequences, prompt=prompt, output=output)
        predicted = sequences * output / (first.seconds + output * mean)
        out.append({"source": source, "model": row["model"], "gpu": row["slug"], "test": row["test"],
                    "measured": float(row["tokens_per_s"]), "predicted": predicted,
                    "ratio": predicted / float(row["tokens_per_s"])})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", action="store_true")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--serving", action="store_true", help="vLLM's model against TensorRT-LLM's throughput")
    args = parser.parse_args()
    if args.serving:
        ratios = serving_ratios()
        values = sorted(r["ratio"] for r in ratios)
        print(f"vLLM model / TensorRT-LLM max throughput: {len(values)} rows, median {statistics.median(values):.2f}, "
              f"10th-90th percentile {values[len(values) // 10]:.2f}-{values[9 * len(values) // 10]:.2f}, "
              f"range {values[0]:.2f}-{values[-1]:.2f}")
        return 0
    found = results()
    if args.rows:
        for r in sorted(found, key=lambda r: (r["group"], r["kind"], r["error"])):
            print(f"{r['group']:<16}{r['kind']:<8}{r['gpu']:<22}{r['gpus']:>2} {r['model']:<16}{r['weights']:<8}"
                  f"{r['test']:<10}{r['measured']:>10.1f}{r['predicted']:>10.1f}{r['error']:>+8.0%}  {r['source']}")
    table = summary(found)
    print(f"{'group':<28}{'rows':>5}{'median':>8}{'worst':>8}{'bias':>8}{'<2x':>6}")
    for name, s in table.items():
        print(f"{name:<28}{s['rows']:>5}{s['median']:>8.1%}{s['worst']:>8.1%}{s['bias']:>+8.1%}{s['within_2x']:>6}")
    for name, s in summary(results(anomalous=True)).items():
        print(f"{'(anomalous) ' + name:<28}{s['rows']:>5}{s['median']:>8.1%}{s['worst']:>8.1%}{s['bias']:>+8.1%}"
              f"{s['within_2x']:>6}")
    for (field, value), count in sorted(refused().items()):
        print(f"(refused) {count:>3} rows: {field} {value!r}")
    if unweighed():
        print(f"(no weights) {unweighed():>3} rows: the source does not state the quant")
    if args.write:
        data = json.loads(SPEED_JSON.read_text())
        validation: dict[str, dict[str, object]] = {}
        for name, s in table.items():
            group, kind = name.split()
            if kind in ("decode", "train", "serve") and s["rows"] >= MIN_ROWS:  # what the page's error line speaks for
                kinds = sorted({memory_of(gpu(r["gpu"])).value for r in found if f"{r['group']} {r['kind']}" == name})
                counts = sorted({int(r["gpus"]) for r in found if f"{r['group']} {r['kind']}" == name})
                validation[group] = {"median": round(s["median"], 3), "worst": round(s["worst"], 3), "rows": s["rows"],
                                     "memory": kinds, "gpus": counts}
        # this tool's groups are its engines' ("llamacpp-cuda"); the others' (validate_trl_speed.py's "trl-grpo",
        # validate_embedding_speed.py's "embedding") are theirs to write, kept as they are
        kept = {name: group for name, group in data.get("validation", {}).items() if not name.startswith(OWN_GROUPS)}
        data["validation"] = {**validation, **kept}
        SPEED_JSON.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
