"""The model types of 2025-26, each counted exactly against transformers 5.23 on the meta device, on a
full-size config and a perturbed one (tests/golden/types.json, tools/measure_types.py); what their new
layer kinds cache; and configs of types the calculator does not know, estimated and marked approximate."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.errors import ValidationError
from vramcalc.model.families.decoder.spec import AttentionKind
from vramcalc.model.families.decoder.tensors import layer_tensors
from vramcalc.model.table import active_param_count, param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.readers import READERS, TEXT_TYPES

CASES = json.loads((Path(__file__).parent / "golden" / "types.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_each_new_type_counts_as_transformers_does(case):
    spec = from_hf_config(case["config"])
    assert not spec.assumptions, [ENGLISH.say(a) for a in spec.assumptions]
    assert param_count(spec) == case["text_params"]


def test_every_new_type_has_a_full_size_and_a_perturbed_case():
    names = {case["name"] for case in CASES}
    for model_type in {name.split("/")[0] for name in names}:
        assert model_type in READERS or model_type in TEXT_TYPES  # a type, or a wrapper of one (EXAONE 4.5)
        assert {f"{model_type}/full", f"{model_type}/perturbed"} <= names


def _case(name):
    return next(case["config"] for case in CASES if case["name"] == name)


def test_a_multimodal_wrapper_of_any_type_is_read_through_its_text_config():
    text = _case("qwen3_5_text/full")
    wrapped = {"model_type": "qwen3_5", "text_config": text, "vision_config": {"depth": 27}}
    assert param_count(from_hf_config(wrapped)) == param_count(from_hf_config(text))
    # a wrapper type nobody listed: still its text model, with the multimodal note
    other = {"model_type": "brand_new_vl", "text_config": {**text, "model_type": "qwen3_5_text"}}
    spec = from_hf_config(other)
    assert not spec.assumptions and param_count(spec) == param_count(from_hf_config(text))


def test_an_unknown_layer_kind_is_estimated_and_named_never_refused():
    config = {"model_type": "llama", "hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8,
              "intermediate_size": 1024, "vocab_size": 1000,
              "layer_types": ["full_attention", "mamba", "mamba", "conv"]}
    spec = from_hf_config(config)
    said = [ENGLISH.say(a) for a in spec.assumptions]
    assert any("2 layers of kind 'mamba'" in s for s in said) and any("'conv'" in s for s in said)
    result = estimate(parse_workload({"model": "config", "seq": "1024"}, config=config))
    assert any("mamba" in ENGLISH.say(a) for a in result.assumptions)


def test_an_unknown_type_with_head_dim_zero_is_estimated_not_refused():
    """Glm5NextTextConfig sets head_dim to qk_rope_head_dim, 0 for GLM-5.3 (no RoPE): a type not read that does the
    same has it read as absent (GLM-5.3 itself is read: its query head's width)."""
    assert from_hf_config(_case("glm5_next_text/perturbed")).head_dim == 32
    config = {"model_type": "glm9_next_text", "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
              "intermediate_size": 1024, "vocab_size": 1000, "head_dim": 0}
    spec = from_hf_config(config)
    assert spec.head_dim == 64 and any("glm9_next_text" in ENGLISH.say(a) for a in spec.assumptions)


def test_the_dsa_indexer_keeps_a_key_per_token_beside_mlas_latent():
    spec = from_hf_config(_case("deepseek_v32/full"))
    assert spec.indexer is not None and (spec.indexer.heads, spec.indexer.head_dim) == (64, 128)
    tokens = 8192
    # transformers: the indexer key in the compute type (bf16), every layer
    assert spec.indexer_bytes(tokens, 2, fp8_packed=False) == 61 * tokens * 128 * 2
    # vLLM's DeepseekV32IndexerCache: uint8, head_dim + head_dim // 128 * 4 bytes = 132 per token and layer
    assert spec.indexer_bytes(tokens, 2, fp8_packed=True) == 61 * tokens * 132


def _kv(config, runtime, **extra):
    values = {"model": "config", "seq": "8192", "runtime": runtime, "kv_precision": "bf16", **extra}
    return estimate(parse_workload(values, config=config)).bytes_of("kv_cache")


def test_mimo_caches_keys_and_values_of_their_own_widths_and_twice_the_heads_in_sliding_layers():
    mimo = _case("mimo_v2_flash/perturbed")  # layers 0 and 5 full (2 KV heads), 5 sliding (4), K 48, V 32, window 65
    spec = from_hf_config(mimo)
    assert [k.value for k in spec.kinds] == ["full", "sliding", "sliding", "sliding", "sliding", "full", "sliding"]
    assert spec.sliding_window == 65
    full, sliding = 2 * 4096 * 2 * (48 + 32), 5 * 65 * 4 * (48 + 32)
    assert _kv(mimo, "transformers", seq="4096") == (full + sliding) * 2
    # llama.cpp: K (q8_0: 34 bytes per 32 values) and V (f16) each at its own width; a sliding layer keeps
    # pad(window + n_ubatch, 256) = 768 cells
    cells = 768
    mixed = estimate(parse_workload({"model": "config", "seq": "4096", "runtime": "llamacpp", "kv_precision": "fp16",
                                     "kv_precision_k": "q8_0"}, config=mimo)).bytes_of("kv_cache")
    assert mixed == (2 * (4096 * 2 * 48 // 32 * 34 + 4096 * 2 * 32 * 2)
                     + 5 * (cells * 4 * 48 // 32 * 34 + cells * 4 * 32 * 2))


def test_tensor_parallel_never_charges_a_rank_less_than_the_kv_heads_it_holds():
    """MiMo's full layers have 4 KV heads, its sliding ones 8: at TP 8 a full layer's head is on two ranks,
    so each rank holds a quarter of the full layers' cache, not an eighth."""
    from vramcalc import estimate, parse_workload
    from vramcalc.analysis.ranks import per_gpu

    workload = parse_workload({"model": "mimo-v2-flash", "runtime": "vllm", "gpu": "h200-141gb", "gpus": "8",
                               "seq": "131072"})
    per_gpu = per_gpu(estimate(workload), 8).components["kv_cache"]
    full = 9 * 4 * (192 + 128) * 131072 * 2  # the full layers' K and V, bf16
    assert per_gpu >= full / 4


def test_each_engine_caches_the_indexer_keys_its_own_way():
    dsa = _case("deepseek_v32/full")
    plain = {**dsa, "model_type": "deepseek_v3"}  # the same MLA model without the indexer
    tokens, layers = 8192, 61
    assert _kv(dsa, "transformers") - _kv(plain, "transformers") == layers * tokens * 128 * 2
    assert _kv(dsa, "llamacpp") - _kv(plain, "llamacpp") == layers * tokens * 128 * 2  # type_k = bf16


def test_presets_read_the_same_without_the_keys_the_page_leaves_out():
    """tools/precompile.mjs drops these keys from the presets the page downloads; nothing may change."""
    from importlib import resources

    from vramcalc.sources.presets import load_presets

    path = resources.files("vramcalc") / "data" / "config_keys_unread.json"
    stripping = json.loads(path.read_text(encoding="utf-8"))
    unread = set(stripping["keys"])
    for slug, preset in load_presets().items():
        encoder = preset.config.get("model_type") in stripping["encoder_types"]
        kept = set(stripping["encoder_read"]) if encoder else set()
        config = {k: v for k, v in preset.config.items() if k not in unread - kept}
        if isinstance(config.get("text_config"), dict):
            config["text_config"] = {k: v for k, v in config["text_config"].items() if k not in unread}
        if isinstance(config.get("vision_config"), dict):
            config["vision_config"] = {k: v for k, v in config["vision_config"].items()
                                       if k in stripping["vision_read"]}
        stripped = from_hf_config({**config, **preset.hf_overrides}, name=slug, display_name=preset.display_name,
                                  notes=preset.notes,
                                  native_format=preset.native_format)
        assert stripped == preset.spec(), slug


def test_the_command_line_lists_the_types_read_exactly():
    import contextlib
    import io

    from vramcalc.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["models", "--types", "--json"]) == 0
    listed = {entry["model_type"]: entry["reads"] for entry in json.loads(out.getvalue())}
    assert {case["name"].split("/")[0] for case in CASES} <= set(listed)
    assert listed["qwen3_5"] == "qwen3_5_text" and listed["llama"] == "llama"


def test_gemma4_caches_each_layer_kind_at_its_own_width():
    # Gemma 4 31B: 50 sliding layers of 16 KV heads × 256 (window 1,024), 10 full layers of 4 KV heads × 512,
    # whose keys are their values yet both are cached (transformers' update() gets key and value states)
    text = json.loads((Path(__file__).resolve().parents[1] / "app/vramcalc/data/models/gemma-4-31b-it.json")
                      .read_text())["config"]["text_config"]
    spec = from_hf_config(text)
    seq = 32_768
    expected = 2 * (50 * 2 * 16 * 256 * 1024 + 10 * 2 * 4 * 512 * seq)
    assert spec.kv_values_per_sequence(seq) * 2 == expected
    assert _kv(text, "transformers") == 2 * (50 * 2 * 16 * 256 * 1024 + 10 * 2 * 4 * 512 * 8192)


def test_layers_that_reuse_earlier_kv_keep_no_cache_nor_kv_weights_and_say_what_the_checkpoint_keeps():
    config = {**_case("gemma4_text/full"), "num_kv_shared_layers": 10}
    shared, whole = from_hf_config(config), from_hf_config(_case("gemma4_text/full"))
    assert not shared.assumptions
    # the 10 layers' k, v and k-norm weights: left out of the count, named in a note
    reused = param_count(whole) - param_count(shared)
    assert reused > 0 and any(f"{reused:,} parameters" in ENGLISH.say(n) for n in shared.notes)
    assert shared.kv_values_per_sequence(100) < whole.kv_values_per_sequence(100)
    per_layer = {kind: whole.kv_width(kind) * 100 for kind in set(whole.kinds)}
    assert whole.kv_values_per_sequence(100) - shared.kv_values_per_sequence(100) == sum(
        per_layer[kind] for kind in whole.kinds[20:])


def test_an_unknown_type_with_experts_has_them_read_by_their_keys_and_says_so():
    # DeepSeek-V4-Flash's config.json (abridged) under a type no reader knows, all of its layers with experts
    config = {"model_type": "some_future_moe", "hidden_size": 4096, "num_hidden_layers": 43, "num_attention_heads": 64,
              "num_key_value_heads": 1, "head_dim": 512, "vocab_size": 129280, "moe_intermediate_size": 2048,
              "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 6, "tie_word_embeddings": False}
    spec = from_hf_config(config)
    said = [ENGLISH.say(a) for a in spec.assumptions]
    assert spec.moe is not None and spec.moe.experts == 256 and any("n_routed_experts" in s for s in said)
    # another family's names for the rest (no num_experts_per_tok): read without experts, never refused
    del config["num_experts_per_tok"]
    spec = from_hf_config({**config, "intermediate_size": 18432})
    said = [ENGLISH.say(a) for a in spec.assumptions]
    assert spec.moe is None and not any("experts were read" in s for s in said)
    assert any("n_routed_experts = 256 is not understood" in s for s in said)


# A small Nemotron-H whose cache transformers 5.23 was seen to build (torch 2.13 CPU, bf16, a 7-token prompt):
# the Mamba layer's LinearAttentionLayer held conv_states (1, 320, 4) bf16 and recurrent_states (1, 8, 32, 16)
# fp32; the attention layer (1, 2, 7, 64) keys and values; the MLP and expert layers nothing.
SMALL_NEMOTRON_H = {"model_type": "nemotron_h", "num_hidden_layers": 4, "hidden_size": 256,
                    "layers_block_type": ["mamba", "attention", "mlp", "moe"], "mamba_num_heads": 8,
                    "mamba_head_dim": 32, "n_groups": 2, "ssm_state_size": 16, "num_attention_heads": 4,
                    "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 512, "moe_intermediate_size": 128,
                    "moe_shared_expert_intermediate_size": 128, "n_routed_experts": 4, "num_experts_per_tok": 2,
                    "vocab_size": 1000}


def test_a_mamba_layer_keeps_the_state_transformers_builds():
    spec = from_hf_config(SMALL_NEMOTRON_H)
    assert [kind.value for kind in spec.kinds] == ["mamba", "full", "none", "none"]
    conv, ssm = 320 * 4 * 2, 8 * 32 * 16 * 4
    assert spec.recurrent_state_bytes(2) == conv + ssm
    attention = 2 * 2 * 64 * 7 * 2
    assert _kv(SMALL_NEMOTRON_H, "transformers", seq="7") == attention + conv + ssm


def test_each_engine_keeps_a_mamba_state_its_own_way():
    # llama.cpp (llama_memory_recurrent, n_embd_r / n_embd_s): d_conv - 1 tokens and the state, both F32, per slot
    seq = "4096"
    attention_llamacpp = 2 * 2 * 64 * 4096 * 2  # one attention layer, K and V in f16 at n_ctx 4096
    state_llamacpp = 4 * (320 * 3 + 8 * 32 * 16)
    assert _kv(SMALL_NEMOTRON_H, "llamacpp", seq=seq) == attention_llamacpp + state_llamacpp
    # vLLM (mamba_utils.py): conv_kernel - 1 tokens in bf16 and the state in 16-bit unless the config says
    # float32, padded to a whole attention page: A = 2 × 2 × 64 × 2 = 512 B per token, so B = u · ceil(S / (u · A)),
    # u the block before alignment: 64 on CUDA since 0.34 (16 before, and under ROCm's ROCM_ATTN)
    from vramcalc.core.dtypes import Precision
    from vramcalc.engines.vllm import vllm_state_bytes
    from vramcalc.sources.gpus import gpu

    spec = from_hf_config(SMALL_NEMOTRON_H)
    state = 320 * 3 * 2 + 8 * 32 * 16 * 2  # 10,112 B: one block of 64 tokens, 32,768 B (two of 16: 16,384 B)
    assert vllm_state_bytes(spec, Precision.BF16) == 64 * -(-state // (64 * 512)) * 512 == 32_768
    assert vllm_state_bytes(spec, Precision.BF16, gpu("mi300x")) == 16 * -(-state // (16 * 512)) * 512 == 16_384
    fp32 = from_hf_config({**SMALL_NEMOTRON_H, "mamba_ssm_cache_dtype": "float32"})
    assert vllm_state_bytes(fp32, Precision.BF16) == 64 * -(-(320 * 3 * 2 + 8 * 32 * 16 * 4) // (64 * 512)) * 512


def test_vllm_says_a_mamba_model_keeps_a_state_per_sequence_not_tokens():
    from vramcalc import estimate, parse_workload
    from vramcalc.render.messages import ENGLISH

    config = {"model_type": "mamba2", "hidden_size": 256, "num_hidden_layers": 4, "num_heads": 8, "head_dim": 64,
              "state_size": 16, "n_groups": 1, "vocab_size": 1000, "expand": 2, "conv_kernel": 4}
    result = estimate(parse_workload({"model": "config", "runtime": "vllm", "gpu": "rtx-4090", "batch": "3"},
                                     config=config))
    said = ENGLISH.say(next(c for c in result.components if c.key == "kv_cache").explain())
    assert said.startswith("3 × one recurrent state per sequence") and "tokens" not in said


def test_vllm_pads_a_nemotron_h_8b_like_state_to_its_attention_page():
    # the worked example of vLLM 0.19's page unification: conv 3 × 10,240 bf16 + SSM 128 × 64 × 128 in fp16
    # = 2,158,592 B per layer; A = 8 KV heads × 128 × 2 × 2 = 4,096 B; B = 528 tokens (16 · 33); page = 2,162,688 B.
    # vLLM 0.34 rounds by its 64-token block on CUDA: B = 64 · ceil(2,158,592 / 262,144) = 576, page 2,359,296 B;
    # ROCm's ROCM_ATTN keeps 16, and 0.19's 528
    from vramcalc.core.dtypes import Precision
    from vramcalc.engines.vllm import vllm_state_bytes

    config = {"model_type": "nemotron_h", "hidden_size": 4096, "hybrid_override_pattern": "M*M-",
              "mamba_num_heads": 128,
              "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4, "num_attention_heads": 32,
              "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 21504, "vocab_size": 131072}
    spec = from_hf_config(config)
    assert spec.mamba.state_bytes(2, trim=1, state_e=2) == 61_440 + 2_097_152
    assert vllm_state_bytes(spec, Precision.BF16) == 2 * 576 * 4096
    from vramcalc.sources.gpus import gpu

    assert vllm_state_bytes(spec, Precision.BF16, gpu("mi300x")) == 2 * 528 * 4096


def test_mlp_only_layers_and_mamba_layers_are_no_attention_to_the_speed():
    from vramcalc.speed.reads import attention_flops

    spec = from_hf_config(SMALL_NEMOTRON_H)
    assert attention_flops(spec, 1000) == 4 * spec.heads * 64 * 1000  # the one attention layer only


def test_an_unknown_type_with_latent_attention_is_read_with_it_and_says_so():
    # a Kimi-K3-like config: 96 heads that do not divide the hidden size, which only MLA allows
    mla = {"hidden_size": 7168, "num_hidden_layers": 3, "num_attention_heads": 96, "num_key_value_heads": 96,
           "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
           "v_head_dim": 128, "intermediate_size": 18432, "vocab_size": 1000}
    guessed = from_hf_config({"model_type": "some_future_mla", **mla})
    said = [ENGLISH.say(a) for a in guessed.assumptions]
    assert any("latent attention (MLA)" in s for s in said) and any("not one of the" in s for s in said)
    assert param_count(guessed) == param_count(from_hf_config({"model_type": "deepseek_v3", **mla}))
    assert guessed.mla is not None


def test_a_short_convolution_keeps_its_last_inputs_each_engine_its_own_way():
    # transformers 5.23 (torch 2.13 CPU, bf16, 7 tokens): each conv layer's LinearAttentionLayer held conv_states
    # (1, 256, 3) bf16; the attention layer (1, 2, 7, 64) keys and values
    config = {"model_type": "lfm2", "num_hidden_layers": 3, "hidden_size": 256, "intermediate_size": 768,
              "num_attention_heads": 4, "num_key_value_heads": 2, "layer_types": ["conv", "full_attention", "conv"],
              "vocab_size": 1000}
    spec = from_hf_config(config)
    assert [kind.value for kind in spec.kinds] == ["conv", "full", "conv"]
    assert _kv(config, "transformers", seq="7") == 2 * 2 * 64 * 7 * 2 + 2 * 256 * 3 * 2
    # llama.cpp: n_embd × (L_cache - 1) values in F32 per conv layer and slot
    assert _kv(config, "llamacpp", seq="4096") == 2 * 2 * 64 * 4096 * 2 + 2 * 256 * 2 * 4
    from vramcalc.core.dtypes import Precision
    from vramcalc.engines.vllm import vllm_state_bytes

    # vLLM 0.34: (L_cache - 1) × 256 in bf16 = 1,024 B, padded to one 64-token attention block of 512 B a token
    # (16 before 0.34)
    assert vllm_state_bytes(spec, Precision.BF16) == 2 * 64 * 512


def test_falcon_h1_keeps_attention_and_a_mamba_state_in_every_layer():
    # transformers 5.23 (bf16, 7 tokens): each layer a LinearAttentionAndFullAttentionLayer with conv_states
    # (1, 288, 4) bf16, recurrent_states (1, 8, 32, 16) fp32, and keys and values (1, 2, 7, 64) bf16
    config = {"model_type": "falcon_h1", "num_hidden_layers": 2, "hidden_size": 256, "intermediate_size": 512,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "mamba_n_heads": 8,
              "mamba_d_head": 32, "mamba_d_ssm": 256, "mamba_n_groups": 1, "mamba_d_state": 16, "vocab_size": 1000}
    per_layer = 2 * 2 * 64 * 7 * 2 + 288 * 4 * 2 + 8 * 32 * 16 * 4
    assert _kv(config, "transformers", seq="7") == 2 * per_layer
    # llama.cpp gives every Falcon-H1 layer both: its cells and the F32 state of d_conv - 1 tokens
    assert _kv(config, "llamacpp", seq="4096") == 2 * (2 * 2 * 64 * 4096 * 2 + 4 * (288 * 3 + 8 * 32 * 16))


@pytest.mark.parametrize(("model_type", "measured"), [("bailing_hybrid", 59_698_968), ("kimi_linear", 109_024_192)])
def test_a_hand_written_kda_config_takes_the_class_defaults(model_type, measured):
    # measured with transformers 5.23 on the meta device (2026-12-05): the classes derive the linear heads, their
    # size and the KV heads, and default to 8 experts per token and one shared expert, none of it written here
    config = {"model_type": model_type, "num_hidden_layers": 7, "hidden_size": 512, "intermediate_size": 1024,
              "moe_intermediate_size": 128, "num_attention_heads": 4, "num_experts": 12, "vocab_size": 32000}
    spec = from_hf_config(config)
    assert not spec.assumptions and param_count(spec) == measured


def test_transformers_caches_falcons_kv_repeated_to_every_head_and_the_engines_do_not():
    # transformers 5.23 (bf16, 7 tokens): new decoder architecture with 2 KV heads of 8 cached keys (1, 8, 7, 32);
    # multi-query cached (1, 1, 7, 32)
    base = {"model_type": "falcon", "num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 8,
            "vocab_size": 1000}
    new = {**base, "new_decoder_architecture": True, "num_kv_heads": 2}
    assert _kv(new, "transformers", seq="7") == 2 * 2 * 8 * 32 * 7 * 2
    assert _kv({**base, "multi_query": True}, "transformers", seq="7") == 2 * 2 * 1 * 32 * 7 * 2
    assert _kv(new, "llamacpp", seq="4096") == 2 * 2 * 2 * 32 * 4096 * 2  # llama.cpp keeps the 2 KV heads


@pytest.mark.parametrize(("switches", "measured"), [
    ({}, 8_577_024),  # Falcon-7B's: multi-query, parallel attention after one LayerNorm
    ({"new_decoder_architecture": True}, 9_956_352),  # every head's K and V, two LayerNorms
    ({"parallel_attn": False, "multi_query": False, "bias": True}, 9_970_176),  # serial, biases everywhere
])
def test_falcons_switches_count_as_its_class_builds_them(switches, measured):
    # measured with transformers 5.23 on the meta device (2026-12-05)
    config = {"model_type": "falcon", "num_hidden_layers": 3, "hidden_size": 512, "num_attention_heads": 8,
              "vocab_size": 1000, **switches}
    spec = from_hf_config(config)
    assert not spec.assumptions and param_count(spec) == measured


def test_a_hybrid_with_no_layer_of_one_kind_is_read_and_explained():
    # found by review: a Granite 4 config whose layers all attend (Granite-4.0-micro's) crashed the explanation
    granite = {**_case("granitemoehybrid/perturbed"), "layer_types": ["attention"] * 5}
    result = estimate(parse_workload({"model": "config", "seq": "1024"}, config=granite))
    kv = next(component for component in result.components if component.key == "kv_cache")
    assert "Mamba" not in ENGLISH.say(kv.formula)
    # a Nemotron-H without expert layers has no experts, whatever its config says of them
    dense = from_hf_config({**_case("nemotron_h/perturbed"), "hybrid_override_pattern": "M-M*M-M-"})
    assert dense.moe is None and dense.moe_layer_count == 0


def test_a_model_that_never_attends_is_charged_no_attention():
    mamba = _case("mamba2/full")
    eager = estimate(parse_workload({"model": "config", "seq": "8192", "attention": "eager"}, config=mamba))
    flash = estimate(parse_workload({"model": "config", "seq": "8192", "attention": "flash"}, config=mamba))
    assert eager.bytes_of("activations") == flash.bytes_of("activations")
    llama = [estimate(parse_workload({"model": "config", "seq": "32768", "runtime": "llamacpp",
                                      "attention": attention}, config=mamba)).bytes_of("activations")
             for attention in ("eager", "flash")]
    assert max(llama) < 2**30  # no n_ctx × heads score buffer for a model without attention


@pytest.mark.parametrize("bad", [[["full"]] * 4, [{}] * 4, ["full", "shared", "x", "full"], "FS"])
def test_glm52_indexer_types_that_are_not_full_or_shared_are_refused_by_name(bad):
    from vramcalc.core.errors import ValidationError

    with pytest.raises(ValidationError) as raised:
        from_hf_config({**_case("glm_moe_dsa/perturbed"), "indexer_types": bad})
    assert raised.value.field == "indexer_types"


def test_granite_swa_attends_in_full_at_layer_0_and_every_4th_after_and_slides_elsewhere():
    config = _case("granitemoe_swa/perturbed")  # 6 layers, no layer_types: GraniteMoeSWAConfig's i % 4 == 0
    spec = from_hf_config(config)
    assert [k.value for k in spec.kinds] == ["full", "sliding", "sliding", "sliding", "full", "sliding"]
    assert spec.sliding_window == 256
    # two full layers keep every token, four sliding ones the window; 4 KV heads of 64, K and V, bf16
    assert _kv(config, "transformers", seq="4096") == (2 * 4096 + 4 * 256) * 4 * 64 * 2 * 2


def test_hunyuan_reads_its_files_per_layer_keys_and_names_what_transformers_would_not_build():
    config = _case("hunyuan_v1_moe/perturbed")  # moe_topk [2, 2, 3, 2]: each layer's own, the most counted
    spec = from_hf_config(config)
    assert spec.moe is not None and (spec.moe.per_token, spec.moe.ffn, spec.moe.shared_ffn) == (3, 768, 768)
    # HunYuanMoEV1Moe builds intermediate_size-wide experts and one shared MLP, without cross-layer attention
    for key, value in (("moe_intermediate_size", [768, 768, 512, 768]), ("num_shared_expert", 2), ("use_cla", True)):
        said = [ENGLISH.say(a) for a in from_hf_config({**config, key: value}).assumptions]
        assert any(key in s for s in said), said


def test_k_exaone_files_keys_read_as_transformers_reads_them():
    """K-EXAONE's files (four of its layers, as TensorRT-LLM's test keeps them) carry a pattern string beside
    layer_types and keys of their own (is_moe_layer, first_last_k_dense_replace) that ExaoneMoeConfig leaves
    aside; counted 17,291,336,704 by transformers 5.23 on the meta device."""
    config = {"model_type": "exaone_moe", "hidden_size": 6144, "intermediate_size": 18432, "head_dim": 128,
              "moe_intermediate_size": 2048, "num_attention_heads": 64, "num_key_value_heads": 8,
              "num_experts": 128, "num_experts_per_tok": 8, "num_shared_experts": 1, "num_hidden_layers": 4,
              "is_moe_layer": [False, True, True, True], "first_last_k_dense_replace": 1,
              "layer_types": ["sliding_attention"] * 3 + ["full_attention"], "sliding_window": 4,
              "sliding_window_pattern": "LLLG", "max_position_embeddings": 262144, "tie_word_embeddings": False,
              "vocab_size": 153600}
    spec = from_hf_config(config)
    assert not spec.assumptions and param_count(spec) == 17_291_336_704
    assert spec.moe_layers == (False, True, True, True) and spec.moe.shared_ffn == 2048


def test_lfm2_files_in_the_older_spelling_read_as_lfm2config_reads_them():
    # LiquidAI/LFM2-1.2B's config.json names its MLP block_ff_dim, its tie tie_embedding and repeats its heads as
    # num_heads; Lfm2Config.__post_init__ pops the first two over intermediate_size and tie_word_embeddings
    new = _case("lfm2/perturbed")
    old = {**{k: v for k, v in new.items() if k != "intermediate_size"}, "intermediate_size": 12288,
           "block_ff_dim": new["intermediate_size"], "num_heads": new["num_attention_heads"]}
    spec = from_hf_config(old)
    assert not spec.assumptions and param_count(spec) == next(
        case["text_params"] for case in CASES if case["name"] == "lfm2/perturbed")
    assert param_count(from_hf_config({**old, "tie_embedding": False})) == param_count(
        from_hf_config({**new, "tie_word_embeddings": False})) > param_count(spec)


def test_deepseek_v4_pro_keeps_the_cache_deepseek_published_at_a_million_tokens():
    # DeepSeek's release: 9.62 GiB per sequence of 1M tokens in bf16 (transformers' layout, read from its cache classes)
    from vramcalc.core.units import GIB
    from vramcalc.sources.presets import preset_spec

    spec = preset_spec("deepseek-v4-pro")
    tokens, c = 1_048_576, spec.compressed
    csa, hca = c.types.count(1), c.types.count(2)
    assert (csa, hca, c.types.count(0)) == (30, 31, 0)
    # every layer's window of one head; CSA: an entry (head + indexer key) per 4 tokens and the last window's first
    # halves (kv and gate); HCA: an entry per 128; 1M is a whole number of windows, so no buffer is left, but one
    # token before, each window's buffer held its most: CSA 3 tokens × 2 × 2 wide less an entry, HCA 127 × 2 less one
    values = 61 * 128 * 512 + csa * (tokens // 4 * 640 + 2 * 4 * 640) + hca * tokens // 128 * 512
    values += csa * 11 * 640 + hca * 253 * 512
    assert spec.kv_values_per_sequence(tokens) == values
    # DeepSeek's figure is the cache at 1M (9.625 here); the answer is the most on the way there, 8.5 MB more
    cache = _kv(_preset_config("deepseek-v4-pro"), "transformers", seq=str(tokens))
    assert cache / GIB == pytest.approx(9.62, abs=0.015)


def _preset_config(slug):
    from vramcalc.sources.presets import load_presets

    return load_presets()[slug].config


def test_deepseek_v4_in_transformers_keeps_the_unfinished_windows_as_projected():
    spec = from_hf_config(_case("deepseek_v4/perturbed"))  # head 64, index key 32, rates 8 and 32; CSA, HCA, CSA
    assert spec.compressed.types == (0, 1, 2, 1, 0)
    tokens = 8 * 5 + 3  # CSA: 5 entries, 3 tokens waiting (kv and gate, each twice 96 wide); HCA: 1 entry, 11 waiting
    csa_now, hca_now = 5 * 96 + 3 * 2 * 2 * 96 + 2 * 8 * 96, 1 * 64 + 11 * 2 * 64
    # a window's buffer empties when it closes: on the way to 43 tokens each held the most at 39 and 31
    csa, hca = 4 * 96 + 7 * 2 * 2 * 96 + 2 * 8 * 96, 31 * 2 * 64
    assert csa > csa_now and hca > hca_now
    assert spec.compressed.values(tokens, 64) == 2 * csa + hca


def test_llamacpp_keeps_deepseek_v4s_compressed_caches_and_states_per_layer():
    # llama_kv_cache_dsv4: 43 layers' windows (K only, 768 cells = pad(128 + 512, 256)); 21 CSA layers of
    # 65,536 / 4 cells of 512 + 128 (kv_csa, kv_lid) and F32 states 2 × 8 × (1,024 + 256); 20 HCA layers of
    # pad(65,536 / 128, 256) = 512 cells of 512 and F32 states 2 × 128 × 512; f16, one sequence
    config = _preset_config("deepseek-v4-flash")
    window = 43 * 768 * 512 * 2
    csa = 21 * (16_384 * 640 * 2 + 2 * 4 * 8 * 1_280)
    hca = 20 * (512 * 512 * 2 + 2 * 4 * 128 * 512)
    assert _kv(config, "llamacpp", seq="65536", kv_precision="fp16") == window + csa + hca == 496_910_336


def test_vllm_says_its_deepseek_v4_cache_is_estimated():
    result = estimate(parse_workload({"model": "deepseek-v4-flash", "runtime": "vllm", "gpu": "h200", "gpus": "8"}))
    assert any("fp8_ds_mla" in ENGLISH.say(a) for a in result.assumptions)


def test_longcat_flash_counts_its_zero_experts_as_transformers_holds_them_and_says_so():
    spec = from_hf_config(_case("longcat_flash/perturbed"))  # 3 layers: 6 MLA sublayers, the shortcut MoE on 3
    # 3 MoE sublayers × 4 zero experts × gate and up of 128 × 512 = 1,572,864
    assert spec.layers == 6 and spec.moe_layers == (True, False) * 3
    assert spec.moe.zero_experts == 4 and spec.moe.shared_ffn == spec.ffn == 1024
    assert any("4 zero-computation experts" in ENGLISH.say(n) and "1,572,864" in ENGLISH.say(n) for n in spec.notes)
    # vLLM's ZeroExpertFusedMoE holds n_routed_experts' gate/up (the router keeps its rows for all): the weights
    # are transformers' count less the slots, to the parameter
    full = _case("longcat_flash/full")
    meta = next(case["text_params"] for case in CASES if case["name"] == "longcat_flash/full")
    slots = 28 * 256 * 2 * 2048 * 6144

    def weights(runtime):
        values = {"model": "config", "runtime": runtime, "precision": "bf16"}
        return estimate(parse_workload(values, config=full)).bytes_of("weights")

    assert weights("transformers") == 2 * meta and weights("vllm") == 2 * (meta - slots)
    result = estimate(parse_workload({"model": "config", "runtime": "vllm"}, config=full))
    assert not any("zero" in ENGLISH.say(a) for a in result.assumptions)
    # one token's experts: at most moe_topk real ones (a zero expert reads no slot): 12 of 512 per MoE sublayer
    spec_full = from_hf_config(full)
    per_expert = 3 * 2048 * 6144
    assert param_count(spec_full) - active_param_count(spec_full) == 28 * (512 - 12) * per_expert + slots
    result = estimate(parse_workload({"model": "config", "runtime": "llamacpp"}, config=_case("longcat_flash/full")))
    assert any("no architecture for longcat_flash" in ENGLISH.say(a) for a in result.assumptions)
    # each sublayer caches MLA's latent (LongcatFlashMLA: DeepSeek-V3's)
    assert spec.kv_values_per_sequence(100) == 6 * 100 * (64 + 16)


def test_minimax_m3s_indexer_keeps_one_key_per_token_on_its_sparse_layers_only():
    """MiniMaxM3VLIndexer on the minimax_m3_sparse layers (the hub's sparse_attention_freq): transformers'
    MiniMaxM3VLSparseCacheLayer.idx_keys and vLLM's MiniMaxM3IndexerCache (bf16, no fp8 scales as DSA's) keep
    one key of index_head_dim per token there; the other layers keep only their K and V."""
    m3 = _case("minimax_m3_vl_text/perturbed")  # sparse on layers 1, 3, 4, 5; index keys of 64
    spec = from_hf_config(m3)
    assert spec.indexer is not None and spec.indexer.shared == {0, 2} and spec.indexer.heads == 2
    dense = {**m3, "sparse_attention_config": {**m3["sparse_attention_config"], "sparse_attention_freq": [0] * 6}}
    assert from_hf_config(dense).indexer is None
    tokens = 8192
    for runtime in ("transformers", "vllm"):
        assert _kv(m3, runtime) - _kv(dense, runtime) == 4 * tokens * 64 * 2, runtime


def test_command_a_plus_slides_by_its_prefix_pattern_then_its_own_and_reads_the_wrapper():
    """Cohere2MoeConfig: the first_k_dense_replace dense layers attend in full every
    prefix_dense_sliding_window_pattern-th layer, the others every sliding_window_pattern-th (4)."""
    spec = from_hf_config(_case("cohere2_moe/perturbed"))
    assert "".join(k.value[0] for k in spec.kinds) == "sfsssfs"
    assert spec.moe_layers == (False, False, True, True, True, True, True) and spec.ffn == 2048
    text = _case("minimax_m3_vl_text/full")
    wrapped = {"model_type": "minimax_m3_vl", "text_config": text, "vision_config": {"hidden_size": 1280}}
    assert param_count(from_hf_config(wrapped)) >= param_count(from_hf_config(text))


def test_minimax_m3_as_the_hubs_files_name_its_text_config():
    """MiniMax-M3's files name the text config minimax_m3 (vLLM's MiniMaxM3TextConfig) and carry use_qk_norm, an
    MTP layer and a moe_layer_freq per layer; read as the minimax_m3_vl_text class reads them."""
    text = {**_case("minimax_m3_vl_text/perturbed"), "model_type": "minimax_m3", "use_qk_norm": True,
            "num_nextn_predict_layers": 1}
    spec = from_hf_config({"model_type": "minimax_m3_vl", "text_config": text})
    assert not spec.assumptions and spec.mtp_layers == 1
    assert param_count(spec) == param_count(from_hf_config(_case("minimax_m3_vl_text/perturbed")))


def test_minimax_m3s_indexer_cache_on_llamacpp_is_a_second_kv_cache_of_one_head():
    """llama.cpp (ggml-org/llama.cpp PR #26338, "model: M3: Move MSA into a new memory implementation", merged
    after #24908): src/llama-kv-cache-msa.cpp, llama_kv_cache_msa::llama_kv_cache_msa (lines 33-48 of the stored
    version at f9024ef8), builds kv_idx, a plain llama_kv_cache of the same kv_size from a copy of the hparams with
    n_head_kv_arr all 1 and n_embd_head_k_full = indexer_head_size, given the run's type_k and type_v; it is not MLA,
    so llama_kv_cache allocates both K (index_head_dim at -ctk) and V (n_embd_head_v, the model's head_dim, at -ctv:
    "allocates an unused V cache", the PR says) per cell, on the layers whose graph writes an index key
    (src/models/minimax-m3.cpp: is_msa_layer, il >= n_layer_dense_lead; the config's minimax_m3_sparse layers)."""
    from vramcalc.core.dtypes import Precision
    from vramcalc.engines.llamacpp import llamacpp_layout

    m3 = _case("minimax_m3_vl_text/perturbed")  # sparse on layers 1, 3, 4, 5; head_dim 64
    m3 = {**m3, "sparse_attention_config": {**m3["sparse_attention_config"], "sparse_index_dim": 32}}
    dense = {**m3, "sparse_attention_config": {**m3["sparse_attention_config"], "sparse_attention_freq": [0] * 6}}

    def kv(config, type_k=Precision.FP16, type_v=Precision.FP16, gpu_layers=None, n_seq=1):
        layout = llamacpp_layout(from_hf_config(config), seq=1000, n_seq=n_seq, ubatch=512, flash=True,
                                 type_k=type_k, type_v=type_v, gpu_layers=gpu_layers)
        return layout.kv_device_bytes, layout.kv_host_bytes

    cells = 1024  # 1,000 tokens padded to 256
    assert kv(m3)[0] - kv(dense)[0] == 4 * cells * (32 * 2 + 64 * 2)  # f16 key of 32, f16 unused value of 64
    assert kv(m3, n_seq=3)[0] - kv(dense, n_seq=3)[0] == 3 * 4 * cells * (32 * 2 + 64 * 2)
    # the key at -ctk's type (q8_0: 34 bytes per 32 values), the value at -ctv's
    q8k = kv(m3, type_k=Precision.Q8_0)[0] - kv(dense, type_k=Precision.Q8_0)[0]
    assert q8k == 4 * cells * (34 + 64 * 2)
    # -ngl 3: the output and the last two layers (4, 5) on the GPU, layers 0-3 in RAM (sparse 1 and 3 among them)
    (dev, host), (dev0, host0) = kv(m3, gpu_layers=3), kv(dense, gpu_layers=3)
    assert (dev - dev0, host - host0) == (2 * cells * 192, 2 * cells * 192)
    result = estimate(parse_workload({"model": "config", "runtime": "llamacpp", "seq": "1000"}, config=m3))
    said = ENGLISH.say(next(c for c in result.components if c.key == "kv_cache").explain())
    assert "the indexer cache of 4 sparse layers (llama_kv_cache_msa): a key of 32 values" in said, said


def test_afmoe_attends_in_full_every_global_attn_every_n_layers_th_layer_as_its_class_lists_them():
    """AfmoeConfig.__post_init__: layer i slides unless (i + 1) % global_attn_every_n_layers == 0."""
    assert "".join(k.value[0] for k in from_hf_config(_case("afmoe/perturbed")).kinds) == "ssfssfs"  # every 3rd
    full = _case("afmoe/full")
    listed = from_hf_config(full).kinds
    assert [k.value[0] for k in listed] == [t[0] for t in full["layer_types"]]
    assert from_hf_config({k: v for k, v in full.items() if k != "layer_types"}).kinds == listed


def test_mistral_large4s_nope_layers_have_no_rotary_key_and_a_shared_latent_is_named():
    """MistralLarge4TextAttention: a layer without RoPE (no_rope_layers 0) projects kv_a to the latent alone and
    kv_b to keys of qk_nope + qk_rope; kv_source_layers that share latents are not read, and the answer says so."""
    full = _case("mistral_large4_text/full")
    spec = from_hf_config(full)
    assert spec.nope_layers == frozenset(range(3, 72, 4)) and not spec.assumptions
    names = {t.name: t.shape for t in layer_tensors(spec, 3)}
    assert names["blk.3.attn_kv_a_mqa.weight"] == (512, 6144) and names["blk.3.attn_kv_b.weight"] == (16384, 512)
    assert from_hf_config({k: v for k, v in full.items() if k != "no_rope_layers"}).nope_layers == spec.nope_layers
    shared = from_hf_config({**full, "kv_source_layers": [0, 0, *range(2, 72)]})
    assert any("kv_source_layers" in ENGLISH.say(a) for a in shared.assumptions)
    wrapped = {"model_type": "mistral_large4", "text_config": full, "vision_config": {"hidden_size": 1024}}
    assert param_count(from_hf_config(wrapped)) >= param_count(spec)


def test_hy4_caches_the_latent_everywhere_and_index_keys_where_its_indexer_is_its_own():
    """HYV4Config.__post_init__: layers 0, 1, 5, 9... run their own indexer (the others reuse its top-k). transformers
    5.23 (bf16, 7 tokens, hy_v4/perturbed) was seen to keep per layer a DynamicIndexedLayer of keys (1, 1, 7, 128)
    (the latent) and values (1, 1, 7, 32) (the rotary key), and indexer_keys (1, 7, 64) on layers 0, 1 and 5 only:
    16,128 bytes."""
    hy4 = _case("hy_v4/perturbed")
    spec = from_hf_config(hy4)
    assert spec.indexer.shared == {2, 3, 4} and spec.hyper == 3
    assert _kv(hy4, "transformers", seq="7") == 16_128 == 7 * 2 * (6 * (128 + 32) + 3 * 64)
    full = _case("hy_v4/full")  # the class's own list, and the same rule without it
    listed = {i for i, t in enumerate(full["indexer_types"]) if t == "shared"}
    assert listed == from_hf_config({k: v for k, v in full.items() if k != "indexer_types"}).indexer.shared
    assert len(listed) == 24 and from_hf_config(full).indexer.shared == listed
    # vLLM (as GLM-5.2: DeepseekV32IndexerCache, head_dim + head_dim // 128 × 4 bytes, on the "full" layers) and
    # llama.cpp (llama_kv_cache_dsa: its index-key cache takes the latent cache's layers, every one, at type_k)
    assert _kv(hy4, "vllm") == 8192 * (6 * 160 * 2 + 3 * 64)
    assert _kv(hy4, "llamacpp", seq="4096") == 4096 * 6 * (160 + 64) * 2
    result = estimate(parse_workload({"model": "config", "runtime": "vllm"}, config=hy4))
    said = [ENGLISH.say(a) for a in result.assumptions]
    assert any("vllm_fl" in s for s in said) and any("3 residual streams" in s for s in said)


def test_hy4_names_the_parameters_transformers_keeps_in_fp32():
    """HYV4ForCausalLM._keep_in_fp32_modules_strict: from_pretrained(dtype=bf16) of this config (saved by transformers
    5.23) held 155,341 parameters in fp32 (lm_head, the hyper-connections, sinks, weights_proj, k_norm)."""
    from vramcalc.model.families.decoder.tensors import fp32_kept_params

    tiny = {"model_type": "hy_v4", "num_hidden_layers": 3, "hidden_size": 128, "intermediate_size": 256,
            "moe_intermediate_size": 64, "num_attention_heads": 4, "q_lora_rank": 64, "kv_lora_rank": 32,
            "qk_nope_head_dim": 16, "qk_rope_head_dim": 16, "v_head_dim": 16, "n_routed_experts": 4,
            "num_experts_per_tok": 2, "index_n_heads": 2, "index_head_dim": 32, "vocab_size": 1000}
    assert fp32_kept_params(from_hf_config(tiny)) == 155_341
    said = [ENGLISH.say(a) for a in estimate(parse_workload({"model": "config"}, config=tiny)).assumptions]
    assert any("155K of its parameters" in s and "fp32" in s for s in said), said


def test_gemma4_unified_is_gemma4s_attention_without_experts_or_per_layer_inputs():
    """Gemma4UnifiedTextModel: Gemma 4's layers, no MoE block, no per-layer embeddings. transformers 5.23 (bf16,
    7 tokens, gemma4_unified_text/perturbed) kept 5 sliding layers of K and V (1, 4, 7, 64), the full layer's (1, 2, 7,
    128) twice (K = V) and nothing on the layer reusing them: 43,008 bytes and five int64 window scalars."""
    text = _case("gemma4_unified_text/perturbed")
    assert _kv(text, "transformers", seq="7") == 43_008 == 2 * 7 * 2 * (5 * 4 * 64 + 2 * 128)
    wrapped = {"model_type": "gemma4_unified", "text_config": text, "vision_config": {"patch_size": 16}}
    spec = from_hf_config(wrapped)
    assert not spec.assumptions and param_count(spec) == param_count(from_hf_config(text))
    # the keys of Gemma 4's per-layer inputs, which this class does not build, change nothing
    ple = {**text, "hidden_size_per_layer_input": 32, "vocab_size_per_layer_input": 1000}
    assert param_count(from_hf_config(ple)) == param_count(from_hf_config(text))


def test_laguna_reads_heads_per_layer_kind_and_its_gate_per_head_or_per_channel():
    """LagunaAttention: num_attention_heads_per_layer query heads (8 full, 12 sliding here), KV heads alike in every
    layer; g_proj one gate per head (gating True, the class's default) or per channel ("per-element"). transformers
    5.23 (bf16, 7 tokens, laguna/perturbed) kept K and V (1, 4, 7, 64) on each of the 6 layers: 43,008 bytes; at 200
    tokens the sliding layers kept 127 (sliding_window - 1), the engine counts the window, 128."""
    config = _case("laguna/perturbed")
    spec = from_hf_config(config)
    assert (spec.heads, spec.sliding_heads, spec.head_gate, spec.gate_apart) == (8, 12, False, True)
    assert spec.moe.shared_ffn == 384 and spec.moe.score_bias and spec.moe_layers == (False, False) + (True,) * 4
    assert _kv(config, "transformers", seq="7") == 43_008 == 6 * 7 * 4 * 64 * 2 * 2
    assert _kv(config, "transformers", seq="200") == (2 * 200 + 4 * 128) * 4 * 64 * 2 * 2
    per_head = from_hf_config({**config, "gating": True})  # g_proj: 8 or 12 outputs, not heads x 64
    h = 768
    assert param_count(spec) - param_count(per_head) == h * 64 * (2 * 8 + 4 * 12) - h * (2 * 8 + 4 * 12)
    mixed = {**config, "num_attention_heads_per_layer": [8, 12, 16, 8, 12, 12]}  # a kind of two head counts: said
    assert any("num_attention_heads_per_layer" in ENGLISH.say(a) for a in from_hf_config(mixed).assumptions)


def test_axk1_norms_each_moe_blocks_output_and_keeps_one_dense_layer_unless_told():
    """AXK1MoE.post_mlp_layernorm: an RMSNorm (hidden wide) after each MoE block, none after the dense MLP.
    AXK1Config.__post_init__ pops first_k_dense_replace (default 1) to make mlp_layer_types."""
    full = _case("axk1/full")
    bare = {k: v for k, v in full.items() if k != "mlp_layer_types"}
    assert param_count(from_hf_config(bare)) == param_count(from_hf_config(full))
    spec = from_hf_config(_case("axk1/perturbed"))
    assert spec.moe.post_norm and spec.moe_layers == (False, False, True, True, True)
    as_v3 = from_hf_config({**_case("axk1/perturbed"), "model_type": "deepseek_v3"})
    assert param_count(spec) - param_count(as_v3) == 3 * 768


def test_axk2_gates_its_norms_and_values_and_caches_as_deepseek_v32():
    """AXK2Attention.q_gate_proj reads [q_a_layernorm(q_a), q_a] (2 × q_lora_rank) into q and a gate per value
    channel; AXK2GatedRMSNorm adds fc1 (hidden → gated_norm_rank) and fc2 after input_layernorm, and after
    post_attention_layernorm on MoE layers. Its cache is DeepSeek-V3.2's (MLA latent, an index key per layer):
    transformers' DynamicCache, vLLM's DeepseekV32 DSA platform (vllm/models/axk2, read, not run)."""
    axk2 = _case("axk2/perturbed")
    spec, as_v32 = from_hf_config(axk2), from_hf_config({**axk2, "model_type": "deepseek_v32"})
    q_gate = 5 * (256 * 8 * (48 + 32 + 64) + 8 * 64 * 256)  # per layer: the wider input, the gate's output
    norms = (5 + 3) * 2 * 24 * 768  # input gates on 5 layers, post-attention ones on the 3 MoE layers
    assert param_count(spec) - param_count(as_v32) == q_gate + norms
    for runtime in ("transformers", "vllm", "llamacpp"):
        assert _kv(axk2, runtime) == _kv({**axk2, "model_type": "deepseek_v32"}, runtime)


@pytest.mark.parametrize(("model_type", "config", "said"), [
    ("xlstm", {"embedding_dim": 512, "num_blocks": 3, "num_heads": 4, "vocab_size": 1000}, "mLSTM"),
    ("cpmant", {"hidden_size": 512, "num_hidden_layers": 3, "num_attention_heads": 8, "dim_head": 64, "dim_ff": 1024,
                "vocab_size": 1000}, "CPM-Ant"),
    ("gpt_neox_japanese", {"hidden_size": 512, "num_hidden_layers": 3, "num_attention_heads": 8, "vocab_size": 1000},
     "attention-output bias"),
    ("opt", {"hidden_size": 1024, "num_hidden_layers": 3, "num_attention_heads": 16, "word_embed_proj_dim": 512,
             "vocab_size": 1000}, "word_embed_proj_dim"),
])
def test_a_layer_kind_of_2019_23_the_engine_does_not_model_is_estimated_and_said(model_type, config, said):
    spec = from_hf_config({"model_type": model_type, **config})
    assert any(said in ENGLISH.say(a) for a in spec.assumptions)
    assert param_count(spec) > 0


def test_rwkv_keeps_five_vectors_of_hidden_size_per_layer_whatever_the_length():
    """RwkvModel.forward's state: five (batch, hidden_size, layers) tensors, the two shifted inputs in the compute type
    and the three WKV numerator, denominator and max in fp32. transformers 5.23 (bf16, 3 layers of 512, 7 and 100
    tokens) kept 24,576 bytes both times. Its weights: time mixing of attention_hidden_size (key, value, receptance,
    output, time_decay and time_first), three time-mix vectors, channel mixing's receptance and two vectors, the first
    layer's pre_ln over the embeddings."""
    config = {**_case("rwkv/perturbed"), "attention_hidden_size": 512}
    spec = from_hf_config(config)
    assert spec.kinds == (AttentionKind.LINEAR,) * 3 and spec.embed_norm and spec.learned_positions == 0
    assert spec.linear.value_head_dim == 512 and from_hf_config(_case("rwkv/perturbed")).linear.value_head_dim == 384
    assert _kv(config, "transformers", seq="7") == _kv(config, "transformers", seq="100") == 24_576
    assert spec.recurrent_state_bytes(2) == 3 * 512 * (2 * 2 + 3 * 4)


@pytest.mark.parametrize(("model_type", "said"), [("bart", "an encoder-decoder model: not read yet"),
                                                   ("xlnet", "XLNet's layers are not read yet")])
def test_an_encoder_decoder_type_is_refused_by_what_it_is_not_by_a_missing_size(model_type, said):
    with pytest.raises(ValidationError, match=said):
        from_hf_config({"model_type": model_type, "d_model": 1024, "encoder_layers": 12})


def test_a_window_wider_than_the_context_is_read_as_transformers_reads_it():
    """EXAONE 4's and OLMo 3's class defaults give a 4,096-token window over 2,048 positions: transformers builds
    them, so the reader does too (the count unchanged); within the context the window never binds."""
    from vramcalc.model.table import count_params

    for name in ("exaone4/full", "olmo3/full"):
        case = next(c for c in CASES if c["name"] == name)
        config = {**case["config"], "max_position_embeddings": 2048, "sliding_window": 4096}
        spec = from_hf_config(config)
        assert count_params(spec, active=False) == case["text_params"]
        assert spec.sliding_window == 4096


def test_zaya_keeps_its_convolution_window_and_delayed_value_beside_kv():
    """ZayaCCAProjection: per layer and sequence the last cca_time0 - 1 + cca_time1 - 1 inputs of the convolutions
    over q and k, and the previous token's delayed value half, in the compute type. transformers 5.23 (bf16,
    zaya/perturbed: 5 layers, q 384, kv 96, kernels 3 and 2) kept K and V (1, 2, 7, 48), conv_states (1, 480, 3) and
    recurrent_states (1, 48) on each layer: 28,320 bytes at 7 tokens (and 24 in the sliding layers' int64 window
    scalars); after a 200-token prompt and one decode step, 316,704 bytes of storage, the sliding layers 128 tokens."""
    config = _case("zaya/perturbed")
    spec = from_hf_config(config)
    assert spec.cca is not None and spec.head_bias and [k.value for k in spec.kinds] == [
        "sliding", "full", "sliding", "sliding", "full"]
    state = 5 * ((384 + 96) * (2 + 1) + 48) * 2
    assert state == 14_880 and spec.recurrent_state_bytes(2) == state
    assert _kv(config, "transformers", seq="7") == 28_320 == 5 * 7 * 2 * 96 * 2 + state
    assert _kv(config, "transformers", seq="201") == 316_704 == (2 * 201 + 3 * 128) * 2 * 96 * 2 + state
    # the first layer's router reads no earlier router's state: no router_states_scale (router_hidden_size 96)
    first, second = (sum(t.numel for t in layer_tensors(spec, i)) for i in (0, 1))
    assert second - first == 96


def test_inkling_keeps_four_fp32_convolution_windows_per_layer_beside_kv_of_each_kind():
    """InklingAttention: sliding layers of swa_num_key_value_heads × swa_head_dim (4 × 32 here), full ones of
    num_key_value_heads × head_dim (2 × 64); each layer's four InklingShortConvolution keep their last
    conv_kernel_size inputs in fp32 (k and v: 128 wide, attention's and the MLP's output: 512). transformers 5.23
    (bf16, inkling_text/perturbed) kept 113,664 bytes at 7 tokens (and 32 in the sliding layers' int64 window
    scalars); after a 100-token prompt and one decode step 326,656 bytes of storage, the sliding layers 64 tokens."""
    config = _case("inkling_text/perturbed")
    spec = from_hf_config(config)
    assert (spec.heads, spec.sliding_heads, spec.kv_heads, spec.full_kv_heads) == (8, 12, 4, 2)
    assert not spec.tie_embeddings and spec.embed_norm  # InklingForCausalLM ties nothing
    state = 6 * (2 * 128 + 2 * 512) * 3 * 4
    assert spec.recurrent_state_bytes(2) == state == 92_160
    assert _kv(config, "transformers", seq="7") == 113_664 == 6 * 7 * 2 * 128 * 2 + state
    assert _kv(config, "transformers", seq="101") == 326_656 == (2 * 101 + 4 * 64) * 2 * 128 * 2 + state


def test_starcoder2_has_layernorms_biases_a_plain_mlp_and_a_window_on_every_layer():
    """Starcoder2ForCausalLM: LayerNorms (weight and bias), use_bias on q/k/v/o, c_fc and c_proj, no gate. transformers
    5.23 (bf16, starcoder2/perturbed) kept K and V (1, 4, 7, 64) on each of its 5 layers at 7 tokens, 35,840 bytes; at
    200 tokens tensors of 127 (sliding_window - 1), views of the prompt's whole K/V: their storage, 1,024,000 bytes, is
    the engine's window (655,360) plus its prefill-window temporaries (368,640). llama.cpp's StarCoder2 graph reads no
    window (src/models/starcoder2.cpp: build_attn_inp_kv): every layer keeps n_ctx cells."""
    config = _case("starcoder2/perturbed")
    spec = from_hf_config(config)
    assert (spec.gated_mlp, spec.qkv_bias, spec.o_bias, spec.mlp_bias, spec.head_bias) == (False, True, True, True,
                                                                                           False)
    assert set(spec.kinds) == {AttentionKind.SLIDING} and spec.sliding_window == 128
    assert _kv(config, "transformers", seq="7") == 35_840 == 5 * 7 * 4 * 64 * 2 * 2
    assert _kv(config, "transformers", seq="200") == 5 * 128 * 4 * 64 * 2 * 2
    held = estimate(parse_workload({"model": "config", "seq": "200", "runtime": "transformers", "kv_precision": "bf16"},
                                   config=config))
    assert held.bytes_of("kv_cache") + held.bytes_of("temporaries") == 1_024_000 == 5 * 200 * 4 * 64 * 2 * 2
    assert _kv(config, "llamacpp", seq="4096", kv_precision="fp16") == 5 * 4096 * 4 * 64 * 2 * 2
    unbiased = from_hf_config({**config, "use_bias": False})
    h, kv, ffn, layers = 768, 256, 3072, 5
    assert param_count(spec) - param_count(unbiased) == layers * (h + 2 * kv + h + ffn + h)


def test_arcee_is_llama_with_an_ungated_mlp_biased_by_mlp_bias():
    """ArceeMLP (NemotronMLP): up_proj and down_proj, ReLU², no gate, biased by mlp_bias. transformers 5.23 (bf16,
    arcee/perturbed) kept K and V (1, 2, 7, 96) on each of its 5 layers at 7 tokens: 26,880 bytes."""
    config = _case("arcee/perturbed")
    spec = from_hf_config(config)
    assert (spec.gated_mlp, spec.mlp_bias, spec.qkv_bias, spec.o_bias) == (False, True, True, True)
    assert _kv(config, "transformers", seq="7") == 26_880 == 5 * 7 * 2 * 96 * 2 * 2
    unbiased = from_hf_config({**config, "mlp_bias": False})
    assert param_count(spec) - param_count(unbiased) == 5 * (4608 + 640)


def test_jais2_has_layernorms_and_an_ungated_mlp_biased_by_default():
    """Jais2ForCausalLM: LayerNorms (weight and bias), up/down MLP (ReLU², no gate); attention_bias and mlp_bias are
    on unless the config says otherwise (Jais2Config). transformers 5.23 (bf16, jais2/perturbed) kept K and V
    (1, 13, 7, 64) on each of its 5 layers at 7 tokens: 116,480 bytes."""
    config = _case("jais2/perturbed")
    spec = from_hf_config(config)
    assert (spec.gated_mlp, spec.mlp_bias, spec.qkv_bias, spec.kv_heads) == (False, True, False, 13)
    assert _kv(config, "transformers", seq="7") == 116_480 == 5 * 7 * 13 * 64 * 2 * 2
    without = {k: v for k, v in config.items() if k != "attention_bias"}  # the class's default: biased
    assert param_count(from_hf_config(without)) - param_count(spec) == 5 * 4 * 832


def test_mellum_reads_its_window_and_dense_layers_by_layer_lists_and_its_experts_by_either_name():
    """MellumForCausalLM: Qwen3-MoE's attention and experts, sliding layers by layer_types, dense layers by
    mlp_layer_types. transformers 5.23 (bf16, mellum/perturbed: layers 3 and 7 full, the others sliding at 128) kept
    K and V (1, 2, 7, 64) on each of 8 layers at 7 tokens, 28,672 bytes; at 200 tokens the sliding layers showed 127,
    views of the prompt's K/V (the storage, 819,200 bytes: the engine's kv_cache and prefill-window temporaries)."""
    config = _case("mellum/perturbed")
    spec = from_hf_config(config)
    assert [k is AttentionKind.FULL for k in spec.kinds] == [i % 4 == 3 for i in range(8)]
    assert spec.moe_layers == (False, False) + (True,) * 6 and spec.moe.experts == 12 and not spec.moe.shared_ffn
    assert _kv(config, "transformers", seq="7") == 28_672 == 8 * 7 * 2 * 64 * 2 * 2
    assert _kv(config, "transformers", seq="200") == (2 * 200 + 6 * 128) * 2 * 64 * 2 * 2
    # the class's defaults: every layer sparse, every layer full; num_local_experts is num_experts (attribute_map)
    bare = {k: v for k, v in config.items() if k not in ("mlp_layer_types", "layer_types", "num_experts")}
    spec = from_hf_config({**bare, "num_local_experts": 12})
    assert spec.moe_layers == (True,) * 8 and set(spec.kinds) == {AttentionKind.FULL} and spec.moe.experts == 12
    assert not spec.assumptions


def test_nanochat_has_no_norm_weights_and_an_ungated_mlp():
    """NanoChatRMSNorm is F.rms_norm without a weight (the layers' two, the q/k norms per head, the final one):
    NanoChatForCausalLM holds only q/k/v/o (attention_bias), fc1, fc2, the embedding and the head. transformers 5.23
    (bf16, nanochat/perturbed) kept K and V (1, 2, 7, 96) on each of its 5 layers at 7 tokens: 26,880 bytes."""
    config = _case("nanochat/perturbed")
    spec = from_hf_config(config)
    h, q, kv, ffn = 640, 8 * 96, 2 * 96, 2560
    layer = (h + 1) * q + 2 * (h + 1) * kv + (q + 1) * h + 2 * h * ffn
    assert param_count(spec) == 5 * layer + 32000 * h  # tied: the embedding once, no norm anywhere
    assert spec.final_logit_softcap and not spec.attention_softcap
    assert _kv(config, "transformers", seq="7") == 26_880 == 5 * 7 * 2 * 96 * 2 * 2


def test_persimmon_has_a_layernorm_per_q_and_k_head_and_no_gqa_whatever_the_config_says():
    """PersimmonAttention: a biased fused query_key_value and dense, q_layernorm and k_layernorm (LayerNorms of head_dim
    with weight and bias) when qk_layernorm (on by default), every head its own K/V, head_dim hidden / heads.
    transformers 5.23 (bf16, persimmon/perturbed) kept K and V (1, 12, 7, 64) on each of 5 layers: 107,520 bytes."""
    config = _case("persimmon/perturbed")
    spec = from_hf_config(config)
    assert (spec.fused_qkv, spec.qkv_bias, spec.o_bias, spec.mlp_bias, spec.gated_mlp) == (True, True, True, True,
                                                                                         False)
    assert _kv(config, "transformers", seq="7") == 107_520 == 5 * 7 * 12 * 64 * 2 * 2
    normed = from_hf_config({k: v for k, v in config.items() if k != "qk_layernorm"})  # the class's default: on
    assert param_count(normed) - param_count(spec) == 5 * 2 * 2 * 64
    assert param_count(from_hf_config({**config, "num_key_value_heads": 4, "head_dim": 32})) == param_count(spec)
    fuyu = {"model_type": "fuyu", "text_config": config, "patch_size": 30, "num_channels": 3}
    assert param_count(from_hf_config(fuyu)) == param_count(spec)
    flat = {**config, "model_type": "fuyu", "patch_size": 30, "num_channels": 3}  # the text keys at the top
    assert param_count(from_hf_config(flat)) == param_count(spec) and not from_hf_config(flat).assumptions


def test_minimax_keeps_a_lightning_state_per_sequence_and_kv_on_its_softmax_layers():
    """MiniMaxLightningAttention keeps K^T V per head (heads × head_dim², the compute type), whatever the length;
    the softmax layers K and V per token. transformers 5.23 (bf16, minimax/perturbed: 5 lightning layers of 8 heads
    of 48, 2 softmax layers of 2 KV heads) kept 189,696 bytes at 7 tokens and 337,920 at 200 (MiniMaxCache)."""
    config = _case("minimax/perturbed")
    spec = from_hf_config(config)
    assert spec.linear.lightning and spec.linear.conv_dim == 0
    assert spec.recurrent_state_bytes(2) == 5 * 8 * 48 * 48 * 2
    assert _kv(config, "transformers", seq="7") == 189_696 == 5 * 8 * 48 * 48 * 2 + 2 * 2 * 2 * 48 * 7 * 2
    assert _kv(config, "transformers", seq="200") == 337_920
    # vLLM (MambaStateShapeCalculator.linear_attention_state_shape, the model's dtype): the same state, its page
    # padded to whole 16-token blocks of an attention layer's K and V (384 bytes a token here)
    assert spec.state_bytes_of(spec.kinds[0], 2, trim=1, state_e=4) == 8 * 48 * 48 * 2


def test_minimax_hub_files_read_as_the_hf_conversion():
    """MiniMaxAI/MiniMax-Text-01 and MiniMax-M1 (remote code, minimax_text_01 / minimax_m1): attn_type_list (0
    lightning, 1 softmax) for layer_types, layernorm_* factors and postnorm (no weights); a config without either
    takes MiniMaxConfig's alternation (layers 0, 2, 4... softmax)."""
    hf = _case("minimax/full")
    legacy = {k: v for k, v in hf.items() if k != "layer_types"} | {
        "model_type": "minimax_text_01", "attn_type_list": [int(t == "full_attention") for t in hf["layer_types"]],
        "postnorm": True, "layernorm_full_attention_alpha": 3.5565588200778455, "rotary_dim": 64,
        "shared_intermediate_size": 0}
    spec = from_hf_config(legacy)
    assert not spec.assumptions
    assert param_count(spec) == param_count(from_hf_config(hf)) == 456_089_655_296
    assert param_count(from_hf_config({**legacy, "model_type": "minimax_m1"})) == param_count(spec)
    bare = from_hf_config({k: v for k, v in _case("minimax/perturbed").items() if k != "layer_types"})
    assert [k.value for k in bare.kinds] == ["full", "linear"] * 3 + ["full"]
    with pytest.raises(ValidationError, match="attn_type_list"):
        from_hf_config({**legacy, "attn_type_list": [0, 1]})
    shared = from_hf_config({**legacy, "shared_intermediate_size": 4096})  # built by vLLM's remote-code class only
    assert any("shared_intermediate_size" in ENGLISH.say(a) for a in shared.assumptions)


def test_zamba2_holds_each_shared_block_once_with_a_lora_per_use_and_caches_every_layers_state():
    """Zamba2: num_mem_blocks shared blocks (2h-wide attention input, heads of 2h / heads, a gated MLP) serve the
    hybrid layers in turn, each use with its own LoRA (gate_up; q, k, v with use_shared_attention_adapter) and its own
    linear; a Mamba-2 mixer in every layer. transformers 5.23 ties the blocks' uses only with tie_word_embeddings
    (get_expanded_tied_weights_keys): zamba2/perturbed (untied) holds a copy per use, tied it counts 43,417,600 on
    the meta device. Cache (bf16, zamba2/perturbed): K and V (1, 8, t, 128) on the 3 hybrid layers, conv (1, 1152, 3)
    bf16 and SSM (1, 16, 64, 32) fp32 states on all 8: 1,189,888 bytes at 7 tokens, 3,561,472 at 200."""
    config = _case("zamba2/perturbed")
    spec = from_hf_config(config)
    assert [k.value for k in spec.kinds] == ["none", "none", "full", "none", "full", "none", "full", "none"]
    assert spec.head_dim == 128 and spec.parallel_mamba and spec.mamba.conv_bias  # biased whatever use_conv_bias says
    tied = from_hf_config({**config, "tie_word_embeddings": True})
    assert not tied.assumptions and param_count(tied) == 43_417_600
    states = 8 * (1152 * 3 * 2 + 16 * 64 * 32 * 4)
    assert _kv(config, "transformers", seq="7") == 1_189_888 == 3 * 2 * 8 * 128 * 7 * 2 + states
    assert _kv(config, "transformers", seq="200") == 3_561_472
    # the class's 54-layer default list, and head_dim from 2 × hidden
    bare = from_hf_config({"model_type": "zamba2", "hidden_size": 1024})
    assert bare.layers == 54 and bare.count_kind(AttentionKind.FULL) == 9 and bare.head_dim == 64
    # a num_hidden_layers other than the list's length: transformers 5.23 refuses it ("`num_hidden_layers` (12) must
    # be equal to the number of `layer_types` (54)"), so no 54-layer answer for a 12-layer config
    for depth, listed in ((12, None), (12, config["layers_block_type"])):
        with pytest.raises(ValidationError, match="num_hidden_layers"):
            from_hf_config({**config, "num_hidden_layers": depth, "layers_block_type": listed})


def test_zamba_is_zamba2s_layout_with_mamba1_mixers_and_one_shared_block_without_adapters():
    """ZambaMambaMixer: n_mamba_heads Mamba-1 mixers side by side, one mixer's shapes in all; one shared block
    (attention_hidden_size in, attention_head_dim heads), no adapters; hybrid layers: layer 2, then every
    attn_layer_period-th from attn_layer_offset. Cache (bf16, zamba/perturbed): K and V (1, 4, t, 96) on the 3
    hybrid layers, conv (1, 1024, 4) bf16 and SSM (1, 4, 256, 8) fp32 on all 9: 400,896 bytes at 7 tokens,
    1,290,240 at 200."""
    config = _case("zamba/perturbed")
    spec = from_hf_config(config)
    assert [i for i, k in enumerate(spec.kinds) if k is AttentionKind.FULL] == [2, 4, 7]
    assert spec.mamba.version == 1 and spec.mamba.dt_rank == 24 and spec.shared_block.rank == 0
    states = 9 * (1024 * 4 * 2 + 1024 * 8 * 4)
    assert _kv(config, "transformers", seq="7") == 400_896 == 3 * 2 * 4 * 96 * 7 * 2 + states
    assert _kv(config, "transformers", seq="200") == 1_290_240
    # an untied head gives each of the 3 uses its block (transformers 5.23 ties only with tie_word_embeddings)
    tied = from_hf_config({**config, "tie_word_embeddings": True})
    h, wide, q, kv, ffn = 512, 1024, 8 * 96, 4 * 96, 1536
    block = wide + q * wide + 2 * kv * wide + h * q + h + 3 * ffn * h
    assert param_count(spec) - param_count(tied) == 2 * block + 32000 * h


def test_recurrent_gemma_keeps_an_rg_lru_state_per_sequence_and_a_window_on_its_attention_layers():
    """RecurrentGemmaRecurrentBlock keeps conv1d_state (lru_width × (conv1d_width - 1), the compute type) and the
    RG-LRU's recurrent_states (lru_width, fp32) on the module; the local-attention layers K and V of the last
    attention_window_size tokens. transformers 5.23 (bf16, recurrent_gemma/perturbed: 3 recurrent layers of 384, kernel
    3; 2 attention layers of 2 KV heads of 64, window 16) kept 9,216 bytes of states and 7,168 of K/V at 7 tokens."""
    config = _case("recurrent_gemma/perturbed")
    spec = from_hf_config(config)
    assert "".join(k.value[0] for k in spec.kinds) == "lslsl" and spec.sliding_window == 16 and spec.ffn == 768
    assert spec.recurrent_state_bytes(2) == 9_216 == 3 * (384 * 2 * 2 + 384 * 4)
    assert _kv(config, "transformers", seq="7") == 9_216 + 7_168
    # DynamicSlidingWindowLayer stores window - 1 tokens between steps, a decode step's concatenation the window
    assert _kv(config, "transformers", seq="40") == 9_216 + 2 * 16 * 2 * 2 * 64 * 2


def test_jetmoe_routes_its_query_and_output_projections_and_caches_its_kv_heads():
    """JetMoeMoA: num_key_value_heads × num_experts_per_tok query heads whatever the config says, q and o per expert
    (active per token as the MLP's experts); K and V of the KV heads (kv_channels) cached once, repeated only in
    attention. transformers 5.23 (bf16, jetmoe/perturbed: 3 layers of 4 KV heads of 48) kept 16,128 bytes at 7 tokens
    and 460,800 at 200 (DynamicCache)."""
    config = _case("jetmoe/perturbed")
    spec = from_hf_config({**config, "num_attention_heads": 7})
    assert (spec.heads, spec.kv_heads, spec.head_dim) == (12, 4, 48)
    assert active_param_count(spec) == param_count(spec) - 3 * (6 - 3) * (2 * 192 * 512 + 3 * 384 * 512)
    assert _kv(config, "transformers", seq="7") == 16_128 and _kv(config, "transformers", seq="200") == 460_800


def test_phi4_multimodal_is_read_as_its_phi3_text_model_with_its_own_class_defaults():
    """Phi4MultimodalForCausalLM: a Phi-3 decoder (fused qkv_proj and gate_up_proj) beside its image and audio towers
    (embed_tokens_extend, counted apart and named); transformers 5.23 builds no LoRA for them. Omitted keys take
    Phi4MultimodalConfig's defaults (200,064 tokens, 8 KV heads), not Phi-3's. K/V as Phi-3's: transformers 5.23
    (bf16, phi4_multimodal/perturbed: 3 layers of 8 KV heads of 64) kept 43,008 bytes at 7 tokens."""
    config = _case("phi4_multimodal/perturbed")
    spec = from_hf_config(config)
    assert (spec.vocab, spec.kv_heads, spec.fused_qkv) == (200_064, 8, True) and not spec.assumptions
    assert _kv(config, "transformers", seq="7") == 43_008
    full = from_hf_config(_case("phi4_multimodal/full"))
    assert not full.assumptions and any("phi4_multimodal" in ENGLISH.say(n) for n in full.notes)


def test_aria_text_has_experts_and_shared_experts_of_intermediate_size_in_every_layer():
    """AriaTextMoELayer: moe_num_experts of intermediate_size (moe_topk per token) and moe_num_shared_experts of that
    width as one MLP (mlp_bias on it, not on the experts), in every layer; also read under its wrapper `aria`.
    transformers 5.23 (bf16, aria_text/perturbed: 3 layers of 2 KV heads of 64) kept 10,752 bytes at 7 tokens."""
    config = _case("aria_text/perturbed")
    spec = from_hf_config(config)
    assert (spec.moe.experts, spec.moe.per_token, spec.moe.ffn, spec.moe.shared_ffn) == (12, 3, 192, 384)
    assert spec.moe_layers == (True,) * 3 and spec.mlp_bias and not spec.assumptions
    wrapped = from_hf_config({"model_type": "aria", "text_config": config, "vision_config": {"hidden_size": 1152}})
    assert param_count(wrapped) == param_count(spec) and not wrapped.assumptions
    assert _kv(config, "transformers", seq="7") == 10_752


def test_inkling2_keeps_four_fp32_convolution_windows_per_layer_its_dynamic_ones_too():
    """Inkling 2 (inkling2_text/perturbed: layers 0, 3 and 6 full of 2 × 64, the others sliding of 4 × 32, window
    64, conv_kernel_size 3): each layer's two k/v convolutions (static or input-dependent taps) and two on attention's
    and the MLP's output keep their last 3 inputs in fp32. transformers 5.23 (bf16) kept 132,640 bytes at 7 tokens
    (32 of them the sliding layers' int64 window scalars); after a 100-token prompt and one decode step 393,760."""
    config = _case("inkling2_text/perturbed")
    spec = from_hf_config(config)
    assert spec.inkling is not None and spec.inkling.two and not spec.tie_embeddings
    state = 7 * (2 * 128 + 2 * 512) * 3 * 4
    assert spec.recurrent_state_bytes(2) == state == 107_520
    assert _kv(config, "transformers", seq="7") == 132_640 - 32 == 7 * 7 * 2 * 128 * 2 + state
    assert _kv(config, "transformers", seq="101") == 393_760 - 32 == (3 * 101 + 4 * 64) * 2 * 128 * 2 + state
    wrapped = {"model_type": "inkling2", "text_config": config, "vision_config": {}}
    assert param_count(from_hf_config(wrapped)) == param_count(spec) == 60_858_432


def test_dots3_caches_each_layer_kinds_latent_and_fp32_indexer_keys_on_indexed_layers_only():
    """Dots3 (dots3_note_text/perturbed, as its released files give it): layers 0, 2 and 5 indexed MLA of latent
    64 + rope 16, the others sliding MLA of 128 + 32 keeping 65 tokens (sliding_window_size); the indexer's keys (32)
    on the indexed layers only, in fp32 (Dots3NoteTextModel makes their rotary tables from fp32 embeddings).
    transformers 5.23 (bf16) kept 12,792 bytes at 7 tokens and 149,688 after a 100-token prompt and one decode step,
    24 of them the sliding layers' int64 window scalars."""
    config = _case("dots3_note_text/perturbed")
    spec = from_hf_config(config)
    assert spec.indexer is not None and spec.indexer.shared == {1, 3, 4} and spec.sliding_window == 65
    assert _kv(config, "transformers", seq="7") == 12_792 - 24 == 3 * 7 * (80 + 160) * 2 + 3 * 7 * 32 * 4
    assert _kv(config, "transformers", seq="101") == 149_688 - 24 == (3 * 101 * 80 + 3 * 65 * 160) * 2 + 3 * 101 * 128
    # the wrapper, with its text keys at the top as the released files keep them
    assert param_count(from_hf_config({**config, "model_type": "dots3_note"})) == param_count(spec) == 28_977_568


def test_glm5_next_keeps_kda_states_latents_and_packed_pooled_indexer_rows():
    """GLM-5.3 (glm5_next_text/perturbed): three KDA layers (4 heads of 32, kernel 3) keep a bf16 window of 3 inputs
    over q, k and v and an fp32 state per head; three MLA layers a latent of 64 (no RoPE) per token; the two that run
    their own indexer (layer 5 shares layer 4's) a packed row per token of key, gate scores (32 each) and a valid
    flag in bf16. transformers 5.23 (bf16) kept 60,572 bytes at 7 tokens and 121,108 after 100 + 1."""
    config = _case("glm5_next_text/perturbed")
    spec = from_hf_config(config)
    assert spec.indexer is not None and spec.indexer.kpool == 8 and spec.hyper == 3 and spec.hyper_comb
    state = 3 * (384 * 3 * 2 + 4 * 32 * 32 * 4)
    assert spec.recurrent_state_bytes(2) == state == 56_064
    assert _kv(config, "transformers", seq="7") == 60_572 == state + 3 * 7 * 64 * 2 + 2 * 7 * 65 * 2
    assert _kv(config, "transformers", seq="101") == 121_108 == state + 3 * 101 * 64 * 2 + 2 * 101 * 65 * 2


def test_mistral_keeps_its_whole_context_under_llamacpp_and_its_window_elsewhere():
    """Mistral 7B v0.1 (sliding_window 4,096): llama.cpp converts MistralForCausalLM as LLM_ARCH_LLAMA
    (conversion/__init__.py), writes no window and its graph reads none (src/models/llama.cpp: build_attn_inp_kv),
    so 16,384 cells on every layer; transformers and vLLM keep the window."""
    values = {"model": "mistral-7b", "seq": "16384"}
    run = estimate(parse_workload({**values, "runtime": "llamacpp", "precision": "q4_k_m"}))
    kv = next(c for c in run.components if c.key == "kv_cache")
    assert kv.bytes == 32 * 2 * 8 * 128 * 16_384 * 2
    assert "reads no window" in ENGLISH.say(kv.explain())
    windowed = estimate(parse_workload({**values, "runtime": "transformers"}))
    assert next(c for c in windowed.components if c.key == "kv_cache").bytes == 32 * 2 * 8 * 128 * 4_096 * 2


def test_mistrals_decode_under_llamacpp_reads_its_whole_context():
    """The speed follows the cache llama.cpp keeps: at 16,384 tokens Mistral 7B v0.1 reads its whole K/V per token
    under llama.cpp (not 4,096 tokens' worth, as with the window): slower than at 4,096."""
    from vramcalc.speed import speed_of
    from vramcalc.workload import Machine

    values = {"model": "mistral-7b", "gpu": "rtx-4090", "prompt_tokens": "16128", "output_tokens": "256"}
    long, short = (parse_workload({**values, "runtime": "llamacpp", "precision": "q4_k_m", **more})
                   for more in ({}, {"prompt_tokens": "3840"}))
    slow, fast = (speed_of(estimate(w), w.gpu, 1, Machine()).decode_tokens_per_s for w in (long, short))
    assert slow is not None and fast is not None and slow < 0.8 * fast  # windowed, both would read 4,096 tokens' K/V


def test_biogpt_has_opts_positions_biased_layernorm_layers_and_a_tied_head():
    """BioGptForCausalLM: a position table of max_position_embeddings + 2 rows (OPTLearnedPositionalEmbedding), BART's
    pre-LN layers with biases on q/k/v/out and fc1/fc2, a final LayerNorm. transformers 5.23 (bf16, 7 tokens,
    biogpt/perturbed) kept K and V (1, 8, 7, 64) on each of its 3 layers: 43,008 bytes."""
    config = _case("biogpt/perturbed")
    spec = from_hf_config(config)
    assert spec.learned_positions == 302 and spec.final_norm and spec.qkv_bias and spec.o_bias and spec.mlp_bias
    assert not spec.gated_mlp and not spec.tie_embeddings and from_hf_config(_case("biogpt/full")).tie_embeddings
    assert _kv(config, "transformers", seq="7") == 43_008 == 3 * 7 * 2 * 512 * 2


def test_git_is_a_post_ln_bert_decoder_with_a_biased_head_its_image_tower_noted():
    """GitForCausalLM's text side: learned positions and a LayerNorm over the embeddings, BERT's post-LN layers (no
    final norm), biases everywhere, the head's kept when tied. transformers 5.23 (bf16, 7 text tokens, git/perturbed)
    kept K and V (1, 8, 7, 64) on each of its 3 layers: 43,008 bytes."""
    config = _case("git/perturbed")
    spec = from_hf_config(config)
    assert spec.learned_positions == 300 and spec.embed_norm and not spec.final_norm
    assert spec.head_bias and spec.tie_embeddings and not spec.assumptions
    assert any("vision tower" in ENGLISH.say(n) for n in spec.notes)
    assert _kv(config, "transformers", seq="7") == 43_008


def test_kolibri1_has_experts_in_every_layer_beside_an_ungated_shared_mlp_of_its_own_width():
    """Kolibri1SparseMoeBlock: experts of moe_intermediate_size and shared_experts (a gated MLP of
    shared_expert_intermediate_size, no sigmoid gate on it); e_score_correction_bias a buffer (not counted); four
    norms per layer. transformers 5.23 (bf16, kolibri1/perturbed: 2 sliding layers of window 64, 2 full, 2 KV heads
    of 48) kept 10,752 bytes of K/V at 7 tokens (and 16 in the sliding layers' int64 scalars); at 100 the sliding
    layers kept 63 tokens (window - 1), the engine counts the window."""
    config = _case("kolibri1/perturbed")
    spec = from_hf_config(config)
    assert spec.moe.shared_ffn == 320 and not spec.moe.shared_gate and not spec.moe.score_bias
    assert spec.moe_layers == (True,) * 4 and spec.norms_per_layer == 4 and spec.sliding_window == 64
    assert _kv(config, "transformers", seq="7") == 10_752 == 4 * 7 * 2 * 2 * 48 * 2
    assert _kv(config, "transformers", seq="100") == (2 * 100 + 2 * 64) * 2 * 2 * 48 * 2
    assert [k.value for k in from_hf_config({**config, "layer_types": None}).kinds] == ["sliding"] * 4  # every 5th
    assert not from_hf_config({**config, "use_sliding_window": True, "attention_bias": True}).assumptions  # dropped


def test_beam_gates_attention_per_channel_with_a_bias_per_head_and_attends_in_full_on_its_last_layer():
    """BeamAttention: gate_proj (h -> heads x head_dim, unbiased) and gate_bias, one per head; four norms per layer;
    BeamConfig without layer_types: every 6th layer and the last full. transformers 5.23 (bf16, beam/perturbed: 8
    layers, 2 KV heads of 48, window 64) kept 21,504 bytes of K/V at 7 tokens (and 48 in int64 scalars); at 100 the
    6 sliding layers kept 63 tokens (window - 1), the engine counts the window."""
    config = _case("beam/perturbed")
    spec = from_hf_config(config)
    assert "".join(k.value[0] for k in spec.kinds) == "sssssfsf" and spec.moe_layers == (False,) * 2 + (True,) * 6
    assert spec.gate_apart and spec.gate_bias and spec.norms_per_layer == 4 and not spec.moe.shared_ffn
    unbiased = param_count(from_hf_config(config)) - param_count(dataclasses.replace(spec, gate_bias=False))
    assert unbiased == 8 * 8
    assert _kv(config, "transformers", seq="7") == 21_504 == 8 * 7 * 2 * 2 * 48 * 2
    assert _kv(config, "transformers", seq="100") == (2 * 100 + 6 * 64) * 2 * 2 * 48 * 2


def test_hrm_text_caches_every_pass_of_its_two_stacks_and_holds_each_stacks_weights_once():
    """HrmTextModel: H_cycles times, L_cycles passes of the L stack and one of the H stack, each a DynamicCache slot
    (num_hidden_layers = num_layers_per_stack × H_cycles × (L_cycles + 1)); weights once per stack, norms without
    weights, gate_proj biased by attention_bias, z_L_init. transformers 5.23 (bf16, hrm_text/perturbed: 2 layers a
    stack, 2 H cycles of 2 L passes, 4 heads of 48) kept K and V (1, 4, 7, 48) in 12 slots at 7 tokens: 64,512 bytes."""
    config = _case("hrm_text/perturbed")
    spec = from_hf_config(config)
    assert spec.layers == 12 and spec.kv_heads == spec.heads == 4 and spec.gate_bias == 48
    assert [i for i in range(12) if not spec.reuses_weights(i)] == [0, 1, 4, 5]  # the first L pass, the first H pass
    assert _kv(config, "transformers", seq="7") == 64_512 == 12 * 7 * 2 * 4 * 48 * 2
    saved = {**config, "num_hidden_layers": 12, "num_layers_per_stack": 2}  # as HrmTextConfig.to_dict() writes it
    assert param_count(from_hf_config(saved)) == param_count(spec)
    with pytest.raises(ValidationError, match="num_layers_per_stack"):
        from_hf_config({**saved, "num_hidden_layers": 10})
    with pytest.raises(ValidationError) as caught:  # the passes are named, not a depth nobody typed
        from_hf_config({**config, "H_cycles": 10_000, "L_cycles": 10_000})
    assert caught.value.field == "H_cycles" and "200,020,000 passes" in str(caught.value)
    with pytest.raises(ValidationError) as caught:  # the field named is the one that overflows, not always H_cycles
        from_hf_config({**config, "H_cycles": 2, "L_cycles": 5_000})
    assert caught.value.field == "L_cycles" and "20,004 passes" in str(caught.value)


def test_qwen4_exp_mixes_residual_streams_and_caches_states_kv_index_keys_positions_and_ple_windows():
    """Qwen4ExpTextGatedResidual before attention and before the MLP (hc_norm over hc_count × h, a rank-hc_lowrank mix,
    injection weights) and once at the end; the QSA indexer on the indexed ("full_attention") layers; PLE tables of
    prime rows. transformers 5.23 (bf16, qwen4_exp_text/perturbed, 7 tokens) kept 257,992 bytes: the 4 Gated DeltaNet
    layers' conv_states (1, 640, 3) bf16 and recurrent_states (1, 8, 32, 48) fp32; K and V (1, 2, 7, 64) and an index
    key (1, 7, 64) on the 2 indexed layers; the 3 mRoPE position ids of every token (int64, indexer_position_ids); on
    the 2 PLE layers the conv's (1, 1536, 6) bf16 and the last 2 token ids (int64). 287,984 at 30 tokens."""
    config = _case("qwen4_exp_text/perturbed")
    spec = from_hf_config(config)
    assert spec.gated_residual == (3, 48) and not spec.final_norm and spec.norms_per_layer == 0
    assert spec.indexer.shared == frozenset({0, 1, 3, 4}) and spec.indexer.heads == 2
    assert spec.ple.layers == (1, 3) and spec.ple.rows == (6128, 6336)  # 1009 + ... + 1033 = 6126, padded to 8
    states = 4 * (640 * 3 * 2 + 8 * 32 * 48 * 4) + 2 * (1536 * 6 * 2 + 2 * 8)
    assert _kv(config, "transformers", seq="7") == 257_992 == states + 7 * (2 * (2 * 2 * 64 * 2 + 64 * 2) + 3 * 8)
    assert _kv(config, "transformers", seq="30") == 287_984
    wrapped = {"model_type": "qwen4_exp", "text_config": {**config, "model_type": "qwen4_exp_text"},
               "vision_config": {"depth": 2}}
    assert param_count(from_hf_config(wrapped)) == param_count(spec)
    with pytest.raises(ValidationError, match="ple_layer_ids"):  # PLE on an indexed layer: the class refuses it
        from_hf_config({**config, "ple_layer_ids": [3]})
    with pytest.raises(ValidationError, match="indexer_n_heads"):  # the class defaults: no QSA keys, no build
        from_hf_config({**config, "indexer_n_heads": None})


@pytest.mark.parametrize(("name", "kept"), [
    ("ministral/perturbed", 64_512), ("dots1/perturbed", 35_840), ("nemotron/perturbed", 43_008),
    ("cohere_compass_text/perturbed", 21_504), ("lfm2_moe/perturbed", 28_160), ("hunyuan_v1_moe/perturbed", 14_336),
    ("hunyuan_v1_dense/perturbed", 53_760), ("gemma3n/perturbed", 17_920)])
def test_the_cache_of_types_whose_class_defaults_do_not_build_is_what_transformers_kept(name, kept):
    """Measured 2026-12-07 (transformers 5.23.0, torch 2.13.0+cpu, bf16, random weights, 7 tokens, use_cache=True):
    the bytes of the cache's K/V (and LFM2's convolution state) tensors; Gemma 3n's through its text model's causal
    LM (its wrapper needs timm for the vision tower)."""
    assert _kv(_case(name), "transformers", seq="7") == kept


def test_dots1_slides_from_max_window_layers_whatever_use_sliding_window_says():
    """Dots1Config: layer i slides when sliding_window is set and i >= max_window_layers; use_sliding_window is not
    read (Qwen2's class reads it)."""
    config = {k: v for k, v in _case("dots1/perturbed").items() if k != "layer_types"}
    for use in (None, False, True):
        given = config if use is None else {**config, "use_sliding_window": use}
        spec = from_hf_config(given)
        assert [k.value for k in spec.kinds] == ["full"] * 3 + ["sliding"] * 2 and not spec.assumptions
    assert set(from_hf_config({**config, "sliding_window": None}).kinds) == {AttentionKind.FULL}
    # the class's defaults when the keys are absent: sliding_window 4096 from max_window_layers 62 on
    bare = {k: v for k, v in config.items() if k not in ("sliding_window", "max_window_layers")}
    kinds = [k.value for k in from_hf_config({**bare, "num_hidden_layers": 64}).kinds]
    assert kinds == ["full"] * 62 + ["sliding"] * 2
    assert from_hf_config({**bare, "num_hidden_layers": 64}).sliding_window == 4096
    # its class defaults leave the experts None, which transformers cannot build: refused, not read as dense
    for key in ("n_routed_experts", "n_shared_experts", "num_experts_per_tok"):
        with pytest.raises(ValidationError) as refused:
            from_hf_config({k: v for k, v in config.items() if k != key})
        assert refused.value.field == key


def test_nemotron_has_an_ungated_mlp_and_layernorms_with_a_bias():
    spec = from_hf_config(_case("nemotron/perturbed"))
    names = {t.name for t in layer_tensors(spec, 0)}
    assert "blk.0.ffn_gate.weight" not in names and {"blk.0.attn_norm.bias", "blk.0.ffn_norm.bias"} <= names


@pytest.mark.parametrize("name", ["gemma4_assistant/perturbed", "gemma4_unified_assistant/perturbed",
                                  "gemma4_assistant/released"])
def test_a_gemma4_drafter_reuses_its_targets_kv_in_every_layer(name):
    """Gemma4AssistantForCausalLM: every layer reuses the target's K/V (no k/v weights) and it keeps no cache:
    transformers 5.23 (bf16, random weights, the perturbed configs, the target's K/V of 7 tokens handed in,
    use_cache=True) returned logits and a hidden state, no cache. Its projections to and from the target's width are
    counted."""
    config = _case(name)
    spec = from_hf_config(config)
    assert spec.reusing_layers == spec.layers and not spec.assumptions
    assert not any(t.name.endswith(("attn_k.weight", "attn_v.weight")) for t in layer_tensors(spec, 0))
    for runtime in ("transformers", "vllm", "llamacpp"):
        assert _kv(config, runtime, seq="7") == 0
        result = estimate(parse_workload({"model": "config", "runtime": runtime}, config=config))
        assert any("runs only beside its target" in ENGLISH.say(a) for a in result.assumptions)  # never alone
    backbone, h = config["backbone_hidden_size"], spec.hidden
    bare = from_hf_config({**config, "use_ordered_embeddings": False})
    centroids = config["num_centroids"] * h if config.get("use_ordered_embeddings") else 0
    assert param_count(spec) - param_count(bare) == centroids
    assert param_count(from_hf_config({**config, "backbone_hidden_size": backbone + 1})) - param_count(spec) == 3 * h


@pytest.mark.parametrize(("key", "value"), [("num_kv_shared_layers", 3), ("enable_moe_block", True),
                                            ("hidden_size_per_layer_input", 32), ("vocab_size_per_layer_input", None)])
def test_a_gemma4_drafter_transformers_refuses_is_refused_naming_the_key(key, value):
    """Gemma4AssistantConfig.validate_architecture: no per-layer inputs (whose class default is on), no experts, every
    layer reusing K/V."""
    config = _case("gemma4_assistant/perturbed")
    text = {k: v for k, v in config["text_config"].items() if k != key}
    if value is not None:
        text[key] = value
    with pytest.raises(ValidationError) as refused:
        from_hf_config({**config, "text_config": text})
    assert key in refused.value.field


def test_glm4_norms_after_attention_and_the_mlp_and_glm_does_not():
    """Glm4DecoderLayer: input_layernorm, post_self_attn_layernorm, post_attention_layernorm, post_mlp_layernorm;
    GlmDecoderLayer the first and third only. Both: q/k/v biased by attention_bias (True by default), o_proj never;
    head_dim 128 when a config leaves it out, whatever hidden / heads (the class's default)."""
    glm4, glm = from_hf_config(_case("glm4/perturbed")), from_hf_config(_case("glm/perturbed"))
    assert (glm4.norms_per_layer, glm.norms_per_layer) == (4, 2) and not glm4.qkv_bias and glm.qkv_bias
    assert not glm4.o_bias and not glm.o_bias and glm.head_dim == 128 and glm4.head_dim == 80
    names = {t.name for t in layer_tensors(glm4, 0)}
    assert {"blk.0.post_attention_norm.weight", "blk.0.post_ffw_norm.weight"} <= names
    biased = from_hf_config({**_case("glm4/perturbed"), "attention_bias": True})
    assert param_count(biased) - param_count(glm4) == 5 * (12 + 2 * 4) * 80


def test_stablelm_reads_its_own_bias_key_a_norm_per_head_and_the_parallel_block():
    """StableLmAttention: q/k/v biased by use_qkv_bias (attention_bias is not read), o_proj never, a LayerNorm without
    bias of its own per q and k head with qk_layernorm (heads x head_dim weights, llama.cpp's {head_dim, n_head}),
    head_dim hidden / heads; StableLmDecoderLayer: no post_attention_layernorm with use_parallel_residual."""
    config = _case("stablelm/perturbed")  # 16 heads of 64, 4 KV heads, 4 layers
    spec = from_hf_config(config)
    assert (spec.norms_per_layer, spec.qkv_bias, spec.o_bias, spec.head_dim) == (1, True, False, 64)
    serial = from_hf_config({**config, "use_parallel_residual": False, "qk_layernorm": False, "use_qkv_bias": False,
                             "attention_bias": True})
    h = 1024
    assert param_count(spec) - param_count(serial) == 4 * ((16 + 4) * 64 + (16 + 8) * 64 - 2 * h)
    assert param_count(from_hf_config({**config, "head_dim": 32})) == param_count(spec)


def test_olmo_has_norms_without_parameters_and_biases_by_attention_bias():
    """OlmoLayerNorm: F.layer_norm without weight or bias (two a layer and the final one: no parameters); q/k/v/o
    biased by attention_bias."""
    config = _case("olmo/perturbed")
    spec = from_hf_config(config)
    assert spec.norm.value == "none" and spec.qkv_bias and spec.o_bias
    assert not any("norm" in t.name for t in layer_tensors(spec, 0))
    assert param_count(spec) - param_count(from_hf_config({**config, "attention_bias": False})) == 4 * (
        (16 + 2 * 4) * 64 + 1024)


def test_minicpm3_keeps_its_latent_in_transformers_and_k_and_v_per_head_in_vllm_and_llamacpp():
    """MiniCPM3Attention (transformers 5.23) caches the normed latent and the rotary key: (1, 1, 7, 128) and
    (1, 1, 7, 16) bf16 on each of the 4 layers, 8,064 bytes (measured, perturbed, 7 tokens). vLLM's MiniCPM3Attention
    (minicpm3.py) caches Attention(num_heads, qk_head_dim, num_kv_heads=num_heads): K and V per head, V padded to
    qk_nope + qk_rope; llama.cpp's llm_build_minicpm3 builds K (nope + rope) and V (v_head_dim) per head into its
    unified cache. v_head_dim is hidden / heads when a config leaves it out (MiniCPM3-4B's does)."""
    config = _case("minicpm3/perturbed")  # 12 heads, nope 48 + rope 16, latent 128, v 768 / 12 = 64
    spec = from_hf_config(config)
    assert spec.mla.v_head_dim == 64 and spec.mla_per_head and spec.mla.latent_width == 144
    assert _kv(config, "transformers", seq="7") == 8_064 == 4 * 7 * 144 * 2
    assert _kv(config, "vllm", seq="7") == 4 * 64 * 2 * 12 * 64 * 2  # one 64-token block (vLLM 0.34 on CUDA)
    assert _kv(config, "llamacpp", seq="7") == 4 * 256 * 12 * (64 + 64) * 2  # 256 cells
    direct = from_hf_config({**config, "q_lora_rank": None})  # q_proj from the input: 73,905,984 in transformers
    h = 768  # q_a (biased), its norm and q_b against q_proj
    assert param_count(direct) - param_count(spec) == 4 * (h * 12 * 64 - (192 * h + 2 * 192 + 192 * 12 * 64))


def test_bitnet_norms_attentions_output_and_the_mlps_gated_product():
    """BitNetAttention.attn_sub_norm (hidden wide, before o_proj) and BitNetMLP.ffn_sub_norm (intermediate wide, before
    down_proj), as llama.cpp's BITNET loads them (attn_sub_norm {n_embd}, ffn_sub_norm {n_ff}); the 2B4T bf16
    release's card lists 2,412,820,480 parameters, the engine's count (bitnet/released)."""
    spec = from_hf_config(_case("bitnet/perturbed"))
    names = {t.name: t.shape for t in layer_tensors(spec, 0)}
    assert names["blk.0.attn_sub_norm.weight"] == (1024,) and names["blk.0.ffn_sub_norm.weight"] == (2816,)
    assert param_count(from_hf_config(_case("bitnet/released"))) == 2_412_820_480


def test_vaultgemma_has_gemma2s_attention_with_two_norms_and_hyperclovax_its_post_norms_by_a_switch():
    """VaultGemmaDecoderLayer: input_layernorm and pre_feedforward_layernorm only; layers by layer_types (every other
    one sliding without it). HyperCLOVAXDecoderLayer: post_norm1 and post_norm2 while use_post_norm (True by default).
    HeliumMLP: mlp_bias on gate, up and down."""
    vault = from_hf_config(_case("vaultgemma/perturbed"))
    assert vault.norms_per_layer == 2 and vault.attention_softcap and vault.final_logit_softcap
    assert [k.value for k in vault.kinds] == ["sliding", "sliding", "full", "sliding", "full"]
    bare = {k: v for k, v in _case("vaultgemma/perturbed").items() if k != "layer_types"}
    assert [k.value for k in from_hf_config(bare).kinds] == ["sliding", "full"] * 2 + ["sliding"]
    clova = _case("hyperclovax/perturbed")
    assert from_hf_config(clova).norms_per_layer == 4
    assert param_count(from_hf_config(clova)) - param_count(from_hf_config({**clova, "use_post_norm": False})) == (
        4 * 2 * 1024)
    helium = _case("helium/perturbed")
    assert param_count(from_hf_config(helium)) - param_count(from_hf_config({**helium, "mlp_bias": False})) == 4 * (
        2 * 2816 + 1024)


def test_diffllama_learns_four_lambda_vectors_a_layer_and_needs_an_even_number_of_kv_heads():
    """DiffLlamaAttention: lambda_q1, lambda_k1, lambda_q2, lambda_k2 (head_dim each), a GroupNorm without weights;
    it splits the values in two along the KV heads and raises on an odd number (so does the reader, by name)."""
    config = _case("diffllama/perturbed")
    spec = from_hf_config(config)
    assert sum(t.numel for t in layer_tensors(spec, 0) if "lambda" in t.name) == 4 * 80
    with pytest.raises(ValidationError) as refused:
        from_hf_config({**config, "num_key_value_heads": 1})
    assert refused.value.field == "num_key_value_heads"


@pytest.mark.parametrize(("name", "kept"), [("glm4/perturbed", 44_800), ("glm/perturbed", 57_344),
                                            ("stablelm/perturbed", 28_672), ("olmo/perturbed", 28_672),
                                            ("minicpm3/perturbed", 8_064), ("bitnet/perturbed", 28_672),
                                            ("helium/perturbed", 28_672), ("hyperclovax/perturbed", 35_840),
                                            ("vaultgemma/perturbed", 26_880), ("diffllama/perturbed", 35_840)])
def test_the_cache_of_the_llama_like_types_is_what_transformers_kept(name, kept):
    """Measured 2026-12-07 (transformers 5.23.0, torch 2.13.0+cpu, bf16, random weights, 7 tokens, use_cache=True):
    the bytes of the keys and values the returned DynamicCache holds (VaultGemma's three sliding layers also hold an
    int64 scalar each, _sliding_window_tensor: 24 bytes of bookkeeping, not counted)."""
    assert _kv(_case(name), "transformers", seq="7") == kept


# A small Llama 3.2 Vision whose cache transformers 5.23 was seen to keep (torch 2.13 CPU, bf16, MllamaImageProcessor
# with 56-pixel tiles, a 7-token prompt whose <|image|> tokens are among the 7): the self-attention layers (1, 2, 7,
# 32) keys and values, each cross-attention layer (1, 2, 68, 32): 4 tiles × 17 per image, a 56 × 56 and a 112 × 56
# image alike; nothing in them without an image. 5,376 bytes, 40,192 with one image, 75,008 with two.
SMALL_MLLAMA = {"model_type": "mllama", "image_token_index": 999,
                "text_config": {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 5,
                                "num_attention_heads": 8, "num_key_value_heads": 2, "cross_attention_layers": [1, 3],
                                "vocab_size": 1000, "pad_token_id": 0},
                "vision_config": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 3,
                                  "num_global_layers": 1, "attention_heads": 4, "image_size": 56, "patch_size": 14,
                                  "intermediate_layers_indices": [0, 2], "vision_output_dim": 192}}


@pytest.mark.parametrize(("images", "width", "measured"), [(0, 56, 5376), (1, 56, 40192), (1, 112, 40192),
                                                            (2, 56, 75008)])
def test_cross_attention_layers_keep_each_images_tiles_whatever_the_text(images, width, measured):
    spec = from_hf_config(SMALL_MLLAMA)
    assert [kind.value for kind in spec.kinds] == ["full", "cross", "full", "cross", "full"]
    values = {"seq": str(7 - images)}  # each image adds its one <|image|> token to the prompt
    if images:
        values.update(images=str(images), image_width=str(width), image_height="56")
    assert _kv(SMALL_MLLAMA, "transformers", **values) == measured


def test_llama_32_visions_image_cache_is_read_each_step_said_and_its_tiles_encoded():
    """The measured cross-attention cache (34,816 B an image above the text's, test above) is also what each decode
    step reads (speed/reads.py `kv_bytes`) and what the KV cache's explanation names; the tower encodes every tile
    of max_num_tiles, its patches and class token padded to a multiple of 8 (MllamaVisionModel
    num_padding_patches), whatever the image's size."""
    from vramcalc.model.families.vision import image_patches
    from vramcalc.speed.reads import kv_bytes

    base = {"model": "config", "seq": "6", "runtime": "transformers", "kv_precision": "bf16"}
    text = parse_workload(base, config=SMALL_MLLAMA)
    image = parse_workload({**base, "images": "1", "image_width": "56", "image_height": "56"}, config=SMALL_MLLAMA)
    assert kv_bytes(image, 7) - kv_bytes(text, 7) == 40192 - 5376
    said = ENGLISH.say(next(c for c in estimate(image).components if c.key == "kv_cache").formula)
    assert "2 cross-attention layers" in said and "68 vision tokens (1 image," in said
    vision = image.model.vision
    assert vision is not None and image_patches(vision, 56, 56) == image_patches(vision, 1000, 300) == 4 * 24

def test_llama_32_visions_text_ignores_a_head_dim():
    """MllamaTextConfig has no head_dim: its attention is hidden_size / num_attention_heads wide whatever a config
    says (hf_config._mllama_config drops the key)."""
    text = SMALL_MLLAMA["text_config"]
    given = {**SMALL_MLLAMA, "text_config": {**text, "head_dim": 64}}
    assert from_hf_config(given).head_dim == 256 // 8
    assert param_count(from_hf_config(given)) == param_count(from_hf_config(SMALL_MLLAMA))

def test_llama_32_vision_reads_its_tiles_and_is_refused_where_no_engine_runs_it():
    from vramcalc.model.families.vision import cross_tokens, image_tokens

    full = _case("mllama/full")
    vision = from_hf_config({**full, "vision_config": {"image_size": 560}}).vision
    assert vision is not None and image_tokens(vision, 1280, 853) == 1 and cross_tokens(vision) == 4 * 1601
    for runtime, said in (("vllm", "V0 encoder-decoder"), ("llamacpp", "no Llama 3.2 Vision"),
                          ("ollama", "its own engine")):
        with pytest.raises(ValidationError, match=said):
            _kv(SMALL_MLLAMA, runtime)
    for key, value in (("cross_attention_layers", [1, "3"]), ("pad_token_id", 1008)):
        with pytest.raises(ValidationError, match=key):
            from_hf_config({**SMALL_MLLAMA, "text_config": {**SMALL_MLLAMA["text_config"], key: value}})


# transformers 5.23 (torch 2.13 CPU, bf16, random weights, the perturbed configs, 7 tokens): Emu3's and Doge's
# DynamicLayer/DynamicSlidingWindowLayer keys and values summed
@pytest.mark.parametrize(("name", "measured"), [("emu3/perturbed", 53760), ("doge/perturbed", 53760)])
def test_emu3_and_doge_keep_the_kv_transformers_keeps(name, measured):
    assert _kv(_case(name), "transformers", seq="7") == measured


def test_doge_reads_its_product_key_experts_and_emu3_names_its_vq_vae():
    doge = from_hf_config(_case("doge/perturbed"))
    assert doge.moe is not None and doge.moe.product_keys and doge.moe.ffn == 1 and doge.moe.shared_ffn == 1536
    assert set(doge.kinds) == {AttentionKind.SLIDING} and doge.sliding_window == 256
    assert not from_hf_config({**_case("doge/perturbed"), "is_moe": False}).moe
    emu3 = from_hf_config({**_case("emu3/full"), "vq_config": {}})
    assert any("VQ-VAE" in ENGLISH.say(note) for note in emu3.notes)
