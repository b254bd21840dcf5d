"""Where a `ModelSpec` comes from: a preset (a Hugging Face config.json stored
verbatim under data/models/, with its source), any config.json a user supplies
(read by `hf_config`), or the original calculator's custom numbers."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from importlib import resources

from .architecture import Block, ModelSpec
from .errors import ValidationError
from .hf_config import MAX_DIM, MAX_EXPERTS, MAX_HEADS, MAX_LAYERS, from_hf_config

__all__ = ["Block", "ModelSpec", "from_hf_config", "custom_model", "load_presets", "preset_spec", "Preset",
           "MAX_DIM", "MAX_EXPERTS", "MAX_HEADS", "MAX_LAYERS"]


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
    attention (so the KV cache is the classic 2·b·s·h·L·bytes), head_dim 128,
    a Llama-style gated MLP of width 8h/3, and a 32,000-token vocabulary.
    """
    assumptions = []
    if heads is None:
        heads = max(1, hidden // 128)
        assumptions.append(f"heads not given: assumed {heads} (head_dim 128)")
    if kv_heads is None:
        kv_heads = heads
        assumptions.append("KV heads not given: assumed multi-head attention (KV heads = heads)")
    if kv_heads > heads or heads % kv_heads:
        raise ValidationError("kv_heads", kv_heads, f"must divide heads ({heads})")
    if vocab is None:
        vocab = 32_000
        assumptions.append("vocabulary not given: assumed 32,000 tokens")
    if ffn is None:
        ffn = -(-8 * hidden // 3 // 256) * 256
        assumptions.append(f"FFN size not given: assumed {ffn:,} (gated MLP, about 8h/3)")
    if hidden % heads:
        # heads·head_dim must equal hidden for the classic KV formula
        raise ValidationError("heads", heads, f"must divide the hidden size ({hidden})")
    assumptions.append("Llama-style block (RMSNorm, rotary, gated MLP) for activations")
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


# ---------------------------------------------------------------- presets


@dataclasses.dataclass(frozen=True, kw_only=True)
class Preset:
    slug: str
    display_name: str
    source: str
    config: Mapping[str, object]
    hf_id: str = ""
    family: str = ""
    published_params: str = ""
    native_format: str = ""  # the checkpoint's own weight format when it is not 16-bit
    notes: tuple[str, ...] = ()  # what is known of the checkpoint but not counted (MTP layers, vision)

    def spec(self) -> ModelSpec:
        return from_hf_config(self.config, name=self.slug, display_name=self.display_name, notes=self.notes,
                              native_format=self.native_format)


@functools.cache
def load_presets() -> Mapping[str, Preset]:
    """Every file in data/models/, by slug (the file name), in the order of data/models/order.json."""
    folder = resources.files(__package__) / "data" / "models"
    order = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    presets = {}
    for slug in order:
        raw = json.loads((folder / f"{slug}.json").read_text(encoding="utf-8"))
        raw["notes"] = tuple(raw.get("notes", ()))
        presets[slug] = Preset(slug=slug, **raw)
    return presets


def preset_spec(slug: str) -> ModelSpec:
    presets = load_presets()
    if slug not in presets:
        raise ValidationError("model", slug, "expected one of: " + ", ".join(presets))
    return _preset_spec_cached(slug)


@functools.cache
def _preset_spec_cached(slug: str) -> ModelSpec:
    return load_presets()[slug].spec()
