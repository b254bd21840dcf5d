"""Command line. Options map one to one onto the keys of the input layer
(`--kv-heads` is `kv_heads`), so a link, the form and the command line give the
same numbers.

    python -m vramcalc [workload options] [--json]           the memory breakdown
    python -m vramcalc fit --gpu SLUG [--gpus N] [workload options] [--json]
                                                             the reverse questions
    python -m vramcalc capacity [--vram GB] [--headroom PCT] [--json]
                                                             what fits in how much memory
    python -m vramcalc models [SEARCH] [--json]              the presets (slug, parameters, context, architecture)
    python -m vramcalc diffusion [--pipeline SLUG ...] [--json]
                                                             an image or video diffusion pipeline's memory
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .analysis import capacity
from .analysis.evaluate import estimate
from .analysis.fit import GpuFit, fit_all
from .analysis.ranks import DeviceLoad, PerGpu, most_loaded, on_gpus, per_gpu
from .analysis.solve import fits, seq_limit, solve
from .analysis.speed_answers import evaluate_speed
from .core.choices import Mode
from .core.errors import ValidationError
from .core.option import Kind, Option
from .diffusion.command import diffusion_main
from .engines import engine_for
from .engines.layouts import seq_step
from .engines.ollama import context_key
from .formats.file_weights import WeightsGiven
from .formats.headers import Header, Truncated, read_header, read_safetensors_index
from .inputs.options import (
    CONFIG,
    CUSTOM,
    CUSTOM_KEYS,
    DEFAULTS,
    MAX_BATCH,
    MAX_CONFIG_BYTES,
    OPTION,
    OPTIONS,
    WEIGHTS,
    several_gpus_only,
    shown_values,
)
from .inputs.parse import (
    parse_capacity_query,
    parse_config_json,
    parse_machine,
    parse_target,
    parse_workload,
    with_named_layout,
)
from .memory.components import Breakdown
from .render import catalog as catalog_words
from .render.command import run_lines
from .render.export import request_summary, to_csv, to_json, to_markdown
from .render.i18n.en import EN
from .render.messages import ENGLISH
from .render.rank import device_lines, layout_text
from .render.speed import present_speed, speed_lines
from .render.view import absent, best_format_text, present_capacity, present_verdict
from .sources import catalog, hub
from .sources.fields import MAX_LAYERS
from .sources.gpus import load_gpus
from .sources.hf_config import supported_types
from .sources.readers import TEXT_TYPES
from .speed import Cost, Speed, cost_of, speed_of
from .workload import Machine, Target, Workload

EXIT_USAGE = 2


# The --help sections, in order, by the `cli_group` (else `group`) of the table's options; "" is the top section.
SECTIONS = {
    "model": "model (one of)",
    "request": "workload",
    "training": "training",
    "": "",
    "layout": "several GPUs (default layout: TP for inference, ZeRO-3 data parallel for training)",
    "engine": "engine",
    "speed": "speed and cost (the card's figures win where given)",
}
TARGET_KEYS = ("gpu", "gpus")  # `fit` asks about them first, in a section of their own, with these help texts
TARGET_HELP: dict[str, Callable[[], str]] = {
    "gpu": lambda: f"one of: {', '.join(load_gpus())}; a Mac (apple-m4-max-128gb, ...); or any card as NNgb (24gb)",
    "gpus": lambda: "how many of them (default 1)",
}
OUTPUT_FLAGS = ("json", "csv", "markdown", "command")  # how to print, not what to compute: not link keys
# files on this machine, and a Hugging Face repository read on request: not settings of the calculation (a page
# link carries the repository as hf=, read by the page itself on a click: inputs/link.PAGE_KEYS)
COMMAND_LINE_ONLY = ("config", "weights", "hf", "hf_endpoint", "hf_file")


def _section(option: Option) -> str:
    return option.group if option.cli_group is None else option.cli_group


def _add(group: argparse._ActionsContainer, option: Option, help: str | None = None) -> None:
    """The option's flag, as the table declares it."""
    help = option.help_text if help is None else help
    if option.kind is Kind.FLAG:
        group.add_argument(*option.cli_flags, dest=option.key, action="store_true", help=help)
        return
    # The model's keys have no default here: _values tells --model, --config and --params apart by which are given.
    default = None if option.group == "model" else option.default
    if option.kind is Kind.CHOICE:
        group.add_argument(*option.cli_flags, dest=option.key, choices=option.choices, default=default, help=help)
    else:
        group.add_argument(*option.cli_flags, dest=option.key, default=default, metavar=option.metavar, help=help)


def build_parser(*, target: bool = False) -> argparse.ArgumentParser:
    """The workload's options, generated from inputs/options.OPTIONS (with `target`: `vramcalc fit`'s)."""
    if target:
        parser = argparse.ArgumentParser(
            prog="vramcalc fit",
            description="The longest sequence, largest batch, fewest GPUs and largest model (same width, "
            "more or fewer layers) for a workload on a GPU. Several GPUs hold what the most loaded rank of "
            "their layout holds (--tp/--pp/--dp/--zero/...; default: tensor parallel for inference, ZeRO-3 for "
            "training).",
        )
        where = parser.add_argument_group("target")
        for key in TARGET_KEYS:
            _add(where, OPTION[key], TARGET_HELP[key]())
    else:
        parser = argparse.ArgumentParser(
            prog="vramcalc",
            description="Estimate the GPU memory a transformer needs. "
            "Also: `vramcalc fit --help` (reverse questions), `vramcalc capacity --help` (what fits where).",
        )
    for section, title in SECTIONS.items():
        group: argparse._ActionsContainer = parser.add_argument_group(title) if title else parser
        for option in OPTIONS:
            if _section(option) != section or (target and option.key in TARGET_KEYS):
                continue
            _add(group, option)
            if option.key == "model":
                group.add_argument("--config", metavar="PATH", help="a Hugging Face config.json")
                group.add_argument("--weights", metavar="PATH", help=(
                    "the model's weight files, read from their headers only: a .gguf (split files too), a "
                    ".safetensors, or a folder (shards with model.safetensors.index.json, config.json); "
                    "alone, a GGUF's metadata is the model"))
                group.add_argument("--hf", metavar="ORG/NAME[@REV]", help=(
                    "a Hugging Face repository, read on request: its config.json and its safetensors headers, or "
                    "one GGUF file's header (HF_TOKEN for gated models; instead of --model, --config, --weights)"))
                group.add_argument("--hf-file", metavar="NAME", help=(
                    "with --hf, the GGUF file to read (its name, or its quant: Q4_K_M); without it a repository "
                    "of several GGUF files lists them with their sizes"))
                group.add_argument("--hf-endpoint", metavar="URL", help=(
                    f"the Hub's address for --hf (a mirror; default: HF_ENDPOINT, else {hub.DEFAULT_ENDPOINT})"))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    if not target:
        parser.add_argument("--command", action="store_true",
                            help="print the command that runs this plan on its engine (llama-server, the Ollama "
                                 "server and Modelfile, vllm serve, transformers' from_pretrained)")
        parser.add_argument("--csv", action="store_true", help="print the breakdown as CSV (bytes, GiB, GB, share)")
        parser.add_argument("--markdown", action="store_true", help="print a Markdown report for an issue")
    return parser


def _values(args: argparse.Namespace) -> tuple[dict[str, str], dict[str, object] | None, WeightsGiven | None]:
    if args.hf:
        return _hub_values(args)
    if args.hf_file or args.hf_endpoint:
        flag = "--hf-file" if args.hf_file else "--hf-endpoint"
        raise ValidationError(flag[2:], args.hf_file or args.hf_endpoint, f"{flag} goes with --hf ORG/NAME")
    weights = read_weights(args.weights) if args.weights else None
    if weights is not None and not (args.model or args.config or any(getattr(args, k) for k in CUSTOM_KEYS)):
        folder = Path(args.weights)
        if folder.is_dir() and (folder / "config.json").is_file():
            args.config = str(folder / "config.json")
        elif weights.kind == "gguf":
            args.model = WEIGHTS
        else:
            raise ValidationError("weights", args.weights, "a safetensors checkpoint does not say its architecture: "
                                                            "give its config.json (--config) or a --model")
    if weights is not None and weights.kind == "gguf" and args.runtime == OPTION["runtime"].default and (
            args.mode != Mode.TRAINING.value):  # training has no engine to choose: its check names the GGUF file
        args.runtime = "llamacpp"  # what runs a GGUF file (the default engine cannot), unless Ollama is asked
    values, config = _model_values(args)
    return values, config, weights


def _hub_values(args: argparse.Namespace) -> tuple[dict[str, str], dict[str, object] | None, WeightsGiven | None]:
    """--hf: the repository's config.json as --config gives one (named by the id), its safetensors headers as
    --weights gives them; or, for a GGUF repository, the chosen file's header, its metadata the model."""
    given = [flag for flag, value in (("--model", args.model), ("--config", args.config), ("--weights", args.weights),
                                      ("--params ...", any(getattr(args, k) for k in CUSTOM_KEYS))) if value]
    if given:
        raise ValidationError("hf", args.hf, f"--hf is the model: leave out {' and '.join(given)}")
    repo = hub.load(args.hf, endpoint=args.hf_endpoint, file=args.hf_file)
    if repo.config_text is None:
        args.model = WEIGHTS
        if args.runtime == OPTION["runtime"].default and args.mode != Mode.TRAINING.value:
            args.runtime = "llamacpp"  # what runs a GGUF file, as with --weights
    values, _ = _model_values(args)
    if repo.config_text is None:
        return values, None, repo.weights
    values["model"] = CONFIG
    return values, {**parse_config_json(repo.config_text), "_name_or_path": repo.repo}, repo.weights


def _model_values(args: argparse.Namespace) -> tuple[dict[str, str], dict[str, object] | None]:
    custom = [key for key in CUSTOM_KEYS if getattr(args, key)]
    given_sources = (("--model", args.model), ("--config", args.config), ("--params ...", custom))
    sources = [name for name, given in given_sources if given]
    if len(sources) > 1:
        raise ValidationError("model", " and ".join(sources),
                              "give one of --model, --config or --params/--hidden/--layers")
    values = {}
    for option in OPTIONS:
        if option.group in ("model", "capacity", "diffusion"):
            continue  # the model below; the capacity table and the diffusion pipelines have commands of their own
        if option.checkbox:
            values[option.key] = "1" if getattr(args, option.key) else "0"
        else:
            values[option.key] = getattr(args, option.key) or ""
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
    lines = [f"APPROXIMATE: {ENGLISH.say(text)}" for text in breakdown.assumptions]
    lines += [""] * bool(breakdown.assumptions)
    moe = breakdown.active_params != breakdown.params
    active = f" ({ENGLISH.count(breakdown.active_params)} active)" if moe else ""
    lines += [
        f"{workload.model.display_name}: {ENGLISH.count(breakdown.params)} parameters" + active,
        request_summary(workload, key="results.header"),
        "",
        f"{'component':<24}{'GiB':>10}{'GB':>10}  formula",
    ]
    for component in breakdown.components:
        if absent(breakdown, component.key):
            continue  # as on the page: a part this workload does not have (--json keeps every component)
        lines.append(
            f"{EN[component.key]:<24} {component.bytes / 2**30:>9.2f} {component.bytes / 1e9:>9.2f}"
            f"  {ENGLISH.say(component.formula)}"
        )
    lines.append(f"{'Total':<24} {breakdown.total_bytes / 2**30:>9.2f} {breakdown.total_bytes / 1e9:>9.2f}")
    lines.append(f"= {ENGLISH.gib(breakdown.total_bytes)} = {ENGLISH.gb(breakdown.total_bytes)}"
                 f" ({breakdown.total_bytes:,} bytes)")
    width = max([20, *(len(fit.gpu.display_name) + 1 for fit in fits)])
    lines += ["", f"{'GPU':<{width}}{'usable GiB':>11}{'one GPU':>9}{'needed':>8}  verdict"]
    for fit in fits:
        needed = "-" if fit.count is None else str(fit.count)
        used = "-" if fit.refused else f"{fit.utilization:.0%}"
        lines.append(
            f"{fit.gpu.display_name:<{width}} {fit.gpu.usable_bytes / 2**30:>10.2f} {used:>8} {needed:>7}"
            f"  {'cannot run: ' + fit.refused if fit.refused else fit.verdict.value}"
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
            lines.append(f"{name:<34} {(total + overhead) / 2**30:>9.2f} {(total + overhead) / 1e9:>9.2f}{mark}")
    lines += [f"note: {ENGLISH.say(note)}" for note in breakdown.notes]
    return "\n".join(lines)


def build_capacity_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vramcalc capacity",
        description="Model sizes (billions of parameters) whose weights fit in each memory size, by precision: "
        "from the size that keeps the headroom free to the size that fills the memory.",
    )
    for option in OPTIONS:
        if option.group == "capacity":
            _add(parser, option)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def breakdown_main(argv: Sequence[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        values, config, weights = _values(args)
        workload, values = _parse_workload(values, config, weights, _given(parser, argv))
        breakdown = estimate(workload)
        machine = parse_machine(values)
    except ValidationError as error:
        return _usage_error(error)
    try:
        gpus = parse_target({"gpu": args.gpu, "gpus": args.gpus}).count
        rank = per_gpu(breakdown, gpus)
    except ValidationError as error:
        return _usage_error(error)
    if args.command:
        return _print_command(on_gpus(breakdown, gpus), gpus)
    gpu_fits = fit_all(breakdown)
    card = breakdown.workload.gpu
    assert card is not None  # parse_workload always sets the card
    if args.json:
        speed, cost = _speed(breakdown, gpus, machine)
        print(json.dumps(to_json(breakdown, gpu_fits, gpus, speed=speed, cost=cost)))
    elif args.csv:
        print(to_csv(breakdown, gpus), end="")
    elif args.markdown:
        print(to_markdown(breakdown, gpus), end="")
    else:
        target = Target(gpu=card, count=gpus, cards=breakdown.workload.cards)
        result = evaluate_speed(breakdown.workload, target, machine)
        print(to_table(on_gpus(breakdown, gpus), gpu_fits) + (_per_gpu_lines(rank) if gpus > 1 else "")
              + speed_lines(present_speed(breakdown.workload, result)))
    return 0


def _print_command(breakdown: Breakdown, gpus: int) -> int:
    lines = run_lines(breakdown, gpus, words=ENGLISH)
    if not lines:
        workload = breakdown.workload
        print(f"vramcalc: {workload.runtime.value} has no one command for {workload.mode.value}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def _speed(breakdown: Breakdown, gpus: int, machine: Machine) -> tuple[Speed, Cost]:
    """The speed and cost on the workload's card (--gpu), `gpus` of them."""
    card = breakdown.workload.gpu
    assert card is not None  # parse_workload always sets the card
    speed = speed_of(breakdown, card, gpus, machine)
    return speed, cost_of(speed, card, gpus, machine, breakdown.workload.cards)


_SPLIT = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$")
_PART = re.compile(r"^(.*)-(\d{5})-of-(\d{5})\.(gguf|safetensors)$")  # a split GGUF's parts, a checkpoint's shards
ADAPTER = "adapter_model.safetensors"  # peft's save_pretrained, beside a model's shards in fine-tuned folders
FIRST_READ = 1 << 20  # a header's first read; a GGUF's tokenizer makes some headers several MB


def read_weights(path_text: str) -> WeightsGiven:
    """The headers of the weight files at `path_text`: a GGUF file (and the other parts of a split one),
    a safetensors file, or a folder holding either (safetensors shards through their index)."""
    path = Path(path_text)
    if path.is_dir():
        index = path / "model.safetensors.index.json"
        if index.is_file():
            _, weight_map = read_safetensors_index(_read_text(index))
            files = [path / name for name in sorted(set(weight_map.values()))]
        else:
            ggufs = sorted(path.glob("*.gguf"))
            models = [f for f in ggufs if "mmproj" not in f.name.lower()] or ggufs  # a projector is no model
            shards = sorted(path.glob("*.safetensors"))
            files = [f for f in shards if f.name != ADAPTER] or models  # peft's adapter is no part of the model
            if not files and shards:
                raise ValidationError("weights", path_text, f"{ADAPTER} is a LoRA adapter (peft): name the base "
                                                            "model's files")
            if not files:
                raise ValidationError("weights", path_text, "no .safetensors or .gguf file in the folder")
            if files[0].suffix == ".gguf" and len(files) > 1 and not all(_SPLIT.search(f.name) for f in files):
                raise ValidationError("weights", path_text, f"the folder holds {len(files)} GGUF files: name the one "
                                                            "to read (or the first part of a split one)")
            _every_part(path_text, files)
    else:
        split = _SPLIT.search(path.name)
        files = ([path.with_name(_SPLIT.sub(f"-{i:05d}-of-{split.group(2)}.gguf", path.name))
                  for i in range(1, int(split.group(2)) + 1)] if split else [path])
    return WeightsGiven(name=path.name, headers=tuple(_read_header(file) for file in files))


def _every_part(folder: str, files: Sequence[Path]) -> None:
    """The parts named NAME-0000k-of-0000N in a folder: those of one model, every one of them (as a split file
    named by its first part is read, or refused naming the part it lacks)."""
    models: dict[tuple[str, str, str], set[int]] = {}
    for file in files:
        part = _PART.match(file.name)
        if part:
            models.setdefault((part[1], part[3], part[4]), set()).add(int(part[2]))
    if len(models) > 1:
        raise ValidationError("weights", folder, f"the folder holds {len(models)} split models: name the first part "
                                                 "of the one to read")
    for (stem, of, suffix), found in models.items():
        missing = [k for k in range(1, int(of) + 1) if k not in found]
        if missing:
            raise ValidationError("weights", f"{stem}-{missing[0]:05d}-of-{of}.{suffix}",
                                  f"a part of the split model missing ({len(found)} of {int(of)} in the folder)")


def _read_header(path: Path) -> Header:
    """One file's header: a first MB, then as much as the reader asks for, never the tensors' data."""
    if path.exists() and not path.is_file():  # a named pipe or a device waits for a writer without bound
        raise ValidationError("weights", str(path), "not a regular file")
    try:
        with path.open("rb") as handle:
            asked = FIRST_READ
            data = handle.read(asked)
            while True:
                try:
                    return read_header(data, path.name)
                except Truncated as more:
                    if len(data) < asked:  # the whole file was read and the header runs past its end
                        raise ValidationError("weights", path.name, "the file ends inside its header") from None
                    handle.seek(0)
                    asked = more.needed  # the reader may ask for more than its header needs: the file may be shorter
                    data = handle.read(asked)
    except OSError as error:
        raise ValidationError("weights", str(path), f"cannot read the file ({error.__class__.__name__})") from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValidationError("weights", str(path), f"cannot read the file ({error.__class__.__name__})") from None


def _per_gpu_lines(rank: PerGpu) -> str:
    lines = ["", (f"per GPU, {rank.layout.describe()} ({rank.rank}, peak at {rank.peak_phase}): "
                  f"{ENGLISH.gib(rank.total_bytes)}")]
    lines += [f"  {EN[key]:<24}{value / 2**30:>10.2f} GiB" for key, value in rank.components.items() if value]
    lines += [f"  {stage}: {ENGLISH.gib(total)}" for stage, total in rank.stages.items()]
    lines += [f"  {line}" for line in device_lines(rank)]
    if rank.host_bytes:
        lines.append(f"  host memory per node (offloaded states): {ENGLISH.gib(rank.host_bytes)}")
    return "\n".join(lines)


def fit_main(argv: Sequence[str]) -> int:
    parser = build_parser(target=True)
    args = parser.parse_args(argv)
    try:
        values, config, weights = _values(args)
        workload, values = _parse_workload(values, config, weights, _given(parser, argv))
        target = parse_target({key: values[key] for key in ("gpu", "gpus", "wired_limit_mb", "macos")})  # as shown
        breakdown = estimate(workload)
        per_gpu(breakdown, target.count)  # a layout these GPUs cannot run is refused, as the breakdown refuses it
    except ValidationError as error:
        return _usage_error(error)
    solution = solve(workload, target)
    total_bytes = breakdown.total_bytes
    try:
        machine = parse_machine(values)
    except ValidationError as error:
        return _usage_error(error)
    timing = evaluate_speed(workload, target, machine)
    speed, cost, answers = timing.speed, timing.cost, timing.answers
    result = {
        "gpu": target.gpu.slug,
        "gpus": target.count,
        "memory_bytes": target.gpu.usable_bytes,
        "total_bytes": total_bytes,
        "fits": fits(workload, target),
        "max_seq": solution.max_seq,
        "max_batch": solution.max_batch,
        "min_gpus": solution.min_gpus,
        "max_params": solution.max_params,
        "max_layers": solution.max_layers,
        "best_format": solution.best_format,
        "best_kv_format": solution.best_kv_format,
        "speed": speed.as_json(),
        "cost": cost.as_json(),
        "fastest_format": answers.fastest_format,
        "max_concurrency": answers.max_concurrency,
        "min_gpus_for_run": answers.min_gpus_for_run,
        "min_n_cpu_moe": answers.min_n_cpu_moe,
        "llamacpp_fit": None if answers.llamacpp_fit is None else {
            **answers.llamacpp_fit.as_json(), "tokens_per_s": answers.llamacpp_fit_tokens_per_s},
        "cheapest_card": answers.cheapest_card,
        "devices": [device.as_json() for device in _devices(workload, target)],
        # the words of the speed and cost, as the breakdown's JSON gives them: never a figure without its basis
        "speed_basis": [ENGLISH.say(text) for text in (*speed.basis, *((speed.unknown,) if speed.unknown else ()))],
        "cost_basis": [ENGLISH.say(cost.price)] if cost.price is not None else [],
        # each figure of the speed section in words, the reverse answers' too: a null answer's reason
        "speed_figures": {key: value for key, _, value in present_speed(workload, timing).figures},
    }
    if args.json:
        print(json.dumps(result))
        return 0
    lines = [
        f"{workload.model.display_name}, {request_summary(workload, key='results.header')} "
        f"on {ENGLISH.say(target.label)} ("
        + (" + ".join(ENGLISH.gib(card.usable_bytes) for card in target.cards) if target.cards
           else f"{ENGLISH.gib(target.gpu.usable_bytes)} each") + ")"
        + (f", laid out as {layout_text(workload, per_gpu(estimate(workload), target.count))}" if target.count > 1
           else ""),
        f"now: {ENGLISH.gib(total_bytes)} in total: {'fits' if result['fits'] else 'does not fit'}",
    ]
    rank = most_loaded(workload, target.count)
    if not result["fits"] and target.gpu.shared_memory_bytes and rank.total_bytes <= target.gpu.usable_bytes:
        lines.append(present_verdict(workload, target, solution, rank).text)  # system RAM's part of the one memory
    slots = engine_for(workload.runtime).batch_key == "parallel" and not workload.is_training  # llama.cpp, Ollama
    context = "largest --num-ctx" if context_key(workload) == "num_ctx" else "longest sequence"  # Ollama's context
    for key, label in (("max_seq", context), ("max_batch", "most --parallel" if slots else "largest batch"),
                       ("min_gpus", "fewest GPUs"), ("max_params", "largest model")):
        value = result[key]  # a count, or None when none fits
        text = ENGLISH.message("answer.gpus_mixed") if key == "min_gpus" and target.cards else "none fits" if not (
            isinstance(value, int)) else (
            ENGLISH.count(value) + " parameters" if key == "max_params" else f"{value:,}")
        if key == "max_params" and value is not None:
            capped = (solution.max_layers or 0) >= MAX_LAYERS  # the search's limit, not the card's
            text = ("at least " if capped else "") + text + f" ({solution.max_layers:,} layers)"
        if (key == "max_seq" and isinstance(value, int) and value >= seq_limit(workload)) or (
                key == "max_batch" and isinstance(value, int) and value >= MAX_BATCH):
            text = f"at least {value:,} (the input limit)"  # as the page says it (answer.seq_capped)
        lines.append(f"{label:<18}{text}")
    for key, label in (("best_format", "best weights"), ("best_kv_format", "best KV cache")):
        none = ("not applicable: training keeps no KV cache" if key == "best_kv_format" and workload.is_training
                else "none of this engine's formats fits")
        said = result[key]  # a format's name, or None when none fits
        if key == "best_format" and isinstance(said, str):  # from a weight file: another file, or this one
            said = best_format_text(workload, said, ENGLISH)
        lines.append(f"{label:<18}{said or none}")
    lines += device_lines(most_loaded(workload, target.count)) if target.cards else []
    print("\n".join(lines) + speed_lines(present_speed(workload, timing)))
    return 0


def _devices(workload: Workload, target: Target) -> tuple[DeviceLoad, ...]:
    """llama.cpp's GPUs, each with its layers and bytes, on mixed cards or with -ts (else none)."""
    try:
        return most_loaded(workload, target.count).devices
    except ValidationError:  # a layout these GPUs cannot run
        return ()


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


def capacity_json(headroom: float, rows: Sequence[capacity.Row], *, user: bool) -> dict[str, object]:
    return {
        "headroom": headroom,
        "columns": [p.value for p in capacity.COLUMNS],
        "rows": [
            {
                "memory_bytes": row.memory_bytes,
                "user": user and index == len(rows) - 1,
                "cells": {c.precision.value: {"low_params": c.low_params, "high_params": c.high_params}
                          for c in row.cells},
                "examples": [
                    {"name": p.example.name, "params": p.example.params, "precision": p.precision.value,
                     "quantised": p.quantised, "several_gpus": p.several_gpus}
                    for p in row.examples
                ],
            }
            for index, row in enumerate(rows)
        ],
    }


BEYOND_THE_PAGE: tuple[str, ...] = ()  # keys the command line reads where the page hides them: none


def _without_ignored(values: Mapping[str, str]) -> dict[str, str]:
    """The values without the flags that do not apply (a training setting in inference, another engine's option),
    each said on stderr: the answer is the one without them, as the page's, which hides such fields, and a
    link's, which drops them, are (but for BEYOND_THE_PAGE)."""
    given = {key: value for key, value in values.items() if value not in ("", DEFAULTS.get(key))}
    shown = {**shown_values(given), **{key: given[key] for key in BEYOND_THE_PAGE if key in given}}
    named = several_gpus_only(values)
    ignored = [f"{OPTION[key].cli_flags[0]} {value}" if not OPTION[key].checkbox else OPTION[key].cli_flags[0]
               for key, value in given.items() if key in OPTION and shown[key] != value and key not in named]
    if ignored:
        print(f"vramcalc: note: ignored, as it does not apply to this mode, engine, model or GPU count: "
              f"{', '.join(ignored)}", file=sys.stderr)
    return {**shown_values(values), **{key: values[key] for key in BEYOND_THE_PAGE if key in values}}


def _given(parser: argparse.ArgumentParser, argv: Sequence[str]) -> frozenset[str]:
    """The options `argv` sets, whatever their values: one set to the form's default (--checkpointing none) is
    still the user's, which a framework's defaults leave as it is (training/frameworks.py)."""
    unset = object()
    args = argparse.Namespace(**{action.dest: unset for action in parser._actions})
    parser.parse_args(argv, args)  # parsed once already: no error here
    return frozenset(key for key, value in vars(args).items() if value is not unset)


def _parse_workload(values: Mapping[str, str], config: Mapping[str, object] | None, weights: WeightsGiven | None,
                    given: frozenset[str] = frozenset()) -> tuple[Workload, dict[str, str]]:
    """The workload `values` name (the flags that do not apply dropped, `_without_ignored`), keeping the layout
    named for several GPUs that one GPU drops (options.several_gpus_only) for the fewest GPUs' search
    (Workload.on_gpus); and the values that apply."""
    shown = _without_ignored(values)
    given = frozenset(key for key in given if key in shown and shown[key] == values.get(key))
    workload = parse_workload(shown, config=config, weights=weights, given=given)
    named = several_gpus_only(values)
    if named:
        workload = with_named_layout(workload, named)
        several = workload.on_gpus(2)
        step = seq_step(several)
        unsplit = f"; it splits sequences in multiples of {step}, not {several.seq:,}" if several.seq % step else ""
        flags = ", ".join(OPTION[key].cli_flags[0] if OPTION[key].checkbox else f"{OPTION[key].cli_flags[0]} {value}"
                          for key, value in named.items())
        print(f"vramcalc: note: one GPU runs without a layout ({flags}): the fewest GPUs is searched under it, as "
              f"with --gpus N{unsplit}", file=sys.stderr)
    return workload, shown


def _usage_error(error: ValidationError) -> int:
    print(f"vramcalc: error: {error}", file=sys.stderr)
    return EXIT_USAGE


def build_models_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vramcalc models",
                                     description="The model presets, or those matching a search.")
    parser.add_argument("search", nargs="*",
                        help='part of a name or Hugging Face id, e.g. "qwen3 32" or Qwen/Qwen3-32B')
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    parser.add_argument("--types", action="store_true",
                        help="the config.json model_types read exactly (any other is estimated and marked approximate)")
    return parser


def models_main(argv: Sequence[str]) -> int:
    args = build_models_parser().parse_args(argv)
    if args.types:
        types = [{"model_type": name, "reads": TEXT_TYPES.get(name, name)} for name in supported_types()]
        if args.json:
            print(json.dumps(types))
        else:
            print("\n".join(t["model_type"] + ("" if t["reads"] == t["model_type"] else f" (its text_config, as "
                                                                                        f"{t['reads']})")
                            for t in types))
        return 0
    by_slug = {entry.slug: entry for entry in catalog.entries()}
    chosen = [by_slug[slug] for slug in catalog.search(" ".join(args.search))]
    if args.json:
        print(json.dumps([catalog_words.as_json(entry) for entry in chosen]))
    else:
        print(f"{'slug':<38} {'name':<30} {'parameters':<26} {'context':>10}  architecture")
        for entry in chosen:
            print(catalog_words.summary_line(entry))
    return 0


COMMANDS = {"fit": fit_main, "capacity": capacity_main, "models": models_main, "diffusion": diffusion_main}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        return COMMANDS[argv[0]](argv[1:])
    return breakdown_main(argv)
