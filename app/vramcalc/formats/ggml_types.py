"""The ggml types' block layouts and llama-quantize's file types, as data (formats/gguf.py applies
llama-quantize's rules with them). Block layouts from ggml-org/llama.cpp `ggml/src/ggml-common.h`
(01243c587fec) and the type_traits of `ggml/src/ggml.c` (00bdaa105cb0); file-type names from
`tools/quantize/quantize.cpp` (03161a4eb9a2)."""

from __future__ import annotations

QK_K = 256
GGUF_ALIGNMENT = 32  # GGUF_DEFAULT_ALIGNMENT: every tensor's data starts on it

# ggml type -> (values per block, bytes per block), from the block structs.
GGML_TYPES: dict[str, tuple[int, int]] = {
    "f32": (1, 4),
    "f16": (1, 2),
    "bf16": (1, 2),
    "q4_0": (32, 18),  # fp16 d + 16 B of nibbles
    "q4_1": (32, 20),  # fp16 d, m + 16 B
    "q5_0": (32, 22),  # fp16 d + 4 B high bits + 16 B
    "q5_1": (32, 24),
    "q8_0": (32, 34),  # fp16 d + 32 int8
    "q2_k": (QK_K, 84),  # 16 scales + 64 qs + 2 fp16
    "q3_k": (QK_K, 110),  # 32 hmask + 64 qs + 12 scales + fp16
    "q4_k": (QK_K, 144),  # 2 fp16 + 12 scales + 128 qs
    "q5_k": (QK_K, 176),  # 2 fp16 + 12 scales + 32 qh + 128 qs
    "q6_k": (QK_K, 210),  # 128 ql + 64 qh + 16 scales + fp16
    "iq2_xxs": (QK_K, 66),
    "iq2_xs": (QK_K, 74),
    "iq2_s": (QK_K, 82),
    "iq3_xxs": (QK_K, 98),
    "iq3_s": (QK_K, 110),
    "iq1_s": (QK_K, 50),
    "iq1_m": (QK_K, 56),
    "iq4_nl": (32, 18),
    "iq4_xs": (QK_K, 136),
    "tq1_0": (QK_K, 54),
    "tq2_0": (QK_K, 66),
    "mxfp4": (32, 17),  # E8M0 exponent + 16 B of E2M1
}

UNQUANTIZED = frozenset({"f32", "f16", "bf16"})

# llama-quantize file type (as typed on its command line, lower case) -> default ggml
# type (`llama_ftype_get_default_type`). Aliases: q3_k = q3_k_m, q4_k = q4_k_m, q5_k = q5_k_m.
FTYPES: dict[str, str] = {
    "f32": "f32",
    "f16": "f16",
    "bf16": "bf16",
    "q8_0": "q8_0",
    "q6_k": "q6_k",
    "q5_k_m": "q5_k",
    "q5_k_s": "q5_k",
    "q5_k": "q5_k",
    "q5_1": "q5_1",
    "q5_0": "q5_0",
    "q4_k_m": "q4_k",
    "q4_k_s": "q4_k",
    "q4_k": "q4_k",
    "q4_1": "q4_1",
    "q4_0": "q4_0",
    "iq4_xs": "iq4_xs",
    "iq4_nl": "iq4_nl",
    "q3_k_l": "q3_k",
    "q3_k_m": "q3_k",
    "q3_k_s": "q3_k",
    "q3_k": "q3_k",
    "iq3_m": "iq3_s",
    "iq3_s": "iq3_s",
    "iq3_xs": "iq3_s",
    "iq3_xxs": "iq3_xxs",
    "q2_k": "q2_k",
    "q2_k_s": "q2_k",
    "iq2_m": "iq2_s",
    "iq2_s": "iq2_xs",
    "iq2_xs": "iq2_xs",
    "iq2_xxs": "iq2_xxs",
    "iq1_m": "iq1_m",
    "iq1_s": "iq1_s",
    "tq2_0": "tq2_0",
    "tq1_0": "tq1_0",
    "mxfp4_moe": "mxfp4",
}
