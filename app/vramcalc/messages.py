"""Every user-facing sentence of the engine, in one catalogue, so that the page
and the command line can be translated without touching a formula.
Templates use str.format with the names the formulas pass."""

from __future__ import annotations

from collections.abc import Mapping

EN: Mapping[str, str] = {
    # component labels
    "weights": "Weights",
    "gradients": "Gradients",
    "optimizer": "Optimizer state",
    "master_weights": "Master weights (fp32)",
    "kv_cache": "KV cache",
    "activations": "Activations",
    "logits": "Logits",
    "overhead": "Framework overhead",
    # formulas in words
    "weights.formula": "{params} parameters × {bits} bits ({precision}) = {bytes}",
    "gradients.formula": "{params} parameters × {bits} bits (one gradient per weight, {precision}) = {bytes}",
    "gradients.none": "inference keeps no gradients",
    "optimizer.formula": "{params} parameters × {per_param} bytes ({optimizer}: {what}) = {bytes}",
    "optimizer.none": "inference keeps no optimizer state",
    "optimizer.sgd": "plain SGD keeps no state",
    "optimizer.adam_state": "momentum + variance in fp32",
    "optimizer.sgd_momentum_state": "momentum in fp32",
    "master_weights.formula": "{params} parameters × 4 bytes (fp32 copy kept by mixed precision) = {bytes}",
    "master_weights.none": "only with mixed-precision training",
    "kv_cache.formula": (
        "2 (K and V) × {layers} layers × {kv_heads} KV heads × {head_dim} head dim × "
        "{batch} × {seq} tokens × {bits} bits ({precision}) = {bytes}"
    ),
    "kv_cache.none": "training runs without a KV cache",
    "activations.training": (
        "{batch} × {seq} tokens × ({layers_kept} layers × {per_layer} B/token/layer{recompute} "
        "+ {outside} B/token outside the layers){constant} = {bytes}; {attention} attention, {checkpointing}"
    ),
    "activations.recompute": " + 1 layer recomputed in backward at {per_layer_full} B/token",
    "activations.constant": " + {constant_bytes} shared by the batch (rotary tables, positions)",
    "activations.inference": (
        "peak of one layer during a {seq}-token prefill: {batch} × {seq} tokens × {per_token} B/token ({attention} attention)"
        " = {bytes}; layers run one after another, so only one layer's temporaries are live"
    ),
    "logits.training": (
        "{batch} × {seq} tokens × {vocab} vocabulary × {per_value} B "
        "(fp32 log-softmax kept for the loss + the {precision} logits returned) = {bytes}"
    ),
    "logits.inference": "{batch} × {vocab} vocabulary × 4 B (fp32 logits of the last position only) = {bytes}",
    "overhead.formula": "CUDA context, cuBLAS workspaces and allocator slack: {gib} GiB, set by you (default 1 GiB)",
    # checkpointing and attention in words
    "checkpointing.none": "no checkpointing",
    "checkpointing.layer": "per-layer checkpointing (layer inputs kept)",
    "checkpointing.sqrt": "sqrt(L) checkpointing: {segments} segments of {segment_layers} layers",
    "attention.eager": "eager",
    "attention.flash": "flash",
    # notes
    "note.seq_over_context": "Sequence length {seq:,} is longer than the model's context of {context:,} tokens.",
    "note.moe": "Mixture of experts: all {total} parameters are held in memory; {active} are used per token.",
    "note.quantised": "{precision} weights: nominal {bits} bits per weight, without quantisation scales (+0.1–0.5 bit in GPTQ, AWQ, GGUF).",
    "note.assumption": "Assumed: {text}",
}


def message(key: str, **values: object) -> str:
    return EN[key].format(**values)
