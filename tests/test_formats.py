"""Weight and KV-cache formats against published sizes and storage layouts."""

from __future__ import annotations

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.dtypes import Precision
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GB, GIB
from vramcalc.formats.weights import parse_format, weights
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.presets import preset_spec

# llama.cpp tools/quantize/README.md, meta-llama/Llama-3.1-8B (shared/docs/reference.md §2.9), GiB
LLAMA_31_8B_GGUF = {
    "f16": 14.96, "q8_0": 7.95, "q6_k": 6.14, "q5_k_m": 5.33, "q5_k_s": 5.21, "q4_k_m": 4.58, "q4_k_s": 4.36,
    "iq4_xs": 4.17, "iq4_nl": 4.38, "q3_k_l": 4.02, "q3_k_s": 3.41, "iq3_m": 3.52, "iq3_s": 3.42, "iq3_xxs": 3.04,
    "q2_k": 2.95, "q2_k_s": 2.78, "iq2_m": 2.74, "iq2_s": 2.56, "iq2_xs": 2.42, "iq2_xxs": 2.23, "iq1_m": 2.01,
    "iq1_s": 1.87,
}


def weight_bytes(values):
    return estimate(parse_workload(values)).bytes_of("weights")


@pytest.mark.parametrize(("ftype", "gib"), LLAMA_31_8B_GGUF.items())
def test_gguf_file_sizes_match_llama_cpps_table(ftype, gib):
    # the engine's own tensor list (tensors.py, GGUF names) through llama.cpp's quantizer rules (gguf.py);
    # the published rows without an importance matrix where llama-quantize needs none
    size = sum(part.bytes for part in weights(preset_spec("llama-3.1-8b"), parse_format(ftype)))
    assert size / GIB == pytest.approx(gib, rel=0.01)
    # on the GPU with llama.cpp: all of it but the token embeddings, which stay in system RAM
    result = estimate(parse_workload({"model": "llama-3.1-8b", "precision": ftype, "runtime": "llamacpp"}))
    assert result.bytes_of("weights") + result.host_bytes - result.runtime["host_compute_buffer_bytes"] == size


def test_gpt_oss_native_mxfp4_matches_the_model_card():
    # gpt-oss model card, Table 1: checkpoint sizes 12.8 GiB and 60.8 GiB (MXFP4 experts, the rest bf16)
    assert weight_bytes({"model": "gpt-oss-20b", "precision": "native"}) / GIB == pytest.approx(12.8, rel=0.01)
    assert weight_bytes({"model": "gpt-oss-120b", "precision": "native"}) / GIB == pytest.approx(60.8, rel=0.01)


def test_fp8_block_scales_match_the_kimi_k2_checkpoint():
    # HF counts the fp32 scale tensors of an FP8 block checkpoint as parameters: Kimi K2's safetensors total
    # 1,026,470,731,056 minus the meta-device count 1,026,408,209,408 leaves 62,521,648 stored values, of
    # which 60 × 384 are the routers' e_score_correction_bias buffers; the rest are the 128 × 128 block scales.
    spec = preset_spec("kimi-k2-instruct")
    fp8 = weights(spec, parse_format("native"))[0]
    scales = (fp8.bytes - fp8.params) // 4
    assert scales == pytest.approx(62_521_648 - 60 * 384, rel=0.001)


LLAMA_2_7B = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
              "intermediate_size": 11008, "vocab_size": 32000}


def test_nf4_double_quantisation_saving_matches_litgpt():
    # Lightning-AI/litgpt tutorials/resource-tables.md, Llama-2-7B: nf4 -> nf4-dq saves 0.31 GB measured
    spec = from_hf_config(LLAMA_2_7B)
    nf4 = sum(p.bytes for p in weights(spec, parse_format("nf4")))
    dq = sum(p.bytes for p in weights(spec, parse_format("nf4-dq")))
    assert (nf4 - dq) / GB == pytest.approx(0.31, rel=0.05)


@pytest.mark.parametrize(("name", "bpw"), [
    # reference.md §2.9 from the storage layouts: AWQ 4 + 16/128 + 4/128; GPTQ adds a 32-bit g_idx per input
    # channel (32/out); NF4 4 + 32/64; NF4-DQ 4 + 8/64 + 32/(64·256); MXFP4 4.25; NVFP4 4.5 (+ one fp32 per tensor)
    ("awq-int4", 4.15625), ("gptq-int4", 4.15625 + 32 / 4096), ("nf4", 4.5), ("nf4-dq", 4 + 8 / 64 + 32 / 16384),
    ("mxfp4", 4.25), ("fp8", 8.0), ("bnb-int8", 8 + 32 / 4096), ("bpw:4.65", 4.65),
])
def test_bits_per_weight_of_the_quantised_layers(name, bpw):
    linear = weights(from_hf_config(LLAMA_2_7B), parse_format(name))[0]
    assert linear.bits == pytest.approx(bpw, rel=0.002)


def test_old_nominal_links_open_exactly_as_before():
    # precision=int4 meant every parameter at 4 bits, no scales: 8,030,261,248 / 2 bytes
    assert weight_bytes({"model": "llama-3-8b", "precision": "int4"}) == 8_030_261_248 // 2
    assert weight_bytes({"model": "llama-3-8b", "precision": "int8"}) == 8_030_261_248


@pytest.mark.parametrize(("kv", "bytes_per_value"), [
    ("fp16", 2), ("bf16", 2), ("fp8", 1), ("q8_0", 34 / 32), ("q5_1", 24 / 32), ("q4_0", 18 / 32),
])
def test_kv_cache_formats_use_exact_block_math(kv, bytes_per_value):
    # Llama 3.1 8B: 32 layers × 2 × 8 KV heads × 128 = 65,536 values per token; 8,192 tokens
    runtime = "llamacpp" if kv.startswith("q") else "vllm" if kv == "fp8" else "transformers"
    kv_bytes = estimate(parse_workload({"model": "llama-3.1-8b", "kv_precision": kv, "runtime": runtime,
                                        "seq": "8192"})).bytes_of("kv_cache")
    assert kv_bytes == 65_536 * 8192 * bytes_per_value


@pytest.mark.parametrize(("values", "field"), [
    ({"model": "gpt-oss-20b", "precision": "awq-int4"}, "group_size"),  # 2,880 is not a multiple of 128
    ({"model": "llama-3.1-8b", "precision": "gptq-int4", "group_size": "0"}, "group_size"),
    ({"model": "llama-3.1-8b", "precision": "native"}, "precision"),  # published in bf16
    ({"model": "llama-3.1-8b", "precision": "bpw:0.5"}, "precision"),
    ({"model": "llama-3.1-8b", "precision": "q9_k"}, "precision"),
    ({"model": "llama-3.1-8b", "precision": "q4_k_m"}, "precision"),  # GGUF runs on llama.cpp
    ({"model": "llama-3.1-8b", "precision": "q4_k_m", "mode": "training"}, "precision"),
    ({"model": "llama-3.1-8b", "kv_precision": "q4_k_m"}, "kv_precision"),
    ({"model": "llama-3.1-8b", "kv_precision": "q8_0"}, "kv_precision"),  # llama.cpp's, not transformers'
    ({"model": "llama-3.1-8b", "kv_precision": "int4", "runtime": "vllm"}, "kv_precision"),
])
def test_formats_a_model_cannot_use_name_the_field(values, field):
    with pytest.raises(ValidationError) as caught:
        estimate(parse_workload(values))
    assert caught.value.field == field


def test_group_size_64_makes_awq_work_on_gpt_oss():
    assert weight_bytes({"model": "gpt-oss-20b", "precision": "awq-int4", "group_size": "64"}) > 0


def test_precision_enum_keeps_its_old_bits():
    assert [p.bits for p in (Precision.FP32, Precision.FP16, Precision.INT8, Precision.INT4, Precision.INT2)] == [
        32, 16, 8, 4, 2]
