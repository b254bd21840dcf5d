"""Write the transformers defaults of the config keys the calculator reads.

A developer tool, not run by CI. An official config.json may omit keys and rely
on the defaults of its transformers config class (Gemma 3's vocabulary of
262,208 and head_dim of 256, DeepSeek-V2's q_lora_rank of 1536): the reader
must apply the same defaults to count the same model. This tool asks the
installed transformers for each supported model_type's defaults and writes the
memory-relevant ones to app/vramcalc/data/config_defaults.json.

Usage: python tools/config_defaults.py [MODEL_TYPE ...]
With model types, only theirs are (re)written and the other entries kept as they are, so a newer
transformers adds the types of its day without moving the defaults the older ones were checked with.
Needs: pip install transformers
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import transformers
from transformers import AutoConfig

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "app"))
from vramcalc.sources.hf_config import MEMORY_KEYS
from vramcalc.sources.readers import READERS, TEXT_TYPES

OUT = Path(__file__).resolve().parent.parent / "app" / "vramcalc" / "data" / "config_defaults.json"
# computed from other keys by the class
DERIVED = {"layer_types", "no_rope_layers", "moe_layers", "mlp_layer_types", "per_layer_config", "layers_block_type",
           "hybrid_override_pattern", "attn_layer_indices", "mamba_d_head", "full_attn_idxs", "vision_config"}
DERIVED_BY_TYPE = {"mamba": {"intermediate_size"},  # MambaConfig: expand × hidden_size, always
                   # BailingHybridConfig.__post_init__: from head_dim, num_attention_heads, short_conv_kernel_size
                   "bailing_hybrid": {"linear_head_dim", "linear_num_heads", "linear_conv_kernel_dim", "head_dim",
                                      "num_key_value_heads"},
                   "kimi_linear": {"num_key_value_heads"},  # None: num_attention_heads (both classes)
                   "falcon": {"ffn_hidden_size", "num_kv_heads"},  # FalconConfig: 4 × hidden, num_attention_heads
                   "step3p5": {"num_sliding_attention_heads"},  # Step3p7TextConfig: num_attention_heads
                   "gemma3n_text": {"intermediate_size"},  # Gemma3nTextConfig: one width per layer, from one
                   # MistralLarge4TextConfig.__post_init__: from index_topk_pattern, or index_topk_freq and offset
                   "mistral_large4_text": {"indexer_types"},
                   "hy_v4": {"indexer_types"},  # HYV4Config.__post_init__: layer 0 and every 4th from 1 full
                   "glm5_next_text": {"indexer_types"},  # Glm5NextTextConfig: from index_topk_pattern or freq
                   "laguna": {"num_attention_heads_per_layer"},
                   # MiniCPM3Config.__post_init__: v_head_dim hidden / heads, head_dim qk_rope_head_dim
                   "minicpm3": {"v_head_dim", "head_dim"},  # LagunaConfig: num_attention_heads per layer
                   # from multi_query and attn_config.kv_n_heads; RwkvConfig: 4 × hidden_size
                   "gpt_bigcode": {"num_key_value_heads"}, "dbrx": {"num_key_value_heads"},
                   "rwkv": {"intermediate_size", "attention_hidden_size"},
                   "falcon_mamba": {"intermediate_size"},
                   # ZambaConfig and Zamba2Config.__post_init__: 2 × hidden, 2 × hidden ÷ heads, 4 × hidden, ...
                   "zamba": {"attention_hidden_size", "attention_head_dim", "mamba_dt_rank"},
                   "zamba2": {"intermediate_size", "num_key_value_heads", "attention_hidden_size", "attention_head_dim",
                              "mamba_headdim", "kv_channels", "num_query_groups", "hybrid_layer_ids"}}


# keys a class pops from its kwargs with a default of its own, which to_dict() does not show
# (AXK1Config and AXK2Config.__post_init__: mlp_layer_types from first_k_dense_replace)
# keys a type reads that are not memory keys for every type (Gemma 2's hub files carry a sliding_window_size its
# class ignores): InklingTextConfig's window, under the name its to_dict() gives it
EXTRA_BY_TYPE = {"inkling_text": {"sliding_window_size"}, "inkling2_text": {"sliding_window_size"},
                 "dots3_note_text": {"shared_experts_intermediate_size", "index_topk"}}
POPPED_BY_TYPE = {"axk1": {"first_k_dense_replace": 1}, "axk2": {"first_k_dense_replace": 1},
                  "dots3_note_text": {"first_k_dense_replace": 1}}  # Dots3NoteTextConfig.__post_init__ too


def main(argv: list[str]) -> None:
    only = set(argv)
    defaults = json.loads(OUT.read_text(encoding="utf-8")) if only else {}
    stamp = f"tools/config_defaults.py with transformers {transformers.__version__}"
    if only:
        defaults["_generated_by"] = (f"{defaults['_generated_by']}; {', '.join(sorted(only))} with transformers "
                                   f"{transformers.__version__}")
    else:
        defaults["_generated_by"] = stamp
    for model_type in sorted(only or READERS):
        if model_type in ("gpt2", "kimi_k2"):
            continue
        try:
            config = AutoConfig.for_model(model_type)
        except Exception as error:  # a model type this transformers does not know
            print(model_type, "skipped:", error, file=sys.stderr)
            continue
        text = config.get_text_config() if hasattr(config, "get_text_config") else config
        values = text.to_dict()
        derived = DERIVED | DERIVED_BY_TYPE.get(model_type, set())
        # the two sizes no real config leaves out are never filled (hf_config._REQUIRED), nor their other names
        reader = READERS[TEXT_TYPES.get(model_type, model_type)]  # a wrapper with its text keys at the top: its own
        derived |= {"hidden_size", "num_hidden_layers"} | {old for old, new in reader.aliases
                                                          if new in ("hidden_size", "num_hidden_layers")}
        chosen = {k: values[k] for k in sorted(MEMORY_KEYS | EXTRA_BY_TYPE.get(model_type, set()))
                  if k in values and k not in derived}
        # head_dim and num_key_value_heads default to hidden / heads and heads in most classes:
        # keep them only where the class fixes them (Gemma 3: head_dim 256), found by changing those.
        try:
            probe = AutoConfig.for_model(model_type, hidden_size=1024, num_attention_heads=2)
            probe = probe.get_text_config() if hasattr(probe, "get_text_config") else probe
        except Exception:  # a class that refuses other sizes (Mamba-2's head_dim is its mixer's): keep its values
            probe = None
        for key in ("head_dim", "num_key_value_heads"):
            chosen.pop(key, None)
            try:
                fixed = probe is None or getattr(probe, key, None) == values.get(key)
            except Exception:  # a per-layer attribute (Gemma 4's head_dim): the class fixes the others' value
                fixed = True
            if values.get(key) is not None and fixed and key not in derived:
                chosen[key] = values[key]
        defaults[model_type] = chosen | POPPED_BY_TYPE.get(model_type, {})
    OUT.write_text(json.dumps(defaults, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
