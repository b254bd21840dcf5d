"""Command line. Options map one to one onto the keys of the input layer
(`--kv-heads` is `kv_heads`), so a link, the form and the command line give the
same numbers.

    python -m vramcalc [workload options] [--json]           the memory breakdown
    python -m vramcalc fit --gpu SLUG [--gpus N] [workload options] [--json]
                                                             the reverse questions
    python -m vramcalc capacity [--vram GB] [--headroom PCT] [--json]
                                                             what fits in how much memory
    python -m vramcalc models [SEARCH] [--json]              the presets (slug, parameters, context, architecture)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .analysis import capacity
from .sources import catalog
from .core.errors import ValidationError
from .sources.gpus import load_gpus
from .analysis.fit import GpuFit, fit_all
from .parallel.ranks import on_gpus, per_gpu
from .memory.components import Breakdown
from .analysis.evaluate import estimate
from .render.i18n.en import EN
from .sources.presets import load_presets
from .core.choices import Attention, Checkpointing, Mode, Optimizer
from .core.dtypes import Precision
from .render.export import to_csv, to_json, to_markdown
from .render.rank import layout_text
from .render.view import present_capacity
from .analysis.solve import fits, solve
from .render.numbers import format_count, format_gb, format_gib
from .inputs.options import CONFIG, CUSTOM, CUSTOM_KEYS, DEFAULTS, MAX_CONFIG_BYTES
from .inputs.parse import parse_capacity_query, parse_config_json, parse_target, parse_workload

EXIT_USAGE = 2


def _choices(enum_type: type) -> list[str]:
    return [member.value for member in enum_type]


def build_parser(*, target: bool = False) -> argparse.ArgumentParser:
    if target:
        parser = argparse.ArgumentParser(
            prog="vramcalc fit",
            description="The longest sequence, largest batch, fewest GPUs and largest model (same width, "
            "more or fewer layers) for a workload on a GPU. Several GPUs hold what the most loaded rank of "
            "their layout holds (--tp/--pp/--dp/--zero/...; default: tensor parallel for inference, ZeRO-3 for "
            "training).",
        )
        where = parser.add_argument_group("target")
        where.add_argument("--gpu", default=DEFAULTS["gpu"], help=f"one of: {', '.join(load_gpus())}; a Mac "
                           "(apple-m4-max-128gb, ...); or any card as NNgb (24gb)")
        where.add_argument("--gpus", default=DEFAULTS["gpus"], metavar="N", help="how many of them (default 1)")
    else:
        parser = argparse.ArgumentParser(
            prog="vramcalc",
            description="Estimate the GPU memory a transformer needs. "
            "Also: `vramcalc fit --help` (reverse questions), `vramcalc capacity --help` (what fits where).",
        )
    model = parser.add_argument_group("model (one of)")
    model.add_argument("--model", help=f"a preset: {', '.join(load_presets())}")
    model.add_argument("--config", metavar="PATH", help="a Hugging Face config.json")
    model.add_argument("--params", metavar="B", help="custom: parameters, in billions")
    model.add_argument("--hidden", metavar="H", help="custom: hidden size")
    model.add_argument("--layers", metavar="L", help="custom: layers")
    model.add_argument("--heads", metavar="N", help="custom: attention heads (default hidden/128)")
    model.add_argument("--kv-heads", metavar="N", dest="kv_heads", help="custom: KV heads (default = heads)")
    model.add_argument("--vocab", metavar="N", help="custom: vocabulary (default 32000)")
    model.add_argument("--ffn", metavar="N", help="custom: FFN size (default about 8h/3)")
    work = parser.add_argument_group("workload")
    work.add_argument("--mode", choices=_choices(Mode), default=DEFAULTS["mode"])
    work.add_argument("--precision", default=DEFAULTS["precision"], metavar="FORMAT",
                      help="weights: fp32, fp16, bf16, int8, int4, int2 (nominal bits, no scales), a GGUF type "
                           "(q4_k_m, q8_0, iq4_xs, ...), gptq-int4, gptq-int8, awq-int4, nf4, nf4-dq, bnb-int8, fp8, "
                           "fp8-block, mxfp4, nvfp4, bpw:X.XX (EXL2/EXL3) or native (the checkpoint's own)")
    work.add_argument("--group-size", dest="group_size", default=DEFAULTS["group_size"], metavar="N",
                      help="GPTQ/AWQ group size (default 128)")
    work.add_argument("--kv-precision", dest="kv_precision", choices=_choices(Precision),
                      help="KV cache (default: the weights' float type, else fp16)")
    work.add_argument("--batch", default=DEFAULTS["batch"])
    work.add_argument("--seq", default=DEFAULTS["seq"], help="sequence length in tokens")
    train = parser.add_argument_group("training")
    train.add_argument("--optimizer", choices=_choices(Optimizer), default=DEFAULTS["optimizer"])
    train.add_argument("--optimizer-impl", dest="optimizer_impl", default=DEFAULTS["optimizer_impl"], metavar="IMPL",
                       help="foreach (torch.optim's default on GPU), fused (the Trainer's default on torch >= 2.8) "
                            "or for-loop; default: the optimizer's own")
    train.add_argument("--mixed-precision", dest="mixed_precision", action="store_true",
                       help="keep an fp32 master copy of the weights")
    train.add_argument("--recipe", default=DEFAULTS["recipe"], metavar="NAME",
                       help="fp32, bf16 (pure), amp (fp32 weights under autocast --precision), mixed (16-bit weights, "
                            "fp32 gradients and master: Megatron/DeepSpeed); default: --precision and --mixed-precision")
    train.add_argument("--lora-rank", dest="lora_rank", default=DEFAULTS["lora_rank"], metavar="R",
                       help="LoRA adapters of rank R (0: full fine-tuning); with --precision nf4 or nf4-dq: QLoRA")
    train.add_argument("--lora-targets", dest="lora_targets", default=DEFAULTS["lora_targets"], metavar="LIST",
                       help="all-linear (default) or a subset of q,k,v,o,gate,up,down")
    train.add_argument("--lora-dropout", dest="lora_dropout", default=DEFAULTS["lora_dropout"], metavar="P",
                       help="peft's lora_dropout (default 0): each adapted layer then keeps a mask and a dropped copy")
    train.add_argument("--lora-dtype", dest="lora_dtype", default=DEFAULTS["lora_dtype"], metavar="DTYPE",
                       help="the adapters' dtype: fp32 (peft's default), bf16 or fp16")
    train.add_argument("--lora-embeddings", dest="lora_embeddings", action="store_true",
                       help="train the embeddings and head in full as well")
    train.add_argument("--grad-accum", dest="grad_accum", default=DEFAULTS["grad_accum"], metavar="N",
                       help="gradient accumulation steps (memory follows the micro-batch, --batch)")
    train.add_argument("--fused-ce", dest="fused_ce", action="store_true",
                       help="chunked cross-entropy (Liger): the logits are never materialised for the whole batch")
    train.add_argument("--checkpointing", choices=_choices(Checkpointing), default=DEFAULTS["checkpointing"])
    train.add_argument("--attention", choices=_choices(Attention), default=DEFAULTS["attention"])
    parser.add_argument("--overhead-gib", dest="overhead_gib", default=DEFAULTS["overhead_gib"], metavar="X",
                        help="framework overhead in GiB (default: the engine's own; transformers 1)")
    multi = parser.add_argument_group("several GPUs (default layout: TP for inference, ZeRO-3 data parallel "
                                      "for training)")
    if not target:
        multi.add_argument("--gpus", default=DEFAULTS["gpus"], metavar="N", help="how many GPUs (default 1)")
    for key, text in (("tp", "tensor parallel"), ("pp", "pipeline stages"), ("dp", "data parallel (default: the rest)"),
                      ("ep", "expert parallel (inside dp)"), ("cp", "context parallel"),
                      ("vpp", "interleaved chunks per stage"), ("zero", "DeepSpeed ZeRO stage 0-3")):
        multi.add_argument(f"--{key}", default=DEFAULTS[key], metavar="N", help=text)
    multi.add_argument("--sp", action="store_true", help="sequence parallel (with --tp)")
    multi.add_argument("--fsdp", default=DEFAULTS["fsdp"], metavar="MODE", help="full-shard, shard-grad-op, hybrid-shard")
    multi.add_argument("--offload", default=DEFAULTS["offload"], metavar="WHAT", help="none, optimizer, optimizer+params")
    engine = parser.add_argument_group("engine")
    engine.add_argument("--runtime", default=DEFAULTS["runtime"], metavar="NAME",
                        help="transformers (default; generate with a dynamic cache), vllm (also SGLang), "
                             "llamacpp (also Ollama, LM Studio)")
    if not target:
        engine.add_argument("--gpu", default=DEFAULTS["gpu"], help="the card the engine runs on (vLLM sizes its "
                            f"KV pool by it): {', '.join(load_gpus())}; a Mac (apple-m4-max-128gb, ...); or NNgb")
    engine.add_argument("--wired-limit-mb", dest="wired_limit_mb", default=DEFAULTS["wired_limit_mb"], metavar="MIB",
                        help="a Mac's sysctl iogpu.wired_limit_mb (default: the macOS share)")
    engine.add_argument("--macos", default=DEFAULTS["macos"], metavar="N",
                        help="a Mac's macOS version (the GPU share changed in 26; default 15)")
    engine.add_argument("--gpu-memory-utilization", dest="gpu_memory_utilization",
                        default=DEFAULTS["gpu_memory_utilization"], metavar="X", help="vLLM (default 0.9)")
    engine.add_argument("--max-num-batched-tokens", dest="max_num_batched_tokens",
                        default=DEFAULTS["max_num_batched_tokens"], metavar="N", help="vLLM (default: by card)")
    engine.add_argument("--max-num-seqs", dest="max_num_seqs", default=DEFAULTS["max_num_seqs"], metavar="N",
                        help="vLLM (default: by card)")
    engine.add_argument("--enforce-eager", dest="enforce_eager", action="store_true", help="vLLM: no CUDA graphs")
    engine.add_argument("--gpu-layers", dest="gpu_layers", default=DEFAULTS["gpu_layers"], metavar="N",
                        help="llama.cpp: layers on the GPU, the output layer first (default all)")
    engine.add_argument("--ubatch", default=DEFAULTS["ubatch"], metavar="N", help="llama.cpp micro-batch (512)")
    engine.add_argument("--parallel", default=DEFAULTS["parallel"], metavar="N",
                        help="llama.cpp: sequences, each with its own context (1)")
    engine.add_argument("--kv-precision-k", dest="kv_precision_k", default="", metavar="TYPE",
                        help="llama.cpp --cache-type-k (default: --kv-precision)")
    engine.add_argument("--kv-precision-v", dest="kv_precision_v", default="", metavar="TYPE",
                        help="llama.cpp --cache-type-v (default: --kv-precision)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    if not target:
        parser.add_argument("--csv", action="store_true", help="print the breakdown as CSV (bytes, GiB, GB, share)")
        parser.add_argument("--markdown", action="store_true", help="print a Markdown report for an issue")
    return parser


def _values(args: argparse.Namespace) -> tuple[dict[str, str], dict | None]:
    custom = [key for key in CUSTOM_KEYS if getattr(args, key)]
    sources = [name for name, given in (("--model", args.model), ("--config", args.config), ("--params ...", custom)) if given]
    if len(sources) > 1:
        raise ValidationError("model", " and ".join(sources), "give one of --model, --config or --params/--hidden/--layers")
    values = {
        key: getattr(args, key)
        for key in ("mode", "precision", "group_size", "batch", "seq", "optimizer", "checkpointing", "attention",
                    "overhead_gib", "runtime", "gpu", "gpu_memory_utilization", "max_num_batched_tokens",
                    "max_num_seqs", "gpu_layers", "ubatch", "parallel", "kv_precision_k", "kv_precision_v",
                    "wired_limit_mb", "macos", "recipe", "lora_rank", "lora_targets", "grad_accum", "optimizer_impl",
                    "lora_dropout", "lora_dtype", "tp", "pp", "dp", "ep", "cp", "vpp", "zero", "fsdp", "offload")
    }
    values["sp"] = "1" if args.sp else "0"
    values["kv_precision"] = args.kv_precision or ""
    values["mixed_precision"] = "1" if args.mixed_precision else "0"
    values["enforce_eager"] = "1" if args.enforce_eager else "0"
    values["lora_embeddings"] = "1" if args.lora_embeddings else "0"
    values["fused_ce"] = "1" if args.fused_ce else "0"
    config = None
    if args.config:
        try:  # at most one byte past the limit: a larger file (or /dev/zero) is refused without reading it all
            with open(args.config, "rb") as handle:
                data = handle.read(MAX_CONFIG_BYTES + 1)
            if len(data) > MAX_CONFIG_BYTES:
                raise ValidationError("config", args.config, f"larger than {MAX_CONFIG_BYTES:,} bytes")
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ValidationError("config", args.config, f"cannot read the file ({error.__class__.__name__})") from None
        config = parse_config_json(text)
        values["model"] = CONFIG
    elif custom:
        values["model"] = CUSTOM
        values.update({key: getattr(args, key) or "" for key in CUSTOM_KEYS})
    else:
        values["model"] = args.model or DEFAULTS["model"]
    return values, config


def to_table(breakdown: Breakdown, fits: Sequence[GpuFit]) -> str:
    workload = breakdown.workload
    lines = [f"APPROXIMATE: {text}" for text in breakdown.assumptions] + [""] * bool(breakdown.assumptions)
    lines += [
        f"{workload.model.display_name}: {format_count(breakdown.params)} parameters"
        + (f" ({format_count(breakdown.active_params)} active)" if breakdown.active_params != breakdown.params else ""),
        f"{workload.mode.value}, {workload.precision.value}, batch {workload.batch}, sequence {workload.seq:,}",
        "",
        f"{'component':<24}{'GiB':>10}{'GB':>10}  formula",
    ]
    for component in breakdown.components:
        lines.append(
            f"{EN[component.key]:<24}{component.bytes / 2**30:>10.2f}{component.bytes / 1e9:>10.2f}  {component.formula}"
        )
    lines.append(f"{'Total':<24}{breakdown.total_bytes / 2**30:>10.2f}{breakdown.total_bytes / 1e9:>10.2f}")
    lines.append(f"= {format_gib(breakdown.total_bytes)} = {format_gb(breakdown.total_bytes)} ({breakdown.total_bytes:,} bytes)")
    lines += ["", f"{'GPU':<20}{'usable GiB':>11}{'one GPU':>9}{'needed':>8}  verdict"]
    for fit in fits:
        needed = "-" if fit.count is None else str(fit.count)
        lines.append(
            f"{fit.gpu.display_name:<20}{fit.gpu.usable_bytes / 2**30:>11.2f}{fit.utilization:>9.0%}{needed:>8}  {fit.verdict.value}"
        )
    runtime = {key: value for key, value in breakdown.runtime.items() if key != "name"}
    if runtime:
        lines += ["", f"{breakdown.runtime['name']}: " + ", ".join(f"{key} {value:,}" if isinstance(value, int)
                                                                      else f"{key} {value}"
                                                                      for key, value in runtime.items())]
    if breakdown.phases:
        overhead = breakdown.bytes_of("overhead")
        lines += ["", f"{'step phase (with overhead)':<34}{'GiB':>10}{'GB':>10}"]
        for name, total in breakdown.phase_totals().items():
            mark = "  <- peak" if name == breakdown.peak_phase else ""
            lines.append(f"{name:<34}{(total + overhead) / 2**30:>10.2f}{(total + overhead) / 1e9:>10.2f}{mark}")
    lines += [f"note: {note}" for note in breakdown.notes]
    return "\n".join(lines)


def build_capacity_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vramcalc capacity",
        description="Model sizes (billions of parameters) whose weights fit in each memory size, by precision: "
        "from the size that keeps the headroom free to the size that fills the memory.",
    )
    parser.add_argument("--vram", default=DEFAULTS["vram"], metavar="GB", help="add a row for this memory size (GB = 10^9 B)")
    parser.add_argument("--headroom", default=DEFAULTS["headroom"], metavar="PCT",
                        help="percent of memory kept free for runtime, KV cache and activations (default 20)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def breakdown_main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    try:
        values, config = _values(args)
        breakdown = estimate(parse_workload(values, config=config))
    except ValidationError as error:
        return _usage_error(error)
    try:
        gpus = parse_target({"gpus": args.gpus}).count
        rank = per_gpu(breakdown, gpus)
    except ValidationError as error:
        return _usage_error(error)
    gpu_fits = fit_all(breakdown)
    if args.json:
        print(json.dumps(to_json(breakdown, gpu_fits, gpus)))
    elif args.csv:
        print(to_csv(breakdown, gpus), end="")
    elif args.markdown:
        print(to_markdown(breakdown, gpus), end="")
    else:
        print(to_table(on_gpus(breakdown, gpus), gpu_fits) + (_per_gpu_lines(rank) if gpus > 1 else ""))
    return 0


def _per_gpu_lines(rank) -> str:
    lines = ["", f"per GPU, {rank.layout.describe()} ({rank.rank}, peak at {rank.peak_phase}): "
                 f"{format_gib(rank.total_bytes)}"]
    lines += [f"  {EN[key]:<24}{value / 2**30:>10.2f} GiB" for key, value in rank.components.items() if value]
    lines += [f"  {stage}: {format_gib(total)}" for stage, total in rank.stages.items()]
    if rank.host_bytes:
        lines.append(f"  host memory per node (offloaded states): {format_gib(rank.host_bytes)}")
    return "\n".join(lines)


def fit_main(argv: Sequence[str]) -> int:
    args = build_parser(target=True).parse_args(argv)
    try:
        values, config = _values(args)
        workload = parse_workload(values, config=config)
        target = parse_target({"gpu": args.gpu, "gpus": args.gpus, "wired_limit_mb": args.wired_limit_mb,
                               "macos": args.macos})
    except ValidationError as error:
        return _usage_error(error)
    solution = solve(workload, target)
    result = {
        "gpu": target.gpu.slug,
        "gpus": target.count,
        "memory_bytes": target.gpu.usable_bytes,
        "total_bytes": estimate(workload).total_bytes,
        "fits": fits(workload, target),
        "max_seq": solution.max_seq,
        "max_batch": solution.max_batch,
        "min_gpus": solution.min_gpus,
        "max_params": solution.max_params,
        "max_layers": solution.max_layers,
        "best_format": solution.best_format,
        "best_kv_format": solution.best_kv_format,
    }
    if args.json:
        print(json.dumps(result))
        return 0
    lines = [
        f"{workload.model.display_name}, {workload.mode.value}, {workload.precision.value}, batch {workload.batch}, "
        f"sequence {workload.seq:,} on {target.label} ({format_gib(target.gpu.usable_bytes)} each)"
        + (f", laid out as {layout_text(workload, per_gpu(estimate(workload), target.count))}" if target.count > 1
           else ""),
        f"now: {format_gib(result['total_bytes'])} in total: {'fits' if result['fits'] else 'does not fit'}",
    ]
    for key, label in (("max_seq", "longest sequence"), ("max_batch", "largest batch"), ("min_gpus", "fewest GPUs"),
                       ("max_params", "largest model")):
        value = result[key]
        text = "none fits" if value is None else (format_count(value) + " parameters" if key == "max_params" else f"{value:,}")
        if key == "max_params" and value is not None:
            text += f" ({solution.max_layers:,} layers)"
        lines.append(f"{label:<18}{text}")
    for key, label in (("best_format", "best weights"), ("best_kv_format", "best KV cache")):
        none = ("not applicable: training keeps no KV cache" if key == "best_kv_format" and workload.is_training
                else "none of this engine formats fits")
        lines.append(f"{label:<18}{result[key] or none}")
    print("\n".join(lines))
    return 0


def capacity_main(argv: Sequence[str]) -> int:
    args = build_capacity_parser().parse_args(argv)
    try:
        query = parse_capacity_query({"vram": args.vram, "headroom": args.headroom})
    except ValidationError as error:
        return _usage_error(error)
    rows = capacity.table(query.headroom)
    if query.memory_bytes is not None:
        rows += (capacity.row(query.memory_bytes, query.headroom),)
    if args.json:
        print(json.dumps(capacity_json(query.headroom, rows, user=query.memory_bytes is not None)))
        return 0
    standard, user = present_capacity(query)
    header = ["VRAM", "FP32", "FP16/BF16", "INT8", "INT4", "INT2"]
    lines = [
        f"Model sizes (billions of parameters) whose weights fit; the lower bound keeps {query.headroom:.0%} free.",
        "".join(f"{h:>14}" for h in header),
    ]
    for view in standard + ((user,) if user else ()):
        lines.append("".join(f"{c:>14}" for c in (view.memory, *view.cells)))
    lines.append("")
    for view in standard + ((user,) if user else ()):
        lines.append(f"{view.memory}: {view.examples}")
    print("\n".join(lines))
    return 0


def capacity_json(headroom: float, rows: Sequence[capacity.Row], *, user: bool) -> dict:
    return {
        "headroom": headroom,
        "columns": [p.value for p in capacity.COLUMNS],
        "rows": [
            {
                "memory_bytes": row.memory_bytes,
                "user": user and index == len(rows) - 1,
                "cells": {c.precision.value: {"low_params": c.low_params, "high_params": c.high_params} for c in row.cells},
                "examples": [
                    {"name": p.example.name, "params": p.example.params, "precision": p.precision.value,
                     "quantised": p.quantised, "several_gpus": p.several_gpus}
                    for p in row.examples
                ],
            }
            for index, row in enumerate(rows)
        ],
    }


def _usage_error(error: ValidationError) -> int:
    print(f"vramcalc: error: {error}", file=sys.stderr)
    return EXIT_USAGE


def models_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="vramcalc models", description="The model presets, or those matching a search.")
    parser.add_argument("search", nargs="*", help='part of a name or Hugging Face id, e.g. "qwen3 32" or Qwen/Qwen3-32B')
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    args = parser.parse_args(argv)
    by_slug = {entry.slug: entry for entry in catalog.entries()}
    chosen = [by_slug[slug] for slug in catalog.search(" ".join(args.search))]
    if args.json:
        print(json.dumps([entry.as_dict() for entry in chosen]))
    else:
        print(f"{'slug':<38} {'name':<30} {'parameters':<26} {'context':>10}  architecture")
        for entry in chosen:
            print(catalog.summary_line(entry))
    return 0


COMMANDS = {"fit": fit_main, "capacity": capacity_main, "models": models_main}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        return COMMANDS[argv[0]](argv[1:])
    return breakdown_main(argv)
