"""Weight and KV-cache formats against published sizes and storage layouts."""

from __future__ import annotations

import math

import pytest

from vramcalc import estimate, parse_workload
from vramcalc.core.dtypes import Precision
from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GB, GIB
from vramcalc.formats.weights import parse_format, weights
from vramcalc.memory.states import weights_bytes
from vramcalc.sources.hf_config import from_hf_config
from vramcalc.sources.presets import load_presets, preset_spec

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


def _dsv4_checkpoint(config: dict, *, mtp: bool) -> dict[str, int]:
    """DeepSeek-V4's safetensors payload by dtype, tensor by tensor as DeepSeek's inference/model.py declares it
    (read in a public copy; vLLM's deepseek_v4.py and deepseek_v4_attention.py load the same names): written here
    apart from weights.py, in the checkpoint's own names, so that the two can disagree."""
    d, layers, heads, hd = (config[k] for k in ("hidden_size", "num_hidden_layers", "num_attention_heads",
                                                  "head_dim"))
    ql, groups, ol = config["q_lora_rank"], config["o_groups"], config["o_lora_rank"]
    experts, inter, vocab, top_k = (config[k] for k in ("n_routed_experts", "moe_intermediate_size", "vocab_size",
                                                         "num_experts_per_tok"))
    ih, ihd, hc = config["index_n_heads"], config["index_head_dim"], config["hc_mult"]
    sizes = {"F8_E4M3": 0, "F8_E8M0": 0, "I8": 0, "BF16": 0, "F32": 0, "I64": 0}

    def fp8(out, inp):  # Linear(dtype=float8_e4m3fn): weight [out, in], scale [ceil(out/128), ceil(in/128)] e8m0
        sizes["F8_E4M3"] += out * inp
        sizes["F8_E8M0"] += -(-out // 128) * -(-inp // 128)

    def fp4(out, inp):  # Linear(dtype=float4_e2m1fn_x2), stored I8: weight [out, in/2], scale [out, in/32] e8m0
        sizes["I8"] += out * inp // 2
        sizes["F8_E8M0"] += out * inp // 32

    def add(dtype, *shape):
        sizes[dtype] += {"BF16": 2, "F32": 4, "I64": 8}[dtype] * math.prod(shape)

    def block(index, ratio):
        add("BF16", d), add("BF16", d), add("F32", heads)  # attn_norm, ffn_norm, attn.attn_sink
        fp8(ql, d), add("BF16", ql), fp8(heads * hd, ql), fp8(hd, d), add("BF16", hd)  # wq_a, q_norm, wq_b, wkv
        fp8(groups * ol, heads * hd // groups), fp8(d, groups * ol)  # wo_a, wo_b
        for width, kept in ((hd, ratio), (ihd, ratio == 4)):  # attn.compressor; the indexer's own (CSA)
            if kept:
                wide = (1 + (ratio == 4)) * width  # ape fp32, wkv and wgate bf16, norm
                add("F32", ratio, wide), add("BF16", wide, d), add("BF16", wide, d), add("BF16", width)
        if ratio == 4:
            fp8(ih * ihd, ql), add("BF16", ih, d)  # indexer.wq_b, indexer.weights_proj
        add("BF16", experts, d)  # ffn.gate.weight; a hash layer's tid2eid, the others' bias
        add("I64", vocab, top_k) if index < config["num_hash_layers"] else add("F32", experts)
        for _ in range(experts):
            fp4(inter, d), fp4(d, inter), fp4(inter, d)
        fp8(inter, d), fp8(d, inter), fp8(inter, d)  # shared_experts
        mix = (2 + hc) * hc  # hc_attn_* and hc_ffn_*: fn, base, scale
        for _ in range(2):
            add("F32", mix, hc * d), add("F32", mix), add("F32", 3)

    add("BF16", vocab, d), add("BF16", vocab, d), add("BF16", d)  # embed, head, norm
    add("F32", hc, hc * d), add("F32", hc), add("F32", 1)  # hc_head_fn, base, scale
    ratios = config["compress_ratios"]
    for index in range(layers):
        block(index, ratios[index])
    for index in range(layers, layers + config["num_nextn_predict_layers"] if mtp else layers):
        block(index, ratios[index])  # mtp.0: a block, e_proj and h_proj, enorm, hnorm, norm, its own hc_head
        fp8(d, d), fp8(d, d), add("BF16", d), add("BF16", d), add("BF16", d)
        add("F32", hc, hc * d), add("F32", hc), add("F32", 1)
    return sizes


# model.safetensors.index.json metadata.total_size of deepseek-ai/DeepSeek-V4-Flash (46 shards, 69,187 tensors)
# and DeepSeek-V4-Pro@b5968e9 (64 shards, 145,116 tensors), as public repositories' checkpoint checks quote them
DSV4_TOTAL_SIZE = {"deepseek-v4-flash": 159_609_485_896, "deepseek-v4-pro": 864_704_792_696}


@pytest.mark.parametrize("slug", DSV4_TOTAL_SIZE)
def test_deepseek_v4_native_is_its_checkpoint_to_the_byte(slug):
    config = load_presets()[slug].config
    assert sum(_dsv4_checkpoint(config, mtp=True).values()) == DSV4_TOTAL_SIZE[slug]  # the layout read is right
    layout = _dsv4_checkpoint(config, mtp=False)
    if slug == "deepseek-v4-pro":  # the same source's byte groups: the model without MTP, its hash tables
        assert sum(layout.values()) == 850_748_205_004 and layout["I64"] == 18_616_320
    # the native format counts the tensors of the model transformers builds, whose router bias and hash layers'
    # tid2eid are buffers (not counted); the MTP layer is loaded only to draft
    bias = 4 * config["n_routed_experts"] * (config["num_hidden_layers"] - config["num_hash_layers"])
    experts, fp8, fp32, rest = weights(preset_spec(slug), parse_format("native"))
    assert experts.bits == 4.25 and experts.bytes == layout["I8"] + experts.params // 32
    assert fp8.bytes == layout["F8_E4M3"] + layout["F8_E8M0"] - experts.params // 32
    assert fp32.bytes == layout["F32"] - bias and rest.bytes == layout["BF16"]
    # as published on the engines that load the checkpoint's own format; llama.cpp's converter (0c1e57098bba)
    # repacks the FP4 experts into MXFP4 bit for bit and writes the FP8 layers as Q8_0: an MXFP4_MOE file
    for runtime in ("vllm", "transformers"):
        assert parse_workload({"model": slug, "runtime": runtime}).precision.value == "native"
    for precision in ("auto", "native"):
        gguf = parse_workload({"model": slug, "runtime": "llamacpp", "precision": precision})
        assert gguf.precision.value == "mxfp4_moe"
        assert weights_bytes(gguf).bytes < 1.01 * sum(layout.values())  # experts at 4.25 bits, as published


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
