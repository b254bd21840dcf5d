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
    if workload.ce_output_chunks:
        kept = chunked_output_loss(workload)[0]
        return Component(key="logits", bytes=kept, explain=lambda: phrase(
            "logits.chunked_compiled" if workload.compile else "logits.chunked",
            chunks=min(workload.ce_output_chunks, workload.seq), tokens=f"{workload.batch * workload.seq:,}",
            vocab=f"{model.vocab:,}", per_value=FP32_BYTES + e, e=e, precision=workload.activation_precision.value,
            bytes=format_binary(kept)))
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


def chunked_output_loss(workload: Workload) -> tuple[int, int, int]:
    """torchtune's CEWithChunkedOutputLoss (torchtune 0.6.1 modules/loss/ce_chunked_output_loss.py; its decoder's
    chunked_output): the head makes the bf16 logits of each of N chunks of positions (`h.chunk(N, dim=1)`), all
    returned; the loss upcasts one chunk at a time and the recipe deletes the list after the loss (`del logits`).
    (at the forward's end, at the loss backward's worst, that backward's transient), measured with
    tools/measure_chunked_loss.py:
    eager: every chunk's fp32 log-softmax (4 B) beside the bf16 logits (e B) at the forward's end, the log-softmax
    alone once the logits are deleted, and one chunk's two fp32 gradients (8 B) at a time;
    compiled (compile: torchtune compiles compute_cross_entropy): the compiled loss keeps each chunk's bf16 logits
    and two fp32 values per token (its max and log-sum-exp), and its backward kernel writes one chunk's gradient in
    the compute type (read from the backward graph; inductor's kernels are not tracked on the CPU)."""
    model = workload.model
    e = int(workload.activation_precision.bits) // 8
    tokens = workload.batch * workload.seq
    # torch.chunk: ceil(seq / N) positions a chunk (so at most seq chunks)
    chunk = workload.batch * -(-workload.seq // workload.ce_output_chunks)
    if workload.compile:
        kept = tokens * model.vocab * e + 2 * FP32_BYTES * tokens
        return kept, kept, chunk * model.vocab * e
    return tokens * model.vocab * (FP32_BYTES + e), tokens * model.vocab * FP32_BYTES, chunk * model.vocab * 8


def fused_ce_chunk(tokens: int, vocab: int, hidden: int) -> int:
    """Liger's fused linear cross-entropy materialises the logits of one chunk of tokens at a time:
    chunk = next power of two of ceil(tokens / ceil(vocab / hidden)) (liger_kernel
    fused_linear_cross_entropy.py), so a chunk's logits are about the size of the hidden states."""
    chunk = -(-tokens // -(-vocab // hidden))
    return 1 << (chunk - 1).bit_length()
