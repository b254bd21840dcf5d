"""The discrete choices of a workload, one enum each; values are the names used
on the command line, in links and in the form."""

from __future__ import annotations

import enum


class Mode(enum.Enum):
    INFERENCE = "inference"
    """Weights + KV cache + one layer's transient activations + last-token logits."""
    TRAINING = "training"
    """Weights + gradients + optimizer state (+ master weights) + stored activations + logits."""


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


class Optimizer(enum.Enum):
    ADAMW = "adamw"
    """AdamW: first and second moments in fp32, 4 + 4 = 8 bytes per parameter."""
    ADAM = "adam"
    """Adam: same state as AdamW, 8 bytes per parameter."""
    SGD_MOMENTUM = "sgd-momentum"
    """SGD with momentum: one momentum buffer."""
    SGD = "sgd"
    """Plain SGD: no state."""
    ADAMW_8BIT = "adamw-8bit"
    """bitsandbytes AdamW8bit: two 8-bit moments with blockwise fp32 scales (about 2 bytes per parameter)."""
    PAGED_ADAMW_8BIT = "paged-adamw-8bit"
    """The same in paged memory: under pressure its state moves to host memory instead of failing."""
    PAGED_ADAMW = "paged-adamw"
    """bitsandbytes paged AdamW with 32-bit state."""
    ADAFACTOR = "adafactor"
    """Adafactor without momentum: factored second moments (a row and a column per matrix)."""
    LION = "lion"
    """Lion: one momentum buffer."""


class OptimizerImpl(enum.Enum):
    """How the update runs over the tensors (its temporaries differ: step.py)."""

    DEFAULT = ""
    """The optimizer's own: torch.optim's foreach on GPU, bitsandbytes' one kernel per tensor,
    transformers' Adafactor and lion-pytorch's loops."""
    FOREACH = "foreach"
    FUSED = "fused"
    FOR_LOOP = "for-loop"


FP32_BYTES = 4
PAGED = frozenset({Optimizer.PAGED_ADAMW, Optimizer.PAGED_ADAMW_8BIT})


class Checkpointing(enum.Enum):
    NONE = "none"
    """Every layer's activations are kept for the backward pass."""
    LAYER = "layer"
    """Per-layer (PyTorch / Hugging Face `gradient_checkpointing_enable`): keep each
    layer's input; recompute one layer at a time in backward."""
    SQRT = "sqrt"
    """Chen et al. 2016: ceil(sqrt(L)) segments; keep segment inputs, recompute one segment."""


class Attention(enum.Enum):
    EAGER = "eager"
    """Plain matmul + softmax: stores the s x s attention probabilities."""
    FLASH = "flash"
    """FlashAttention / SDPA: stores only the output and the softmax log-sum-exp."""
