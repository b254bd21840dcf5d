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
    """Storage format of a value; `bits` is the nominal size of one element."""

    FP32 = "fp32"
    FP16 = "fp16"
    BF16 = "bf16"
    INT8 = "int8"
    INT4 = "int4"
    INT2 = "int2"

    @property
    def bits(self) -> int:
        return _PRECISION_BITS[self]

    @property
    def is_float(self) -> bool:
        return self in (Precision.FP32, Precision.FP16, Precision.BF16)

    def bytes_for(self, count: int) -> int:
        """Bytes to store `count` values, rounded up to whole bytes."""
        return -(-count * self.bits // 8)


_PRECISION_BITS = {
    Precision.FP32: 32,
    Precision.FP16: 16,
    Precision.BF16: 16,
    Precision.INT8: 8,
    Precision.INT4: 4,
    Precision.INT2: 2,
}


class Optimizer(enum.Enum):
    ADAMW = "adamw"
    """AdamW: first and second moments in fp32, 4 + 4 = 8 bytes per parameter."""
    ADAM = "adam"
    """Adam: same state as AdamW, 8 bytes per parameter."""
    SGD_MOMENTUM = "sgd-momentum"
    """SGD with momentum: one fp32 momentum buffer, 4 bytes per parameter."""
    SGD = "sgd"
    """Plain SGD: no state."""

    @property
    def state_bytes_per_param(self) -> int:
        return _OPTIMIZER_STATE_BYTES[self]


FP32_BYTES = 4
_OPTIMIZER_STATE_BYTES = {
    Optimizer.ADAMW: FP32_BYTES + FP32_BYTES,  # momentum + variance (ZeRO paper §3.1)
    Optimizer.ADAM: FP32_BYTES + FP32_BYTES,
    Optimizer.SGD_MOMENTUM: FP32_BYTES,  # momentum
    Optimizer.SGD: 0,
}


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
