"""A transcription's time: Whisper hears `audio_seconds` in 30 s windows (model/families/speech.py), and for each
group of windows the engine runs at once it runs the encoder once, then the decoder a token a step.

- Encoder, per window: 1,500 frames through its layers (2 FLOPs a weight a frame, attention 4·frames²·h a layer), the
  two convolutions over 3,000 and 1,500 frames, and each decoder layer's cross-attention K and V of those frames;
  compute-bound, at the engine's share of the card's dense rate for its kernel: CTranslate2's float16 GEMMs
  accumulate in FP16 (src/cuda/primitives.cu, CT2_CUDA_TRUE_FP16_GEMM on by default) and its int8 ones in int32
  on the int8 tensor cores, as do whisper.cpp's cuBLAS calls (FP16-accumulate); PyTorch's at the 16-bit rate.
- Decoder, `tokens` steps a group: each reads the decoder's weights once for all its rows (windows × beams: the
  self-attention, cross-attention's q and output, the MLP, the head), the cross-attention K and V (once a window;
  per row in transformers, which repeats the encoder output per beam) and the self-attention cache at its mean
  depth, at the engine's share of the bandwidth, or its FLOPs if slower, plus the engine's fixed cost a layer.
faster-whisper with batch > 1 is its BatchedInferencePipeline (batch windows of one audio at once, a four-token
prompt); one window at a time, faster-whisper and whisper.cpp put up to 223 earlier tokens in the prompt;
transformers' batch is that many audios, their windows decoded together."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..core.choices import Runtime
from ..core.dtypes import Precision
from ..memory.components import Breakdown
from ..model.families.speech import MEL_FRAMES, PROMPT_TOKENS, windows
from .hardware import Device, calibration, engine_rates, layer_overhead
from .inference import bandwidth_share, compute_share

TYPICAL_TOKENS = 120  # tokens a 30 s window writes without `window_tokens`: ~150 words a minute, and timestamps


@dataclasses.dataclass(frozen=True, kw_only=True)
class Transcription:
    seconds: float  # the whole audio (transformers: each of its `batch` audios, heard together)
    audio: float  # seconds of audio transcribed in that time
    windows: int
    groups: int  # encoder passes: windows run at once
    rows: int  # decoder rows of a full group: windows × beams
    tokens: int  # written per window
    encode_s: float
    decode_s: float
    host_s: float  # the audio decoded and its log-mel spectrogram computed on the CPU
    step_s: float  # a full group's mean decoder step
    fixed_s: float  # of which the engine's fixed cost
    flops: float  # the encoder's per window
    kernel: str
    peak: float
    share: float


def kernel(breakdown: Breakdown, card: Device) -> str:
    """The encoder's matmul rate, where the card has it: int8 tensor cores for CTranslate2's int8, FP16 accumulation
    (a GeForce card's) for CTranslate2's float16 and whisper.cpp, the FP32 units' for fp32 weights (no TF32), else the
    16-bit rate."""
    workload = breakdown.workload
    if workload.precision is Precision.FP32:
        return "fp32"
    fw = workload.runtime is Runtime.FASTER_WHISPER
    if fw and workload.precision is Precision.INT8 and "int8" in card.flops:
        return "int8"
    acc16 = workload.runtime is Runtime.LLAMACPP or (fw and workload.precision is Precision.FP16)
    return "fp16-acc16" if acc16 and "fp16-acc16" in card.flops else "16-bit"


def transcription(breakdown: Breakdown, card: Device, fitted: Mapping[str, Any] | None = None) -> Transcription | None:
    """The time to transcribe the workload's audio on `card` (None: its compute is unknown), at data/speed.json's
    "speech" rates or `fitted` ones (tools/validate_speech_speed.py)."""
    workload, model = breakdown.workload, breakdown.workload.model
    speech = model.speech
    assert speech is not None and card.bandwidth is not None
    rates = engine_rates(workload.runtime)
    which = kernel(breakdown, card)
    peak, half = card.compute(which), card.compute("fp32" if which == "fp32" else "16-bit")
    if not peak or not half:
        return None
    share = compute_share(rates, card, which)
    h, layers, frames, tokens = model.hidden, model.layers, speech.frames, workload.window_tokens or TYPICAL_TOKENS
    count, beams = windows(workload.audio_seconds), workload.beams
    batched = workload.runtime is Runtime.FASTER_WHISPER and workload.batch > 1
    audios = workload.batch if workload.runtime is Runtime.TRANSFORMERS else 1
    per_group = min(workload.batch, count) if batched else audios
    sequential = workload.runtime is not Runtime.TRANSFORMERS and not batched  # the previous text in the prompt
    prompt = PROMPT_TOKENS + (min(223, tokens) if sequential and count > 1 else 0)
    step_params = layers * (6 * h * h + 2 * h * model.ffn) + model.vocab * h
    per_byte = breakdown.bytes_of("weights") / breakdown.params  # bytes a weight, on average
    e = 4 if workload.precision is Precision.FP32 else 2
    flops = (2 * frames * (speech.layers * (4 * h * h + 2 * h * speech.ffn) + layers * 2 * h * h)
             + speech.layers * 4 * frames * frames * h + 6 * h * (speech.mels * MEL_FRAMES + h * frames))
    bandwidth = bandwidth_share(rates, card, workload.precision) * card.bandwidth
    gathers = {Runtime.FASTER_WHISPER: 1, Runtime.TRANSFORMERS: 2}.get(workload.runtime, 0)
    native = workload.runtime in (Runtime.FASTER_WHISPER, Runtime.LLAMACPP)  # CTranslate2's, whisper.cpp's loops
    fitted = fitted or calibration()["speech"]
    fixed = layers * (float(fitted["layer_s"]) if native else layer_overhead(rates, card))
    dense = compute_share(rates, card, "16-bit") * half

    def group(n: int) -> tuple[float, float, float]:
        """(encode, decode, mean step) of n windows run at once."""
        rows = n * beams
        depth = prompt + tokens / 2
        own = rows * 2 * layers * depth * h * e  # the self-attention cache
        cross = (rows if workload.runtime is Runtime.TRANSFORMERS else n) * 2 * layers * frames * h * e
        # beam search reorders the cache each step (read and written): CTranslate2 the self-attention's
        # (decoder.cc update_state), transformers both (EncoderDecoderCache.reorder_cache)
        moved = 0 if beams == 1 or not gathers else 2 * (own + (cross if gathers > 1 else 0))
        read = (step_params * per_byte + cross + own + moved) / bandwidth
        compute = rows * (2 * step_params + 4 * h * layers * (frames + depth)) / dense
        step = max(read, compute) + fixed
        return (n * flops + 2 * n * prompt * step_params) / (share * peak), tokens * step, step

    full, rest = divmod(count, per_group) if batched else (count, 0)
    parts = [(full, group(per_group))] + ([(1, group(rest))] if rest else [])
    encode = sum(k * part[0] for k, part in parts)
    decode = sum(k * part[1] for k, part in parts)
    audio = float(audios * workload.audio_seconds)
    host = audio * float(fitted["host_s"])
    return Transcription(seconds=encode + decode + host, host_s=host, audio=audio, windows=count,
                         groups=full + (1 if rest else 0), rows=per_group * beams, tokens=tokens, encode_s=encode,
                         decode_s=decode, step_s=parts[0][1][2], fixed_s=fixed, flops=flops, kernel=which, peak=peak,
                         share=share)


__all__ = ["TYPICAL_TOKENS", "Transcription", "kernel", "transcription"]
