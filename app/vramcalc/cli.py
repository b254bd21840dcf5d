"""Command line: python -m vramcalc [options]. Options map one to one onto the
keys of the input layer (`--kv-heads` is `kv_heads`), so a link, the form and
the command line give the same numbers."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .errors import ValidationError
from .fit import GpuFit, fit_all
from .memory import Breakdown
from .memory import estimate
from .messages import EN
from .models import load_presets
from .options import Attention, Checkpointing, Mode, Optimizer, Precision
from .units import format_count, format_gb, format_gib
from .workload import CONFIG, CUSTOM, DEFAULTS, parse_config_json, parse_workload

EXIT_USAGE = 2


def _choices(enum_type: type) -> list[str]:
    return [member.value for member in enum_type]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vramcalc", description="Estimate the GPU memory a transformer needs.")
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
    work.add_argument("--precision", choices=_choices(Precision), default=DEFAULTS["precision"])
    work.add_argument("--kv-precision", dest="kv_precision", choices=_choices(Precision),
                      help="KV cache (default: the weights' float type, else fp16)")
    work.add_argument("--batch", default=DEFAULTS["batch"])
    work.add_argument("--seq", default=DEFAULTS["seq"], help="sequence length in tokens")
    train = parser.add_argument_group("training")
    train.add_argument("--optimizer", choices=_choices(Optimizer), default=DEFAULTS["optimizer"])
    train.add_argument("--mixed-precision", dest="mixed_precision", action="store_true",
                       help="keep an fp32 master copy of the weights")
    train.add_argument("--checkpointing", choices=_choices(Checkpointing), default=DEFAULTS["checkpointing"])
    train.add_argument("--attention", choices=_choices(Attention), default=DEFAULTS["attention"])
    parser.add_argument("--overhead-gib", dest="overhead_gib", default=DEFAULTS["overhead_gib"], metavar="X",
                        help="framework overhead in GiB (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _values(args: argparse.Namespace) -> tuple[dict[str, str], dict | None]:
    custom = [key for key in ("params", "hidden", "layers", "heads", "kv_heads", "vocab", "ffn") if getattr(args, key)]
    sources = [name for name, given in (("--model", args.model), ("--config", args.config), ("--params ...", custom)) if given]
    if len(sources) > 1:
        raise ValidationError("model", " and ".join(sources), "give one of --model, --config or --params/--hidden/--layers")
    values = {
        key: getattr(args, key)
        for key in ("mode", "precision", "batch", "seq", "optimizer", "checkpointing", "attention", "overhead_gib")
    }
    values["kv_precision"] = args.kv_precision or ""
    values["mixed_precision"] = "1" if args.mixed_precision else "0"
    config = None
    if args.config:
        try:
            with open(args.config, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise ValidationError("config", args.config, f"cannot read the file ({error.__class__.__name__})") from None
        config = parse_config_json(text)
        values["model"] = CONFIG
    elif custom:
        values["model"] = CUSTOM
        values.update({key: getattr(args, key) or "" for key in ("params", "hidden", "layers", "heads", "kv_heads", "vocab", "ffn")})
    else:
        values["model"] = args.model or DEFAULTS["model"]
    return values, config


def to_json(breakdown: Breakdown, fits: Sequence[GpuFit]) -> dict:
    """The stable JSON shape scripts rely on."""
    return {
        "params": breakdown.params,
        "active_params": breakdown.active_params,
        "components": breakdown.as_dict(),
        "total_bytes": breakdown.total_bytes,
        "gpus": [
            {"name": fit.gpu.display_name, "memory_bytes": fit.gpu.usable_bytes,
             "utilization": round(fit.utilization, 6), "count": fit.count}
            for fit in fits
        ],
    }


def to_table(breakdown: Breakdown, fits: Sequence[GpuFit]) -> str:
    workload = breakdown.workload
    lines = [
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
    lines += [f"note: {note}" for note in breakdown.notes]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        values, config = _values(args)
        breakdown = estimate(parse_workload(values, config=config))
    except ValidationError as error:
        print(f"vramcalc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    fits = fit_all(breakdown)
    if args.json:
        print(json.dumps(to_json(breakdown, fits)))
    else:
        print(to_table(breakdown, fits))
    return 0
