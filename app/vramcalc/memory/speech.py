"""A speech encoder-decoder transcribing (Whisper): its weights, the encoder over 30 s windows and the decoder's
self-attention and cross-attention KV for every beam of every window, as each runtime holds them
(model/families/speech.py has the formulas and their sources)."""

from __future__ import annotations

from ..core.choices import Attention
from ..core.errors import ValidationError
from ..core.phrase import phrase
from ..core.units import format_binary
from ..formats.ggml_types import GGML_TYPES
from ..formats.weights import WeightFormat
from ..model.families.speech import MEL_FRAMES, transformers_peaks, whisper_cpp_buffers, whisper_cpp_caches, windows
from ..model.table import counted_tensors
from ..workload import Workload
from .components import Component, no_component, overhead_bytes
from .states import gradients_bytes, master_weights_bytes, optimizer_state_bytes, weights_bytes


def transformers_components(workload: Workload) -> tuple[Component, ...]:
    """WhisperForConditionalGeneration.generate (measured: `transformers_peaks`): the larger of the encoder's
    moment and the decoder's, the decoder's KV cache at its last token, and the log-mel features of every window of
    the batch's audio on the device."""
    model = workload.model
    speech = model.speech
    assert speech is not None
    e = int(workload.activation_precision.bits) // 8
    tokens = model.max_positions or model.learned_positions
    encode, decode, kv = transformers_peaks(speech, model.hidden, model.layers, model.vocab, e=e,
                                            eager=workload.attention is Attention.EAGER, batch=workload.batch,
                                            beams=workload.beams, tokens=tokens)
    count = windows(workload.audio_seconds)
    features = workload.batch * speech.mels * MEL_FRAMES * count * e
    peak = max(encode, decode)
    activations = peak - kv + features
    rows = workload.batch * workload.beams
    return (weights_bytes(workload), gradients_bytes(workload), optimizer_state_bytes(workload),
            master_weights_bytes(workload),
            Component(key="kv_cache", bytes=kv, explain=lambda: phrase(
                "kv_cache.speech", rows=rows, layers=model.layers, frames=f"{speech.frames:,}", tokens=tokens,
                bytes=format_binary(kv))),
            Component(key="activations", bytes=activations, explain=lambda: phrase(
                "activations.speech", batch=workload.batch, beams=workload.beams, encode=format_binary(encode),
                decode=format_binary(decode), windows=count, features=format_binary(features),
                bytes=format_binary(activations))),
            no_component("logits", "logits.speech"), no_component("temporaries", "temporaries.inference"),
            overhead_bytes(workload))


def whisper_cpp_weight_type(workload: Workload) -> str:
    """The ggml type of whisper.cpp's matrices: a model file quantized to one type (whisper-quantize), or f16/f32."""
    fmt = workload.precision
    name = fmt.name if isinstance(fmt, WeightFormat) else ("f32" if fmt.value == "fp32" else "f16")
    if name not in GGML_TYPES or name == "bf16":
        raise ValidationError("precision", name, "whisper.cpp's model files are f32, f16 or one quantized ggml type "
                                                 "(q8_0, q5_0, q5_1, q4_0, q4_1, q2_k to q6_k)")
    return name


def whisper_cpp_components(workload: Workload, overhead: Component) -> tuple[Component, ...]:
    """whisper.cpp (src/whisper.cpp whisper_model_load, whisper_init_state): the matrices and the token embedding in
    the file's type, the convolutions in F16 (F32 in an f32 file), the position tables, norms and biases in F32;
    kv_self, kv_cross and kv_pad in F16 (`whisper_cpp_caches`); its four compute buffers (conv, encode, cross,
    decode: `whisper_cpp_buffers`) on the GPU, with flash attention or without (-nfa)."""
    model = workload.model
    speech = model.speech
    assert speech is not None
    wtype = whisper_cpp_weight_type(workload)
    conv = "f32" if wtype == "f32" else "f16"

    def size(name: str, shape: tuple[int, ...], numel: int) -> int:
        kind = "f32" if len(shape) == 1 or "position_embd" in name else conv if len(shape) == 3 else wtype
        values, nbytes = GGML_TYPES[kind]
        return -(-numel // values) * nbytes

    weights = sum(size(t.name, t.shape, t.numel) * count for t, count in counted_tensors(model))  # a layer a kind
    text_ctx = model.max_positions or model.learned_positions
    kv_self, kv_cross, kv_pad = whisper_cpp_caches(speech, model.hidden, model.layers, text_ctx, workload.beams)
    kv = kv_self + kv_cross + kv_pad
    flash = workload.attention is Attention.FLASH  # whisper.cpp's default (whisper_context_default_params)
    buffers = whisper_cpp_buffers(speech, model.hidden, text_ctx, model.vocab, flash=flash)
    compute = sum(buffers)
    return (Component(key="weights", bytes=weights, explain=lambda: phrase(
                "weights.whisper_cpp", type=wtype, conv=conv, bytes=format_binary(weights))),
            gradients_bytes(workload), optimizer_state_bytes(workload), master_weights_bytes(workload),
            Component(key="kv_cache", bytes=kv, explain=lambda: phrase(
                "kv_cache.whisper_cpp", self_bytes=format_binary(kv_self), cross=format_binary(kv_cross),
                pad=format_binary(kv_pad), beams=workload.beams, bytes=format_binary(kv))),
            Component(key="activations", bytes=compute, explain=lambda: phrase(
                "activations.whisper_cpp", flash="on" if flash else "off",
                **dict(zip(("conv", "encode", "cross", "decode"), map(format_binary, buffers), strict=True)),
                bytes=format_binary(compute))),
            no_component("logits", "logits.speech"),
            no_component("temporaries", "temporaries.inference"), overhead)
