"""Weight formats people run: GGUF files (llama.cpp, Ollama, LM Studio; `f16` here, while
`bf16` stays the nominal 16 bits of the first version), the GPU
quantisation formats (GPTQ, AWQ, bitsandbytes NF4 and LLM.int8, FP8, MXFP4, NVFP4,
EXL2/EXL3 bits per weight) and a model's native checkpoint format.

Every format is a rule per tensor of `tensors.model_tensors`: which tensors it
quantises (the linear layers; embeddings, head, router, norms and biases stay
16-bit unless the format says otherwise) and how many bytes each takes with its
scales, zero points and indices, from the storage layout of the library that
writes it. GGUF files follow llama.cpp's quantizer tensor by tensor (gguf.py).

The nominal precisions of the first version (fp32, fp16, bf16, int8, int4, int2:
every parameter at that many bits, no scales) are not formats here; links that
carry them keep their meaning.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Callable, Iterable

from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.phrase import Formula, Phrase, join, phrase
from ..core.units import format_count
from ..model.families.decoder.spec import AttentionKind, ModelSpec
from ..model.families.decoder.tensors import layer_tensors, model_tensors, outside_tensors
from ..model.table import count_params, counted_tensors
from ..model.tensor import Counted, Role, Tensor
from .file_weights import FileWeights, spread
from .gguf import ALIASES as GGUF_ALIASES
from .gguf import APPROXIMATE, GgufTensor, quantize_plan, tensor_bytes

BF16_BYTES = 2
DEFAULT_GROUP_SIZE = 128
FP8_BLOCK = 128


@dataclasses.dataclass(frozen=True)
class WeightFormat:
    name: str  # as in links and on the command line: q4_k_m, awq-int4, bpw:4.65, native
    kind: str  # gguf, gpu, bpw, native
    label: Phrase  # what the page says
    bpw: float = 0.0  # bits per quantised weight for bpw:X.XX
    file: FileWeights | None = None  # the weights of a file the user named (`file_format`)
    mlp_only: bool = False  # GPU formats: the MLPs and experts quantised, attention kept in 16-bit (`quantise=mlp`)
    experts_kept: bool = False  # bitsandbytes under transformers 5: the fused expert stacks stay 16-bit (BNB_FORMATS)

    is_float = False  # read like a Precision where the workload asks: quantised weights compute in 16-bit

    @property
    def value(self) -> str:
        return self.name


GPU_FORMATS = ("gptq-int4", "gptq-int8", "awq-int4", "nf4", "nf4-dq",
               "bnb-int8", "fp8", "fp8-block", "mxfp4", "nvfp4")  # described in the catalogues, format.NAME
INT4_EXPERTS = "int4-experts"  # a published checkpoint's experts in W4A16, group 32 (Kimi K2.5): native only
FP4_EXPERTS = "FP4 routed experts"  # native_format of DeepSeek-V4's checkpoints: FP4 experts, FP8 blocks (_fp4_fp8)
GGUF_FORMATS = ("f16", "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q5_1", "q5_0", "q4_k_m", "q4_k_s", "q4_1", "q4_0",
                "iq4_xs", "iq4_nl", "q3_k_l", "q3_k_m", "q3_k_s", "iq3_m", "iq3_s", "iq3_xxs", "q2_k", "q2_k_s",
                "iq2_m", "iq2_s", "iq2_xs", "iq2_xxs", "iq1_m", "iq1_s", "mxfp4_moe")
GROUPED = ("gptq-int4", "gptq-int8", "awq-int4")
BNB_FORMATS = ("nf4", "nf4-dq", "bnb-int8")  # bitsandbytes' Linear4bit and Linear8bitLt
COMMON_BPW = ("bpw:2.5", "bpw:3.0", "bpw:3.5", "bpw:4.0", "bpw:4.65", "bpw:5.0", "bpw:6.0", "bpw:8.0")
WEIGHT_FORMAT_GROUPS = (
    ("auto", ("auto",)),
    ("nominal", ("bf16", "fp16", "fp32", "int8", "int4", "int2")),
    ("gguf", GGUF_FORMATS),
    ("gpu", tuple(GPU_FORMATS)),
    ("exl", COMMON_BPW),
    ("native", ("native",)),
)
"""The page's choices, grouped; any bpw:X.XX from a link is added to the list when it is opened."""
_BPW = re.compile(r"bpw:(\d{1,2}(?:\.\d{1,3})?)")
MIN_BPW, MAX_BPW = 1.0, 16.0

LayerKey = tuple[AttentionKind, bool, int]  # a layer's group, ModelSpec.layer_keys


def names() -> tuple[str, ...]:
    return GGUF_FORMATS + tuple(GGUF_ALIASES) + tuple(GPU_FORMATS) + ("bpw:X.XX", "native", "auto")


NATIVE = WeightFormat("native", "native", phrase("format.native"))
AUTO = WeightFormat("auto", "auto", phrase("format.auto"))
"""No format named: the engine runs the checkpoint as published (`checkpoint_format`); inputs/ resolves
it before a Workload is made, so no Workload holds it."""


def file_format(weights: FileWeights) -> WeightFormat:
    """The weights as a file holds them (--weights): a GGUF file is a GGUF format (llama.cpp and Ollama
    run it, nothing trains it); a safetensors checkpoint runs on any engine that reads its dtypes."""
    kind = "gguf" if weights.kind == "gguf" else "file"
    return WeightFormat("file", kind, phrase("format.file", name=weights.name), file=weights)


def checkpoint_format(spec: ModelSpec, *, training: bool) -> WeightFormat | None:
    """What `auto` means for this model: its published quantised format for inference (gpt-oss's MXFP4
    experts, DeepSeek's FP8 blocks, DeepSeek-V4's FP4 experts and FP8 blocks), None for the 16-bit default (a
    checkpoint published in 16-bit, or training, which trains 16-bit weights: bf16 LoRA over a dequantised
    gpt-oss, or QLoRA when asked)."""
    return NATIVE if spec.native_format and not training else None


def keeps_mxfp4_experts(spec: ModelSpec) -> bool:
    """Whether GGUF files of this model keep its experts in MXFP4: every published gpt-oss GGUF does
    (ggml-org's, unsloth's and bartowski's at any file type); only the other tensors follow the type."""
    return spec.native_format.startswith("MXFP4")


def gpt_oss_mxfp4(spec: ModelSpec, fmt: Precision | WeightFormat) -> Precision | WeightFormat:
    """MXFP4 asked of gpt-oss is OpenAI's checkpoint: its experts in MXFP4, attention in bf16 (`quantise=mlp`), as
    both vLLM (quantization/mxfp4.py: every LinearBase unquantised) and transformers (integrations/mxfp4.py: each
    GptOssMLP converted, nothing else) run it."""
    if isinstance(fmt, WeightFormat) and fmt.name == "mxfp4" and spec.model_type == "gpt_oss":
        return dataclasses.replace(fmt, mlp_only=True)
    return fmt


def _fp8_per_tensor(native_format: str) -> bool:
    """Mistral's FP8 checkpoints (Devstral 2): one scale per weight matrix, not per 128 × 128 block."""
    return native_format.startswith("FP8") and "per tensor" in native_format


def native_format_phrase(native_format: str) -> Phrase:
    """How a preset's checkpoint stores its weights (its `native_format`, data/README.md), in words."""
    if native_format.startswith("MXFP4"):
        return phrase("native.mxfp4")
    if _fp8_per_tensor(native_format):
        return phrase("native.fp8_tensor")
    if native_format.startswith("FP8"):
        return phrase("native.fp8_block_embeddings" if "embeddings" in native_format else "native.fp8_block")
    if native_format.startswith("INT4"):
        return phrase("native.int4_experts")
    if native_format.startswith(FP4_EXPERTS):
        return phrase("native.fp4_fp8")
    raise ValueError(f"native format {native_format!r}: not one the catalogues describe")


def parse_format(text: str) -> WeightFormat | None:
    """A weight format by name, or None when the text is not one (the caller tries the nominal precisions)."""
    if text in GGUF_FORMATS or text in GGUF_ALIASES:  # an alias: typed, linked, not listed (gguf.ALIASES)
        if text in APPROXIMATE:
            return WeightFormat(text, "gguf", phrase("format.gguf_as", name=text.upper(),
                                                     planned=GGUF_ALIASES[text].upper()))
        return WeightFormat(text, "gguf", phrase("format.gguf", name=text.upper()))
    if text in GPU_FORMATS:
        return WeightFormat(text, "gpu", phrase(f"format.{text}"))
    if text == "native":
        return NATIVE
    if text == "auto":
        return AUTO
    match = _BPW.fullmatch(text)
    if match:
        bpw = float(match.group(1))
        if not MIN_BPW <= bpw <= MAX_BPW:
            raise ValidationError("precision", text, f"bits per weight must be from {MIN_BPW:g} to {MAX_BPW:g}")
        return WeightFormat(text, "bpw", phrase("format.bpw", bpw=f"{bpw:g}"), bpw=bpw)
    return None


@dataclasses.dataclass(frozen=True)
class WeightShare:
    """Some of the weights at one width: what they are, how many parameters, how many bytes."""

    what: str | Phrase  # a format name, or which weights in words
    params: int
    bytes: int

    @property
    def bits(self) -> float:
        return 8 * self.bytes / self.params if self.params else 0.0


@dataclasses.dataclass(frozen=True)
class LayerBytes:
    """A model's weight bytes in one format, layer by layer, for engines that place layers on devices
    (llama.cpp's --gpu-layers, pipeline stages): the tensors outside the layers with their bytes, each
    layer's group (ModelSpec.layer_keys), and the bytes of a layer's tensors in layer_tensors order:
    the same for every layer of a group (`by_group`) except in a real GGUF file, where llama-quantize
    gives some layers more bits (`per_layer`). A variant of another depth in a GGUF format
    (`planned_layers`) has no file of its own: each of its layers holds the real model's average for
    its group, so its bytes can be fractional."""

    outside: tuple[tuple[Tensor, float], ...]
    keys: tuple[LayerKey, ...]
    by_group: dict[LayerKey, tuple[float, ...]] | None = None  # one of by_group and per_layer is given
    per_layer: tuple[tuple[float, ...], ...] | None = None

    @functools.cached_property
    def layers(self) -> tuple[tuple[LayerKey, tuple[float, ...]], ...]:
        """(group key, its tensors' bytes) of every layer."""
        sizes: Iterable[tuple[float, ...]]
        if self.per_layer is not None:
            sizes = self.per_layer
        else:
            assert self.by_group is not None
            sizes = map(self.by_group.__getitem__, self.keys)
        return tuple(zip(self.keys, sizes, strict=True))

    def layers_bytes(self, start: int, stop: int) -> float:
        """The bytes of layers start .. stop - 1: by counting each group's layers among them, without
        a walk over thousands of layers in Python."""
        if self.by_group is None:
            assert self.per_layer is not None
            return sum(sum(sizes) for sizes in self.per_layer[start:stop])
        held = self.keys[start:stop]
        return sum(held.count(key) * sum(sizes) for key, sizes in self.by_group.items())


def expert_bytes(spec: ModelSpec, weights: LayerBytes) -> tuple[float, ...]:
    """Each layer's bytes of routed-expert tensors (their weights and biases: llama.cpp's
    `blk.N.ffn_(up|down|gate)_exps` tensors), which --n-cpu-moe keeps in system RAM."""
    roles = {key: [t.role for t in layer_tensors(spec, index)] for key, index, _ in spec.layer_groups}
    return tuple(sum(size for role, size in zip(roles[key], sizes, strict=True) if role is Role.EXPERT)
                 for key, sizes in weights.layers)


def nominal_bits(precision: Precision | WeightFormat) -> float:
    """The bits per weight `stack` counts for a precision that is not a real format: a float one is 16 bits
    (fp32 32), a nominal integer one its bits; a real format's tensors carry their own bytes (16 unused)."""
    if isinstance(precision, WeightFormat) or (precision.is_float and precision is not Precision.FP32):
        return 16
    return float(precision.bits)


def stack(spec: ModelSpec, fmt: WeightFormat | None, *, group_size: int = DEFAULT_GROUP_SIZE,
          nominal_bits: float = 16) -> LayerBytes:
    """The model's weights in `fmt` (None: `nominal_bits` each) by layer; a custom model's tensors scaled
    to the total typed, as in `weights`."""
    weights = _stack(spec, fmt, group_size, nominal_bits)
    if spec.params_override is None:
        return weights
    scale = spec.params_override / count_params(spec, active=False)

    def scaled(sizes: tuple[float, ...]) -> tuple[int, ...]:
        return tuple(round(size * scale) for size in sizes)

    return LayerBytes(outside=tuple((t, round(size * scale)) for t, size in weights.outside), keys=weights.keys,
                 by_group=None if weights.by_group is None else {k: scaled(v) for k, v in weights.by_group.items()},
                 per_layer=None if weights.per_layer is None else tuple(map(scaled, weights.per_layer)))


@functools.lru_cache(maxsize=64)  # the solvers and charts estimate the same model dozens of times per update
def _stack(spec: ModelSpec, fmt: WeightFormat | None, group_size: int, nominal_bits: float) -> LayerBytes:
    if fmt is not None and fmt.file is not None:  # the file's own bytes, layer by layer
        placed, per_layer = spread(spec, fmt.file)
        return LayerBytes(outside=placed, keys=spec.layer_keys, per_layer=per_layer)
    if fmt is not None and fmt.kind == "gguf":
        if spec.planned_layers not in (0, spec.layers):  # another depth: the real model's average layer per group
            real = _stack(_planned(spec), fmt, group_size, nominal_bits)
            sums: dict[LayerKey, tuple[int, list[float]]] = {}  # each group's layers and their bytes summed
            for key, sizes in real.layers:
                count, totals = sums.get(key, (0, [0] * len(sizes)))
                sums[key] = (count + 1, [a + b for a, b in zip(totals, sizes, strict=True)])
            present = set(spec.layer_keys)  # a shallower variant may lack some of the real model's groups
            average = {key: tuple(total / count for total in totals) for key, (count, totals) in sums.items()
                       if key in present}
            return LayerBytes(outside=real.outside, keys=spec.layer_keys, by_group=average)
        outside, layers = _gguf_layers(spec, fmt.name)
        return LayerBytes(outside=tuple((t, size) for t, _, size in outside), keys=spec.layer_keys,
                     per_layer=tuple(tuple(size for _, _, size in typed) for _, typed in layers))
    size: Callable[[Tensor], float]
    if fmt is None:
        size = lambda t: math.ceil(t.numel * nominal_bits / 8)  # noqa: E731
    elif fmt.kind == "native":
        shares, _ = _native_shares(spec)
        size = lambda t: next((s.size(t) for s in shares if s.holds(t)), t.numel * BF16_BYTES)  # noqa: E731
    else:
        check_format(spec, fmt, group_size)
        quantises = quantised_by(fmt)
        size = lambda t: _gpu_bytes(t, fmt, group_size) if quantises(t) else t.numel * BF16_BYTES  # noqa: E731
    first, last = outside_tensors(spec)
    return LayerBytes(outside=tuple((t, size(t)) for t in (*first, *last)), keys=spec.layer_keys,
                 by_group={key: tuple(size(t) for t in layer_tensors(spec, index))
                           for key, index, _ in spec.layer_groups})


def weights(spec: ModelSpec, fmt: WeightFormat, *, group_size: int = DEFAULT_GROUP_SIZE) -> tuple[WeightShare, ...]:
    """The model's weights in `fmt`, as parts at each width (their bytes sum to the total)."""
    parts = _parts(spec, counted_tensors(spec), fmt, group_size)
    if spec.params_override is None:
        return parts
    # a custom model: its tensors are guessed from its widths, so scale them to the total typed
    scale = spec.params_override / sum(p.params for p in parts)
    return tuple(WeightShare(p.what, round(p.params * scale), round(p.bytes * scale)) for p in parts)


def check_format(spec: ModelSpec, fmt: WeightFormat, group_size: int = DEFAULT_GROUP_SIZE) -> None:
    """Raise ValidationError, naming the field, when `spec` cannot be stored in `fmt`."""
    if fmt.file is not None:
        return
    tensors = counted_tensors(spec)
    if fmt.kind == "native":
        _native(spec, tensors)
    if fmt.name in GROUPED:
        _check_group(tensors, group_size, quantised_by(fmt))
    if fmt.name in ("mxfp4", "nvfp4"):
        _check_blocks(tensors, 32 if fmt.name == "mxfp4" else 16, fmt.name, quantised_by(fmt))


def _parts(spec: ModelSpec, tensors: Counted, fmt: WeightFormat, group_size: int) -> tuple[WeightShare, ...]:
    if fmt.file is not None:  # what the file holds, by dtype
        return tuple(WeightShare(dtype, params, size) for dtype, params, size in fmt.file.by_dtype)
    if fmt.kind == "gguf":
        return _gguf(spec, fmt.name)
    if fmt.kind == "native":
        return _native(spec, tensors)
    check_format(spec, fmt, group_size)
    rest = phrase("weights.part.rest_attention") if fmt.mlp_only else REST
    if fmt.experts_kept:
        rest = phrase("weights.part.rest_experts", rest=rest)
    return _split(tensors, quantised_by(fmt), lambda t: _gpu_bytes(t, fmt, group_size),
                  phrase("weights.part.mlp" if fmt.mlp_only else "weights.part.linear"), rest)


def quantised_by(fmt: WeightFormat) -> Callable[[Tensor], bool]:
    """The tensors a GPU format converts: every linear layer's weight, or with `mlp_only` those of the MLPs and
    experts (a checkpoint that keeps attention in 16-bit: transformers' and vLLM's `modules_to_not_convert` or
    ignore list, as Meta's FP8 Llama 3.1 405B, which quantises only the MLPs); with `experts_kept` not the
    routed experts' stacked tensors (bitsandbytes converts `nn.Linear` modules only)."""
    converts = _mlp_linear if fmt.mlp_only else _is_linear
    if fmt.experts_kept:
        return lambda t: converts(t) and t.role is not Role.EXPERT
    return converts


def _mlp_linear(t: Tensor) -> bool:
    return _is_linear(t) and t.role is not Role.ATTENTION


def _is_linear(t: Tensor) -> bool:
    """A weight matrix of a linear layer (or a stack of expert matrices): what quantisers convert.
    Embeddings, the head, routers, norms, biases and convolutions stay in 16-bit."""
    return (t.role in (Role.ATTENTION, Role.MLP, Role.EXPERT, Role.SHARED_EXPERT) and t.name.endswith(".weight")
            and len(t.shape) in (2, 3) and "conv1d" not in t.name)


def _is_expert(t: Tensor) -> bool:
    return t.role is Role.EXPERT and t.name.endswith(".weight")


def _matrices(t: Tensor) -> tuple[int, int, int]:
    """(matrices, out, in): a 2-D weight is one matrix, a stacked expert tensor one per expert."""
    return (1, *t.shape) if len(t.shape) == 2 else t.shape  # type: ignore[return-value]


def _gpu_bytes(t: Tensor, fmt: WeightFormat, group: int) -> int:
    n, out, inp = _matrices(t)
    numel = n * out * inp
    name = fmt.name
    if name in GROUPED:
        groups = inp // group
        bits = 4 if name.endswith("int4") else 8
        packed = numel * bits // 8  # qweight
        scales = n * groups * out * 2  # fp16
        zeros = n * groups * out * bits // 8  # qzeros, packed like the weights
        g_idx = n * inp * 4 if name.startswith("gptq") else 0  # int32 group index per input channel
        return packed + scales + zeros + g_idx
    if name == "nf4":
        return numel // 2 + math.ceil(numel / 64) * 4
    if name == "nf4-dq":
        blocks = math.ceil(numel / 64)
        return numel // 2 + blocks + math.ceil(blocks / 256) * 4
    if name == "bnb-int8":
        return numel + n * out * 4
    if name == "fp8":
        return numel + 4
    if name == "fp8-block":
        return _fp8_block_bytes(t, 4)
    if name == "mxfp4":
        return _mxfp4_bytes(t)
    if name == INT4_EXPERTS:  # compressed-tensors pack-quantized: int4 packed in int32, a bf16 scale per 32 inputs
        # and each matrix's weight_shape (two int64)
        return numel // 2 + n * out * (inp // 32) * BF16_BYTES + n * 16
    if name == "nvfp4":
        return numel // 16 * 9 + 4
    return math.ceil(numel * fmt.bpw / 8)  # bpw:X.XX


def _fp8_block_bytes(t: Tensor, scale_bytes: int) -> int:
    """FP8 e4m3 values and one scale per 128 × 128 block: an fp32 (DeepSeek-V3's `weight_scale_inv`) or a
    ue8m0 byte (DeepSeek-V4's `.scale`, float8_e8m0fnu)."""
    n, out, inp = _matrices(t)
    return n * out * inp + n * math.ceil(out / FP8_BLOCK) * math.ceil(inp / FP8_BLOCK) * scale_bytes


def _mxfp4_bytes(t: Tensor) -> int:
    """Two 4-bit (e2m1) values a byte and one 8-bit (e8m0) scale per 32 along the input: 4.25 bits."""
    return t.numel // 32 * 17


REST = phrase("weights.part.rest")  # embeddings, head, norms, routers and biases in bf16


@dataclasses.dataclass(frozen=True)
class _Share:
    """A part of a checkpoint at one width: what it is in words, which tensors it holds, their bytes."""

    label: str | Phrase
    holds: Callable[[Tensor], bool]
    size: Callable[[Tensor], int]


def _split(tensors: Counted, quantise: Callable[[Tensor], bool], bytes_of: Callable[[Tensor], int],
           label: str | Phrase, rest_label: Phrase = REST) -> tuple[WeightShare, ...]:
    """`tensors` as (tensor, how many of it), counted_tensors."""
    return _shares(tensors, (_Share(label, quantise, bytes_of),), rest_label)


def _shares(tensors: Counted, shares: tuple[_Share, ...], rest_label: Phrase) -> tuple[WeightShare, ...]:
    """Each tensor in the first share that holds it, the others in bf16 (`rest_label`)."""
    params = [0] * (len(shares) + 1)
    sizes = [0] * (len(shares) + 1)
    for t, count in tensors:
        at = next((i for i, share in enumerate(shares) if share.holds(t)), len(shares))
        params[at] += t.numel * count
        sizes[at] += (shares[at].size(t) if at < len(shares) else t.numel * BF16_BYTES) * count
    labels = [share.label for share in shares] + [rest_label]
    return tuple(WeightShare(label, p, b) for label, p, b in zip(labels, params, sizes, strict=True) if p)


def _check_group(tensors: Counted, group: int, quantised: Callable[[Tensor], bool]) -> None:
    for t, _ in tensors:
        if quantised(t) and _matrices(t)[2] % group:
            raise ValidationError("group_size", group, f"must divide every quantised layer's input width "
                                                      f"({t.name} has {_matrices(t)[2]:,})")


def _check_blocks(tensors: Counted, block: int, name: str, quantised: Callable[[Tensor], bool]) -> None:
    for t, _ in tensors:
        if quantised(t) and _matrices(t)[2] % block:
            raise ValidationError("precision", name, f"{name} needs input widths divisible by {block} "
                                                     f"({t.name} has {_matrices(t)[2]:,})")


def _native(spec: ModelSpec, tensors: Counted) -> tuple[WeightShare, ...]:
    """The checkpoint as published, in parts (`_native_shares`)."""
    return _shares(tensors, *_native_shares(spec))


def _native_shares(spec: ModelSpec) -> tuple[tuple[_Share, ...], Phrase]:
    """How the preset's checkpoint stores its tensors (its `native_format`): the quantised parts and the label
    of the rest (bf16): gpt-oss's MXFP4 experts, the FP8 block and per-tensor checkpoints, Kimi K2.5's INT4
    experts, DeepSeek-V4's FP4 experts with FP8 blocks (`_fp4_fp8`)."""
    native = spec.native_format
    if native.startswith("MXFP4"):
        return (_Share(phrase("format.native_mxfp4"), _is_expert, _mxfp4_bytes),), phrase("weights.part.rest_mxfp4")
    if _fp8_per_tensor(native):
        fp8 = WeightFormat("fp8", "gpu", phrase("format.native_fp8_tensor"))
        return (_Share(fp8.label, _is_linear, lambda t: _gpu_bytes(t, fp8, 0)),), REST
    if native.startswith("FP8"):
        return (_Share(phrase("format.native_fp8_block"), _is_linear, lambda t: _fp8_block_bytes(t, 4)),), REST
    if native.startswith("INT4"):
        int4 = WeightFormat(INT4_EXPERTS, "gpu", phrase("format.native_int4_experts"))
        return (_Share(int4.label, _is_expert, lambda t: _gpu_bytes(t, int4, 0)),), phrase("weights.part.rest_int4")
    if native.startswith(FP4_EXPERTS):
        return _fp4_fp8()
    raise ValidationError("precision", "native", f"{spec.display_name} is published in 16-bit; it has no quantised "
                                                 "native format (choose bf16, a GGUF type or a GPU format)")


_V4_BF16 = re.compile(r"compressor_(kv|gate)\.|indexer\.proj\.")
_V4_FP32 = re.compile(r"hc_|attn_sinks\.|compressor_ape\.")


def _fp4_fp8() -> tuple[tuple[_Share, ...], Phrase]:
    """DeepSeek-V4's checkpoints as published, tensor by tensor (DeepSeek's inference/model.py, which vLLM's
    deepseek_v4.py and transformers 5.23's DeepseekV4 load alike): the routed experts in FP4 (`I8` [out, in/2]
    holding two e2m1 values, an `F8_E8M0` scale [out, in/32]: MXFP4's 4.25 bits); the other linear layers (q_a,
    q_b, kv, the grouped o_a, o_b, the indexer's q_b, the shared expert) FP8 e4m3 with one `F8_E8M0` scale per
    128 × 128 block; the compressors' kv and gate and the indexer's weights_proj bf16 ("stored in bf16", vLLM
    quant_config=None); the hyper-connections' fn, base and scale, the attention sinks and the compressors'
    position biases (ape) fp32; embeddings, head, norms and router bf16. Summed with the router's fp32 bias
    and the hash layers' I64 tid2eid (buffers, not counted here) and the MTP layer, this is the published
    model.safetensors.index.json total_size to the byte (tests/test_formats.py)."""
    experts = _Share(phrase("weights.part.fp4_experts"), _is_expert, _mxfp4_bytes)
    fp8 = _Share(phrase("weights.part.fp8_ue8m0"), lambda t: _is_linear(t) and not _V4_BF16.search(t.name),
                 lambda t: _fp8_block_bytes(t, 1))
    fp32 = _Share(phrase("weights.part.fp32_v4"), lambda t: bool(_V4_FP32.search(t.name)), lambda t: 4 * t.numel)
    return (experts, fp8, fp32), phrase("weights.part.rest_v4")


def _gguf_plan(spec: ModelSpec, tensors: Iterable[Tensor], ftype: str) -> list[tuple[GgufTensor, str]]:
    return quantize_plan(
        [GgufTensor(t.name, t.shape) for t in tensors], ftype,
        n_layer=spec.layers, n_expert=spec.num_experts, n_gqa=max(1, spec.heads // spec.kv_heads),
        arch="llama" if spec.model_type in ("llama", "") else spec.model_type,
        keep_experts="mxfp4" if keeps_mxfp4_experts(spec) else None,
    )


_Typed = tuple[Tensor, str, int]  # a tensor, its ggml type, its bytes
_LayerTypes = tuple[LayerKey, tuple[tuple[str, int, int], ...]]  # a layer: its tensors' ggml type, params, bytes


@functools.lru_cache(maxsize=64)
def _gguf_layers(spec: ModelSpec, ftype: str) -> tuple[tuple[_Typed, ...], tuple[_LayerTypes, ...]]:
    """llama-quantize's plan for the model's file: each tensor outside the layers as (tensor, ggml type,
    bytes), and each layer as its group key and its tensors' (ggml type, parameters, bytes)."""
    tensors = model_tensors(spec)
    typed: list[_Typed] = [(t, ggml_type, tensor_bytes(g, ggml_type))
             for t, (g, ggml_type) in zip(tensors, _gguf_plan(spec, tensors, ftype), strict=True)]
    first, _ = outside_tensors(spec)
    lengths = {key: len(layer_tensors(spec, index)) for key, index, _ in spec.layer_groups}
    layers: list[_LayerTypes] = []
    at = len(first)
    for key in spec.layer_keys:
        layers.append((key, tuple((ggml_type, t.numel, size) for t, ggml_type, size in typed[at:at + lengths[key]])))
        at += lengths[key]
    return (*typed[:len(first)], *typed[at:]), tuple(layers)


def _planned(spec: ModelSpec) -> ModelSpec:
    """The real model a variant of another depth was made from (solve.scaled_depth), unscaled."""
    return dataclasses.replace(spec.with_layers(spec.planned_layers), planned_layers=0, params_override=None)


def _gguf(spec: ModelSpec, ftype: str) -> tuple[WeightShare, ...]:
    """The GGUF file's tensor data, as llama-quantize builds it, grouped by ggml type; for a variant of
    another depth, each of its layers holds the real model's average layer of its group."""
    by_type: dict[str, list[float]] = {}

    def add(ggml_type: str, params: float, nbytes: float) -> None:
        entry = by_type.setdefault(ggml_type, [0, 0])
        entry[0] += params
        entry[1] += nbytes

    real = _planned(spec) if spec.planned_layers not in (0, spec.layers) else spec
    outside, layers = _gguf_layers(real, ftype)
    for tensor, ggml_type, size in outside:
        add(ggml_type, tensor.numel, size)
    depth = {key: count for key, _, count in spec.layer_groups}
    planned = {key: count for key, _, count in real.layer_groups}
    for key, typed in layers:
        for ggml_type, params, size in typed:
            add(ggml_type, params * depth.get(key, 0) / planned[key], size * depth.get(key, 0) / planned[key])
    order = sorted(by_type.items(), key=lambda item: -item[1][0])
    return tuple(WeightShare(ggml_type, round(params), round(nbytes)) for ggml_type, (params, nbytes) in order
                 if round(params))


def describe(parts: tuple[WeightShare, ...]) -> Formula:
    """'expert FFNs in MXFP4 (4.25 bits): 19.1B at 4.25 bpw; embeddings, …: 1.8B at 16 bpw'."""
    return join("; ", (phrase("weights.share", what=p.what, params=format_count(p.params), bits=f"{p.bits:.3g}")
                       for p in parts))
