"""An embedder's or a reranker's memory: the weights and one forward over a batch, no generation.

transformers (sentence-transformers calls the model once per batch): an encoder's forward as measured
(model/families/encoder.py `forward_bytes`); a decoder embedder (Qwen3-Embedding) as the prefill it is, with the
DynamicCache its forward builds (use_cache is the config's default) and no logits. vLLM's pooling runner and
llama.cpp's --embedding run an encoder padding-free over their token budget (max_num_batched_tokens; n_ubatch,
which equals n_batch for embeddings) and keep no KV cache for it: estimated with the same forward."""

from __future__ import annotations

from ..core.choices import Attention
from ..core.phrase import phrase
from ..core.units import format_binary
from ..model.families.encoder import forward_bytes
from ..workload import Workload
from .activations import inference_activations
from .components import Component, no_component, overhead_bytes
from .kv_cache import kv_cache_bytes
from .states import gradients_bytes, master_weights_bytes, optimizer_state_bytes, weights_bytes


def encoder_activations(workload: Workload, batch: int, seq: int, engine: str) -> Component:
    model = workload.model
    e = int(workload.activation_precision.bits) // 8
    size = forward_bytes(model.hidden, model.ffn, model.heads, model.head_dim, model.model_type == "modernbert",
                         e=e, eager=workload.attention is Attention.EAGER and engine == "transformers",
                         batch=batch, seq=seq)
    return Component(key="activations", bytes=size, explain=lambda: phrase(
        "activations.embedding", batch=batch, seq=f"{seq:,}", engine=engine, bytes=format_binary(size)))


def embedding_components(workload: Workload, *, batch: int, seq: int, engine: str,
                         overhead: Component | None = None) -> tuple[Component, ...]:
    """The weights, the KV cache a decoder's forward builds (none for an encoder), one forward's activations
    over `batch` sequences of `seq` tokens, no logits."""
    encoder = workload.model.encoder is not None
    run = workload.but(batch=batch, seq=seq)
    return (
        weights_bytes(workload),
        gradients_bytes(workload),
        optimizer_state_bytes(workload),
        master_weights_bytes(workload),
        no_component("kv_cache", "kv_cache.encoder") if encoder else kv_cache_bytes(run),
        encoder_activations(workload, batch, seq, engine) if encoder else inference_activations(run),
        no_component("logits", "logits.embedding"),
        no_component("temporaries", "temporaries.inference"),
        overhead or overhead_bytes(workload),
    )
