"""The original calculator's model of three numbers (parameters, hidden size, layers)."""

from __future__ import annotations

from ..core.errors import ValidationError
from ..core.phrase import phrase
from ..core.units import format_count
from ..model.families.decoder.spec import Block, ModelSpec


def custom_model(
    *,
    params: int,
    hidden: int,
    layers: int,
    heads: int | None = None,
    kv_heads: int | None = None,
    vocab: int | None = None,
    ffn: int | None = None,
) -> ModelSpec:
    """A model from the original calculator's three numbers (plus optional details).

    What is not given is assumed, and each assumption is recorded: multi-head
    attention (so the KV cache is the classic 2·b·s·h·L·bytes), head_dim 128 (or wider: the most heads that
    divide the hidden size),
    a Llama-style gated MLP of width 8h/3, and a 32,000-token vocabulary.
    """
    assumptions = []
    if heads is None:  # the most heads of width 128 or more that divide the hidden size
        heads = max(d for d in range(1, max(1, hidden // 128) + 1) if hidden % d == 0)
        assumptions.append(phrase("assumption.custom.heads", heads=heads, head_dim=hidden // heads))
    if kv_heads is None:
        kv_heads = heads
        assumptions.append(phrase("assumption.custom.kv_heads"))
    if kv_heads > heads or heads % kv_heads:
        raise ValidationError("kv_heads", kv_heads, f"must divide heads ({heads})")
    if vocab is None:
        vocab = 32_000
        assumptions.append(phrase("assumption.custom.vocab", vocab=f"{vocab:,}"))
    if ffn is None:
        ffn = -(-8 * hidden // 3 // 256) * 256
        assumptions.append(phrase("assumption.custom.ffn", ffn=f"{ffn:,}"))
    if hidden % heads:
        # heads·head_dim must equal hidden for the classic KV formula
        raise ValidationError("heads", heads, f"must divide the hidden size ({hidden})")
    if params < layers * hidden * hidden:  # each layer's query projection alone is hidden × hidden
        raise ValidationError("params", format_count(params), f"{layers:,} layers of hidden size {hidden:,} hold at "
                              f"least {format_count(layers * hidden * hidden)} parameters (each query projection)")
    assumptions.append(phrase("assumption.custom.block"))
    return ModelSpec(
        name="custom",
        display_name="Custom model",
        block=Block.LLAMA,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=hidden // heads,
        ffn=ffn,
        vocab=vocab,
        tie_embeddings=False,
        params_override=params,
        assumptions=tuple(assumptions),
    )
