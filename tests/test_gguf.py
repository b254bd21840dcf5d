"""GGUF file sizes from llama-quantize's per-tensor type rules, checked against the
sizes llama.cpp publishes for Llama-3.1-8B (reference.md §2.9, from
ggml-org/llama.cpp tools/quantize/README.md)."""

from __future__ import annotations

import pytest

from vramcalc.core.errors import ValidationError
from vramcalc.core.units import GIB
from vramcalc.formats.ggml_types import FTYPES, GGML_TYPES
from vramcalc.formats.gguf import GgufTensor, describe, file_bytes, plan_bytes, quantize_plan

# meta-llama/Llama-3.1-8B config.json
LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB = 32, 4096, 32, 8, 128, 14336, 128256
FACTS = {"n_layer": LAYERS, "n_gqa": HEADS // KV_HEADS}


def llama31_8b() -> list[GgufTensor]:
    """The tensors convert_hf_to_gguf.py writes for Llama-3.1-8B (output untied), in
    PyTorch (out, in) order, plus the 64 f32 rope frequency factors of Llama 3.1."""
    q, kv = HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM
    tensors = [
        GgufTensor("token_embd.weight", (VOCAB, HIDDEN)),
        GgufTensor("output_norm.weight", (HIDDEN,)),
        GgufTensor("output.weight", (VOCAB, HIDDEN)),
        GgufTensor("rope_freqs.weight", (HEAD_DIM // 2,)),
    ]
    for i in range(LAYERS):
        tensors += [
            GgufTensor(f"blk.{i}.attn_norm.weight", (HIDDEN,)),
            GgufTensor(f"blk.{i}.attn_q.weight", (q, HIDDEN)),
            GgufTensor(f"blk.{i}.attn_k.weight", (kv, HIDDEN)),
            GgufTensor(f"blk.{i}.attn_v.weight", (kv, HIDDEN)),
            GgufTensor(f"blk.{i}.attn_output.weight", (HIDDEN, q)),
            GgufTensor(f"blk.{i}.ffn_norm.weight", (HIDDEN,)),
            GgufTensor(f"blk.{i}.ffn_gate.weight", (FFN, HIDDEN)),
            GgufTensor(f"blk.{i}.ffn_up.weight", (FFN, HIDDEN)),
            GgufTensor(f"blk.{i}.ffn_down.weight", (HIDDEN, FFN)),
        ]
    return tensors


TENSORS = llama31_8b()
# llama-quantize's bpw divides by every element in the file, rope_freqs included
N_ELEMENTS = sum(t.n_elements for t in TENSORS)

# reference.md §2.9, "Model-level bpw", from llama.cpp tools/quantize/README.md:
# file type -> (bits per weight, size in GiB).
PUBLISHED = {
    "f16": (16.0005, 14.96),
    "q8_0": (8.5008, 7.95),
    "q6_k": (6.5633, 6.14),
    "q5_k_m": (5.7036, 5.33),
    "q5_k_s": (5.5704, 5.21),
    "q4_k_m": (4.8944, 4.58),
    "q4_k_s": (4.6672, 4.36),
    "iq4_xs": (4.4597, 4.17),
    "iq4_nl": (4.6818, 4.38),
    "q3_k_l": (4.2979, 4.02),
    "q3_k_s": (3.6429, 3.41),
    "iq3_m": (3.7628, 3.52),
    "iq3_s": (3.6606, 3.42),
    "iq3_xs": (3.4977, 3.27),
    "iq3_xxs": (3.2548, 3.04),
    "q2_k": (3.1593, 2.95),
    "q2_k_s": (2.9697, 2.78),
    "iq2_m": (2.9294, 2.74),
    "iq2_s": (2.7403, 2.56),
    "iq2_xs": (2.5882, 2.42),
    "iq2_xxs": (2.3824, 2.23),
    "iq1_m": (2.1460, 2.01),
    "iq1_s": (2.0042, 1.87),
}

# reference.md §2.9: rows only in tools/quantize/quantize.cpp QUANT_OPTIONS ("G" = GiB,
# two decimals, so only the 1 % check applies).
QUANT_OPTIONS_GIB = {"q4_0": 4.34, "q4_1": 4.78, "q5_0": 5.21, "q5_1": 5.65, "q3_k_m": 3.74}

# reference.md §2.9, block-level bpw from ggml-common.h
BLOCK_BPW = {
    "q8_0": 8.5, "q6_k": 6.5625, "q5_k": 5.5, "q4_k": 4.5, "q3_k": 3.4375, "q2_k": 2.625,
    "q4_0": 4.5, "q4_1": 5.0, "q5_0": 5.5, "q5_1": 6.0, "iq4_xs": 4.25, "iq4_nl": 4.5,
    "iq3_s": 3.4375, "iq3_xxs": 3.0625, "iq2_s": 2.5625, "iq2_xs": 2.3125, "iq2_xxs": 2.0625,
    "iq1_m": 1.75, "iq1_s": 1.5625, "mxfp4": 4.25, "tq1_0": 1.6875, "tq2_0": 2.0625,
    "f32": 32, "f16": 16, "bf16": 16,
}


@pytest.mark.parametrize("ftype", PUBLISHED)
def test_llama31_8b_matches_the_published_table(ftype, record_property):
    bpw_pub, gib_pub = PUBLISHED[ftype]
    size = file_bytes(TENSORS, ftype, **FACTS)
    bpw = file_bytes(TENSORS, ftype, alignment=1, **FACTS) * 8 / N_ELEMENTS
    ratio = size / GIB / gib_pub
    record_property("gib_ratio", round(ratio, 5))
    record_property("bpw", round(bpw, 5))
    print(f"{ftype:8s} {size / GIB:7.3f} GiB / {gib_pub:5.2f} = {ratio:.5f}   bpw {bpw:.5f} vs {bpw_pub}")
    assert abs(ratio - 1) < 0.01
    # the README's bpw has four decimals: the per-tensor types agree exactly
    assert bpw == pytest.approx(bpw_pub, abs=1e-4)


@pytest.mark.parametrize("ftype", QUANT_OPTIONS_GIB)
def test_llama3_8b_quant_options_sizes(ftype, record_property):
    ratio = file_bytes(TENSORS, ftype, **FACTS) / GIB / QUANT_OPTIONS_GIB[ftype]
    record_property("gib_ratio", round(ratio, 5))
    print(f"{ftype:8s} ratio {ratio:.5f}")
    assert abs(ratio - 1) < 0.01


def test_block_table_matches_reference_bpw():
    for name, bpw in BLOCK_BPW.items():
        block, size = GGML_TYPES[name]
        assert size * 8 / block == bpw, name
    required = ("f32", "f16", "bf16", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k",
                "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq1_s", "iq1_m", "iq4_nl", "iq4_xs", "mxfp4")
    assert set(required) <= set(GGML_TYPES)
    for ftype, default in FTYPES.items():
        assert default in GGML_TYPES, ftype


def test_q4_k_m_mixture_on_llama31_8b():
    plan = dict((t.name, ty) for t, ty in quantize_plan(TENSORS, "q4_k_m", **FACTS))
    assert plan["token_embd.weight"] == "q4_k"
    assert plan["output.weight"] == "q6_k"
    assert plan["output_norm.weight"] == plan["rope_freqs.weight"] == plan["blk.7.attn_norm.weight"] == "f32"
    # use_more_bits: the first and last eighth, and every third layer between
    more = [i for i in range(LAYERS) if plan[f"blk.{i}.ffn_down.weight"] == "q6_k"]
    assert more == [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]
    assert [i for i in range(LAYERS) if plan[f"blk.{i}.attn_v.weight"] == "q6_k"] == more
    assert describe(quantize_plan(TENSORS, "q4_k_m", **FACTS)) == {
        "q4_k": 6_498_025_472, "q6_k": 1_531_969_536, "f32": 266_304}


def test_template_names_expand_per_layer():
    templated = [t for t in TENSORS if not t.name.startswith("blk.")]
    for t in TENSORS[4:13]:
        templated.append(GgufTensor(t.name.replace("blk.0.", "blk.{i}."), t.shape, LAYERS))
    assert file_bytes(templated, "q4_k_m", **FACTS) == file_bytes(TENSORS, "q4_k_m", **FACTS)
    assert len(quantize_plan(templated, "q3_k_m", **FACTS)) == len(TENSORS)


def test_row_not_a_multiple_of_256_falls_back():
    # a row of 4000 values: 4000 % 256 != 0 but 4000 % 32 == 0
    odd = [GgufTensor("blk.5.ffn_up.weight", (1024, 4000)), GgufTensor("blk.5.ffn_gate.weight", (1024, 4000))]
    for ftype, expect in {"q4_k_s": "q5_0", "q5_k_s": "q5_1", "q6_k": "q8_0", "q3_k_s": "q4_0",
                          "iq2_xxs": "iq4_nl", "iq4_xs": "iq4_nl", "q8_0": "q8_0"}.items():
        types = {ty for _, ty in quantize_plan(odd, ftype, n_layer=8)}
        assert types == {expect}, ftype
    assert file_bytes(odd[:1], "q4_k_s", n_layer=8, alignment=1) == 1024 * 4000 // 32 * 22
    # not a multiple of 32 either: f16
    tiny = [GgufTensor("blk.0.ffn_up.weight", (64, 100))]
    assert quantize_plan(tiny, "q4_k_m", n_layer=1)[0][1] == "f16"
    assert file_bytes(tiny, "q4_k_m", n_layer=1) == 64 * 100 * 2
    # a 32-block type with no fallback: llama-quantize stops
    with pytest.raises(ValidationError):
        quantize_plan(tiny, "q8_0", n_layer=1)
    # output.weight that 256 does not divide goes to q8_0
    out = [GgufTensor("output.weight", (1000, 4000))]
    assert quantize_plan(out, "q4_k_m", n_layer=1)[0][1] == "q8_0"


def test_one_dimensional_and_norm_tensors_stay_f32():
    ts = [GgufTensor("blk.0.attn_q.bias", (4096,)), GgufTensor("blk.0.attn_norm.weight", (4096,)),
          GgufTensor("blk.0.ffn_gate_inp.weight", (8, 4096))]
    assert {ty for _, ty in quantize_plan(ts, "q2_k", n_layer=1, n_expert=8)} == {"f32"}


def test_moe_expert_tensors():
    ts = [GgufTensor(f"blk.{i}.ffn_{p}_exps.weight", (8, 14336, 4096) if p != "down" else (8, 4096, 14336))
          for i in range(4) for p in ("gate", "up", "down")]
    ts += [GgufTensor("blk.0.attn_v.weight", (1024, 4096)), GgufTensor("blk.0.attn_k.weight", (1024, 4096))]
    plan = dict((t.name, ty) for t, ty in quantize_plan(ts, "q4_k_m", n_layer=4, n_expert=8, n_gqa=4))
    assert plan["blk.0.attn_v.weight"] == plan["blk.0.attn_k.weight"] == "q8_0"
    mx = dict((t.name, ty) for t, ty in quantize_plan(ts, "mxfp4_moe", n_layer=4, n_expert=8, n_gqa=4))
    assert mx["blk.3.ffn_down_exps.weight"] == "mxfp4" and mx["blk.0.attn_v.weight"] == "q8_0"
    assert file_bytes(ts[:1], "mxfp4_moe", n_layer=4, n_expert=8) == 8 * 14336 * 4096 // 32 * 17


def test_pure_and_tied_embeddings():
    tied = [t for t in TENSORS if t.name != "output.weight"]
    plan = dict((t.name, ty) for t, ty in quantize_plan(tied, "q4_k_m", **FACTS))
    assert plan["token_embd.weight"] == "q6_k"  # tied: quantized like the output
    pure = describe(quantize_plan(TENSORS, "q4_k_m", pure=True, **FACTS))
    assert set(pure) == {"q4_k", "f32"}


def test_plan_bytes_pads_to_alignment():
    t = GgufTensor("blk.0.ffn_up.weight", (3, 32))
    plan = quantize_plan([t], "q8_0", n_layer=1)
    assert plan_bytes(plan, alignment=1) == 3 * 34
    assert plan_bytes(plan) == 128


@pytest.mark.parametrize("bad", ["q4_k_xl", "Q9", "", None, "fp8"])
def test_unknown_ftype(bad):
    with pytest.raises(ValidationError) as err:
        file_bytes(TENSORS, bad, **FACTS)
    assert err.value.field == "precision"
    assert "q4_k_m" in err.value.allowed


def test_ftype_names_are_case_insensitive():
    assert file_bytes(TENSORS, "Q4_K_M", **FACTS) == file_bytes(TENSORS, "q4_k", **FACTS)
