"""A speech encoder-decoder (Whisper: transformers' WhisperForConditionalGeneration, modeling_whisper.py): the audio
encoder beside the text decoder that the `ModelSpec` describes. The encoder's tensors join `outside_tensors`
(decoder/tensors.py) and each decoder layer has its cross-attention, so `param_count` is the whole model."""

from __future__ import annotations

import dataclasses

from ..tensor import Role, Tensor

WINDOW_SECONDS = 30  # WhisperFeatureExtractor's chunk_length: every window is 30 s, padded (3,000 mel frames)
MEL_FRAMES = 3000  # 100 frames a second (hop_length 160 at 16 kHz); conv2's stride 2 leaves max_source_positions


@dataclasses.dataclass(frozen=True)
class Speech:
    family: str  # the config's model_type: whisper
    mels: int  # num_mel_bins: the channels conv1 reads
    layers: int  # encoder_layers
    heads: int  # encoder_attention_heads
    ffn: int  # encoder_ffn_dim
    frames: int  # max_source_positions: the encoder's tokens per window (1500), and its position table's rows


def _linear(name: str, out: int, inp: int, role: Role, bias: bool) -> list[Tensor]:
    return [Tensor(f"{name}.weight", (out, inp), role)] + ([Tensor(f"{name}.bias", (out,), Role.BIAS)] if bias else [])


def _norm(name: str, h: int) -> list[Tensor]:
    return [Tensor(f"{name}.weight", (h,), Role.NORM), Tensor(f"{name}.bias", (h,), Role.NORM)]


def _attention(p: str, h: int) -> list[Tensor]:
    """WhisperAttention: q, v and out_proj with biases, k_proj without."""
    return (_linear(p + "q", h, h, Role.ATTENTION, True) + _linear(p + "k", h, h, Role.ATTENTION, False)
            + _linear(p + "v", h, h, Role.ATTENTION, True) + _linear(p + "output", h, h, Role.ATTENTION, True))


def _mlp(p: str, h: int, ffn: int) -> list[Tensor]:
    return _linear(p + "ffn_up", ffn, h, Role.MLP, True) + _linear(p + "ffn_down", h, ffn, Role.MLP, True)


def encoder_tensors(speech: Speech, h: int) -> list[Tensor]:
    """WhisperEncoder: conv1 (mels -> h, kernel 3) and conv2 (h -> h, kernel 3, stride 2) with biases, the
    position table (an nn.Embedding of max_source_positions rows, frozen but a parameter), the layers
    (WhisperEncoderLayer: self-attention and a GELU MLP, two LayerNorms) and the final LayerNorm."""
    tensors = [Tensor("enc.conv1.weight", (h, speech.mels, 3), Role.ATTENTION),
               Tensor("enc.conv1.bias", (h,), Role.BIAS), Tensor("enc.conv2.weight", (h, h, 3), Role.ATTENTION),
               Tensor("enc.conv2.bias", (h,), Role.BIAS),
               Tensor("enc.position_embd.weight", (speech.frames, h), Role.EMBEDDING)]
    for index in range(speech.layers):
        p = f"enc.blk.{index}."
        tensors += (_norm(p + "attn_norm", h) + _attention(p + "attn_", h) + _norm(p + "ffn_norm", h)
                    + _mlp(p, h, speech.ffn))
    return tensors + _norm("enc.output_norm", h)


def decoder_layer_tensors(p: str, h: int, ffn: int) -> list[Tensor]:
    """WhisperDecoderLayer: self-attention, cross-attention over the encoder's output (encoder_attn), a GELU MLP,
    each after its LayerNorm."""
    return (_norm(p + "attn_norm", h) + _attention(p + "attn_", h) + _norm(p + "cross_attn_norm", h)
            + _attention(p + "cross_attn_", h) + _norm(p + "ffn_norm", h) + _mlp(p, h, ffn))


PROMPT_TOKENS = 4  # <|startoftranscript|><|lang|><|transcribe|><|notimestamps|>: the decoder's first input


def windows(seconds: int) -> int:
    """The 30 s windows an audio of `seconds` is heard in."""
    return -(-seconds // WINDOW_SECONDS)


def encoder_per_frame(speech: Speech, h: int, e: int, *, eager: bool) -> int:
    """Bytes per frame of WhisperEncoder's forward at its peak (a layer after the stem), as measured
    (tools/measure_speech.py): the stem's GELU output (inputs_embeds, alive through the forward), the hidden states
    and the residual's LayerNorm beside either the MLP (fc1 and its GELU: 2·ffn) or the attention: SDPA's q, k, v
    made contiguous, its output and the transposed copy; eager's scores and their scaled copy per head (2·heads·frames)
    with q, k, v; eager's probabilities stay alive through the layer's MLP."""
    mlp = 2 * speech.ffn + 4 * h + (speech.heads * speech.frames if eager else 0)
    attention = 2 * speech.heads * speech.frames + 6 * h if eager else 8 * h
    return e * max(mlp, attention)


def transformers_peaks(speech: Speech, h: int, layers: int, vocab: int, *, e: int, eager: bool, batch: int,
                       beams: int, tokens: int, prompt: int = PROMPT_TOKENS) -> tuple[int, int, int]:
    """(the encoder's peak, the decoder's peak, the KV cache at the decoder's end), in bytes above the weights and the
    input features, of WhisperForConditionalGeneration.generate over `batch` windows with `beams` beams, the decoder
    reaching `tokens` tokens, computing in `e` bytes (measured: tools/measure_speech.py, tests/golden/speech.json).

    generate first copies the batch's features (the segment it cuts, `cat`), then the encoder runs
    (`encoder_per_frame`, and its positions' arange). The decoder holds the encoder's output repeated per beam
    (_expand_inputs_for_generation), the cross-attention K and V of every layer (EncoderDecoderCache: 1500 frames,
    computed at the first step), and the self-attention K and V growing a token a step. At the first step the last
    layer's cross K and V made contiguous are alive beside the cache; at the last the self-attention cache is whole
    and beam search reorders the cache layer by layer (`index_select`: one cross K copied while its old copy lives),
    or greedy search concatenates one layer's K; beside them the step's logits in fp32 (three copies)."""
    rows, frames = batch * beams, speech.frames
    features = batch * speech.mels * 2 * frames * e
    encode = features + batch * frames * encoder_per_frame(speech, h, e, eager=eager) + 8 * frames
    one = rows * frames * h * e  # the encoder's output, or one layer's cross K, for every row
    cross, self_kv = 2 * layers * one, 2 * layers * rows * tokens * h * e
    first = 2 * one + 2 * layers * rows * prompt * h * e
    last = self_kv + (one if beams > 1 else rows * tokens * h * e)
    decode = features + one + cross + max(first, last) + 3 * rows * vocab * 4
    return encode, decode, cross + self_kv


def whisper_cpp_caches(speech: Speech, h: int, layers: int, text_ctx: int, beams: int, *,
                       best_of: int = 5) -> tuple[int, int, int]:
    """(kv_self, kv_cross, kv_pad) in bytes as whisper.cpp allocates them (src/whisper.cpp whisper_kv_cache_init, in
    the F16 intermediate type): the self-attention cache of GGML_PAD(n_text_ctx, 256) cells per layer, times
    n_decoders + 2 once several decoders run ("overallocate to workaround KV cache fragmentation": beam_size, or
    best_of when the temperature fallback samples); the cross-attention cache of GGML_PAD(n_audio_ctx, 256) per layer;
    kv_pad, one layer of the encoder's width for its flash-attention pass."""
    decoders = max(beams, best_of) if beams > 1 or best_of > 1 else 1
    factor = decoders + 2 if decoders > 1 else 1
    text, audio = (-(-n // 256) * 256 for n in (text_ctx, speech.frames))
    return 2 * 2 * h * layers * text * factor, 2 * 2 * h * layers * audio, 2 * 2 * h * audio


def whisper_cpp_buffers(speech: Speech, h: int, text_ctx: int, vocab: int, *, flash: bool) -> tuple[int, int, int, int]:
    """(conv, encode, cross, decode): the device part of whisper.cpp's four compute buffers (src/whisper.cpp
    whisper_init_state: ggml_gallocr over each graph, allocated at once, beams or not), in bytes, as ggml-alloc
    places the graphs in their own order (CPU, CUDA; tests/golden/whisper_cpp_buffers.json, exact). With c audio
    positions (1500), X = 4·c·h, the F32 activation: conv holds the mel (4·2c·mels), conv1's F16 im2col (6·2c·mels)
    and two 2c × h outputs (the bias add after the reshape is not in place); encode three X beside the MLP's
    4·c·ffn, or without flash attention four X beside the scores 4·heads·c²; cross one X (K, then V); decode two
    4·T·h rows under the logits 4·T·vocab of the worst case, T = n_text_ctx tokens."""
    c, x = speech.frames, 4 * speech.frames * h
    encode = 3 * x + 4 * c * speech.ffn if flash else 4 * x + 4 * speech.heads * c * c
    return 20 * c * speech.mels + 4 * x, encode, x, 8 * text_ctx * h + 4 * text_ctx * vocab
