"""Speech encoder-decoders in a config.json (`whisper`), read as transformers 5.23 builds them
(WhisperForConditionalGeneration): the text decoder as the layers, the audio encoder beside them
(model/families/speech.py). Keys a config omits take WhisperConfig's defaults (whisper-tiny's). Held to the meta
device by tests/golden/speech.json (tools/measure_speech.py)."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.errors import ValidationError
from ..model.families.decoder.spec import Block, ModelSpec, Norm, NormCompute
from ..model.families.speech import Speech
from .fields import MAX_DIM, MAX_HEADS, MAX_LAYERS, read_bool, read_int

SPEECH_TYPES = ("whisper",)
# WhisperConfig's defaults: d_model, encoder_layers, decoder_layers, encoder_attention_heads, decoder_attention_heads,
# encoder_ffn_dim, decoder_ffn_dim, vocab_size, num_mel_bins, max_source_positions, max_target_positions
_KEYS = ("d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads", "decoder_attention_heads",
         "encoder_ffn_dim", "decoder_ffn_dim", "vocab_size", "num_mel_bins", "max_source_positions",
         "max_target_positions")
_DEFAULTS = (384, 4, 4, 6, 6, 1536, 1536, 51865, 80, 1500, 448)
_HIGH = (MAX_DIM, MAX_LAYERS, MAX_LAYERS, MAX_HEADS, MAX_HEADS, MAX_DIM, MAX_DIM, MAX_DIM * 10, 1024, MAX_DIM,
         MAX_DIM)


def read_speech(config: Mapping[str, object], name: str, display: str) -> ModelSpec:
    """WhisperDecoder as the layers: token and learned position embeddings (max_target_positions rows), layers of
    self-attention, cross-attention and a GELU MLP with LayerNorms, the final LayerNorm, proj_out tied to the
    token embeddings (tie_word_embeddings). WhisperEncoder beside it (families/speech.py)."""
    h, enc_layers, dec_layers, enc_heads, dec_heads, enc_ffn, dec_ffn, vocab, mels, frames, tokens = (
        read_int(config, key, 1, high, default=default)
        for key, high, default in zip(_KEYS, _HIGH, _DEFAULTS, strict=True))
    for key, heads in (("encoder_attention_heads", enc_heads), ("decoder_attention_heads", dec_heads)):
        if h % heads:
            raise ValidationError(key, heads, f"must divide d_model ({h})")
    return ModelSpec(
        name=name, display_name=display, model_type="whisper", block=Block.GPT2, hidden=h, layers=dec_layers,
        heads=dec_heads, kv_heads=dec_heads, head_dim=h // dec_heads, ffn=dec_ffn, vocab=vocab,
        tie_embeddings=read_bool(config, "tie_word_embeddings", default=True), gated_mlp=False, norm=Norm.LAYER,
        norm_compute=NormCompute.LAYER, qkv_bias=True, o_bias=True, mlp_bias=True, learned_positions=tokens,
        max_positions=tokens, speech=Speech("whisper", mels, enc_layers, enc_heads, enc_ffn, frames))
