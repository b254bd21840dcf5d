"""The keys of the input layer (links, form, command line), their defaults, limits and parsers."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

from ..core.choices import Attention, Checkpointing, Fsdp, Mode, Offload, Optimizer, OptimizerImpl, Recipe, Runtime
from ..core.dtypes import NOMINAL, Precision
from ..core.errors import ValidationError
from ..core.units import GB, GIB
from ..engines.llamacpp import MAX_PARALLEL
from ..formats.weights import DEFAULT_GROUP_SIZE, WeightFormat, names as format_names, parse_format
from ..sources.gpus import DEFAULT_MACOS, gpu
from ..sources.hf_config import MAX_LAYERS
from ..training.lora import parse_targets


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


def parse_decimal(field: str, text: str, low: float, high: float, *, low_inclusive: bool = True) -> float:
    """A plain decimal number (digits and one point: no exponent, sign, NaN or infinity)."""
    allowed = f"expected a number {'from' if low_inclusive else 'above'} {plain(low)} {'to' if low_inclusive else 'up to'} {plain(high)}"
    if not isinstance(text, str) or not _DECIMAL_RE.fullmatch(text):
        raise ValidationError(field, text, allowed)
    value = float(text)
    too_low = value < low if low_inclusive else value <= low
    if not math.isfinite(value) or too_low or value > high:
        raise ValidationError(field, text, allowed)
    return value


def plain(number: float) -> str:
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


MAX_GROUP_SIZE = 1 << 16


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


MACHINE_PARSERS: Mapping[str, Callable[[str], object]] = {
    "wired_limit_mb": lambda t: None if t.strip() == "" else parse_int("wired_limit_mb", t, 0, 10**7),
    "macos": lambda t: parse_int("macos", t, 1, 99),
}
FIELD_PARSERS: Mapping[str, Callable[[str], object]] = {
    "mode": lambda t: parse_choice("mode", t, Mode),
    "precision": parse_precision,
    "group_size": lambda t: parse_int("group_size", t, 1, MAX_GROUP_SIZE),
    "kv_precision": lambda t: None if t == "" else parse_choice("kv_precision", t, Precision),
    "batch": lambda t: parse_int("batch", t, 1, MAX_BATCH),
    "seq": lambda t: parse_int("seq", t, 1, MAX_SEQ),
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
    **MACHINE_PARSERS,
    "gpu_memory_utilization": lambda t: parse_decimal("gpu_memory_utilization", t, 0.0, 1.0, low_inclusive=False),
    "max_num_batched_tokens": lambda t: None if t.strip() == "" else parse_int("max_num_batched_tokens", t, 1, MAX_SEQ),
    "max_num_seqs": lambda t: None if t.strip() == "" else parse_int("max_num_seqs", t, 1, MAX_BATCH),
    "enforce_eager": lambda t: parse_flag("enforce_eager", t),
    "gpu_layers": lambda t: None if t.strip() == "" else parse_int("gpu_layers", t, 0, MAX_LAYERS + 1),
    "ubatch": lambda t: parse_int("ubatch", t, 1, 65536),
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
FIELD_ATTRIBUTE = {"overhead_gib": "overhead_bytes"}  # keys whose Workload attribute is named by its unit

TARGET_PARSERS: Mapping[str, Callable[[str], object]] = {
    "gpu": gpu,
    "gpus": lambda t: parse_int("gpus", t, 1, MAX_GPUS),
    **MACHINE_PARSERS,
}
CAPACITY_PARSERS: Mapping[str, Callable[[str], object]] = {
    "vram": lambda t: None if t.strip() == "" else round(parse_decimal("vram", t, 0.0, MAX_VRAM_GB, low_inclusive=False) * GB),
    "headroom": lambda t: parse_decimal("headroom", t, 0.0, MAX_HEADROOM_PERCENT) / 100,
}
