"""faster-whisper 1.2 on CTranslate2 4.x (a CUDA card): a Whisper model transcribing, window after window
(WhisperModel.transcribe) or `batch` windows at once (BatchedInferencePipeline). Read from their sources
(SYSTRAN/faster-whisper faster_whisper/transcribe.py, OpenNMT/CTranslate2 src/models/model.cc, src/models/whisper.cc,
src/decoding.cc, src/layers/decoder.cc, src/layers/transformer.cc, src/layers/attention.cc); not measured here, so
the working memory and the CUDA context are approximate (docs/accuracy.md). The tokens a window writes and whether
it falls back depend on the audio: the worst case unless `window_tokens` and `no_fallback` say otherwise."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.choices import Runtime
from ..core.dtypes import Precision
from ..core.errors import ValidationError
from ..core.option import Kind, Option, optional, parse_flag, parse_int
from ..core.phrase import phrase
from ..core.units import format_binary
from ..formats import weights as formats
from ..formats.weights import WeightFormat
from ..memory.components import Component, given_overhead, no_component
from ..memory.states import gradients_bytes, master_weights_bytes, optimizer_state_bytes
from ..model.families.decoder.spec import ModelSpec
from ..model.families.speech import windows
from ..model.table import counted_tensors
from ..parallel.layout import Layout
from ..sources.gpus import GpuKind
from ..workload import Workload
from .base import EngineBreakdown, NoPool, pytorch_overhead, refuse_training
from .cards import CardRule

BEST_OF = 5  # transcribe(best_of=5): the temperature fallback samples 5 hypotheses (num_hypotheses)
MAX_LENGTH = 448  # WhisperModel.max_length: the prompt and the tokens written, per window
# faster-whisper's compute_type for each precision: "int8" on a model saved in float16 (Systran's conversions)
# runs int8_float16 (CTranslate2 docs/quantization.md: non-quantized layers keep the saved float type)
COMPUTE_TYPES = {Precision.FP16: "float16", Precision.BF16: "bfloat16", Precision.FP32: "float32",
                 Precision.INT8: "int8_float16"}

_SHOWN = {"runtime": ("faster-whisper",), "mode": ("speech",)}
OPTIONS = (
    Option(key="window_tokens", default="", group="engine", metavar="N", shown_when=_SHOWN,
           help=f"faster-whisper: the tokens the decoder writes for each 30 s window (default: the most it may, "
                f"{MAX_LENGTH // 2}: the worst case)",
           parse=optional(lambda t: parse_int("window_tokens", t, 1, MAX_LENGTH // 2))),
    Option(key="no_fallback", default="0", group="engine", kind=Kind.FLAG, shown_when=_SHOWN,
           help="faster-whisper, one window at a time: temperature=0, beam search only (by default the temperature "
                "fallback's best_of 5 samples, each with its own cross-attention, are counted: the worst case)",
           parse=lambda t: parse_flag("no_fallback", t)),
)


def ct2_weights_bytes(model: ModelSpec, precision: Precision) -> int:
    """CTranslate2's variables on a CUDA card (model.cc Model::set_compute_type): every 2-D "weight" (the linear
    layers and the token embedding, which the head shares: model_spec.py aliases equal variables) in the weight
    type, int8 with a float32 scale per row (`weight_scale`, quantize.cc); the convolutions in the float type
    ("quantized convolution is not supported" on CUDA); the position tables (`encodings`), LayerNorms (gamma,
    beta) and biases in the float type."""
    e = 4 if precision is Precision.FP32 else 2
    total = 0
    for tensor, count in counted_tensors(model):  # one layer of each kind: the solvers ask this of deep models
        quantized = precision is Precision.INT8 and len(tensor.shape) == 2 and "position_embd" not in tensor.name
        total += (tensor.numel + 4 * tensor.shape[0] if quantized else tensor.numel * e) * count
    return total


def padded_vocab(model: ModelSpec, precision: Precision) -> int:
    """The output layer's rows once WhisperReplica::generate calls update_output_layer(preferred_size_multiple):
    8 for float16 and bfloat16, 16 for int8 on a card with tensor cores (types.cc get_preferred_size_multiple;
    every CUDA card here has them), 1 for float32."""
    multiple = {Precision.FP32: 1, Precision.INT8: 16}.get(precision, 8)
    return -(-model.vocab // multiple) * multiple


def output_copy_bytes(model: ModelSpec, precision: Precision) -> int:
    """A vocabulary that is not a multiple of the preferred size (51,865 or 51,866 for Whisper) is padded:
    layers/decoder.cc update_output_layer gathers the output layer's weight (and int8 scales) into
    `_partial_weight` for the padded rows, with a bias of -1e10 on the padding, and keeps it beside the weights."""
    rows = padded_vocab(model, precision)
    if rows == model.vocab:
        return 0
    e = 4 if precision is Precision.FP32 else 2
    weight = rows * model.hidden + 4 * rows if precision is Precision.INT8 else rows * model.hidden * e
    return weight + rows * e


def batched(workload: Workload) -> bool:
    """batch > 1 is BatchedInferencePipeline.transcribe(batch_size=batch): the windows decoded together, with
    beam search only (`temperatures=temperature[:1]`: no fallback), no previous text (condition_on_previous_text
    False) and without_timestamps=True."""
    return workload.batch > 1


def decoder_positions(workload: Workload) -> int:
    """The self-attention cache's positions at a window's last step (transcribe.py get_prompt; CTranslate2
    models/whisper.cc generate, which forwards the prompt but its last token and decodes at most
    min(max_length / 2, max_length - start_step) steps, writing a token a step). Batched: <|startoftranscript|>,
    the language, the task and <|notimestamps|>. One at a time (condition_on_previous_text, timestamps): past
    the first window, <|startofprev|> and up to max_length / 2 - 1 = 223 earlier tokens before the three. The
    decoder writes `window_tokens`, or as many as it may (the worst case: a hallucination loop does)."""
    written = workload.window_tokens or MAX_LENGTH // 2
    if batched(workload):
        prompt = 4
    else:
        previous = min(MAX_LENGTH // 2 - 1, written * (windows(workload.audio_seconds) - 1))
        prompt = 3 + (1 + previous if previous else 0)
    start = prompt - 1
    return start + min(written + 1, MAX_LENGTH // 2, MAX_LENGTH - start)


def fallback_counted(workload: Workload) -> bool:
    """The temperature fallback runs one window at a time (WhisperModel.transcribe) unless `no_fallback`."""
    return not workload.no_fallback and not batched(workload)


def encoder_per_frame(model: ModelSpec, e: int, *, int8: bool) -> int:
    """Bytes per frame of an encoder layer at its peak (layers/transformer.cc, attention.cc): the hidden states,
    their LayerNorm, the fused qkv, q, k and v split per head, the scores (softmax in place) and the context:
    9·h + heads·frames; or the MLP's input, LayerNorm, inner and output: 3·h + ffn. int8 adds a linear's int8
    input and int32 output."""
    speech = model.speech
    assert speech is not None
    h = model.hidden
    size = e * max(9 * h + speech.heads * speech.frames, 3 * h + speech.ffn)
    return size + (max(h, speech.ffn) + 4 * max(3 * h, speech.ffn) if int8 else 0)


def ct2_peaks(workload: Workload) -> tuple[int, int, int, bool]:
    """(the encoder's moment, the decoder's caches, the decoder's other tensors, whether the fallback is the
    larger): beam search keeps the cross-attention K and V once per window (TransformerDecoder::replicate_state:
    "the same for each beam") and self-attention K and V per beam; the temperature fallback samples best_of
    hypotheses, and decoding.cc repeats the whole state for them, the encoder output too, so each has its own
    cross-attention. The self-attention cache reaches `decoder_positions`."""
    model = workload.model
    speech = model.speech
    assert speech is not None
    precision = workload.precision
    assert isinstance(precision, Precision)
    e = 4 if precision is Precision.FP32 else 2
    batch = min(workload.batch, windows(workload.audio_seconds))
    h, frames, tokens, layers = model.hidden, speech.frames, decoder_positions(workload), model.layers
    one = frames * h * e  # a window's encoder output, or one layer's cross K
    encode = batch * (speech.mels * 2 * frames * e + frames * encoder_per_frame(
        model, e, int8=precision is Precision.INT8))
    vocab = padded_vocab(model, precision)

    def decoder(cross_rows: int, rows: int) -> tuple[int, int]:
        kv = 2 * layers * (cross_rows * one + rows * tokens * h * e)
        return kv, (batch + (cross_rows if cross_rows > batch else 0)) * one + 2 * rows * vocab * 4

    beam = decoder(batch, batch * workload.beams)
    fallback = decoder(batch * BEST_OF, batch * BEST_OF) if fallback_counted(workload) else (0, 0)
    kv, other = max(beam, fallback, key=sum)
    return encode, kv, other, sum(fallback) > sum(beam)


class FasterWhisper(NoPool):
    """faster-whisper: CTranslate2's Whisper, weights in its compute type, caches as its decoder grows them."""

    options = OPTIONS
    runtime = Runtime.FASTER_WHISPER
    kv_formats: tuple[Precision, ...] = ()
    weight_ladder = ("fp16", "int8")
    kv_ladder = (Precision.FP16,)
    card_rules: tuple[CardRule, ...] = ()  # every format it offers runs on every card it runs on
    batch_key = "batch"
    max_batch: int | None = None
    rank_overhead_bytes = 0
    keeps_activation_peak_whole = False

    def default_overhead(self, fields: Mapping[str, object]) -> int:
        return pytorch_overhead(fields)

    def check(self, workload: Workload) -> None:
        refuse_training(workload)
        if not workload.transcribes:
            raise ValidationError("runtime", "faster-whisper", "faster-whisper transcribes with a Whisper model: "
                                                               "choose one and the speech mode")
        if workload.tp or workload.pp:
            raise ValidationError("tp", workload.tp or workload.pp, "faster-whisper runs a whole model on each GPU")
        card = workload.gpu
        if card is not None and (card.kind is GpuKind.APPLE or card.display_name.startswith("AMD")):
            raise ValidationError("runtime", "faster-whisper", f"CTranslate2 runs on NVIDIA GPUs (CUDA) only: on "
                                  f"{card.display_name} it runs on the CPU; choose whisper.cpp (runtime llamacpp)")

    def run_format(self, model: ModelSpec, precision: Precision | WeightFormat, *,
                   training: bool) -> Precision | WeightFormat:
        """compute_type: "default" keeps the saved type, float16 in Systran's conversions; float16, bfloat16,
        float32 or int8 (int8_float16 on those files)."""
        if precision in (formats.AUTO, formats.NATIVE):
            return Precision.FP16
        if precision not in COMPUTE_TYPES:
            raise ValidationError("precision", getattr(precision, "value", str(precision)),
                                  "faster-whisper's compute types: fp16 (float16), bf16, fp32, int8 (int8_float16)")
        return precision

    def notes(self, workload: Workload) -> tuple[str, ...]:
        return ("note.faster_whisper",)

    def command(self, workload: Workload, layout: Layout, model: str) -> tuple[str, ...]:
        precision = workload.precision
        assert isinstance(precision, Precision)
        compute = "int8" if precision is Precision.INT8 else COMPUTE_TYPES[precision]
        line = f'model = WhisperModel("{model}", device="cuda", compute_type="{compute}")'
        if workload.batch > 1:
            batched = (f'BatchedInferencePipeline(model).transcribe("audio.wav", beam_size={workload.beams}, '
                       f"batch_size={workload.batch})")
            return (line, batched)
        greedy = ", temperature=0" if workload.no_fallback else ""  # a single temperature: no fallback
        return (line, f'model.transcribe("audio.wav", beam_size={workload.beams}{greedy})')

    def default_layout(self, model: ModelSpec, gpus: int, *, training: bool) -> Layout:
        return Layout(dp=gpus)

    def breakdown(self, workload: Workload) -> EngineBreakdown:
        model = workload.model
        speech = model.speech
        assert speech is not None
        precision = workload.precision
        assert isinstance(precision, Precision)
        stored, copy = ct2_weights_bytes(model, precision), output_copy_bytes(model, precision)
        weights = stored + copy
        encode, kv, other, fallback = ct2_peaks(workload)
        activations = max(encode, kv + other) - kv
        batch = min(workload.batch, windows(workload.audio_seconds))
        rows = batch * (BEST_OF if fallback else workload.beams)
        compute = COMPUTE_TYPES[precision]
        return EngineBreakdown(components=(
            Component(key="weights", bytes=weights, explain=lambda: phrase(
                "faster_whisper.weights_padded" if copy else "faster_whisper.weights", compute=compute,
                stored=format_binary(stored),
                rows=f"{padded_vocab(model, precision):,}", copy=format_binary(copy), bytes=format_binary(weights))),
            gradients_bytes(workload), optimizer_state_bytes(workload), master_weights_bytes(workload),
            Component(key="kv_cache", bytes=kv, explain=lambda: phrase(
                "faster_whisper.kv_cache", layers=model.layers, frames=f"{speech.frames:,}",
                cross=batch * BEST_OF if fallback else batch, rows=rows, tokens=decoder_positions(workload),
                path=phrase("faster_whisper.fallback" if fallback else "faster_whisper.beams", best_of=BEST_OF,
                            beams=workload.beams),
                case=phrase("faster_whisper.given" if workload.window_tokens else "faster_whisper.worst",
                            written=workload.window_tokens or MAX_LENGTH // 2,
                            fallback=phrase("faster_whisper.batched" if batched(workload) else
                                            "faster_whisper.no_fallback" if workload.no_fallback else
                                            "faster_whisper.with_fallback", best_of=BEST_OF)),
                bytes=format_binary(kv))),
            Component(key="activations", bytes=activations, explain=lambda: phrase(
                "faster_whisper.activations", batch=batch, encode=format_binary(encode),
                decode=format_binary(other), bytes=format_binary(activations))),
            no_component("logits", "logits.speech"),
            no_component("temporaries", "temporaries.inference"),
            given_overhead(workload, workload.held_bytes, "faster-whisper", pytorch_overhead(vars(workload)),
                           lambda: phrase("faster_whisper.overhead", bytes=format_binary(workload.overhead_bytes))),
        ))



ENGINE = FasterWhisper()
