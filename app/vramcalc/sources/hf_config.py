"""Read a Hugging Face config.json into a `ModelSpec`, exactly for the model
types listed in `READERS`, and never silently for the others.

Keys a config omits take the defaults of its transformers config class
(data/config_defaults.json, written by tools/config_defaults.py), as
transformers itself does. A model type not listed is read with the Llama-style
reader, and a key that changes memory but that the reader for this model type
does not read is reported: both make the spec's `assumptions`, so the result is
marked approximate and says why. Contradictory configs raise ValidationError
naming the key.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

from ..core.errors import ValidationError
from ..core.phrase import Phrase, join, phrase
from ..model.families.decoder.mtp import NEXTN, QWEN
from ..model.families.decoder.spec import (
    AttentionKind,
    Block,
    Cca,
    Compressed,
    Indexer,
    Inkling,
    LinearAttention,
    Mamba,
    Mla,
    ModelSpec,
    Moe,
    Norm,
    NormCompute,
    Ple,
    SharedBlock,
    ShortConv,
)
from ..model.families.decoder.tensors import reused_kv_params
from .fields import MAX_DIM, MAX_HEADS, MAX_LAYERS, MAX_POSITIONS, read_bool, read_int, read_text, short
from .readers import (
    COMMON_KEYS,
    DRAFTERS,
    ENCODER_DECODER,
    EXPERTS_KEY,
    LEGACY_KEYS,
    MAMBA_KEYS,
    MOE_KEYS,
    NEMOTRON_H_ALIASES,
    NOT_READ,
    READERS,
    SLIDING_KEYS,
    TEXT_ALIASES,
    TEXT_TYPES,
    WRAPPER_TIES,
    Legacy,
    MambaKeys,
    MoeKeys,
    Reader,
    Sliding,
)
from .vision import read_vision

MAX_EXPERTS = 100_000
MAX_NGRAM_HEADS = 4096  # Qwen4-Exp's n-gram tables over all PLE layers: the release has 16

# Every key that changes how much memory a model takes. A key here that the reader of
# a config's model_type does not read makes the estimate approximate.
MEMORY_KEYS = frozenset({
    "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
    "intermediate_size", "vocab_size", "tie_word_embeddings", "max_position_embeddings", "attention_bias",
    "mlp_bias", "num_experts", "num_local_experts", "n_routed_experts", "num_experts_per_tok",
    "experts_per_token", "moe_intermediate_size", "n_shared_experts", "shared_expert_intermediate_size",
    "decoder_sparse_step", "mlp_only_layers", "first_k_dense_replace", "moe_layer_freq",
    "interleave_moe_layer_step", "intermediate_size_mlp", "moe_layers", "q_lora_rank", "kv_lora_rank",
    "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "layer_types", "sliding_window",
    "use_sliding_window", "max_window_layers", "sliding_window_pattern", "attention_chunk_size",
    "full_attention_interval", "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
    "linear_value_head_dim", "linear_conv_kernel_dim", "use_qk_norm", "lm_head_bias", "qk_layernorm",
    "num_nextn_predict_layers", "attn_logit_softcapping", "final_logit_softcapping", "partial_rotary_factor",
    "n_embd", "n_layer", "n_head", "n_inner", "n_positions", "vision_config",
    "mlp_layer_types", "indexer_types", "index_topk_pattern", "index_topk_freq", "index_skip_topk_offset",
    "index_n_heads", "index_head_dim", "use_bias", "attention_out_bias", "moe_num_experts",
    "moe_k", "moe_num_shared_experts", "moe_layer_start_index", "moe_layer_end_index", "moe_layer_interval",
    "global_head_dim", "num_global_key_value_heads", "attention_k_eq_v", "num_kv_shared_layers", "use_double_wide_mlp",
    "hidden_size_per_layer_input", "vocab_size_per_layer_input", "enable_moe_block", "top_k_experts",
    "per_layer_config", "mamba_num_heads", "mamba_head_dim", "ssm_state_size", "mamba_n_heads", "mamba_d_head",
    "mamba_n_groups", "mamba_d_state", "mamba_d_conv", "mamba_expand", "mamba_proj_bias", "hybrid_override_pattern",
    "layers_block_type", "attn_layer_indices", "moe_shared_expert_intermediate_size", "moe_latent_size",
    "shared_intermediate_size", "mamba_d_ssm", "n_groups", "conv_kernel", "use_conv_bias", "mamba_conv_bias",
    "state_size", "num_heads", "expand", "time_step_rank", "mamba_dt_rank", "attn_layer_period", "attn_layer_offset",
    "expert_layer_period", "expert_layer_offset", "num_dense_layers", "mamba_rms_norm", "projectors_bias",
    "conv_L_cache", "conv_bias", "full_attn_idxs", "block_auto_adjust_ff_dim", "multi_query", "use_sandwich_norm",
    "use_attention_gate",
    "new_decoder_architecture", "num_kv_heads", "parallel_attn", "num_ln_in_parallel_attn", "ffn_hidden_size",
    "block_ffn_dim_multiplier", "block_multiple_of", "moe_topk", "num_shared_experts", "use_cla", "hc_mult", "o_groups",
    "o_lora_rank", "compress_ratios", "compress_rates", "share_expert_dim", "moe_layers_enum",
    "attention_other_setting", "num_sliding_attention_heads", "num_attention_groups", "moe_top_k", "altup_num_inputs",
    "laurel_rank", "prefix_dense_intermediate_size", "prefix_dense_sliding_window_pattern", "dense_intermediate_size",
    "index_block_size", "index_topk_blocks", "sparse_attention_config", "num_attention_heads_per_layer", "gating",
    "cca_time0", "cca_time1", "router_hidden_size", "swa_num_attention_heads", "swa_num_key_value_heads",
    "swa_head_dim", "d_rel", "rel_extent", "conv_kernel_size",
    "gated_norm_rank", "d_model", "n_heads", "n_layers", "max_seq_len", "expansion_ratio", "ffn_dim", "dff",
    "enable_bias", "word_embed_proj_dim", "do_layer_norm_before", "attention_heads", "intermediate_multiple_size",
    "dim_head", "dim_ff", "window_size", "attention_hidden_size", "embedding_dim", "ffn_proj_factor",
    "num_mem_blocks", "adapter_rank", "use_shared_attention_adapter", "add_bias_linear", "n_mamba_heads",
    "mamba_ngroups", "ple_layer_ids", "cross_attention_layers",
})
_REQUIRED = ("hidden_size", "num_hidden_layers")
_SHAPE_KEYS = ("num_attention_heads", "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size",
               "max_position_embeddings", "sliding_window")
# Values that switch a feature off: such a key changes nothing, understood or not.
_NEUTRAL_WHEN_OFF: tuple[object, ...] = (None, False, 0, [], {})


@functools.cache
def _defaults() -> Mapping[str, Mapping[str, object]]:
    path = resources.files("vramcalc") / "data" / "config_defaults.json"
    defaults: Mapping[str, Mapping[str, object]] = json.loads(path.read_text(encoding="utf-8"))
    return defaults


def supported_types() -> tuple[str, ...]:
    from .encoder import ENCODER_TYPES
    from .speech import SPEECH_TYPES
    return tuple(sorted(set(READERS) | set(TEXT_TYPES) | set(ENCODER_TYPES) | set(SPEECH_TYPES)))


def from_hf_config(config: Mapping[str, object], *, name: str = "config", display_name: str | None = None,
                   notes: tuple[str | Phrase, ...] = (), native_format: str = "") -> ModelSpec:
    """Map a Hugging Face config.json (a parsed dict) to a ModelSpec."""
    if not isinstance(config, Mapping):
        raise ValidationError("config.json", type(config).__name__, "expected a JSON object")
    model_type = read_text(config, "model_type")
    display = display_name or read_text(config, "_name_or_path", MAX_NAME_CHARS) or model_type or "custom config"
    extra_notes = list(notes)
    top = config
    if model_type in ("gpt2", "gpt-sw3", "openai-gpt"):
        return _read_gpt2(config, name, display, model_type)
    if model_type in ENCODER_DECODER or config.get("is_encoder_decoder") is True:
        raise ValidationError("model_type", model_type or None, "an encoder-decoder model: not read yet (the "
                              "calculator reads decoder-only models, encoders and Whisper)")
    if model_type in NOT_READ:
        raise ValidationError("model_type", model_type, f"{NOT_READ[model_type]} layers are not read yet (the "
                              "calculator reads decoder-only models, encoders and Whisper)")
    from .encoder import ENCODER_TYPES, read_encoder  # it reads with this module's typed reads
    if model_type in ENCODER_TYPES:
        return read_encoder(config, model_type, name, display)
    if model_type == "whisper":
        from .speech import read_speech
        return read_speech(config, name, display)
    wrapped = (model_type not in READERS and "hidden_size" not in config
               and isinstance(config.get("text_config"), Mapping))  # any multimodal wrapper: its text_config
    multimodal = model_type in TEXT_TYPES or wrapped
    drafter = model_type if model_type in DRAFTERS else ""
    if multimodal:
        text = config.get("text_config")
        if isinstance(text, Mapping):  # Gemma 3, Llama 4, Mistral 3; Qwen2.5-VL keeps its text keys at the top
            inner = (read_text(text, "model_type", field="text_config.model_type")
                     or TEXT_TYPES.get(model_type, f"{model_type}_text"))
            config = {**text, "model_type": TEXT_ALIASES.get(inner, inner)}
            if "tie_word_embeddings" in top or model_type in WRAPPER_TIES:  # transformers ties by the wrapper's key
                config["tie_word_embeddings"] = top.get("tie_word_embeddings", True)
            if drafter:  # every layer reuses the target's K/V: read apart (_drafter), not as Gemma 4's last ones
                config.pop("num_kv_shared_layers", None)
                if drafter == "gemma4_assistant":  # Gemma4AssistantConfig.validate_architecture, the class defaults'
                    for key, default in (("hidden_size_per_layer_input", 256), ("vocab_size_per_layer_input", 262144),
                                         ("enable_moe_block", False), ("use_double_wide_mlp", False)):
                        if text.get(key, default) not in (0, False):
                            raise ValidationError(f"text_config.{key}", text.get(key), "must be 0 or false in a "
                                                  "Gemma 4 assistant (Gemma4AssistantConfig; the class default is not)")
        else:
            config = {**_defaults().get(model_type, {}), **config, "model_type": TEXT_TYPES[model_type]}
            config.pop("vision_config", None)  # the wrapper's own class defaults first (Phi4MultimodalConfig's)
        model_type = str(config["model_type"])
    assumptions: list[str | Phrase] = []
    reader = READERS.get(model_type)
    guessed = None
    if reader is None:
        reader = READERS["llama"]
        assumptions.append(phrase("assumption.unknown_type", model_type=repr(model_type), count=len(supported_types()))
                           if model_type else phrase("assumption.no_type"))
        guessed = _guess_experts(config)
        if type(config.get("head_dim")) is int and config["head_dim"] == 0:  # GLM-5.3's: its RoPE width, none
            config = {k: v for k, v in config.items() if k != "head_dim"}
    if reader.legacy is not None:  # MPT's attn_config, DBRX's ffn_config: the keys it names, as top-level ones
        names = {old for old, _ in reader.aliases} | reader.extra
        for key in reader.legacy.nested:
            sub = config.get(key)
            if isinstance(sub, Mapping):
                config = {**{k: v for k, v in sub.items() if k in names}, **config}
    given = {**config, **{new: config[old] for old, new in LEGACY_KEYS.get(model_type, {}).items() if old in config}}
    # Omitted keys take the transformers class defaults (an explicit null stays null, as there),
    # except the two sizes no real top-level config leaves out; a wrapper's text_config may (LLaVA's hub files give
    # only the vocabulary and the context: LlamaConfig's defaults make Vicuna 7B); the shape keys so filled are
    # named in a note.
    aliased = {new for old, new in reader.aliases if old in given}  # given under its class's other name
    renamed = dict(reader.aliases)
    required = () if multimodal else _REQUIRED
    defaults = {k: v for k, v in _defaults().get(model_type, {}).items()
                if k not in given and k not in required and renamed.get(k) not in required and k not in aliased}
    config = {**defaults, **given}
    filled = [phrase("model.note.default_value", key=k, value=f"{v:,}")
              for k, v in defaults.items() if k in (*_SHAPE_KEYS, *_REQUIRED) and isinstance(v, int)]
    if filled and reader is READERS.get(model_type):
        extra_notes.append(phrase("model.note.defaults", model_type=model_type, keys=join(", ", filled)))
    for old, new in reader.aliases:
        if old in config and new not in given:
            config[new] = config[old]
    for key in reader.needs:  # Dots1MoE: torch.empty(None, ...) and moe_intermediate_size * None
        if config.get(key) is None:
            raise ValidationError(key, None, f"{model_type} cannot be built without it (its class leaves it None)")
    if reader.legacy is not None:
        config = _legacy(config, reader)
    if reader.shared_block:
        config = _zamba_config(config, reader.mamba is MambaKeys.ZAMBA)
    if reader.mamba is not None:
        config = _mamba_layer_types(config, reader.mamba)
    if reader.glm5:
        config = _glm5_config(config)
    if reader.kda:
        config = _kda_config(config, reader.kda)
    if reader.falcon:
        config, reader = _falcon(config, reader)
    if reader.cohere_moe:
        config, reader = _cohere2_moe_config(config, reader)
    if reader.stablelm:
        config, reader = _stablelm(config, reader)
    for flag, rewrite in _REWRITES:  # a family's keys as its config class reads them
        if getattr(reader, flag):
            config = rewrite(config)
    if reader.moa:  # JetMoeConfig.__post_init__
        config = {**config, "num_attention_heads": read_int(config, "num_key_value_heads", 1, MAX_HEADS) * read_int(
            config, "num_experts_per_tok", 1, MAX_EXPERTS)}
    if reader.gemma3n:
        config = {**config, "intermediate_size": _gemma3n_width(config, model_type, assumptions)}
    spec_fields, reader = _read_guessing(config, reader, guessed, model_type, assumptions)
    if reader.legacy is not None:
        spec_fields.update(_legacy_fields(config, reader.legacy, spec_fields, model_type, assumptions))
    understood = _understood(reader)
    for key in sorted(MEMORY_KEYS & set(given) - understood):
        if given[key] not in _NEUTRAL_WHEN_OFF:
            assumptions.append(phrase("assumption.ignored_key", key=key, value=short(given[key]),
                                      model_type=repr(model_type)))
    # multi-token-prediction layers past num_hidden_layers (DeepSeek-V3's names; Qwen3.5's mtp.*): not built
    mtp, mtp_style = read_int(config, "num_nextn_predict_layers", 0, MAX_LAYERS, default=0), NEXTN
    if not mtp:
        mtp, mtp_style = read_int(config, "mtp_num_hidden_layers", 0, MAX_LAYERS, default=0), QWEN
    if mtp:
        extra_notes.append(phrase("model.note.mtp"))
    moe = spec_fields["moe"]
    if moe is not None and moe.zero_experts:  # LongcatFlashExperts.gate_up_proj: a slot per zero expert too
        slots = sum(spec_fields["moe_layers"]) * moe.zero_experts * 2 * moe.ffn * spec_fields["hidden"]
        extra_notes.append(phrase("model.note.zero_experts", count=moe.zero_experts, params=f"{slots:,}"))
    vision = read_vision(top, spec_fields["hidden"], _vision_value) if multimodal else None
    if (multimodal or "vision_config" in reader.extra) and vision is None and top.get("vision_config") is not None:
        extra_notes.append(phrase("model.note.multimodal", model_type=top.get("model_type")))
    if multimodal and top.get("model_type") == "emu3":  # Emu3ForConditionalGeneration's vqmodel
        extra_notes.append(phrase("model.note.vq_vae"))
    spec = ModelSpec(
        name=name, display_name=display, assumptions=tuple(assumptions), notes=tuple(dict.fromkeys(extra_notes)),
        native_format=native_format, model_type=model_type, vision=vision, mtp_layers=mtp,
        mtp_style=mtp_style if mtp else "", **spec_fields,
    )
    from .reranker import read_reranker  # it reads with this module's typed reads
    reranker = read_reranker(top, model_type)
    if reranker is not None:  # a converted classifier has a score and no head
        spec = dataclasses.replace(spec, reranker=reranker, tie_embeddings=spec.tie_embeddings or reranker.scored)
    if drafter:
        spec = _drafter(spec, top, drafter)
    elif spec.kv_shared_layers:  # Gemma 3n/4: K/V weights in the checkpoint that transformers does not build
        note = phrase("model.note.kv_shared", count=spec.kv_shared_layers, params=f"{reused_kv_params(spec):,}")
        spec = dataclasses.replace(spec, notes=(*spec.notes, note))
    return spec


def _vision_value(config: Mapping[str, object], name: str, key: str, default: Any) -> Any:
    """A vision key (`name` in refusals) of the type of its default: an integer, a ratio, a list, a switch."""
    value = config.get(key)
    if value is None or isinstance(default, str):
        return default if value is None else str(value)
    if isinstance(default, bool):
        return read_bool({name: value}, name, default=default)
    if isinstance(default, list):  # one layer, or a list (Mistral 3's vision_feature_layer)
        value = [value] if isinstance(value, int) else value
        if not isinstance(value, list) or len(value) > MAX_LAYERS:
            raise ValidationError(name, short(value), "expected a list")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise ValidationError(name, short(value), "expected a number above 0, at most 1")
        return value
    return read_int({name: value}, name, 1, MAX_DIM)


def _read_guessing(config: Mapping[str, object], reader: Reader, guessed: MoeKeys | None, model_type: str,
                   assumptions: list[str | Phrase]) -> tuple[dict[str, Any], Reader]:
    """The spec's fields and the reader that read them. An unknown type is read with what its keys say of
    it, each guess said among the assumptions: DeepSeek's latent attention when it gives kv_lora_rank
    (Kimi K3, LongCat), its experts by the family whose keys it uses (`guessed`); the first reading whose
    keys all hold is kept, the plain Llama-style reading last, as for any unknown type."""
    mla = model_type not in READERS and not reader.mla and _given_int(config, "kv_lora_rank") and _given_int(
        config, "qk_rope_head_dim")
    trials: list[tuple[Reader, list[str | Phrase]]] = []
    for with_mla in (True, False) if mla else (False,):
        for moe in (guessed, None) if guessed is not None else (None,):
            said: list[str | Phrase] = [phrase("assumption.guessed_mla")] if with_mla else []
            if moe is not None:
                said.append(phrase("assumption.guessed_experts", key=EXPERTS_KEY[moe]))
            trials.append((dataclasses.replace(reader, mla=reader.mla or with_mla, moe=moe or reader.moe), said))
    for candidate, said in trials[:-1]:
        trial = list(assumptions)
        try:
            fields = _read_decoder(config, candidate, model_type, trial)
        except ValidationError:
            continue
        assumptions[:] = [*trial, *said]
        return fields, candidate
    return _read_decoder(config, reader, model_type, assumptions), reader


def _given_int(config: Mapping[str, object], key: str) -> bool:
    value = config.get(key)
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _guess_experts(config: Mapping[str, object]) -> MoeKeys | None:
    """Which family's MoE keys an unknown type's config uses, by the key that counts its experts:
    DeepSeek's n_routed_experts, Qwen's num_experts with moe_intermediate_size, Mixtral's num_local_experts."""
    if _given_int(config, "n_routed_experts") and _given_int(config, "moe_intermediate_size"):
        return MoeKeys.DEEPSEEK
    if _given_int(config, "num_experts") and _given_int(config, "moe_intermediate_size"):
        return MoeKeys.QWEN
    if _given_int(config, "num_local_experts"):
        return MoeKeys.MIXTRAL
    return None


def _understood(reader: Reader) -> frozenset[str]:
    keys = set(COMMON_KEYS) | reader.extra | ({"mlp_bias"} if reader.reads_mlp_bias else set())
    keys |= {old for old, _ in reader.aliases}
    if reader.moe is not None:
        keys |= MOE_KEYS[reader.moe]
    if reader.sliding is not None:
        keys |= SLIDING_KEYS[reader.sliding]
    if reader.mla:
        keys |= {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                 "num_nextn_predict_layers"}
    if reader.moe is MoeKeys.DEEPSEEK:
        keys.add("num_nextn_predict_layers")
    if reader.linear:
        keys |= {"layer_types", "full_attention_interval", "linear_num_key_heads", "linear_num_value_heads",
                 "linear_key_head_dim", "linear_value_head_dim", "linear_conv_kernel_dim"}
    if reader.chunked:
        keys |= {"attention_chunk_size", "no_rope_layers", "layer_types"}
    if reader.short_conv:
        keys |= {"conv_L_cache", "conv_bias", "full_attn_idxs", "layer_types", "block_auto_adjust_ff_dim",
                 "block_ffn_dim_multiplier", "block_multiple_of"}
    if reader.qk_norm_switched:
        keys.add("use_qk_norm")
    if reader.softcap:
        keys |= {"attn_logit_softcapping", "final_logit_softcapping"}
    if reader.indexer:
        keys |= {"index_n_heads", "index_head_dim", "index_topk", "layer_types", "indexer_types", "index_topk_pattern",
                 "index_topk_freq", "index_skip_topk_offset"}
    if reader.global_attention:
        keys |= {"global_head_dim", "num_global_key_value_heads", "attention_k_eq_v", "num_kv_shared_layers",
                 "use_double_wide_mlp", "hidden_size_per_layer_input", "vocab_size_per_layer_input", "per_layer_config"}
    if reader.mamba is not None:
        names = MAMBA_KEYS[reader.mamba]
        keys |= {names.heads, names.head_dim, names.groups, names.state, names.conv, names.conv_bias, names.proj_bias,
                 names.expand, names.dt_rank, "layer_types", "layers_block_type", "hybrid_override_pattern",
                 "attn_layer_indices", "num_nextn_predict_layers", "mamba_ssm_cache_dtype",
                 "time_step_rank", "mamba_dt_rank"} - {""}  # the rank keys: Mamba-1 reads them, Mamba-2 ignores them
        if reader.mamba is MambaKeys.NEMOTRON_H:
            keys |= set(NEMOTRON_H_ALIASES)
    keys |= {key for key in (reader.bias_key, reader.o_bias_key) if key}
    return frozenset(keys)


def _read_decoder(config: Mapping[str, object], reader: Reader, model_type: str,
                  assumptions: list[str | Phrase]) -> dict[str, Any]:  # ModelSpec keyword arguments
    hidden = read_int(config, "hidden_size", 1, MAX_DIM)
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    heads = read_int(config, "num_attention_heads", 1, MAX_HEADS)
    kv_heads = read_int(config, "num_key_value_heads", 1, MAX_HEADS, default=heads)
    if kv_heads > heads or heads % kv_heads:
        raise ValidationError("num_key_value_heads", kv_heads, f"must divide num_attention_heads ({heads})")
    if reader.mla and config.get("head_dim") is None:  # MLA's classes map head_dim to qk_rope_head_dim
        head_dim = read_int(config, "qk_rope_head_dim", 1, MAX_DIM)
    else:
        if config.get("head_dim") is None and hidden % heads:
            raise ValidationError("num_attention_heads", heads,
                                  f"must divide hidden_size ({hidden}) when the config gives no head_dim")
        head_dim = read_int(config, "head_dim", 1, MAX_DIM, default=hidden // heads)
    vocab = read_int(config, "vocab_size", 1, MAX_DIM * 10)
    max_positions = read_int(config, "max_position_embeddings", 1, MAX_POSITIONS, default=0) or None
    all_bias = bool(reader.bias_key) and read_bool(config, reader.bias_key, default=False)
    attention_bias = read_bool(config, "attention_bias", default=False) or all_bias
    qkv_bias = attention_bias if reader.qkv_bias is None else reader.qkv_bias
    o_bias = attention_bias if reader.o_bias is None else reader.o_bias
    if reader.o_bias_key:
        o_bias = read_bool(config, reader.o_bias_key, default=o_bias)
    qk_norm = reader.qk_norm
    if reader.qk_norm_switched and not read_bool(config, "use_qk_norm", default=False):
        qk_norm = None
    if model_type == "phi" and read_bool(config, "qk_layernorm", default=False):
        raise ValidationError("qk_layernorm", True, "Phi models with q/k LayerNorm are not supported")
    resid_pdrop = config.get("resid_pdrop") if model_type == "phi" else None
    fields = dict(
        block=reader.block, hidden=hidden, layers=layers, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
        vocab=vocab, tie_embeddings=read_bool(config, "tie_word_embeddings", default=reader.tie_default)
        and not reader.never_tied,  # transformers 5.23's Mllama classes tie nothing
        gated_mlp=reader.gated_mlp, norm=reader.norm, norms_per_layer=reader.norms_per_layer,
        norm_compute=reader.compute, post_norms=reader.post_norms,
        dropout=isinstance(resid_pdrop, (int, float)) and resid_pdrop > 0,
        qkv_bias=qkv_bias, o_bias=o_bias,
        mlp_bias=reader.mlp_bias or all_bias or (reader.reads_mlp_bias
                                                 and read_bool(config, "mlp_bias", default=False)),
        head_bias=reader.head_bias or (all_bias and reader.bias_key_on_head) or (model_type in ("phimoe", "zaya")
                                                   and read_bool(config, "lm_head_bias", default=False)),
        activation_params=reader.activation_params,
        qk_norm=qk_norm, attention_gate=reader.attention_gate, gate_apart=reader.gate_apart, sinks=reader.sinks,
        gate_bias=int(reader.gate_bias),
        moa=reader.moa,
        fused_qkv=reader.fused_qkv, max_positions=max_positions,
        attention_softcap=reader.softcap and config.get("attn_logit_softcapping") is not None,
        final_logit_softcap=reader.softcap and config.get("final_logit_softcapping") is not None,
    )
    ffn = read_int(config, "intermediate_size", 1, MAX_DIM,
               default=0 if reader.moe is not None or reader.mlp_apart else None)
    layer_fields = _read_layers(config, reader, layers, max_positions, assumptions)
    if reader.cross:
        layer_fields["kinds"] = _cross_layers(config, layer_fields["kinds"])
    fields.update(layer_fields, image_rows=8 * reader.cross)
    moe, moe_layers, dense_ffn = _read_doge(config, layers, ffn) if reader.doge else _read_moe(config, reader,
                                                                                               layers, ffn)
    if not dense_ffn and AttentionKind.NONE not in layer_fields["kinds"] and reader.mlp_apart:
        pass  # Mamba-2 alone: no layer has an MLP
    elif not dense_ffn:  # no intermediate_size: every layer must have experts (Qwen3.5-MoE), which set the width
        if moe is None or not all(moe_layers):
            raise ValidationError("intermediate_size", None, "config.json needs an integer intermediate_size "
                                                              "for its dense layers")
        dense_ffn = moe.ffn
    if reader.longcat and moe is not None:  # the shortcut MoE beside the sublayer's own MLP, zero experts among
        moe = dataclasses.replace(moe, shared_ffn=dense_ffn, zero_experts=read_int(config, "zero_expert_num", 0,
                                                                                MAX_EXPERTS, default=256),
                                  router_bias=read_bool(config, "router_bias", default=False))
    if reader.moe_post_norm and moe is not None:
        moe = dataclasses.replace(moe, post_norm=True)
    fields.update(ffn=dense_ffn, moe=moe, moe_layers=moe_layers)
    if reader.moe is MoeKeys.HUNYUAN:
        _hunyuan_widths(config, ffn, assumptions)
    mla = _read_mla(config) if reader.mla else None
    fields.update(mla=mla, mla_per_head=reader.minicpm3, sub_norms=reader.sub_norms, diff_lambdas=reader.diff,
                  dynamic_mask=reader.doge)
    if reader.diff and kv_heads % 2:  # DiffLlamaAttention: torch.chunk(value_states, 2, dim=1) over the KV heads
        raise ValidationError("num_key_value_heads", kv_heads, "DiffLlama splits the values in two along the KV "
                                                               "heads: it needs an even number")
    if reader.indexer:
        if mla is None or not (mla.q_lora_rank or reader.large4):
            raise ValidationError("q_lora_rank", None,
                                  "the lightning indexer reads the q latent: q_lora_rank is needed")
        fields["indexer"] = Indexer(heads=read_int(config, "index_n_heads", 1, MAX_HEADS),
                                    head_dim=read_int(config, "index_head_dim", 1, MAX_DIM),
                                    topk=read_int(config, "index_topk", 1, MAX_POSITIONS, default=2048),
                                    shared=_indexer_shared(config, layers, 4 if reader.hyper > reader.glm5 else 1),
                                    kpool=read_int(config, "index_kpool", 1, MAX_DIM, default=16) if reader.glm5 else 0)
    if reader.global_attention:
        fields.update(_read_gemma4(config, fields, assumptions, per_layer=reader.moe is not None))
    if reader.gated_norm:
        fields["gated_norm"] = read_int(config, "gated_norm_rank", 1, MAX_DIM, default=16)
    if reader.cca:  # ZayaCCAProjection's kernels, ZayaRouter's width
        if kv_heads * head_dim % 2:
            raise ValidationError("head_dim", head_dim, "ZAYA splits each value in halves: KV heads × head_dim must "
                                                        "be even")
        fields["cca"] = Cca(time0=read_int(config, "cca_time0", 1, MAX_DIM, default=2),
                            time1=read_int(config, "cca_time1", 1, MAX_DIM, default=2),
                            router=read_int(config, "router_hidden_size", 1, MAX_DIM, default=256))
    if reader.hyper:
        fields["hyper"] = read_int(config, "hc_mult", 1, MAX_HEADS, default=4)
        fields["hyper_comb"] = reader.glm5
    if reader.compressed:
        groups = read_int(config, "o_groups", 1, heads, default=8)
        if heads % groups:
            raise ValidationError("o_groups", groups, f"must divide num_attention_heads ({heads})")
        rates = config["compress_rates"]
        assert isinstance(rates, Mapping)  # _dsv4_config made it
        fields["compressed"] = Compressed(
            q_lora_rank=read_int(config, "q_lora_rank", 1, MAX_DIM, default=1024), o_groups=groups,
            o_lora_rank=read_int(config, "o_lora_rank", 1, MAX_DIM, default=1024),
            hc_mult=read_int(config, "hc_mult", 1, MAX_HEADS, default=4),
            types=tuple(config["compressed_types"]),  # type: ignore[arg-type]  # _dsv4_config made it
            rates=(read_int(rates, "compressed_sparse_attention", 1, MAX_POSITIONS),
                   read_int(rates, "heavily_compressed_attention", 1, MAX_POSITIONS)),
            index_heads=read_int(config, "index_n_heads", 1, MAX_HEADS, default=64),
            index_head_dim=read_int(config, "index_head_dim", 1, MAX_DIM, default=128))
    if reader.large4:
        fields.update(_read_large4(config, layers, model_type, assumptions))
    if reader.mimo:
        fields.update(_read_mimo(config, fields, assumptions))
    if reader.minimax3:
        if moe is not None:  # MiniMaxM3VLSparseMoeBlock.shared_experts: a gated MLP of its own width
            shared = read_int(config, "shared_intermediate_size", 1, MAX_DIM)
            fields["moe"] = dataclasses.replace(moe, shared_ffn=shared)
        types = config["layer_types"]  # set by _minimax3_config, checked by _read_layers
        assert isinstance(types, list)
        sparse = {i for i, t in enumerate(types) if t == "minimax_m3_sparse"}
        if sparse:
            fields["indexer"] = Indexer(
                heads=read_int(config, "index_n_heads", 1, MAX_HEADS),
                head_dim=read_int(config, "index_head_dim", 1, MAX_DIM),
                topk=read_int(config, "index_topk_blocks", 1, MAX_POSITIONS) * read_int(config, "index_block_size", 1,
                                                                                   MAX_POSITIONS),
                shared=frozenset(range(layers)) - sparse, from_hidden=True)
    if reader.step:
        fields.update(_read_step3p5(config, fields, assumptions))
    if reader.laguna:
        fields.update(_read_laguna(config, fields, assumptions))
    if reader.dots3:
        fields.update(_read_dots3(config, fields))
    if reader.inkling:
        fields.update(_read_inkling(config, fields, two=reader.inkling == 2))
    if reader.gemma3n:
        fields.update(_read_gemma3n(config, fields))
    if reader.qwen4:
        fields.update(_read_qwen4(config, fields))
    if reader.hrm:  # HrmTextAttention.gate_proj: biased by attention_bias, as q, k, v and o
        fields.update(hrm=(config["num_layers_per_stack"], read_int(config, "L_cycles", 1, MAX_LAYERS, default=3)),
                      gate_bias=head_dim * attention_bias)
    if reader.mamba is not None:
        fields.update(mamba=_read_mamba(config, reader.mamba, hidden), mlp_apart=reader.mlp_apart,
                      parallel_mamba=reader.parallel_mamba)
    if reader.shared_block:
        fields["shared_block"] = SharedBlock(
            blocks=read_int(config, "num_mem_blocks", 1, MAX_LAYERS, default=1),
            rank=0 if reader.mamba is MambaKeys.ZAMBA else read_int(config, "adapter_rank", 1, MAX_DIM, default=128),
            width=read_int(config, "attention_hidden_size", 1, MAX_DIM),
            attention_adapters=read_bool(config, "use_shared_attention_adapter", default=False),
            tied=bool(fields["tie_embeddings"]))
    if reader.falcon:
        fields["repeated_kv_cache"] = bool(config.get("repeated_kv_cache"))
    if reader.post_norm_key:  # HyperCLOVAXDecoderLayer: post_norm1 and post_norm2
        fields["norms_per_layer"] = 4 if read_bool(config, reader.post_norm_key, default=True) else 2
    if reader.lfm3:  # Lfm3DecoderLayer: post_operator_norm and post_ffn_norm; Lfm3Attention.g_proj
        fields["norms_per_layer"] = 4 if read_bool(config, "use_sandwich_norm", default=True) else 2
        fields["head_gate"] = read_bool(config, "use_attention_gate", default=True)
    if reader.short_conv:
        fields["short_conv"] = ShortConv(width=hidden, kernel=read_int(config, "conv_L_cache", 1, MAX_DIM, default=3),
                                         bias=read_bool(config, "conv_bias", default=False))
        if reader.lfm2_ffn and read_bool(config, "block_auto_adjust_ff_dim", default=True):
            fields["ffn"] = _lfm2_ffn(config, dense_ffn)
    if reader.griffin:  # RecurrentGemmaRglru: lru_width in blocks of one per head, no key heads
        lru = read_int(config, "lru_width", 1, MAX_DIM, default=hidden)
        if lru % heads:
            raise ValidationError("lru_width", lru, f"must be a multiple of num_attention_heads ({heads})")
        fields["linear"] = LinearAttention(key_heads=0, value_heads=heads, key_head_dim=1, value_head_dim=lru // heads,
                                           conv_kernel=read_int(config, "conv1d_width", 1, MAX_DIM, default=4),
                                           griffin=True)
    elif reader.rwkv:  # RwkvSelfAttention: attention_hidden_size wide (head_dim, one head); the state h wide
        fields["linear"] = LinearAttention(key_heads=0, value_heads=1, key_head_dim=hidden, value_head_dim=head_dim,
                                           conv_kernel=0, rwkv=True)
    elif reader.lightning:  # MiniMaxLightningAttention: the attention heads and head_dim
        fields["linear"] = LinearAttention(key_heads=heads, value_heads=heads, key_head_dim=head_dim,
                                           value_head_dim=head_dim, conv_kernel=0, lightning=True)
    elif reader.linear:
        fields["linear"] = LinearAttention(
            key_heads=read_int(config, "linear_num_key_heads", 1, MAX_HEADS),
            value_heads=read_int(config, "linear_num_value_heads", 1, MAX_HEADS),
            key_head_dim=read_int(config, "linear_key_head_dim", 1, MAX_DIM),
            value_head_dim=read_int(config, "linear_value_head_dim", 1, MAX_DIM),
            conv_kernel=read_int(config, "linear_conv_kernel_dim", 1, MAX_DIM),
            kda=bool(reader.kda), full_rank_gates=reader.kda == "bailing",
        )
        fields["head_gate"] = reader.kda == "bailing"
    return fields


def _read_layers(config: Mapping[str, object], reader: Reader, layers: int, max_positions: int | None,
                 assumptions: list[str | Phrase]) -> dict[str, Any]:
    """Per-layer attention kinds and the window or chunk the capped ones keep. A layer kind the reader
    does not know (a Mamba, convolution or other mixer of a type read as Llama-style) is read as full
    attention and named among the assumptions: an answer marked approximate, never a refusal."""
    kinds = [AttentionKind.FULL] * layers
    window = chunk = 0
    layer_types = config.get("layer_types")
    if layer_types is not None:
        if not isinstance(layer_types, list) or len(layer_types) != layers:
            raise ValidationError("layer_types", short(layer_types), f"expected a list of {layers} layer types")
        names = {"full_attention": AttentionKind.FULL, "sliding_attention": AttentionKind.SLIDING,
                 "chunked_attention": AttentionKind.CHUNKED, "linear_attention": AttentionKind.LINEAR}
        if reader.indexer or reader.qwen4:  # DSA, QSA: attention over the tokens its indexer picks, the cache whole
            names["indexed_attention"] = AttentionKind.FULL
        if reader.minimax3:  # block-sparse attention over the blocks its indexer picks, the cache whole
            names["minimax_m3_sparse"] = AttentionKind.FULL
        if reader.mamba is not None:  # transformers 5 names Mamba layers linear_attention
            names |= {"linear_attention": AttentionKind.MAMBA, "mamba": AttentionKind.MAMBA,
                      "attention": AttentionKind.FULL}
        if reader.shared_block:  # Zamba2: "hybrid" layers attend (a shared block), the others a Mamba mixer alone
            names |= {"hybrid": AttentionKind.FULL, "linear_attention": AttentionKind.NONE,
                      "mamba": AttentionKind.NONE}
        if reader.mlp_apart:  # Nemotron-H's layers of an MLP or experts only
            names |= {"mlp": AttentionKind.NONE, "moe": AttentionKind.NONE}
        if reader.short_conv:
            names["conv"] = AttentionKind.CONV
        if reader.cca or reader.inkling:  # ZAYA, Inkling: attention beside convolutions, whole or windowed
            names |= {"hybrid": AttentionKind.FULL, "hybrid_sliding": AttentionKind.SLIDING}
        unknown: dict[str, int] = {}
        for i, value in enumerate(layer_types):
            if not isinstance(value, str) or len(value) > 100:
                raise ValidationError("layer_types", short(value), "expected a list of layer-type names")
            kind = names.get(value)
            if kind is None or (kind is AttentionKind.LINEAR and not reader.linear and reader.mamba is None) or (
                    kind is AttentionKind.CHUNKED and not reader.chunked):
                unknown[value] = unknown.get(value, 0) + 1
                kind = AttentionKind.FULL
            kinds[i] = kind
        for value, count in unknown.items():
            assumptions.append(phrase("assumption.layer_kind", kind=repr(value), count=count,
                                      model_type=repr(model_type_name(config))))
    if reader.short_conv and layer_types is None:  # Lfm2Config: the full_attn_idxs attend, the others convolve
        full = _int_list(config, "full_attn_idxs", layers) if config.get("full_attn_idxs") is not None else None
        kinds = [AttentionKind.FULL if full is None or i in full else AttentionKind.CONV for i in range(layers)]
    if reader.linear:
        if reader.rwkv:
            kinds = [AttentionKind.LINEAR] * layers
        elif layer_types is None:
            interval = read_int(config, "full_attention_interval", 1, MAX_LAYERS, default=4)
            kinds = [AttentionKind.FULL if (i + 1) % interval == 0 else AttentionKind.LINEAR for i in range(layers)]
    elif reader.chunked:
        chunk = read_int(config, "attention_chunk_size", 1, MAX_POSITIONS, default=0)
        if layer_types is None and chunk:
            no_rope = config.get("no_rope_layers")
            if isinstance(no_rope, list) and len(no_rope) == layers:
                uses_rope = [bool(x) for x in no_rope]
            else:  # transformers' default: every 4th layer is global attention without RoPE
                uses_rope = [(i + 1) % 4 != 0 for i in range(layers)]
            kinds = [AttentionKind.CHUNKED if rope else AttentionKind.FULL for rope in uses_rope]
    if reader.sliding is not None:
        sliding_on = reader.sliding is not Sliding.QWEN or read_bool(config, "use_sliding_window", default=False)
        # Dots1Config: sliding_window 4096 and max_window_layers 62 when absent; an explicit null turns it off
        dots = reader.sliding is Sliding.WINDOW_LAYERS
        if dots and "sliding_window" in config and config["sliding_window"] is None:
            sliding_on = False
        window = (read_int(config, "sliding_window", 1, MAX_POSITIONS, default=4096 if dots else 0)
                  if sliding_on else 0)
        if reader.sliding is Sliding.MIMO and config.get("sliding_window_size") is not None:
            # the query too (MiMoV2FlashConfig)
            window = read_int(config, "sliding_window_size", 1, MAX_POSITIONS - 1) + 1
        if window and layer_types is None:
            if reader.sliding is Sliding.MIMO:
                given = config.get("hybrid_layer_pattern")
                slides = (_int_list_flags(given, layers, "hybrid_layer_pattern") if given is not None
                          else [i != 0 and (i + 1) % 6 != 0 for i in range(layers)])
                kinds = [AttentionKind.SLIDING if slide else AttentionKind.FULL for slide in slides]
            elif reader.sliding is Sliding.ALL:
                kinds = [AttentionKind.SLIDING] * layers
            elif reader.sliding in (Sliding.QWEN, Sliding.WINDOW_LAYERS):  # layers from max_window_layers on slide
                first = read_int(config, "max_window_layers", 0, MAX_LAYERS,
                             default=62 if reader.sliding is Sliding.WINDOW_LAYERS else 0)
                kinds = [AttentionKind.SLIDING if i >= first else AttentionKind.FULL for i in range(layers)]
            elif reader.sliding is Sliding.FIRST:
                kinds = [AttentionKind.SLIDING if i % reader.pattern else AttentionKind.FULL for i in range(layers)]
            else:
                pattern = read_int(config, "sliding_window_pattern", 1, MAX_LAYERS, default=reader.pattern)
                kinds = [AttentionKind.FULL if (i + 1) % pattern == 0 else AttentionKind.SLIDING for i in range(layers)]
                if reader.last_full:
                    kinds[-1] = AttentionKind.FULL
        if not window:
            kinds = [AttentionKind.FULL if k is AttentionKind.SLIDING else k for k in kinds]
    if reader.global_attention and kinds:  # Gemma4TextConfig forces its last layer to full attention
        kinds[-1] = AttentionKind.FULL
    if not window:  # a sliding layer without a window attends to everything (any reader)
        kinds = [AttentionKind.FULL if k is AttentionKind.SLIDING else k for k in kinds]
    # a window wider than max_position_embeddings is accepted, as transformers does: within the context it never
    # binds (EXAONE 4's and OLMo 3's class defaults: 4,096 over 2,048); beyond it, it still bounds the cache
    if AttentionKind.CHUNKED in kinds and not chunk:
        raise ValidationError("attention_chunk_size", None, "chunked_attention layers need an attention_chunk_size")
    return dict(kinds=tuple(kinds), sliding_window=window, attention_chunk=chunk)


def _read_doge(config: Mapping[str, object], layers: int, ffn: int) -> tuple[Moe | None, tuple[bool, ...], int]:
    """DogeDecoderLayer's MLP: DogeMLP, or with is_moe DogeCDMoE: that gated MLP (the shared expert) beside
    num_experts experts of one row each (up_embed and down_embed, no gate), num_experts_per_tok of them a token,
    chosen by product keys (router_gate: hidden to 2 × floor(√num_experts), unbiased)."""
    if not read_bool(config, "is_moe", default=False):
        return None, (), ffn
    experts = read_int(config, "num_experts", 1, MAX_EXPERTS, default=16384)
    per_token = read_int(config, "num_experts_per_tok", 1, MAX_EXPERTS, default=64)
    if per_token > experts:
        raise ValidationError("num_experts_per_tok", per_token, f"must not exceed the number of experts ({experts})")
    return (Moe(experts=experts, per_token=per_token, ffn=1, shared_ffn=ffn, gated=False, product_keys=True),
            (True,) * layers, ffn)


def _cross_layers(config: Mapping[str, object], kinds: tuple[AttentionKind, ...]) -> tuple[AttentionKind, ...]:
    """MllamaTextModel: the layers whose index cross_attention_layers lists attend to the image (indices past the
    depth build nothing, as there); its config class's default when not given."""
    given = config.get("cross_attention_layers")
    if not isinstance(given, list) or any(type(i) is not int or i < 0 for i in given):
        raise ValidationError("cross_attention_layers", short(given), "expected a list of layer indices")
    cross = set(given)
    return tuple(AttentionKind.CROSS if i in cross else kind for i, kind in enumerate(kinds))


def _mllama_config(config: Mapping[str, object]) -> dict[str, object]:
    """MllamaTextConfig has no head_dim: its attention is hidden_size / num_attention_heads wide, whatever is given;
    the embedding's padding row must be one of its vocab_size + 8 rows (nn.Embedding refuses it otherwise)."""
    rows = read_int(config, "vocab_size", 1, MAX_DIM * 10) + 8
    pad = config.get("pad_token_id", 128004)
    if type(pad) is int and not -rows <= pad < rows:
        raise ValidationError("pad_token_id", pad, f"must be a row of the embedding (vocab_size + 8 = {rows:,} rows)")
    return {k: v for k, v in config.items() if k != "head_dim"}


def model_type_name(config: Mapping[str, object]) -> str:
    return str(config.get("model_type") or "")


def _read_moe(config: Mapping[str, object], reader: Reader, layers: int,
              ffn: int) -> tuple[Moe | None, tuple[bool, ...], int]:
    """The experts, which layers have them, and the width of the dense layers' MLP."""
    kind = reader.moe
    if kind is None:
        return None, (), ffn
    experts_key = EXPERTS_KEY[kind]
    experts = read_int(config, experts_key, 0, MAX_EXPERTS, default=0)
    if kind is MoeKeys.GRANITE:  # GraniteMoeHybridDecoderLayer: the shared MLP always, the experts when any
        ffn = read_int(config, "shared_intermediate_size", 0, MAX_DIM)  # GraniteMoeSharedDecoderLayer: none when 0
    if experts == 0:
        return None, (), ffn
    if kind is MoeKeys.GEMMA4 and not read_bool(config, "enable_moe_block", default=False):
        return None, (), ffn
    per_token_key = ("experts_per_token" if kind is MoeKeys.GPT_OSS and "num_experts_per_tok" not in config
                     else "moe_k" if kind is MoeKeys.ERNIE else "top_k_experts" if kind is MoeKeys.GEMMA4
                     else "moe_topk" if kind is MoeKeys.HUNYUAN else "num_experts_per_tok")
    if kind is MoeKeys.HUNYUAN and isinstance(config.get(per_token_key), list):  # HunYuanMoEV1Gate: one per layer
        per_token = _per_layer_max(config, per_token_key, layers, MAX_EXPERTS)
    else:
        per_token = read_int(config, per_token_key, 1, MAX_EXPERTS)
    if per_token > experts:
        raise ValidationError(per_token_key, per_token, f"must not exceed the number of experts ({experts})")
    dense_ffn, expert_ffn, shared, shared_gate = ffn, ffn, 0, False
    if kind in (MoeKeys.MIXTRAL, MoeKeys.GPT_OSS, MoeKeys.OLMOE):
        moe_layers = [True] * layers
    elif kind is MoeKeys.NEMOTRON:  # NemotronHMoE: the layers layer_types calls "moe"
        expert_ffn = read_int(config, "moe_intermediate_size", 1, MAX_DIM)
        shared = read_int(config, "moe_shared_expert_intermediate_size", 1, MAX_DIM)
        types = config["layer_types"]  # set by _mamba_layer_types, checked by _read_layers
        assert isinstance(types, list)
        moe_layers = [t == "moe" for t in types]
    elif kind is MoeKeys.GRANITE:
        expert_ffn, shared = read_int(config, "intermediate_size", 1, MAX_DIM), ffn
        moe_layers = [True] * layers
    elif kind is MoeKeys.HUNYUAN:  # HunYuanMoEV1Moe: experts and shared_mlp, both HunYuanMoEV1MLP's width
        shared = expert_ffn
        moe_layers = [True] * layers
    elif kind is MoeKeys.LFM2:  # Lfm2MoeDecoderLayer: dense MLPs in the first num_dense_layers
        expert_ffn = read_int(config, "moe_intermediate_size", 1, MAX_DIM)
        dense = read_int(config, "num_dense_layers", 0, layers, default=2)
        moe_layers = [i >= dense for i in range(layers)]
    elif kind is MoeKeys.JAMBA:  # JambaConfig.layers_num_experts
        period = read_int(config, "expert_layer_period", 1, MAX_LAYERS, default=2)
        offset = read_int(config, "expert_layer_offset", 0, MAX_LAYERS, default=1)
        moe_layers = [i % period == offset for i in range(layers)]
    elif kind is MoeKeys.GEMMA4:  # Gemma4TextDecoderLayer: experts beside the dense MLP, every layer
        expert_ffn, shared = read_int(config, "moe_intermediate_size", 1, MAX_DIM), ffn
        moe_layers = [True] * layers
    elif kind is MoeKeys.ERNIE:  # Ernie4_5_MoeDecoderLayer: (i + 1) % interval == 0 and start <= i <= end
        expert_ffn = read_int(config, "moe_intermediate_size", 1, MAX_DIM)
        shared = expert_ffn * read_int(config, "moe_num_shared_experts", 0, MAX_EXPERTS, default=0)
        start = read_int(config, "moe_layer_start_index", 0, MAX_LAYERS, default=0)
        end = read_int(config, "moe_layer_end_index", -1, MAX_LAYERS, default=layers - 1)
        end = layers - 1 if end == -1 else end
        interval = read_int(config, "moe_layer_interval", 1, MAX_LAYERS, default=1)
        moe_layers = [(i + 1) % interval == 0 and start <= i <= end for i in range(layers)]
    elif kind is MoeKeys.QWEN:
        expert_ffn = read_int(config, "moe_intermediate_size", 1, MAX_DIM)
        shared = read_int(config, "shared_expert_intermediate_size", 0, MAX_DIM, default=0)
        shared_gate = shared > 0
        step = read_int(config, "decoder_sparse_step", 1, MAX_LAYERS, default=1)
        dense_only = _int_list(config, "mlp_only_layers", layers)
        moe_layers = [i not in dense_only and (i + 1) % step == 0 for i in range(layers)]
    elif kind is MoeKeys.DEEPSEEK:
        expert_ffn = read_int(config, "moe_intermediate_size", 1, MAX_DIM)
        shared = (read_int(config, reader.shared_key, 0, MAX_DIM, default=0) if reader.shared_key
                  else expert_ffn * read_int(config, "n_shared_experts", 0, MAX_EXPERTS, default=0))
        types = config.get("mlp_layer_types")
        if types is not None:  # transformers 5: "dense" or "sparse" per layer, which wins over the counts
            if not isinstance(types, list) or len(types) != layers or any(t not in ("dense", "sparse") for t in types):
                raise ValidationError("mlp_layer_types", short(types), f"expected {layers} of 'dense' or 'sparse'")
            moe_layers = [t == "sparse" for t in types]
        else:
            first = (reader.first_dense if reader.first_dense is not None
                     else read_int(config, "first_k_dense_replace", 0, layers, default=0))
            if isinstance(config.get("moe_layer_freq"), list):  # MiMo-V2: a 0 or 1 per layer, 1 for experts
                moe_layers = _int_list_flags(config["moe_layer_freq"], layers, "moe_layer_freq")
            else:
                freq = read_int(config, "moe_layer_freq", 1, MAX_LAYERS, default=1)
                moe_layers = [i >= first and i % freq == 0 for i in range(layers)]
    else:  # llama4: experts of intermediate_size plus a shared expert of the same width; dense layers are wider
        shared = expert_ffn
        dense_ffn = read_int(config, "intermediate_size_mlp", 1, MAX_DIM, default=ffn)
        step = read_int(config, "interleave_moe_layer_step", 1, MAX_LAYERS, default=1)
        listed = config.get("moe_layers")
        chosen = _int_list(config, "moe_layers", layers) if listed else set(range(step - 1, layers, step))
        moe_layers = [i in chosen for i in range(layers)]
    if not any(moe_layers):  # experts configured for no layer (a dense Nemotron-H, a Jamba offset past its period)
        return None, (), dense_ffn
    moe = Moe(experts=experts, per_token=per_token, ffn=expert_ffn, shared_ffn=shared, shared_gate=shared_gate,
              router_bias=kind is MoeKeys.GPT_OSS, expert_bias=kind is MoeKeys.GPT_OSS,
              score_bias=kind is MoeKeys.ERNIE or reader.score_bias, beside_dense=kind is MoeKeys.GEMMA4,
              gated=kind is not MoeKeys.NEMOTRON,
              latent=read_int(config, "moe_latent_size", 1, MAX_DIM, default=0) if kind is MoeKeys.NEMOTRON else 0)
    return moe, tuple(moe_layers), dense_ffn


def _per_layer_max(config: Mapping[str, object], key: str, layers: int, high: int) -> int:
    """The largest of a list of one integer per layer (Hunyuan's moe_topk)."""
    values = config[key]
    assert isinstance(values, list)
    if len(values) != layers:
        raise ValidationError(key, short(values), f"expected one number or a list of {layers}")
    return max(read_int({key: v}, key, 1, high) for v in values)


def _hunyuan_widths(config: Mapping[str, object], ffn: int, assumptions: list[str | Phrase]) -> None:
    """HunYuanMoEV1Moe builds every expert and one shared MLP intermediate_size wide; the released configs'
    own moe_intermediate_size and num_shared_expert (one number, or one per layer) say the same. Values
    that differ are not what transformers builds: they are named among the assumptions."""
    for key, built in (("moe_intermediate_size", ffn), ("num_shared_expert", 1)):
        given = config.get(key)
        if given is not None and any(v != built for v in (given if isinstance(given, list) else [given])):
            assumptions.append(phrase("assumption.ignored_key", key=key, value=short(given),
                                      model_type=repr(model_type_name(config))))


def _read_large4(config: Mapping[str, object], layers: int, model_type: str,
                 assumptions: list[str | Phrase]) -> dict[str, Any]:
    """Mistral Large 4 (MistralLarge4TextConfig.__post_init__): `no_rope_layers` (1: the layer uses RoPE), else
    every `no_rope_layer_interval`-th layer (4) without; a `kv_source_layers` that shares latents is not read."""
    listed = config.get("no_rope_layers")
    if listed is not None:
        nope = frozenset(i for i, rope in enumerate(_int_list_flags(listed, layers, "no_rope_layers")) if not rope)
    else:
        interval = read_int(config, "no_rope_layer_interval", 1, MAX_LAYERS, default=4)
        nope = frozenset(i for i in range(layers) if (i + 1) % interval == 0)
    sources = config.get("kv_source_layers")
    if sources is not None and sources != list(range(layers)):
        assumptions.append(phrase("assumption.ignored_key", key="kv_source_layers", value=short(sources),
                                  model_type=repr(model_type)))
    return dict(softmax_scaling=True, nope_layers=nope)


def _read_mimo(config: Mapping[str, object], fields: Mapping[str, Any],
               assumptions: list[str | Phrase]) -> dict[str, Any]:
    """MiMoV2FlashAttention: a sliding layer has twice num_key_value_heads and a sink per head, a full layer
    neither; every value head is v_head_dim wide. The checkpoint's own swa_* and sink keys say the same of
    the released model; a config where they differ is counted as transformers builds it, and says so."""
    kv_heads, heads = fields["kv_heads"], fields["heads"]
    if heads % (2 * kv_heads):
        raise ValidationError("num_key_value_heads", kv_heads,
                              f"twice it must divide num_attention_heads ({heads}): the sliding layers' KV heads")
    v_dim = read_int(config, "v_head_dim", 1, MAX_DIM, default=128)
    built = {"swa_num_key_value_heads": 2 * kv_heads, "swa_num_attention_heads": heads,
             "swa_head_dim": fields["head_dim"], "swa_v_head_dim": v_dim,
             "add_swa_attention_sink_bias": True, "add_full_attention_sink_bias": False}
    for key, value in built.items():
        if config.get(key) is not None and config.get(key) != value:
            assumptions.append(phrase("assumption.ignored_key", key=key, value=short(config[key]),
                                      model_type=repr(model_type_name(config))))
    return dict(kv_heads=2 * kv_heads, full_kv_heads=kv_heads, v_head_dim=v_dim, sliding_sinks=True)


def _gemma3n_width(config: Mapping[str, object], model_type: str, assumptions: list[str | Phrase]) -> object:
    """Gemma3nTextConfig's intermediate_size: one width (16,384 when not given) or one per layer, all alike in
    the released models; widths that differ are read as the widest, and said."""
    widths = config.get("intermediate_size", 16_384)
    if not isinstance(widths, list) or not widths:
        return widths
    if len({json.dumps(w) for w in widths}) > 1:
        assumptions.append(phrase("assumption.ignored_key", key="intermediate_size", value=short(widths),
                                  model_type=repr(model_type)))
    return max(read_int({"intermediate_size": w}, "intermediate_size", 1, MAX_DIM) for w in widths)


def _read_gemma3n(config: Mapping[str, object], fields: Mapping[str, Any]) -> dict[str, Any]:
    """Gemma3nTextDecoderLayer: AltUp over `altup_num_inputs` streams (its coefficients, router and norm, and the
    model's projections into and out of the streams), a Laurel block of `laurel_rank`, the per-layer input of
    `hidden_size_per_layer_input` from a table of `vocab_size_per_layer_input` rows; the last
    `num_kv_shared_layers` layers reuse the K/V of the last earlier layer of their kind (no k/v weights, no cache)."""
    layers = fields["layers"]
    shared = read_int(config, "num_kv_shared_layers", 0, layers - 1, default=15)
    kept = set(fields["kinds"][:layers - shared])
    if shared and kept != set(fields["kinds"]):  # Gemma3nTextConfig.kv_sharing_modes refuses it too
        raise ValidationError("num_kv_shared_layers", shared, "leaves a kind of layer with no earlier layer to reuse")
    return dict(kv_shared_layers=shared,
                per_layer_input=read_int(config, "hidden_size_per_layer_input", 0, MAX_DIM, default=256),
                per_layer_vocab=read_int(config, "vocab_size_per_layer_input", 1, MAX_DIM * 10, default=262_144),
                altup_inputs=read_int(config, "altup_num_inputs", 1, MAX_HEADS, default=4),
                laurel_rank=read_int(config, "laurel_rank", 0, MAX_DIM, default=64))


def _read_step3p5(config: Mapping[str, object], fields: Mapping[str, Any],
                  assumptions: list[str | Phrase]) -> dict[str, Any]:
    """Step3p7Attention: every layer's g_proj gates each head (`gating` True or "per-head"); the sliding layers
    have `num_sliding_attention_heads` query heads (their KV heads and head size the others'). Step3p7SparseMoeBlock:
    the shared expert is `share_expert_dim` wide, whatever the routed experts' width."""
    heads = read_int(config, "num_sliding_attention_heads", 1, MAX_HEADS)
    if heads % fields["kv_heads"]:
        raise ValidationError("num_sliding_attention_heads", heads,
                              f"must be a multiple of num_key_value_heads ({fields['kv_heads']})")
    types = config["layer_types"]
    assert isinstance(types, list)  # _step3p5_config made it
    if heads != fields["heads"] and AttentionKind.SLIDING not in fields["kinds"] and "sliding_attention" in types:
        # no window: transformers still gives those layers their own heads, read here as full layers
        raise ValidationError("sliding_window", None, "sliding_attention layers of their own head count need "
                                                      "a sliding_window")
    gating = config.get("gating", True)
    if gating not in (True, "per-head"):  # a gate per channel (g_proj heads × head_dim wide): not read
        assumptions.append(phrase("assumption.ignored_key", key="gating", value=short(gating),
                                  model_type=repr(model_type_name(config))))
    moe = fields["moe"]
    if moe is not None:
        moe = dataclasses.replace(moe, shared_ffn=read_int(config, "share_expert_dim", 1, MAX_DIM, default=1280))
    return dict(sliding_heads=heads if heads != fields["heads"] else 0, head_gate=True, moe=moe)


def _read_laguna(config: Mapping[str, object], fields: Mapping[str, Any],
                 assumptions: list[str | Phrase]) -> dict[str, Any]:
    """LagunaAttention: `num_attention_heads_per_layer` query heads (read per kind: the full layers' and the sliding
    layers'; a kind whose layers differ is read at its most, and said), num_key_value_heads in every layer; g_proj
    (unbiased) a gate per head when `gating` is True or "per-head", else per channel. LagunaSparseMoeBlock: a shared
    expert of shared_expert_intermediate_size (0: none)."""
    kinds, kv = fields["kinds"], fields["kv_heads"]
    listed = config.get("num_attention_heads_per_layer")
    if listed is not None and (not isinstance(listed, list) or len(listed) != len(kinds)):
        raise ValidationError("num_attention_heads_per_layer", short(listed), f"expected a list of {len(kinds)}")
    per_layer = [fields["heads"]] * len(kinds) if listed is None else [
        read_int({"num_attention_heads_per_layer": n}, "num_attention_heads_per_layer", 1, MAX_HEADS) for n in listed]
    by_kind: dict[AttentionKind, set[int]] = {}
    for kind, heads in zip(kinds, per_layer, strict=True):
        if heads % kv:
            raise ValidationError("num_attention_heads_per_layer", heads, f"must be a multiple of num_key_value_heads "
                                                                           f"({kv})")
        by_kind.setdefault(kind, set()).add(heads)
    if any(len(counts) > 1 for counts in by_kind.values()):
        assumptions.append(phrase("assumption.ignored_key", key="num_attention_heads_per_layer", value=short(listed),
                                  model_type=repr(model_type_name(config))))
    full = max(by_kind.get(AttentionKind.FULL, {fields["heads"]}))
    sliding = max(by_kind.get(AttentionKind.SLIDING, {full}))
    gating = config.get("gating", True)
    per_head = gating is True or gating == "per-head"
    moe = fields["moe"]
    if moe is not None:
        moe = dataclasses.replace(moe, shared_ffn=read_int(config, "shared_expert_intermediate_size", 0, MAX_DIM,
                                                       default=512))
    return dict(heads=full, sliding_heads=0 if sliding == full else sliding, head_gate=per_head,
                attention_gate=not per_head, gate_apart=not per_head, moe=moe)


def _inkling_config(config: Mapping[str, object]) -> dict[str, object]:
    """An Inkling text config as InklingTextConfig.__post_init__ reads it: layer_types from local_layer_ids (the
    sliding ones) when not given; mlp_layer_types dense before `dense_mlp_idx` (0); a checkpoint's
    dense_intermediate_size is the dense MLP's width, its intermediate_size then the experts'."""
    config = dict(config)
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    if config.get("layer_types") is None and config.get("local_layer_ids") is not None:
        local = _int_list(config, "local_layer_ids", layers)
        config["layer_types"] = ["hybrid_sliding" if i in local else "hybrid" for i in range(layers)]
    if config.get("mlp_layer_types") is None:
        dense = read_int(config, "dense_mlp_idx", 0, layers, default=0)
        config["mlp_layer_types"] = ["dense" if i < dense else "sparse" for i in range(layers)]
    if config.get("dense_intermediate_size") is not None:
        config["moe_intermediate_size"] = config.get("intermediate_size")
        config["intermediate_size"] = config["dense_intermediate_size"]
    return config


def _dots3_config(config: Mapping[str, object]) -> dict[str, object]:
    """A Dots3 text config as Dots3NoteTextConfig.__post_init__ reads it: layer_types (when not given "indexed" at
    layers 0, 1 and every 4th from 1, sliding elsewhere, unless use_sliding_window is false), "full_attention" read
    as "indexed_attention" unless use_dsa is false or per_layer_config is given; the indexer on indexed layers only
    (as indexer_types); the sliding layers' MLA sizes as swa_* keys, from per_layer_config over the model's keys or
    from the swa_* keys (64 heads, q and kv ranks 1024, head_dim 256 of which nope 192, v 128 by default)."""
    config = dict(config)
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    per_layer = config.get("per_layer_config")
    use_dsa = config.get("use_dsa", None if per_layer is not None else True)
    slides = config.get("use_sliding_window", True)
    types = config.get("layer_types") or ["sliding_attention" if slides and i > 1 and i % 4 != 1
                                          else "indexed_attention" for i in range(layers)]
    if not isinstance(types, list) or len(types) != layers:
        raise ValidationError("layer_types", short(types), f"expected a list of {layers} layer types")
    if use_dsa is not None:
        old, new = ("full_attention", "indexed_attention")[:: 1 if use_dsa else -1]
        types = [new if t == old else t for t in types]
    config |= {"layer_types": types, "indexer_types": ["full" if t == "indexed_attention" else "shared" for t in types]}
    first = types.index("sliding_attention") if "sliding_attention" in types else -1
    keys = ("num_attention_heads", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
    if isinstance(per_layer, Mapping):
        entry = next((v for k, v in per_layer.items() if str(k).isdigit() and int(k) == first), None)
        entry = entry if isinstance(entry, Mapping) else {}
        config |= {"swa_" + k: entry.get(k, config.get(k)) for k in keys}
    else:
        for key, value in zip(keys, (64, 1024, 1024, 192, None, 128), strict=True):
            config.setdefault("swa_" + key, value)
        if config["swa_qk_rope_head_dim"] is None:
            config["swa_qk_rope_head_dim"] = read_int(config, "swa_head_dim", 1, MAX_DIM, default=256) - read_int(
                config, "swa_qk_nope_head_dim", 0, MAX_DIM)
    return config


def _read_dots3(config: Mapping[str, object], fields: Mapping[str, Any]) -> dict[str, Any]:
    """Dots3NoteTextAttention: MLA of the swa_* sizes on sliding layers, g_proj (a gate per head), an RMSNorm over
    the rotary key (k_rope_only_layernorm); Dots3NoteTextMoE's shared MLP is n_shared_experts ×
    shared_experts_intermediate_size wide. transformers keeps the indexer's keys in fp32 (measured)."""
    moe, swa = fields["moe"], {k[4:]: v for k, v in config.items() if k.startswith("swa_")}
    if moe is not None:
        width = read_int(config, "shared_experts_intermediate_size", 1, MAX_DIM, default=1536)
        shared = read_int(config, "n_shared_experts", 0, MAX_EXPERTS, default=1)
        moe = dataclasses.replace(moe, shared_ffn=width * shared)
    heads = read_int(config, "swa_num_attention_heads", 1, MAX_HEADS)
    return dict(moe=moe, sliding_mla=_read_mla(swa), sliding_heads=0 if heads == fields["heads"] else heads,
                head_gate=True, rope_norm=True, indexer=dataclasses.replace(fields["indexer"], key_e=4))


def _read_inkling(config: Mapping[str, object], fields: Mapping[str, Any], two: bool) -> dict[str, Any]:
    """InklingAttention: a sliding layer's heads, KV heads and head size from the swa_* keys, a full layer's from
    num_attention_heads, num_key_value_heads and head_dim; d_rel and rel_extent; conv_kernel_size; the router's rows
    for n_shared_experts. InklingForCausalLM ties nothing (_tied_weights_keys = {}): lm_head is its own, whatever
    tie_word_embeddings says. Inkling 2 (`two`): no shared experts."""
    heads, kv, dim = fields["heads"], fields["kv_heads"], fields["head_dim"]
    swa_heads = read_int(config, "swa_num_attention_heads", 1, MAX_HEADS, default=heads)
    swa_kv = read_int(config, "swa_num_key_value_heads", 1, MAX_HEADS, default=kv)
    if swa_heads % swa_kv:
        raise ValidationError("swa_num_key_value_heads", swa_kv, f"must divide swa_num_attention_heads ({swa_heads})")
    moe = fields["moe"]
    return dict(kv_heads=swa_kv, head_dim=read_int(config, "swa_head_dim", 1, MAX_DIM, default=dim), full_kv_heads=kv,
                full_head_dim=dim, sliding_heads=swa_heads if swa_heads != heads else 0, embed_norm=True,
                tie_embeddings=False,
                inkling=Inkling(kernel=read_int(config, "conv_kernel_size", 1, MAX_DIM, default=4),
                                d_rel=read_int(config, "d_rel", 1, MAX_DIM, default=16),
                                rel_extent=read_int(config, "rel_extent", 1, MAX_POSITIONS, default=1024),
                                shared=moe.shared_ffn // moe.ffn if moe is not None else 0, two=two))


def _step3p5_config(config: Mapping[str, object]) -> dict[str, object]:
    """A Step 3.5/3.7 text config in the keys the readers know, as Step3p7TextConfig.__post_init__ reads it: lists
    padded with the `num_nextn_predict_layers` MTP layers cut to num_hidden_layers; every layer full attention
    unless `layer_types` says otherwise; experts in the layers of `mlp_layer_types`, else of the legacy
    `moe_layers_enum` (indices, a list or a comma-separated string), else from layer 3 on; the sliding layers'
    heads from `num_sliding_attention_heads`, else `attention_other_setting`, overridden per layer by a saved
    `per_layer_config`."""
    config = dict(config)
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    mtp = read_int(config, "num_nextn_predict_layers", 0, MAX_LAYERS, default=0)
    for key in ("layer_types", "mlp_layer_types"):
        value = config.get(key)
        if mtp and isinstance(value, list) and len(value) == layers + mtp:
            config[key] = value[:layers]
    if config.get("layer_types") is None:
        config["layer_types"] = ["full_attention"] * layers
    if config.get("mlp_layer_types") is None:
        listed = config.get("moe_layers_enum")
        items = listed.split(",") if isinstance(listed, str) else listed
        if items is None:
            sparse = set(range(3, layers))
        elif isinstance(items, list) and all((isinstance(i, int) and not isinstance(i, bool))
                                             or (isinstance(i, str) and (not i.strip() or i.strip().isdigit()))
                                             for i in items):
            sparse = {int(i) for i in items if str(i).strip()}
        else:
            raise ValidationError("moe_layers_enum", short(listed), "expected layer indices")
        config["mlp_layer_types"] = ["sparse" if i in sparse else "dense" for i in range(layers)]
    heads = config.get("num_sliding_attention_heads")
    other = config.get("attention_other_setting")
    if heads is None:
        heads = other.get("num_attention_heads") if isinstance(other, Mapping) and other else None
    heads = config.get("num_attention_heads") if heads is None else heads
    overrides = config.get("per_layer_config")
    types = config["layer_types"]
    if isinstance(overrides, Mapping) and isinstance(types, list):  # saved by transformers 5: the layers' own heads
        given = {}
        for key, value in overrides.items():
            if not isinstance(value, Mapping) or not str(key).isdigit():
                raise ValidationError("per_layer_config", short(overrides), "expected layer indices and objects")
            given[int(key)] = value.get("num_attention_heads", config.get("num_attention_heads"))
        sliding = {i for i, t in enumerate(types) if t == "sliding_attention"}
        values = {given.get(i, config.get("num_attention_heads")) for i in sliding}
        if any(given[i] != config.get("num_attention_heads") for i in set(given) - sliding) or len(values) > 1:
            raise ValidationError("per_layer_config", short(overrides),
                                  "only the sliding layers' num_attention_heads, one value, are read")
        heads = values.pop() if values else heads
    config["num_sliding_attention_heads"] = heads
    return config | {"n_shared_experts": 0}


def _read_gemma4(config: Mapping[str, object], fields: Mapping[str, Any], assumptions: list[str | Phrase], *,
                 per_layer: bool = True) -> dict[str, Any]:
    """Gemma4TextConfig: full-attention layers with a head of `global_head_dim` (512 when not given) and,
    where `attention_k_eq_v` holds, `num_global_key_value_heads` KV heads whose keys are their values; the
    last `num_kv_shared_layers` layers reusing an earlier layer's K/V; per-layer embeddings of
    `hidden_size_per_layer_input` values per layer from a table of `vocab_size_per_layer_input` rows."""
    k_eq_v = read_bool(config, "attention_k_eq_v", default=False)
    head_dim = read_int(config, "global_head_dim", 1, MAX_DIM, default=512)
    kv_heads = read_int(config, "num_global_key_value_heads", 1, MAX_HEADS, default=0) if k_eq_v else 0
    overrides = config.get("per_layer_config")
    if isinstance(overrides, Mapping) and overrides:  # a config saved by transformers 5: the full layers' sizes
        first = next(iter(overrides.values()))
        if isinstance(first, Mapping):
            head_dim = read_int(first, "head_dim", 1, MAX_DIM, default=head_dim)
            kv_heads = read_int(first, "num_key_value_heads", 1, MAX_HEADS, default=kv_heads)
    if kv_heads and fields["heads"] % kv_heads:
        raise ValidationError("num_global_key_value_heads", kv_heads,
                              f"must divide num_attention_heads ({fields['heads']})")
    shared = read_int(config, "num_kv_shared_layers", 0, fields["layers"] - 1, default=0)
    ple = read_int(config, "hidden_size_per_layer_input", 0, MAX_DIM, default=0) if per_layer else 0  # unified: none
    return dict(full_head_dim=head_dim, full_kv_heads=kv_heads, full_k_eq_v=k_eq_v, kv_shared_layers=shared,
                double_wide_shared_mlp=read_bool(config, "use_double_wide_mlp", default=False), per_layer_input=ple,
                per_layer_vocab=read_int(config, "vocab_size_per_layer_input", 1, MAX_DIM * 10,
                                     default=fields["vocab"]) if ple else 0)


def _drafter(spec: ModelSpec, top: Mapping[str, object], model_type: str) -> ModelSpec:
    """Gemma4AssistantForCausalLM (and its unified twin): the text_config's layers, every one reusing the target's
    K/V (num_kv_shared_layers: all, what Gemma4AssistantConfig sets when not given), pre_projection from the target's
    embedding and last hidden state (2 × backbone_hidden_size) to the drafter's width, post_projection back, and with
    use_ordered_embeddings the centroids that pick the head's rows (Gemma4AssistantMaskedEmbedder; its token_ordering
    is a buffer, not a parameter). Gemma4AssistantConfig.validate_architecture's refusals are kept."""
    text = top.get("text_config")
    text = text if isinstance(text, Mapping) else {}
    shared = read_int(text, "num_kv_shared_layers", 0, MAX_LAYERS, default=0)
    if shared not in (0, spec.layers):
        raise ValidationError("text_config.num_kv_shared_layers", shared,
                              f"a drafter's every layer reuses the target's K/V: {spec.layers} (or not given)")
    backbone = read_int(top, "backbone_hidden_size", 1, MAX_DIM,
                        default=1536 if model_type == "gemma4_assistant" else 3840)
    centroids = read_int(top, "num_centroids", 1, MAX_DIM, default=2048)
    ordered = read_bool(top, "use_ordered_embeddings", default=False)
    if ordered and spec.vocab % centroids:
        raise ValidationError("num_centroids", centroids, f"must divide the vocabulary ({spec.vocab})")
    note = phrase("model.note.drafter", count=spec.layers, backbone=f"{backbone:,}")
    return dataclasses.replace(spec, kv_shared_layers=spec.layers, drafter_backbone=backbone,
                               drafter_centroids=centroids if ordered else 0, notes=(*spec.notes, note))


NEMOTRON_H_PATTERN = {"M": "linear_attention", "*": "full_attention", "-": "mlp", "E": "moe"}
NEMOTRON_H_DEFAULT_LAYERS = ["linear_attention", "moe", "full_attention", "mlp"]  # NemotronHConfig without a pattern


def _mamba_layer_types(config: Mapping[str, object], keys: MambaKeys) -> dict[str, object]:
    """The config with its layers' kinds as `layer_types` (and, for Nemotron-H, the layers counted from
    them): NemotronHConfig's `layers_block_type`, `layer_types` or `hybrid_override_pattern`; Bamba's
    `attn_layer_indices`; Jamba's every `attn_layer_period`-th layer from `attn_layer_offset`; Falcon-H1's
    every layer attending (its mixers beside: Reader.parallel_mamba); Granite 4's `layer_types`, all Mamba when
    not given; Mamba-2's and Mamba-1's all Mamba, with the mixer's heads (Mamba-1: one head) standing for the
    attention heads they do not have."""
    config = dict(config)
    if keys is MambaKeys.NEMOTRON_H:
        for old, new in NEMOTRON_H_ALIASES.items():
            if old in config and new != "layer_types":
                config[new] = config.pop(old)
        types = config.get("layer_types", config.get("layers_block_type"))
        pattern = config.get("hybrid_override_pattern")
        if types is None and pattern is not None:
            if not isinstance(pattern, str) or not pattern or len(pattern) > MAX_LAYERS or set(pattern) - set(
                    NEMOTRON_H_PATTERN):
                raise ValidationError("hybrid_override_pattern", short(pattern),
                                      "expected a string of M (Mamba), * (attention), - (MLP) and E (experts)")
            types = [NEMOTRON_H_PATTERN[c] for c in pattern]
        types = NEMOTRON_H_DEFAULT_LAYERS if types is None else types
        if isinstance(types, list):  # NemotronHConfig counts the layers from their list (num_hidden_layers ignored)
            config["num_hidden_layers"] = len(types)
        config["layer_types"] = types
    elif keys is MambaKeys.BAMBA:
        layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
        attention = _int_list(config, "attn_layer_indices", layers)
        config["layer_types"] = ["full_attention" if i in attention else "linear_attention" for i in range(layers)]
    elif keys is MambaKeys.JAMBA:  # JambaConfig.layers_block_type
        layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
        period = read_int(config, "attn_layer_period", 1, MAX_LAYERS, default=8)
        offset = read_int(config, "attn_layer_offset", 0, period - 1, default=4)  # JambaConfig refuses more
        config["layer_types"] = ["full_attention" if i % period == offset else "linear_attention"
                                 for i in range(layers)]
    elif keys is MambaKeys.FALCON_H1:
        pass  # every layer attends, a Mamba mixer beside (Reader.parallel_mamba)
    elif config.get("layer_types") is None:
        config["layer_types"] = ["linear_attention"] * read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    if keys is MambaKeys.MAMBA2:
        heads = read_int(config, "num_heads", 1, MAX_HEADS)
        config |= {"num_attention_heads": heads, "num_key_value_heads": heads}
    if keys is MambaKeys.MAMBA1:  # no attention: one head as wide as the model stands for it
        config |= {"num_attention_heads": 1, "num_key_value_heads": 1}
    return config


def _legacy(config: Mapping[str, object], reader: Reader) -> dict[str, object]:
    """A 2019-23 decoder's config in the keys the readers know (readers.Legacy): its class's fixed values, the MLP's
    width from a factor of hidden_size, StarCoder's multi_query (one KV head, else every head), GPT-Neo's
    attention_layers (or attention_types, [[pattern, repeats], ...]) of "global" and "local" as layer_types."""
    legacy = reader.legacy
    assert legacy is not None
    config = {**config, **dict(legacy.fixed)}
    if config.get("intermediate_size") is None:
        key, factor, multiple = legacy.ffn
        value = factor if not key or config.get(key) is None else config[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1000:
            raise ValidationError(key, short(value), "expected a number above 0")
        width = math.ceil(value * read_int(config, "hidden_size", 1, MAX_DIM))
        step = read_int(config, multiple, 1, MAX_DIM, default=1) if multiple else 1
        config["intermediate_size"] = -(-width // step) * step
    if "multi_query" in reader.extra:
        config["num_key_value_heads"] = 1 if read_bool(config, "multi_query", default=True) else config.get(
            "num_attention_heads")
    if "attention_layers" in reader.extra:
        layers, spans = config.get("attention_layers"), config.get("attention_types")
        if layers is None and isinstance(spans, list):
            layers = [t for span in spans if isinstance(span, list) and len(span) == 2 and isinstance(span[1], int)
                      for t in span[0] * span[1]]
        if layers is not None:
            if not isinstance(layers, list):
                raise ValidationError("attention_layers", short(layers), "expected a list of global and local")
            config["layer_types"] = [{"global": "full_attention", "local": "sliding_attention"}.get(t, t)
                                     for t in layers]
    return config


def _legacy_fields(config: Mapping[str, object], legacy: Legacy, fields: Mapping[str, Any], model_type: str,
                   assumptions: list[str | Phrase]) -> dict[str, Any]:
    """The spec fields a 2019-23 decoder adds: learned positions (OPT's table 2 rows longer), BLOOM's LayerNorm over
    the embeddings, OPT's final norm only with do_layer_norm_before; what is assumed said."""
    out: dict[str, Any] = {"embed_norm": legacy.embed_norm,
                           "final_norm": read_bool(config, "do_layer_norm_before", default=True)}
    if legacy.positions >= 0:
        positions = fields["max_positions"]
        if positions is None:
            raise ValidationError("max_position_embeddings", None, "learned positions need a table size")
        out["learned_positions"] = positions + legacy.positions
    proj = config.get("word_embed_proj_dim")
    if proj is not None and proj != fields["hidden"]:  # OPT-350m: project_in and project_out
        assumptions.append(phrase("assumption.ignored_key", key="word_embed_proj_dim", value=short(proj),
                                  model_type=repr(model_type)))
    if legacy.approx:
        assumptions.append(phrase(f"assumption.legacy.{legacy.approx}"))
    return out


def _falcon(config: Mapping[str, object], reader: Reader) -> tuple[dict[str, object], Reader]:
    """Falcon's config in the keys the readers know, as FalconAttention and FalconDecoderLayer read it: the
    new decoder architecture keeps num_kv_heads (transformers caches them repeated to every head), multi-query
    one, else every head; the MLP ffn_hidden_size wide (4 × hidden); parallel attention after one LayerNorm,
    or two (ln_attn, ln_mlp) with the new architecture or num_ln_in_parallel_attn 2; serial blocks two."""
    config = dict(config)
    heads = read_int(config, "num_attention_heads", 1, MAX_HEADS)
    hidden = read_int(config, "hidden_size", 1, MAX_DIM)
    new = read_bool(config, "new_decoder_architecture", default=False)
    if new or not read_bool(config, "multi_query", default=True):
        config["num_key_value_heads"] = read_int(config, "num_kv_heads", 1, MAX_HEADS, default=heads)
    else:
        config["num_key_value_heads"] = 1
    config["intermediate_size"] = read_int(config, "ffn_hidden_size", 1, MAX_DIM, default=4 * hidden)
    parallel = read_bool(config, "parallel_attn", default=True)
    norms = read_int(config, "num_ln_in_parallel_attn", 1, 2, default=2 if new else 1) if parallel else 2
    config["repeated_kv_cache"] = new
    return config, dataclasses.replace(reader, norms_per_layer=norms, block=Block.PHI if parallel else Block.LLAMA)


def _minicpm3_config(config: Mapping[str, object]) -> dict[str, object]:
    """MiniCPM3Config.__post_init__: v_head_dim hidden / heads when None or not given."""
    if config.get("v_head_dim") is not None:
        return dict(config)
    return {**config, "v_head_dim": read_int(config, "hidden_size", 1, MAX_DIM) // read_int(
        config, "num_attention_heads", 1, MAX_HEADS)}


def _stablelm(config: Mapping[str, object], reader: Reader) -> tuple[dict[str, object], Reader]:
    """StableLM's config as StableLmAttention and StableLmDecoderLayer read it: q/k/v biased by use_qkv_bias (not
    attention_bias), head_dim hidden / heads (a head_dim key is not read), and with use_parallel_residual one
    LayerNorm feeding attention and the MLP side by side (no post_attention_layernorm)."""
    config = {k: v for k, v in config.items() if k != "head_dim"}
    config["attention_bias"] = read_bool(config, "use_qkv_bias", default=False)
    parallel = read_bool(config, "use_parallel_residual", default=False)
    return config, dataclasses.replace(reader, norms_per_layer=1 if parallel else 2)


def _glm5_config(config: Mapping[str, object]) -> dict[str, object]:
    """A GLM-5.3 text config as Glm5NextTextConfig.__post_init__ reads it: layer_types (KDA "linear_attention" but
    every 4th layer from the 4th, "full_attention" read as "indexed_attention"), three dense layers first; its
    head_dim is qk_rope_head_dim (0), read as the query head's nope + rope."""
    config = dict(config)
    config["head_dim"] = (read_int(config, "qk_nope_head_dim", 1, MAX_DIM)
                          + read_int(config, "qk_rope_head_dim", 0, MAX_DIM))
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    types = config.get("layer_types") or ["indexed_attention" if i % 4 == 3 else "linear_attention"
                                          for i in range(layers)]
    if isinstance(types, list):
        config["layer_types"] = ["indexed_attention" if t == "full_attention" else t for t in types]
    config.setdefault("mlp_layer_types", ["dense" if i < 3 else "sparse" for i in range(layers)])
    return config


def _kda_config(config: Mapping[str, object], variant: str) -> dict[str, object]:
    """A Kimi Delta Attention hybrid's config in the keys the readers know, as its config class reads it, the
    experts as DeepSeek names them. Kimi Linear (KimiLinearConfig.__post_init__): the heads, head size and
    kernel of `linear_attn_config` (else linear_num_heads, linear_head_dim, linear_conv_kernel_dim), its
    1-indexed kda_layers and full_attn_layers (else every 4th layer from the 5th attends), one dense layer
    first. Ling's hybrid (BailingHybridConfig): num_attention_heads of head_dim, short_conv_kernel_size, the
    last of every layer_group_size layers attends, two dense layers first."""
    config = dict(config)
    linear = config.get("linear_attn_config") or {}
    if not isinstance(linear, Mapping):
        raise ValidationError("linear_attn_config", short(linear), "expected an object")
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    if variant == "bailing":
        # the linear_* keys a saved config carries win over what __post_init__ derives (head_dim is saved as
        # qk_rope_head_dim, so only a hand-written config reaches the derivation)
        heads = config.get("linear_num_heads", config.get("num_attention_heads"))
        head_dim = config.get("linear_head_dim", config.get("head_dim", 128))
        kernel = config.get("linear_conv_kernel_dim", config.get("short_conv_kernel_size", 4))
        group = read_int(config, "layer_group_size", 1, MAX_LAYERS, default=6)
        if config.get("layer_types") is None:
            config["layer_types"] = ["full_attention" if (i + 1) % group == 0 else "linear_attention"
                                     for i in range(layers)]
        config.setdefault("first_k_dense_replace", 2)
    else:
        for key in ("num_heads", "head_dim", "short_conv_kernel_size"):  # checked under their own names
            if key in linear:
                name = f"linear_attn_config.{key}"
                read_int({name: linear[key]}, name, 1, MAX_DIM)
        heads = linear.get("num_heads", config.get("linear_num_heads", 32))
        head_dim = linear.get("head_dim", config.get("linear_head_dim", 128))
        kernel = linear.get("short_conv_kernel_size", config.get("linear_conv_kernel_dim", 4))
    config |= {"linear_num_key_heads": heads, "linear_num_value_heads": heads, "linear_key_head_dim": head_dim,
               "linear_value_head_dim": head_dim, "linear_conv_kernel_dim": kernel}
    if config.get("layer_types") is None:
        full, kda = linear.get("full_attn_layers"), linear.get("kda_layers")
        if full is not None and kda is not None:
            types: list[object] = [None] * layers
            for value, numbers in (("full_attention", full), ("linear_attention", kda)):
                if not isinstance(numbers, list) or any(isinstance(n, bool) or not isinstance(n, int)
                                                        or not 1 <= n <= layers for n in numbers):
                    raise ValidationError("linear_attn_config", short(numbers),
                                          f"expected lists of layer numbers from 1 to {layers}")
                for number in numbers:
                    types[number - 1] = value
            if None in types:
                raise ValidationError("linear_attn_config", short(linear),
                                      f"kda_layers and full_attn_layers must name each of the {layers} layers")
            config["layer_types"] = types
        else:
            config["layer_types"] = ["full_attention" if i and i % 4 == 0 else "linear_attention"
                                     for i in range(layers)]
    # their names for the experts, with their classes' defaults (8 per token, one shared expert)
    for old, new, default in (("num_experts", "n_routed_experts", None), ("num_experts_per_token",
                                                                          "num_experts_per_tok", 8),
                              ("num_shared_experts", "n_shared_experts", 1)):
        if new not in config and config.get(old, default) is not None:
            config[new] = config.get(old, default)
    config.setdefault("first_k_dense_replace", 1)
    return config


def _longcat_config(config: Mapping[str, object]) -> dict[str, object]:
    """A LongCat-Flash config in the keys the readers know, as LongcatFlashConfig reads it: each of its `num_layers`
    layers is two sublayers (num_hidden_layers = 2 × num_layers), each of MLA and a dense MLP of `ffn_hidden_size`
    after two norms (LongcatFlashDecoderLayer); the first of the two also feeds the shortcut MoE, `n_routed_experts`
    of `expert_ffn_hidden_size` (`moe_topk` per token) and `zero_expert_num` zero-computation experts."""
    config = dict(config)
    if config.get("num_layers") is not None or config.get("num_hidden_layers") is None:
        config["num_hidden_layers"] = 2 * read_int(config, "num_layers", 1, MAX_LAYERS // 2, default=28)
    else:  # the class's setter: num_layers = num_hidden_layers // 2
        config["num_hidden_layers"] = 2 * (read_int(config, "num_hidden_layers", 2, MAX_LAYERS) // 2)
    head = config.get("qk_head_dim")
    if head is not None and head != (read_int(config, "qk_nope_head_dim", 0, MAX_DIM, default=128)
                                     + read_int(config, "qk_rope_head_dim", 1, MAX_DIM, default=64)):
        raise ValidationError("qk_head_dim", short(head), "must be qk_nope_head_dim + qk_rope_head_dim")
    for key, name, default in (("intermediate_size", "ffn_hidden_size", 12288),
                               ("moe_intermediate_size", "expert_ffn_hidden_size", 2048),
                               ("num_experts_per_tok", "moe_topk", 12)):
        config[key] = config.get(name, config.get(key, default))
    return config | {"first_k_dense_replace": 0, "moe_layer_freq": 2, "n_shared_experts": 0}


DSV4_TYPES = {"sliding_attention": 0, "compressed_sparse_attention": 1, "heavily_compressed_attention": 2}


def _cohere2_moe_config(config: Mapping[str, object], reader: Reader) -> tuple[dict[str, object], Reader]:
    """A Command A Plus config in DeepSeek's keys, as Cohere2MoeConfig.__post_init__ and Cohere2MoeDecoderLayer read
    it: `num_experts` of `intermediate_size` (the shared expert `num_shared_experts` times that), the first
    `first_k_dense_replace` layers (else `mlp_layer_types`) a dense MLP of `prefix_dense_intermediate_size` (else
    `intermediate_size`); unless `layer_types` says, the prefix's every `prefix_dense_sliding_window_pattern`-th
    layer and the others' every `sliding_window_pattern`-th attend in full. RMSNorms in place of the LayerNorms
    when `rms_norm_eps` is set (the same weights)."""
    config = dict(config)
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    first = read_int(config, "first_k_dense_replace", 0, layers, default=0)
    if config.get("layer_types") is None:
        prefix = read_int(config, "prefix_dense_sliding_window_pattern", 1, MAX_LAYERS, default=1)
        rest = read_int(config, "sliding_window_pattern", 1, MAX_LAYERS, default=4)
        config["layer_types"] = [("sliding_attention" if (i + 1) % pattern else "full_attention")
                                 for count, pattern in ((first, prefix), (layers - first, rest)) for i in range(count)]
    if config.get("mlp_layer_types") is None:
        config["mlp_layer_types"] = ["dense" if i < first else "sparse" for i in range(layers)]
    width = config.get("intermediate_size")
    config |= {"n_routed_experts": config.get("num_experts"), "n_shared_experts": config.get("num_shared_experts", 0),
               "moe_intermediate_size": width, "first_k_dense_replace": 0,
               "intermediate_size": config.get("prefix_dense_intermediate_size") or width}
    if config.get("rms_norm_eps") is not None:
        reader = dataclasses.replace(reader, norm=Norm.RMS, compute=NormCompute.RMS)
    return config, reader


def _minimax3_config(config: Mapping[str, object]) -> dict[str, object]:
    """A MiniMax-M3 text config in DeepSeek's keys, as MiniMaxM3VLTextConfig.__post_init__ reads it: the indexer's
    sizes from the hub's `sparse_attention_config` (sparse_num_index_heads, sparse_index_dim, ...) and its layers
    from `sparse_attention_freq` (1: minimax_m3_sparse) unless `layer_types` says; `num_local_experts` experts of
    `intermediate_size`, dense layers of `dense_intermediate_size` by `mlp_layer_types` or `moe_layer_freq`."""
    config = dict(config)
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    sparse = config.get("sparse_attention_config") or {}
    if not isinstance(sparse, Mapping):
        raise ValidationError("sparse_attention_config", short(sparse), "expected an object")
    for key, legacy in (("index_n_heads", "sparse_num_index_heads"), ("index_head_dim", "sparse_index_dim"),
                        ("index_block_size", "sparse_block_size"), ("index_topk_blocks", "sparse_topk_blocks")):
        if legacy in sparse:
            config[key] = sparse[legacy]
    if config.get("layer_types") is None:
        freq = sparse.get("sparse_attention_freq")
        if freq is not None:
            flags = _int_list_flags(freq, layers, "sparse_attention_config.sparse_attention_freq")
            config["layer_types"] = ["minimax_m3_sparse" if f else "full_attention" for f in flags]
        else:
            config["layer_types"] = ["full_attention"] * layers
    if config.get("mlp_layer_types") is None and isinstance(config.get("moe_layer_freq"), list):
        flags = _int_list_flags(config["moe_layer_freq"], layers, "moe_layer_freq")
        config["mlp_layer_types"] = ["sparse" if f else "dense" for f in flags]
    return config | {"n_routed_experts": config.get("num_local_experts"), "n_shared_experts": 0,
                     "moe_intermediate_size": config.get("intermediate_size"), "first_k_dense_replace": 0,
                     "moe_layer_freq": 1, "intermediate_size": config.get("dense_intermediate_size")}


ZAMBA2_DEFAULT_LAYERS = (["linear_attention"] + (["linear_attention"] * 5 + ["hybrid"]) * 7 + ["linear_attention"] * 4
                         + ["hybrid"] + ["linear_attention"] * 3 + ["hybrid"] + ["linear_attention"] * 2)


def _zamba_config(config: Mapping[str, object], zamba1: bool) -> dict[str, object]:
    """A Zamba2 (or Zamba) config as Zamba2Config.__post_init__ (ZambaConfig's) reads it: `layers_block_type` makes
    the layers, its length the depth (a num_hidden_layers given must equal it: transformers 5.23's validate_layer_type
    refuses the config otherwise); when not given, Zamba2's 54-layer list (Zamba:
    layer 2 and every attn_layer_period-th of the rest from attn_layer_offset). The shared attention reads 2 × hidden
    (Zamba: attention_hidden_size if given) with heads of 2 × hidden ÷ num_attention_heads (Zamba: attention_head_dim
    if given; Zamba2 whatever head_dim says); Zamba2's intermediate_size 4 × hidden unless given."""
    hidden = read_int(config, "hidden_size", 1, MAX_DIM)
    heads = read_int(config, "num_attention_heads", 1, MAX_HEADS, default=32)
    if 2 * hidden % heads:
        raise ValidationError("num_attention_heads", heads, f"must divide 2 × hidden_size ({2 * hidden})")
    types = config.get("layers_block_type", config.get("layer_types"))
    if types is None and zamba1:
        layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
        period = read_int(config, "attn_layer_period", 1, MAX_LAYERS, default=6)
        offset = read_int(config, "attn_layer_offset", 0, MAX_LAYERS, default=4)
        types = ["linear_attention", "linear_attention", "hybrid"] + [
            "hybrid" if i % period == offset else "linear_attention" for i in range(layers - 3)]
    types = list(ZAMBA2_DEFAULT_LAYERS) if types is None else types
    if not isinstance(types, list) or not types or len(types) > MAX_LAYERS:
        raise ValidationError("layers_block_type", short(types), "expected a list of layer types")
    if config.get("num_hidden_layers") is not None and config["num_hidden_layers"] != len(types):
        raise ValidationError("num_hidden_layers", short(config["num_hidden_layers"]),
                              f"must equal the {len(types)} layers of layers_block_type (transformers refuses it)")
    head_dim = 2 * hidden // heads
    if zamba1:
        head_dim = read_int(config, "attention_head_dim", 1, MAX_DIM, default=head_dim)
    return {**config, "layer_types": types, "num_hidden_layers": len(types), "head_dim": head_dim,
            "attention_hidden_size": read_int(config, "attention_hidden_size", 1, MAX_DIM, default=2 * hidden)
            if zamba1 else 2 * hidden, "intermediate_size": config.get("intermediate_size") or 4 * hidden}


def _minimax_config(config: Mapping[str, object]) -> dict[str, object]:
    """A MiniMax-01 config with its layer_types: as given, else from the hub's `attn_type_list` (0 lightning, 1
    softmax attention: MiniMaxText01ForCausalLM), else MiniMaxConfig.__post_init__'s (layers 0, 2, 4... full)."""
    if config.get("layer_types") is not None:
        return dict(config)
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    listed = config.get("attn_type_list")
    if listed is None:
        types = ["full_attention" if i % 2 == 0 else "linear_attention" for i in range(layers)]
    else:
        types = ["full_attention" if f else "linear_attention"
                 for f in _int_list_flags(listed, layers, "attn_type_list")]
    return {**config, "layer_types": types}


def _griffin_config(config: Mapping[str, object]) -> dict[str, object]:
    """RecurrentGemmaConfig.layers_block_type (block_types over and over: recurrent, else local attention) and
    RecurrentGemmaMlp's width, half intermediate_size."""
    blocks = config.get("block_types", ["recurrent", "recurrent", "attention"])
    if not isinstance(blocks, list) or not blocks:
        raise ValidationError("block_types", short(blocks), "expected a list of block types")
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    return {**config, "intermediate_size": read_int(config, "intermediate_size", 2, MAX_DIM) // 2,
            "sliding_window": config.get("attention_window_size", 2048), "layer_types": [
        "linear_attention" if b == "recurrent" else "sliding_attention" for b in (blocks * layers)[:layers]]}


def _dsv4_config(config: Mapping[str, object]) -> dict[str, object]:
    """A DeepSeek-V4 config in the keys the readers know, as DeepseekV4Config.__post_init__ reads it: each layer's
    compressor (0 none, 1 CSA, 2 HCA, `compressed_types`) from `layer_types`, else the per-layer
    `compress_ratios` (0, 4, 128) of the released files, else two HCA layers then CSA and HCA in turn; the rates
    from `compress_rates` (or compress_rate_csa, compress_rate_hca; 4 and 128). Every layer slides over
    `sliding_window` and has experts (`mlp_layer_types` hash_moe or moe differ in their router's buffer only);
    the shared expert is one expert wide (DeepseekV4MLP reads intermediate_size, mapped to moe_intermediate_size,
    whatever n_shared_experts says), and the attention has one KV head and no biases."""
    config = dict(config)
    layers = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    types, ratios = config.pop("layer_types", None), config.get("compress_ratios")
    if types is None and ratios is not None:
        by_ratio = {0: "sliding_attention", 4: "compressed_sparse_attention", 128: "heavily_compressed_attention"}
        if not isinstance(ratios, list) or len(ratios) < layers or any(r not in by_ratio for r in ratios):
            raise ValidationError("compress_ratios", short(ratios), f"expected {layers} or more of 0, 4 and 128")
        types = [by_ratio[r] for r in ratios]
    if types is None:
        types = ["heavily_compressed_attention" if i < 2 or i % 2 == 0 else "compressed_sparse_attention"
                 for i in range(layers)]
    if not isinstance(types, list) or len(types) < layers or any(t not in DSV4_TYPES for t in types):
        raise ValidationError("layer_types", short(types), f"expected {layers} of {', '.join(DSV4_TYPES)}")
    config["compressed_types"] = [DSV4_TYPES[t] for t in types[:layers]]
    rates = config.get("compress_rates") or {}
    if not isinstance(rates, Mapping):
        raise ValidationError("compress_rates", short(rates), "expected an object")
    rates = {"compressed_sparse_attention": 4, "heavily_compressed_attention": 128, **rates}
    for key, old in (("compressed_sparse_attention", "compress_rate_csa"),
                     ("heavily_compressed_attention", "compress_rate_hca")):
        rates[key] = config.get(old) if config.get(old) is not None else rates[key]
        read_int({f"compress_rates.{key}": rates[key]}, f"compress_rates.{key}", 1, MAX_POSITIONS)
    config["compress_rates"] = rates
    mlp = config.pop("mlp_layer_types", None)
    if mlp is not None and (not isinstance(mlp, list) or len(mlp) < layers
                            or any(t not in ("hash_moe", "moe") for t in mlp)):
        raise ValidationError("mlp_layer_types", short(mlp), f"expected {layers} of hash_moe and moe")
    if config.get("intermediate_size") is not None:  # DeepseekV4Config.attribute_map
        config["moe_intermediate_size"] = config["intermediate_size"]
    return config | {"intermediate_size": None, "n_shared_experts": 1, "first_k_dense_replace": 0,
                     "num_key_value_heads": 1}


def _lfm2_ffn(config: Mapping[str, object], ffn: int) -> int:
    """Lfm2MLP's width: 2/3 of intermediate_size, times block_ffn_dim_multiplier (when given), rounded up to
    a multiple of block_multiple_of."""
    ffn = int(2 * ffn / 3)
    multiplier = config.get("block_ffn_dim_multiplier", 1.0)
    if multiplier is None:
        return ffn
    if isinstance(multiplier, bool) or not isinstance(multiplier, (int, float)) or not 0 < multiplier <= 100:
        raise ValidationError("block_ffn_dim_multiplier", short(multiplier), "expected a number above 0")
    multiple = read_int(config, "block_multiple_of", 1, MAX_DIM, default=256)
    ffn = int(multiplier * ffn)
    if ffn < 1:
        raise ValidationError("block_ffn_dim_multiplier", multiplier, "leaves the MLP without width")
    return multiple * ((ffn + multiple - 1) // multiple)


def _read_mamba1(config: Mapping[str, object], keys: MambaKeys, hidden: int) -> Mamba:
    """A Mamba-1 mixer (MambaMixer, JambaMambaMixer): expand × hidden wide (MambaConfig sets its
    intermediate_size so, whatever the file says), its time step of rank time_step_rank / mamba_dt_rank
    ("auto": ceil(hidden / 16))."""
    names = MAMBA_KEYS[keys]
    inner = read_int(config, names.expand, 1, MAX_DIM, default=2) * hidden
    rank = config.get(names.dt_rank)
    dt_rank = -(-hidden // 16) if rank in (None, "auto") else read_int(config, names.dt_rank, 1, MAX_DIM)
    return Mamba(heads=1, head_dim=inner, groups=1, state=read_int(config, names.state, 1, MAX_DIM, default=16),
                 conv_kernel=read_int(config, names.conv, 1, MAX_DIM, default=4),
                 conv_bias=read_bool(config, names.conv_bias, default=True),
                 proj_bias=read_bool(config, names.proj_bias, default=False), norm=False, version=1, dt_rank=dt_rank,
                 bc_dt_norms=keys is MambaKeys.JAMBA)


def _read_mamba(config: Mapping[str, object], keys: MambaKeys, hidden: int) -> Mamba:
    if keys in (MambaKeys.MAMBA1, MambaKeys.JAMBA, MambaKeys.ZAMBA):
        return _read_mamba1(config, keys, hidden)
    names = MAMBA_KEYS[keys]
    heads = read_int(config, names.heads, 1, MAX_HEADS)
    if config.get(names.head_dim) in (None, "auto"):  # BambaConfig: expand × hidden ÷ heads
        expand = read_int(config, names.expand, 1, MAX_DIM, default=2) if names.expand else 2
        if expand * hidden % heads:
            raise ValidationError(names.heads, heads, f"must divide {names.expand} × hidden_size ({expand * hidden})")
        head_dim = expand * hidden // heads
    else:
        head_dim = read_int(config, names.head_dim, 1, MAX_DIM)
    groups = read_int(config, names.groups, 1, MAX_HEADS, default=1)
    if heads % groups:
        raise ValidationError(names.groups, groups, f"must divide {names.heads} ({heads})")
    falcon = keys is MambaKeys.FALCON_H1
    inner = 0
    if falcon:  # FalconH1Mixer: mamba_d_ssm wide, else mamba_expand × hidden; the gated norm only if asked
        expand = read_int(config, names.expand, 1, MAX_DIM, default=2)
        inner = read_int(config, "mamba_d_ssm", 1, MAX_DIM, default=expand * hidden)
    return Mamba(heads=heads, head_dim=head_dim, groups=groups, state=read_int(config, names.state, 1, MAX_DIM),
                 conv_kernel=read_int(config, names.conv, 1, MAX_DIM, default=4),
                 conv_bias=read_bool(config, names.conv_bias, default=True),
                 proj_bias=read_bool(config, names.proj_bias, default=False), inner_size=inner,
                 norm=not falcon or read_bool(config, "mamba_rms_norm", default=False),
                 out_bias=read_bool(config, "projectors_bias", default=False) if falcon else None,
                 ssm_cache_bytes=4 if config.get("mamba_ssm_cache_dtype") == "float32" else 2)


def _read_mla(config: Mapping[str, object]) -> Mla:
    q_lora = config.get("q_lora_rank")
    return Mla(
        q_lora_rank=0 if q_lora is None else read_int(config, "q_lora_rank", 1, MAX_DIM),
        kv_lora_rank=read_int(config, "kv_lora_rank", 1, MAX_DIM),
        qk_nope_head_dim=read_int(config, "qk_nope_head_dim", 0, MAX_DIM),
        qk_rope_head_dim=read_int(config, "qk_rope_head_dim", 0, MAX_DIM),  # GLM-5.3: 0, no RoPE
        v_head_dim=read_int(config, "v_head_dim", 1, MAX_DIM),
    )


def _read_gpt2(config: Mapping[str, object], name: str, display: str, model_type: str) -> ModelSpec:
    """GPT-2, GPT-SW3 (GPT2Config) and GPT-1 (OpenAIGPTModel: the same layers, no final LayerNorm)."""
    hidden = read_int(config, "n_embd", 1, MAX_DIM, default=768)
    heads = read_int(config, "n_head", 1, MAX_HEADS, default=12)
    if hidden % heads:
        raise ValidationError("n_head", heads, f"must divide n_embd ({hidden})")
    inner = config.get("n_inner")
    ffn = 4 * hidden if inner is None else read_int(config, "n_inner", 1, MAX_DIM)
    positions = read_int(config, "n_positions", 1, MAX_DIM * 10, default=1024)
    return ModelSpec(
        name=name, display_name=display, block=Block.GPT2, hidden=hidden, model_type=model_type,
        final_norm=model_type != "openai-gpt",
        layers=read_int(config, "n_layer", 1, MAX_LAYERS, default=12), heads=heads, kv_heads=heads,
        head_dim=hidden // heads, ffn=ffn, vocab=read_int(config, "vocab_size", 1, MAX_DIM * 10, default=50257),
        tie_embeddings=read_bool(config, "tie_word_embeddings", default=True), gated_mlp=False, norm=Norm.LAYER,
        norm_compute=NormCompute.LAYER,
        qkv_bias=True, learned_positions=positions, max_positions=positions, dropout=True,
    )


# ---------------------------------------------------------------- typed reads


def _indexer_shared(config: Mapping[str, object], layers: int, freq: int = 1) -> frozenset[int]:
    """The layers whose indexer is shared (GlmMoeDsaConfig.__post_init__): `indexer_types` of "full" and "shared",
    else `index_topk_pattern` of F and S, else every `index_topk_freq`-th layer from `index_skip_topk_offset` - 1
    runs its own (freq 1, offset 2: every layer, as DeepSeek-V3.2 and GLM-5 do; Hy4's `freq` 4: layer 0 and
    every 4th from 1, as HYV4Config.__post_init__ lists them)."""
    types = config.get("indexer_types")
    pattern = config.get("index_topk_pattern")
    if types is None and pattern is not None:
        if not isinstance(pattern, str) or len(pattern) != layers or set(pattern) - set("FS"):
            raise ValidationError("index_topk_pattern", short(pattern), f"expected {layers} letters, each F or S")
        types = [{"F": "full", "S": "shared"}[c] for c in pattern]
    if types is None:
        freq = read_int(config, "index_topk_freq", 1, MAX_LAYERS, default=freq)
        offset = read_int(config, "index_skip_topk_offset", 0, MAX_LAYERS, default=2)
        return frozenset(i for i in range(layers) if max(i - offset + 1, 0) % freq)
    if not isinstance(types, list) or len(types) != layers or any(t not in ("full", "shared") for t in types):
        raise ValidationError("indexer_types", short(types), f"expected {layers} values, each full or shared")
    return frozenset(i for i, t in enumerate(types) if t == "shared")


def _int_list_flags(value: object, layers: int, key: str) -> list[bool]:
    """A list of `layers` zeros and ones (MiMo's hybrid_layer_pattern and moe_layer_freq), as booleans."""
    if not isinstance(value, list) or len(value) != layers or any(v not in (0, 1) or isinstance(v, float)
                                                                    for v in value):
        raise ValidationError(key, short(value), f"expected {layers} zeros and ones")
    return [bool(v) for v in value]


def _int_list(config: Mapping[str, object], key: str, layers: int) -> set[int]:
    value = config.get(key) or []
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < layers
                                          for v in value):
        raise ValidationError(key, short(value), f"expected a list of layer indices from 0 to {layers - 1}")
    return set(value)


MAX_NAME_CHARS = 1_000  # a Hugging Face id or a local path; the name is in every sentence that names the model


def _read_qwen4(config: Mapping[str, object], fields: Mapping[str, Any]) -> dict[str, Any]:
    """Qwen4-Exp: hc_count residual streams mixed at rank hc_lowrank (Qwen4ExpTextGatedResidual), no other norm; on
    the indexed (full) layers Qwen4ExpTextQSAIndexer: indexer_n_heads queries and one key of indexer_head_dim from the
    layer's input (index_qk_proj), q and k RMSNorms, the key of every token cached (update_indexer)."""
    kinds = fields["kinds"]
    full = frozenset(i for i, kind in enumerate(kinds) if kind is AttentionKind.FULL)
    if full and config.get("indexer_n_heads") is None:
        raise ValidationError("indexer_n_heads", None, "indexed_attention layers need the QSA indexer's keys "
                                                       "(indexer_n_heads, indexer_head_dim, indexer_budget)")
    indexer = Indexer(heads=read_int(config, "indexer_n_heads", 1, MAX_HEADS),
                      head_dim=read_int(config, "indexer_head_dim", 1, MAX_DIM),
                      topk=read_int(config, "indexer_budget", 1, MAX_POSITIONS),
                      shared=frozenset(range(len(kinds))) - full, from_hidden=True, positions=3) if full else None
    listed = config.get("ple_layer_ids") or []
    if not isinstance(listed, list) or any(type(i) is not int or not 0 < i <= len(kinds) or kinds[i - 1] is not
                                           AttentionKind.LINEAR for i in listed):
        raise ValidationError("ple_layer_ids", short(listed), "expected layer numbers from 1 of linear_attention "
                                                               "layers")
    ple = None
    if listed:  # Qwen4ExpTextNGramEmbedding: head g of PLE layer k takes the (k × heads + g + 1)-th prime from base
        ngram = read_int(config, "ngram_size", 2, 64, default=3)
        heads = (ngram - 1) * read_int(config, "heads_per_ngram", 1, MAX_HEADS, default=8)
        width = read_int(config, "ple_embed_dim", 1, MAX_DIM, default=fields["hidden"])
        if width % heads:
            raise ValidationError("ple_embed_dim", width, f"must be a multiple of the n-gram heads ({heads})")
        layers = sorted(set(listed))
        if heads * len(layers) > MAX_NGRAM_HEADS:  # each head's vocabulary a prime found by search: bounded
            raise ValidationError("heads_per_ngram", heads // (ngram - 1), f"(ngram_size - 1) × heads_per_ngram × "
                                  f"the {len(layers)} PLE layers: at most {MAX_NGRAM_HEADS:,} n-gram tables")
        primes = _primes_from(read_int(config, "ngram_vocab_size_base", 2, MAX_DIM * 100, default=20_000_000),
                              heads * len(layers))
        step = read_int(config, "make_ngram_vocab_size_divisible_by", 1, MAX_DIM, default=128)
        ple = Ple(layers=tuple(i - 1 for i in layers), width=width, heads=heads, ngram=ngram,
                  rows=tuple(-(-sum(primes[k * heads:(k + 1) * heads]) // step) * step for k in range(len(layers))),
                  kernel=read_int(config, "ple_conv_kernel_size", 1, MAX_DIM, default=4))
    return dict(indexer=indexer, final_norm=False, ple=ple, gated_residual=(
        read_int(config, "hc_count", 2, MAX_HEADS, default=4), read_int(config, "hc_lowrank", 1, MAX_DIM, default=320)))


@functools.cache
def _primes_from(start: int, count: int) -> tuple[int, ...]:
    """The first `count` primes from `start` on (Qwen4-Exp's n-gram vocabularies, near 20M)."""
    found: list[int] = []
    n = start
    while len(found) < count:
        if _is_prime(n):
            found.append(n)
        n += 1
    return tuple(found)


def _is_prime(n: int) -> bool:
    """Miller-Rabin with the bases 2 to 17, deterministic below 341,550,071,728,321 (Jaeschke, 1993): far above
    ngram_vocab_size_base's bound."""
    if n < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17)
    if n in bases:
        return True
    if any(n % p == 0 for p in bases):
        return False
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _hrm_config(config: Mapping[str, object]) -> dict[str, object]:
    """An HRM-Text config as HrmTextConfig.__post_init__ reads it: num_hidden_layers is the stacks' depth unless
    num_layers_per_stack is given, and becomes one layer per stack pass, num_layers_per_stack × H_cycles ×
    (L_cycles + 1) (DynamicCache's slots); every head its own K/V (HrmTextAttention)."""
    config = dict(config)
    high = read_int(config, "H_cycles", 1, MAX_LAYERS, default=2)
    low = read_int(config, "L_cycles", 1, MAX_LAYERS, default=3)
    cycles = high * (low + 1)
    given = read_int(config, "num_hidden_layers", 1, MAX_LAYERS)
    per = read_int(config, "num_layers_per_stack", 1, MAX_LAYERS, default=0)
    if per and given != per * cycles:
        raise ValidationError("num_hidden_layers", given, f"expected num_layers_per_stack × H_cycles × (L_cycles + 1) "
                                                          f"= {per * cycles}")
    if (per or given) * cycles > MAX_LAYERS:  # the passes, not a depth anyone typed
        key, value = ("H_cycles", high) if high >= low else ("L_cycles", low)  # the larger factor
        raise ValidationError(key, value, f"{per or given} layers a stack × H_cycles ({high:,}) × (L_cycles "
                              f"({low:,}) + 1) = {(per or given) * cycles:,} passes: at most {MAX_LAYERS:,}")
    config.update(num_layers_per_stack=per or given, num_hidden_layers=(per or given) * cycles,
                  num_key_value_heads=config.get("num_attention_heads"))
    return config


# Families whose config class derives its keys before the read (from_hf_config): the Reader's flag, the rewrite.
_REWRITES: tuple[tuple[str, Callable[[Mapping[str, object]], dict[str, object]]], ...] = (
    ("compressed", _dsv4_config), ("longcat", _longcat_config), ("step", _step3p5_config),
    ("minimax3", _minimax3_config), ("inkling", _inkling_config), ("dots3", _dots3_config),
    ("lightning", _minimax_config), ("griffin", _griffin_config), ("hrm", _hrm_config),
    ("minicpm3", _minicpm3_config), ("cross", _mllama_config))
