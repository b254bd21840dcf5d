"""Size of a GGUF file as llama.cpp's `llama-quantize` writes it.

`quantize_plan` picks the ggml type of every tensor the way llama-quantize does
(llama.cpp `src/llama-quant.cpp`: `llama_tensor_get_type`, its per-category mixture
rules for each file type, and `tensor_type_fallback` for rows that a block type
cannot split); `file_bytes` adds up what each tensor then takes: whole blocks per
row, times the rows, padded to the GGUF data alignment (32 bytes).

Not modelled: the GGUF header and key/value metadata (the tokenizer alone is a few
MB for a 128k vocabulary), the user overrides `--output-tensor-type`,
`--token-embedding-type`, `--tensor-type`, `--leave-output-tensor`,
`--prune-layers` and `--target-bpw` (only `--pure` is modelled), and the newest
llama.cpp file types Q1_0, Q2_0 and NVFP4. An importance matrix changes the mixture for a few
file types (IQ3_XXS, IQ4_NL/IQ4_XS, Q4_0/Q5_0); see `quantize_plan`.

Rules read from ggml-org/llama.cpp `src/llama-quant.cpp` at commit 007dbbf3fd17;
block layouts from `ggml/src/ggml-common.h` (01243c587fec) and the type_traits of
`ggml/src/ggml.c` (00bdaa105cb0); file-type names from `tools/quantize/quantize.cpp`
(03161a4eb9a2).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Required, TypedDict, Unpack

from ..core.errors import ValidationError
from ..model.tensor import layer_of
from .ggml_types import FTYPES, GGML_TYPES, GGUF_ALIGNMENT, UNQUANTIZED

# Names users type for a file type this module plans: llama-quantize's own aliases (tools/quantize/quantize.cpp
# QUANT_OPTIONS: "Q4_K" is "alias for Q4_K_M", likewise Q3_K and Q5_K), and Unsloth's Dynamic 2.0 file name UD-Q4_K_XL,
# whose per-tensor types Unsloth chooses per model and does not list: planned as the Q4_K_M mixture, an approximation
# (Qwen3-30B-A3B: Unsloth's UD-Q4_K_XL file is 17,715,663,424 B, the Q4_K_M plan 18,550,716,416 B, 4.7 % more;
# docs/accuracy.md).
ALIASES = {"q3_k": "q3_k_m", "q4_k": "q4_k_m", "q5_k": "q5_k_m", "ud-q4_k_xl": "q4_k_m"}
APPROXIMATE = frozenset({"ud-q4_k_xl"})  # aliases whose mixture is not the file's own

# File types that llama-quantize refuses to make without an importance matrix
# (some tensor lands on iq1/iq2/iq3_xxs, or on q2_k inside a Q2_K_S file).
NEEDS_IMATRIX = frozenset(
    {"iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq2_m", "iq3_xxs", "iq3_xs", "q2_k_s"}
)

# When a row (ggml ne[0]) is not a whole number of blocks: the type tried next.
# If that one does not fit either the tensor is stored as f16; a type missing here
# makes llama-quantize stop with "no tensor type fallback is defined".
FALLBACK: dict[str, str] = {
    **dict.fromkeys(("iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq4_xs"), "iq4_nl"),
    **dict.fromkeys(("q2_k", "q3_k", "tq1_0", "tq2_0"), "q4_0"),
    "q4_k": "q5_0",
    "q5_k": "q5_1",
    "q6_k": "q8_0",
}

# Untied token embeddings in the very low-bit mixes.
TOKEN_EMBD_TYPE: dict[str, str] = {
    **dict.fromkeys(("iq2_xxs", "iq2_xs", "iq1_s", "iq1_m"), "q2_k"),
    **dict.fromkeys(("iq2_s", "iq2_m", "iq3_xxs"), "iq3_s"),
    **dict.fromkeys(("tq1_0", "tq2_0"), "q4_k"),
}

# Name fragments of 2-D+ tensors that llama-quantize never quantizes
# (`tensor_allows_quantization`); they keep the type they have in the input file.
_NEVER_QUANTIZED = (
    "_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel",
    "per_layer_model_proj", "ssm_conv1d", "shortconv.conv.weight", "indexer.k_proj.weight",
    "indexer.q_proj.weight", "time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight",
    "time_mix_w2.weight", "time_mix_v0.weight", "time_mix_v1.weight", "time_mix_v2.weight",
    "time_mix_a0.weight", "time_mix_a1.weight", "time_mix_a2.weight", "time_mix_g1.weight",
    "time_mix_g2.weight", "time_mix_decay_w1.weight", "time_mix_decay_w2.weight",
    "time_mix_lerp_fused.weight", "attn_rel_b.weight", ".position_embd", "sam.pos_embd", "sam.neck.",
    "sam.net_", ".rel_pos", ".patch_embd", ".patch_merger", "a.rvq.codebook", "mm.a.code_embd",
)
_NEVER_QUANTIZED_EXACT = frozenset({"position_embd.weight", "token_types.weight"})

# Categories, tested in this order (`tensor_get_category`): exact names, then substrings.
_CATEGORIES = (
    ("attn_qkv", "attn_qkv.weight"),
    ("attn_kv_b", "attn_kv_b.weight"),
    ("attn_v", "attn_v.weight"),
    ("attn_k", "attn_k.weight"),
    ("attn_q", "attn_q.weight"),
    ("attn_output", "attn_output.weight"),
    ("ffn_up", "ffn_up"),
    ("ffn_gate", "ffn_gate"),
    ("ffn_down", "ffn_down"),
)
_ATTN_V_LIKE = frozenset({"attn_v", "attn_qkv", "attn_kv_b"})
_IQ_LOW = frozenset({"iq2_xxs", "iq2_xs", "iq1_s", "iq2_s", "iq2_m", "iq1_m"})


@dataclasses.dataclass(frozen=True)
class GgufTensor:
    """One tensor by its GGUF name and PyTorch-order shape (out_features, in_features),
    experts first for merged expert tensors. `count` > 1 stands for that many copies:
    a `{i}` in the name is replaced by 0 .. count-1 (one per layer)."""

    name: str
    shape: tuple[int, ...]
    count: int = 1

    @property
    def ne(self) -> tuple[int, ...]:
        """ggml's dimensions: ne[0] is the row length (the last PyTorch dim)."""
        return tuple(reversed(self.shape)) or (1,)

    @property
    def n_elements(self) -> int:
        return math.prod(self.shape) * self.count


def _expand(tensors: Iterable[GgufTensor]) -> list[GgufTensor]:
    out: list[GgufTensor] = []
    for t in tensors:
        if t.count < 1:
            raise ValidationError("count", t.count, f"{t.name}: expected a positive number of copies")
        if "{i}" in t.name:
            out += [GgufTensor(t.name.replace("{i}", str(i)), tuple(t.shape)) for i in range(t.count)]
        else:
            out += [GgufTensor(t.name, tuple(t.shape))] * t.count
    return out


def _layer(name: str) -> int:
    layer = layer_of(name)
    return -1 if layer is None else layer


def _category(name: str) -> str:
    if name == "output.weight":
        return "output"
    if name in ("token_embd.weight", "per_layer_token_embd.weight"):
        return "token_embd"
    for category, fragment in _CATEGORIES:
        if fragment in name:
            return category
    return "other"


def _n_dims(t: GgufTensor) -> int:
    ne = t.ne
    return max((i + 1 for i, n in enumerate(ne) if n != 1), default=1)


def _quantizable(t: GgufTensor) -> bool:
    name = t.name
    return (
        _n_dims(t) >= 2
        and name.endswith("weight")
        and name not in _NEVER_QUANTIZED_EXACT
        and not any(fragment in name for fragment in _NEVER_QUANTIZED)
    )


def _block_ok(ggml_type: str, ne0: int) -> bool:
    return ne0 % GGML_TYPES[ggml_type][0] == 0


def _use_more_bits(i_layer: int, n_layer: int) -> bool:
    return i_layer < n_layer // 8 or i_layer >= 7 * n_layer // 8 or (i_layer - n_layer // 8) % 3 == 2


def _check_ftype(ftype: str) -> str:
    key = str(ftype).lower()
    key = ALIASES.get(key, key)
    if key not in FTYPES:
        raise ValidationError("precision", ftype, "expected one of: " + ", ".join(FTYPES))
    return key


@dataclasses.dataclass
class _State:
    """What llama-quantize counts while it walks the tensors in file order."""

    ftype: str
    n_layer: int
    n_expert: int
    n_gqa: int
    imatrix: bool
    arch: str
    is_70b: bool
    tied: bool
    n_attn_v: int
    i_attn_v: int = 0
    i_ffn_down: int = 0
    i_ffn_gate: int = 0
    i_ffn_up: int = 0

    def layer_of(self, name: str, counter: int) -> int:
        # MoE: expert tensors are not in layer order, so the layer comes from the name
        if max(1, self.n_expert) > 1:
            layer = _layer(name)
            return layer if layer >= 0 else counter
        return counter


def _mixture_type(s: _State, t: GgufTensor, cat: str, new: str) -> str:
    """The mixture rule for one tensor (`llama_tensor_get_type_impl`)."""
    f, falcon, ne = s.ftype, s.arch == "falcon", t.ne
    if cat == "output" or (s.tied and cat == "token_embd"):
        if f == "mxfp4_moe" or falcon or not _block_ok(new, ne[0]):
            return "q8_0"
        if f in ("iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s", "iq2_s", "iq2_m", "iq1_m"):
            return "q5_k"
        return new if new == "q8_0" else "q6_k"
    if f == "mxfp4_moe":
        experts = len(ne) > 2 and ne[2] > 1
        if s.arch == "bailingmoe3":
            experts = experts and cat in ("ffn_up", "ffn_gate", "ffn_down")
        return "mxfp4" if experts else "q8_0"
    if cat == "token_embd":
        return TOKEN_EMBD_TYPE.get(f, new)
    if f in _IQ_LOW:
        two_s = f in ("iq2_s", "iq2_m")
        if cat in _ATTN_V_LIKE:
            s.i_attn_v += 1
            if s.n_gqa >= 4 or s.n_expert >= 4:
                return "q4_k"
            return "iq3_s" if two_s else "q2_k"
        if s.n_expert == 8 and cat == "attn_k":
            return "q4_k"
        if cat == "ffn_down":
            first = s.i_ffn_down < s.n_layer // 8
            s.i_ffn_down += 1
            return ("iq3_s" if two_s else "q2_k") if first else new
        if cat == "attn_output":
            if s.n_expert == 8:
                return "q5_k"
            if f in ("iq1_s", "iq1_m"):
                return "iq2_xxs"
            return "iq3_s" if two_s else new
        return new
    if cat in _ATTN_V_LIKE:
        i, gqa4 = s.i_attn_v, s.n_gqa >= 4
        if f == "q2_k":
            new = "q4_k" if gqa4 else "q3_k"
        elif f == "q2_k_s" and gqa4:
            new = "q4_k"
        elif f == "iq3_xxs":
            new = "q4_k" if gqa4 else ("iq3_xxs" if s.imatrix else "iq3_s")
        elif (f in ("iq3_xs", "iq3_s") and gqa4) or f == "iq3_m":
            new = "q4_k"
        elif f == "q3_k_m":
            new = "q5_k" if i < 2 else "q4_k"
        elif f == "q3_k_l" or (f in ("iq4_nl", "iq4_xs") and gqa4):
            new = "q5_k"
        elif f in ("q4_k_m", "q5_k_m") and _use_more_bits(i, s.n_attn_v):
            new = "q6_k"
        elif f == "q4_k_s" and i < 4:
            new = "q5_k"
        if s.is_70b and new in ("q3_k", "q4_k"):
            new = "q5_k"
        if s.n_expert == 8:
            new = "q8_0"
        s.i_attn_v += 1
        return new
    if cat == "attn_k":
        if s.n_expert == 8:
            return "q8_0"
        return {"iq3_xs": "iq3_xxs", "iq3_xxs": "iq2_s"}.get(f, new)
    if cat == "attn_q":
        return {"iq3_xs": "iq3_xxs", "iq3_xxs": "iq2_s"}.get(f, new)
    if cat == "ffn_down":
        il, n = s.layer_of(t.name, s.i_ffn_down), s.n_layer
        s.i_ffn_down += 1
        more = _use_more_bits(il, n)
        if f == "q2_k":
            return "q3_k"
        if f == "q2_k_s":
            return "q4_k" if il < n // 8 else new
        if f == "iq3_xxs" and not s.imatrix:
            return "q4_k" if il < n // 8 else "q3_k"
        if f == "q3_k_m":
            return "q5_k" if il < n // 16 else ("q4_k" if not falcon or more else "q3_k")
        if f == "iq3_m" and (il < n // 8 or (s.n_expert == 8 and more)):
            return "q4_k"
        if f == "q3_k_l":
            return "q4_k" if falcon else "q5_k"
        if f == "q4_k_m":
            if falcon:
                return "q6_k" if il < n // 16 else ("q5_k" if more else "q4_k")
            return "q6_k" if more else new
        if il < n // 8 and f in ("iq4_nl", "iq4_xs") and not s.imatrix:
            return "q5_k"
        if f == "q5_k_m" and more:
            return "q6_k"
        if f == "q4_k_s" and not falcon and il < n // 8:
            return "q5_k"
        if f in ("q4_0", "q5_0") and s.imatrix and il < n // 8:
            return "q4_1" if f == "q4_0" else "q5_1"
        return new
    if cat == "attn_output":
        if falcon:
            return "q4_k" if f == "q3_k_l" else new
        if s.n_expert == 8:
            bump = ("q2_k", "iq3_xs", "iq3_xxs", "q3_k_s", "q3_k_m", "iq4_nl", "q4_k_s", "q4_k_m",
                    "iq3_s", "iq3_m", "iq4_xs")
            return "q5_k" if f in bump else new
        return {"q2_k": "q3_k", "iq3_xxs": "iq3_s", "q3_k_m": "q4_k", "q3_k_l": "q5_k",
                "iq3_m": "q4_k"}.get(f, new)
    # (llama.cpp also has an attn_qkv rule here, but attn_qkv is attn_v-like and was
    # handled above, so that rule is never reached.)
    if cat in ("ffn_gate", "ffn_up"):
        counter = "i_ffn_gate" if cat == "ffn_gate" else "i_ffn_up"
        il, n = s.layer_of(t.name, getattr(s, counter)), s.n_layer
        setattr(s, counter, getattr(s, counter) + 1)
        if f == "iq3_xs" and n // 8 <= il < 7 * n // 8:
            return "iq3_xxs"
        return new
    return new


def _fallback(t: GgufTensor, wanted: str, ftype: str) -> str:
    """`tensor_type_fallback`: a type whose blocks fit the row, or f16."""
    ne0 = t.ne[0]
    if _block_ok(wanted, ne0):
        return wanted
    if wanted not in FALLBACK:
        raise ValidationError(
            "precision", ftype,
            f"llama-quantize has no fallback from {wanted} for {t.name}, whose rows of {ne0} "
            f"are not a multiple of {GGML_TYPES[wanted][0]}",
        )
    nxt = FALLBACK[wanted]
    return nxt if _block_ok(nxt, ne0) else "f16"


def quantize_plan(
    tensors: Iterable[GgufTensor],
    ftype: str,
    *,
    n_layer: int,
    n_expert: int = 0,
    n_gqa: int = 1,
    imatrix: bool | None = None,
    arch: str = "llama",
    pure: bool = False,
    source_type: str = "f16",
    keep_experts: str | None = None,
) -> list[tuple[GgufTensor, str]]:
    """The ggml type llama-quantize gives each tensor, in input order (a `{i}` or
    `count` entry is expanded into its copies).

    n_layer, n_expert and n_gqa (= n_head // n_head_kv) are the model's hyper-parameters
    that the rules read. `imatrix`: whether an importance matrix is given; None assumes
    one exactly for the file types that cannot be made without it (`NEEDS_IMATRIX`).
    `arch` matters only for "falcon" and "bailingmoe3"; a "llama" model with 80 layers
    and grouped-query attention is the "70B" case. `pure` is `--pure` (no mixture).
    Tensors llama-quantize leaves alone keep their input type: f32 for 1-D tensors,
    norms, biases and the other tensors the converter writes in f32, else `source_type`.
    `keep_experts`: the type the input's stacked expert weights keep whatever the file type, as
    in every published gpt-oss GGUF (its MXFP4 experts: convert_hf_to_gguf.py writes them through,
    and the files' makers keep them; stock llama-quantize would re-quantise them only with
    --allow-requantize). The other tensors follow the file type's rules unchanged.
    """
    f = _check_ftype(ftype)
    if source_type not in GGML_TYPES:
        raise ValidationError("source_type", source_type, "expected one of: " + ", ".join(GGML_TYPES))
    default = FTYPES[f]
    flat = _expand(tensors)
    cats = [_category(t.name) for t in flat]
    state = _State(
        ftype=f,
        n_layer=n_layer,
        n_expert=n_expert,
        n_gqa=n_gqa,
        imatrix=(f in NEEDS_IMATRIX) if imatrix is None else bool(imatrix),
        arch=arch.lower(),
        is_70b=arch.lower() == "llama" and n_layer == 80 and n_gqa > 1,
        tied="output" not in cats,
        n_attn_v=sum(c in _ATTN_V_LIKE for c in cats),
    )
    # llama-quantize walks the tensors sorted by layer (non-layer ones first), then name;
    # the positional counters (i_attention_wv, i_ffn_down, ...) follow that order.
    order = sorted(range(len(flat)), key=lambda k: (_layer(flat[k].name), flat[k].name))
    chosen: dict[int, str] = {}
    for k in order:
        t = flat[k]
        if not _quantizable(t):
            chosen[k] = "f32" if _n_dims(t) < 2 or _forced_f32(t.name) else source_type
        elif keep_experts is not None and _n_dims(t) > 2 and t.ne[2] > 1:
            chosen[k] = keep_experts
        elif default in UNQUANTIZED:
            chosen[k] = default
        else:
            wanted = default if pure else _mixture_type(state, t, cats[k], default)
            chosen[k] = _fallback(t, wanted, ftype)
    return [(t, chosen[k]) for k, t in enumerate(flat)]


def _forced_f32(name: str) -> bool:
    # convert_hf_to_gguf writes these in f32 whatever the output type
    return (
        name.endswith("_norm.weight")
        or not name.endswith(".weight")
        or any(x in name for x in ("ffn_gate_inp", "position_embd", "token_types", "ssm_conv1d", "time_mix"))
    )


def tensor_bytes(t: GgufTensor, ggml_type: str) -> int:
    """Bytes of one copy's data: rows × whole blocks per row (`ggml_row_size`)."""
    block, size = GGML_TYPES[ggml_type]
    ne = t.ne
    return math.prod(ne[1:]) * (-(-ne[0] // block)) * size


def plan_bytes(plan: Iterable[tuple[GgufTensor, str]], *, alignment: int = GGUF_ALIGNMENT) -> int:
    """Tensor data of a plan; each tensor padded to `alignment` as the GGUF writer does
    (alignment=1: the bare sum that llama-quantize prints as "quant size")."""
    total = 0
    for t, ggml_type in plan:
        n = tensor_bytes(t, ggml_type)
        total += -(-n // alignment) * alignment * t.count
    return total


class ModelFacts(TypedDict, total=False):
    """`quantize_plan`'s keyword arguments, which `file_bytes` passes through."""

    n_layer: Required[int]
    n_expert: int
    n_gqa: int
    imatrix: bool | None
    arch: str
    pure: bool
    source_type: str
    keep_experts: str | None


def file_bytes(
    tensors: Iterable[GgufTensor], ftype: str, *, alignment: int = GGUF_ALIGNMENT, **model_facts: Unpack[ModelFacts]
) -> int:
    """Size of the tensor data of the GGUF that llama-quantize writes for `ftype`
    (header and metadata not included). model_facts: as for `quantize_plan`."""
    return plan_bytes(quantize_plan(tensors, ftype, **model_facts), alignment=alignment)


def describe(plan: Iterable[tuple[GgufTensor, str]]) -> dict[str, int]:
    """Parameters per ggml type, largest share first: {"q4_k": n, "q6_k": n, "f32": n}."""
    out: dict[str, int] = {}
    for t, ggml_type in plan:
        out[ggml_type] = out.get(ggml_type, 0) + t.n_elements
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))
