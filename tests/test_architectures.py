"""Modern architectures: exact counts against transformers, the KV cache layer by
layer, and configs the reader does not fully understand."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vramcalc import DEFAULTS, estimate, parse_workload
from vramcalc.analysis.solve import max_layers, scaled_depth
from vramcalc.core.choices import Mode
from vramcalc.core.dtypes import Precision
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GIB
from vramcalc.formats.weights import _planned as planned
from vramcalc.inputs.parse import parse_target
from vramcalc.model.families.decoder.spec import AttentionKind
from vramcalc.model.table import active_param_count, param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.presets import load_presets, preset_spec
from vramcalc.workload import Workload

GOLDEN = json.loads((Path(__file__).parent / "golden" / "params.json").read_text(encoding="utf-8"))["models"]
CATALOG = Path(__file__).resolve().parents[2] / "shared" / "catalog" / "configs"


def test_every_preset_has_a_meta_device_count():
    assert set(load_presets()) == set(GOLDEN)


@pytest.mark.parametrize("slug", sorted(GOLDEN))
def test_parameter_count_equals_transformers_on_the_meta_device(slug):
    # tools/measure_params.py builds each preset with transformers on torch.device("meta");
    # multimodal presets are held to their language model (the vision tower is named in a note).
    # An embedder is built as AutoModel loads it (Qwen3Model, MistralModel, BertModel: no lm_head): the spec
    # --mode embedding reads. A reranker scored on its LM head (Qwen3-Reranker) keeps the class its card uses.
    spec = preset_spec(slug)
    if load_presets()[slug].family == "Embedding" and GOLDEN[slug]["class"].endswith("Model"):
        spec = spec.as_embedder()
    assert param_count(spec) == GOLDEN[slug]["text_params"]


def test_an_untied_embedder_loses_its_head_only_in_the_embedding_mode():
    # Qwen3-Embedding-8B's config is Qwen3-8B's (untied); its checkpoint and AutoModel have no lm_head
    # (MTEB's n_parameters 7,567,295,488), as the embedding mode counts it; the 8B reranker keeps its head.
    embedder, reranker = preset_spec("qwen3-embedding-8b"), preset_spec("qwen3-reranker-8b")
    assert param_count(embedder) - param_count(embedder.as_embedder()) == 151665 * 4096
    assert param_count(reranker) == GOLDEN["qwen3-reranker-8b"]["params"] == 8188548096
    weights = estimate(parse_workload({"model": "qwen3-embedding-8b", "mode": "embedding"})).bytes_of("weights")
    assert weights == 2 * GOLDEN["qwen3-embedding-8b"]["params"]


@pytest.mark.parametrize(("slug", "active"), [
    # published active parameters (shared/catalog/README.md §7; model cards)
    ("qwen3-30b-a3b", 3.35e9), ("qwen3-235b-a22b", 22.19e9), ("deepseek-v3", 37.55e9), ("kimi-k2-instruct", 32.86e9),
    ("mixtral-8x22b-v0.1", 39.15e9), ("llama-4-scout-17b-16e-instruct", 17.17e9),
    ("llama-4-maverick-17b-128e-instruct", 17.18e9), ("phi-3.5-moe-instruct", 6.64e9), ("gpt-oss-120b", 5.71e9),
    ("qwen3-next-80b-a3b-thinking", 3.87e9),
])
def test_active_parameters_match_the_published_figures(slug, active):
    assert active_param_count(preset_spec(slug)) == pytest.approx(active, rel=0.005)


def test_qwen3_coder_30b_counts_its_safetensors_index():
    # the index beside the config in ztxz16/fastllm (the preset's source): total_size 61,064,245,248 bytes, all bf16
    assert 2 * param_count(preset_spec("qwen3-coder-30b-a3b-instruct")) == 61_064_245_248


@pytest.mark.parametrize(("slug", "moe_layers", "experts", "tensors"), [("glm-4.5", 89, 160, 358_337_791_296),
                                                                     ("glm-4.5-air", 45, 128, 110_468_824_832)])
def test_glm_4_5_counts_its_safetensors_with_the_mtp_layer(slug, moe_layers, experts, tensors):
    # llmfit's scrape of the hub (the presets' sources): the stack, its MTP layer with the embedding and head copies
    # GLM-4.5's checkpoints keep (family/decoder/mtp.py), and each MoE layer's fp32 e_score_correction_bias (a buffer
    # in transformers), the MTP layer's included; q/k/v biases on both, q/k norms on the 355B only
    from vramcalc.model.families.decoder.mtp import with_mtp

    spec = with_mtp(preset_spec(slug), copies=True)
    assert param_count(spec) + (moe_layers + 1) * experts == tensors


def kv_bytes(slug, seq, batch=1, kv="bf16"):
    return estimate(parse_workload({"model": slug, "seq": str(seq), "batch": str(batch),
                                    "kv_precision": kv})).bytes_of("kv_cache")


def test_gemma3_27b_caps_its_local_layers():
    # catalog §4: 10 global layers × 8192 B × T + 52 local × 8192 B × 1024 at T = 131,072: 10.41 GiB
    spec = preset_spec("gemma-3-27b-it")
    assert (spec.count_kind(AttentionKind.FULL), spec.count_kind(AttentionKind.SLIDING)) == (10, 52)
    assert kv_bytes("gemma-3-27b-it", 131_072) == 10 * 8192 * 131_072 + 52 * 8192 * 1024
    assert round(kv_bytes("gemma-3-27b-it", 131_072) / GIB, 2) == 10.41


def test_a_shallower_gemma4_drops_its_kv_sharing_layers_first():
    # the solvers' deeper and shallower variants (solve.scaled_depth) keep the first layers: E4B's last 18 of 42
    # layers reuse an earlier layer's K/V, so 30 layers keep 6 of them, 24 or fewer none, and 60 keep 18
    spec = preset_spec("gemma-4-e4b-it")
    assert [scaled_depth(spec, n).reusing_layers for n in (1, 24, 30, 42, 60)] == [0, 0, 6, 18, 18]
    one = scaled_depth(spec, 1)
    assert param_count(one) > 0 and one.cached_layers(AttentionKind.SLIDING) == 1
    assert param_count(planned(scaled_depth(spec, 24))) == param_count(spec)  # the real model comes back


@pytest.mark.parametrize("runtime", ["llamacpp", "vllm"])
def test_the_most_layers_of_a_kv_sharing_model_are_found(runtime):
    # max_layers tries models of one layer: Gemma 4 E4B's 18 K/V-sharing layers made that one layer index past the end
    workload = parse_workload({**DEFAULTS, "model": "gemma-4-e4b-it", "runtime": runtime, "gpu": "rtx-4090"})
    assert max_layers(workload, parse_target({**DEFAULTS, "gpu": "rtx-4090"})) is not None


def test_gemma3_local_layers_stop_growing_at_32k():
    short, long = kv_bytes("gemma-3-12b-it", 16_384), kv_bytes("gemma-3-12b-it", 32_768)
    full = preset_spec("gemma-3-12b-it").count_kind(AttentionKind.FULL)
    per_token_full_layer = 2 * 8 * 256 * 2
    assert long - short == full * per_token_full_layer * 16_384  # only the global layers grew


def test_mla_caches_the_latent():
    # DeepSeek-V3: 61 layers × (512 + 64) × 2 B = 70,272 B per token (vLLM: head_size 576)
    assert kv_bytes("deepseek-v3", 1) == 70_272
    assert kv_bytes("kimi-k2-instruct", 1) == 70_272
    assert kv_bytes("deepseek-v2-lite", 1) == 31_104
    # transformers 5.24's DeepseekV3Attention also caches the latent (`cache.update(kv_nope, k_rot, ...)`)
    notes = estimate(parse_workload({"model": "deepseek-v3", "seq": "1", "kv_precision": "bf16"})).notes
    assert any("latent" in note for note in map(ENGLISH.say, notes))


def test_gpt_oss_halves_its_full_context_cache():
    # catalog §4: gpt-oss-120b, 18 full layers × 2048 B × T + 18 sliding × 2048 B × 128: 4.50 GiB at 131,072
    full = kv_bytes("gpt-oss-120b", 131_072)
    assert full == 18 * 2048 * 131_072 + 18 * 2048 * 128
    assert round(full / GIB, 2) == 4.50
    everything_full = 36 * 2048 * 131_072
    assert full < everything_full / 2 * 1.01


def test_llama4_chunked_layers_cap_at_the_chunk():
    # catalog §5: 12 global NoPE layers × 4096 B × T + 36 chunked × 4096 B × 8192: 7.13 GiB at 131,072
    assert kv_bytes("llama-4-scout-17b-16e-instruct", 131_072) == 12 * 4096 * 131_072 + 36 * 4096 * 8192  # 7.125 GiB


def test_qwen3_next_grows_only_in_its_full_attention_layers():
    spec = preset_spec("qwen3-next-80b-a3b-thinking")
    assert (spec.count_kind(AttentionKind.FULL), spec.count_kind(AttentionKind.LINEAR)) == (12, 36)
    grow = kv_bytes("qwen3-next-80b-a3b-thinking", 2000) - kv_bytes("qwen3-next-80b-a3b-thinking", 1000)
    assert grow == 12 * 2 * 2 * 256 * 2 * 1000  # 24,576 B per token


def test_window_equal_to_the_context_saves_nothing():
    # Ministral 8B's sliding_window of 32,768 equals its context; Qwen2.5's is switched off
    assert kv_bytes("ministral-8b-instruct-2410", 32_768) == 36 * 2 * 8 * 128 * 2 * 32_768
    assert kv_bytes("deepseek-r1-distill-qwen-32b", 100_000) == 64 * 2 * 8 * 128 * 2 * 100_000


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(GOLDEN)), st.integers(1, 4096), st.integers(1, 4))
def test_a_window_longer_than_the_sequence_changes_nothing(slug, seq, batch):
    spec = preset_spec(slug)
    workload = Workload(model=spec, seq=seq, batch=batch, kv_precision=Precision.BF16)
    unlimited = dataclasses.replace(spec, sliding_window=10**8 if spec.sliding_window else 0,
                                    attention_chunk=10**8 if spec.attention_chunk else 0)
    if seq <= min(w for w in (spec.sliding_window, spec.attention_chunk, 10**9) if w):
        assert estimate(workload).bytes_of("kv_cache") == estimate(
            dataclasses.replace(workload, model=unlimited)).bytes_of("kv_cache")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(GOLDEN)), st.integers(1, 200_000), st.integers(1, 100_000))
def test_more_tokens_never_less_cache(slug, seq, more):
    assert kv_bytes(slug, seq + more) >= kv_bytes(slug, seq)


# ---------------------------------------------------------------- not fully understood

LLAMA_SMALL = {"hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2,
               "intermediate_size": 1024, "vocab_size": 1000}


def test_an_unknown_model_type_is_marked_approximate_everywhere():
    spec = from_hf_config({"model_type": "brand_new_lm", **LLAMA_SMALL})
    assert spec.is_approximate and "brand_new_lm" in ENGLISH.say(spec.assumptions[0])
    breakdown = estimate(Workload(model=spec))
    assert breakdown.assumptions == spec.assumptions


def test_a_memory_key_the_reader_does_not_read_is_named():
    spec = from_hf_config({"model_type": "llama", **LLAMA_SMALL, "moe_intermediate_size": 256, "kv_lora_rank": 64})
    assert [ENGLISH.say(a).split(" = ")[0] for a in spec.assumptions] == ["kv_lora_rank", "moe_intermediate_size"]


def test_keys_switched_off_are_understood():
    spec = from_hf_config({"model_type": "llama", **LLAMA_SMALL, "sliding_window": None, "num_experts": 0,
                           "layer_types": None})
    assert not spec.is_approximate


@pytest.mark.parametrize("slug", sorted(GOLDEN))
def test_every_catalog_preset_is_understood_exactly(slug):
    assert preset_spec(slug).assumptions == ()


@pytest.mark.skipif(not CATALOG.exists(), reason="shared/catalog is not beside the checkout")
@pytest.mark.parametrize("path", sorted(CATALOG.glob("*.json")), ids=lambda p: p.stem)
def test_catalog_files_read_as_a_user_would_import_them(path):
    config = json.loads(path.read_text(encoding="utf-8"))
    spec = from_hf_config(config)
    assert param_count(spec) == GOLDEN[path.stem]["text_params"]


@pytest.mark.parametrize(("change", "field"), [
    ({"num_attention_heads": 7, "num_key_value_heads": 7}, "num_attention_heads"),  # 7 does not divide 512
    ({"num_key_value_heads": 3}, "num_key_value_heads"),
    ({"num_key_value_heads": 16}, "num_key_value_heads"),
    ({"layer_types": ["full_attention"]}, "layer_types"),
])
def test_contradictory_llama_configs_name_the_field(change, field):
    with pytest.raises(ValidationError) as caught:
        from_hf_config({"model_type": "llama", **LLAMA_SMALL, **change})
    assert caught.value.field == field


@pytest.mark.parametrize(("config", "field"), [
    ({"model_type": "mixtral", **LLAMA_SMALL, "num_local_experts": 4, "num_experts_per_tok": 8}, "num_experts_per_tok"),
    # a window wider than the context is not a contradiction: transformers builds it (test_types.py)
    ({"model_type": "qwen3_moe", **LLAMA_SMALL, "num_experts": 8, "num_experts_per_tok": 2,
      "moe_intermediate_size": 64, "mlp_only_layers": [7]}, "mlp_only_layers"),
    ({"model_type": "deepseek_v3", **LLAMA_SMALL, "n_routed_experts": 8, "num_experts_per_tok": 2,
      "moe_intermediate_size": 64, "q_lora_rank": 64, "kv_lora_rank": 0, "qk_nope_head_dim": 32,
      "qk_rope_head_dim": 16, "v_head_dim": 32}, "kv_lora_rank"),
    ({"model_type": "llama4_text", **LLAMA_SMALL, "num_local_experts": 4, "num_experts_per_tok": 1,
      "attention_chunk_size": None, "layer_types": ["chunked_attention"] * 4}, "attention_chunk_size"),
])
def test_contradictory_modern_configs_name_the_field(config, field):
    with pytest.raises(ValidationError) as caught:
        from_hf_config(config)
    assert caught.value.field == field


def test_multimodal_configs_count_the_vision_part_apart_or_say_they_do_not():
    spec = preset_spec("gemma-3-27b-it")
    assert spec.vision is not None and spec.vision.params == 423_060_336  # tests/golden/vision.json
    assert not any("vision tower" in note for note in map(ENGLISH.say, spec.notes)) and not spec.is_approximate
    other = from_hf_config({"model_type": "brand_new_vl", "vision_config": {"depth": 4},
                            "text_config": {"model_type": "llama", **LLAMA_SMALL}})
    assert other.vision is None and any("vision tower" in note for note in map(ENGLISH.say, other.notes))


def test_mtp_layer_is_named_not_counted():
    assert any("MTP" in note for note in map(ENGLISH.say, preset_spec("deepseek-v3").notes))


def test_training_estimates_are_approximate_only_for_types_never_measured():
    deepseek = estimate(parse_workload({"model": "deepseek-v3", "mode": "training", "seq": "1024"}))
    assert deepseek.assumptions == ()
    gemma1 = from_hf_config({"model_type": "gemma", **LLAMA_SMALL})
    training = estimate(Workload(model=gemma1, mode=Mode.TRAINING))
    assert any("not been checked against a measured run" in text for text in map(ENGLISH.say, training.assumptions))
    assert estimate(Workload(model=gemma1)).assumptions == ()  # inference: KV and weights are exact


def test_linear_attention_state_is_fp32_whatever_the_kv_format():
    # Qwen3-Next: 36 linear layers × (conv 8,192 × 4 values in bf16 + 32 × 128 × 128 recurrent in fp32)
    spec = preset_spec("qwen3-next-80b-a3b-thinking")
    assert spec.recurrent_state_bytes(2) == 36 * (8192 * 4 * 2 + 32 * 128 * 128 * 4)
    fp8 = estimate(parse_workload({"model": "qwen3-next-80b-a3b-thinking", "seq": "1", "kv_precision": "int8"}))
    assert fp8.bytes_of("kv_cache") == 12 * 2 * 2 * 256 * 1 + spec.recurrent_state_bytes(2)


def test_every_model_type_read_exactly_has_its_traits():
    """decoder/traits.py holds one record per model_type that sources/hf_config.py reads exactly."""
    from vramcalc.model.families.decoder.traits import DEFAULT, TRAINING_MEASURED_TYPES, TRAITS, traits
    from vramcalc.sources.readers import READERS

    assert set(TRAITS) == set(READERS)
    assert traits("no_such_type") is DEFAULT
    assert traits("gemma5_text").fp32_norm_weight_copies  # a Gemma read as Llama-style keeps Gemma's norms
    assert "llama" in TRAINING_MEASURED_TYPES and "gemma" not in TRAINING_MEASURED_TYPES
    assert all(record.fp32_routing_weights for record in TRAITS.values() if record.fp32_router)


def test_tensor_names_parse_in_one_place():
    from vramcalc.model.tensor import Role, layer_of, stem

    assert (layer_of("blk.3.attn_q.weight"), stem("blk.3.attn_q.weight")) == (3, "attn_q")
    assert (layer_of("token_embd.weight"), stem("token_embd.weight")) == (None, "token_embd")
    assert layer_of("blk.x.attn_q.weight") is None and layer_of("blk.7") is None  # llama.cpp's "blk.%d."
    assert Role.EXPERT == "expert" and {"expert": 1}[Role.EXPERT] == 1
