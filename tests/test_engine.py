"""Exact counts, worked examples from the reference with their sources, and properties."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import workloads
from vramcalc import estimate, parse_workload
from vramcalc.analysis.fit import fit_all
from vramcalc.core.choices import Mode
from vramcalc.core.dtypes import Precision
from vramcalc.core.units import GB, GIB
from vramcalc.memory.components import COMPONENTS
from vramcalc.model.families.decoder.spec import AttentionKind
from vramcalc.model.families.decoder.tensors import model_tensors
from vramcalc.model.table import active_param_count, param_count
from vramcalc.render.messages import ENGLISH
from vramcalc.sources.custom import custom_model
from vramcalc.sources.gpus import load_gpus
from vramcalc.sources.presets import load_presets, preset_spec
from vramcalc.workload import Workload

# reference.md §1.2: exact parameter counts derived from the configs and cross-checked
# against the model cards, vLLM and llama.cpp logs.
EXACT_PARAMS = {
    "gpt2": (124_439_808, 124_439_808),
    "gpt2-xl": (1_557_611_200, 1_557_611_200),
    "llama-3.2-1b": (1_235_814_400, 1_235_814_400),
    "llama-3.2-3b": (3_212_749_824, 3_212_749_824),
    "mistral-7b": (7_241_732_096, 7_241_732_096),
    "llama-3-8b": (8_030_261_248, 8_030_261_248),
    "llama-2-13b": (13_015_864_320, 13_015_864_320),
    # 80 × (2·8192² + 2·8192·1024 + 3·8192·28672 + 2·8192) + 2·32000·8192 + 8192 (Llama-2-70b-hf model card: 69B)
    "llama-2-70b": (68_976_648_192, 68_976_648_192),
    "mixtral-8x7b": (46_702_792_704, 12_879_925_248),
    "llama-3-70b": (70_553_706_496, 70_553_706_496),
    "llama-3.1-405b": (405_853_388_800, 405_853_388_800),
    "qwen2.5-7b": (7_615_616_512, 7_615_616_512),
    "qwen2.5-72b": (72_706_203_648, 72_706_203_648),
    "gemma-2-9b": (9_241_705_984, 9_241_705_984),
    "phi-3-mini": (3_821_079_552, 3_821_079_552),
}

# reference.md §1.3: KV bytes per token at 16 bits.
KV_BYTES_PER_TOKEN = {
    "gpt2": 36_864, "gpt2-xl": 307_200, "llama-3.2-1b": 32_768, "llama-3.2-3b": 114_688, "mistral-7b": 131_072,
    "llama-3-8b": 131_072, "llama-2-13b": 819_200, "llama-2-70b": 327_680, "mixtral-8x7b": 131_072,
    "llama-3-70b": 327_680,
    "llama-3.1-405b": 516_096, "qwen2.5-7b": 57_344, "qwen2.5-72b": 327_680, "gemma-2-9b": 344_064,
    "phi-3-mini": 393_216,
}


def test_the_first_presets_are_all_still_there():
    # their slugs are in links people have shared; the newer presets are held to the
    # meta-device counts in tests/test_architectures.py
    assert set(EXACT_PARAMS) == set(KV_BYTES_PER_TOKEN) <= set(load_presets())


@pytest.mark.parametrize("slug", EXACT_PARAMS)
def test_preset_parameter_counts_are_exact(slug):
    spec = preset_spec(slug)
    assert (param_count(spec), active_param_count(spec)) == EXACT_PARAMS[slug]


@pytest.mark.parametrize("slug", KV_BYTES_PER_TOKEN)
def test_kv_cache_per_token_is_gqa_aware(slug):
    breakdown = estimate(parse_workload({"model": slug, "seq": "1", "precision": "bf16"}))
    assert breakdown.bytes_of("kv_cache") == KV_BYTES_PER_TOKEN[slug]


def test_vllm_log_llama3_8b_weights():
    # vllm-project/vllm PR #10511: "model weights take 14.96GiB" for Llama 3 8B in bf16.
    weights = estimate(parse_workload({"model": "llama-3-8b"})).bytes_of("weights")
    assert weights == 8_030_261_248 * 2
    assert round(weights / GIB, 2) == 14.96


def test_zero_paper_sixteen_bytes_per_parameter():
    # Rajbhandari et al. (ZeRO) §3.1: mixed-precision Adam keeps 16 bytes per parameter.
    breakdown = estimate(parse_workload({"model": "gpt2-xl", "mode": "training", "mixed_precision": "1"}))
    model_states = sum(breakdown.size_of(k) for k in ("weights", "gradients", "optimizer", "master_weights"))
    assert model_states == 16 * 1_557_611_200


def test_classic_kv_formula_for_three_number_custom_model():
    # Original calculator: with params, hidden and layers only, KV = 2 × b × s × h × L × bytes.
    workload = parse_workload({"model": "custom", "params": "7", "hidden": "4096", "layers": "32",
                               "batch": "2", "seq": "1000"})
    assert estimate(workload).bytes_of("kv_cache") == 2 * 2 * 1000 * 4096 * 32 * 2
    assert param_count(workload.model) == 7_000_000_000


def test_playbook_llama31_8b_flash_activations_order_of_magnitude():
    # HF Ultra-Scale Playbook plots 34·s·b·h·L (Korthikanti, no s² term) for Llama-3.1-8B:
    # 4.25 GiB at 1k tokens. HF's implementation saves more (fp32 RMSNorm copies, four
    # MLP tensors: measured in tests/golden), so ours is above that but the same order.
    workload = parse_workload({"model": "llama-3-8b", "mode": "training", "seq": "1024", "attention": "flash"})
    activations = estimate(workload).size_of("activations")
    korthikanti = 34 * 1024 * 4096 * 32
    assert korthikanti < activations < 2 * korthikanti


def test_inference_components_that_do_not_apply_are_zero():
    breakdown = estimate(parse_workload({}))
    for key in ("gradients", "optimizer", "master_weights"):
        assert breakdown.bytes_of(key) == 0
    assert [c.key for c in breakdown.components] == list(COMPONENTS)
    assert breakdown.total_bytes == sum(breakdown.as_dict().values())


def test_training_has_no_kv_cache_and_every_state():
    breakdown = estimate(parse_workload({"mode": "training", "optimizer": "sgd-momentum"}))
    params = breakdown.params
    assert breakdown.size_of("kv_cache") == 0
    assert breakdown.size_of("gradients") == 2 * params
    assert breakdown.size_of("optimizer") == 4 * params
    assert breakdown.size_of("master_weights") == 0


def test_checkpointing_orders_activations():
    values = {"mode": "training", "seq": "4096", "model": "llama-3-70b"}
    none, sqrt, layer = (
        estimate(parse_workload({**values, "checkpointing": c})).size_of("activations")
        for c in ("none", "sqrt", "layer")
    )
    assert layer < sqrt < none


def test_flash_saves_less_than_eager():
    values = {"mode": "training", "seq": "4096"}
    eager = estimate(parse_workload({**values, "attention": "eager"})).bytes_of("activations")
    flash = estimate(parse_workload({**values, "attention": "flash"})).bytes_of("activations")
    assert flash < eager


def test_kv_precision_defaults():
    assert parse_workload({"precision": "fp32"}).effective_kv_precision is Precision.FP32
    assert parse_workload({"precision": "int4"}).effective_kv_precision is Precision.FP16
    assert parse_workload({"precision": "int4", "kv_precision": "int8"}).effective_kv_precision is Precision.INT8


@pytest.mark.parametrize("gpu", list(load_gpus().values()), ids=list(load_gpus()))
def test_gpu_data_is_plausible(gpu):
    assert 8 <= gpu.marketed_memory_gb <= 512
    assert 0.8 * gpu.marketed_memory_gb * GB < gpu.usable_bytes <= gpu.marketed_memory_gb * 1.1 * GB
    assert gpu.source


# ---------------------------------------------------------------- properties

@settings(max_examples=200, deadline=None)
@given(workloads(), st.sampled_from(["batch", "seq"]))
def test_more_batch_or_sequence_never_means_less(workload, axis):
    bigger = dataclasses.replace(workload, **{axis: getattr(workload, axis) + 1})
    small, large = estimate(workload), estimate(bigger)
    assert large.total_bytes >= small.total_bytes
    for key in COMPONENTS:
        if key != "logits":  # where the logits are the part of the head's peak above the layers' (a reranker's
            assert large.size_of(key) >= small.size_of(key)  # whole-sequence logits), a layer may outgrow them
    assert (large.size_of("activations") + large.size_of("logits")
            >= small.size_of("activations") + small.size_of("logits"))
    for phase, total in small.phase_totals().items():
        assert large.phase_totals()[phase] >= total


@settings(max_examples=200, deadline=None)
@given(workloads())
def test_more_layers_never_means_less(workload):
    deeper = dataclasses.replace(workload, model=workload.model.with_layers(workload.model.layers + 1))
    assert estimate(deeper).total_bytes >= estimate(workload).total_bytes


@settings(max_examples=200, deadline=None)
@given(workloads())
def test_kv_cache_is_linear_in_batch_and_in_sequence_for_full_attention(workload):
    inference = dataclasses.replace(workload, mode=Mode.INFERENCE, kv_precision=Precision.BF16)
    one = estimate(inference).bytes_of("kv_cache")
    assert estimate(dataclasses.replace(inference, batch=inference.batch * 3)).bytes_of("kv_cache") == 3 * one
    longer = estimate(dataclasses.replace(inference, seq=inference.seq * 2)).bytes_of("kv_cache")
    if inference.model.speech is not None:  # a transcription's caches: 1,500 frames and 448 tokens, whatever the seq
        assert longer == one
    elif set(inference.model.kinds) == {AttentionKind.FULL}:
        assert longer == 2 * one
    else:  # windows and linear-attention states stop growing
        assert one <= longer <= 2 * one


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 64), st.integers(1, 128), st.integers(1, 8), st.integers(1, 4096), st.integers(1, 16))
def test_kv_heads_equal_heads_is_the_mha_formula(head_count, head_dim, layers, seq, batch):
    hidden = head_count * head_dim
    model = custom_model(params=10**9, hidden=hidden, layers=layers, heads=head_count, kv_heads=head_count)
    workload = Workload(model=model, seq=seq, batch=batch, precision=Precision.FP16)
    assert estimate(workload).bytes_of("kv_cache") == 2 * batch * seq * hidden * layers * 2


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(load_presets())))
def test_halving_bits_halves_weights(slug):
    def weights(precision):
        # the language model's: a vision part stays 16-bit (memory/states.vision_bytes)
        return estimate(Workload(model=preset_spec(slug), precision=precision, text_only=True)).bytes_of("weights")

    assert weights(Precision.FP32) == 2 * weights(Precision.BF16)
    assert weights(Precision.FP16) == 2 * weights(Precision.INT8)
    # a tensor of an odd count takes a whole byte for its last 4-bit value (DeepSeek-V4's hc scales: 3 and 1)
    tensors = model_tensors(preset_spec(slug))
    assert 0 <= 2 * weights(Precision.INT4) - weights(Precision.INT8) <= sum(t.numel % 2 for t in tensors)
    assert 0 <= 2 * weights(Precision.INT2) - weights(Precision.INT4) <= sum(t.numel % 4 > 0 for t in tensors)


@settings(max_examples=80, deadline=None)  # each example searches every table GPU's fewest count
@given(workloads())
def test_every_component_is_a_finite_non_negative_integer(workload):
    breakdown = estimate(workload)
    for component in breakdown.components:
        assert isinstance(component.bytes, int) and component.bytes >= 0
        assert ENGLISH.say(component.formula)
    for fit in fit_all(breakdown):
        if fit.refused:  # a format its card cannot run (engines/cards.py: FP8 quantised on load on a Mac)
            assert fit.count is None and fit.utilization == 0.0
            continue
        assert math.isfinite(fit.utilization) and fit.utilization > 0


def test_workload_but_is_dataclasses_replace():
    """Workload.but copies the fields instead of re-running __init__: right only while a workload holds
    nothing but its fields (no __post_init__, no cached values)."""
    workload = parse_workload({"model": "llama-3-8b", "mode": "training", "lora_rank": "8"})
    fields = {field.name for field in dataclasses.fields(workload)}
    assert set(vars(workload)) == fields and not hasattr(type(workload), "__post_init__")
    for changes in ({"seq": 5}, {"batch": 3, "precision": Precision.FP16}, {"model": workload.model.with_layers(7)}):
        assert workload.but(**changes) == dataclasses.replace(workload, **changes)
    with pytest.raises(TypeError):
        workload.but(sequence=5)
