"""Numeric formats: the nominal precisions (bits per value) and the KV-cache formats."""

from __future__ import annotations

import enum


class Precision(enum.Enum):
    """Storage format of a value, as blocks of `values` stored in `bytes` (q8_0: 32 values in 34
    bytes, with their fp16 scale). The first six are also the nominal weight precisions of the
    first version (every parameter at that many bits); fp8 and the llama.cpp block types are
    KV-cache formats (weights use formats.py)."""

    FP32 = "fp32"
    FP16 = "fp16"
    BF16 = "bf16"
    INT8 = "int8"
    INT4 = "int4"
    INT2 = "int2"
    FP8 = "fp8"  # e4m3 or e5m2: vLLM and SGLang's kv_cache_dtype
    Q8_0 = "q8_0"  # llama.cpp --cache-type-k/-v (ggml-common.h block_q8_0: fp16 scale + 32 int8)
    Q5_1 = "q5_1"  # fp16 scale and min + 4 bytes of high bits + 16 bytes of nibbles per 32
    Q4_0 = "q4_0"  # fp16 scale + 16 bytes of nibbles per 32

    @property
    def bits(self) -> int | float:
        values, nbytes = _PRECISION_BLOCK[self]
        bits = 8 * nbytes / values
        return int(bits) if bits == int(bits) else bits

    @property
    def is_float(self) -> bool:
        return self in (Precision.FP32, Precision.FP16, Precision.BF16)

    @property
    def mlp_only(self) -> bool:
        """Read like a WeightFormat's: a nominal precision stores every weight alike."""
        return False

    def bytes_for(self, count: int) -> int:
        """Bytes to store `count` values: whole blocks, and whole bytes."""
        values, nbytes = _PRECISION_BLOCK[self]
        return -(-count // values) * nbytes if values > 1 and nbytes > 1 else -(-count * nbytes // values)


NOMINAL = (Precision.FP32, Precision.FP16, Precision.BF16, Precision.INT8, Precision.INT4, Precision.INT2)
"""The values the `precision` key had in the first version: every parameter at that many bits."""

KV_FORMATS = (Precision.FP16, Precision.BF16, Precision.FP8, Precision.Q8_0, Precision.Q5_1, Precision.Q4_0,
              Precision.INT8, Precision.INT4, Precision.FP32, Precision.INT2)
"""The KV-cache formats, in the order the page offers them (int8/int4: nominal, scales not included)."""

_PRECISION_BLOCK = {
    Precision.FP32: (1, 4),
    Precision.FP16: (1, 2),
    Precision.BF16: (1, 2),
    Precision.INT8: (1, 1),
    Precision.INT4: (2, 1),
    Precision.INT2: (4, 1),
    Precision.FP8: (1, 1),
    Precision.Q8_0: (32, 34),
    Precision.Q5_1: (32, 24),
    Precision.Q4_0: (32, 18),
}


FP32_BYTES = 4
