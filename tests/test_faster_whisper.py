"""faster-whisper (`runtime=faster-whisper`): CTranslate2's rules read from its source (OpenNMT/CTranslate2 at
0d8bcd3: src/models/model.cc, src/layers/transformer.cc, src/decoding.cc) and the answer held to faster-whisper's
README benchmark (SYSTRAN/faster-whisper 65882ee, "Large-v2 model on GPU": v1.1.0, 13 minutes of audio, beam 5,
CUDA 12.4 on an RTX 3070 Ti 8GB, the most `nvmlDeviceGetMemoryInfo(...).used` seen every 0.5 s:
benchmark/memory_benchmark.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramcalc import estimate
from vramcalc.core.errors import ValidationError
from vramcalc.inputs.parse import CONFIG, parse_workload

MIB = 2**20
LARGE_V3 = json.loads((Path(__file__).parents[1] / "app/vramcalc/data/models/whisper-large-v3.json").read_text())
# openai/whisper-large-v2's config.json differs from large-v3's in its 80 mel bins and 51,865 tokens
LARGE_V2 = {**LARGE_V3["config"], "num_mel_bins": 80, "vocab_size": 51865}


def _run(precision: str, batch: str = "1", **extra: str):
    values = {"model": CONFIG, "mode": "speech", "runtime": "faster-whisper", "precision": precision,
              "gpu": "rtx-3070", "audio_seconds": "780", "batch": batch, **extra}  # sm_86, as the 3070 Ti
    return estimate(parse_workload(values, config=LARGE_V2))


def test_int8_keeps_convolutions_positions_norms_and_biases_in_float():
    """model.cc set_compute_type: 2-D "weight" variables become int8 with a float32 scale per row; on CUDA the
    convolutions stay in the float type; positions (`encodings`), gamma, beta and biases are not quantizable."""
    fp16, int8 = (_run(p).bytes_of("weights") for p in ("fp16", "int8"))
    params = 1_543_304_960  # large-v2: large-v3's 1,543,490,560 less 48 mel rows of conv1 and one token
    assert fp16 == 2 * params
    assert params < int8 < 0.51 * fp16


def test_beam_search_shares_the_cross_attention_the_fallback_does_not():
    """transformer.cc replicate_state: memory keys and values "are the same for each beam"; decoding.cc repeats
    the whole state for the fallback's num_hypotheses (best_of 5). With 20 beams, beam search is the larger."""
    five, twenty = (_run("fp16", beams=b).bytes_of("kv_cache") for b in ("5", "20"))
    h, layers, frames, tokens = 1280, 32, 1500, 448
    assert five == 2 * layers * 2 * h * 5 * (frames + tokens)  # the fallback: 5 samples, each its own cross K, V
    assert twenty == 2 * layers * 2 * h * (frames + 20 * tokens)


README_MIB = {("fp16", "1"): 4525, ("int8", "1"): 2926, ("fp16", "8"): 6090, ("int8", "8"): 4500}
GAPS = {
    ("int8", "1"): "+18 %: the answer counts the temperature fallback's best_of 5 cross-attention caches and 448 "
                   "tokens, which this 13-minute run need not reach; beam search alone would be 15 % under",
    ("fp16", "8"): "+158 %: BatchedInferencePipeline's batch is counted with the fallback and 448 tokens per row; "
                   "the batched pipeline's own limits are not modelled yet",
    ("int8", "8"): "+217 %: as fp16 with batch_size=8",
}


@pytest.mark.parametrize("case", [pytest.param(case, id=f"{case[0]}-batch{case[1]}",
                                               marks=pytest.mark.xfail(strict=True, reason=GAPS[case])
                                               if case in GAPS else ()) for case in README_MIB])
def test_against_faster_whisper_readme(case):
    """Within 10 % of the README's VRAM column, or marked with the reason it is not."""
    total = _run(*case).total_bytes / MIB
    assert abs(total / README_MIB[case] - 1) <= 0.10, (case, round(total))


def test_faster_whisper_refuses_what_it_does_not_run():
    with pytest.raises(ValidationError, match="runtime"):
        estimate(parse_workload({"model": "llama-3.1-8b", "runtime": "faster-whisper"}))
    with pytest.raises(ValidationError, match="precision"):
        _run("q4_k_m")
    for card in ("m4-max-128gb", "mi300x", "strix-halo"):  # CTranslate2 has CUDA kernels only
        with pytest.raises(ValidationError) as error:
            parse_workload({"model": "whisper-large-v3", "mode": "speech", "runtime": "faster-whisper", "gpu": card})
        assert error.value.field == "runtime" and "CUDA" in str(error.value)
    parse_workload({"model": "whisper-large-v3", "mode": "speech", "runtime": "faster-whisper", "gpu": "dgx-spark"})


def test_a_transcription_is_told_in_beams_and_audio_and_its_files_named_as_its_programs_name_them():
    """The header speaks of beams and audio seconds, not of a sequence; whisper.cpp's files are ggml-<size>.bin
    (f16) and ggml-<size>-<type>.bin (ggml-org/whisper.cpp models/download-ggml-model.sh); faster-whisper takes
    its size names (faster_whisper/utils.py _MODELS)."""
    from vramcalc.render.command import command_lines
    from vramcalc.render.export import request_summary

    speech = {"model": "whisper-large-v3", "mode": "speech", "audio_seconds": "780"}
    header = request_summary(parse_workload(speech), key="results.header")
    assert header == "speech, bf16, 5 beams, 780 s of audio (26 × 30 s, 1 at once)"
    notes = estimate(parse_workload(speech)).notes
    assert not any(getattr(n, "key", "") == "note.seq_over_context" for n in notes)
    assert command_lines(parse_workload({**speech, "runtime": "llamacpp", "precision": "q5_0"}))[0].startswith(
        "whisper-cli -m ggml-large-v3-q5_0.bin ")
    assert " -m ggml-large-v3.bin " in command_lines(parse_workload({**speech, "runtime": "llamacpp"}))[0]
    assert command_lines(parse_workload({**speech, "runtime": "faster-whisper", "precision": "int8"})) == (
        'model = WhisperModel("large-v3", device="cuda", compute_type="int8")',
        'model.transcribe("audio.wav", beam_size=5)')
