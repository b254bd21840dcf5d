"""The one input layer. Form fields, link parameters, command-line options and
an imported config.json all become a frozen `Workload` here, through the same
parsers and the same messages. Keys are the names used in links and on the
command line (`kv_heads` there is `--kv-heads` on the command line)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Callable, Mapping

from .errors import ValidationError
from .engines import LLAMACPP_CUDA_OVERHEAD, VLLM_CUDA_GRAPHS, VLLM_NON_TORCH, Runtime
from .gpus import DEFAULT_MACOS, GpuSpec, configure, gpu
from .messages import message
from .models import MAX_DIM, MAX_HEADS, MAX_LAYERS, ModelSpec, custom_model, from_hf_config, preset_spec
from .training import ALL_LINEAR, Lora, Recipe, parse_targets
from .training import adapter_tensors as training_adapters
from .training import compute_precision as training_compute
from .step import allowed_impls
from .parallel import Fsdp, Layout, Offload, default_layout
from . import parallel
from .formats import DEFAULT_GROUP_SIZE, WeightFormat, check_format, names as format_names, parse_format
from .options import NOMINAL, Attention, Checkpointing, Mode, Optimizer, OptimizerImpl, Precision
from .units import GB, GIB

CUSTOM = "custom"
LAYOUT_KEYS = ("tp", "pp", "dp", "ep", "cp", "sp", "vpp", "zero", "fsdp", "offload")
CONFIG = "config"

DEFAULTS: Mapping[str, str] = {
    "model": "llama-3-8b",
    "params": "",
    "hidden": "",
    "layers": "",
    "heads": "",
    "kv_heads": "",
    "vocab": "",
    "ffn": "",
    "mode": Mode.INFERENCE.value,
    "precision": Precision.BF16.value,  # a nominal precision, or a weight format (formats.py)
    "group_size": str(DEFAULT_GROUP_SIZE),  # GPTQ and AWQ
    "kv_precision": "",  # empty: follow the weights (16-bit when they are integer-quantised)
    "batch": "1",
    "seq": "8192",
    "optimizer": Optimizer.ADAMW.value,
    "optimizer_impl": "",  # empty: the optimizer's own (torch.optim: foreach, as on a GPU)
    "mixed_precision": "0",
    "recipe": "",  # empty: the weights' precision plus --mixed-precision, as in the first version
    "lora_rank": "0",  # 0: full fine-tuning
    "lora_targets": "all-linear",
    "lora_embeddings": "0",
    "lora_dropout": "0",  # peft's lora_dropout; above 0 each adapted layer keeps a mask and a dropped copy
    "lora_dtype": "fp32",  # peft keeps adapters in fp32 by default (autocast_adapter_dtype); bf16 as Unsloth does
    "grad_accum": "1",
    "fused_ce": "0",
    "checkpointing": Checkpointing.NONE.value,
    "attention": Attention.FLASH.value,
    "overhead_gib": "",  # empty: the engine's own (transformers 1 GiB; vLLM non-torch + CUDA graphs; llama.cpp 457 MiB)
    "runtime": "transformers",
    "gpu_memory_utilization": "0.9",  # vLLM
    "max_num_batched_tokens": "",  # vLLM; empty: its default for the card
    "max_num_seqs": "",  # vLLM; empty: its default for the card
    "enforce_eager": "0",  # vLLM: no CUDA graphs
    "gpu_layers": "",  # llama.cpp --gpu-layers; empty: every layer and the output on the GPU
    "ubatch": "512",  # llama.cpp --ubatch-size
    "parallel": "1",  # llama.cpp --parallel: sequences, each with its own context
    "kv_precision_k": "",  # llama.cpp --cache-type-k; empty: kv_precision
    "kv_precision_v": "",  # llama.cpp --cache-type-v
    "gpu": "h100-80gb",  # the card the reverse questions are asked about
    "gpus": "1",
    # several GPUs (parallel.py, LAYOUT_KEYS): empty degrees come from `gpus` and the mode's default layout
    "tp": "",
    "pp": "",
    "dp": "",
    "ep": "",
    "cp": "",
    "sp": "0",
    "vpp": "1",
    "zero": "",
    "fsdp": "",
    "offload": "none",
    "wired_limit_mb": "",  # Apple Silicon: sysctl iogpu.wired_limit_mb (MiB); empty or 0: the macOS default
    "macos": str(DEFAULT_MACOS),  # Apple Silicon: the macOS version whose default GPU limit applies
    "vram": "",  # a memory size (GB) the user adds to the capacity table
    "headroom": "20",  # percent of memory the capacity table keeps free
}
"""Every key a link or the form may carry, with its default as text."""

CUSTOM_KEYS = ("params", "hidden", "layers", "heads", "kv_heads", "vocab", "ffn")
"""The keys of a custom model; they mean something only with model=custom."""


MAX_BATCH = 1_000_000
MAX_SEQ = 100_000_000  # 100M tokens: beyond any model today, far below overflow
MAX_PARAMS_B = 1_000_000.0  # 10^15 parameters
MAX_OVERHEAD_GIB = 1024.0
MAX_CONFIG_BYTES = 1_000_000
MAX_GPUS = 100_000
MAX_VRAM_GB = 1_000_000.0  # a petabyte
MAX_HEADROOM_PERCENT = 90.0

# Framework overhead default: the CUDA context is ~0.3–0.4 GB with lazy loading
# (pytorch/pytorch#107667, #109888) and 716–1343 MiB measured once cuBLAS/cuDNN
# workspaces are up; 1 GiB is the middle of that range (reference.md §2.8).
DEFAULT_OVERHEAD_BYTES = 1 * GIB


@dataclasses.dataclass(frozen=True, kw_only=True)
class Workload:
    model: ModelSpec
    mode: Mode = Mode.INFERENCE
    precision: Precision | WeightFormat = Precision.BF16  # nominal (first version) or a real format
    group_size: int = DEFAULT_GROUP_SIZE
    kv_precision: Precision | None = None  # None: follow the weights
    batch: int = 1
    seq: int = 8192
    optimizer: Optimizer = Optimizer.ADAMW
    optimizer_impl: OptimizerImpl = OptimizerImpl.DEFAULT
    mixed_precision: bool = False
    recipe: Recipe = Recipe.LEGACY
    lora_rank: int = 0
    lora_targets: tuple[str, ...] = (ALL_LINEAR,)
    lora_embeddings: bool = False
    lora_dropout: float = 0.0
    lora_dtype: Precision = Precision.FP32
    grad_accum: int = 1
    fused_ce: bool = False
    checkpointing: Checkpointing = Checkpointing.NONE
    attention: Attention = Attention.FLASH
    overhead_bytes: int = DEFAULT_OVERHEAD_BYTES
    runtime: Runtime = Runtime.TRANSFORMERS
    gpu: GpuSpec | None = None  # the card the engine runs on (vLLM sizes its pool by it)
    gpu_memory_utilization: float = 0.9
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    enforce_eager: bool = False
    gpu_layers: int | None = None
    ubatch: int = 512
    parallel: int = 1
    kv_precision_k: Precision | None = None
    kv_precision_v: Precision | None = None
    tp: int | None = None  # None: from `gpus` and the mode's default layout (parallel.py)
    pp: int | None = None
    dp: int | None = None
    ep: int | None = None
    cp: int | None = None
    sp: bool = False
    vpp: int = 1
    zero: int | None = None
    fsdp: Fsdp = Fsdp.NONE
    offload: Offload = Offload.NONE

    @property
    def layout_given(self) -> bool:
        return any(getattr(self, key) is not None for key in ("tp", "pp", "dp", "ep", "cp", "zero")) or (
            self.fsdp is not Fsdp.NONE or self.offload is not Offload.NONE or self.sp or self.vpp > 1)

    @property
    def effective_kv_precision(self) -> Precision:
        """KV-cache format: as chosen, else the weights' float format, else 16-bit."""
        if self.kv_precision is not None:
            return self.kv_precision
        return self.precision if self.precision.is_float else Precision.FP16

    @property
    def activation_precision(self) -> Precision:
        """Activations are computed in the weights' float format, or the recipe's (autocast: the
        precision named); quantised weights compute in 16-bit (QLoRA: bf16)."""
        if self.is_training and self.recipe is not Recipe.LEGACY:
            return training_compute(self.recipe, self.precision if isinstance(self.precision, Precision)
                                    else Precision.BF16)
        if self.lora and not self.precision.is_float:
            return Precision.BF16
        return self.precision if self.precision.is_float else Precision.FP16

    @property
    def lora(self) -> Lora | None:
        """The adapters, when fine-tuning with LoRA (training and a rank above 0)."""
        if not self.is_training or self.lora_rank == 0:
            return None
        return Lora(rank=self.lora_rank, targets=self.lora_targets, embeddings=self.lora_embeddings)

    @property
    def is_training(self) -> bool:
        return self.mode is Mode.TRAINING

    def but(self, **changes: object) -> Workload:
        """This workload with `changes`, as dataclasses.replace makes it but without re-running the
        generated __init__ field by field: the solvers and charts make hundreds per update. The class
        has no __post_init__ and no cached values, so copying the fields is all replace does."""
        unknown = changes.keys() - self.__dict__.keys()
        if unknown:
            raise TypeError(f"Workload has no field {', '.join(sorted(unknown))}")
        copy = object.__new__(Workload)
        copy.__dict__.update(self.__dict__, **changes)
        return copy


@dataclasses.dataclass(frozen=True, kw_only=True)
class Target:
    """The GPUs the reverse questions are asked about: `count` cards of one kind, sharing evenly."""

    gpu: GpuSpec
    count: int = 1

    @property
    def label(self) -> str:
        """'H100 SXM 80 GB', or '4 × H100 SXM 80 GB' for several."""
        if self.count == 1:
            return message("target.one", gpu=self.gpu.display_name)
        return message("target.many", count=self.count, gpu=self.gpu.display_name)


@dataclasses.dataclass(frozen=True, kw_only=True)
class CapacityQuery:
    memory_bytes: int | None  # an extra row for the capacity table; None: only the standard sizes
    headroom: float  # fraction of memory kept free, 0 to 0.9


# ---------------------------------------------------------------- field parsers

_INT_RE = re.compile(r"[ \t]*[0-9]{1,18}[ \t]*")  # not \s, which also matches "\x1f": int() refuses that
_DECIMAL_RE = re.compile(r"[ \t]*([0-9]{1,15}(\.[0-9]{0,12})?|\.[0-9]{1,12})[ \t]*")


def parse_int(field: str, text: str, low: int, high: int) -> int:
    """A whole number written in decimal digits, within [low, high]."""
    if not isinstance(text, str) or not _INT_RE.fullmatch(text):
        raise ValidationError(field, text, f"expected a whole number from {low:,} to {high:,}")
    value = int(text)
    if not low <= value <= high:
        raise ValidationError(field, text, f"expected a whole number from {low:,} to {high:,}")
    return value


_TOKENS_RE = re.compile(r"[ \t]*([0-9]{1,12})[ \t]*[kK][ \t]*")


def parse_tokens(field: str, text: str, low: int, high: int) -> int:
    """A number of tokens: whole, or in thousands of 1,024 as contexts are named ("32k" = 32,768, "128K")."""
    match = _TOKENS_RE.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return parse_int(field, text, low, high)
    value = int(match.group(1)) * 1024
    if not low <= value <= high:
        raise ValidationError(field, text, f"expected a whole number from {low:,} to {high:,}")
    return value


def parse_decimal(field: str, text: str, low: float, high: float, *, low_inclusive: bool = True) -> float:
    """A plain decimal number (digits and one point: no exponent, sign, NaN or infinity)."""
    allowed = f"expected a number {'from' if low_inclusive else 'above'} {_plain(low)} {'to' if low_inclusive else 'up to'} {_plain(high)}"
    if not isinstance(text, str) or not _DECIMAL_RE.fullmatch(text):
        raise ValidationError(field, text, allowed)
    value = float(text)
    too_low = value < low if low_inclusive else value <= low
    if not math.isfinite(value) or too_low or value > high:
        raise ValidationError(field, text, allowed)
    return value


def _plain(number: float) -> str:
    return f"{number:,.0f}" if number == int(number) else f"{number:g}"


def parse_choice(field: str, text: str, enum_type: type) -> object:
    for member in enum_type:
        if text == member.value:
            return member
    raise ValidationError(field, text, "expected one of: " + ", ".join(m.value for m in enum_type))


def parse_flag(field: str, text: str) -> bool:
    if text in ("1", "true", "on"):
        return True
    if text in ("0", "false", "off", ""):
        return False
    raise ValidationError(field, text, "expected 1 or 0")


def parse_config_json(text: str) -> dict:
    """The text of a config.json, checked for size and shape before it is read."""
    if len(text) > MAX_CONFIG_BYTES:
        raise ValidationError("config.json", f"{len(text):,} characters", f"at most {MAX_CONFIG_BYTES:,} characters")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise ValidationError("config.json", text[:40], f"not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise ValidationError("config.json", type(value).__name__, "expected a JSON object")
    return value


MAX_GROUP_SIZE = 1 << 16
MAX_PARALLEL = 4096  # llama.cpp sequences
QLORA_FORMATS = ("nf4", "nf4-dq")
RUNTIME_KV = {
    Runtime.TRANSFORMERS: (Precision.FP32, Precision.FP16, Precision.BF16, Precision.INT8, Precision.INT4,
                           Precision.INT2),  # int8/int4/int2: nominal bits (the first version's meaning)
    Runtime.VLLM: (Precision.FP32, Precision.FP16, Precision.BF16, Precision.FP8),
    Runtime.LLAMACPP: (Precision.FP32, Precision.FP16, Precision.BF16, Precision.Q8_0, Precision.Q5_1, Precision.Q4_0),
}


def parse_float_precision(field: str, text: str) -> Precision:
    for member in (Precision.FP32, Precision.BF16, Precision.FP16):
        if text == member.value:
            return member
    raise ValidationError(field, text, "expected one of: fp32, bf16, fp16")


def parse_precision(text: str) -> Precision | WeightFormat:
    """The weights' format: a nominal precision of the first version (fp32 ... int2, every
    parameter at that many bits) or a real format (a GGUF type, a GPU format, bpw:X.XX, native)."""
    for member in NOMINAL:
        if text == member.value:
            return member
    found = parse_format(text) if isinstance(text, str) else None
    if found is None:
        raise ValidationError("precision", text, "expected one of: " + ", ".join(
            [m.value for m in NOMINAL] + list(format_names())))
    return found


_MACHINE_PARSERS: Mapping[str, Callable[[str], object]] = {
    "wired_limit_mb": lambda t: None if t.strip() == "" else parse_int("wired_limit_mb", t, 0, 10**7),
    "macos": lambda t: parse_int("macos", t, 1, 99),
}
_FIELD_PARSERS: Mapping[str, Callable[[str], object]] = {
    "mode": lambda t: parse_choice("mode", t, Mode),
    "precision": parse_precision,
    "group_size": lambda t: parse_int("group_size", t, 1, MAX_GROUP_SIZE),
    "kv_precision": lambda t: None if t == "" else parse_choice("kv_precision", t, Precision),
    "batch": lambda t: parse_int("batch", t, 1, MAX_BATCH),
    "seq": lambda t: parse_tokens("seq", t, 1, MAX_SEQ),
    "optimizer": lambda t: parse_choice("optimizer", t, Optimizer),
    "optimizer_impl": lambda t: parse_choice("optimizer_impl", t, OptimizerImpl),
    "mixed_precision": lambda t: parse_flag("mixed_precision", t),
    "recipe": lambda t: parse_choice("recipe", t, Recipe),
    "lora_rank": lambda t: parse_int("lora_rank", t, 0, 65536),
    "lora_targets": parse_targets,
    "lora_embeddings": lambda t: parse_flag("lora_embeddings", t),
    "lora_dropout": lambda t: parse_decimal("lora_dropout", t, 0.0, 0.9),
    "lora_dtype": lambda t: parse_float_precision("lora_dtype", t),
    "grad_accum": lambda t: parse_int("grad_accum", t, 1, 1_000_000),
    "fused_ce": lambda t: parse_flag("fused_ce", t),
    "checkpointing": lambda t: parse_choice("checkpointing", t, Checkpointing),
    "attention": lambda t: parse_choice("attention", t, Attention),
    "overhead_gib": lambda t: None if t.strip() == "" else round(
        parse_decimal("overhead_gib", t, 0.0, MAX_OVERHEAD_GIB) * GIB),
    "runtime": lambda t: parse_choice("runtime", t, Runtime),
    "gpu": lambda t: gpu(t),
    **_MACHINE_PARSERS,
    "gpu_memory_utilization": lambda t: parse_decimal("gpu_memory_utilization", t, 0.0, 1.0, low_inclusive=False),
    "max_num_batched_tokens": lambda t: None if t.strip() == "" else parse_tokens("max_num_batched_tokens", t, 1, MAX_SEQ),
    "max_num_seqs": lambda t: None if t.strip() == "" else parse_int("max_num_seqs", t, 1, MAX_BATCH),
    "enforce_eager": lambda t: parse_flag("enforce_eager", t),
    "gpu_layers": lambda t: None if t.strip() == "" else parse_int("gpu_layers", t, 0, MAX_LAYERS + 1),
    "ubatch": lambda t: parse_tokens("ubatch", t, 1, 65536),
    "parallel": lambda t: parse_int("parallel", t, 1, MAX_PARALLEL),
    "kv_precision_k": lambda t: None if t == "" else parse_choice("kv_precision_k", t, Precision),
    "kv_precision_v": lambda t: None if t == "" else parse_choice("kv_precision_v", t, Precision),
    **{key: (lambda t, key=key: None if t.strip() == "" else parse_int(key, t, 1, MAX_GPUS))
       for key in ("tp", "pp", "dp", "ep", "cp")},
    "sp": lambda t: parse_flag("sp", t),
    "vpp": lambda t: parse_int("vpp", t, 1, 64),
    "zero": lambda t: None if t.strip() == "" else parse_int("zero", t, 0, 3),
    "fsdp": lambda t: parse_choice("fsdp", t, Fsdp),
    "offload": lambda t: parse_choice("offload", t, Offload),
}
_FIELD_ATTRIBUTE = {"overhead_gib": "overhead_bytes"}  # keys whose Workload attribute is named by its unit

_TARGET_PARSERS: Mapping[str, Callable[[str], object]] = {
    "gpu": gpu,
    "gpus": lambda t: parse_int("gpus", t, 1, MAX_GPUS),
    **_MACHINE_PARSERS,
}
_CAPACITY_PARSERS: Mapping[str, Callable[[str], object]] = {
    "vram": lambda t: None if t.strip() == "" else round(parse_decimal("vram", t, 0.0, MAX_VRAM_GB, low_inclusive=False) * GB),
    "headroom": lambda t: parse_decimal("headroom", t, 0.0, MAX_HEADROOM_PERCENT) / 100,
}


def _parse_model(values: Mapping[str, str], config: Mapping[str, object] | None) -> ModelSpec:
    slug = values.get("model", DEFAULTS["model"])
    if slug == CONFIG:
        if config is None:
            raise ValidationError("model", slug, "no config.json has been imported")
        return from_hf_config(config)
    if slug != CUSTOM:
        return preset_spec(slug)
    required = {
        "params": lambda t: round(parse_decimal("params", t, 0.0, MAX_PARAMS_B, low_inclusive=False) * 1e9),
        "hidden": lambda t: parse_int("hidden", t, 1, MAX_DIM),
        "layers": lambda t: parse_int("layers", t, 1, MAX_LAYERS),
    }
    optional = {
        "heads": lambda t: parse_int("heads", t, 1, MAX_HEADS),
        "kv_heads": lambda t: parse_int("kv_heads", t, 1, MAX_HEADS),
        "vocab": lambda t: parse_int("vocab", t, 1, MAX_DIM * 10),
        "ffn": lambda t: parse_int("ffn", t, 1, MAX_DIM),
    }
    numbers: dict[str, int | None] = {}
    for key, parse in required.items():
        text = values.get(key, "")
        if text.strip() == "":
            raise ValidationError(key, text, "required for a custom model")
        numbers[key] = parse(text)
    for key, parse in optional.items():
        text = values.get(key, "")
        numbers[key] = None if text.strip() == "" else parse(text)
    if numbers["params"] == 0:
        raise ValidationError("params", values.get("params"), "expected at least one parameter")
    return custom_model(**numbers)  # type: ignore[arg-type]


def parse_workload(values: Mapping[str, str], *, config: Mapping[str, object] | None = None) -> Workload:
    """Strict: the first bad field raises ValidationError. Missing keys take their defaults."""
    fields = _parse_fields(_FIELD_PARSERS, values, None)
    model = _parse_model(values, config)
    return _build(model, fields)


def parse_workload_lenient(
    values: Mapping[str, str], *, config: Mapping[str, object] | None = None
) -> tuple[Workload, list[ValidationError]]:
    """For links: every bad field falls back to its default, and is reported."""
    problems: list[ValidationError] = []
    fields = _parse_fields(_FIELD_PARSERS, values, problems)
    try:
        model = _parse_model(values, config)
    except ValidationError as error:
        problems.append(error)
        model = preset_spec(DEFAULTS["model"])
    reset: set[str] = set()
    while True:
        try:
            return _build(model, fields), problems
        except ValidationError as error:
            problems.append(error)
            if error.field in reset or error.field not in _FIELD_PARSERS:
                # a rule between fields that resetting this one does not settle: every field to its default
                fields = {key: parse(DEFAULTS[key]) for key, parse in _FIELD_PARSERS.items()}
                if "*" in reset:
                    raise  # the defaults themselves do not fit this model: a bug, not bad input
                reset.add("*")
                continue
            reset.add(error.field)
            fields[error.field] = _FIELD_PARSERS[error.field](DEFAULTS[error.field])


def _parse_fields(
    parsers: Mapping[str, Callable[[str], object]], values: Mapping[str, str], problems: list[ValidationError] | None
) -> dict[str, object]:
    """Each key through its parser; missing keys take their defaults. Strict when `problems` is
    None (the first bad field raises); otherwise a bad field is reported there and takes its default."""
    fields: dict[str, object] = {}
    for key, parse in parsers.items():
        try:
            fields[key] = parse(values.get(key, DEFAULTS[key]))
        except ValidationError as error:
            if problems is None:
                raise
            problems.append(error)
            fields[key] = parse(DEFAULTS[key])
    return fields


def _target(fields: Mapping[str, object]) -> Target:
    card = configure(fields["gpu"], wired_limit_mb=fields["wired_limit_mb"], macos=fields["macos"])  # type: ignore[arg-type]
    return Target(gpu=card, count=fields["gpus"])  # type: ignore[arg-type]


def _capacity_query(fields: Mapping[str, object]) -> CapacityQuery:
    return CapacityQuery(memory_bytes=fields["vram"], headroom=fields["headroom"])  # type: ignore[arg-type]


def parse_target(values: Mapping[str, str]) -> Target:
    """Strict, like parse_workload: `gpu` (a slug of data/gpus) and `gpus` (how many)."""
    return _target(_parse_fields(_TARGET_PARSERS, values, None))


def parse_capacity_query(values: Mapping[str, str]) -> CapacityQuery:
    """Strict: `vram` (GB, optional) and `headroom` (percent)."""
    return _capacity_query(_parse_fields(_CAPACITY_PARSERS, values, None))


def parse_link(
    values: Mapping[str, str], *, config: Mapping[str, object] | None = None
) -> tuple[Workload, Target, CapacityQuery, list[ValidationError]]:
    """Everything a link carries; every bad field falls back to its default and is reported."""
    workload, problems = parse_workload_lenient(values, config=config)
    reported = {problem.field for problem in problems}
    fields = _parse_fields(_TARGET_PARSERS, values, [])
    target = Target(gpu=workload.gpu or gpu(DEFAULTS["gpu"]), count=fields["gpus"])  # the machine as cleaned above
    try:
        resolve_layout(workload, target.count)
    except ValidationError as error:  # a layout these GPUs cannot run: the mode's default layout instead
        problems.append(error)
        workload = dataclasses.replace(workload, **{key: _FIELD_PARSERS[key](DEFAULTS[key]) for key in LAYOUT_KEYS})
    problems += [p for p in _target_problems(values) if p.field not in reported]
    problems = list({(p.field, str(p)): p for p in problems}.values())  # a rule retried reports once
    query = _capacity_query(_parse_fields(_CAPACITY_PARSERS, values, problems))
    return workload, target, query, problems


def _target_problems(values: Mapping[str, str]) -> list[ValidationError]:
    problems: list[ValidationError] = []
    _parse_fields({"gpus": _TARGET_PARSERS["gpus"]}, values, problems)
    return problems


def _build(model: ModelSpec, fields: Mapping[str, object]) -> Workload:
    attributes = {_FIELD_ATTRIBUTE.get(key, key): value for key, value in fields.items()}
    attributes["gpu"] = configure(attributes["gpu"], wired_limit_mb=attributes.pop("wired_limit_mb"),
                                  macos=attributes.pop("macos"))
    if attributes["overhead_bytes"] is None:
        attributes["overhead_bytes"] = runtime_overhead(attributes["runtime"], attributes["enforce_eager"])
    workload = Workload(model=model, **attributes)  # type: ignore[arg-type]
    check_consistency(workload)
    return workload


def suggested_runtime(precision: str, runtime: str, mode: str = "inference") -> str:
    """The engine a weight format runs on, when the one chosen cannot run it: GGUF types on
    llama.cpp, GPU formats on vLLM; otherwise `runtime` unchanged. The page applies it when
    the format is changed, so choosing q4_k_m does not end in an error."""
    if mode == Mode.TRAINING.value:
        return Runtime.TRANSFORMERS.value  # training runs with transformers, whatever the format
    try:
        fmt = parse_format(precision) if isinstance(precision, str) else None
    except ValidationError:
        return runtime
    if fmt is None:
        return runtime
    if fmt.kind == "gguf" and runtime != Runtime.LLAMACPP.value:
        return Runtime.LLAMACPP.value
    if fmt.kind != "gguf" and runtime == Runtime.LLAMACPP.value:
        return Runtime.VLLM.value
    return runtime


def runtime_overhead(runtime: Runtime, enforce_eager: bool) -> int:
    """The memory an engine takes beyond weights, cache and activations, when the user sets none."""
    if runtime is Runtime.VLLM:
        return VLLM_NON_TORCH + (0 if enforce_eager else VLLM_CUDA_GRAPHS)
    if runtime is Runtime.LLAMACPP:
        return LLAMACPP_CUDA_OVERHEAD
    return DEFAULT_OVERHEAD_BYTES


def check_consistency(workload: Workload) -> None:
    """Rules that involve more than one field."""
    if workload.runtime is not Runtime.TRANSFORMERS and workload.is_training:
        raise ValidationError("runtime", workload.runtime.value, "vLLM and llama.cpp serve models; training runs "
                                                                 "with transformers")
    if isinstance(workload.precision, WeightFormat):
        check_format(workload.model, workload.precision, workload.group_size)
    if workload.runtime is Runtime.LLAMACPP and workload.gpu_layers is not None and (
            workload.gpu_layers > workload.model.layers + 1):
        raise ValidationError("gpu_layers", str(workload.gpu_layers),
                              f"at most {workload.model.layers + 1} (the model's {workload.model.layers} layers and "
                              "its output layer)")
    fmt = workload.precision
    if workload.runtime is Runtime.LLAMACPP and isinstance(fmt, WeightFormat) and fmt.kind not in ("gguf",):
        raise ValidationError("precision", fmt.name, "llama.cpp runs GGUF files: choose a GGUF type (q4_k_m, q8_0, "
                                                     "f16, ...) or a nominal precision")
    if workload.is_training and isinstance(fmt, WeightFormat) and fmt.kind == "gguf":
        raise ValidationError("precision", fmt.name, "GGUF files are for llama.cpp inference; training needs fp32, "
                                                     "fp16 or bf16 weights, or nf4/nf4-dq under LoRA (QLoRA)")
    if workload.runtime is not Runtime.LLAMACPP and isinstance(fmt, WeightFormat) and fmt.kind == "gguf":
        raise ValidationError("precision", fmt.name, "GGUF types run on llama.cpp (runtime llamacpp)")
    if workload.is_training:
        _check_training(workload)
    else:
        _check_inference(workload)
    if workload.layout_given:
        parallel.check(_degrees(workload), workload.model, training=workload.is_training)


def _degrees(workload: Workload, dp: int = 1) -> Layout:
    return Layout(tp=workload.tp or 1, pp=workload.pp or 1, dp=workload.dp or dp, ep=workload.ep or 1,
                  cp=workload.cp or 1, sp=workload.sp, vpp=workload.vpp, zero=workload.zero or 0, fsdp=workload.fsdp,
                  offload=workload.offload)


def resolve_layout(workload: Workload, gpus: int) -> Layout:
    """The layout `gpus` GPUs run: the one the workload names (dp from gpus when not given; the
    product must be gpus), or the mode's default (llama.cpp splits layers across GPUs)."""
    if not workload.layout_given:
        if workload.runtime is Runtime.LLAMACPP and gpus > 1:
            return Layout(pp=min(gpus, workload.model.layers))
        return default_layout(workload.model, gpus, training=workload.is_training)
    layout = _degrees(workload)
    if workload.dp is None:
        rest = layout.tp * layout.pp * layout.cp
        if gpus % rest:
            raise ValidationError("gpus", gpus, f"tp × pp × cp = {rest} does not divide the {gpus} GPUs")
        layout = _degrees(workload, dp=gpus // rest)
    parallel.check(layout, workload.model, training=workload.is_training, gpus=gpus)
    return layout


def _check_inference(workload: Workload) -> None:
    """The cache formats of the engine chosen; training-only settings are left alone (the page hides them)."""
    for key in ("kv_precision", "kv_precision_k", "kv_precision_v"):
        kv = getattr(workload, key)
        if kv is None or key != "kv_precision" and workload.runtime is not Runtime.LLAMACPP:
            continue
        allowed = RUNTIME_KV[workload.runtime]
        if kv not in allowed:
            raise ValidationError(key, kv.value, f"{workload.runtime.value} caches keys and values as one of: "
                                                 + ", ".join(p.value for p in allowed))
    if workload.fused_ce:
        raise ValidationError("fused_ce", "1", "fused cross-entropy applies to training only")


def _check_training(workload: Workload) -> None:
    qlora = workload.lora is not None and workload.precision.value in QLORA_FORMATS
    if not workload.precision.is_float and not qlora:
        raise ValidationError(
            "precision",
            workload.precision.value,
            "training needs fp32, fp16 or bf16 weights, or nf4/nf4-dq under LoRA (QLoRA); quantised weights "
            "cannot be trained directly",
        )
    if workload.lora is not None:
        training_adapters(workload.model, workload.lora)  # ranks and targets the model has
        if workload.recipe is Recipe.MIXED or workload.mixed_precision:
            raise ValidationError("recipe" if workload.recipe is Recipe.MIXED else "mixed_precision",
                                  workload.recipe.value or "1", "LoRA keeps its fp32 adapters and needs no master copy")
    if workload.recipe in (Recipe.AMP, Recipe.MIXED) and workload.precision not in (Precision.BF16, Precision.FP16):
        raise ValidationError("precision", workload.precision.value,
                              f"recipe {workload.recipe.value} names the 16-bit compute dtype: bf16 or fp16")
    if workload.optimizer_impl not in allowed_impls(workload.optimizer):
        raise ValidationError("optimizer_impl", workload.optimizer_impl.value,
                              f"{workload.optimizer.value} runs as "
                              + " or ".join(i.value for i in allowed_impls(workload.optimizer) if i.value))
    if workload.recipe is not Recipe.LEGACY and workload.mixed_precision:
        raise ValidationError("mixed_precision", "1", "a recipe says where the master copy is; leave mixed_precision off")
    if workload.mixed_precision and workload.precision is Precision.FP32:
        raise ValidationError(
            "mixed_precision", "1", "mixed precision needs fp16 or bf16 weights (fp32 weights are already the master copy)"
        )
