"""The logits of the output head, and the chunk a fused cross-entropy works in."""

from __future__ import annotations

from ..core.dtypes import FP32_BYTES
from ..core.phrase import phrase
from ..core.units import format_binary
from ..workload import Workload
from .components import Component


def logits_bytes(workload: Workload) -> Component:
    """Logits. Training: the loss upcasts to fp32 and log-softmax keeps its fp32 output
    (4 B per value), and the model returns the logits in the compute type (e); Gemma 2's
    final soft-cap keeps one more e-byte tanh. Inference: fp32 logits of the last
    position only, as HF `generate` and vLLM compute them."""
    model = workload.model
    if not workload.is_training:
        num_bytes = workload.batch * model.vocab * FP32_BYTES
        return Component(
            key="logits", bytes=num_bytes,
            explain=lambda: phrase("logits.inference", batch=workload.batch, vocab=f"{model.vocab:,}",
                                   bytes=format_binary(num_bytes)),
        )
    e = int(workload.activation_precision.bits) // 8
    if workload.fused_ce:
        tokens = workload.batch * workload.seq
        chunk = fused_ce_chunk(tokens, model.vocab, model.hidden)
        num_bytes = chunk * model.vocab * (FP32_BYTES + e) + tokens * model.hidden * FP32_BYTES
        return Component(key="logits", bytes=num_bytes, explain=lambda: phrase(
            "logits.fused", chunk=f"{chunk:,}", vocab=f"{model.vocab:,}", tokens=f"{tokens:,}",
            bytes=format_binary(num_bytes)))
    per_value = FP32_BYTES + e + (e if model.final_logit_softcap else 0)
    num_bytes = workload.batch * workload.seq * model.vocab * per_value
    return Component(
        key="logits", bytes=num_bytes,
        explain=lambda: phrase(
            "logits.training", batch=workload.batch, seq=f"{workload.seq:,}", vocab=f"{model.vocab:,}",
            per_value=per_value, precision=workload.activation_precision.value, bytes=format_binary(num_bytes),
        ),
    )


def fused_ce_chunk(tokens: int, vocab: int, hidden: int) -> int:
    """Liger's fused linear cross-entropy materialises the logits of one chunk of tokens at a time:
    chunk = next power of two of ceil(tokens / ceil(vocab / hidden)) (liger_kernel
    fused_linear_cross_entropy.py), so a chunk's logits are about the size of the hidden states."""
    chunk = -(-tokens // -(-vocab // hidden))
    return 1 << (chunk - 1).bit_length()
