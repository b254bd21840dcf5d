"""Count Whisper exactly, and measure one transcription's peak, for the golden tests.

A developer tool, not run by CI.

Parameters: WhisperForConditionalGeneration (AutoModelForSpeechSeq2Seq) built with transformers on PyTorch's `meta`
device from each Whisper preset's config.json (tiny, base, small, medium, large-v3, large-v3-turbo) and from
perturbed ones (other widths, depths, heads, mel bins, windows and an untied head).

Peaks: `model.generate(input_features, num_beams=k, max_new_tokens=t, min_new_tokens=t)` (WhisperGenerationMixin,
short-form: one 30 s window per row; min_new_tokens keeps the random-weight decoder from stopping early) under
`torch.no_grad()` on the CPU, tiny random-weight models, eager and sdpa attention, fp32 and bf16, the peak of live
tensor storages above the weights and the input features (tools/measure_peak.py's PeakTracker), split where the
encoder returns: the encoder's phase and the decoder's. Short windows (max_source_positions 150 or 300 instead of
1500) keep the runs short; a few cases run the full 1500 frames.

Usage: python tools/measure_speech.py [--out tests/golden/speech.json]
Needs: pip install torch==2.13.0 transformers==5.23.0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch
from transformers import AutoConfig, AutoModelForSpeechSeq2Seq, GenerationConfig, WhisperForConditionalGeneration

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_peak import DTYPES, PeakTracker, write_golden

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "app" / "vramcalc" / "data" / "models"
FULL = ("whisper-tiny", "whisper-base", "whisper-small", "whisper-medium", "whisper-large-v3", "whisper-large-v3-turbo")
PERTURBED = [
    {"d_model": 320, "encoder_layers": 3, "decoder_layers": 5, "encoder_attention_heads": 5,
     "decoder_attention_heads": 4, "encoder_ffn_dim": 1000, "decoder_ffn_dim": 700, "vocab_size": 7001,
     "num_mel_bins": 64, "max_source_positions": 750, "max_target_positions": 300, "pad_token_id": 7000,
     "bos_token_id": 6999, "eos_token_id": 7000, "decoder_start_token_id": 6998},
    {"d_model": 192, "encoder_layers": 2, "decoder_layers": 1, "encoder_attention_heads": 3,
     "decoder_attention_heads": 6, "vocab_size": 5003, "tie_word_embeddings": False, "pad_token_id": 5000,
     "bos_token_id": 5000, "eos_token_id": 5000, "decoder_start_token_id": 5001},
]


def count(config: dict) -> int:
    kwargs = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    with torch.device("meta"):
        model = AutoModelForSpeechSeq2Seq.from_config(AutoConfig.for_model("whisper", **kwargs))
    return sum(p.numel() for p in model.parameters())  # unique: the tied proj_out once


# ---------------------------------------------------------------- one transcription

TINY = {"d_model": 256, "encoder_layers": 2, "decoder_layers": 3, "encoder_attention_heads": 4,
        "decoder_attention_heads": 4, "encoder_ffn_dim": 1024, "decoder_ffn_dim": 1024, "vocab_size": 1000,
        "num_mel_bins": 80, "pad_token_id": 999, "bos_token_id": 998, "eos_token_id": 999,
        "decoder_start_token_id": 997}
NARROW = {**TINY, "d_model": 192, "encoder_attention_heads": 3, "decoder_attention_heads": 6, "encoder_ffn_dim": 500,
          "decoder_layers": 3, "vocab_size": 3000, "pad_token_id": 2999, "eos_token_id": 2999}


def measure(config: dict, attention: str, dtype: str, batch: int, beams: int, new_tokens: int) -> dict:
    kwargs = {k: v for k, v in config.items() if k != "model_type"}
    cfg = AutoConfig.for_model("whisper", **kwargs)
    torch.manual_seed(0)
    model = WhisperForConditionalGeneration._from_config(cfg, attn_implementation=attention).to(DTYPES[dtype]).eval()
    model.generation_config = GenerationConfig(
        decoder_start_token_id=cfg.decoder_start_token_id, eos_token_id=cfg.eos_token_id, pad_token_id=cfg.pad_token_id,
        no_timestamps_token_id=cfg.decoder_start_token_id - 1, is_multilingual=False)
    features = torch.randn(batch, cfg.num_mel_bins, 2 * cfg.max_source_positions, dtype=DTYPES[dtype])
    tracker = PeakTracker()
    tracker.track_all(model.parameters())
    tracker.track_all(model.buffers())
    tracker.track_all([features])
    start = tracker.live
    model.model.encoder.register_forward_hook(lambda *_: tracker.switch("decode"))
    with torch.no_grad(), tracker, tracker.in_phase("encode"):
        out = model.generate(features, num_beams=beams, max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                             do_sample=False)
    assert out.shape[-1] == new_tokens, out.shape
    return {"encode_peak_bytes": tracker.phases["encode"]["peak"] - start,
            "decode_peak_bytes": tracker.phases["decode"]["peak"] - start}


def plan() -> list[tuple[str, dict, str, str, int, int, int]]:
    """Short windows whose decoder ends past its first step (150 frames, 32 tokens: the self-attention cache
    outgrows a cross-attention tensor) or not (300 frames, 8 tokens); greedy and beams; a few full windows."""
    cases = []
    for frames, tokens in ((150, 32), (300, 8)):
        for attention, dtype in (("sdpa", "fp32"), ("sdpa", "bf16"), ("eager", "bf16")):
            for batch, beams in ((1, 1), (1, 4), (2, 2)):
                cases.append(("tiny", {**TINY, "max_source_positions": frames, "max_target_positions": tokens + 4},
                              attention, dtype, batch, beams, tokens))
    for batch, beams in ((2, 1), (1, 3)):
        cases.append(("narrow", {**NARROW, "max_source_positions": 150, "max_target_positions": 36}, "sdpa", "fp32",
                      batch, beams, 32))
    cases.append(("tiny", {**TINY, "max_source_positions": 1500, "max_target_positions": 12}, "sdpa", "bf16", 1, 2, 6))
    return cases


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "tests" / "golden" / "speech.json"))
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    params = []
    for slug in FULL:
        config = json.loads((PRESETS / f"{slug}.json").read_text(encoding="utf-8"))["config"]
        params.append({"name": slug, "config": config, "params": count(config)})
    for index, config in enumerate(PERTURBED):
        config = {"model_type": "whisper", **config}
        params.append({"name": f"perturbed-{index + 1}", "config": config, "params": count(config)})
    for case in params:
        print(f"{case['name']:24s} {case['params']:>14,}")
    runs = []
    for name, config, attention, dtype, batch, beams, tokens in plan():
        peaks = measure(config, attention, dtype, batch, beams, tokens)
        runs.append({"config": {"model_type": "whisper", **config}, "attention": attention, "dtype": dtype,
                     "batch": batch, "beams": beams, "new_tokens": tokens, **peaks})
        print(name, config["max_source_positions"], attention, dtype, batch, beams, tokens, peaks, flush=True)
    write_golden(args.out, "measure_speech.py", {"params": params, "generate": runs})


if __name__ == "__main__":
    main()
