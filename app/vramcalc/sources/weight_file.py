"""A model from its GGUF file's metadata: the architecture's sizes read as the Hugging Face config they
stand for, for sources/hf_config.py to read like any other (formats/file_weights.py lays the file's
tensors onto it)."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import ValidationError
from ..formats.headers import Header
from ..model.families.decoder.spec import ModelSpec
from .hf_config import from_hf_config

# general.architecture -> the transformers model_type whose reader reads the keys below
GGUF_ARCHES = {"llama": "llama", "mistral": "mistral", "qwen2": "qwen2", "qwen2moe": "qwen2_moe", "qwen3": "qwen3",
               "qwen3moe": "qwen3_moe", "gemma": "gemma", "gemma2": "gemma2", "gemma3": "gemma3_text",
               "phi3": "phi3", "granite": "granite", "olmo2": "olmo2", "cohere2": "cohere2", "smollm3": "smollm3",
               "seed_oss": "seed_oss", "exaone4": "exaone4", "ernie4_5": "ernie4_5"}
# {arch}.KEY -> config key
GGUF_KEYS = {"block_count": "num_hidden_layers", "embedding_length": "hidden_size",
             "feed_forward_length": "intermediate_size", "attention.head_count": "num_attention_heads",
             "attention.head_count_kv": "num_key_value_heads", "attention.key_length": "head_dim",
             "context_length": "max_position_embeddings", "attention.sliding_window": "sliding_window",
             "expert_count": "num_experts", "expert_used_count": "num_experts_per_tok",
             "expert_feed_forward_length": "moe_intermediate_size",
             "expert_shared_feed_forward_length": "shared_expert_intermediate_size"}


def config_from_gguf(header: Header) -> dict[str, object]:
    """The Hugging Face config a GGUF file's metadata says, for sources/hf_config.py to read: the
    architecture's sizes, the vocabulary from the embedding table, a head tied or not by whether the
    file has `output.weight`. An architecture not listed is read Llama-style and marked approximate."""
    meta = header.metadata
    arch = meta.get("general.architecture")
    if not isinstance(arch, str):
        raise ValidationError("weights", "general.architecture", "the GGUF file does not name its architecture")
    config: dict[str, object] = {"model_type": GGUF_ARCHES.get(arch, arch)}
    for key, config_key in GGUF_KEYS.items():
        value = meta.get(f"{arch}.{key}")
        if isinstance(value, int) and not isinstance(value, bool):
            config[config_key] = value
        elif isinstance(value, Mapping):  # a per-layer array (some hybrids): the first layer's value
            items = value.get("items")
            if isinstance(items, list) and items and isinstance(items[0], int):
                config[config_key] = items[0]
        elif value is not None:  # llama.cpp reads these as integers and refuses another type
            raise ValidationError("weights", f"{arch}.{key} = {str(value)[:40]}", "expected an integer")
    if "num_attention_heads" in config and "num_key_value_heads" not in config:
        config["num_key_value_heads"] = config["num_attention_heads"]  # llama-model.cpp: n_head_kv defaults to n_head
    names = {t.name: t for t in header.tensors}
    embedding = names.get("token_embd.weight")
    if embedding is not None:
        config["vocab_size"] = embedding.shape[0]
    config["tie_word_embeddings"] = "output.weight" not in names
    if config.get("num_experts") and arch in ("llama", "mistral"):  # Mixtral GGUFs are llama with experts
        config["model_type"] = "mixtral"
        config["num_local_experts"] = config.pop("num_experts")
    if "sliding_window" in config and config["model_type"] in ("qwen2", "qwen3", "qwen3_moe", "smollm3"):
        config["use_sliding_window"] = True
    name = meta.get("general.name")
    if isinstance(name, str):
        config["_name_or_path"] = name[:200]
    return config


def spec_from_gguf(header: Header, name: str) -> ModelSpec:
    try:
        return from_hf_config(config_from_gguf(header), name="weights", display_name=_display(header, name))
    except ValidationError as problem:  # said with the file's own key, not the config key it stands for
        gguf = {**{v: k for k, v in GGUF_KEYS.items()}, "num_local_experts": "expert_count"}.get(problem.field)
        if gguf is None:
            raise
        arch = header.metadata.get("general.architecture")
        raise ValidationError("weights", f"{arch}.{gguf} = {problem.value}", problem.allowed) from None


def _display(header: Header, name: str) -> str:
    given = header.metadata.get("general.name")
    return given[:200] if isinstance(given, str) and given else name
