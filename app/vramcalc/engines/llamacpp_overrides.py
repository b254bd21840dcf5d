"""llama.cpp's --override-tensor (-ot): `PATTERN=DEVICE,...`, read as common/arg.cpp reads it, and matched
as llama-model-loader.cpp matches it: std::regex_search of each pattern in order over a tensor's GGUF
name, the first that matches deciding its buffer. Python's re stands in for std::regex (ECMAScript):
syntax where the two differ is refused, and so are patterns whose search could run long, so that no
link can stall the page."""

from __future__ import annotations

import functools
import re

from ..core.errors import ValidationError
from ..model.families.decoder.spec import ModelSpec
from ..model.families.decoder.tensors import layer_tensors

Overrides = tuple[tuple[str, str], ...]  # (pattern, buffer type), the first match wins

MAX_OVERRIDES = 64
MAX_REPEATS = 3  # per pattern: a name of ~30 characters then costs at most ~30^3 steps to search
GPU_BUFFERS = re.compile(r"(CUDA|ROCm|MUSA|Vulkan|MTL|SYCL|CANN|OpenCL)(\d+)")  # ggml's device buffer types
# Syntax where Python's re and std::regex (ECMAScript) part ways: lookbehind, named groups and inline flags
# (std::regex throws), \A \Z \z \G (literal letters there), POSIX classes (a set of ':' here), and a '{'
# that is no quantifier (an error there, a literal here)
_DIALECT = re.compile(r"\(\?(?![:=!])|\\[AZzG]|\[\[:|\{(?!\d+(,\d*)?\})")
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
_LAYER_PREFIX = re.compile(r"blk\.(\d+)\.")


def overrides_text(overrides: Overrides) -> str:
    """The overrides as -ot takes them."""
    return ",".join(f"{pattern}={device}" for pattern, device in overrides)


def parse_overrides(field: str, text: str) -> Overrides:
    """`PATTERN=DEVICE,...` (common/arg.cpp: split at commas, then at the first '='), each device CPU or
    the first GPU's buffer type (CUDA0, ROCm0, Vulkan0, MTL0, SYCL0, ...)."""
    text = text.strip()
    if not text:
        return ()
    items = text.split(",")
    if len(items) > MAX_OVERRIDES or len(text) > 4000:
        raise ValidationError(field, text, f"at most {MAX_OVERRIDES} patterns")
    overrides = []
    for item in items:
        pattern, equals, device = item.partition("=")
        if not equals or not pattern:
            raise ValidationError(field, item, "expected PATTERN=DEVICE, e.g. blk\\.[0-9]+\\.ffn_.*_exps=CPU")
        gpu = GPU_BUFFERS.fullmatch(device)
        if device != "CPU" and gpu is None:
            raise ValidationError(field, device, "the device is CPU or the GPU's buffer type: CUDA0, ROCm0, Vulkan0, "
                                                 "MTL0, SYCL0")
        if gpu is not None and gpu.group(2) != "0":
            raise ValidationError(field, device, "llama.cpp's weights are placed on one GPU here: use its "
                                                 "first device (CUDA0, ROCm0, Vulkan0, MTL0) or CPU")
        if _DIALECT.search(pattern):
            raise ValidationError(field, pattern, "uses syntax llama.cpp's regular expressions (ECMAScript) read "
                                                  "otherwise: (?<..), (?P..), (?i), \\A, \\Z, [[:..:]] or a bare {")
        try:
            parsed = re._parser.parse(pattern).data  # type: ignore[attr-defined]
        except re.error as error:
            raise ValidationError(field, pattern, f"not a regular expression ({error})") from None
        if _slow(parsed, inside=False) or _repeats(parsed) > MAX_REPEATS:
            raise ValidationError(field, pattern, "a repetition of a repetition or of alternatives, e.g. (a+)+ "
                                                  f"or (a|b)*, or more than {MAX_REPEATS} repetitions, can take "
                                                  "very long to search: write the pattern without them")
        overrides.append((pattern, device))
    return tuple(overrides)


def _is_repeat(op: object, arg: object) -> bool:
    """Whether a parsed item repeats something more than once."""
    return str(op) in _REPEATS and isinstance(arg, tuple) and arg[1] > 1


def _children(arg: object) -> list[list[tuple[object, object]]]:
    """The parsed sub-patterns inside one item's argument."""
    found = []
    for child in arg if isinstance(arg, (tuple, list)) else ():
        for sub in (child if isinstance(child, list) else [child]):
            if hasattr(sub, "data"):
                found.append(sub.data)
    return found


def _slow(items: list[tuple[object, object]], *, inside: bool) -> bool:
    """Whether a parsed pattern repeats (more than once) something that itself repeats or branches."""
    for op, arg in items:
        repeat = _is_repeat(op, arg)
        if inside and (repeat or str(op) == "BRANCH"):
            return True
        if any(_slow(sub, inside=inside or repeat) for sub in _children(arg)):
            return True
    return False


def _repeats(items: list[tuple[object, object]]) -> int:
    """How many repetitions (of more than one) a parsed pattern holds."""
    return sum(_is_repeat(op, arg) + sum(_repeats(sub) for sub in _children(arg)) for op, arg in items)


def device_of(name: str, overrides: Overrides) -> bool | None:
    """Where the tensor `name` goes: on the GPU (True), in RAM (False) or, matched by no pattern, where
    its layer is (None)."""
    for pattern, device in overrides:
        if re.search(pattern, name):
            return device != "CPU"
    return None


def _only_layer(pattern: str) -> int | None:
    """N, when the pattern can find only layer N's tensors: parsed, it begins with the literal characters
    `blk.N.` and has no alternative at its top (names hold `blk.` once, at their start); else None."""
    try:
        items = re._parser.parse(pattern).data  # type: ignore[attr-defined]
    except re.error:
        return None
    if any(str(op) == "BRANCH" for op, _ in items):
        return None
    head = ""
    for op, arg in items:
        if str(op) != "LITERAL":
            break
        head += chr(arg)
    match = _LAYER_PREFIX.match(head)
    return int(match.group(1)) if match else None


@functools.lru_cache(maxsize=64)
def layer_devices(spec: ModelSpec, overrides: Overrides) -> tuple[tuple[bool | None, ...], ...]:
    """device_of every tensor of every layer (in layer_tensors order), named as in the GGUF file (blk.N.…),
    matched once; each layer tries only the patterns that can find it (in their order), so that one
    pattern per layer (llama.cpp's own fit writes such lists) costs a pass over the tensors, not
    layers × patterns searches."""
    names = {key: [t.name.split(".", 2)[2] for t in layer_tensors(spec, index)] for key, index, _ in spec.layer_groups}
    layer_of = [_only_layer(pattern) for pattern, _ in overrides]
    devices = []
    for i, key in enumerate(spec.layer_keys):
        tried = tuple(o for o, layer in zip(overrides, layer_of, strict=True) if layer is None or layer == i)
        devices.append(tuple(device_of(f"blk.{i}.{name}", tried) for name in names[key]) if tried
                       else (None,) * len(names[key]))
    return tuple(devices)
