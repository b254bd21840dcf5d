"""Read a weight file's header, never its data: every tensor's name, shape, type and bytes.

GGUF (llama.cpp's `gguf/gguf.h`, version 2 and 3): "GGUF", the version, the tensor and key counts, the
key-value metadata (typed values, arrays), then per tensor its name, its dimensions (innermost first,
ggml's `ne`), its ggml type and the offset of its data. A tensor's bytes follow from its type's block
layout (ggml_types.py). safetensors: a little-endian u64 N, then N bytes of JSON naming each tensor's
dtype, shape and `data_offsets`, whose difference is its bytes exactly. A sharded safetensors model's
`model.safetensors.index.json` names each tensor's file and the total size, but no shapes.

Each reader takes the bytes read so far from the file's start; when the header runs past them it raises
`Truncated` with the length to read next, so a caller (the command line; the page with `File.slice`)
reads only as much of a multi-gigabyte file as its header takes. Everything else that is wrong raises
ValidationError naming the field "weights".
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re
import struct
from collections.abc import Mapping

from ..core.errors import ValidationError
from .ggml_types import GGML_TYPES

MAX_HEADER_BYTES = 256 * 2**20  # a GGUF's metadata holds its tokenizer: megabytes, never this
MAX_SAFETENSORS_HEADER = 100_000_000  # the safetensors library's own limit (MAX_HEADER_SIZE)
MAX_TENSORS = 100_000  # a GGUF holds a few thousand (experts merged), a safetensors shard fewer
MAX_KEYS = 10_000  # a GGUF's metadata: tens of keys
MAX_STRINGS = 1_000_000  # strings in a GGUF's arrays, all told: Llama 3's tokenizer holds 128,256 tokens and
# 280,147 merges; walking each is what a header costs, so more than any real file holds is refused in words
MAX_DIMS = 8
MAX_TENSOR_BYTES = 2**44  # 16 TiB: the largest real tensors (merged experts) take a few GB
MAX_NAME = 4096
FIELD = "weights"
MAX_JSON_DEPTH = 32  # nesting of a header's or an index's arrays and objects; real ones have 3

# GGML_TYPE_* numbers (ggml/include/ggml.h) -> the names of ggml_types.GGML_TYPES; those it lacks added here
GGML_TYPE_IDS: dict[int, str] = {
    0: "f32", 1: "f16", 2: "q4_0", 3: "q4_1", 6: "q5_0", 7: "q5_1", 8: "q8_0", 9: "q8_1", 10: "q2_k", 11: "q3_k",
    12: "q4_k", 13: "q5_k", 14: "q6_k", 15: "q8_k", 16: "iq2_xxs", 17: "iq2_xs", 18: "iq3_xxs", 19: "iq1_s",
    20: "iq4_nl", 21: "iq3_s", 22: "iq2_s", 23: "iq4_xs", 24: "i8", 25: "i16", 26: "i32", 27: "i64", 28: "f64",
    29: "iq1_m", 30: "bf16", 34: "tq1_0", 35: "tq2_0", 39: "mxfp4", 40: "nvfp4", 41: "q1_0",
}
_MORE_LAYOUTS = {"q8_1": (32, 40), "q8_k": (256, 292), "i8": (1, 1), "i16": (1, 2), "i32": (1, 4), "i64": (1, 8),
                 "f64": (1, 8), "nvfp4": (64, 36), "q1_0": (128, 18)}
LAYOUTS = {**GGML_TYPES, **_MORE_LAYOUTS}

# safetensors dtypes -> bits per element (`safetensors::Dtype`); F4/F6 pack several per byte
SAFETENSORS_BITS = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16,
                    "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "I64": 64, "U64": 64, "F64": 64,
                    "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "C64": 64}


class Truncated(Exception):
    """The header runs past the bytes given: read at least `needed` bytes from the start and try again."""

    def __init__(self, needed: int) -> None:
        super().__init__(needed)
        self.needed = needed


@dataclasses.dataclass(frozen=True)
class FileTensor:
    name: str
    shape: tuple[int, ...]  # PyTorch order (outermost first), as config-derived tensors are
    dtype: str  # a ggml type (q4_k, f16, ...) or a safetensors dtype (BF16, F8_E4M3, ...)
    nbytes: int


@dataclasses.dataclass(frozen=True)
class Header:
    kind: str  # "gguf" or "safetensors"
    tensors: tuple[FileTensor, ...]
    metadata: Mapping[str, object]  # GGUF's key-values (arrays as their length and first items); safetensors'
    # __metadata__
    header_bytes: int  # how much of the file the header took

    @property
    def nbytes(self) -> int:
        return sum(t.nbytes for t in self.tensors)


def read_header(data: bytes, name: str = "") -> Header:
    """The header of a GGUF or safetensors file whose first bytes are `data`."""
    if data[:4] == b"GGUF":
        return read_gguf(data)
    if len(data) < 8:
        raise Truncated(8)
    if name.endswith(".gguf"):
        raise ValidationError(FIELD, name, "not a GGUF file: it does not start with 'GGUF'")
    return read_safetensors(data)


# ---------------------------------------------------------------- GGUF

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_U64 = struct.Struct("<Q")
ARRAY_KEPT = 8  # items of an array kept in the metadata (a tokenizer's 150,000 tokens are not)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0
        self.strings_left = MAX_STRINGS

    def take(self, n: int) -> bytes:
        end = self.at + n
        if end > len(self.data):
            if end > MAX_HEADER_BYTES:
                raise ValidationError(FIELD, f"{end:,} bytes", f"a header larger than {MAX_HEADER_BYTES:,} bytes")
            raise Truncated(max(end, 2 * len(self.data)))
        chunk = self.data[self.at:end]
        self.at = end
        return chunk

    def unpack(self, fmt: str) -> object:
        value: object = struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]
        return value

    def u32(self) -> int:
        (value,) = struct.unpack("<I", self.take(4))
        return int(value)

    def u64(self) -> int:
        (value,) = struct.unpack("<Q", self.take(8))
        return int(value)

    def count(self, what: str, limit: int) -> int:
        n = self.u64()
        if n > limit:
            raise ValidationError(FIELD, f"{n:,} {what}", f"more {what} than any real GGUF file holds ({limit:,})")
        return n

    def string(self) -> str:
        raw = self.take(self.count("bytes in a string", MAX_HEADER_BYTES))
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("utf-8", "replace")

    def skip_strings(self, n: int) -> None:
        """Past n strings, reading only their lengths (a tokenizer's 150,000 tokens, quickly)."""
        data, at = self.data, self.at
        for _ in range(n):
            if at + 8 > len(data):
                self.take(at + 8 - self.at)  # raises Truncated, or refuses a header past MAX_HEADER_BYTES
            at += 8 + _U64.unpack_from(data, at)[0]
        self.take(at - self.at)

    def value(self, kind: int, depth: int = 0) -> object:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY and depth == 0:
            inner = self.u32()
            n = self.count("array items", MAX_HEADER_BYTES)
            if inner in _SCALARS:  # skip the numbers at once: a tokenizer's scores are 150,000 of them
                size = struct.calcsize(_SCALARS[inner])
                kept = [struct.unpack_from(_SCALARS[inner], self.take(size))[0] for _ in range(min(n, ARRAY_KEPT))]
                self.take(size * (n - len(kept)))
                return {"length": n, "items": kept}
            if inner == _STRING:
                if n > self.strings_left:
                    raise ValidationError(FIELD, f"{n:,} strings in an array",
                                          f"more strings than any real GGUF file holds ({MAX_STRINGS:,} in all)")
                self.strings_left -= n
                kept = [self.string() for _ in range(min(n, ARRAY_KEPT))]
                self.skip_strings(n - len(kept))
                return {"length": n, "items": kept}
            items = [self.value(inner, depth + 1) for _ in range(n)]
            return {"length": n, "items": items[:ARRAY_KEPT]}
        raise ValidationError(FIELD, f"value type {kind}", "not a GGUF value type (0 to 12, arrays not nested)")


def read_gguf(data: bytes) -> Header:
    r = _Reader(data)
    if r.take(4) != b"GGUF":
        raise ValidationError(FIELD, data[:4].hex(), "not a GGUF file: it does not start with 'GGUF'")
    version = r.u32()
    if version not in (2, 3):
        raise ValidationError(FIELD, f"GGUF version {version}", "only GGUF versions 2 and 3 are read")
    n_tensors = r.count("tensors", MAX_TENSORS)
    n_keys = r.count("metadata keys", MAX_KEYS)
    metadata: dict[str, object] = {}
    for _ in range(n_keys):
        key = r.string()
        if key in metadata:  # llama.cpp's gguf.cpp refuses the file: "duplicate key"
            raise ValidationError(FIELD, key[:100], "a metadata key given twice (llama.cpp refuses the file)")
        metadata[key] = r.value(r.u32())
    alignment = metadata.get("general.alignment", 32)
    if not isinstance(alignment, int) or alignment <= 0 or alignment % 8:
        raise ValidationError(FIELD, f"general.alignment = {alignment}", "must be a positive multiple of 8")
    infos = []
    for _ in range(n_tensors):
        name = r.string()
        if len(name) > MAX_NAME:
            raise ValidationError(FIELD, name[:40] + "...", f"a tensor name longer than {MAX_NAME} characters")
        n_dims = r.u32()
        if not 1 <= n_dims <= MAX_DIMS:
            raise ValidationError(FIELD, f"{name}: {n_dims} dimensions", f"expected 1 to {MAX_DIMS}")
        ne = tuple(r.u64() for _ in range(n_dims))
        type_id = r.u32()
        r.u64()  # the data offset: the tensor's bytes come from its type and shape
        ggml_type = GGML_TYPE_IDS.get(type_id)
        if ggml_type is None:
            raise ValidationError(FIELD, f"{name}: ggml type {type_id}", "not a ggml type this calculator knows")
        infos.append(FileTensor(name, ne[::-1], ggml_type, _ggml_bytes(name, ne, ggml_type)))
    header_bytes = r.at + (-r.at) % alignment
    return Header("gguf", tuple(infos), metadata, header_bytes)


def _ggml_bytes(name: str, ne: tuple[int, ...], ggml_type: str) -> int:
    per_block, block_bytes = LAYOUTS[ggml_type]
    if ne[0] % per_block:
        raise ValidationError(FIELD, f"{name}: {ne[0]:,} values per row",
                              f"{ggml_type} stores rows in blocks of {per_block}")
    return _bounded(name, math.prod(ne[1:]) * (ne[0] // per_block) * block_bytes)


def _bounded(name: str, nbytes: int) -> int:
    """A tensor's bytes, refused when no file could hold them (a lying header's shape)."""
    if nbytes > MAX_TENSOR_BYTES:
        raise ValidationError(FIELD, f"{name}: {nbytes:,} bytes", "a tensor larger than any real weight file")
    return nbytes


# ---------------------------------------------------------------- safetensors


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')


def _json(text: str, what: str) -> object:
    """JSON text checked for nesting before it is parsed (a deep one exhausts the parser's stack: a RecursionError,
    or the page's interpreter dies of it)."""
    depth = itertools.accumulate((c in "[{") - (c in "]}") for c in re.sub(r"[^\[\]{}]", "", _STRINGS.sub("", text)))
    if max(depth, default=0) > MAX_JSON_DEPTH:
        raise ValidationError(FIELD, what, f"nested more than {MAX_JSON_DEPTH} levels deep: not a real one")
    return json.loads(text)


def read_safetensors(data: bytes) -> Header:
    if len(data) < 8:
        raise Truncated(8)
    (length,) = struct.unpack("<Q", data[:8])
    if length > MAX_SAFETENSORS_HEADER:
        raise ValidationError(FIELD, f"a {length:,}-byte header", "not a safetensors file (nor a GGUF one)")
    if len(data) < 8 + length:
        raise Truncated(8 + length)
    try:
        parsed = _json(data[8:8 + length].decode("utf-8"), "the header")
    except ValidationError:
        raise
    except (UnicodeDecodeError, ValueError):
        raise ValidationError(FIELD, "the header", "not a safetensors file: its header is not JSON") from None
    if not isinstance(parsed, dict):
        raise ValidationError(FIELD, "the header", "not a safetensors file: its header is not a JSON object")
    metadata = parsed.pop("__metadata__", None) or {}
    if len(parsed) > MAX_TENSORS:
        raise ValidationError(FIELD, f"{len(parsed):,} tensors",
                              f"more than any real safetensors file holds ({MAX_TENSORS:,})")
    tensors = []
    for name, info in parsed.items():
        tensors.append(_safetensor(name, info))
    return Header("safetensors", tuple(tensors), metadata if isinstance(metadata, dict) else {}, 8 + length)


def _safetensor(name: str, info: object) -> FileTensor:
    if not isinstance(info, dict):
        raise ValidationError(FIELD, name, "a safetensors entry must be an object with dtype, shape, data_offsets")
    dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if dtype not in SAFETENSORS_BITS:
        raise ValidationError(FIELD, f"{name}: dtype {dtype!r}", "not a safetensors dtype")
    if (not isinstance(shape, list) or len(shape) > MAX_DIMS
            or any(isinstance(d, bool) or not isinstance(d, int) or d < 0 for d in shape)):
        raise ValidationError(FIELD, f"{name}: shape {shape!r}", "expected a list of sizes")
    if (not isinstance(offsets, list) or len(offsets) != 2
            or any(isinstance(o, bool) or not isinstance(o, int) for o in offsets)
            or not 0 <= offsets[0] <= offsets[1]):
        raise ValidationError(FIELD, f"{name}: data_offsets {offsets!r}", "expected [start, end]")
    nbytes = _bounded(name, offsets[1] - offsets[0])
    expected = math.ceil(math.prod(shape) * SAFETENSORS_BITS[dtype] / 8)
    if nbytes != expected:
        raise ValidationError(FIELD, f"{name}: {nbytes:,} bytes",
                              f"its shape {shape} in {dtype} takes {expected:,} bytes")
    return FileTensor(name, tuple(shape), dtype, nbytes)


def read_safetensors_index(text: str) -> tuple[int, Mapping[str, str]]:
    """`model.safetensors.index.json`: (metadata.total_size, tensor name -> shard file)."""
    try:
        parsed = _json(text, "model.safetensors.index.json")
    except ValidationError:
        raise
    except ValueError:
        raise ValidationError(FIELD, "model.safetensors.index.json", "not JSON") from None
    metadata = parsed.get("metadata") if isinstance(parsed, dict) else None
    total = metadata.get("total_size") if isinstance(metadata, dict) else None
    weight_map = parsed.get("weight_map") if isinstance(parsed, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise ValidationError(FIELD, "model.safetensors.index.json", "expected a weight_map of tensor -> file")
    if not isinstance(total, int) or isinstance(total, bool) or total < 0:
        raise ValidationError(FIELD, "model.safetensors.index.json", "expected metadata.total_size in bytes")
    for shard in set(weight_map.values()):  # a path elsewhere (/dev/stdin waits for input; --hf puts it in a URL)
        if shard in ("", ".", "..") or "/" in shard or "\\" in shard:
            raise ValidationError(FIELD, shard[:100], "a shard is a file beside the index, named without a folder")
    return total, weight_map
