"""Model architecture: the `ModelSpec` the formulas read, its parameter count,
and the two ways to get one: a preset (a Hugging Face config.json stored
verbatim under data/models/) or any config.json a user supplies."""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import math
from collections.abc import Mapping
from importlib import resources

from .errors import ValidationError

MAX_DIM = 1_000_000  # hidden, ffn, vocabulary: far above any real model
MAX_LAYERS = 10_000
MAX_HEADS = 100_000
MAX_EXPERTS = 100_000


class Block(enum.Enum):
    """Which transformer block the activation formulas follow."""

    GPT2 = "gpt2"
    """LayerNorm, fused QKV Conv1D, GELU (tanh) MLP, learned positions, dropout."""
    LLAMA = "llama"
    """RMSNorm (fp32 inside), rotary, GQA, gated MLP. Llama, Mistral, Mixtral, Qwen2, Phi-3."""
    GEMMA2 = "gemma2"
    """Llama-like with four RMSNorms per layer (1 + weight) and logit soft-capping."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelSpec:
    name: str
    display_name: str
    block: Block
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    tie_embeddings: bool
    gated_mlp: bool = True
    num_experts: int = 0  # 0: a dense model
    experts_per_token: int = 0
    qkv_bias: bool = False
    fused_qkv: bool = False  # Phi-3: one qkv_proj, so V is a view of the fused output
    learned_positions: int = 0  # GPT-2: a position-embedding table of this many rows
    dropout: bool = False  # GPT-2 trains with dropout; the others default to 0
    attention_softcap: bool = False
    final_logit_softcap: bool = False
    max_positions: int | None = None  # the longest context the model was built for
    params_override: int | None = None  # custom models: the total the user typed
    assumptions: tuple[str, ...] = ()

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @functools.cached_property  # the solvers ask for it hundreds of times per update
    def params(self) -> int:
        if self.params_override is not None:
            return self.params_override
        return _count_params(self, experts=self.num_experts or 1)

    @functools.cached_property
    def active_params(self) -> int:
        """Parameters used for one token: all of a dense model; for MoE only the routed experts."""
        if self.params_override is not None or not self.is_moe:
            return self.params
        return _count_params(self, experts=self.experts_per_token)


def _count_params(spec: ModelSpec, *, experts: int) -> int:
    """Exact parameter count from the architecture (reference.md §1.2).

    Llama family, per layer: q (h·a·d) + k, v (2·h·kv·d) + o (a·d·h) [+ q/k/v biases]
    + gated MLP 3·h·I per expert (+ router h·E for MoE) + norms; plus the embedding
    V·h (twice when the head is untied) and the final norm.
    GPT-2, per layer: 12h² + 13h for I = 4h; plus V·h + positions·h + final LayerNorm 2h.
    """
    h = spec.hidden
    if spec.block is Block.GPT2:
        attention = (
            h * 3 * h + 3 * h  # c_attn weight + bias
            + h * h + h  # c_proj weight + bias
        )
        mlp = (
            h * spec.ffn + spec.ffn  # c_fc weight + bias
            + spec.ffn * h + h  # c_proj weight + bias
        )
        norms = 2 * (2 * h)  # ln_1, ln_2: weight + bias
        per_layer = attention + mlp + norms
        embeddings = spec.vocab * h + spec.learned_positions * h
        final_norm = 2 * h
    else:
        attention = (
            h * spec.q_dim  # q_proj
            + 2 * h * spec.kv_dim  # k_proj, v_proj
            + spec.q_dim * h  # o_proj
        )
        if spec.qkv_bias:
            attention += spec.q_dim + 2 * spec.kv_dim
        mlp_matrices = 3 if spec.gated_mlp else 2
        mlp_one_expert = mlp_matrices * h * spec.ffn
        router = h * spec.num_experts if spec.is_moe else 0
        mlp = experts * mlp_one_expert + router
        norms_per_layer = 4 if spec.block is Block.GEMMA2 else 2
        per_layer = attention + mlp + norms_per_layer * h
        embeddings = spec.vocab * h
        final_norm = h
    head = 0 if spec.tie_embeddings else spec.vocab * h
    return spec.layers * per_layer + embeddings + final_norm + head


# ---------------------------------------------------------------- config.json

_SUPPORTED_TYPES = ("gpt2", "llama", "mistral", "mixtral", "qwen2", "gemma", "gemma2", "phi3")


def from_hf_config(config: Mapping[str, object], *, name: str = "config", display_name: str | None = None) -> ModelSpec:
    """Map a Hugging Face config.json (a parsed dict) to a ModelSpec.

    Known `model_type`s: gpt2, llama, mistral, mixtral, qwen2, gemma, gemma2, phi3.
    Anything else is read through the common Llama-style keys, and the spec's
    `assumptions` say so. `head_dim`, `num_key_value_heads`, `tie_word_embeddings`,
    attention biases and expert counts are read when present.
    """
    if not isinstance(config, Mapping):
        raise ValidationError("config.json", type(config).__name__, "expected a JSON object")
    model_type = config.get("model_type")
    model_type = model_type if isinstance(model_type, str) else ""
    display = display_name or (str(config.get("_name_or_path") or "") or model_type or "custom config")
    assumptions: list[str] = []
    if model_type == "gpt2":
        return _from_gpt2_config(config, name, display)
    if model_type not in _SUPPORTED_TYPES:
        assumptions.append(
            f"model_type {model_type!r} is not one of {', '.join(_SUPPORTED_TYPES)}: "
            "read as a Llama-style decoder (RMSNorm, rotary, gated MLP)"
            if model_type
            else "no model_type: read as a Llama-style decoder (RMSNorm, rotary, gated MLP)"
        )
    hidden = _int(config, "hidden_size", 1, MAX_DIM)
    layers = _int(config, "num_hidden_layers", 1, MAX_LAYERS)
    heads = _int(config, "num_attention_heads", 1, MAX_HEADS)
    kv_heads = _int(config, "num_key_value_heads", 1, heads, default=heads)
    if heads % kv_heads:
        raise ValidationError("num_key_value_heads", kv_heads, f"must divide num_attention_heads ({heads})")
    head_dim_default = hidden // heads if hidden % heads == 0 else None
    head_dim = _int(config, "head_dim", 1, MAX_DIM, default=head_dim_default)
    ffn = _int(config, "intermediate_size", 1, MAX_DIM)
    vocab = _int(config, "vocab_size", 1, MAX_DIM * 10)
    is_gemma = model_type in ("gemma", "gemma2")
    tie = _bool(config, "tie_word_embeddings", default=is_gemma)
    experts = _int(config, "num_local_experts", 1, MAX_EXPERTS, default=0) if "num_local_experts" in config else 0
    if experts == 0 and "num_experts" in config and config.get("num_experts") is not None:
        experts = _int(config, "num_experts", 1, MAX_EXPERTS)
    per_token = 0
    if experts:
        per_token = _int(config, "num_experts_per_tok", 1, experts)
    qkv_bias = model_type == "qwen2" or _bool(config, "attention_bias", default=False)
    gemma2 = model_type == "gemma2"
    return ModelSpec(
        name=name,
        display_name=display,
        block=Block.GEMMA2 if gemma2 else Block.LLAMA,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        ffn=ffn,
        vocab=vocab,
        tie_embeddings=tie,
        num_experts=experts,
        experts_per_token=per_token,
        qkv_bias=qkv_bias,
        fused_qkv=model_type == "phi3",
        attention_softcap=gemma2 and config.get("attn_logit_softcapping") is not None,
        final_logit_softcap=gemma2 and config.get("final_logit_softcapping") is not None,
        max_positions=_int(config, "max_position_embeddings", 1, MAX_DIM * 100, default=0) or None,
        assumptions=tuple(assumptions),
    )


def _from_gpt2_config(config: Mapping[str, object], name: str, display: str) -> ModelSpec:
    hidden = _int(config, "n_embd", 1, MAX_DIM, default=768)
    heads = _int(config, "n_head", 1, MAX_HEADS, default=12)
    if hidden % heads:
        raise ValidationError("n_head", heads, f"must divide n_embd ({hidden})")
    inner = config.get("n_inner")
    ffn = 4 * hidden if inner is None else _int(config, "n_inner", 1, MAX_DIM)
    return ModelSpec(
        name=name,
        display_name=display,
        block=Block.GPT2,
        hidden=hidden,
        layers=_int(config, "n_layer", 1, MAX_LAYERS, default=12),
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        ffn=ffn,
        vocab=_int(config, "vocab_size", 1, MAX_DIM * 10, default=50257),
        tie_embeddings=_bool(config, "tie_word_embeddings", default=True),
        gated_mlp=False,
        qkv_bias=True,
        learned_positions=_int(config, "n_positions", 1, MAX_DIM * 10, default=1024),
        max_positions=_int(config, "n_positions", 1, MAX_DIM * 10, default=1024),
        dropout=True,
    )


def _int(config: Mapping[str, object], key: str, low: int, high: int, *, default: int | None = None) -> int:
    value = config.get(key)
    if value is None:
        if default is None:
            raise ValidationError(key, None, f"config.json needs an integer {key} from {low:,} to {high:,}")
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or isinstance(value, float) and (
        not math.isfinite(value) or value != int(value)
    ):
        raise ValidationError(key, value, f"expected an integer from {low:,} to {high:,}")
    number = int(value)
    if not low <= number <= high:
        raise ValidationError(key, value, f"expected an integer from {low:,} to {high:,}")
    return number


def _bool(config: Mapping[str, object], key: str, *, default: bool) -> bool:
    value = config.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValidationError(key, value, "expected true or false")
    return value


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

    def spec(self) -> ModelSpec:
        return from_hf_config(self.config, name=self.slug, display_name=self.display_name)


@functools.cache
def load_presets() -> Mapping[str, Preset]:
    """Every file in data/models/, by slug (the file name), in the order of data/models/order.json."""
    folder = resources.files(__package__) / "data" / "models"
    order = json.loads((folder / "order.json").read_text(encoding="utf-8"))
    presets = {}
    for slug in order:
        raw = json.loads((folder / f"{slug}.json").read_text(encoding="utf-8"))
        presets[slug] = Preset(slug=slug, display_name=raw["display_name"], source=raw["source"], config=raw["config"])
    return presets


def preset_spec(slug: str) -> ModelSpec:
    presets = load_presets()
    if slug not in presets:
        raise ValidationError("model", slug, "expected one of: " + ", ".join(presets))
    return _preset_spec_cached(slug)


@functools.cache
def _preset_spec_cached(slug: str) -> ModelSpec:
    return load_presets()[slug].spec()
